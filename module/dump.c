// SPDX-License-Identifier: GPL-2.0
/*
 * State dump: the executable file mappings of every process that exists
 * when a session starts, so a session begun mid-flight is complete.
 *
 * Tasks are pinned under RCU, then each process's mm is taken and its
 * VMAs read under mmap_read_lock, outside RCU; file references are taken
 * there and the files read only after the lock is dropped.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/file.h>
#include <linux/mm.h>
#include <linux/mman.h>
#include <linux/pid_namespace.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/sched/mm.h>
#include <linux/sched/signal.h>
#include <linux/sched/task.h>
#include <linux/slab.h>

#include "compat.h"
#include "mmap3.h"

struct dump_vma {
	struct file *file;
	unsigned long start, len, pgoff;
	u32 prot, flags;
};

static int grow(struct dump_vma **vmas, unsigned int *cap)
{
	unsigned int ncap = *cap ? 2 * *cap : 64;
	struct dump_vma *nv = kvmalloc_array(ncap, sizeof(*nv), GFP_KERNEL);

	if (!nv)
		return -ENOMEM;
	if (*vmas)
		memcpy(nv, *vmas, *cap * sizeof(*nv));
	kvfree(*vmas);
	*vmas = nv;
	*cap = ncap;
	return 0;
}

/* Collect @mm's file mappings into a growing array; mmap_lock held. */
static int collect_vmas(struct mm_struct *mm, bool data, struct dump_vma **vmas,
			unsigned int *n, unsigned int *cap)
{
	struct mmap3_vma_iter it;
	struct vm_area_struct *vma;

	for (vma = mmap3_vma_first(&it, mm); vma; vma = mmap3_vma_next(&it)) {
		if (!vma->vm_file || (!(vma->vm_flags & VM_EXEC) && !data))
			continue;
		if (*n == *cap && grow(vmas, cap))
			return -ENOMEM;
		(*vmas)[*n] = (struct dump_vma){
			.file = get_file(vma->vm_file),
			.start = vma->vm_start,
			.len = vma->vm_end - vma->vm_start,
			.pgoff = vma->vm_pgoff,
			.prot = (vma->vm_flags & VM_READ ? PROT_READ : 0) |
				(vma->vm_flags & VM_WRITE ? PROT_WRITE : 0) |
				(vma->vm_flags & VM_EXEC ? PROT_EXEC : 0),
			.flags = MMAP3_MMAP_DUMP |
				 (vma->vm_flags & VM_MAYSHARE ? MMAP3_MMAP_SHARED : 0),
		};
		(*n)++;
	}
	return 0;
}

struct dump_task {
	struct task_struct *task;
	struct pid *tgid;
};

static int dump_task(struct mmap3_session *s, const struct dump_task *t, bool data,
		     struct mmap3_record_mmap *rec)
{
	struct dump_vma *vmas = NULL;
	unsigned int n = 0, cap = 0, i;
	struct mmap3_event ev = { };
	struct mm_struct *mm;
	int ret;

	mm = get_task_mm(t->task);
	if (!mm)
		return 0;		/* a kernel thread, or exiting */
	ret = mmap_read_lock_killable(mm);
	if (!ret) {
		ret = collect_vmas(mm, data, &vmas, &n, &cap);
		mmap_read_unlock(mm);
	}
	mmput(mm);

	mmap3_now(&ev);
	ev.tgid = t->tgid;
	ev.pid = t->tgid;
	for (i = 0; i < n; i++) {
		ev.file = vmas[i].file;
		ev.start = vmas[i].start;
		ev.len = vmas[i].len;
		ev.pgoff = vmas[i].pgoff;
		ev.prot = vmas[i].prot;
		ev.flags = vmas[i].flags;
		ev.cpu = raw_smp_processor_id();
		if (!ret && !mmap3_record_mmap_fill(rec, &ev))
			mmap3_session_emit_mmap(s, &ev, rec);
		fput(vmas[i].file);
	}
	kvfree(vmas);
	return ret == -EINTR ? -EINTR : 0;
}

int mmap3_dump_processes(struct mmap3_session *s, struct pid_namespace *ns, bool data)
{
	struct mmap3_record_mmap *rec;
	struct dump_task *tasks;
	struct task_struct *p;
	unsigned int n = 0, cap = 0, i;
	int ret = 0;

	rcu_read_lock();
	for_each_process(p)
		cap++;
	rcu_read_unlock();
	cap += 64;		/* processes created meanwhile are seen live */
	tasks = kvmalloc_array(cap, sizeof(*tasks), GFP_KERNEL);
	rec = mmap3_record_mmap_alloc();
	if (!tasks || !rec) {
		ret = -ENOMEM;
		goto out;
	}

	rcu_read_lock();
	for_each_process(p) {
		if (n == cap)
			break;
		/* Only what the opener's pid namespace can see. */
		if (!task_tgid_nr_ns(p, ns) || (p->flags & PF_KTHREAD))
			continue;
		tasks[n].task = get_task_struct(p);
		tasks[n].tgid = get_pid(task_tgid(p));
		n++;
	}
	rcu_read_unlock();

	for (i = 0; i < n; i++) {
		if (!ret)
			ret = dump_task(s, &tasks[i], data, rec);
		put_pid(tasks[i].tgid);
		put_task_struct(tasks[i].task);
		cond_resched();
	}
out:
	kfree(rec);
	kvfree(tasks);
	return ret;
}
