// SPDX-License-Identifier: GPL-2.0
/*
 * From a mapped file to a record: its identity, path and build-id.
 * Process context (the worker, the slow readers, the state dump).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/dcache.h>
#include <linux/file.h>
#include <linux/fs.h>
#include <linux/limits.h>
#include <linux/path.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "record.h"
#include "wrapper/fs.h"

#define DELETED_SUFFIX " (deleted)"

/* The path, then the root path: each up to PATH_MAX bytes with its NUL. */
#define SCRATCH_SIZE	(2 * PATH_MAX)

char *mmap3_record_scratch_alloc(void)
{
	return kmalloc(SCRATCH_SIZE, GFP_KERNEL | __GFP_NOWARN);
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
 * worker's root, the initial one; without " (deleted)"; into @buf
 * (PATH_MAX bytes), NUL-terminated.  A path longer than PATH_MAX leaves
 * the file's own name, flagged in *@flags.  Returns its length.
 */
static size_t record_path(char *buf, u32 *flags, struct mmap3_record_path_memo *memo,
			  struct file *file)
{
	const struct path *path = mmap3_file_user_path(file);
	size_t len;
	char *p;

	if (memo && memo->file && path_equal(path, mmap3_file_user_path(memo->file))) {
		/* Unlinked since the path was taken: the same path, so flagged. */
		if (d_unlinked(path->dentry))
			*flags |= MMAP3_MMAP_DELETED;
		return memo->len;
	}
	if (memo)
		mmap3_record_path_memo_forget(memo);
	p = path_of(path, buf, &len);
	if (IS_ERR(p)) {
		*flags |= MMAP3_MMAP_PATH_TRUNCATED;
		return scnprintf(buf, NAME_MAX + 1, "%pd", path->dentry);
	}
	if (d_unlinked(path->dentry)) {
		*flags |= MMAP3_MMAP_DELETED;
		if (len >= sizeof(DELETED_SUFFIX) - 1 &&
		    !strcmp(p + len - (sizeof(DELETED_SUFFIX) - 1), DELETED_SUFFIX))
			len -= sizeof(DELETED_SUFFIX) - 1;
	}
	memmove(buf, p, len);
	buf[len] = '\0';
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

void mmap3_record_mmap_find(struct mmap3_record_mmap_src *src, char *scratch,
			    struct mmap3_record_path_memo *memo, const struct mmap3_event *ev,
			    const struct mmap3_build_id *bid, const struct mmap3_inode_state *st,
			    bool changed)
{
	char *root = scratch + PATH_MAX;
	u32 flags = ev->flags | MMAP3_MMAP_NS | (changed ? MMAP3_MMAP_CHANGED : 0);
	size_t len, rlen;

	len = record_path(scratch, &flags, memo, ev->file);
	rlen = flags & MMAP3_MMAP_PATH_TRUNCATED ? 0 : root_path(root, &ev->root, scratch, len);
	*src = (struct mmap3_record_mmap_src){
		.ev = ev,
		.bid = bid,
		.st = st,
		.path = scratch,
		.root_path = root,
		.path_len = len,
		.root_len = rlen,
		.flags = flags,
		.size = ALIGN(sizeof(struct mmap3_record_mmap) + len + 1, MMAP3_RECORD_ALIGN) +
			ALIGN(sizeof(struct mmap3_mmap_ns) + rlen + 1, MMAP3_RECORD_ALIGN),
	};
}
