/* SPDX-License-Identifier: GPL-2.0 */
/*
 * From a mapped file to its build-id, and the record out (resolve.c).
 */
#ifndef MMAP3_RESOLVE_H
#define MMAP3_RESOLVE_H

#include "internal.h"

struct mmap3_output;

/* What one producer context needs to resolve events: a read window, a record. */
struct mmap3_resolver {
	void *win;				/* PAGE_SIZE */
	struct mmap3_record_mmap *rec;		/* room for the longest path */
};

int mmap3_resolver_init(struct mmap3_resolver *r);
void mmap3_resolver_destroy(struct mmap3_resolver *r);

/*
 * Emit @ev's record to @out (NULL: every attached output that wants it;
 * @wait: for room, see mmap3_output_mmap()) with the build-id of the
 * mapped file: from the cache, else from the page cache alone, without
 * I/O.  A file that must be read from its filesystem is handed to a
 * bounded pool of slow readers and the record is emitted when the read
 * ends, or with MMAP3_BUILDID_TIMEOUT after read_timeout_ms, whichever
 * comes first.  Takes over @ev's references.  Process context.
 */
void mmap3_resolve(struct mmap3_resolver *r, struct mmap3_event *ev, struct mmap3_output *out,
		   bool wait);

/*
 * Return once the records of every event handed over for @out (NULL:
 * live ones) before the call are emitted: at most about read_timeout_ms.
 */
void mmap3_resolve_flush(struct mmap3_output *out);

void mmap3_resolve_stats(struct mmap3_stats *st);
int mmap3_resolve_init(void);
void mmap3_resolve_exit(void);

#endif /* MMAP3_RESOLVE_H */
