// SPDX-License-Identifier: GPL-2.0
/*
 * A module that does nothing: the capture tests load and unload it and
 * expect records with its name and build-id.
 */
#include <linux/init.h>
#include <linux/module.h>

static int __init mmap3_test_module_init(void)
{
	return 0;
}

static void __exit mmap3_test_module_exit(void)
{
}

module_init(mmap3_test_module_init);
module_exit(mmap3_test_module_exit);

MODULE_DESCRIPTION("Test module for the mmap3 selftests: loaded and unloaded");
MODULE_LICENSE("GPL");
