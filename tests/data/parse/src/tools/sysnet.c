#include <net/if.h>

int sysnet(long n)
{
	char name[IF_NAMESIZE];

	return (int)if_nametoindex(n) + (name == if_indextoname(n, n));
}
