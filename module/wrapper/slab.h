/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Allocation helpers that not every supported kernel has.
 */
#ifndef MMAP3_WRAPPER_SLAB_H
#define MMAP3_WRAPPER_SLAB_H

#include <linux/slab.h>

/*
 * kzalloc_obj() and kmalloc_obj() (7.0, and in Debian's 6.12) size the
 * allocation from the object, with GFP_KERNEL unless flags follow; older
 * kernels get stand-ins that do the same.
 */
/* The flags given, else GFP_KERNEL (@empty is the nothing before them). */
#define __mmap3_gfp(empty, gfp, ...)	(empty gfp)
#define mmap3_default_gfp(...)		__mmap3_gfp(, ##__VA_ARGS__, GFP_KERNEL)
#ifndef kzalloc_obj
#define kzalloc_obj(P, ...)	kzalloc(sizeof(P), mmap3_default_gfp(__VA_ARGS__))
#endif
#ifndef kmalloc_obj
#define kmalloc_obj(P, ...)	kmalloc(sizeof(P), mmap3_default_gfp(__VA_ARGS__))
#endif

#endif /* MMAP3_WRAPPER_SLAB_H */
