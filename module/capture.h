/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A session's captured files (capture.c).
 */
#ifndef MMAP3_CAPTURE_H
#define MMAP3_CAPTURE_H

#include <linux/hashtable.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/xarray.h>
#include <linux/mmap3.h>

/*
 * @lock protects all of it; taken in process context, inside sink_lock
 * and never around a file read.
 */
struct mmap3_capture {
	struct mutex lock;		/* see above */
	const struct cred *cred;	/* the opener's: reads are done as it */
	struct xarray handles;		/* handle -> struct mmap3_captured */
	unsigned int held;		/* handles held */
	DECLARE_HASHTABLE(seen, 10);	/* build-ids offered, by id */
	struct list_head seen_order;	/* the same, oldest first */
	unsigned int nr_seen;
	u64 refused;			/* first-seen ids given no handle */
};

void mmap3_capture_init(struct mmap3_capture *c, const struct cred *cred);
void mmap3_capture_destroy(struct mmap3_capture *c);

/*
 * Offer @file, mapped with build-id @bid: a new handle if the id is new
 * to the session and there is room, else 0.
 */
u32 mmap3_capture_offer(struct mmap3_capture *c, struct file *file,
			const struct mmap3_build_id *bid);
/* The record carrying @handle was lost: forget the id, so it is offered again. */
void mmap3_capture_withdraw(struct mmap3_capture *c, u32 handle);
/*
 * Read up to @len bytes at @pos of the file behind @handle into @buf,
 * as the opener: -EACCES if it could not read the file itself.
 */
ssize_t mmap3_capture_read(struct mmap3_capture *c, u32 handle, void *buf, size_t len,
			   loff_t pos);
int mmap3_capture_release(struct mmap3_capture *c, u32 handle);
/* Bytes of bookkeeping the session holds. */
u64 mmap3_capture_memory(struct mmap3_capture *c);

#endif /* MMAP3_CAPTURE_H */
