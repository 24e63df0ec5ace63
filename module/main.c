// SPDX-License-Identifier: GPL-2.0
/*
 * mmap3: build-id-aware records of executable mappings and kernel modules,
 * for perf.  Module entry and exit.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/init.h>
#include <linux/module.h>
#include <linux/mmap3.h>

#include "mmap3.h"

static int __init mmap3_init(void)
{
	int ret;

	ret = mmap3_cache_init();
	if (ret)
		return ret;
	ret = mmap3_hook_init();
	if (ret)
		goto err_cache;
	ret = mmap3_kernel_init();
	if (ret)
		goto err_hook;
	/* Last: once the device exists, sessions can start. */
	ret = mmap3_device_register();
	if (ret)
		goto err_kernel;

	pr_info("loaded, ABI %u.%u\n", MMAP3_ABI_MAJOR, MMAP3_ABI_MINOR);
	return 0;

err_kernel:
	mmap3_kernel_exit();
err_hook:
	mmap3_hook_exit();
err_cache:
	mmap3_cache_exit();
	return ret;
}

/* No session is open: each holds a reference to the module. */
static void __exit mmap3_exit(void)
{
	mmap3_device_unregister();
	mmap3_kernel_exit();
	mmap3_hook_exit();
	mmap3_cache_exit();
	pr_info("unloaded\n");
}

module_init(mmap3_init);
module_exit(mmap3_exit);

MODULE_DESCRIPTION("Build-id-aware records of executable mappings and modules, for perf");
MODULE_AUTHOR("The mmap3 developers");
MODULE_LICENSE("GPL");
MODULE_VERSION(MMAP3_VERSION);
