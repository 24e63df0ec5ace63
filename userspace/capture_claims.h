/* SPDX-License-Identifier: GPL-2.0 */
/*
 * userspace/capture_claims.h - which file a capture directory's copy of
 * each build-id came from, for this session.
 *
 * A build-id is a file's own claim: any user can write an ELF carrying
 * libc's.  The module (ABI 2.5) offers every file that claims an id, once
 * each, marked MMAP3_MMAP_ROOT_OWNED when only root could have written
 * it.  The rule: the first file stored for an id is kept, unless it was
 * not root-owned and a root-owned file claims the id later, which then
 * replaces it.  A copy that was in the directory before the session is
 * kept as it is.
 */
#ifndef MMAP3_CAPTURE_CLAIMS_H
#define MMAP3_CAPTURE_CLAIMS_H

#include <linux/mmap3.h>
#include <stdint.h>

#include "hashmap.h"

struct capture_claim {
	uint8_t size;
	uint8_t id[MMAP3_BUILD_ID_SIZE_MAX];
	int root_owned;		/* the stored copy's file was root's alone */
	char *dirs;		/* where it is stored: PATH/BUILD-ID below DIR; or NULL */
	char *path;		/* the file it came from, for messages; or NULL */
};

struct capture_claims {
	struct hashmap map;	/* build-id -> struct capture_claim * */
};

void capture_claims_init(struct capture_claims *cl);
void capture_claims_free(struct capture_claims *cl);

/* The claim this session stored or met for @bid, or NULL. */
struct capture_claim *capture_claims_find(struct capture_claims *cl,
					  const struct mmap3_build_id *bid);

/*
 * Remember @bid as stored from @path at @dirs (NULL for a copy that was
 * there already), root-owned or not; an existing claim is updated.
 * Returns 0, or -1 out of memory.
 */
int capture_claims_set(struct capture_claims *cl, const struct mmap3_build_id *bid,
		       int root_owned, const char *dirs, const char *path);

/* The copy of @bid is gone (a store evicted it): the next file claiming it is stored. */
void capture_claims_forget(struct capture_claims *cl, const struct mmap3_build_id *bid);

#endif /* MMAP3_CAPTURE_CLAIMS_H */
