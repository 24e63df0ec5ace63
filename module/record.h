/* SPDX-License-Identifier: GPL-2.0 */
/*
 * From an event and its file's build-id to a mapping record (record.c).
 */
#ifndef MMAP3_RECORD_H
#define MMAP3_RECORD_H

#include "internal.h"

/* Room for a record with the longest path. */
struct mmap3_record_mmap *mmap3_record_mmap_alloc(void);

/*
 * Fill everything but what depends on the session (pids, time, capture
 * handle): the mapping, the file's identity, @bid read in state @st
 * (whose mtime the record carries), @changed if that is not the state
 * the file was mapped in, and the path.  Process context.
 */
void mmap3_record_mmap_fill(struct mmap3_record_mmap *rec, const struct mmap3_event *ev,
			    const struct mmap3_build_id *bid,
			    const struct mmap3_inode_state *st, bool changed);

#endif /* MMAP3_RECORD_H */
