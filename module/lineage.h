/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Lineage (lineage.c): the processes a session follows with
 * MMAP3_FILTER_INHERIT are its filter's and their descendants, as perf
 * record -p follows children.  No fork is seen: at each mapping the hook
 * walks the mapper's parents (real_parent, as at that moment) against the
 * roots of every attached session that follows children, and notes in
 * the event the roots it met; each session then takes the events that
 * name one of its own (sink.c).
 */
#ifndef MMAP3_LINEAGE_H
#define MMAP3_LINEAGE_H

#include <linux/sched.h>
#include <linux/types.h>

#include "internal.h"

/* How far up a mapper's parents the walk goes. */
#define MMAP3_LINEAGE_DEPTH	64

/*
 * The roots of all attached sessions that follow children: the tgid pids
 * their outputs hold, compared by address; @nr 0 for none.  The sink's,
 * under its lock; the previous set is freed after a grace period.
 * Returns 0 or -ENOMEM, the previous set then kept.
 */
int mmap3_lineage_set(struct pid *const *pids, unsigned int nr);

/*
 * Note in @roots (MMAP3_EVENT_ROOTS of them, zeroed by the caller) the
 * roots among @task's parents, nearest first, each held (put_pid()).
 * Any context, RCU inside; nothing is done while no session follows
 * children.
 */
void mmap3_lineage_mark(struct pid **roots, struct task_struct *task);

void mmap3_lineage_exit(void);

#endif /* MMAP3_LINEAGE_H */
