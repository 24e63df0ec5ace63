/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Kernel API differences between the supported kernels (5.10 to 7.x),
 * behind small wrappers so the rest of the module reads the same on every
 * kernel.  Nothing outside this file tests the kernel version.
 */
#ifndef MMAP3_COMPAT_H
#define MMAP3_COMPAT_H

#include <linux/fs.h>
#include <linux/iversion.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>

/*
 * Kbuild passes MMAP3_KERNEL_MAJOR_MINOR, major * 256 + minor of the
 * kernel built against (LINUX_VERSION_CODE is for in-tree code, which
 * checkpatch enforces).
 */
#ifndef MMAP3_KERNEL_MAJOR_MINOR
#error "MMAP3_KERNEL_MAJOR_MINOR is not set: build with Kbuild (make -C KDIR M=$PWD)"
#endif
#define MMAP3_KERNEL_BEFORE(major, minor) \
	(MMAP3_KERNEL_MAJOR_MINOR < ((major) * 256 + (minor)))

/*
 * Walking a process's VMAs, with its mmap_lock held: a linked list until
 * 6.1, the maple tree since.
 *
 *	for (vma = mmap3_vma_first(&it, mm); vma; vma = mmap3_vma_next(&it))
 */
#if MMAP3_KERNEL_BEFORE(6, 1)
struct mmap3_vma_iter {
	struct vm_area_struct *next;
};

static inline struct vm_area_struct *mmap3_vma_next(struct mmap3_vma_iter *it)
{
	struct vm_area_struct *vma = it->next;

	it->next = vma ? vma->vm_next : NULL;
	return vma;
}

static inline struct vm_area_struct *mmap3_vma_first(struct mmap3_vma_iter *it,
						     struct mm_struct *mm)
{
	it->next = mm->mmap;
	return mmap3_vma_next(it);
}
#else
struct mmap3_vma_iter {
	struct vma_iterator vmi;
};

static inline struct vm_area_struct *mmap3_vma_next(struct mmap3_vma_iter *it)
{
	return vma_next(&it->vmi);
}

static inline struct vm_area_struct *mmap3_vma_first(struct mmap3_vma_iter *it,
						     struct mm_struct *mm)
{
	VMA_ITERATOR(vmi, mm, 0);

	it->vmi = vmi;
	return mmap3_vma_next(it);
}
#endif

/* A module's core text, and its read-only data (where its notes are). */
static inline void mmap3_module_text(const struct module *mod, unsigned long *base,
				     unsigned long *size)
{
#if MMAP3_KERNEL_BEFORE(6, 4)
	*base = (unsigned long)mod->core_layout.base;
	*size = mod->core_layout.text_size;
#else
	*base = (unsigned long)mod->mem[MOD_TEXT].base;
	*size = mod->mem[MOD_TEXT].size;
#endif
}

static inline void mmap3_module_rodata(const struct module *mod, unsigned long *base,
				       unsigned long *size)
{
#if MMAP3_KERNEL_BEFORE(6, 4)
	*base = (unsigned long)mod->core_layout.base + mod->core_layout.text_size;
	*size = mod->core_layout.ro_size - mod->core_layout.text_size;
#else
	*base = (unsigned long)mod->mem[MOD_RODATA].base;
	*size = mod->mem[MOD_RODATA].size;
#endif
}

/*
 * Is @p in module or vmalloc space, i.e. not in the kernel image?  Tells
 * the head of the (unexported) list of modules from a real module when
 * walking THIS_MODULE->list.
 */
static inline bool mmap3_is_module_memory(const void *p)
{
#if MMAP3_KERNEL_BEFORE(6, 12)
#ifdef MODULES_VADDR
	unsigned long addr = (unsigned long)p;

	if (addr >= MODULES_VADDR && addr < MODULES_END)
		return true;
#endif
	return is_vmalloc_addr(p);
#else
	return is_vmalloc_or_module_addr(p);
#endif
}

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

/* The path a mapped file was opened by: overlayfs maps a backing file
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
 * kzalloc_obj() (7.0, and backported to Debian's 6.12) sizes the
 * allocation from the object; older kernels get this GFP_KERNEL-only
 * stand-in.
 */
#ifndef kzalloc_obj
#define kzalloc_obj(P)	kzalloc(sizeof(P), GFP_KERNEL)
#endif

#endif /* MMAP3_COMPAT_H */
