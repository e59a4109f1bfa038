#include <linux/inner.h>

static inline int outer_a(int x)
{
	switch (x) {
	case 5:
		x++;
	case 6:
		return inner_a(x) + inner_b(x);
	}
	return 0;
}
