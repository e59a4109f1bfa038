void sink(char *p);
void demo_bad(void) __attribute__((__warning__("demo_bad called")));

static inline __attribute__((__always_inline__)) void chk(char *d,
							  unsigned long n)
{
	__builtin_memset(d, 0, n);
}

static inline __attribute__((__always_inline__)) int rd(const int *a, int i)
{
	return a[i];
}

static inline __attribute__((__always_inline__)) void warned(int x)
{
	if (x > 3)
		demo_bad();
}

void caller(void)
{
	char buf[4];

	chk(buf, 8);
	sink(buf);
}

int reader(void)
{
	int a[4] = { 0 };

	sink((char *)a);
	return rd(a, 6);
}

void warner(void)
{
	warned(5);
}
