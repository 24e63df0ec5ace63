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

/* Sorted, each once: the hook looks each parent up in O(log nr). */
struct lineage_roots {
	struct rcu_head rcu;
	unsigned int nr;
	u32 tgid[];
};

/*
 * lineage_lock serializes the writers (mmap3_lineage_set(), _exit());
 * the hook reads lineage_roots under RCU only.
 */
static DEFINE_MUTEX(lineage_lock);
static struct lineage_roots __rcu *lineage_roots;

static int cmp_tgid(const void *a, const void *b)
{
	u32 x = *(const u32 *)a, y = *(const u32 *)b;

	return x < y ? -1 : x > y;
}

int mmap3_lineage_set(const u32 *tgids, unsigned int nr)
{
	struct lineage_roots *new = NULL, *old;
	unsigned int i, n = 0;

	if (nr) {
		new = kmalloc(struct_size(new, tgid, nr), GFP_KERNEL_ACCOUNT);
		if (!new)
			return -ENOMEM;
		memcpy(new->tgid, tgids, nr * sizeof(*tgids));
		/* Up to 64 sessions of 64 pids: sorted once here, not scanned per hook. */
		sort(new->tgid, nr, sizeof(*tgids), cmp_tgid, NULL);
		for (i = 0; i < nr; i++)
			if (!n || new->tgid[n - 1] != new->tgid[i])
				new->tgid[n++] = new->tgid[i];
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
static bool is_root(const struct lineage_roots *r, u32 tgid)
{
	unsigned int lo = 0, hi = r->nr;

	while (lo < hi) {
		unsigned int mid = lo + (hi - lo) / 2;

		if (r->tgid[mid] == tgid)
			return true;
		if (r->tgid[mid] < tgid)
			lo = mid + 1;
		else
			hi = mid;
	}
	return false;
}

void mmap3_lineage_mark(u32 *roots, struct task_struct *task)
{
	const struct lineage_roots *r;
	struct task_struct *t = task;
	unsigned int depth, n = 0;

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
		if (is_root(r, (u32)t->tgid))
			roots[n++] = (u32)t->tgid;
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
