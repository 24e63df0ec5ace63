/* SPDX-License-Identifier: GPL-2.0 */
/*
 * userspace/capture.h - mmap3 record --capture: store the exact bytes of
 * each newly seen build-id's file in perf's build-id cache layout.
 */
#ifndef MMAP3_CAPTURE_H
#define MMAP3_CAPTURE_H

#include <linux/mmap3.h>
#include <stdint.h>

struct capture_stats {
	uint64_t stored;	/* files written */
	uint64_t cached;	/* already in the directory */
	uint64_t changed;	/* the file no longer had the mapped build-id */
	uint64_t bytes;
};

/*
 * Store the file behind @m->capture (read through @fd) under @dir as
 * perf buildid-cache -a would:
 *	DIR/PATH/BUILD-ID/elf
 *	DIR/.build-id/XX/REST -> ../../PATH/BUILD-ID
 * and release the handle.  Returns 0, or -1 after printing one line
 * (e.g. disk full).
 */
int capture_store(int fd, const struct mmap3_record_mmap *m, const char *dir,
		  struct capture_stats *st);

/*
 * The same for a file read from @path, e.g. a module's .ko found by
 * userspace/kmod.c: stored only if its build-id is @bid.
 */
int capture_store_file(const char *path, const struct mmap3_build_id *bid, const char *dir,
		       struct capture_stats *st);

#endif /* MMAP3_CAPTURE_H */
