#include <linux/inner.h>

#define DEMO_CASE(v) \
	case v:      \
		n += v

int demo_clang(int x)
{
	int n = inner_a(x);

	switch (x) {
		DEMO_CASE(1);
		DEMO_CASE(2);
		break;
	case 3:
		n++;
	default:
		n--;
	}
	return n;
}
