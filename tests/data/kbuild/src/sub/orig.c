// SPDX-License-Identifier: GPL-2.0
#include <linux/module.h>

int sub_orig_pick(int x);
int sub_orig_pick(int x)
{
	int r = 0;

	switch (x) {
	case 1:
		r = 1;
	case 2:
		r += 2;
		break;
	}
	return r;
}
MODULE_LICENSE("GPL");
