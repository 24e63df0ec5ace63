/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Who mapped a file, as containers tell (container.c): the mapping
 * process's cgroup, mount namespace and root.
 */
#ifndef MMAP3_CONTAINER_H
#define MMAP3_CONTAINER_H

#include <linux/cgroup.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>

#include "internal.h"

/*
 * @task's cgroup v2 id, 0 without cgroup v2.  Plain loads under RCU: the
 * hook calls it for current, from int3 or BRK (NMI-like).
 */
static __always_inline u64 mmap3_task_cgroup(struct task_struct *task)
{
#ifdef CONFIG_CGROUPS
	u64 id;

	rcu_read_lock();
	id = cgroup_id(task_dfl_cgroup(task));
	rcu_read_unlock();
	return id;
#else
	return 0;
#endif
}

/*
 * The last process whose namespace and root were taken, kept by one
 * resolver (one thread at a time) for the mappings that follow: a
 * process maps its files in a row, and the worker takes them a queue at
 * a time.  It pins that process's root, so its keeper lets it go at the
 * end of each run (mmap3_container_let_go()): an idle module holds no
 * mount busy.
 */
struct mmap3_container_last {
	struct pid *tgid;		/* held; NULL: none */
	u64 mnt_ns;
	/* Held; none (.mnt NULL) if unknown or the resolver's own. */
	struct path root;
};

/*
 * Take @ev's process's mount namespace id and root into @ev, while it
 * runs (a process gone leaves them empty), or from @last if it is that
 * process's.  A root that is the caller's own is left empty: the path
 * from it is the record's own.  Process context.
 */
void mmap3_container_take(struct mmap3_container_last *last, struct mmap3_event *ev);
void mmap3_container_let_go(struct mmap3_container_last *last);

/* Forget the namespaces remembered: no session records any more. */
void mmap3_container_forget(void);

#endif /* MMAP3_CONTAINER_H */
