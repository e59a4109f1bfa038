/* Function shapes whose name clang does not print: gcc's "In function"
 * names each, and the source must give the same name or none. */
#define SYSCALL_DEFINE1(name, t1, a1) \
	long sys_##name(t1 a1);       \
	long sys_##name(t1 a1)
#define DEFINE_SHOW(n) static int n##_show(int v)

SYSCALL_DEFINE1(shapes, int, x)
{
	int unused_a;

	return x;
}

DEFINE_SHOW(shapes)
{
	int unused_b;

	return v;
}

int shapes_brace(int x) {
	int unused_c;

	return x;
}

static void shapes_target(int n)
{
	(void)n;
}

static void (*shapes_handler(int n))(int)
{
	int unused_d;

	return n ? shapes_target : 0;
}

__attribute__((noinline)) static int shapes_attr(int x)
{
	int unused_e;

	return x + (shapes_handler(x) != 0);
}

static int __attribute__((section(".text.shapes")))
shapes_split(int x,
	     int y)
{
	int unused_f; // a comment with words(like this)

	return x + y + shapes_attr(x);
}

int shapes_use(void)
{
	return shapes_split(1, 2) + sys_shapes(1) + shapes_show(2);
}
