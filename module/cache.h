/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Per-inode build-id cache (cache.c).
 */
#ifndef MMAP3_CACHE_H
#define MMAP3_CACHE_H

#include "internal.h"

/* The inode's state now; plain loads, safe in the hook (NMI-like). */
void mmap3_inode_state(struct inode *inode, struct mmap3_inode_state *st);

/* Inline: the worker asks for every mapping, the cache for every entry it walks. */
static inline bool mmap3_inode_state_equal(const struct mmap3_inode_state *a,
					   const struct mmap3_inode_state *b)
{
	return a->size == b->size && timespec64_equal(&a->mtime, &b->mtime) &&
	       timespec64_equal(&a->ctime, &b->ctime) &&
	       a->has_iversion == b->has_iversion && a->iversion == b->iversion;
}

/*
 * The build-id of @inode as it was in state @st, if it was read in that
 * state; RCU only, no lock, no allocation.
 */
bool mmap3_cache_lookup(struct inode *inode, const struct mmap3_inode_state *st,
			struct mmap3_build_id *bid);
/* Remember what was read of @inode in state @st.  May allocate. */
void mmap3_cache_insert(struct inode *inode, const struct mmap3_inode_state *st,
			const struct mmap3_build_id *bid);
void mmap3_cache_stats(struct mmap3_stats *st);

int mmap3_cache_init(void);
void mmap3_cache_exit(void);

#endif /* MMAP3_CACHE_H */
