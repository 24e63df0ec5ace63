/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The kernel version the module is built against.  The wrappers in this
 * directory are the only code that tests it: the rest of the module reads
 * the same on every supported kernel (5.10 to 7.x).
 */
#ifndef MMAP3_WRAPPER_VERSION_H
#define MMAP3_WRAPPER_VERSION_H

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

#endif /* MMAP3_WRAPPER_VERSION_H */
