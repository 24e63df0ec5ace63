// SPDX-License-Identifier: GPL-2.0
/*
 * The mmap hook and the per-CPU queues between it and the worker.
 *
 * perf_event_mmap(vma) is called after every successful mapping,
 * exec's ELF mappings and mprotect() included, with the same signature
 * from 5.10 to 7.x; attach.c patches it to call mmap3_hook_mapping().
 * That runs with preemption off, from ftrace (task context), from int3
 * (in_nmi() true, on PREEMPT_RT too) or, on arm64, from a BRK debug
 * exception (interrupts masked, RCU told it is NMI-like, in_nmi()
 * false), so it only takes references (get_file(), get_cred(),
 * get_pid(): atomic increments), reads an NMI-safe clock, writes a
 * preallocated per-CPU slot and raises an irq_work; the worker (process
 * context) hands each event to resolve.c.  Nothing here allocates,
 * sleeps, locks or drops a reference.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/cpuhotplug.h>
#include <linux/cred.h>
#include <linux/delay.h>
#include <linux/irq_work.h>
#include <linux/kprobes.h>
#include <linux/log2.h>
#include <linux/mm.h>
#include <linux/mman.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/sched.h>
#include <linux/sched/clock.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>
#include <linux/wait.h>
#include <linux/workqueue.h>

#include "attach.h"
#include "cache.h"
#include "container.h"
#include "hook.h"
#include "lineage.h"
#include "resolve.h"
#include "sink.h"
#include "wrapper/irq_work.h"

static unsigned int queue_len = 4096;
module_param(queue_len, uint, 0444);
MODULE_PARM_DESC(queue_len,
		 "Mappings each CPU can queue for the worker (power of two, default 4096)");

/*
 * What the queues of all CPUs may take: a slot is 216 bytes on 64-bit, so
 * 4096 of them per CPU would be 216 MiB on a 256-CPU host.  Each CPU's
 * queue has queue_len slots, or fewer (a power of two, at least
 * QUEUE_SLOTS_MIN) so that every possible CPU's fits the budget.
 */
static unsigned int queue_memory_mb = 16;
module_param(queue_memory_mb, uint, 0444);
MODULE_PARM_DESC(queue_memory_mb,
		 "Memory for all CPUs' queues (MiB, default 16; each at most queue_len)");
#define QUEUE_SLOTS_MIN		256
static unsigned int queue_slots;	/* each CPU's, set at load */

/*
 * One per online CPU, allocated while a session is enabled (and for a CPU
 * brought online meanwhile, by mmap3_cpu_online(); until it has one, its
 * mappings are counted lost).  Single producer: the hook on that CPU,
 * which runs with preemption off and cannot nest (mmap is never called
 * from interrupts).  Single consumer:
 * the worker.  ->head is written by the producer only, ->tail by the
 * consumer only; the release/acquire pairs order the slot contents
 * against them.
 */
struct mmap3_queue {
	unsigned int head;
	unsigned int tail;
	struct mmap3_event ev[];
};

static struct mmap3_queue **mmap3_queues;	/* under queues_lock */
/*
 * The queues as the handler sees them: NULL while no session is enabled.
 * Set after the queues are filled in (release, against the handler's
 * acquire); cleared, then synchronize_rcu() before they are freed, since
 * a handler runs with preemption off.
 */
static struct mmap3_queue **hook_queues;
bool mmap3_hook_want_data;		/* under hook_lock; read by the hook */

static struct workqueue_struct *mmap3_wq;
static struct irq_work mmap3_irq_work;
/*
 * The first mapping queued since the worker's last run queues it on the
 * unbound workqueue at once, and the worker waits a jiffy before it
 * drains: a burst of mappings then costs one worker run and one reader
 * wake-up, not one each per mapping.  The wait is on the worker's CPU,
 * never a timer on the mapper's: a real-time mapper may keep its CPU,
 * and that CPU's timer and softirq threads on PREEMPT_RT, to itself.
 * Records reach readers within about a jiffy; MMAP3_IOC_FLUSH and
 * disabling a session skip the wait (drain_now), and cut short a wait
 * already begun (drain_wake), so a flush costs no tick of idle time.
 */
#define MMAP3_DRAIN_DELAY	1
static struct work_struct mmap3_drain_work;
static atomic_t drain_now;
static DECLARE_WAIT_QUEUE_HEAD(drain_wake);
static struct mmap3_resolver mmap3_drain_resolver;	/* the worker's */

