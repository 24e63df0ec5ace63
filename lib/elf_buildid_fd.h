/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The ELF build-id parser's reader for user space: pread() on the file
 * descriptor that @ctx points to.  The tool, the tests and the benchmarks
 * use it; the module reads with kernel_read().
 */
#ifndef MMAP3_ELF_BUILDID_FD_H
#define MMAP3_ELF_BUILDID_FD_H

#include <errno.h>
#include <unistd.h>

#include "elf_buildid.h"

static inline long elf_buildid_fd_read(void *ctx, void *buf, size_t len, __u64 off)
{
	ssize_t n = pread(*(int *)ctx, buf, len, (off_t)off);

	return n < 0 ? -errno : n;
}

#endif /* MMAP3_ELF_BUILDID_FD_H */
