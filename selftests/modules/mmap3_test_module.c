// SPDX-License-Identifier: GPL-2.0
/*
 * A module for the mmap3 selftests.  The capture tests load and unload it
 * and expect records with its name and build-id.  The merge test loads it
 * in the middle of a perf record session and makes it burn CPU in a
 * function with a known name, through a parameter:
 *
 *	echo MILLISECONDS > /sys/module/mmap3_test_module/parameters/spin_ms
 *
 * and expects perf report to put those samples in that function.  The
 * dump's tests hold a process's memory map locked, as a writer stuck for
 * long would:
 *
 *	echo "PID MILLISECONDS" > /sys/module/mmap3_test_module/parameters/lock_mm
 *
 * takes PID's mmap_lock for writing and holds it that long (the write
 * returns after).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/delay.h>
#include <linux/init.h>
#include <linux/kernel.h>
#include <linux/ktime.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/mm.h>
#include <linux/pid.h>
#include <linux/sched.h>
#include <linux/sched/mm.h>
#include <linux/sched/task.h>

/* Long enough for a test, short of the soft-lockup watchdog. */
#define SPIN_MAX_MS	5000

static unsigned int spin_ms;

/* Not inlined: the symbol perf must resolve samples to. */
static noinline void mmap3_test_module_spin(unsigned int ms)
{
	ktime_t end = ktime_add_ms(ktime_get(), ms);
	unsigned long n = 0;
	int i;

	/* Mostly here, not in the clock: emulated clock sources are slow. */
	while (ktime_before(ktime_get(), end)) {
		for (i = 0; i < 100000; i++) {
			n += i;
			OPTIMIZER_HIDE_VAR(n);	/* or the loop folds away */
		}
		cond_resched();
	}
}

static int spin_ms_set(const char *val, const struct kernel_param *kp)
{
	unsigned int ms;
	int ret = kstrtouint(val, 0, &ms);

	if (ret)
		return ret;
	if (ms > SPIN_MAX_MS)
		return -EINVAL;
	spin_ms = ms;
	mmap3_test_module_spin(ms);
	return 0;
}

static const struct kernel_param_ops spin_ms_ops = {
	.set = spin_ms_set,
	.get = param_get_uint,
};
module_param_cb(spin_ms, &spin_ms_ops, &spin_ms, 0600);
MODULE_PARM_DESC(spin_ms, "on write, burn CPU for this many milliseconds (at most 5000)");

static int lock_mm_set(const char *val, const struct kernel_param *kp)
{
	struct task_struct *task;
	struct mm_struct *mm;
	unsigned int ms;
	struct pid *pid;
	int nr;

	if (sscanf(val, "%d %u", &nr, &ms) != 2 || ms > SPIN_MAX_MS)
		return -EINVAL;
	pid = find_get_pid(nr);
	task = pid ? get_pid_task(pid, PIDTYPE_PID) : NULL;
	put_pid(pid);
	if (!task)
		return -ESRCH;
	mm = get_task_mm(task);
	put_task_struct(task);
	if (!mm)
		return -ESRCH;
	mmap_write_lock(mm);
	msleep(ms);
	mmap_write_unlock(mm);
	mmput(mm);
	return 0;
}

static const struct kernel_param_ops lock_mm_ops = {
	.set = lock_mm_set,
};
module_param_cb(lock_mm, &lock_mm_ops, NULL, 0200);
MODULE_PARM_DESC(lock_mm, "on write of \"PID MS\", hold PID's mmap_lock for writing MS ms");

static int __init mmap3_test_module_init(void)
{
	return 0;
}

static void __exit mmap3_test_module_exit(void)
{
}

module_init(mmap3_test_module_init);
module_exit(mmap3_test_module_exit);

MODULE_DESCRIPTION("Test module for the mmap3 selftests: loaded, unloaded, spins on demand");
MODULE_LICENSE("GPL");
