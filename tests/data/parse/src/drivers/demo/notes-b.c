#include <linux/takes.h>

void h(short *s)
{
	takes_int(s);
}
