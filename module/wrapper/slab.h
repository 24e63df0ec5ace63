/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Allocation helpers that not every supported kernel has.
 */
#ifndef MMAP3_WRAPPER_SLAB_H
#define MMAP3_WRAPPER_SLAB_H

#include <linux/slab.h>

/*
 * kzalloc_obj() and kmalloc_obj() (7.0, and in Debian's 6.12) size the
 * allocation from the object; older kernels get GFP_KERNEL-only
 * stand-ins.
 */
#ifndef kzalloc_obj
#define kzalloc_obj(P)	kzalloc(sizeof(P), GFP_KERNEL)
#endif
#ifndef kmalloc_obj
#define kmalloc_obj(P)	kmalloc(sizeof(P), GFP_KERNEL)
#endif

#endif /* MMAP3_WRAPPER_SLAB_H */