#ifdef MMAP3_TEST_HOOKS
/*
 * Test builds only (tests/vm/build-module): hold the worker back, so the
 * selftests can change files while their mappings are still queued.
 */
static unsigned int test_worker_delay_ms;
module_param(test_worker_delay_ms, uint, 0644);
MODULE_PARM_DESC(test_worker_delay_ms, "Test builds: delay each worker run (ms)");
#endif

/*
 * hook_lock protects the user counts, the queues' lifetime and the
 * worker's resolver.  The last session's end holds it across a grace
 * period and the worker's last drain.
 */
static DEFINE_MUTEX(hook_lock);
static unsigned int hook_users, hook_data_users;

/*
 * queues_lock protects mmap3_queues and the allocation of each CPU's
 * queue.  It is taken under hook_lock, and by the CPU hotplug callback
 * with the hotplug lock held: nothing under it may take cpus_read_lock(),
 * and it is held only to allocate or free, so a CPU coming online waits
 * for no session's end.
 */
static DEFINE_MUTEX(queues_lock);

/*
 * The probe (attach.c: an ftrace_ops or a kprobe) is patched in at the
 * first session's ENABLE and out probe_grace_ms after the last session
 * ended: while no one records, nothing is patched into perf_event_mmap
 * and an mmap() costs what it costs without the module; back-to-back
 * sessions (a script, or perf's --switch-output beside record) do not
 * patch the text each time.  Patching rewrites the instruction at
 * perf_event_mmap's ftrace site (or its probed one) while other CPUs run
 * it, through the kernel's text_poke_bp(); docs/design.md says what
 * qemu's multi-threaded TCG made of that.
 *
 * probe_lock protects the registration and probe_sessions.  It is
 * taken before, never under, hook_lock: registering takes
 * cpus_read_lock().
 */
static DEFINE_MUTEX(probe_lock);
static unsigned int probe_sessions;
static bool probe_registered;

static unsigned int probe_grace_ms = 2000;
module_param(probe_grace_ms, uint, 0644);
MODULE_PARM_DESC(probe_grace_ms,
		 "Keep the probe this long after the last session ends (ms, default 2000)");
/*
 * The removal runs on a queue of its own: on mmap3_wq, which hook_put()
 * flushes under hook_lock, it would order hook_lock before probe_lock and
 * so before the hotplug lock, which is held when queues_lock is taken,
 * under hook_lock too.
 */
static struct workqueue_struct *probe_wq;
static struct delayed_work probe_remove_work;
/* The probe's misses in its earlier registrations (they start over). */
static unsigned long probe_missed_before;

/*
 * Of the probe's misses, those counted lost: the worker's, and set under
 * hook_lock when the first session comes, while no worker runs.
 */
static unsigned long probe_missed_seen;

/*
 * Each call of perf_event_mmap(@vma) mmap3_hook_wants(), preemption off
 * (attach.c).
 */
void mmap3_hook_mapping(struct vm_area_struct *vma)
{
	struct file *file = vma->vm_file;
	unsigned int cpu, head, mask = queue_slots - 1;
	struct mmap3_queue **queues, *q;
	struct mmap3_event *ev;

	/* Pairs with the release in mmap3_hook_get(): the queues are filled in. */
	queues = smp_load_acquire(&hook_queues);
	if (!queues)
		return;

	cpu = smp_processor_id();
	/* Pairs with the release in queue_alloc(). */
	q = smp_load_acquire(&queues[cpu]);
	if (unlikely(!q)) {
		mmap3_sink_queue_lost();
		return;
	}
	head = q->head;
	/* Pairs with the worker's release of the slot it is done with. */
	if (head - smp_load_acquire(&q->tail) > mask) {
		mmap3_sink_queue_lost();
		return;
	}
	ev = &q->ev[head & mask];
	/* One clock here; the worker derives the others. */
	ev->time.local = local_clock();
	ev->file = get_file(file);
	ev->cred = get_cred(current_cred());
	ev->cgroup = mmap3_task_cgroup(current);
	mmap3_inode_state(file_inode(file), &ev->state);
	ev->tgid = get_pid(task_tgid(current));
	/* A thread group's leader: one reference for both. */
	ev->pid = thread_group_leader(current) ? NULL : get_pid(task_pid(current));
	ev->start = vma->vm_start;
	ev->len = vma->vm_end - vma->vm_start;
	ev->pgoff = vma->vm_pgoff;
	ev->cpu = cpu;
	ev->prot = mmap3_vm_prot(vma->vm_flags);
	ev->flags = vma->vm_flags & VM_MAYSHARE ? MMAP3_MMAP_SHARED : 0;
	memset(ev->roots, 0, sizeof(ev->roots));
	mmap3_lineage_mark(ev->roots, current);
	/* Publish the slot: pairs with the worker's acquire of ->head. */
	smp_store_release(&q->head, head + 1);
	/*
	 * A worker run still pending will see the slot: the workqueue clears
	 * PENDING with a full barrier before the run reads ->head, and this
	 * barrier orders the store of ->head before the test of PENDING.
	 */
	smp_mb();
	if (!work_pending(&mmap3_drain_work))
		irq_work_queue(&mmap3_irq_work);
}

