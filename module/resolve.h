/* SPDX-License-Identifier: GPL-2.0 */
/*
 * From a mapped file to its build-id, and the record out (resolve.c).
 */
#ifndef MMAP3_RESOLVE_H
#define MMAP3_RESOLVE_H

#include "container.h"
#include "internal.h"
#include "record.h"

struct mmap3_output;

/*
 * The build-id the cache gave for an inode in one state, kept for the
 * events after it in one batch (mmap3_resolver_batch()): a burst maps the
 * same file in the same state again and again, and what was read for a
 * state is that state's id whenever it is asked.
 */
struct mmap3_resolver_last_id {
	struct file *file;		/* held: pins the inode; NULL: none */
	struct mmap3_inode_state state;
	struct mmap3_build_id bid;
};

/*
 * What one producer context needs to resolve events: a read window, a
 * scratch for paths, the last mapper's container, the last file's path
 * and id.
 */
struct mmap3_resolver {
	void *win;				/* PAGE_SIZE */
	char *scratch;				/* mmap3_record_scratch_alloc() */
	struct mmap3_container_last last;	/* until mmap3_resolver_idle() */
	bool batch;				/* see mmap3_resolver_batch() */
	struct mmap3_record_path_memo path;	/* in a batch; in ->scratch */
	struct mmap3_resolver_last_id id;	/* in a batch */
};

int mmap3_resolver_init(struct mmap3_resolver *r);
void mmap3_resolver_destroy(struct mmap3_resolver *r);
/*
 * The events handed over from now until the next call or
 * mmap3_resolver_idle() were all mapped before this call: their records
 * may share a path taken since (record.h), and an id the cache gave.
 */
void mmap3_resolver_batch(struct mmap3_resolver *r);
/* The end of a run of events: what @r keeps of the last mapper goes. */
void mmap3_resolver_idle(struct mmap3_resolver *r);

/*
 * Emit @ev's record with the build-id of the mapped file: from the
 * cache, else from the page cache alone, without I/O.  A file that must
 * be read from its filesystem is handed to a bounded pool of slow
 * readers; the record goes out when the read ends, or with
 * MMAP3_BUILDID_TIMEOUT after read_timeout_ms, whichever comes first.
 *
 * @out NULL: a live event, to every attached output that wants it,
 * never waiting for room.  Else a dump's event, to @out only, waiting for
 * room (see mmap3_output_mmap()); if it had to be parked, its record is
 * emitted by mmap3_resolve_drain(), which the dump must call before
 * @out goes.  Takes over @ev's references.  Process context.
 */
void mmap3_resolve(struct mmap3_resolver *r, struct mmap3_event *ev, struct mmap3_output *out);

/*
 * Return once the live events handed over before are emitted: at most
 * about read_timeout_ms.  Returns where those events end, for
 * mmap3_resolve_unserved().
 */
u64 mmap3_resolve_flush(void);

/*
 * Live events handed over up to @seq and still waiting for their files,
 * that @out wants: lost to an output detached now.
 */
u64 mmap3_resolve_unserved(const struct mmap3_output *out, u64 seq);

/*
 * Emit the records of @out's parked events as their reads end; return
 * when none is left: at most about read_timeout_ms.
 */
void mmap3_resolve_drain(struct mmap3_resolver *r, struct mmap3_output *out);

void mmap3_resolve_stats(struct mmap3_stats *st);
int mmap3_resolve_init(void);
void mmap3_resolve_exit(void);

#endif /* MMAP3_RESOLVE_H */
