#include <linux/takes.h>

void f(char *c)
{
	takes_int(c);
}

void g(long *l)
{
	takes_int(l);
}