/* A probe on the hook would recurse. */
NOKPROBE_SYMBOL(mmap3_hook_mapping);

/* Hard interrupt context, on PREEMPT_RT too: a mapper of higher priority cannot starve it. */
static void mmap3_irq_work_fn(struct irq_work *work)
{
	queue_work(mmap3_wq, &mmap3_drain_work);
}

/* Hand everything queued to resolve.c; the worker, process context. */
static void mmap3_drain(struct work_struct *work)
{
	unsigned int cpu, head, tail, mask = queue_slots - 1;
	struct mmap3_time now;
	unsigned long missed;

	wait_event_idle_timeout(drain_wake, atomic_read(&drain_now), MMAP3_DRAIN_DELAY);
#ifdef MMAP3_TEST_HOOKS
	if (READ_ONCE(test_worker_delay_ms))
		msleep(READ_ONCE(test_worker_delay_ms));
#endif
	for_each_possible_cpu(cpu) {
		/* Pairs with the release in queue_alloc(): the queue is zeroed. */
		struct mmap3_queue *q = smp_load_acquire(&mmap3_queues[cpu]);

		if (!q)
			continue;
		/* Pairs with the hook's release: the slots up to head are filled. */
		head = smp_load_acquire(&q->head);
		if (head == q->tail)
			continue;
		/* Every slot up to head was filled before now. */
		mmap3_resolver_batch(&mmap3_drain_resolver);
		/* After every slot up to head was stamped: one reading for them all. */
		mmap3_time_now(&now);
		for (tail = q->tail; tail != head; tail++) {
			/* Taken in place: what is parked is copied. */
			struct mmap3_event *ev = &q->ev[tail & mask];

			mmap3_time_derive(&ev->time, &now);
			/* Read a file only for a session that wants the record. */
			if (mmap3_sink_wants(ev))
				mmap3_resolve(&mmap3_drain_resolver, ev, NULL);
			else
				mmap3_event_release(ev);
			/* The hook may reuse the slot once it sees this. */
			smp_store_release(&q->tail, tail + 1);
			cond_resched();
		}
	}
	/* The probe's misses are mappings no one saw: lost, like a full queue's. */
	missed = mmap3_attach_missed();
	if (missed != probe_missed_seen) {
		mmap3_sink_queue_lost_add(missed - probe_missed_seen);
		probe_missed_seen = missed;
	}
	mmap3_resolver_idle(&mmap3_drain_resolver);
	/* One wake-up per run for what it delivered. */
	mmap3_sink_wake();
}

/* Run the worker now, without its wait, and wait for it. */
static void drain_sync(void)
{
	atomic_inc(&drain_now);
	wake_up(&drain_wake);
	queue_work(mmap3_wq, &mmap3_drain_work);
	flush_work(&mmap3_drain_work);
	atomic_dec(&drain_now);
}

u64 mmap3_hook_flush(void)
{
	mutex_lock(&hook_lock);
	if (hook_users)
		drain_sync();
	mutex_unlock(&hook_lock);
	return mmap3_resolve_flush();
}

