// SPDX-License-Identifier: GPL-2.0
/*
 * From a mapped file to a record: its identity, path and build-id.
 * Process context (the worker, the slow readers, the state dump).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/dcache.h>
#include <linux/file.h>
#include <linux/fs.h>
#include <linux/kdev_t.h>
#include <linux/limits.h>
#include <linux/path.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "record.h"
#include "wrapper/fs.h"

#define DELETED_SUFFIX " (deleted)"

/*
 * The record, its path, then struct mmap3_mmap_ns and the root path,
 * each padded with MMAP3_RECORD_ALIGN bytes beyond the longest: the
 * padding is zeroed with one store of that many bytes, which may pass
 * the record's end by up to 7.
 */
#define RECORD_MMAP_MAX		(sizeof(struct mmap3_record_mmap) + PATH_MAX + \
				 MMAP3_RECORD_ALIGN + sizeof(struct mmap3_mmap_ns) + \
				 PATH_MAX + MMAP3_RECORD_ALIGN)

struct mmap3_record_mmap *mmap3_record_mmap_alloc(void)
{
	return kmalloc(RECORD_MMAP_MAX, GFP_KERNEL | __GFP_NOWARN);
}

/*
 * d_path(), with the path's length.  A path d_path() builds ends at the
 * buffer's end (fs/d_path.c prepends to it, 5.10 to 7.x): its length is
 * known without counting it, which strlen() does a byte at a time, on
 * every mapping.  A filesystem's own name (d_dname(): memfd, anonymous
 * files) may lie anywhere and is counted.
 */
static char *path_of(const struct path *path, char *buf, size_t *len)
{
	const struct dentry_operations *ops = path->dentry->d_op;
	char *p = d_path(path, buf, PATH_MAX);

	if (IS_ERR(p))
		return p;
	*len = buf + PATH_MAX - 1 - p;
	if ((ops && ops->d_dname) || p[*len])
		*len = strlen(p);
	return p;
}

void mmap3_record_path_memo_forget(struct mmap3_record_path_memo *memo)
{
	if (memo->file)
		fput(memo->file);
	memo->file = NULL;
}

/*
 * The path the user opened (not an overlayfs backing file's), from the
 * worker's root, the initial one; without " (deleted)".  A path longer
 * than PATH_MAX leaves the file's own name, flagged.  Returns its length.
 */
static size_t record_path(struct mmap3_record_mmap *rec, struct mmap3_record_path_memo *memo,
			  struct file *file)
{
	const struct path *path = mmap3_file_user_path(file);
	size_t len;
	char *p;

	if (memo && memo->file && path_equal(path, mmap3_file_user_path(memo->file))) {
		/* Unlinked since the path was taken: the same path, so flagged. */
		if (d_unlinked(path->dentry))
			rec->flags |= MMAP3_MMAP_DELETED;
		return memo->len;
	}
	if (memo)
		mmap3_record_path_memo_forget(memo);
	p = path_of(path, rec->path, &len);
	if (IS_ERR(p)) {
		rec->flags |= MMAP3_MMAP_PATH_TRUNCATED;
		return scnprintf(rec->path, NAME_MAX + 1, "%pd", path->dentry);
	}
	if (d_unlinked(path->dentry)) {
		rec->flags |= MMAP3_MMAP_DELETED;
		if (len >= sizeof(DELETED_SUFFIX) - 1 &&
		    !strcmp(p + len - (sizeof(DELETED_SUFFIX) - 1), DELETED_SUFFIX))
			len -= sizeof(DELETED_SUFFIX) - 1;
	}
	memmove(rec->path, p, len);
	if (memo) {
		memo->file = get_file(file);
		memo->len = len;
	}
	return len;
}

/*
 * Into @out (PATH_MAX bytes): @path, @len bytes, as @root names it, if it
 * lies beneath @root and that differs: its path from @root's, which
 * @root's own path (a scratch copy in @out) starts.  Else "".  Returns
 * the length.
 */
static size_t root_path(char *out, const struct path *root, const char *path, size_t len)
{
	char *r;
	size_t rlen;

	out[0] = '\0';
	if (!root->mnt)
		return 0;
	r = path_of(root, out, &rlen);
	if (IS_ERR(r))
		return 0;
	if (rlen == 1 || rlen >= len || memcmp(path, r, rlen) || path[rlen] != '/') {
		out[0] = '\0';
		return 0;
	}
	memmove(out, path + rlen, len - rlen + 1);
	return len - rlen;
}

void mmap3_record_mmap_fill(struct mmap3_record_mmap *rec, struct mmap3_record_path_memo *memo,
			    const struct mmap3_event *ev, const struct mmap3_build_id *bid,
			    const struct mmap3_inode_state *st, bool changed)
{
	struct inode *inode = file_inode(ev->file);
	struct mmap3_mmap_ns *ns;
	size_t len, size, at, rlen;

	memset(rec, 0, sizeof(*rec));
	rec->header.type = MMAP3_RECORD_MMAP;
	rec->header.time = 0;		/* the session's clock: the sink's */
	rec->cpu = ev->cpu;
	rec->prot = ev->prot;
	rec->flags = ev->flags | (changed ? MMAP3_MMAP_CHANGED : 0);
	rec->addr = ev->start;
	rec->len = ev->len;
	rec->pgoff = ev->pgoff;
	rec->dev_major = MAJOR(inode->i_sb->s_dev);
	rec->dev_minor = MINOR(inode->i_sb->s_dev);
	rec->ino = inode->i_ino;
	rec->generation = inode->i_generation;
	rec->mtime_sec = st->mtime.tv_sec;
	rec->mtime_nsec = st->mtime.tv_nsec;
	rec->build_id = *bid;

	len = record_path(rec, memo, ev->file);
	at = ALIGN(sizeof(*rec) + len + 1, MMAP3_RECORD_ALIGN);
	/* The NUL and padding, 1 to 8 bytes: one store, not a call to memset(). */
	memset(rec->path + len, 0, MMAP3_RECORD_ALIGN);

	/* Who mapped it: after the path, where older tools stop reading. */
	ns = (void *)rec + at;
	memset(ns, 0, sizeof(*ns));
	rlen = rec->flags & MMAP3_MMAP_PATH_TRUNCATED ? 0 :
	       root_path(ns->root_path, &ev->root, rec->path, len);
	size = ALIGN(sizeof(*ns) + rlen + 1, MMAP3_RECORD_ALIGN);
	memset(ns->root_path + rlen, 0, MMAP3_RECORD_ALIGN);
	ns->size = size;
	ns->mnt_ns = ev->mnt_ns;
	ns->cgroup = ev->cgroup;
	rec->flags |= MMAP3_MMAP_NS;
	rec->header.size = at + size;
}
