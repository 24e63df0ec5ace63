// SPDX-License-Identifier: GPL-2.0
/*
 * Captured files: with MMAP3_FILTER_CAPTURE, a session keeps a reference
 * to the mapped file of each build-id it sees for the first time and
 * hands out its bytes by handle, so the tool can store the exact binary
 * that was mapped even after it was replaced or deleted.  Process
 * context only.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/file.h>
#include <linux/fs.h>
#include <linux/jhash.h>
#include <linux/mm.h>
#include <linux/slab.h>
#include <linux/uaccess.h>

#include "compat.h"
#include "mmap3.h"

/* A build-id the session has offered already. */
struct kept_id {
	struct hlist_node node;
	u32 handle;		/* while held; 0 once released */
	struct mmap3_build_id bid;
};

void mmap3_keep_init(struct mmap3_keep *k)
{
	mutex_init(&k->lock);
	xa_init_flags(&k->handles, XA_FLAGS_ALLOC1);
	hash_init(k->seen);
}

static u32 id_hash(const struct mmap3_build_id *bid)
{
	return jhash(bid->data, bid->size, bid->size);
}

static struct kept_id *find_id(struct mmap3_keep *k, const struct mmap3_build_id *bid)
{
	struct kept_id *e;

	hash_for_each_possible(k->seen, e, node, id_hash(bid))
		if (e->bid.size == bid->size && !memcmp(e->bid.data, bid->data, bid->size))
			return e;
	return NULL;
}

/*
 * Offer @file, mapped with build-id @bid: a new handle if the id is new
 * to the session and there is room, else 0.
 */
u32 mmap3_keep_offer(struct mmap3_keep *k, struct file *file, const struct mmap3_build_id *bid)
{
	struct kept_id *e;
	u32 handle = 0;

	if (bid->status != MMAP3_BUILDID_FOUND)
		return 0;
	mutex_lock(&k->lock);
	if (find_id(k, bid) || k->nr >= MMAP3_CAPTURE_MAX)
		goto out;
	e = kzalloc_obj(*e);
	if (!e)
		goto out;
	if (xa_alloc(&k->handles, &handle, get_file(file), xa_limit_32b, GFP_KERNEL)) {
		fput(file);
		kfree(e);
		handle = 0;
		goto out;
	}
	e->handle = handle;
	e->bid = *bid;
	hash_add(k->seen, &e->node, id_hash(bid));
	k->nr++;
out:
	mutex_unlock(&k->lock);
	return handle;
}

/* Under k->lock. */
static void drop_handle(struct mmap3_keep *k, u32 handle)
{
	struct file *file = xa_erase(&k->handles, handle);

	if (file) {
		fput(file);
		k->nr--;
	}
}

/* The record with @handle was lost: forget the id, so it is offered again. */
void mmap3_keep_withdraw(struct mmap3_keep *k, u32 handle)
{
	struct kept_id *e;
	unsigned int bkt;

	mutex_lock(&k->lock);
	drop_handle(k, handle);
	hash_for_each(k->seen, bkt, e, node) {
		if (e->handle == handle) {
			hash_del(&e->node);
			kfree(e);
			break;
		}
	}
	mutex_unlock(&k->lock);
}

long mmap3_keep_read(struct mmap3_keep *k, void __user *uarg)
{
	struct mmap3_capture_read rd;
	struct file *file;
	loff_t pos;
	ssize_t n;
	void *buf;
	u32 usize;
	int ret;

	ret = mmap3_copy_struct_from_user(&rd, sizeof(rd), uarg, MMAP3_CAPTURE_READ_SIZE_VER0,
					  &usize);
	if (ret)
		return ret;
	if (!rd.handle || rd.offset > LLONG_MAX)
		return -EINVAL;
	mutex_lock(&k->lock);
	file = xa_load(&k->handles, rd.handle);
	if (file)
		get_file(file);
	mutex_unlock(&k->lock);
	if (!file)
		return -ENOENT;

	rd.len = min_t(u64, rd.len, MMAP3_CAPTURE_READ_MAX);
	buf = kvmalloc(rd.len ? rd.len : 1, GFP_KERNEL);
	if (!buf) {
		fput(file);
		return -ENOMEM;
	}
	pos = rd.offset;
	n = kernel_read(file, buf, rd.len, &pos);
	fput(file);
	if (n > 0 && copy_to_user(u64_to_user_ptr(rd.buf), buf, n))
		n = -EFAULT;
	kvfree(buf);
	return n;
}

long mmap3_keep_release(struct mmap3_keep *k, u32 __user *uarg)
{
	struct kept_id *e;
	unsigned int bkt;
	long ret = -ENOENT;
	u32 handle;

	if (get_user(handle, uarg))
		return -EFAULT;
	mutex_lock(&k->lock);
	if (handle && xa_load(&k->handles, handle)) {
		drop_handle(k, handle);
		/* Still seen: the session has this build-id's file. */
		hash_for_each(k->seen, bkt, e, node)
			if (e->handle == handle)
				e->handle = 0;
		ret = 0;
	}
	mutex_unlock(&k->lock);
	return ret;
}

void mmap3_keep_destroy(struct mmap3_keep *k)
{
	struct hlist_node *tmp;
	struct kept_id *e;
	struct file *file;
	unsigned long handle;
	unsigned int bkt;

	xa_for_each(&k->handles, handle, file)
		fput(file);
	xa_destroy(&k->handles);
	hash_for_each_safe(k->seen, bkt, tmp, e, node)
		kfree(e);
}