void mmap3_hook_stats(struct mmap3_stats *st)
{
	unsigned int cpu;

	st->pending = 0;
	st->queue_memory = 0;
	mutex_lock(&queues_lock);
	if (mmap3_queues) {
		for_each_possible_cpu(cpu) {
			struct mmap3_queue *q = mmap3_queues[cpu];

			if (!q)
				continue;
			st->pending += READ_ONCE(q->head) - READ_ONCE(q->tail);
			st->queue_memory += struct_size(q, ev, queue_slots);
		}
	}
	mutex_unlock(&queues_lock);
	st->queue_lost = mmap3_sink_queue_lost_count();
	mutex_lock(&probe_lock);
	st->probe_missed = probe_missed_before +
			   (probe_registered ? mmap3_attach_missed() : 0);
	mutex_unlock(&probe_lock);
}

/* Under hook_lock, the hook and the worker done with them. */
static void queues_free(void)
{
	unsigned int cpu;

	mutex_lock(&queues_lock);
	if (mmap3_queues) {
		for_each_possible_cpu(cpu)
			kvfree(mmap3_queues[cpu]);
		kfree(mmap3_queues);
		mmap3_queues = NULL;
	}
	mutex_unlock(&queues_lock);
}

/* Under queues_lock: @cpu's queue, published to the hook and the worker. */
static int queue_alloc(unsigned int cpu)
{
	struct mmap3_queue *q;

	if (mmap3_queues[cpu])
		return 0;
	/* Charged to the opener: its cgroup's limit gives ENOMEM, never its OOM killer. */
	q = kvzalloc(struct_size(q, ev, queue_slots),
		     GFP_KERNEL_ACCOUNT | __GFP_NOWARN | __GFP_RETRY_MAYFAIL);
	if (!q)
		return -ENOMEM;
	/* Pairs with the acquires of the hook and the worker. */
	smp_store_release(&mmap3_queues[cpu], q);
	return 0;
}

/*
 * Under hook_lock: one queue per online CPU, and the worker's resolver.
 * A CPU that comes online during the walk gets its queue from
 * mmap3_cpu_online(), which waits for queues_lock (taking
 * cpus_read_lock() here would invert that order).
 */
static int queues_alloc(void)
{
	unsigned int cpu;
	int ret = -ENOMEM;

	mutex_lock(&queues_lock);
	mmap3_queues = kcalloc(nr_cpu_ids, sizeof(*mmap3_queues),
			       GFP_KERNEL_ACCOUNT | __GFP_RETRY_MAYFAIL);
	if (mmap3_queues) {
		ret = 0;
		for_each_online_cpu(cpu)
			if (queue_alloc(cpu))
				ret = -ENOMEM;
	}
	mutex_unlock(&queues_lock);
	/* A resolver that fails to start is destroyed by its init. */
	if (!ret)
		ret = mmap3_resolver_init(&mmap3_drain_resolver);
	if (ret)
		queues_free();
	return ret;
}

/* Under probe_lock: patch the probe in, unless it still is. */
static int probe_add(void)
{
	int ret;

	if (probe_registered)
		return 0;
	ret = mmap3_attach_add();
	if (ret) {
		/* -EBUSY: ftrace is off, which attach.c said once. */
		if (ret != -EBUSY)
			pr_err("cannot hook perf_event_mmap (%s): %d\n", mmap3_attach_kind(), ret);
		return ret;
	}
	probe_registered = true;
	return 0;
}

/* Under probe_lock, no session enabled: patch the probe out. */
static void probe_remove(void)
{
	if (!probe_registered)
		return;
	/* Waits for running handlers, which no session's queues await. */
	mmap3_attach_remove();
	probe_registered = false;
	probe_missed_before += mmap3_attach_missed();
}

static void probe_remove_fn(struct work_struct *work)
{
	mutex_lock(&probe_lock);
	if (!probe_sessions)
		probe_remove();
	mutex_unlock(&probe_lock);
}

/*
 * A session is enabled: the probe is in, and stays while it is.  *@missed
 * is its count of misses now: those of the grace period before were no
 * session's.
 */
static int probe_get(unsigned long *missed)
{
	int ret;

	mutex_lock(&probe_lock);
	/* A removal running now waits for probe_lock, then finds a session. */
	cancel_delayed_work(&probe_remove_work);
	ret = probe_add();
	if (!ret) {
		probe_sessions++;
		*missed = mmap3_attach_missed();
	}
	mutex_unlock(&probe_lock);
	return ret;
}

