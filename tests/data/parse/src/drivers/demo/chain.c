#include <linux/outer.h>

int demo_chain(int x)
{
	return outer_a(x);
}
