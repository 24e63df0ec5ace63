// SPDX-License-Identifier: GPL-2.0
/*
 * Who mapped a file, as containers tell: the mapping process's cgroup v2
 * id (taken by the hook, at the mmap), its mount namespace and its root
 * (taken here, when the worker or the dump looks at the mapping), so a
 * record can name the file as the process sees it, as perf's own record
 * of it does, beside the host's path.
 *
 * struct mnt_namespace is private to fs/: a namespace's id (its nsfs
 * inode number, what /proc/PID/ns/mnt shows) is asked of the kernel by
 * opening that file, once per process and namespace.  The open file is
 * kept while the entry is: it holds the namespace, so no other can take
 * its address and be mistaken for it.  An entry lives only as long as
 * its process lives in that namespace: a sweep every second while any
 * is kept lets the others go, so an exited container's mounts (its
 * overlay, volumes, loop devices) are not held by a session that goes
 * on.  All go when the last session ends.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/file.h>
#include <linux/fs.h>
#include <linux/fs_struct.h>
#include <linux/jiffies.h>
#include <linux/mutex.h>
#include <linux/nsproxy.h>
#include <linux/pid.h>
#include <linux/sched/task.h>
#include <linux/workqueue.h>

#include "container.h"
#include "wrapper/fs.h"

#define NS_CACHE	64
#define NS_SWEEP_DELAY	HZ

struct ns_entry {
	struct pid *tgid;		/* held */
	const struct mnt_namespace *mnt_ns;
	struct file *nsfile;		/* holds the namespace */
	u64 id;
	unsigned long used;		/* jiffies */
};

/* ns_lock protects ns_cache; never held around an open. */
static DEFINE_MUTEX(ns_lock);
static struct ns_entry ns_cache[NS_CACHE];

static void ns_sweep(struct work_struct *work);
static DECLARE_DELAYED_WORK(ns_sweep_work, ns_sweep);

static const struct mnt_namespace *task_mnt_ns(struct task_struct *task)
{
	const struct mnt_namespace *ns;

	task_lock(task);
	ns = task->nsproxy ? task->nsproxy->mnt_ns : NULL;
	task_unlock(task);
	return ns;
}

/* Under ns_lock: does @e's process still live, in @e's namespace? */
static bool ns_entry_live(const struct ns_entry *e)
{
	struct task_struct *task;
	bool live;

	rcu_read_lock();
	task = pid_task(e->tgid, PIDTYPE_TGID);
	live = task && task_mnt_ns(task) == e->mnt_ns;
	rcu_read_unlock();
	return live;
}

/* Under ns_lock: the entry to fill, emptied; its old references to drop in @old. */
static struct ns_entry *ns_slot(struct ns_entry *old)
{
	struct ns_entry *e, *victim = NULL;

	for (e = ns_cache; e < ns_cache + NS_CACHE; e++) {
		if (!e->tgid)
			return e;
		if (!ns_entry_live(e)) {
			victim = e;
			break;
		}
		if (!victim || time_before(e->used, victim->used))
			victim = e;
	}
	*old = *victim;
	memset(victim, 0, sizeof(*victim));
	return victim;
}

static void ns_entry_put(struct ns_entry *e)
{
	if (e->nsfile)
		fput(e->nsfile);
	put_pid(e->tgid);
}

/* Let go of the entries whose process is gone or moved; again while any is kept. */
static void ns_sweep(struct work_struct *work)
{
	struct ns_entry *e, old;
	bool kept = false;

	for (e = ns_cache; e < ns_cache + NS_CACHE; e++) {
		old = (struct ns_entry){ };
		mutex_lock(&ns_lock);
		if (e->tgid && !ns_entry_live(e)) {
			old = *e;
			memset(e, 0, sizeof(*e));
		}
		kept |= !!e->tgid;
		mutex_unlock(&ns_lock);
		if (old.tgid)
			ns_entry_put(&old);
	}
	if (kept)
		schedule_delayed_work(&ns_sweep_work, NS_SWEEP_DELAY);
}

/* The id of @task's mount namespace (@tgid is its pid), 0 if unknown. */
static u64 mnt_ns_id(struct task_struct *task, struct pid *tgid)
{
	const struct mnt_namespace *ns = task_mnt_ns(task);
	struct ns_entry *e, old = { };
	struct file *file;
	char name[32];
	u64 id = 0;

	if (!ns)
		return 0;
	mutex_lock(&ns_lock);
	for (e = ns_cache; e < ns_cache + NS_CACHE; e++) {
		if (e->tgid == tgid && e->mnt_ns == ns) {
			e->used = jiffies;
			id = e->id;
			break;
		}
	}
	mutex_unlock(&ns_lock);
	if (id)
		return id;

	snprintf(name, sizeof(name), "/proc/%d/ns/mnt", pid_nr(tgid));
	file = mmap3_open_initns(name);
	if (IS_ERR(file))
		return 0;
	id = file_inode(file)->i_ino;
	/* Opened while the process was in that namespace: it is that one's. */
	if (task_mnt_ns(task) != ns) {
		fput(file);
		return 0;
	}
	mutex_lock(&ns_lock);
	e = ns_slot(&old);
	e->tgid = get_pid(tgid);
	e->mnt_ns = ns;
	e->nsfile = file;
	e->id = id;
	e->used = jiffies;
	mutex_unlock(&ns_lock);
	ns_entry_put(&old);
	/* Pending already, while entries are kept: then this does nothing. */
	schedule_delayed_work(&ns_sweep_work, NS_SWEEP_DELAY);
	return id;
}

void mmap3_container_let_go(struct mmap3_container_last *last)
{
	if (last->root.mnt)
		path_put(&last->root);
	put_pid(last->tgid);
	*last = (struct mmap3_container_last){ };
}

/*
 * Is @root the caller's own root (the worker's: the initial one)?  Then
 * the path the record gives already names the file as the process sees
 * it, and the record needs no second one: most processes are not in a
 * container or chroot.  Asked once per process, not per mapping.
 */
static bool own_root(const struct path *root)
{
	struct path own;
	bool same;

	if (!current->fs)
		return false;
	get_fs_root(current->fs, &own);
	same = path_equal(&own, root);
	path_put(&own);
	return same;
}

void mmap3_container_take(struct mmap3_container_last *last, struct mmap3_event *ev)
{
	struct task_struct *task;

	if (!last->tgid || last->tgid != ev->tgid) {
		mmap3_container_let_go(last);
		task = get_pid_task(ev->tgid, PIDTYPE_TGID);
		if (task) {
			last->mnt_ns = mnt_ns_id(task, ev->tgid);
			task_lock(task);
			if (task->fs)
				get_fs_root(task->fs, &last->root);
			task_unlock(task);
			put_task_struct(task);
			if (last->root.mnt && own_root(&last->root)) {
				path_put(&last->root);
				last->root = (struct path){ };
			}
		}
		last->tgid = get_pid(ev->tgid);
	}
	ev->mnt_ns = last->mnt_ns;
	ev->root = last->root;
	if (ev->root.mnt)
		path_get(&ev->root);
}

void mmap3_container_forget(void)
{
	struct ns_entry *e, old;

	/* No resolver runs: nothing schedules it again. */
	cancel_delayed_work_sync(&ns_sweep_work);
	for (e = ns_cache; e < ns_cache + NS_CACHE; e++) {
		mutex_lock(&ns_lock);
		old = *e;
		memset(e, 0, sizeof(*e));
		mutex_unlock(&ns_lock);
		if (old.tgid)
			ns_entry_put(&old);
	}
}
