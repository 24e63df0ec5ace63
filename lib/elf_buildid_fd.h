/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The ELF build-id parser's reader for user space: pread() on the file
 * descriptor that @ctx points to, and the one comparison of what it found
 * with a build-id the module reported.  The tool, the tests and the
 * benchmarks use it; the module reads with kernel_read().
 */
#ifndef MMAP3_ELF_BUILDID_FD_H
#define MMAP3_ELF_BUILDID_FD_H

#include <errno.h>
#include <linux/mmap3.h>
#include <string.h>
#include <unistd.h>

#include "elf_buildid.h"

static inline long elf_buildid_fd_read(void *ctx, void *buf, size_t len, __u64 off)
{
	ssize_t n = pread(*(int *)ctx, buf, len, (off_t)off);

	return n < 0 ? -errno : n;
}

/* Did the parser find the build-id @want, the whole of it? */
static inline int elf_buildid_is(const struct elf_buildid *found, const struct mmap3_build_id *want)
{
	return found->status == MMAP3_BUILDID_FOUND && found->size == want->size &&
	       !memcmp(found->id, want->data, found->size);
}

#endif /* MMAP3_ELF_BUILDID_FD_H */
