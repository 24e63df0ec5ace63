// SPDX-License-Identifier: GPL-2.0
/*
 * A module whose load prints a kernel WARNING, so the test rig can show
 * that it catches one.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/bug.h>
#include <linux/init.h>
#include <linux/module.h>

static int __init mmap3_test_warn_init(void)
{
	WARN(1, "deliberate warning for the test rig\n");
	return 0;
}

static void __exit mmap3_test_warn_exit(void)
{
}

module_init(mmap3_test_warn_init);
module_exit(mmap3_test_warn_exit);

MODULE_DESCRIPTION("Test module for the mmap3 test rig: warns on load");
MODULE_LICENSE("GPL");