/* The last session gone: the probe goes after the grace period. */
static void probe_put(void)
{
	mutex_lock(&probe_lock);
	if (!--probe_sessions)
		mod_delayed_work(probe_wq, &probe_remove_work,
				 msecs_to_jiffies(READ_ONCE(probe_grace_ms)));
	mutex_unlock(&probe_lock);
}

int mmap3_hook_get(bool data)
{
	unsigned long missed;
	int ret = probe_get(&missed);

	if (ret)
		return ret;
	mutex_lock(&hook_lock);
	if (!hook_users) {
		ret = queues_alloc();
		if (ret)
			goto out;
		/* No worker runs yet: misses from now on are the sessions'. */
		probe_missed_seen = missed;
		/* Pairs with the handler's acquire. */
		smp_store_release(&hook_queues, mmap3_queues);
	}
	hook_users++;
	if (data && !hook_data_users++)
		WRITE_ONCE(mmap3_hook_want_data, true);
out:
	mutex_unlock(&hook_lock);
	if (ret)
		probe_put();
	return ret;
}

void mmap3_hook_put(bool data)
{
	mutex_lock(&hook_lock);
	if (data && !--hook_data_users)
		WRITE_ONCE(mmap3_hook_want_data, false);
	if (!--hook_users) {
		WRITE_ONCE(hook_queues, NULL);
		/* Handlers run with preemption off: none still uses the queues. */
		synchronize_rcu();
		/* Then no irq_work is raised; release what is queued. */
		irq_work_sync(&mmap3_irq_work);
		drain_sync();
		mmap3_resolver_destroy(&mmap3_drain_resolver);
		queues_free();
		mmap3_container_forget();
	}
	mutex_unlock(&hook_lock);
	probe_put();
}

/* CPU hotplug: a CPU coming online while sessions are enabled gets its queue. */
static int mmap3_cpu_online(unsigned int cpu)
{
	mutex_lock(&queues_lock);
	/* It fails quietly: its mappings are counted lost. */
	if (mmap3_queues)
		queue_alloc(cpu);
	mutex_unlock(&queues_lock);
	return 0;
}

static int mmap3_cpuhp;

int mmap3_hook_init(void)
{
	int ret;

	if (!queue_len || !is_power_of_2(queue_len) || queue_len > (1U << 20)) {
		pr_err("queue_len must be a power of two up to 1048576\n");
		return -EINVAL;
	}
	queue_slots = queue_len;
	while (queue_slots > QUEUE_SLOTS_MIN &&
	       (u64)queue_slots * sizeof(struct mmap3_event) * num_possible_cpus() >
	       (u64)queue_memory_mb << 20)
		queue_slots >>= 1;
	mmap3_attach_init();
	ret = -ENOMEM;
	mmap3_wq = alloc_ordered_workqueue("mmap3", 0);
	if (!mmap3_wq)
		goto err_attach;
	probe_wq = alloc_workqueue("mmap3_probe", WQ_UNBOUND, 1);
	if (!probe_wq)
		goto err_mmap3_wq;
	mmap3_init_irq_work_hard(&mmap3_irq_work, mmap3_irq_work_fn);
	INIT_WORK(&mmap3_drain_work, mmap3_drain);
	ret = cpuhp_setup_state_nocalls(CPUHP_AP_ONLINE_DYN, "mmap3:online",
					mmap3_cpu_online, NULL);
	if (ret < 0)
		goto err_wq;
	mmap3_cpuhp = ret;
	INIT_DELAYED_WORK(&probe_remove_work, probe_remove_fn);
	return 0;
err_wq:
	destroy_workqueue(probe_wq);
err_mmap3_wq:
	destroy_workqueue(mmap3_wq);
err_attach:
	mmap3_attach_exit();
	return ret;
}

/* Every session is closed: no queues, no work pending. */
void mmap3_hook_exit(void)
{
	/* A slow read served after the last session may have remembered one. */
	mmap3_container_forget();
	/* Empty once the last session went; said so, not assumed. */
	mmap3_lineage_exit();
	cancel_delayed_work_sync(&probe_remove_work);
	mutex_lock(&probe_lock);
	probe_remove();
	mutex_unlock(&probe_lock);
	mmap3_attach_exit();
	destroy_workqueue(probe_wq);
	cpuhp_remove_state_nocalls(mmap3_cpuhp);
	destroy_workqueue(mmap3_wq);
}
