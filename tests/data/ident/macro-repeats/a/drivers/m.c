/*
 * One warning printed twice at one place (a macro expanded twice), then
 * the same warning elsewhere in the function: two identities, ordinals 0
 * and 1.  At b, the second is fixed and every line moves down by one.
 */
#define SHIFT_UP(x) ((x) << 40)

int demo_shift(int a, int b, int c)
{
	a = SHIFT_UP(a); b = SHIFT_UP(b);
	c = c << 40;
	return a + b + c;
}
