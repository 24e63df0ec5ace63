// SPDX-License-Identifier: GPL-2.0
/*
 * userspace/openfile.c - opening a file others may have planted, after
 * looking at what it is.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <unistd.h>

#include "openfile.h"

int open_checked(const char *path, mode_t type, struct stat *st)
{
	return open_checked_flags(path, type, O_RDONLY, st);
}

int open_checked_flags(const char *path, mode_t type, int flags, struct stat *st)
{
	char self[64];
	int o, fd, err;

	o = open(path, O_PATH | O_CLOEXEC);
	if (o < 0)
		return -1;
	if (fstat(o, st)) {
		err = errno;
		close(o);
		errno = err;
		return -1;
	}
	if ((st->st_mode & S_IFMT) != type) {
		close(o);
		return -2;
	}
	/* The inode looked at, not whatever the name names by now. */
	snprintf(self, sizeof(self), "/proc/self/fd/%d", o);
	fd = open(self, flags | O_CLOEXEC | O_NOCTTY | (type == S_IFREG ? O_NONBLOCK : 0));
	err = errno;
	close(o);
	errno = err;
	return fd;
}

const char *file_type_name(const struct stat *st)
{
	switch (st->st_mode & S_IFMT) {
	case S_IFREG:
		return "a regular file";
	case S_IFDIR:
		return "a directory";
	case S_IFCHR:
		return "a character device";
	case S_IFBLK:
		return "a block device";
	case S_IFIFO:
		return "a FIFO";
	case S_IFSOCK:
		return "a socket";
	default:
		return "a file of an unknown type";
	}
}
