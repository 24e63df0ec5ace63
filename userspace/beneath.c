// SPDX-License-Identifier: GPL-2.0
/*
 * userspace/beneath.c - creating directories below a directory only.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/openat2.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "beneath.h"

#ifndef SYS_openat2
#define SYS_openat2 437
#endif

#define DIR_FLAGS	(O_RDONLY | O_DIRECTORY | O_CLOEXEC)

/* The kernel lacks openat2(): walk for the rest of the run. */
static int no_openat2;

static uid_t owner_uid = (uid_t)-1;
static gid_t owner_gid = (gid_t)-1;

void beneath_set_owner(uid_t uid, gid_t gid)
{
	owner_uid = uid;
	owner_gid = gid;
}

/* One component below @dirfd, which must be a directory and no link. */
static int open_one(int dirfd, const char *name, enum beneath_mode mode)
{
	if (mode != BENEATH_WALK && !no_openat2) {
		struct open_how how = {
			.flags = DIR_FLAGS,
			.resolve = RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS,
		};
		int fd = (int)syscall(SYS_openat2, dirfd, name, &how, sizeof(how));

		if (fd >= 0 || errno != ENOSYS || mode == BENEATH_OPENAT2)
			return fd;
		no_openat2 = 1;
	}
	/* O_NOFOLLOW: a symbolic link fails with ELOOP instead of being followed. */
	return openat(dirfd, name, DIR_FLAGS | O_NOFOLLOW);
}

static char *next_slash(char *s)
{
	return strchrnul(s, '/');
}

int beneath_mkdirs(int dirfd, const char *rel, enum beneath_mode mode, uint64_t *made)
{
	char *copy = strdup(rel), *name, *save = NULL;
	int cur = -1, next, err;

	/* "a//b" and "/a" have empty components, which strtok_r() would skip. */
	if (!*rel || rel[0] == '/' || strstr(rel, "//") || rel[strlen(rel) - 1] == '/') {
		free(copy);
		errno = EINVAL;
		return -1;
	}
	if (!copy)
		return -1;
	/* Every component is checked before anything is created. */
	for (name = copy; *name; name = *next_slash(name) ? next_slash(name) + 1 : next_slash(name)) {
		size_t len = (size_t)(next_slash(name) - name);

		if ((len == 1 && name[0] == '.') || (len == 2 && !strncmp(name, "..", 2)) ||
		    len > NAME_MAX) {
			free(copy);
			errno = EINVAL;
			return -1;
		}
	}
	cur = fcntl(dirfd, F_DUPFD_CLOEXEC, 0);
	for (name = strtok_r(copy, "/", &save); cur >= 0 && name; name = strtok_r(NULL, "/", &save)) {
		int new = !mkdirat(cur, name, 0700);

		if (!new && errno != EEXIST)
			goto fail;
		if (new && made)
			(*made)++;
		next = open_one(cur, name, mode);
		if (next < 0)
			goto fail;
		/* What was opened, not the name: nothing planted meanwhile is given away. */
		if (new && owner_uid != (uid_t)-1 && fchown(next, owner_uid, owner_gid)) {
			close(next);
			goto fail;
		}
		close(cur);
		cur = next;
	}
	free(copy);
	return cur;
fail:
	err = errno;
	if (cur >= 0)
		close(cur);
	free(copy);
	errno = err;
	return -1;
}
