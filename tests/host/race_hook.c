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
 *	MMAP3_RACE_SHARED=1		instead, through a MAP_SHARED mapping
 *					of FILE made and dirtied before the
 *					tool opened anything: no time moves
 *
 * once, and says so on stderr.  Everything else is the tool as it is.
 */
#include <dlfcn.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

/* MMAP3_RACE_SHARED: FILE mapped shared, its pages dirtied (times move now). */
static unsigned char *shared;
static size_t shared_len;

static void share(void)
{
	char spec[4096], *colon;
	struct stat st;
	size_t i;
	int fd;

	if (shared || !getenv("MMAP3_RACE_SHARED") || !getenv("MMAP3_RACE"))
		return;
	snprintf(spec, sizeof(spec), "%s", getenv("MMAP3_RACE"));
	colon = strchr(spec, ':');
	if (colon)
		*colon = 0;
	fd = open(spec, O_RDWR | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &st) || st.st_size == 0) {
		fprintf(stderr, "race_hook: cannot open %s\n", spec);
		exit(99);
	}
	shared_len = (size_t)st.st_size;
	shared = mmap(NULL, shared_len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	close(fd);
	if (shared == MAP_FAILED) {
		fprintf(stderr, "race_hook: cannot map %s\n", spec);
		exit(99);
	}
	/* Each page written once: later writes fault no more, and move no time. */
	for (i = 0; i < shared_len; i += 4096)
		shared[i] = *(volatile unsigned char *)&shared[i];
}

__attribute__((constructor)) static void share_early(void)
{
	share();
}

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
	if (shared) {
		if ((size_t)atoll(off) + n > shared_len) {
			fprintf(stderr, "race_hook: %s is %zu bytes\n", file, shared_len);
			exit(99);
		}
		memcpy(shared + atoll(off), bytes, n);
		fprintf(stderr, "race_hook: wrote %zu bytes at %s in %s through a shared mapping\n",
			n, off, file);
		return;
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
