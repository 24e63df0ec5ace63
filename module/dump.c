// SPDX-License-Identifier: GPL-2.0
/*
 * State dump: the loaded modules and the file mappings of every process
 * that exists when a session starts, so a session begun mid-flight is
 * complete.  It runs in a work item of its own and streams into the
 * session's buffer while the reader drains it, waiting for room, so
 * hundreds of thousands of mappings fit any buffer; live records flow
 * beside it (the session is attached first, so nothing falls between).
 *
 * Processes are those of the session's pid namespace that existed when
 * the dump began and that its filter wants (no other is read), walked
 * in pid order a few at a time (no snapshot of them all: nothing to
 * allocate, nothing to fail), pinned by pid; for each, its mm is taken
 * and its VMAs read under mmap_read_lock if that is free.  A process
 * whose lock is held (by a page fault stuck on a hung filesystem, a
 * busy writer, or simply a process still mapping) is kept for the end,
 * where the kept ones are tried in turn until all are done or none came
 * free for a while; those left are counted lost as many times as they
 * have memory areas (an upper bound of their file mappings).  No process
 * is waited for on its own: a thousand busy ones cost the same short
 * wait as one.
 * File references are taken under the lock and the files resolved after.
 * Each record is stamped with the time its process was looked at.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/cred.h>
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
#include "container.h"
#include "dump.h"
#include "lineage.h"
#include "modules.h"
#include "resolve.h"
#include "sink.h"
#include "wrapper/mm.h"

/*
 * How long the dump waits for a busy process when no more can be kept
 * for the end, and how long the busy ones kept may all stay locked.
 */
#define MMAP_LOCK_WAIT_MS	20
#define MMAP_LOCK_RETRY_MS	200
/* Processes pinned at once while walking, and kept for the end. */
#define DUMP_CHUNK		64
#define DUMP_RETRY_MAX		1024

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
	struct dump_vma *vmas;		/* reused from process to process */
	unsigned int cap;
	u64 start;			/* ktime_get_ns() when it began */
	struct pid **retry;		/* busy processes, to try again at the end */
	unsigned int nr_retry;
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

