/* SPDX-License-Identifier: GPL-2.0 */
/*
 * How the hook is called from perf_event_mmap() (attach.c): an
 * ftrace_ops of our own where the kernel has one for it, else a kprobe.
 */
#ifndef MMAP3_ATTACH_H
#define MMAP3_ATTACH_H

#include <linux/compiler.h>
#include <linux/mm.h>

/* hook.c: a session wants mappings that are not executable. */
extern bool mmap3_hook_want_data;

/*
 * Is @vma one the hook takes?  Asked by attach.c before anything else
 * (ftrace's recursion guard, the call), for every perf_event_mmap(): most
 * mappings a program makes are not executable.
 */
static __always_inline bool mmap3_hook_wants(const struct vm_area_struct *vma)
{
	return vma->vm_file && ((vma->vm_flags & VM_EXEC) || READ_ONCE(mmap3_hook_want_data));
}

/* hook.c: a call of perf_event_mmap(@vma) it wants, preemption off. */
void mmap3_hook_mapping(struct vm_area_struct *vma);

/* Never fails: without an ftrace_ops, the kprobe serves. */
void mmap3_attach_init(void);
void mmap3_attach_exit(void);
/*
 * Patch the call in; 0 or -errno, printed by the caller but -EBUSY:
 * kernel.ftrace_enabled is 0 (warned of once here).
 */
int mmap3_attach_add(void);
/* Patch it out and wait for calls running. */
void mmap3_attach_remove(void);
/* Calls not made (the hook already running on that CPU) since the last add. */
unsigned long mmap3_attach_missed(void);
/* "ftrace" or "kprobe": what the last add used, for messages. */
const char *mmap3_attach_kind(void);

#endif /* MMAP3_ATTACH_H */
