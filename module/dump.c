// SPDX-License-Identifier: GPL-2.0
/*
 * State dump: the loaded modules and the file mappings of every process
 * that exists when a session starts, so a session begun mid-flight is
 * complete.  It runs in a work item of its own and streams into the
 * session's buffer while the reader drains it, waiting for room, so
 * hundreds of thousands of mappings fit any buffer; live records flow
 * beside it (the session is attached first, so nothing falls between).
 *
 * Processes are those of the session's pid namespace, pinned by pid; for
 * each, its mm is taken and its VMAs read under mmap_read_lock, tried for
 * a bounded time (a process whose lock is held that long, e.g. by a page
 * fault stuck on a hung filesystem, is counted lost, not waited for).
 * File references are taken under the lock and the files resolved after.
 * Each record is stamped with the time its process was looked at.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/delay.h>
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

#include "cache.h"
#include "dump.h"
#include "modules.h"
#include "resolve.h"
#include "sink.h"
#include "wrapper/mm.h"

/* How long the dump tries to take one process's mmap_lock. */
#define MMAP_LOCK_WAIT_MS	200

static struct workqueue_struct *dump_wq;

/* What the dump collects of one VMA, under its process's mmap_lock. */
struct dump_vma {
	struct file *file;
	struct mmap3_inode_state state;
	unsigned long start, len, pgoff;
	u32 prot, flags;
};

struct dump_state {
	struct mmap3_dump *d;
	struct mmap3_resolver r;
	struct dump_vma *vmas;		/* reused from process to process */
	unsigned int cap;
	u32 tasks;
	u32 tasks_skipped;
	u64 mappings;
};

static bool wanted_vma(const struct vm_area_struct *vma, bool data)
{
	return vma->vm_file && ((vma->vm_flags & VM_EXEC) || data);
}

static bool grow(struct dump_state *ds)
{
	unsigned int cap = ds->cap ? 2 * ds->cap : 64;
	struct dump_vma *v = kvmalloc_array(cap, sizeof(*v), GFP_KERNEL | __GFP_NOWARN);

	if (!v)
		return false;
	if (ds->vmas)
		memcpy(v, ds->vmas, ds->cap * sizeof(*v));
	kvfree(ds->vmas);
	ds->vmas = v;
	ds->cap = cap;
	return true;
}

static bool lock_mm(struct mm_struct *mm)
{
	unsigned long deadline = jiffies + msecs_to_jiffies(MMAP_LOCK_WAIT_MS);

	while (!mmap_read_trylock(mm)) {
		if (time_after(jiffies, deadline))
			return false;
		usleep_range(500, 1000);
	}
	return true;
}

/*
 * Collect @mm's file mappings; those that find no room (memory ran out)
 * are counted in *@missed.  Returns how many were collected.
 */
static unsigned int collect(struct dump_state *ds, struct mm_struct *mm, u64 *missed)
{
	struct mmap3_vma_iter it;
	struct vm_area_struct *vma;
	unsigned int n = 0;

	for (vma = mmap3_vma_first(&it, mm); vma; vma = mmap3_vma_next(&it)) {
		struct dump_vma *v;

		if (!wanted_vma(vma, ds->d->data))
			continue;
		if (n == ds->cap && !grow(ds)) {
			(*missed)++;
			continue;
		}
		v = &ds->vmas[n++];
		v->file = get_file(vma->vm_file);
		mmap3_inode_state(file_inode(v->file), &v->state);
		v->start = vma->vm_start;
		v->len = vma->vm_end - vma->vm_start;
		v->pgoff = vma->vm_pgoff;
		v->prot = mmap3_vm_prot(vma->vm_flags);
		v->flags = MMAP3_MMAP_DUMP | (vma->vm_flags & VM_MAYSHARE ? MMAP3_MMAP_SHARED : 0);
	}
	return n;
}

static void dump_task(struct dump_state *ds, struct pid *tgid)
{
	struct mmap3_output *out = ds->d->out;
	struct mmap3_event ev = { };
	struct task_struct *task;
	struct mm_struct *mm;
	unsigned int n, i;
	u64 missed = 0;

	task = get_pid_task(tgid, PIDTYPE_TGID);
	if (!task)
		return;			/* exited meanwhile */
	mm = get_task_mm(task);
	put_task_struct(task);
	if (!mm)
		return;			/* exiting */
	if (!lock_mm(mm)) {
		mmput(mm);
		ds->tasks_skipped++;
		mmap3_output_lost(out, MMAP3_LOST_DUMP, 1);
		return;
	}
	n = collect(ds, mm, &missed);
	/* What the process had mapped at this instant. */
	mmap3_time_now(&ev.time);
	mmap_read_unlock(mm);
	mmput(mm);
	if (missed)
		mmap3_output_lost(out, MMAP3_LOST_NOMEM, missed);
	ds->tasks++;

	for (i = 0; i < n; i++) {
		struct dump_vma *v = &ds->vmas[i];

		if (READ_ONCE(ds->d->stop)) {
			fput(v->file);
			continue;
		}
		ev.file = v->file;
		ev.state = v->state;
		ev.tgid = get_pid(tgid);
		ev.pid = NULL;		/* the process, not a thread */
		ev.start = v->start;
		ev.len = v->len;
		ev.pgoff = v->pgoff;
		ev.prot = v->prot;
		ev.flags = v->flags;
		ev.cpu = raw_smp_processor_id();
		mmap3_resolve(&ds->r, &ev, out);
		ds->mappings++;
	}
}

