/* SPDX-License-Identifier: GPL-2.0 */
/*
 * userspace/inject.h - mmap3 inject: a stage in perf's pipe, as perf
 * inject is,
 *
 *	perf record -o - ... | mmap3 inject | perf report -i -
 *
 * which opens its own session when it starts and merges the module's
 * records into perf's stream as they come: perf's mappings given mmap3's
 * build-id, mmap3's other records (modules loaded mid-session, mappings
 * perf did not see) added among perf's in time, with merge's matching
 * (mapping.h) and only for the processes perf recorded.
 */
#ifndef MMAP3_INJECT_H
#define MMAP3_INJECT_H

#include <stdint.h>

#include "capture.h"
#include "kmod.h"

struct inject_opts {
	const char *input;		/* NULL: standard input */
	const char *output;		/* NULL: standard output */
	const char *capture_dir;	/* NULL: no captures */
	struct capture_limits capture_limits;
	uint64_t buffer_size;		/* the session's; 0: the module's default */
	int all_processes;		/* mmap3's records of every process */
	struct kmod_index *kmods;
};

/* How long a round in a pipe waits for the binaries it names to be kept. */
#define INJECT_COPY_WAIT_SECONDS	5

struct inject_stats {
	uint64_t rewritten;		/* perf's mappings given mmap3's build-id */
	uint64_t added;			/* mmap3's records perf did not have */
	uint64_t other_processes;	/* of processes perf did not record: left out */
	uint64_t late;			/* added after perf had passed their time */
	uint64_t after_end;		/* newer than perf's last record: left out */
	uint64_t too_long;		/* past perf's 64 KiB record size: left out */
	uint64_t session_lost;		/* records the module lost */
	uint64_t dropped;		/* more than INJECT_QUEUE_MAX waited: dropped */
	uint64_t flushes;		/* FLUSH round trips for mappings not yet seen */
	uint64_t records;		/* of perf's, passed on */
	uint64_t copies_late;		/* rounds piped on before their binaries were kept */
	struct capture_stats capture;
	int capture_failed;
	int nothing_live;		/* perf's records all older than the session */
	int not_here;			/* the stream was recorded on another machine */
	int no_event;			/* perf's stream had none: no -o FILE written */
	int signal;			/* the signal that ended the input, or 0 */
};

/*
 * Read perf's pipe-mode stream from @o->input, write it with mmap3's
 * records to @o->output: perf's pipe mode to standard output, perf's file
 * mode to a file (created 0600, in place once perf's stream went through
 * whole).  Returns 0, or -1 after printing why.
 */
int inject_run(const struct inject_opts *o, struct inject_stats *st);

#endif /* MMAP3_INJECT_H */
