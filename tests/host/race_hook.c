// SPDX-License-Identifier: GPL-2.0
/*
 * Another user writing to merge's input between its two passes: linked
 * into mmap3-race, it takes the place of libc's openat().  When the tool
 * creates its output (O_TMPFILE, or O_CREAT: merge does so after pass 1,
 * before pass 2), it first writes to a file as
 *
 *	MMAP3_RACE="FILE:OFFSET:HEX"	the bytes HEX at OFFSET in FILE
 *	MMAP3_RACE_KEEP_MTIME=1		then sets FILE's mtime back, as its
 *					owner may (its ctime still moves)
 *
 * once, and says so on stderr.  Everything else is the tool as it is.
 */
#include <dlfcn.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

static void race(void)
{
	static int done;
	char spec[4096], *file, *off, *hex;
	unsigned char bytes[256];
	size_t n = 0;
	struct stat st;
	int fd;

	if (done || !getenv("MMAP3_RACE"))
		return;
	done = 1;
	snprintf(spec, sizeof(spec), "%s", getenv("MMAP3_RACE"));
	file = spec;
	off = strchr(file, ':');
	hex = off ? strchr(off + 1, ':') : NULL;
	if (!hex)
		return;
	*off++ = 0;
	*hex++ = 0;
	for (; hex[0] && hex[1] && n < sizeof(bytes); hex += 2) {
		unsigned int b;

		sscanf(hex, "%2x", &b);
		bytes[n++] = (unsigned char)b;
	}
	fd = open(file, O_WRONLY | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &st) || pwrite(fd, bytes, n, atoll(off)) != (ssize_t)n) {
		fprintf(stderr, "race_hook: cannot write %s\n", file);
		exit(99);
	}
	if (getenv("MMAP3_RACE_KEEP_MTIME")) {
		struct timespec t[2] = { st.st_atim, st.st_mtim };

		futimens(fd, t);
	}
	close(fd);
	fprintf(stderr, "race_hook: wrote %zu bytes at %s in %s\n", n, off, file);
}

int openat(int dirfd, const char *path, int flags, ...)
{
	mode_t mode = 0;
	va_list ap;

	va_start(ap, flags);
	if (flags & (O_CREAT | O_TMPFILE))
		mode = va_arg(ap, mode_t);
	va_end(ap);
	if (flags & (O_CREAT | O_TMPFILE))
		race();
	return (int)syscall(SYS_openat, dirfd, path, flags, mode);
}
