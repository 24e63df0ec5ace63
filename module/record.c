// SPDX-License-Identifier: GPL-2.0
/*
 * From a mapped file to a record: its identity, path and build-id.
 * Process context (the worker, the slow readers, the state dump).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/dcache.h>
#include <linux/fs.h>
#include <linux/kdev_t.h>
#include <linux/limits.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "record.h"
#include "wrapper/fs.h"

#define DELETED_SUFFIX " (deleted)"

struct mmap3_record_mmap *mmap3_record_mmap_alloc(void)
{
	return kmalloc(sizeof(struct mmap3_record_mmap) + PATH_MAX + MMAP3_RECORD_ALIGN,
		       GFP_KERNEL | __GFP_NOWARN);
}

/*
 * The path the user opened (not an overlayfs backing file's), from the
 * worker's root, the initial one; without " (deleted)".  A path longer
 * than PATH_MAX leaves the file's own name, flagged.  Returns its length.
 */
static size_t record_path(struct mmap3_record_mmap *rec, struct file *file)
{
	const struct path *path = mmap3_file_user_path(file);
	char *p = d_path(path, rec->path, PATH_MAX);
	size_t len;

	if (IS_ERR(p)) {
		rec->flags |= MMAP3_MMAP_PATH_TRUNCATED;
		return scnprintf(rec->path, NAME_MAX + 1, "%pd", path->dentry);
	}
	len = strlen(p);
	if (d_unlinked(path->dentry)) {
		rec->flags |= MMAP3_MMAP_DELETED;
		if (len >= sizeof(DELETED_SUFFIX) - 1 &&
		    !strcmp(p + len - (sizeof(DELETED_SUFFIX) - 1), DELETED_SUFFIX))
			len -= sizeof(DELETED_SUFFIX) - 1;
	}
	memmove(rec->path, p, len);
	return len;
}

void mmap3_record_mmap_fill(struct mmap3_record_mmap *rec, const struct mmap3_event *ev,
			    const struct mmap3_build_id *bid,
			    const struct mmap3_inode_state *st, bool changed)
{
	struct inode *inode = file_inode(ev->file);
	size_t len, size;

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

	len = record_path(rec, ev->file);
	size = ALIGN(sizeof(*rec) + len + 1, MMAP3_RECORD_ALIGN);
	memset(rec->path + len, 0, size - sizeof(*rec) - len);
	rec->header.size = size;
}
