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
 * hook calls it for current, in_nmi() true.
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
 * Take @ev's process's mount namespace id and root into @ev, while it
 * runs (a process gone leaves them empty).  Process context.
 */
void mmap3_container_take(struct mmap3_event *ev);

/* Forget the namespaces remembered: no session records any more. */
void mmap3_container_forget(void);

#endif /* MMAP3_CONTAINER_H */
