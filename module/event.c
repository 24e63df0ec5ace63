// SPDX-License-Identifier: GPL-2.0
/*
 * Events: what every producer hands down, and the clocks they carry.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/cred.h>
#include <linux/file.h>
#include <linux/kprobes.h>
#include <linux/mm.h>
#include <linux/mman.h>
#include <linux/path.h>
#include <linux/moduleparam.h>
#include <linux/sched/clock.h>
#include <linux/timekeeping.h>

#include "internal.h"

unsigned int mmap3_read_timeout_ms = 1000;
module_param_named(read_timeout_ms, mmap3_read_timeout_ms, uint, 0444);
MODULE_PARM_DESC(read_timeout_ms,
		 "Longest wait for a file's filesystem: a mapping's build-id, a capture read (default 1000)");

/* NMI-safe clocks only: the hook calls this from int3 or BRK, NMI-like. */
void mmap3_time_now(struct mmap3_time *t)
{
	t->local = local_clock();
	t->mono = ktime_get_mono_fast_ns();
	t->raw = ktime_get_raw_fast_ns();
}

NOKPROBE_SYMBOL(mmap3_time_now);

void mmap3_time_derive(struct mmap3_time *t, const struct mmap3_time *now)
{
	/* Another CPU's local_clock() may be a little ahead. */
	u64 since = now->local > t->local ? now->local - t->local : 0;

	t->mono = now->mono - since;
	t->raw = now->raw - since;
}

u32 mmap3_vm_prot(unsigned long vm_flags)
{
	return (vm_flags & VM_READ ? PROT_READ : 0) |
	       (vm_flags & VM_WRITE ? PROT_WRITE : 0) |
	       (vm_flags & VM_EXEC ? PROT_EXEC : 0);
}

NOKPROBE_SYMBOL(mmap3_vm_prot);

/* Process context: fput() may sleep. */
void mmap3_event_release(struct mmap3_event *ev)
{
	unsigned int i;

	for (i = 0; i < MMAP3_EVENT_ROOTS; i++)
		put_pid(ev->roots[i]);
	fput(ev->file);
	put_cred(ev->cred);
	if (ev->root.mnt)
		path_put(&ev->root);
	put_pid(ev->tgid);
	put_pid(ev->pid);
}
