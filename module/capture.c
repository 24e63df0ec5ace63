// SPDX-License-Identifier: GPL-2.0
/*
 * Captured files: with MMAP3_FILTER_CAPTURE, a session keeps what opens
 * the mapped file again (its path and inode, never the mapper's struct
 * file) for each build-id it sees for the first time, and hands out its
 * bytes by handle, so the tool can store the exact binary that was
 * mapped even after it was replaced or deleted.
 *
 * Bytes go only to whom could read them, and no more widely than
 * /proc/PID/map_files would: a handle is offered only if the opener may
 * read the mapping process's files (ptrace_may_access(), asked when the
 * mapping is seen, kapi.c); the file is opened anew with the opener's
 * credentials, checked with the kernel's permission check for reading,
 * and read as the opener.  An execute-only binary, another user's memfd
 * (mode 0777) or a file under another user's private directory are not
 * readable through a session of an opener who may not read them, nor
 * through its file descriptor passed on.
 *
 * The open, the check and the reads happen in a work item, never in the
 * worker and never in the caller's ioctl: each may wait on the
 * filesystem.  The ioctl waits for it read_timeout_ms at most
 * (ETIMEDOUT); a read still stuck then keeps its work item, its handle
 * answers ETIMEDOUT at once until it ends, and a session has at most
 * CAPTURE_STUCK_MAX of them (EAGAIN beyond).  Bytes all in the page cache
 * of a file already opened are copied in the ioctl, without I/O.
 *
 * What a session remembers as offered is a build-id in a file (device,
 * inode, generation), not a build-id alone: the id is the file's own
 * claim, and a user who maps a crafted ELF carrying libc's build-id
 * before libc is seen must not be the only file offered for it.  Each
 * file claiming an id is offered once, with MMAP3_MMAP_ROOT_OWNED for a
 * file only root could have written, and the tool keeps the one to
 * trust.  The set is bounded (capture_ids); the oldest released ones are
 * forgotten first, and a forgotten one is offered again at its next
 * mapping.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/completion.h>
#include <linux/cred.h>
#include <linux/file.h>
#include <linux/fs.h>
#include <linux/module.h>
#include <linux/mount.h>
#include <linux/namei.h>
#include <linux/random.h>
#include <linux/refcount.h>
#include <linux/siphash.h>
#include <linux/slab.h>
#include <linux/sysfs.h>
#include <linux/workqueue.h>

#include "capture.h"
#include "internal.h"
#include "kapi.h"
#include "wrapper/fs.h"
#include "wrapper/mm.h"
#include "wrapper/slab.h"

static unsigned int capture_ids = 16384;
module_param(capture_ids, uint, 0444);
MODULE_PARM_DESC(capture_ids,
		 "Build-ids a capturing session remembers as offered (at least 2 * 4096; default 16384)");

/* Reads of a session stuck in their filesystem past the deadline. */
#define CAPTURE_STUCK_MAX	4

/* Capture reads: up to CAPTURE_STUCK_MAX stuck per session, and one each in flight. */
static struct workqueue_struct *capture_wq;
/* Users choose build-ids: their hash chains are keyed by a secret. */
static siphash_key_t id_key;

#ifdef MMAP3_TEST_HOOKS
/* Test builds only: as cache.c's test_cache_key_probe, for the build-id table's key. */
static int test_id_key_probe_get(char *buf, const struct kernel_param *kp)
{
	return sysfs_emit(buf, "%016llx\n", siphash_1u64(0, &id_key));
}

static const struct kernel_param_ops test_id_key_probe_ops = {
	.get = test_id_key_probe_get,
};
module_param_cb(test_id_key_probe, &test_id_key_probe_ops, NULL, 0400);
MODULE_PARM_DESC(test_id_key_probe, "Test builds: the build-id table's hash of 0 under its key");
#endif

/* A file held for a handle. */
struct mmap3_captured {
	struct mmap3_file_id id;	/* the mapped file, to open it again */
	struct file *readable;		/* ours, opened as the opener and checked; or NULL */
	u64 gen;			/* tells apart a handle's successive files */
};

