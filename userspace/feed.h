/* SPDX-License-Identifier: GPL-2.0 */
/*
 * userspace/feed.h - mmap3 inject's feed: a session read on a thread of
 * its own, so that the module's buffer is emptied whatever perf and the
 * pipe's reader do, each record turned into perf's terms (side.c, into
 * memory) and handed over to the main thread in batches, up to
 * FEED_QUEUE_MAX bytes waiting (past that, dropped and counted).  The
 * captures the session offers are handed over too, for the main thread
 * to take or drop (FEED_CAPTURE); it finishes them after feed_stop().
 */
#ifndef MMAP3_FEED_H
#define MMAP3_FEED_H

#include <linux/perf_event.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "session.h"

#define FEED_QUEUE_MAX	(256U << 20)

/*
 * In a batch, after a mapping's record: the capture the module offered
 * for it, its mmap3 record whole (handle, path), the main thread's to
 * decide (session_capture()).  Not one of perf's types.
 */
#define FEED_CAPTURE	0x7f3a0001U

struct feed_capture {
	struct perf_event_header header;	/* FEED_CAPTURE, 8-aligned size */
	uint32_t reserved[2];
	struct mmap3_record_mmap m;		/* and its path */
};

struct feed {
	struct session s;		/* its records to the batch below */
	struct session_opts so;
	int wake;			/* eventfd: a sync asked for, or stop */
	pthread_t thread;
	int started;
	/* The thread's own: what it converted since it last handed over. */
	uint8_t *batch;
	size_t batch_len, batch_cap, batch_nr;
	int batch_dump_done;
	/*
	 * @lock guards what follows; @cond tells the main thread a hand-over
	 * happened.  Records are 8-aligned in @buf: perf records with the
	 * side file's trailer, and HEADER_BUILD_ID entries.
	 */
	pthread_mutex_t lock;
	pthread_cond_t cond;
	uint8_t *buf;
	size_t len, cap;
	uint64_t dropped;
	int dump_done;
	int failed, ended;
	int stop;
	uint64_t done;			/* the last sync generation handed over */
	atomic_uint_least64_t want;	/* the sync generation asked for */
	uint64_t gen;			/* the main thread's last one asked for */
};

/* Before anything else: the feed's locks, nothing started. */
void feed_init(struct feed *f);

/* Open @so's session (its sink set here) and start the thread: 0, or -1 (printed). */
int feed_start(struct feed *f, const struct session_opts *so);

/*
 * What was handed over since the last take: *@len bytes, the caller's
 * to free (NULL if none); *@dump_done once the state dump is in.
 */
uint8_t *feed_take(struct feed *f, size_t *len, int *dump_done);

/*
 * Ask the module for every mapping made until now (FLUSH) and wait, at
 * most @seconds, until the thread has handed it over.  0, or -1 (printed).
 */
int feed_sync(struct feed *f, int seconds);

/* Wait, at most @seconds, until the state dump is handed over. */
void feed_wait_dump(struct feed *f, int seconds);

/*
 * Stop the thread: the session disabled, read to its end, handed over.
 * 0, or -1 if the session failed (printed).  The captures taken are
 * then the caller's to finish (session_finish_captures()).
 */
int feed_stop(struct feed *f);

/* Free what the feed holds, its session included; captures not taken are released. */
void feed_free(struct feed *f);

#endif /* MMAP3_FEED_H */
