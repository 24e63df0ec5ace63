/* SPDX-License-Identifier: GPL-2.0 */
/*
 * userspace/kmod.h - the .ko file of a loaded module, found by name and
 * verified by build-id, so that perf reads the module's symbols from it
 * and mmap3 record --capture can keep it.
 */
#ifndef MMAP3_KMOD_H
#define MMAP3_KMOD_H

#include <linux/mmap3.h>
#include <stddef.h>

#define KMOD_MAX_DIRS	8

struct kmod_file {
	char *name;		/* file name without .ko, '-' as '_' */
	char *path;
};

struct kmod_index {
	char *dirs[KMOD_MAX_DIRS];	/* absolute, searched in this order */
	unsigned int nr_dirs;
	int built;
	struct kmod_file *files;
	size_t nr, cap;
};

/*
 * Add a directory to search (before the first lookup); -1 and errno if
 * there are too many or it cannot be resolved to an absolute path.
 */
int kmod_add_dir(struct kmod_index *ix, const char *dir);

/*
 * The path of the uncompressed .ko under the index's directories whose
 * module name is @name and whose build-id is @bid, or NULL.  The first
 * call walks the directories.
 */
const char *kmod_find(struct kmod_index *ix, const char *name, const struct mmap3_build_id *bid);

void kmod_free(struct kmod_index *ix);

#endif /* MMAP3_KMOD_H */