/* Which file claimed a build-id: an inode, as long as it lives. */
struct seen_file {
	u64 ino;
	dev_t dev;
	u32 generation;
};

/* A build-id in a file the session has offered. */
struct seen_id {
	struct hlist_node node;		/* in ->seen */
	struct list_head order;		/* in ->seen_order */
	u32 handle;			/* while held; 0 once released */
	struct seen_file file;
	u8 size;
	u8 data[MMAP3_BUILD_ID_SIZE_MAX];
};

/*
 * A read of a captured file, in a work item.  Its references are its
 * own: it may outlive the ioctl that asked for it, and the session.
 */
struct capture_req {
	struct work_struct work;
	struct completion done;
	refcount_t ref;			/* the asker's, the work's, ->stuck's */
	struct list_head node;		/* in ->stuck once its asker gave up */
	u32 handle;
	u64 gen;
	struct file *file;		/* the opener's open, or NULL: open @id */
	struct mmap3_file_id id;
	const struct cred *cred;	/* the opener's */
	void *buf;
	size_t len;
	loff_t pos;
	ssize_t ret;
};

void mmap3_capture_init(struct mmap3_capture *c, const struct cred *cred)
{
	mutex_init(&c->lock);
	c->cred = get_cred(cred);
	c->root = (struct path){ };
	xa_init_flags(&c->handles, XA_FLAGS_ALLOC1);
	hash_init(c->seen);
	INIT_LIST_HEAD(&c->seen_order);
	INIT_LIST_HEAD(&c->stuck);
	c->held = 0;
	c->nr_seen = 0;
	c->gen = 0;
	c->refused = 0;
	c->denied = 0;
}

static void seen_file_of(struct file *file, struct seen_file *sf)
{
	const struct inode *inode = file_inode(file);

	*sf = (struct seen_file){
		.ino = inode->i_ino,
		.dev = inode->i_sb->s_dev,
		.generation = inode->i_generation,
	};
}

static u32 id_hash(const u8 *data, u8 size, const struct seen_file *sf)
{
	/* Users choose ids and inodes alike: the chain is keyed by a secret. */
	return siphash_3u64(siphash(data, size, &id_key), sf->ino,
			    (u64)sf->dev << 32 | sf->generation, &id_key);
}

static struct seen_id *find_id(struct mmap3_capture *c, const struct mmap3_build_id *bid,
			       const struct seen_file *sf)
{
	struct seen_id *e;

	hash_for_each_possible(c->seen, e, node, id_hash(bid->data, bid->size, sf))
		if (e->size == bid->size && !memcmp(e->data, bid->data, bid->size) &&
		    e->file.ino == sf->ino && e->file.dev == sf->dev &&
		    e->file.generation == sf->generation)
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
	mmap3_file_id_put(&f->id);
	kfree(f);
}

/*
 * Could the capture user reach @file by its path: from the root of who
 * set them (what that tool sees), every directory on the way searchable
 * by them?  Not a file deleted, nor one of another mount namespace or of
 * no path (a memfd): those only /proc/PID/map_files shows.  Under ->lock.
 */
static bool user_reaches(const struct mmap3_capture *c, struct file *file)
{
	struct path p = *mmap3_file_user_path(file);
	const struct cred *old;
	struct dentry *parent;
	bool ok;

	if (!c->root.mnt || d_unlinked(p.dentry))
		return false;
	path_get(&p);
	old = override_creds(c->cred);
	for (ok = true; ok && !path_equal(&p, &c->root); ) {
		if (p.dentry == p.mnt->mnt_root) {
			/* Up to its mount point; past the top without the root: not ours. */
			ok = follow_up(&p);
			continue;
		}
		/* Its own parent, and no mount's root: a memfd's, a pseudo file's. */
		if (IS_ROOT(p.dentry)) {
			ok = false;
			break;
		}
		parent = dget_parent(p.dentry);
		dput(p.dentry);
		p.dentry = parent;
		/* Never waiting on the filesystem (FUSE may not answer): -ECHILD is no. */
		ok = !mmap3_path_permission(&p, MAY_EXEC | MAY_NOT_BLOCK);
	}
	revert_creds(old);
	path_put(&p);
	return ok;
}

