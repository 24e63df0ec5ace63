/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Memory management APIs that differ between the supported kernels.
 */
#ifndef MMAP3_WRAPPER_MM_H
#define MMAP3_WRAPPER_MM_H

#include <linux/highmem.h>
#include <linux/magic.h>
#include <linux/uio.h>
#include <linux/mm.h>
#include <linux/pagemap.h>
#include <linux/vmalloc.h>

#include "version.h"

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

/*
 * Copy @len bytes at @pos of @mapping's page cache to @dst, without I/O:
 * only pages present and up to date, and no filesystem callback.  Returns
 * @len, or -EAGAIN if a page is missing (then the file must be read).
 * pagecache_get_page() with no FGP flag is a lookup, exported from 5.10
 * to 7.x (folio lookups are not exported on every kernel).
 */
static inline long mmap3_page_cache_copy(struct address_space *mapping, void *dst,
					 size_t len, loff_t pos)
{
	size_t done = 0;

#if MMAP3_KERNEL_BEFORE(6, 7)
	/*
	 * hugetlbfs indexed its page cache by huge page until 6.7 ("mm/
	 * filemap: remove hugetlb special casing in filemap.c"): a lookup
	 * at a small page's index finds another huge page's bytes.  The
	 * file is read instead, by hugetlbfs_read_iter(), which knows.
	 */
	if (mapping->host->i_sb->s_magic == HUGETLBFS_MAGIC)
		return -EAGAIN;
#endif

	while (done < len) {
		size_t off = offset_in_page(pos + done);
		size_t n = min_t(size_t, len - done, PAGE_SIZE - off);
		struct kvec kv = { .iov_base = dst + done, .iov_len = n };
		struct iov_iter to;
		struct page *page;
		size_t copied;

		page = pagecache_get_page(mapping, (pos + done) >> PAGE_SHIFT, 0, 0);
		if (!page)
			return -EAGAIN;
		if (!PageUptodate(page)) {
			put_page(page);
			return -EAGAIN;
		}
		/* Maps the page as the kernel needs (highmem, or not). */
		iov_iter_kvec(&to, READ, &kv, 1, n);
		copied = copy_page_to_iter(page, off, n, &to);
		put_page(page);
		if (copied != n)
			return -EAGAIN;
		done += n;
	}
	return len;
}

/*
 * A zeroed buffer of @size bytes charged to the caller's memory cgroup;
 * failure is the caller's to report (ENOMEM), not a kernel warning, and
 * never the OOM killer's to prevent (the size is a user's choice).
 */
static inline void *mmap3_vzalloc_account(unsigned long size)
{
	return __vmalloc(size, GFP_KERNEL_ACCOUNT | __GFP_ZERO | __GFP_NOWARN |
			 __GFP_RETRY_MAYFAIL);
}

/* A VMA's flags in .mmap: written directly until 6.3, by helpers since. */
#if MMAP3_KERNEL_BEFORE(6, 3)
static inline void mmap3_vm_flags_set(struct vm_area_struct *vma, unsigned long flags)
{
	vma->vm_flags |= flags;
}

static inline void mmap3_vm_flags_clear(struct vm_area_struct *vma, unsigned long flags)
{
	vma->vm_flags &= ~flags;
}
#else
static inline void mmap3_vm_flags_set(struct vm_area_struct *vma, unsigned long flags)
{
	vm_flags_set(vma, flags);
}

static inline void mmap3_vm_flags_clear(struct vm_area_struct *vma, unsigned long flags)
{
	vm_flags_clear(vma, flags);
}
#endif

#endif /* MMAP3_WRAPPER_MM_H */
