/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Filesystem APIs that differ between the supported kernels.
 */
#ifndef MMAP3_WRAPPER_FS_H
#define MMAP3_WRAPPER_FS_H

#include <linux/fs.h>
#include <linux/fs_struct.h>
#include <linux/path.h>
#include <linux/sched/task.h>

#include "version.h"

/* Inode timestamps: fields until 6.6 (ctime) and 6.7 (mtime), accessors since. */
static inline struct timespec64 mmap3_inode_ctime(const struct inode *inode)
{
#if MMAP3_KERNEL_BEFORE(6, 6)
	return inode->i_ctime;
#else
	return inode_get_ctime(inode);
#endif
}

static inline struct timespec64 mmap3_inode_mtime(const struct inode *inode)
{
#if MMAP3_KERNEL_BEFORE(6, 7)
	return inode->i_mtime;
#else
	return inode_get_mtime(inode);
#endif
}

/*
 * The path a mapped file was opened by: overlayfs maps a backing file
 * whose own path is the lower layer's (file_user_path() since 6.8).
 */
static inline const struct path *mmap3_file_user_path(struct file *file)
{
#if MMAP3_KERNEL_BEFORE(6, 8)
	return &file->f_path;
#else
	return file_user_path(file);
#endif
}

/*
 * A read-only open of @path of the module's own, with @cred, that raises
 * no fsnotify event on reads (and, before 6.14's fsnotify changes, none
 * on the open either) and does not touch the access time.  The user's
 * struct file is never read: its O_DIRECT and its watchers stay its own.
 * Permission is the caller's to check (dentry_open() does not).
 */
static inline struct file *mmap3_open_private(const struct path *path,
					      const struct cred *cred)
{
	int flags = O_RDONLY | O_LARGEFILE | O_NOATIME;
#ifdef __FMODE_NONOTIFY
	return dentry_open(path, flags | __FMODE_NONOTIFY, cred);
#else
	struct file *file = dentry_open(path, flags, cred);

	if (!IS_ERR(file))
		file_set_fsnotify_mode(file, FMODE_NONOTIFY);
	return file;
#endif
}

/*
 * Open @name from the initial task's root, the way the kernel opens
 * firmware: what a chroot or a container mounted over it is not seen.
 */
static inline struct file *mmap3_open_initns(const char *name)
{
	struct path root;
	struct file *file;

	task_lock(&init_task);
	get_fs_root(init_task.fs, &root);
	task_unlock(&init_task);
#if MMAP3_KERNEL_BEFORE(5, 12)
	file = file_open_root(root.dentry, root.mnt, name, O_RDONLY, 0);
#else
	file = file_open_root(&root, name, O_RDONLY, 0);
#endif
	path_put(&root);
	return file;
}

#endif /* MMAP3_WRAPPER_FS_H */
