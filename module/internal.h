/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Types every layer of the mmap3 module shares, and its one lock order.
 *
 * Data flows one way; the file names say where:
 *
 *   control   abi.c       the device: open, read, poll, ioctl (the only
 *                         code that touches user memory)
 *             session.c   a session: configure, enable, disable, flush;
 *                         starts and stops what produces records:
 *   producers hook.c      the mmap hook, its per-CPU queues and worker
 *             dump.c      the state dump of existing processes
 *             modules.c   module load/unload, and the loaded modules
 *             resolve.c   mapped file -> build-id, page cache first, slow
 *                         files on bounded readers; emits the record
 *             record.c    event -> mapping record
 *   sink      sink.c      the enabled sessions' outputs: filter, clock,
 *                         pid namespace, kernel-address rule, losses,
 *                         wake-ups
 *             ring.c      a session's buffer
 *             capture.c   a session's captured files
 *   lower     cache.c     per-inode build-id cache
 *             lineage.c   whose descendants sessions follow
 *             kapi.c      what the kernel does not export
 *             wrapper/    kernel API differences; lib/ the ELF parser
 *
 * Each file includes the headers of files below it only.
 *
 * Lock order (outer first).  Spinlocks are taken in process context only,
 * never around anything that sleeps; the kprobe handler takes no lock.
 *
 *   session->config_lock     mutex      session.c: one session's ioctls
 *     hook_lock              mutex      hook.c: the hook's queues and users
 *     sink_lock              mutex      sink.c: the list of outputs
 *       capture->lock        mutex      capture.c: one session's files
 *       ring->lock           spinlock   ring.c: one session's buffer
 *   session->read_lock       mutex      abi.c: one reader at a time
 *     ring->lock
 *   slow_lock                spinlock   resolve.c: slow reads, parked events
 *   cache_lock               spinlock   cache.c: inserts and removals
 *
 * Allocations.  A failed one is an error to the caller or a counted loss,
 * never silent; those larger than a page, or sized by a user, are
 * __GFP_NOWARN, since the caller or the statistics already say so.
 */
#ifndef MMAP3_INTERNAL_H
#define MMAP3_INTERNAL_H

#include <linux/fs.h>
#include <linux/path.h>
#include <linux/pid.h>
#include <linux/time64.h>
#include <linux/types.h>
#include <linux/mmap3.h>

/* The three clocks a record's time can be given in. */
struct mmap3_time {
	u64 local;			/* local_clock() */
	u64 mono;			/* ktime_get_mono_fast_ns() */
	u64 raw;			/* ktime_get_raw_fast_ns() */
};

/* All three, read at once. */
void mmap3_time_now(struct mmap3_time *t);
/*
 * The hook reads local_clock() alone; the worker derives the others from
 * @now, a reading of all three taken after @t's (one for all the events
 * it takes from a queue at once: three clock reads were a tenth of its
 * cost per mapping).  The error is the clocks' rate difference over the
 * time in between (at most 500 ppm: 2 us for a jiffy) and local_clock()'s
 * skew between CPUs; a session in perf's default clock is exact.
 */
void mmap3_time_derive(struct mmap3_time *t, const struct mmap3_time *now);

/*
 * What says an inode is unchanged since its build-id was read: plain
 * loads, so the hook can take it at mmap time.
 */
struct mmap3_inode_state {
	loff_t size;
	struct timespec64 mtime;
	struct timespec64 ctime;
	u64 iversion;
	bool has_iversion;
};

/* Roots of sessions following children one mapping notes (nested sessions). */
#define MMAP3_EVENT_ROOTS	4

/*
 * A file mapping seen by the hook or the state dump, on its way to a
 * record.  Holds a reference to the file, the mapper's credentials, the
 * task's pids and its roots.
 */
struct mmap3_event {
	struct mmap3_time time;		/* of the mmap, or of the dump's look */
	struct file *file;
	const struct cred *cred;	/* the mapper's: files are read as it could */
	u64 cgroup;			/* its cgroup v2 id, at the mmap */
	/* Taken when resolved (container.c): */
	u64 mnt_ns;			/* its mount namespace's id, or 0 */
	struct path root;		/* its root; none (.mnt NULL): unknown, or ours */
	struct mmap3_inode_state state;	/* of the file at mmap time */
	struct pid *tgid;
	struct pid *pid;		/* NULL: the same as @tgid */
	unsigned long start;
	unsigned long len;
	unsigned long pgoff;
	u32 cpu;
	u32 prot;			/* PROT_* */
	u32 flags;			/* MMAP3_MMAP_* */
	/*
	 * Followed roots among its parents (lineage.h); NULL: none more.
	 * Held, so none is freed and made another process's pid while the
	 * event waits (a slow read parks it for long): a session holding
	 * the same pointer follows this very process.
	 */
	struct pid *roots[MMAP3_EVENT_ROOTS];
};

void mmap3_event_release(struct mmap3_event *ev);

/*
 * The longest the module waits for a filesystem (module parameter
 * read_timeout_ms): a slow read's deadline, a capture read's.
 */
extern unsigned int mmap3_read_timeout_ms;
u32 mmap3_vm_prot(unsigned long vm_flags);

/* Causes of lost records, counted per session (struct mmap3_stats). */
enum mmap3_loss {
	MMAP3_LOST_BUFFER,
	MMAP3_LOST_QUEUE,
	MMAP3_LOST_NOMEM,
	MMAP3_LOST_DUMP,
	MMAP3_LOST_UNRESOLVED,
	MMAP3_LOST_NR,
};

#endif /* MMAP3_INTERNAL_H */