/*
 * The processes of @ns, pinned by their tgid pid.  Counted first, then
 * collected; if more appeared in between, again with more room: nothing
 * is cut off.  Processes born after the session attached are seen live.
 */
static struct pid **snapshot_tgids(struct pid_namespace *ns, unsigned int *n)
{
	unsigned int cap = 0, i;
	struct task_struct *p;
	struct pid **pids;

	rcu_read_lock();
	for_each_process(p)
		cap++;
	rcu_read_unlock();
	for (;;) {
		cap += cap / 8 + 64;
		pids = kvmalloc_array(cap, sizeof(*pids), GFP_KERNEL | __GFP_NOWARN);
		if (!pids)
			return NULL;
		i = 0;
		rcu_read_lock();
		for_each_process(p) {
			if ((p->flags & PF_KTHREAD) || !task_tgid_nr_ns(p, ns))
				continue;
			if (i == cap)
				break;
			pids[i++] = get_pid(task_tgid(p));
		}
		rcu_read_unlock();
		if (i < cap) {
			*n = i;
			return pids;
		}
		while (i)
			put_pid(pids[--i]);
		kvfree(pids);
	}
}

static void dump_work(struct work_struct *work)
{
	struct mmap3_dump *d = container_of(work, struct mmap3_dump, work);
	struct dump_state ds = { .d = d };
	struct mmap3_record_dump_done done = {
		.header = {
			.type = MMAP3_RECORD_DUMP_DONE,
			.size = sizeof(done),
		},
	};
	struct mmap3_time now;
	struct pid **pids = NULL;
	unsigned int n = 0, i;

	if (mmap3_resolver_init(&ds.r)) {
		mmap3_output_lost(d->out, MMAP3_LOST_NOMEM, 1);
		goto done;
	}
	mmap3_modules_dump(d->out);
	pids = snapshot_tgids(d->out->pid_ns, &n);
	if (!pids)
		mmap3_output_lost(d->out, MMAP3_LOST_NOMEM, 1);
	for (i = 0; i < n; i++) {
		if (!READ_ONCE(d->stop))
			dump_task(&ds, pids[i]);
		put_pid(pids[i]);
		/* The reader drains as the dump goes. */
		if (d->out->wake_pending)
			mmap3_output_wake(d->out);
		cond_resched();
	}
	kvfree(pids);
	/* Records of files being read from disk come before DUMP_DONE. */
	mmap3_resolve_drain(&ds.r, d->out);
done:
	mmap3_resolver_destroy(&ds.r);
	kvfree(ds.vmas);
	done.tasks = ds.tasks;
	done.tasks_skipped = ds.tasks_skipped;
	done.mappings = ds.mappings;
	mmap3_time_now(&now);
	done.header.time = mmap3_output_time(d->out, &now);
	mmap3_output_emit(d->out, &done.header, true);
	mmap3_output_wake(d->out);
	complete(&d->done);
}

void mmap3_dump_start(struct mmap3_dump *d, struct mmap3_output *out, bool data)
{
	INIT_WORK(&d->work, dump_work);
	init_completion(&d->done);
	d->out = out;
	d->data = data;
	d->stop = false;
	d->running = true;
	queue_work(dump_wq, &d->work);
}

void mmap3_dump_wait(struct mmap3_dump *d)
{
	if (!d->running)
		return;
	wait_for_completion(&d->done);
	d->running = false;
}

void mmap3_dump_stop(struct mmap3_dump *d)
{
	if (!d->running)
		return;
	WRITE_ONCE(d->stop, true);
	mmap3_output_close(d->out);
	mmap3_dump_wait(d);
}

int mmap3_dump_init(void)
{
	dump_wq = alloc_workqueue("mmap3_dump", WQ_UNBOUND, 0);
	return dump_wq ? 0 : -ENOMEM;
}

/* Every session is closed, so no dump runs. */
void mmap3_dump_exit(void)
{
	destroy_workqueue(dump_wq);
}
