/* SPDX-License-Identifier: GPL-2.0 */
/*
 * userspace/capture_worker.h - captures copied off mmap3 record's read
 * loop, by one thread, so that a large file or a slow filesystem never
 * holds the records up: the reader only queues what is offered.
 */
#ifndef MMAP3_CAPTURE_WORKER_H
#define MMAP3_CAPTURE_WORKER_H

#include <linux/mmap3.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>

#include "capture.h"

/*
 * What may wait to be copied.  A mapping's capture also holds one of the
 * module's capture handles, which the module bounds itself; this bounds
 * what the tool keeps meanwhile (a record, up to a path's length, each).
 */
#define CAPTURE_QUEUE_MAX	4096
#define CAPTURE_QUEUE_MAX_TEXT	"4096"

struct capture_job;

struct capture_worker {
	struct capture *cap;		/* the worker's alone until finished */
	int dev;			/* the session, for capture handles */
	pthread_t thread;
	int started;
	/*
	 * @lock guards the queue and @closing; @more wakes the worker.
	 * Taken for moments only: the reader never waits on a copy.
	 */
	pthread_mutex_t lock;
	pthread_cond_t more;
	struct capture_job *head, *tail;
	unsigned int queued;
	uint64_t offered;		/* jobs ever queued: the tickets given */
	int closing;
	int done;			/* eventfd: the worker stopped */
	/* Jobs ever run to their end (copied or not); @progress says each. */
	atomic_uint_least64_t finished;
	int progress;			/* eventfd */
	/*
	 * Offered while CAPTURE_QUEUE_MAX waited: released, not captured.
	 * Queued from more than one thread (inject: mappings by the main
	 * thread, modules' files by the feed's).
	 */
	atomic_uint_least64_t backlog;
	/* What the status line shows, read by the reader. */
	atomic_uint_least64_t stored;
	/*
	 * Capturing stopped on an error (printed), or the session failed:
	 * what follows is released and counted as abandoned.
	 */
	atomic_int failed;
};

/* Start the thread; 0, or -1 after printing why. */
int capture_worker_start(struct capture_worker *w, struct capture *cap, int dev);

/*
 * Queue the capture a mapping record offers (its handle and path): never
 * waits.  With CAPTURE_QUEUE_MAX waiting, or no memory, the handle is
 * released and the file counted as not captured (backlog).
 */
void capture_worker_mapping(struct capture_worker *w, const struct mmap3_record_mmap *m);

/* Queue a file read from @path, stored if its build-id is @bid (a .ko). */
void capture_worker_file(struct capture_worker *w, const char *path,
			 const struct mmap3_build_id *bid);

/* Copy nothing more: what is queued is released, counted as abandoned. */
void capture_worker_abandon(struct capture_worker *w);

/*
 * Copy what is queued, then stop the thread; the capture's statistics,
 * backlog and failed are then the caller's to read.
 */
void capture_worker_finish(struct capture_worker *w);

/*
 * Let the worker copy what is queued, waiting until it is done (0) or
 * @fd is readable first (1: the worker goes on meanwhile).
 */
int capture_worker_wait(struct capture_worker *w, int fd);

/*
 * A ticket for what is queued until now: capture_worker_wait_ticket()
 * waits for those jobs, not for later ones.
 */
uint64_t capture_worker_ticket(struct capture_worker *w);

/*
 * Wait until every job queued before @ticket has run (0), @fd is
 * readable (1) or @timeout_ms have passed (2).  The worker goes on in
 * any case.
 */
int capture_worker_wait_ticket(struct capture_worker *w, uint64_t ticket, int fd, int timeout_ms);

/*
 * Stop copying: the file being copied is given up at its next read, the
 * queue released; all counted as stopped.  capture_worker_finish() then
 * returns at once.
 */
void capture_worker_cancel(struct capture_worker *w);

#endif /* MMAP3_CAPTURE_WORKER_H */
