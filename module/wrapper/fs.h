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
 * What a mapped file is opened again by, without holding the mapper's
 * struct file (its leases, flocks and i_writecount are the user's: a
 * writable open held on would make exec of the file fail with ETXTBSY):
 * its path and the inode it maps.
 *
 * Before 6.8 a file mapped through overlayfs is the real (lower or
 * upper) file under the overlay's path, and opening that path again
 * opens whatever is there now: after a copy-up, the upper file, another
 * inode.  So the real inode is opened under that path, as overlayfs did
 * itself (open_with_fake_path(), until 6.5).  From 6.8 the mapped file's
 * own path is the real one.  On 6.5 to 6.7 (backing_file_open(), no
 * Debian kernel) such a file is not opened: -ESTALE.
 */
struct mmap3_file_id {
	struct path path;
	struct inode *inode;
};

static inline void mmap3_file_id_get(struct mmap3_file_id *id, struct file *file)
{
	id->path = file->f_path;
	path_get(&id->path);
	id->inode = file_inode(file);
	ihold(id->inode);
}

static inline void mmap3_file_id_put(struct mmap3_file_id *id)
{
	iput(id->inode);
	path_put(&id->path);
}

/*
 * A read-only open of the file of @id of the module's own, with @cred
 * (the caller also runs with it, for what the filesystem checks against
 * the current task), that raises no fsnotify event on reads (and, before
 * 6.14's fsnotify changes, none on the open either), does not touch the
 * access time and does not wait for a lease to break (O_NONBLOCK:
 * -EWOULDBLOCK).  Permission is the caller's to check (dentry_open() does
 * not).
 */
static inline struct file *mmap3_file_id_open(const struct mmap3_file_id *id,
					      const struct cred *cred)
{
	int flags = O_RDONLY | O_LARGEFILE | O_NOATIME | O_NONBLOCK;
	struct file *file;

#ifdef __FMODE_NONOTIFY
	flags |= __FMODE_NONOTIFY;
#endif
	if (d_inode(id->path.dentry) == id->inode)
		file = dentry_open(&id->path, flags, cred);
	else
#if MMAP3_KERNEL_BEFORE(6, 5)
		file = open_with_fake_path(&id->path, flags, id->inode, cred);
#else
		file = ERR_PTR(-ESTALE);
#endif
#ifndef __FMODE_NONOTIFY
	if (!IS_ERR(file))
		file_set_fsnotify_mode(file, FMODE_NONOTIFY);
#endif
	return file;
}

/*
 * May the current credentials do @mask (MAY_EXEC...) to the inode at
 * @path, as a lookup through it would ask?  The mount's idmapping is
 * passed since 5.12 (a user namespace), as an idmap since 6.3.
 */
static inline int mmap3_path_permission(const struct path *path, int mask)
{
#if MMAP3_KERNEL_BEFORE(5, 12)
	return inode_permission(d_inode(path->dentry), mask);
#elif MMAP3_KERNEL_BEFORE(6, 3)
	return inode_permission(mnt_user_ns(path->mnt), d_inode(path->dentry), mask);
#else
	return inode_permission(mnt_idmap(path->mnt), d_inode(path->dentry), mask);
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
