// SPDX-License-Identifier: GPL-2.0
/*
 * How the hook is called from perf_event_mmap(vma): an ftrace_ops of our
 * own where the kernel gives its callback the arguments without a
 * pt_regs (wrapper/ftrace.h), else a kprobe (5.10, whose kernel/events
 * has no ftrace site; arm64, where it is a BRK exception).
 *
 * A kprobe on an ftrace site is itself an ftrace_ops, one that saves a
 * whole pt_regs and then looks the probe up by address
 * (kprobe_ftrace_handler(), get_kprobe()): 158 instructions per mapping
 * on 6.12 before the handler runs (bench/vm/profile).  An ftrace_ops of
 * our own is called from its own trampoline, which saves only the
 * argument registers: 72 with its callback.  Its callback runs with
 * preemption enabled until it takes ftrace's recursion guard, which
 * disables it: the hook runs with preemption off either way.
 *
 * kernel.ftrace_enabled=0 makes the kernel call no ftrace_ops, and no
 * kprobe on an ftrace site, without telling them: our ops is permanent,
 * so the sysctl is refused while it is registered, and registering it
 * while ftrace is off fails; a session's ENABLE then fails with EBUSY.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/atomic.h>
#include <linux/kprobes.h>
#include <linux/mm_types.h>
#include <linux/string.h>

#include "attach.h"
#include "wrapper/ftrace.h"

#define TARGET	"perf_event_mmap"

static int mmap3_kprobe_handler(struct kprobe *kp, struct pt_regs *regs)
{
	struct vm_area_struct *vma = (void *)regs_get_kernel_argument(regs, 0);

	if (mmap3_hook_wants(vma))
		mmap3_hook_mapping(vma);
	return 0;
}

/* A probe on the handler would recurse. */
NOKPROBE_SYMBOL(mmap3_kprobe_handler);

static struct kprobe mmap3_kprobe = {
	.symbol_name = TARGET,
};

/* What the last mmap3_attach_add() used; under the caller's probe_lock. */
static bool attached_by_ftrace;

#ifdef MMAP3_HAVE_FTRACE_OPS
/* Calls the recursion guard turned away since the last add. */
static atomic_long_t ftrace_missed;
/* The ops' filter names perf_event_mmap: it has an ftrace site. */
static bool ftrace_filter_set;

/* Reading the mapping's flags calls nothing: safe before the guard. */
static void notrace mmap3_ftrace_handler(unsigned long ip, unsigned long parent_ip,
					 struct ftrace_ops *ops, struct ftrace_regs *fregs)
{
	struct vm_area_struct *vma = (void *)mmap3_ftrace_arg0(fregs);
	int bit;

	if (!mmap3_hook_wants(vma))
		return;
	bit = ftrace_test_recursion_trylock(ip, parent_ip);
	if (bit < 0) {
		atomic_long_inc(&ftrace_missed);
		return;
	}
	mmap3_hook_mapping(vma);
	ftrace_test_recursion_unlock(bit);
}

/*
 * No FTRACE_OPS_FL_RECURSION: ftrace would call us through a helper that
 * guards.  FTRACE_OPS_FL_PERMANENT (5.5 on, as livepatch's ops): while
 * it is registered ftrace_enable_sysctl() fails a write of 0 with EBUSY
 * (is_permanent_ops_registered()), and __register_ftrace_function()
 * returns -EBUSY while ftrace_enabled is 0 instead of registering an ops
 * never called (kernel/trace/ftrace.c of 6.12; hostile_test sees both
 * on 6.1, 6.12 and 7.2).
 */
static struct ftrace_ops mmap3_ftrace_ops = {
	.func = mmap3_ftrace_handler,
	.flags = FTRACE_OPS_FL_PERMANENT,
};

static void ftrace_filter_init(void)
{
	char name[] = TARGET;
	int ret;

	ret = ftrace_set_filter(&mmap3_ftrace_ops, name, strlen(name), 1);
	if (ret)
		pr_info("cannot point an ftrace_ops at %s (%d): hooking it with a kprobe\n",
			TARGET, ret);
	else
		ftrace_filter_set = true;
}

static int ftrace_attach(void)
{
	int ret;

	if (!ftrace_filter_set)
		return -ENODEV;
	atomic_long_set(&ftrace_missed, 0);
	ret = register_ftrace_function(&mmap3_ftrace_ops);
	/* Neither IPMODIFY nor DIRECT: EBUSY is the permanent ops' refusal. */
	if (ret == -EBUSY)
		pr_warn_once("kernel.ftrace_enabled is 0: no session can be enabled until it is 1\n");
	else if (ret)
		pr_warn("cannot attach to %s's ftrace site (%d): hooking it with a kprobe\n",
			TARGET, ret);
	return ret;
}
#else
static void ftrace_filter_init(void)
{
}

static int ftrace_attach(void)
{
	return -ENODEV;
}
#endif

int mmap3_attach_add(void)
{
	int ret = ftrace_attach();

	attached_by_ftrace = !ret;
	if (!ret)
		return 0;
	/* ftrace is off: a kprobe on the same ftrace site would never fire. */
	if (ret == -EBUSY)
		return ret;
	/*
	 * A kprobe registered before keeps its resolved address and comes
	 * back from unregister_kprobe() marked disabled, which
	 * register_kprobe() keeps: by name again, and enabled.
	 */
	mmap3_kprobe.addr = NULL;
	mmap3_kprobe.flags = 0;
	mmap3_kprobe.pre_handler = mmap3_kprobe_handler;
	return register_kprobe(&mmap3_kprobe);
}

void mmap3_attach_remove(void)
{
#ifdef MMAP3_HAVE_FTRACE_OPS
	/* A module's ops is dynamic: this waits out every trampoline call. */
	if (attached_by_ftrace) {
		unregister_ftrace_function(&mmap3_ftrace_ops);
		return;
	}
#endif
	unregister_kprobe(&mmap3_kprobe);
}

unsigned long mmap3_attach_missed(void)
{
#ifdef MMAP3_HAVE_FTRACE_OPS
	if (attached_by_ftrace)
		return atomic_long_read(&ftrace_missed);
#endif
	return READ_ONCE(mmap3_kprobe.nmissed);
}

const char *mmap3_attach_kind(void)
{
	return attached_by_ftrace ? "ftrace" : "kprobe";
}

void mmap3_attach_init(void)
{
	ftrace_filter_init();
}

void mmap3_attach_exit(void)
{
#ifdef MMAP3_HAVE_FTRACE_OPS
	if (ftrace_filter_set)
		ftrace_free_filter(&mmap3_ftrace_ops);
	ftrace_filter_set = false;
#endif
}
