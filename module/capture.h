/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A session's captured files (capture.c).
 */
#ifndef MMAP3_CAPTURE_H
#define MMAP3_CAPTURE_H

#include <linux/hashtable.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/path.h>
#include <linux/xarray.h>
#include <linux/mmap3.h>

/*
 * @lock protects all of it; taken in process context, inside sink_lock
 * and never around a file read.
 */
struct mmap3_capture {
	struct mutex lock;		/* see above */
	/*
	 * Offers are judged and reads done as it: the opener's, or the
	 * user MMAP3_IOC_SET_CAPTURE_USER named (only before ENABLE, so
	 * only under the session's config_lock, with nothing offered yet).
	 */
	const struct cred *cred;
	struct path root;		/* with a user set: the setter's root; else none */
	struct xarray handles;		/* handle -> struct mmap3_captured */
	unsigned int held;		/* handles held */
	DECLARE_HASHTABLE(seen, 10);	/* build-ids in files offered */
	struct list_head seen_order;	/* the same, oldest first */
	unsigned int nr_seen;
	u64 gen;			/* files given handles, ever */
	struct list_head stuck;		/* reads past their deadline, not yet ended */
	u64 refused;			/* first-seen ids given no handle: no room */
	u64 denied;			/* ... the opener may not read the mapper's files */
};

/* Judge and read as @cred (a reference of its own, put by _destroy()). */
void mmap3_capture_init(struct mmap3_capture *c, const struct cred *cred);
void mmap3_capture_destroy(struct mmap3_capture *c);

/*
 * Offer @file, mapped by process @tgid with build-id @bid: a new handle
 * if the id in this file is new to the session, the opener may read @tgid's files
 * (as /proc/PID/map_files requires) and there is room, else 0.  May
 * sleep.
 */
u32 mmap3_capture_offer(struct mmap3_capture *c, struct file *file, struct pid *tgid,
			const struct mmap3_build_id *bid);
/*
 * Were @file and the directory it was mapped from written by root alone
 * (MMAP3_MMAP_ROOT_OWNED)?  Never waits on the filesystem.
 */
bool mmap3_capture_root_owned(struct file *file);
/*
 * The record carrying @handle was lost, or the tool wants none of its
 * process's files: forget the id, so it is offered again.  -ENOENT if
 * no such handle is held.
 */
int mmap3_capture_withdraw(struct mmap3_capture *c, u32 handle);
/*
 * From now on, judge offers and read as user @uid, group @gid and
 * @groups (@nr of them; ids of the caller's user namespace) would, with
 * no capability: a file is offered if they may read the mapper's files
 * (/proc/PID/map_files) or reach it by its path from the caller's root,
 * and read only if they may read it.  Before any offer (-EBUSY); -EINVAL
 * for an unmapped id.
 */
int mmap3_capture_set_user(struct mmap3_capture *c, u32 uid, u32 gid, const u32 *groups,
			   u32 nr);
/*
 * Read up to @len bytes at @pos of the file behind @handle into @buf,
 * as the opener: -EACCES if it could not read the file itself,
 * -ETIMEDOUT if its filesystem did not answer within read_timeout_ms
 * (or still has not), -EAGAIN if too many of the session's reads are
 * stuck so.
 */
ssize_t mmap3_capture_read(struct mmap3_capture *c, u32 handle, void *buf, size_t len,
			   loff_t pos);
int mmap3_capture_release(struct mmap3_capture *c, u32 handle);
/* Bytes of bookkeeping the session holds. */
u64 mmap3_capture_memory(struct mmap3_capture *c);

int mmap3_capture_module_init(void);
void mmap3_capture_module_exit(void);

#endif /* MMAP3_CAPTURE_H */
