#include <linux/owner.h>

void follow(char *c)
{
	owner_take(c);
}

int follow_macro(int x)
{
	return OWNER_SHIFT(x);
}
