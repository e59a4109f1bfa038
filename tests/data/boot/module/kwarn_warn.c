// SPDX-License-Identifier: GPL-2.0
/* A module whose init WARN()s: the source of module-warning.log. */
#include <linux/init.h>
#include <linux/module.h>

static int __init kwarn_warn_init(void)
{
	WARN(1, "kwarn test: a warning from a module\n");
	return 0;
}
module_init(kwarn_warn_init);
MODULE_LICENSE("GPL");
