// SPDX-License-Identifier: GPL-2.0
/*
 * userspace/kmod.c - find loaded modules' .ko files.
 *
 * The kernel does not remember which file a module came from (insmod
 * hands it a buffer or a descriptor), so the file is found the way
 * modprobe would have found it, by name under /lib/modules/RELEASE and
 * the directories given with --module-dir, and accepted only if its
 * build-id is the loaded module's.  Compressed modules (.ko.xz, .ko.zst,
 * .ko.gz) are not read: their build-id cannot be checked without
 * decompressing them, and perf finds those itself through
 * /lib/modules while they are installed.
 */
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "elf_buildid.h"
#include "elf_buildid_fd.h"
#include "kmod.h"
#include "openfile.h"

int kmod_add_dir(struct kmod_index *ix, const char *dir)
{
	char *abs;

	if (ix->nr_dirs == KMOD_MAX_DIRS) {
		errno = E2BIG;
		return -1;
	}
	/* perf takes only absolute paths for modules' files. */
	abs = realpath(dir, NULL);
	if (!abs)
		return -1;
	ix->dirs[ix->nr_dirs++] = abs;
	return 0;
}

/* Module names treat '-' and '_' alike; the kernel shows '_'. */
static void normalize(char *name)
{
	for (; *name; name++)
		if (*name == '-')
			*name = '_';
}

/* nftw() has no context argument. */
static struct kmod_index *walking;

static int add_file(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
	const char *base = path + ftw->base;
	size_t len = strlen(base);
	struct kmod_file *f;

	/* A FIFO or device named *.ko under --module-dir is not opened. */
	if (type != FTW_F || !S_ISREG(st->st_mode) || len <= 3 || strcmp(base + len - 3, ".ko"))
		return 0;
	if (walking->nr == walking->cap) {
		size_t cap = walking->cap ? 2 * walking->cap : 256;
		struct kmod_file *n = realloc(walking->files, cap * sizeof(*n));

		if (!n)
			return -1;
		walking->files = n;
		walking->cap = cap;
	}
	f = &walking->files[walking->nr];
	f->name = strndup(base, len - 3);
	f->path = strdup(path);
	if (!f->name || !f->path) {
		free(f->name);
		free(f->path);
		return -1;
	}
	normalize(f->name);
	walking->nr++;
	return 0;
}

static void build(struct kmod_index *ix)
{
	unsigned int i;

	ix->built = 1;
	walking = ix;
	/* A directory that does not exist or cannot be read adds nothing. */
	for (i = 0; i < ix->nr_dirs; i++)
		nftw(ix->dirs[i], add_file, 16, FTW_PHYS);
	walking = NULL;
}

static int has_build_id(const char *path, const struct mmap3_build_id *bid)
{
	struct elf_buildid found;
	struct stat st;
	int fd = open_checked(path, S_IFREG, &st);

	if (fd < 0)
		return 0;
	elf_buildid_parse(elf_buildid_fd_read, &fd, (__u64)st.st_size, &found);
	close(fd);
	return elf_buildid_is(&found, bid);
}

const char *kmod_find(struct kmod_index *ix, const char *name, const struct mmap3_build_id *bid)
{
	char want[MMAP3_MODULE_NAME_LEN + 1];
	size_t i;

	if (bid->status != MMAP3_BUILDID_FOUND)
		return NULL;
	if (!ix->built)
		build(ix);
	snprintf(want, sizeof(want), "%.*s", MMAP3_MODULE_NAME_LEN, name);
	normalize(want);
	for (i = 0; i < ix->nr; i++)
		if (!strcmp(ix->files[i].name, want) && has_build_id(ix->files[i].path, bid))
			return ix->files[i].path;
	return NULL;
}

void kmod_free(struct kmod_index *ix)
{
	size_t i;

	for (i = 0; i < ix->nr; i++) {
		free(ix->files[i].name);
		free(ix->files[i].path);
	}
	free(ix->files);
	ix->files = NULL;
	ix->nr = ix->cap = 0;
	ix->built = 0;
	for (i = 0; i < ix->nr_dirs; i++)
		free(ix->dirs[i]);
	ix->nr_dirs = 0;
}
