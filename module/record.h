/* SPDX-License-Identifier: GPL-2.0 */
/*
 * From an event and its file's build-id to a mapping record (record.c).
 */
#ifndef MMAP3_RECORD_H
#define MMAP3_RECORD_H

#include <linux/types.h>

#include "internal.h"
#include "sink.h"

/*
 * The path of the last file a record was found for, left in its keeper's
 * scratch for the records after it: d_path() walks every component,
 * each copied a byte at a time, and was the largest part of what a
 * mapping cost the worker; a burst of mappings is mostly of the same few
 * files.  Its keeper passes it only for events all
 * mapped before it was last forgotten: a path taken since is one their
 * file had after they were mapped, as good as one taken at each record
 * (d_path() cannot be atomic with the mapping either).
 */
struct mmap3_record_path_memo {
	/*
	 * Held, so that its path's dentry and mount are no other file's; a
	 * file, not a path: the last reference to a deleted file's dentry
	 * would evict its inode, I/O, where fput() defers the end of a
	 * kernel thread's file to a work item of its own.
	 */
	struct file *file;		/* NULL: none */
	size_t len;
};

/* Let the path go: an idle keeper holds no mount busy. */
void mmap3_record_path_memo_forget(struct mmap3_record_path_memo *memo);

/* Room for mmap3_record_mmap_find() to work in: the longest path and root path. */
char *mmap3_record_scratch_alloc(void);

/*
 * Find @ev's record (sink.h) for the sink to write: the mapping, the
 * file's identity, @bid read in state @st (whose mtime the record
 * carries), @changed if that is not the state the file was mapped in,
 * and the path (@memo's, if it is this file's and @scratch is where it
 * was found; @memo NULL: none), in @scratch.  Process context.
 */
void mmap3_record_mmap_find(struct mmap3_record_mmap_src *src, char *scratch,
			    struct mmap3_record_path_memo *memo, const struct mmap3_event *ev,
			    const struct mmap3_build_id *bid, const struct mmap3_inode_state *st,
			    bool changed);

#endif /* MMAP3_RECORD_H */
