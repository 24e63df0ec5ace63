/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Module layout APIs that differ between the supported kernels.
 */
#ifndef MMAP3_WRAPPER_MODULE_H
#define MMAP3_WRAPPER_MODULE_H

#include <linux/mm.h>
#include <linux/module.h>
#include <linux/vmalloc.h>

#include "version.h"

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

/* Module or vmalloc space: is_vmalloc_or_module_addr() is exported from 6.12. */
static inline bool mmap3_in_module_space(const void *p)
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

/*
 * Is @p in memory a module was loaded into, not in the kernel image?  Tells
 * the head of the (unexported) list of modules from a real module when
 * walking THIS_MODULE->list.  The address alone does not tell on arm64,
 * whose kernel image lies inside the vmalloc range (and, with KASLR, its
 * modules within 2 GiB of it): the image's pages are memblock-reserved,
 * PageReserved() for good, while a module's memory comes from the page
 * allocator.
 */
static inline bool mmap3_is_module_memory(const void *p)
{
	struct page *page;

	if (!mmap3_in_module_space(p))
		return false;
	page = vmalloc_to_page(p);
	return page && !PageReserved(page);
}

#endif /* MMAP3_WRAPPER_MODULE_H */