/* Take @mm's lock for reading, trying for at most @ms (0: once). */
static bool lock_mm(struct dump_state *ds, struct mm_struct *mm, unsigned int ms)
{
	unsigned long deadline = jiffies + msecs_to_jiffies(ms);

	while (!mmap_read_trylock(mm)) {
		if (!ms || time_after(jiffies, deadline) || READ_ONCE(ds->d->stop))
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

/* What mmap3_lineage_mark() took. */
static void put_roots(struct pid **roots)
{
	unsigned int i;

	for (i = 0; i < MMAP3_EVENT_ROOTS; i++)
		put_pid(roots[i]);
}

/*
 * Dump @tgid's mappings, waiting for its memory map at most @ms.  If it
 * stays locked, false (and nothing is counted).
 */
static bool dump_task(struct dump_state *ds, struct pid *tgid, unsigned int ms)
{
	struct pid *roots[MMAP3_EVENT_ROOTS] = { };
	struct mmap3_output *out = ds->d->out;
	struct mmap3_event ev = { };
	const struct cred *cred;
	struct task_struct *task;
	struct mm_struct *mm;
	unsigned int n, i, j;
	bool done = true;
	u64 missed = 0;

	task = get_pid_task(tgid, PIDTYPE_TGID);
	if (!task)
		return true;		/* exited meanwhile */
	mmap3_lineage_mark(roots, task);
	/*
	 * Not the session's: nothing of it is read, no read started as its
	 * user, and it is not counted in DUMP_DONE.
	 */
	if (!mmap3_output_wants_process(out, tgid, roots)) {
		put_task_struct(task);
		put_roots(roots);
		return true;
	}
	mm = get_task_mm(task);
	/* Its files are read as it could read them. */
	cred = get_task_cred(task);
	ev.cgroup = mmap3_task_cgroup(task);
	put_task_struct(task);
	if (!mm)
		goto out;		/* exiting */
	if (!lock_mm(ds, mm, ms)) {
		mmput(mm);
		done = false;
		goto out;
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
		ev.cred = get_cred(cred);
		ev.state = v->state;
		ev.tgid = get_pid(tgid);
		ev.pid = NULL;		/* the process, not a thread */
		/* Each event holds its own, as the hook's do. */
		for (j = 0; j < MMAP3_EVENT_ROOTS; j++)
			ev.roots[j] = get_pid(roots[j]);
		ev.start = v->start;
		ev.len = v->len;
		ev.pgoff = v->pgoff;
		ev.prot = v->prot;
		ev.flags = v->flags;
		ev.cpu = raw_smp_processor_id();
		mmap3_resolve(&ds->d->r, &ev, out);
		ds->mappings++;
	}
out:
	put_cred(cred);
	put_roots(roots);
	return done;
}

/* @tgid's memory map stayed locked: its areas are counted lost. */
static void skip_task(struct dump_state *ds, struct pid *tgid)
{
	struct task_struct *task = get_pid_task(tgid, PIDTYPE_TGID);
	struct mm_struct *mm = task ? get_task_mm(task) : NULL;
	struct pid *roots[MMAP3_EVENT_ROOTS] = { };

	if (task) {
		mmap3_lineage_mark(roots, task);
		put_task_struct(task);
	}
	if (mm && mmap3_output_wants_process(ds->d->out, tgid, roots)) {
		ds->tasks_skipped++;
		mmap3_output_lost(ds->d->out, MMAP3_LOST_DUMP, max(READ_ONCE(mm->map_count), 1));
	}
	if (mm)
		mmput(mm);
	put_roots(roots);
}

/* Dump @tgid, or keep it for the end if its memory map is busy. */
static void dump_or_retry(struct dump_state *ds, struct pid *tgid)
{
	if (dump_task(ds, tgid, 0) || READ_ONCE(ds->d->stop))
		return;
	if (!ds->retry)
		ds->retry = kvmalloc_array(DUMP_RETRY_MAX, sizeof(*ds->retry),
					   GFP_KERNEL_ACCOUNT | __GFP_NOWARN);
	if (ds->retry && ds->nr_retry < DUMP_RETRY_MAX) {
		ds->retry[ds->nr_retry++] = get_pid(tgid);
		return;
	}
	/* No room to keep it: it is waited for here, briefly. */
	if (!dump_task(ds, tgid, MMAP_LOCK_WAIT_MS) && !READ_ONCE(ds->d->stop))
		skip_task(ds, tgid);
}

/*
 * The busy processes kept for the end, tried in turn until each is done
 * or none has come free for MMAP_LOCK_RETRY_MS; those left are skipped.
 */
static void dump_retried(struct dump_state *ds)
{
	unsigned long deadline = jiffies + msecs_to_jiffies(MMAP_LOCK_RETRY_MS);
	unsigned int i, left;

	while (ds->nr_retry && !READ_ONCE(ds->d->stop)) {
		for (i = 0, left = 0; i < ds->nr_retry; i++) {
			if (dump_task(ds, ds->retry[i], 0))
				put_pid(ds->retry[i]);
			else
				ds->retry[left++] = ds->retry[i];
		}
		if (left < ds->nr_retry)
			deadline = jiffies + msecs_to_jiffies(MMAP_LOCK_RETRY_MS);
		ds->nr_retry = left;
		if (!left || time_after(jiffies, deadline))
			break;
		usleep_range(1000, 2000);
	}
	for (i = 0; i < ds->nr_retry; i++) {
		if (!READ_ONCE(ds->d->stop))
			skip_task(ds, ds->retry[i]);
		put_pid(ds->retry[i]);
	}
	kvfree(ds->retry);
}

/*
 * Up to @max processes of @ns from pid *@nr on, in pid order, pinned by
 * their tgid pid; *@nr is where the next call goes on.  Those born since
 * @start are left out: the session was attached before, so their
 * mappings come live.
 */
static unsigned int next_tgids(struct pid_namespace *ns, int *nr, u64 start,
			       struct pid **pids, unsigned int max)
{
	struct task_struct *task;
	unsigned int n = 0;
	struct pid *pid;

	rcu_read_lock();
	while (n < max && (pid = idr_get_next(&ns->idr, nr))) {
		task = pid_task(pid, PIDTYPE_TGID);
		if (task && !(task->flags & PF_KTHREAD) && task->start_time < start)
			pids[n++] = get_pid(pid);
		(*nr)++;
	}
	rcu_read_unlock();
	return n;
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
	struct pid *pids[DUMP_CHUNK];
	struct mmap3_time now;
	unsigned int n, i;
	int nr = 1;

	ds.start = ktime_get_ns();
	mmap3_modules_dump(d->out);
	while ((n = next_tgids(d->out->pid_ns, &nr, ds.start, pids, DUMP_CHUNK))) {
		for (i = 0; i < n; i++) {
			if (!READ_ONCE(d->stop))
				dump_or_retry(&ds, pids[i]);
			put_pid(pids[i]);
			/* The reader drains as the dump goes. */
			if (d->out->wake_pending)
				mmap3_output_wake(d->out);
			cond_resched();
		}
	}
	dump_retried(&ds);
	/* Records of files being read from disk come before DUMP_DONE. */
	mmap3_resolve_drain(&d->r, d->out);
	mmap3_resolver_idle(&d->r);
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

int mmap3_dump_prepare(struct mmap3_dump *d)
{
	return d->r.win ? 0 : mmap3_resolver_init(&d->r);
}

void mmap3_dump_free(struct mmap3_dump *d)
{
	mmap3_resolver_destroy(&d->r);
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
