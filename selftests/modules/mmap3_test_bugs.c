// SPDX-License-Identifier: GPL-2.0
/*
 * Bugs on demand, so the test rig can show that the debug kernel's
 * checkers report each kind and that a report fails the run: write the
 * name of one to /sys/module/mmap3_test_bugs/parameters/bug.
 *
 *   oob        a read past a kmalloc()ed object (KASAN)
 *   leak       an object allocated and forgotten (kmemleak)
 *   lockorder  two mutexes taken in both orders (lockdep)
 *   sleep      an allocation that may sleep, with a spinlock held
 *              (atomic-sleep debugging; usleep_range() has no check)
 *   rcu        kfree_rcu() of a slab object, then the slab destroyed
 *              after rcu_barrier() alone, as mmap3 once did (6.1 and
 *              5.10 warn: "Slab cache still has objects")
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/init.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/string.h>

static DEFINE_MUTEX(lock_a);
static DEFINE_MUTEX(lock_b);
static DEFINE_SPINLOCK(spin);
static void *leaked;

struct rcu_obj {
	struct rcu_head rcu;
	long payload;
};

static noinline int read_past(const char *p, size_t n)
{
	return READ_ONCE(p[n]);
}

static void bug_oob(void)
{
	char *p = kmalloc(16, GFP_KERNEL);

	if (p)
		pr_info("oob: %d\n", read_past(p, 16 + 8));
	kfree(p);
}

static void bug_leak(void)
{
	leaked = kmalloc(128, GFP_KERNEL);
	leaked = NULL;
}

static void bug_lockorder(void)
{
	mutex_lock(&lock_a);
	mutex_lock(&lock_b);
	mutex_unlock(&lock_b);
	mutex_unlock(&lock_a);
	mutex_lock(&lock_b);
	mutex_lock(&lock_a);
	mutex_unlock(&lock_a);
	mutex_unlock(&lock_b);
}

static void bug_sleep(void)
{
	void *p;

	spin_lock(&spin);
	p = kmalloc(64, GFP_KERNEL);
	spin_unlock(&spin);
	kfree(p);
}

static void bug_rcu(void)
{
	struct kmem_cache *c = kmem_cache_create("mmap3_test_rcu", sizeof(struct rcu_obj),
						  0, 0, NULL);
	struct rcu_obj *o = c ? kmem_cache_alloc(c, GFP_KERNEL) : NULL;

	if (o)
		kfree_rcu(o, rcu);
	rcu_barrier();
	kmem_cache_destroy(c);
}

static int set_bug(const char *val, const struct kernel_param *kp)
{
	if (sysfs_streq(val, "oob"))
		bug_oob();
	else if (sysfs_streq(val, "leak"))
		bug_leak();
	else if (sysfs_streq(val, "lockorder"))
		bug_lockorder();
	else if (sysfs_streq(val, "sleep"))
		bug_sleep();
	else if (sysfs_streq(val, "rcu"))
		bug_rcu();
	else
		return -EINVAL;
	return 0;
}

static const struct kernel_param_ops bug_ops = {
	.set = set_bug,
};
module_param_cb(bug, &bug_ops, NULL, 0200);
MODULE_PARM_DESC(bug, "oob, leak, lockorder, sleep or rcu: commit that bug now");

static int __init mmap3_test_bugs_init(void)
{
	return 0;
}

static void __exit mmap3_test_bugs_exit(void)
{
}

module_init(mmap3_test_bugs_init);
module_exit(mmap3_test_bugs_exit);

MODULE_DESCRIPTION("Test module for the mmap3 test rig: bugs on demand");
MODULE_LICENSE("GPL");
