#include <linux/owner.h>

void follow_b(long *l)
{
	owner_take(l);
}