/*
 * Could only root have written it?  Owned by root of the initial user
 * namespace and writable by no one else: through the group bits, by no
 * ACL either, as they hold an ACL's mask.
 */
static bool root_only(const struct inode *inode)
{
	return uid_eq(inode->i_uid, GLOBAL_ROOT_UID) && !(inode->i_mode & 0022);
}

bool mmap3_capture_root_owned(struct file *file)
{
	const struct path *p = mmap3_file_user_path(file);
	struct dentry *parent;
	bool ok;

	/* Nor one a user could have renamed into a directory of root's. */
	if (!root_only(file_inode(file)) || IS_ROOT(p->dentry))
		return false;
	parent = dget_parent(p->dentry);
	ok = d_really_is_positive(parent) && root_only(d_inode(parent));
	dput(parent);
	return ok;
}

u32 mmap3_capture_offer(struct mmap3_capture *c, struct file *file, struct pid *tgid,
			const struct mmap3_build_id *bid)
{
	struct mmap3_captured *f = NULL;
	struct seen_id *e = NULL;
	struct seen_file sf;
	u32 handle = 0;

	if (bid->status != MMAP3_BUILDID_FOUND)
		return 0;
	seen_file_of(file, &sf);
	mutex_lock(&c->lock);
	if (find_id(c, bid, &sf))
		goto out;
	/*
	 * Not remembered as offered: a later mapping by a process the
	 * opener may read is offered it.
	 */
	if (!mmap3_may_read_task(c->cred, tgid) && !user_reaches(c, file)) {
		c->denied++;
		goto out;
	}
	if (c->held >= MMAP3_CAPTURE_MAX || !make_room(c))
		goto refused;
	e = kzalloc_obj(*e, GFP_KERNEL_ACCOUNT);
	f = kzalloc_obj(*f, GFP_KERNEL_ACCOUNT);
	if (!e || !f)
		goto refused;
	if (xa_alloc(&c->handles, &handle, f, xa_limit_32b, GFP_KERNEL_ACCOUNT)) {
		handle = 0;
		goto refused;
	}
	mmap3_file_id_get(&f->id, file);
	f->gen = ++c->gen;
	e->handle = handle;
	e->file = sf;
	e->size = bid->size;
	memcpy(e->data, bid->data, bid->size);
	hash_add(c->seen, &e->node, id_hash(e->data, e->size, &sf));
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

int mmap3_capture_withdraw(struct mmap3_capture *c, u32 handle)
{
	struct seen_id *e;
	int ret = -ENOENT;

	mutex_lock(&c->lock);
	if (handle && drop_handle(c, handle)) {
		list_for_each_entry(e, &c->seen_order, order) {
			if (e->handle == handle) {
				forget(c, e);
				break;
			}
		}
		ret = 0;
	}
	mutex_unlock(&c->lock);
	return ret;
}

/* A credential of that user as it is when it holds no capability. */
static struct cred *user_cred(u32 uid, u32 gid, const u32 *groups, u32 nr)
{
	struct user_namespace *ns = current_user_ns();
	kuid_t kuid = make_kuid(ns, uid);
	kgid_t kgid = make_kgid(ns, gid);
	struct group_info *gi;
	struct cred *new;
	u32 i;

	if (!uid_valid(kuid) || !gid_valid(kgid))
		return ERR_PTR(-EINVAL);
	gi = groups_alloc(nr);
	if (!gi)
		return ERR_PTR(-ENOMEM);
	for (i = 0; i < nr; i++) {
		gi->gid[i] = make_kgid(ns, groups[i]);
		if (!gid_valid(gi->gid[i])) {
			put_group_info(gi);
			return ERR_PTR(-EINVAL);
		}
	}
	groups_sort(gi);
	new = prepare_creds();
	if (!new) {
		put_group_info(gi);
		return ERR_PTR(-ENOMEM);
	}
	/* Only ever overridden for checks and reads (nfsd does as much): ->user stays. */
	new->uid = kuid;
	new->euid = kuid;
	new->suid = kuid;
	new->fsuid = kuid;
	new->gid = kgid;
	new->egid = kgid;
	new->sgid = kgid;
	new->fsgid = kgid;
	set_groups(new, gi);
	put_group_info(gi);
	cap_clear(new->cap_inheritable);
	cap_clear(new->cap_permitted);
	cap_clear(new->cap_effective);
	cap_clear(new->cap_ambient);
	return new;
}

int mmap3_capture_set_user(struct mmap3_capture *c, u32 uid, u32 gid, const u32 *groups,
			   u32 nr)
{
	struct cred *new = user_cred(uid, gid, groups, nr);
	const struct cred *old;

	if (IS_ERR(new))
		return PTR_ERR(new);
	mutex_lock(&c->lock);
	/* A handle given already was judged, and its file may be open, as the old one. */
	if (c->gen || c->root.mnt) {
		mutex_unlock(&c->lock);
		abort_creds(new);
		return -EBUSY;
	}
	old = c->cred;
	c->cred = new;
	get_fs_root(current->fs, &c->root);
	mutex_unlock(&c->lock);
	put_cred(old);
	return 0;
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

static void req_put(struct capture_req *req)
{
	if (!refcount_dec_and_test(&req->ref))
		return;
	if (req->file)
		fput(req->file);
	if (req->id.inode)
		mmap3_file_id_put(&req->id);
	put_cred(req->cred);
	kvfree(req->buf);
	kfree(req);
	/* Last: module exit waits for the work to return (destroy_workqueue()). */
	module_put(THIS_MODULE);
}

/* Our own open of @req's file as the opener, once the kernel says it may read it. */
static struct file *open_checked(struct capture_req *req)
{
	struct file *file = mmap3_file_id_open(&req->id, req->cred);
	int ret;

	if (IS_ERR(file))
		return file;
	ret = file_permission(file, MAY_READ);
	if (ret) {
		fput(file);
		return ERR_PTR(ret);
	}
	return file;
}

static void capture_read_work(struct work_struct *work)
{
	struct capture_req *req = container_of(work, struct capture_req, work);
	const struct cred *old = override_creds(req->cred);
	loff_t pos = req->pos;

	if (!req->file) {
		struct file *file = open_checked(req);

		if (IS_ERR(file))
			req->ret = PTR_ERR(file);
		else
			req->file = file;
	}
	if (req->file)
		req->ret = kernel_read(req->file, req->buf, req->len, &pos);
	revert_creds(old);
	complete(&req->done);
	req_put(req);
}

/* Under ->lock: let go of the stuck reads that ended; how many are left. */
static unsigned int prune_stuck(struct mmap3_capture *c)
{
	struct capture_req *req, *tmp;
	unsigned int n = 0;

	list_for_each_entry_safe(req, tmp, &c->stuck, node) {
		if (completion_done(&req->done)) {
			list_del(&req->node);
			req_put(req);
		} else {
			n++;
		}
	}
	return n;
}

/* Under ->lock: is a read of @handle stuck? */
static bool handle_stuck(struct mmap3_capture *c, u32 handle, u64 gen)
{
	struct capture_req *req;

	list_for_each_entry(req, &c->stuck, node)
		if (req->handle == handle && req->gen == gen)
			return true;
	return false;
}

/*
 * Bytes of the file the opener opened already, from the page cache
 * alone: @len of them (or up to the end of the file), else -EAGAIN.
 */
static ssize_t read_cached(struct file *file, void *buf, size_t len, loff_t pos)
{
	loff_t size = i_size_read(file_inode(file));
	long n;

	if (pos >= size)
		return 0;
	len = min_t(loff_t, len, size - pos);
	n = mmap3_page_cache_copy(file->f_mapping, buf, len, pos);
	return n < 0 ? n : len;
}

ssize_t mmap3_capture_read(struct mmap3_capture *c, u32 handle, void *buf, size_t len,
			   loff_t pos)
{
	struct capture_req *req;
	struct mmap3_captured *f;
	struct file *file = NULL;
	ssize_t ret;
	long left;

	req = kzalloc_obj(*req, GFP_KERNEL_ACCOUNT);
	if (!req)
		return -ENOMEM;
	mutex_lock(&c->lock);
	f = xa_load(&c->handles, handle);
	if (!f) {
		ret = -ENOENT;
		goto unlock;
	}
	if (f->readable) {
		u64 gen = f->gen;

		file = get_file(f->readable);
		mutex_unlock(&c->lock);
		ret = read_cached(file, buf, len, pos);
		if (ret != -EAGAIN) {
			fput(file);
			kfree(req);
			return ret;
		}
		mutex_lock(&c->lock);
		f = xa_load(&c->handles, handle);
		if (!f || f->gen != gen) {
			/* Released meanwhile, perhaps given to another file. */
			ret = -ENOENT;
			goto unlock;
		}
	}
	if (handle_stuck(c, handle, f->gen)) {
		ret = -ETIMEDOUT;
		goto unlock;
	}
	if (prune_stuck(c) >= CAPTURE_STUCK_MAX) {
		ret = -EAGAIN;
		goto unlock;
	}
	ret = -ENOMEM;
	req->buf = kvmalloc(len ? len : 1, GFP_KERNEL_ACCOUNT | __GFP_NOWARN);
	if (!req->buf || !try_module_get(THIS_MODULE))
		goto unlock;
	INIT_WORK(&req->work, capture_read_work);
	init_completion(&req->done);
	/* The asker's and the work's. */
	refcount_set(&req->ref, 2);
	req->handle = handle;
	req->gen = f->gen;
	req->file = file;
	file = NULL;
	if (!req->file) {
		req->id = f->id;
		path_get(&req->id.path);
		ihold(req->id.inode);
	}
	req->cred = get_cred(c->cred);
	req->len = len;
	req->pos = pos;
	mutex_unlock(&c->lock);

	queue_work(capture_wq, &req->work);
	left = wait_for_completion_killable_timeout(&req->done,
						    msecs_to_jiffies(mmap3_read_timeout_ms));
	mutex_lock(&c->lock);
	if (left <= 0) {
		/* ->stuck takes the asker's reference. */
		list_add_tail(&req->node, &c->stuck);
		mutex_unlock(&c->lock);
		return left < 0 ? left : -ETIMEDOUT;
	}
	ret = req->ret;
	if (ret > 0)
		memcpy(buf, req->buf, ret);
	/* Keep the open for the next reads, if the handle is still its file's. */
	f = xa_load(&c->handles, handle);
	if (ret >= 0 && f && f->gen == req->gen && !f->readable)
		f->readable = get_file(req->file);
	mutex_unlock(&c->lock);
	req_put(req);
	return ret;

unlock:
	mutex_unlock(&c->lock);
	if (file)
		fput(file);
	if (req->buf)
		kvfree(req->buf);
	kfree(req);
	return ret;
}

u64 mmap3_capture_memory(struct mmap3_capture *c)
{
	return (u64)READ_ONCE(c->nr_seen) * sizeof(struct seen_id) +
	       (u64)READ_ONCE(c->held) * sizeof(struct mmap3_captured);
}

void mmap3_capture_destroy(struct mmap3_capture *c)
{
	struct capture_req *req, *tmp;
	struct seen_id *e, *etmp;
	struct mmap3_captured *f;
	unsigned long handle;

	/* A stuck read ends on its own, holding what it reads. */
	list_for_each_entry_safe(req, tmp, &c->stuck, node)
		req_put(req);
	xa_for_each(&c->handles, handle, f)
		captured_free(f);
	xa_destroy(&c->handles);
	list_for_each_entry_safe(e, etmp, &c->seen_order, order)
		kfree(e);
	if (c->root.mnt)
		path_put(&c->root);
	put_cred(c->cred);
}

int mmap3_capture_module_init(void)
{
	get_random_bytes(&id_key, sizeof(id_key));
	capture_wq = alloc_workqueue("mmap3_capture", WQ_UNBOUND, 0);
	return capture_wq ? 0 : -ENOMEM;
}

/* Every session is closed; stuck reads held the module. */
void mmap3_capture_module_exit(void)
{
	destroy_workqueue(capture_wq);
}
