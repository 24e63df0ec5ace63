// SPDX-License-Identifier: GPL-2.0
/*
 * From a mapped file to a record: its identity, path and build-id.
 * Process context (the worker, the state dump).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/dcache.h>
#include <linux/fs.h>
#include <linux/kdev_t.h>
#include <linux/limits.h>
#include <linux/path.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "compat.h"
#include "mmap3.h"

#define DELETED_SUFFIX " (deleted)"

/* Room for the longest path. */
struct mmap3_record_mmap *mmap3_record_mmap_alloc(void)
{
	return kmalloc(sizeof(struct mmap3_record_mmap) + PATH_MAX + MMAP3_RECORD_ALIGN,
		       GFP_KERNEL);
}

static void mmap3_file_info(struct file *file, const struct mmap3_inode_state *at_mmap,
			    struct mmap3_file_info *fi, bool *changed)
{
	struct inode *inode = file_inode(file);

	fi->dev_major = MAJOR(inode->i_sb->s_dev);
	fi->dev_minor = MINOR(inode->i_sb->s_dev);
	fi->ino = inode->i_ino;
	fi->generation = inode->i_generation;
	fi->mtime = mmap3_inode_mtime(inode);
	mmap3_cache_build_id(file, at_mmap, &fi->build_id, changed);
}

/*
 * Fill everything but the pids and the time, which depend on the session.
 * Returns 0, or -errno if the path cannot be had (then nothing is sent).
 */
int mmap3_record_mmap_fill(struct mmap3_record_mmap *rec, const struct mmap3_event *ev)
{
	struct file *file = ev->file;
	struct mmap3_file_info fi;
	size_t len, size;
	bool changed;
	char *path;

	/* The dump has no mmap time: the file as it is now. */
	mmap3_file_info(file, ev->flags & MMAP3_MMAP_DUMP ? NULL : &ev->state, &fi, &changed);
	memset(rec, 0, sizeof(*rec));
	rec->header.type = MMAP3_RECORD_MMAP;
	rec->cpu = ev->cpu;
	rec->prot = ev->prot;
	rec->flags = ev->flags | (changed ? MMAP3_MMAP_CHANGED : 0);
	rec->addr = ev->start;
	rec->len = ev->len;
	rec->pgoff = ev->pgoff;
	rec->dev_major = fi.dev_major;
	rec->dev_minor = fi.dev_minor;
	rec->ino = fi.ino;
	rec->generation = fi.generation;
	rec->mtime_sec = fi.mtime.tv_sec;
	rec->mtime_nsec = fi.mtime.tv_nsec;
	rec->build_id = fi.build_id;

	/* The path the user opened (not an overlayfs backing file's). */
	path = d_path(mmap3_file_user_path(file), rec->path, PATH_MAX);
	if (IS_ERR(path))
		return PTR_ERR(path);
	len = strlen(path);
	if (d_unlinked(mmap3_file_user_path(file)->dentry)) {
		rec->flags |= MMAP3_MMAP_DELETED;
		if (len >= sizeof(DELETED_SUFFIX) - 1 &&
		    !strcmp(path + len - (sizeof(DELETED_SUFFIX) - 1), DELETED_SUFFIX))
			len -= sizeof(DELETED_SUFFIX) - 1;
	}
	memmove(rec->path, path, len);
	size = ALIGN(sizeof(*rec) + len + 1, MMAP3_RECORD_ALIGN);
	memset(rec->path + len, 0, size - sizeof(*rec) - len);
	rec->header.size = size;
	return 0;
}
