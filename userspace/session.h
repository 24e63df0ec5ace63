/* SPDX-License-Identifier: GPL-2.0 */
/*
 * userspace/session.h - a session of the module, as record, inject and
 * buildid use one: the device opened (the module loaded if need be) and
 * set up, its records taken and checked (records.c), each turned into
 * perf's terms (side.c: into the side file, or handed to a sink), the
 * binaries it offers captured off the reader's thread (capture_worker.c),
 * and at the end the rest of its records and what it could not hand over.
 *
 * One thread drives a session; the capture worker is its own.
 */
#ifndef MMAP3_SESSION_H
#define MMAP3_SESSION_H

#include <linux/mmap3.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>

#include "capture.h"
#include "capture_worker.h"
#include "device.h"
#include "kmod.h"
#include "side.h"

struct session_opts {
	struct mmap3_filter filter;	/* what to record (MMAP3_FILTER_*, pids) */
	int clock;			/* MMAP3_CLOCK_LOCAL or a clockid */
	uint64_t buffer_size;		/* 0: the module's default */
	int load_module;		/* as root, modprobe the module if it is missing */
	/* Where records go: the side file at @side_path, or @sink, or neither. */
	const char *side_path;
	int (*sink)(void *arg, const void *rec);
	void *sink_arg;
	/* Captures: into @capture_dir, NULL for none; none of process @capture_skip_pid's. */
	const char *capture_dir;
	pid_t capture_skip_pid;
	/*
	 * Set: a mapping's capture is handed to @capture_sink (@sink_arg),
	 * whose caller decides with session_capture() which processes' are
	 * taken (inject: perf's); else it is queued at once.  -1: released.
	 */
	int (*capture_sink)(void *arg, const struct mmap3_record_mmap *m);
	struct capture_limits capture_limits;
	/* Told of each copy stored (capture.h's stored hook), or NULL. */
	void (*capture_stored)(void *arg, struct capture *c, const struct mmap3_build_id *bid,
			       const char *dirs, const char *base, uint64_t bytes, int root_owned);
	void *capture_stored_arg;
	/* Set with the capture open, before anything is stored: 0, or -1 (printed). */
	int (*capture_opened)(void *arg, struct capture *c);
	struct kmod_index *kmods;	/* where modules' .ko files are */
};

struct session {
	const struct session_opts *o;
	int dev;			/* -1: closed */
	struct mmap3_abi_version ver;
	struct mmap3_records records;
	struct side_writer side;
	int side_open;
	int capturing;			/* o->capture_dir, and the module can (may_capture()) */
	struct capture cap;
	int cap_open;
	struct capture_worker worker;
	struct timespec enabled;	/* CLOCK_MONOTONIC just before ENABLE */
	int stats_failed;		/* the module's statistics could not be read */
	uint64_t others;		/* captures session_capture() did not take */
};

/*
 * Open the device and set the session up, with its side file or sink
 * and captures: 0, or -1 after printing why (session_close() then).
 */
int session_open(struct session *s, const struct session_opts *o);

/* Start recording: 0, or -1 (printed). */
int session_enable(struct session *s);

/* The next record, checked (mmap3_records_next()): 1, 0 (none now, or the end), -1. */
int session_next(struct session *s, const struct mmap3_record_header **h);

/* Turn @h into perf's terms and offer what it lets capture: 0, or -1 (printed). */
int session_handle(struct session *s, const struct mmap3_record_header *h);

/*
 * A capture handed to o->capture_sink: copied if @take, else dropped and
 * its build-id forgotten, so the module offers the next mapping of it
 * (a process the caller takes may map it later); counted as others'.
 */
void session_capture(struct session *s, const struct mmap3_record_mmap *m, int take);

/* Every record there is now, handled: 0 (at its end too), or -1 (printed). */
int session_take(struct session *s);

/*
 * The end of recording at @now (the session's clock, 0: unknown):
 * disable, take every record left, copy what was offered, read what the
 * module could not hand over.  0, or -1 (printed).
 */
int session_finish(struct session *s, uint64_t now);
/* Its two halves: the records to their end; then the captures (waited for). */
int session_finish_records(struct session *s, uint64_t now);
void session_finish_captures(struct session *s);

/* Now in the session's clock, as its records are stamped; 0 if unknown. */
uint64_t session_now(const struct session *s);

/* Put the side file in place: 0, or -1 (printed). */
int session_close_side(struct session *s);

/*
 * Stop capturing: what is queued is released, not copied (the session
 * failed).
 */
void session_abandon(struct session *s);

/* Free it all: an open side file is dropped, queued captures released. */
void session_close(struct session *s);

#endif /* MMAP3_SESSION_H */
