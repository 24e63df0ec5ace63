/* SPDX-License-Identifier: GPL-2.0 */
/*
 * userspace/store.h - a capture directory kept within bounds, for mmap3
 * capture (the host's service): at most @max_bytes of copies and
 * @max_files of them, the least recently mapped removed first.
 *
 * What is in the directory is read at the start (each .build-id link,
 * the copy it names, and the link's modification time, which says when
 * the binary was last mapped); from then on the session's mapping
 * records say what is mapped (store_mapped(), the reader's thread) and
 * the capture worker what is stored (store_stored(), its thread, which
 * also removes what passes the bounds, so that no removal races a copy
 * being made).  The module offers a file once a session: after copies
 * were removed, what is still mapped, or mapped again, is offered only by
 * a new session (store_wants_new_session()), whose state dump offers
 * every file mapped then.
 *
 * A copy of a file root did not own alone (capture_claims.h) is made
 * read-only (0400), so that a restart still knows it is a user's, and
 * each session's claims are loaded from the store (store_claims()): a
 * root-owned file claiming its build-id later replaces it, whatever
 * session or restart came between.
 */
#ifndef MMAP3_STORE_H
#define MMAP3_STORE_H

#include <linux/mmap3.h>
#include <pthread.h>
#include <stdint.h>
#include <time.h>

#include "capture.h"
#include "hashmap.h"

struct store_entry;

struct store_stats {
	uint64_t files, bytes;		/* in the store now */
	uint64_t found;			/* there at the start */
	uint64_t stored;		/* added since */
	uint64_t evicted, evicted_bytes;
	uint64_t passes;		/* of eviction */
	uint64_t evict_failed;		/* a copy that could not be removed */
};

struct store {
	const char *dir;		/* for messages */
	int dirfd;			/* the directory's, our own */
	enum beneath_mode mode;
	uint64_t max_bytes, max_files;	/* 0: no bound */
	/*
	 * @lock guards everything below: taken by the reader's thread in
	 * store_mapped() and by the capture worker in store_stored(), for
	 * table updates only; removals happen with it dropped.
	 */
	pthread_mutex_t lock;
	struct hashmap map;		/* build-id -> struct store_entry * */
	struct store_entry **all;
	size_t nr, cap;
	uint64_t order;			/* of mappings and copies, in this run */
	uint64_t evicted_in_session;	/* a new session offers again what is mapped */
	struct store_stats stats;
};

/*
 * Read what @cap's directory holds; bounds @max_bytes and @max_files (0:
 * none).  0, or -1 after printing why.
 */
int store_open(struct store *st, struct capture *cap, uint64_t max_bytes, uint64_t max_files);

/* A mapping of @bid was recorded at @now (seconds since the epoch). */
void store_mapped(struct store *st, const struct mmap3_build_id *bid, time_t now);

/*
 * capture.h's stored hook: @bid's copy is at @dirs/@base below the
 * directory, @bytes long, from a file root owned alone (@root_owned) or
 * not.  Then what passes the bounds is removed, least recently mapped
 * first, down to nine tenths of each bound.  @cap is the worker's capture
 * (its claims forget what is removed).
 */
void store_stored(struct store *st, struct capture *cap, const struct mmap3_build_id *bid,
		  const char *dirs, const char *base, uint64_t bytes, int root_owned);

/* Tell @cap's claims what the store holds and whose: 0, or -1 out of memory. */
int store_claims(struct store *st, struct capture *cap);

/*
 * 1 if copies were removed in this session: a new one offers again what
 * is mapped (the module offers each file once a session).
 * store_new_session() then starts counting anew.
 */
int store_wants_new_session(struct store *st);
void store_new_session(struct store *st);

/* A copy of the statistics, under the lock. */
struct store_stats store_get_stats(struct store *st);

/* Write each binary's last mapping time to its link, and free it all. */
void store_close(struct store *st);

#endif /* MMAP3_STORE_H */
