#include "reg.h"
int dccg_init(int n)
{
	int r = 0;
	switch (n) {
	case 5:
		REG_SET(r, 5);
	case 4:
		REG_SET(r, 4);
		break;
	}
	return r;
}
