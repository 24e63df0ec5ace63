// SPDX-License-Identifier: GPL-2.0
/*
 * Captured files: with MMAP3_FILTER_CAPTURE, a session keeps a reference
 * to the mapped file of each build-id it sees for the first time and
 * hands out its bytes by handle, so the tool can store the exact binary
 * that was mapped even after it was replaced or deleted.
 *
 * Bytes go only to whom could read them: the file is opened anew (never
 * the mapper's struct file) with the opener's credentials, checked with
 * the kernel's permission check for reading, and read as the opener.  An
 * execute-only binary run by anyone is not readable through a session of
 * an opener who may not read it, nor through its file descriptor passed
 * on.  Both happen in the reader's ioctl, never in the worker: an open or
 * a permission check may wait on the filesystem.
 *
 * The set of build-ids a session remembers as offered is bounded
 * (capture_ids); the oldest released ones are forgotten first, and a
 * forgotten id is offered again at its next mapping.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/cred.h>
#include <linux/file.h>
#include <linux/fs.h>
#include <linux/jhash.h>
#include <linux/module.h>
#include <linux/slab.h>

#include "capture.h"
#include "wrapper/fs.h"
#include "wrapper/slab.h"

static unsigned int capture_ids = 16384;
module_param(capture_ids, uint, 0444);
MODULE_PARM_DESC(capture_ids,
		 "Build-ids a capturing session remembers as offered (at least 2 * 4096; default 16384)");

/* A file held for a handle. */
struct mmap3_captured {
	struct file *mapped;		/* the mapper's, to open it again */
	struct file *readable;		/* ours, opened as the opener; or NULL */
};

/* A build-id the session has offered. */
struct seen_id {
	struct hlist_node node;		/* in ->seen */
	struct list_head order;		/* in ->seen_order */
	u32 handle;			/* while held; 0 once released */
	u8 size;
	u8 data[MMAP3_BUILD_ID_SIZE_MAX];
};

void mmap3_capture_init(struct mmap3_capture *c, const struct cred *cred)
{
	mutex_init(&c->lock);
	c->cred = cred;
	xa_init_flags(&c->handles, XA_FLAGS_ALLOC1);
	hash_init(c->seen);
	INIT_LIST_HEAD(&c->seen_order);
	c->held = 0;
	c->nr_seen = 0;
	c->refused = 0;
}

static u32 id_hash(const u8 *data, u8 size)
{
	return jhash(data, size, size);
}

static struct seen_id *find_id(struct mmap3_capture *c, const struct mmap3_build_id *bid)
{
	struct seen_id *e;

	hash_for_each_possible(c->seen, e, node, id_hash(bid->data, bid->size))
		if (e->size == bid->size && !memcmp(e->data, bid->data, bid->size))
			return e;
	return NULL;
}

static void forget(struct mmap3_capture *c, struct seen_id *e)
{
	hash_del(&e->node);
	list_del(&e->order);
	c->nr_seen--;
	kfree(e);
}

/* Under ->lock: room for one more id, forgetting the oldest released one. */
static bool make_room(struct mmap3_capture *c)
{
	struct seen_id *e;

	if (c->nr_seen < max(capture_ids, 2U * MMAP3_CAPTURE_MAX))
		return true;
	list_for_each_entry(e, &c->seen_order, order) {
		if (!e->handle) {
			forget(c, e);
			return true;
		}
	}
	return false;
}

static void captured_free(struct mmap3_captured *f)
{
	if (f->readable)
		fput(f->readable);
	fput(f->mapped);
	kfree(f);
}

u32 mmap3_capture_offer(struct mmap3_capture *c, struct file *file,
			const struct mmap3_build_id *bid)
{
	struct mmap3_captured *f = NULL;
	struct seen_id *e = NULL;
	u32 handle = 0;

	if (bid->status != MMAP3_BUILDID_FOUND)
		return 0;
	mutex_lock(&c->lock);
	if (find_id(c, bid))
		goto out;
	if (c->held >= MMAP3_CAPTURE_MAX || !make_room(c))
		goto refused;
	e = kzalloc_obj(*e);
	f = kzalloc_obj(*f);
	if (!e || !f)
		goto refused;
	f->mapped = get_file(file);
	if (xa_alloc(&c->handles, &handle, f, xa_limit_32b, GFP_KERNEL)) {
		fput(file);
		handle = 0;
		goto refused;
	}
	e->handle = handle;
	e->size = bid->size;
	memcpy(e->data, bid->data, bid->size);
	hash_add(c->seen, &e->node, id_hash(e->data, e->size));
	list_add_tail(&e->order, &c->seen_order);
	c->nr_seen++;
	c->held++;
	mutex_unlock(&c->lock);
	return handle;
refused:
	c->refused++;
	kfree(e);
	kfree(f);
out:
	mutex_unlock(&c->lock);
	return 0;
}

