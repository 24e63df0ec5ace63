// SPDX-License-Identifier: GPL-2.0
/*
 * mmap3: build-id-aware records of executable mappings and kernel modules,
 * for perf.  Module entry and exit: the layers from the bottom up, the
 * device last (once it exists, sessions can start).  See internal.h for
 * the layers and the lock order.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/init.h>
#include <linux/module.h>
#include <linux/mmap3.h>

#include "abi.h"
#include "cache.h"
#include "capture.h"
#include "dump.h"
#include "hook.h"
#include "kapi.h"
#include "modules.h"
#include "resolve.h"
#include "session.h"

static int __init mmap3_init(void)
{
	int ret;

	ret = mmap3_session_init();
	if (ret)
		return ret;
	ret = mmap3_cache_init();
	if (ret)
		return ret;
	ret = mmap3_capture_module_init();
	if (ret)
		goto err_cache;
	ret = mmap3_resolve_init();
	if (ret)
		goto err_capture;
	ret = mmap3_hook_init();
	if (ret)
		goto err_resolve;
	ret = mmap3_dump_init();
	if (ret)
		goto err_hook;
	ret = mmap3_kapi_init();
	if (ret)
		goto err_dump;
	ret = mmap3_modules_init();
	if (ret)
		goto err_dump;
	ret = mmap3_abi_register();
	if (ret)
		goto err_modules;

	pr_info("loaded, ABI %u.%u\n", MMAP3_ABI_MAJOR, MMAP3_ABI_MINOR);
	return 0;

err_modules:
	mmap3_modules_exit();
err_dump:
	mmap3_dump_exit();
err_hook:
	mmap3_hook_exit();
err_resolve:
	mmap3_resolve_exit();
err_capture:
	mmap3_capture_module_exit();
err_cache:
	mmap3_cache_exit();
	return ret;
}

/*
 * No session is open (each holds a reference to the module), so no dump
 * runs and the hook is unregistered; no slow read runs (each holds one).
 */
static void __exit mmap3_exit(void)
{
	mmap3_abi_unregister();
	mmap3_modules_exit();
	mmap3_dump_exit();
	mmap3_hook_exit();
	mmap3_resolve_exit();
	mmap3_capture_module_exit();
	mmap3_cache_exit();
	pr_info("unloaded\n");
}

module_init(mmap3_init);
module_exit(mmap3_exit);

MODULE_DESCRIPTION("Build-id-aware records of executable mappings and modules, for perf");
MODULE_AUTHOR("The mmap3 developers");
MODULE_LICENSE("GPL");
MODULE_VERSION(MMAP3_VERSION);
