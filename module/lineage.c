// SPDX-License-Identifier: GPL-2.0
/*
 * Which sessions' roots a mapper descends from (lineage.h).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/kprobes.h>
#include <linux/mutex.h>
#include <linux/rcupdate.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>
#include <linux/sort.h>

#include "lineage.h"

/*
 * Sorted by address, each once: the hook looks each parent up in
 * O(log nr).  Not held: the outputs hold them, and one left here after
 * its output let it go (out of memory at detach) is only compared.
 */
struct lineage_roots {
	struct rcu_head rcu;
	unsigned int nr;
	struct pid *pid[];
};

/*
 * lineage_lock serializes the writers (mmap3_lineage_set(), _exit());
 * the hook reads lineage_roots under RCU only.
 */
static DEFINE_MUTEX(lineage_lock);
static struct lineage_roots __rcu *lineage_roots;

static int cmp_pid(const void *a, const void *b)
{
	unsigned long x = *(const unsigned long *)a, y = *(const unsigned long *)b;

	return x < y ? -1 : x > y;
}

int mmap3_lineage_set(struct pid *const *pids, unsigned int nr)
{
	struct lineage_roots *new = NULL, *old;
	unsigned int i, n = 0;

	if (nr) {
		new = kmalloc(struct_size(new, pid, nr), GFP_KERNEL_ACCOUNT);
		if (!new)
			return -ENOMEM;
		memcpy(new->pid, pids, nr * sizeof(*pids));
		/* Up to 64 sessions of 64 pids: sorted once here, not scanned per hook. */
		sort(new->pid, nr, sizeof(*pids), cmp_pid, NULL);
		for (i = 0; i < nr; i++)
			if (!n || new->pid[n - 1] != new->pid[i])
				new->pid[n++] = new->pid[i];
		new->nr = n;
	}
	mutex_lock(&lineage_lock);
	old = rcu_replace_pointer(lineage_roots, new, lockdep_is_held(&lineage_lock));
	mutex_unlock(&lineage_lock);
	if (old)
		kfree_rcu(old, rcu);
	return 0;
}

/*
 * The hook's lookup: a binary search written out, not bsearch(), so that
 * the kprobe handler makes no indirect call and enters no other
 * probe-able function per parent.
 */
static bool is_root(const struct lineage_roots *r, const struct pid *pid)
{
	unsigned int lo = 0, hi = r->nr;

	while (lo < hi) {
		unsigned int mid = lo + (hi - lo) / 2;

		if (r->pid[mid] == pid)
			return true;
		if ((unsigned long)r->pid[mid] < (unsigned long)pid)
			lo = mid + 1;
		else
			hi = mid;
	}
	return false;
}

void mmap3_lineage_mark(struct pid **roots, struct task_struct *task)
{
	const struct lineage_roots *r;
	struct task_struct *t = task;
	unsigned int depth, n = 0;
	struct pid *tgid;

	/* The hook's only cost while no session follows children: this load. */
	if (!rcu_access_pointer(lineage_roots))
		return;
	rcu_read_lock();
	r = rcu_dereference(lineage_roots);
	/* As yama's task_is_descendant(): parents stay valid under RCU. */
	for (depth = 0; r && depth < MMAP3_LINEAGE_DEPTH && n < MMAP3_EVENT_ROOTS; depth++) {
		t = rcu_dereference(t->real_parent);
		if (t->pid <= 1)
			break;		/* init, or the idle task above it */
		/*
		 * The process, not its number (which outlives nothing).  Taken
		 * under RCU from a task, as get_task_pid() does; NULL once the
		 * parent is released, which no root is.
		 */
		tgid = task_tgid(t);
		if (tgid && is_root(r, tgid))
			roots[n++] = get_pid(tgid);
	}
	rcu_read_unlock();
}

/* Called from the kprobe handler: a probe here would recurse. */
NOKPROBE_SYMBOL(mmap3_lineage_mark);

void mmap3_lineage_exit(void)
{
	struct lineage_roots *old;

	mutex_lock(&lineage_lock);
	old = rcu_replace_pointer(lineage_roots, NULL, lockdep_is_held(&lineage_lock));
	mutex_unlock(&lineage_lock);
	/* Called after every session is gone; the module's exit waits for RCU. */
	kfree(old);
}