/* Under ->lock. */
static bool drop_handle(struct mmap3_capture *c, u32 handle)
{
	struct mmap3_captured *f = xa_erase(&c->handles, handle);

	if (!f)
		return false;
	captured_free(f);
	c->held--;
	return true;
}

void mmap3_capture_withdraw(struct mmap3_capture *c, u32 handle)
{
	struct seen_id *e;

	mutex_lock(&c->lock);
	drop_handle(c, handle);
	list_for_each_entry(e, &c->seen_order, order) {
		if (e->handle == handle) {
			forget(c, e);
			break;
		}
	}
	mutex_unlock(&c->lock);
}

int mmap3_capture_release(struct mmap3_capture *c, u32 handle)
{
	struct seen_id *e;
	int ret = -ENOENT;

	mutex_lock(&c->lock);
	if (handle && drop_handle(c, handle)) {
		/* Still seen: the session has this build-id's file. */
		list_for_each_entry(e, &c->seen_order, order) {
			if (e->handle == handle) {
				e->handle = 0;
				break;
			}
		}
		ret = 0;
	}
	mutex_unlock(&c->lock);
	return ret;
}

/*
 * Our own open of the file behind @handle, as the opener, once the
 * kernel says the opener may read it.  Outside ->lock: the open and the
 * check may wait on the filesystem.
 */
static struct file *readable_file(struct mmap3_capture *c, u32 handle)
{
	struct mmap3_captured *f;
	struct file *mapped, *file;
	const struct cred *old;
	unsigned int tries = 0;
	bool same;
	int ret;

again:
	mutex_lock(&c->lock);
	f = xa_load(&c->handles, handle);
	file = f && f->readable ? get_file(f->readable) : NULL;
	mapped = f && !file ? get_file(f->mapped) : NULL;
	mutex_unlock(&c->lock);
	if (file)
		return file;
	if (!mapped)
		return ERR_PTR(-ENOENT);

	file = mmap3_open_private(&mapped->f_path, c->cred);
	if (IS_ERR(file))
		goto out;
	old = override_creds(c->cred);
	ret = file_permission(file, MAY_READ);
	revert_creds(old);
	if (ret) {
		fput(file);
		file = ERR_PTR(ret);
		goto out;
	}

	/*
	 * The handle may have been released and given to another file
	 * meanwhile (@mapped, still held, keeps its address from being
	 * reused): then this open is of the wrong file.
	 */
	mutex_lock(&c->lock);
	f = xa_load(&c->handles, handle);
	same = f && f->mapped == mapped;
	if (same && !f->readable)
		f->readable = get_file(file);
	mutex_unlock(&c->lock);
	if (!same) {
		fput(file);
		fput(mapped);
		if (++tries < 3)
			goto again;
		return ERR_PTR(-EAGAIN);
	}
out:
	fput(mapped);
	return file;
}

ssize_t mmap3_capture_read(struct mmap3_capture *c, u32 handle, void *buf, size_t len,
			   loff_t pos)
{
	const struct cred *old;
	struct file *file;
	ssize_t n;

	file = readable_file(c, handle);
	if (IS_ERR(file))
		return PTR_ERR(file);
	old = override_creds(c->cred);
	n = kernel_read(file, buf, len, &pos);
	revert_creds(old);
	fput(file);
	return n;
}

u64 mmap3_capture_memory(struct mmap3_capture *c)
{
	return (u64)READ_ONCE(c->nr_seen) * sizeof(struct seen_id) +
	       (u64)READ_ONCE(c->held) * sizeof(struct mmap3_captured);
}

void mmap3_capture_destroy(struct mmap3_capture *c)
{
	struct seen_id *e, *tmp;
	struct mmap3_captured *f;
	unsigned long handle;

	xa_for_each(&c->handles, handle, f)
		captured_free(f);
	xa_destroy(&c->handles);
	list_for_each_entry_safe(e, tmp, &c->seen_order, order)
		kfree(e);
}
