/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The sink (sink.c): where producers write records.  Each session has an
 * output; the sink keeps the enabled ones and, for each record, applies
 * the session's filter, clock, pid namespace and kernel-address rule,
 * writes it into its buffer, counts what is lost and wakes its reader.
 * The sink knows no producer and nothing of control.
 */
#ifndef MMAP3_SINK_H
#define MMAP3_SINK_H

#include <linux/list.h>
#include <linux/wait.h>

#include "capture.h"
#include "internal.h"
#include "ring.h"

/*
 * A session's output.  The configuration (@clock, @filter) changes only
 * while the output is not attached, so producers read it unlocked; the
 * counters are under @ring.lock.
 */
struct mmap3_output {
	struct list_head node;		/* in the sink's list while attached */
	struct mmap3_ring ring;
	struct mmap3_capture capture;	/* with MMAP3_FILTER_CAPTURE */
	wait_queue_head_t wait;		/* the reader, for records */
	wait_queue_head_t room_wait;	/* the state dump, for room */
	struct pid_namespace *pid_ns;	/* of the opener: pids, filter, dump */
	bool show_kaddr;		/* may the opener see kernel addresses? */
	int clock;			/* MMAP3_CLOCK_LOCAL or a clockid */
	struct mmap3_filter filter;
	/*
	 * @filter's pids as the processes they named at SET_FILTER, held
	 * until the filter changes or the output goes: a number is freed
	 * and reused when its process is released, these are not (NULL: no
	 * such process then, nothing matches).  Read unlocked as @filter.
	 */
	struct pid *pids[MMAP3_FILTER_MAX_PIDS];
	bool closing;			/* waiters for room give up */
	bool reader_stalled;		/* the dump waits for room no more */
	bool attached;			/* in the sink's list; under @ring.lock */
	bool wake_pending;		/* records since the last batched wake-up */
	u64 queue_lost_seen;		/* of the hook's queue losses, counted */
	u64 records;
	u64 bytes;
	u64 lost[MMAP3_LOST_NR];
};

/* @pid_ns and @cred are the opener's; the output holds references. */
void mmap3_output_init(struct mmap3_output *out, struct pid_namespace *pid_ns,
		       const struct cred *cred, bool show_kaddr);
void mmap3_output_destroy(struct mmap3_output *out);
/* @f, checked, its pids taken in @out's pid namespace; only while not attached. */
void mmap3_output_set_filter(struct mmap3_output *out, const struct mmap3_filter *f);

/*
 * Start and stop receiving live records (control); @first (the KERNEL
 * record) goes in first.  Attaching an output that follows children may
 * fail (-ENOMEM), nothing done; detaching never does.
 */
int mmap3_sink_attach(struct mmap3_output *out, struct mmap3_record_header *first);
void mmap3_sink_detach(struct mmap3_output *out);

/*
 * A mapping's record as a producer found it once (record.c), for each
 * output to write its own copy from, in place in its buffer: everything
 * but what depends on the session (pids, time, capture handle).
 */
struct mmap3_record_mmap_src {
	const struct mmap3_event *ev;
	const struct mmap3_build_id *bid;
	const struct mmap3_inode_state *st;	/* the state @bid was read in */
	const char *path;			/* @path_len bytes */
	const char *root_path;			/* @root_len bytes */
	u32 path_len;
	u32 root_len;
	u32 flags;				/* the record's */
	u32 size;				/* the record's, padded */
};

/* A time in @out's clock. */
u64 mmap3_output_time(const struct mmap3_output *out, const struct mmap3_time *t);

/*
 * Producers, live records: to every attached output that wants them.
 * mmap3_sink_wants() tells, before any work is spent on the event,
 * whether one does (RCU, no lock).  Readers are woken by
 * mmap3_sink_wake() at the end of the worker's batch, which also counts
 * the hook's queue losses, and by mmap3_sink_wake_readers() after
 * records no batch delivers (a slow read's, a deadline's).
 */
bool mmap3_sink_any(void);
bool mmap3_sink_wants(const struct mmap3_event *ev);
void mmap3_sink_mmap(const struct mmap3_record_mmap_src *src);
void mmap3_sink_module(struct mmap3_record_module *rec, const struct mmap3_time *t);
void mmap3_sink_wake(void);
void mmap3_sink_wake_readers(void);
/* The hook's queue was full: NMI-safe. */
void mmap3_sink_queue_lost(void);
/* @n mappings the hook never saw (its probe missed them). */
void mmap3_sink_queue_lost_add(u64 n);
u64 mmap3_sink_queue_lost_count(void);

/*
 * Producers, one output (the state dump and the KERNEL record).  With
 * @wait, wait for the reader to make room, leaving a quarter of the
 * buffer to live records, until the output closes.
 */
/*
 * Does @out want records of process @tgid (its pid filter, its pid
 * namespace), whose parents' followed roots are @roots (lineage.h)?
 */
bool mmap3_output_wants_process(const struct mmap3_output *out, struct pid *tgid,
				struct pid *const *roots);
/* Does @out want a record of @ev (its filter, its pid namespace)? */
bool mmap3_output_wants(const struct mmap3_output *out, const struct mmap3_event *ev);
/* Written in place in @out's buffer, not copied. */
bool mmap3_output_mmap(struct mmap3_output *out, const struct mmap3_record_mmap_src *src,
		       bool wait);
bool mmap3_output_module(struct mmap3_output *out, struct mmap3_record_module *rec,
			 const struct mmap3_time *t, bool wait);
/* @rec->time already in the output's clock. */
bool mmap3_output_emit(struct mmap3_output *out, struct mmap3_record_header *rec, bool wait);
void mmap3_output_lost(struct mmap3_output *out, enum mmap3_loss cause, u64 n);
void mmap3_output_wake(struct mmap3_output *out);
/* The reader consumed records: wake a producer waiting for room. */
void mmap3_output_consumed(struct mmap3_output *out);
/* The mapped reader's tail taken (at its poll()), and a waiting producer woken. */
void mmap3_output_sync_reader(struct mmap3_output *out);
/* Give up waiting for room (the session is closing). */
void mmap3_output_close(struct mmap3_output *out);
/* Write the pending LOST record, if any, now that the output is detached. */
void mmap3_output_flush_lost(struct mmap3_output *out);

void mmap3_output_stats(struct mmap3_output *out, struct mmap3_stats *st);

#endif /* MMAP3_SINK_H */
