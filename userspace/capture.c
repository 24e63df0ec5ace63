// SPDX-License-Identifier: GPL-2.0
/*
 * userspace/capture.c - store captured files in perf's build-id cache
 * layout, beneath the capture directory only, verifying each stored
 * file's build-id.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "capture.h"
#include "device.h"
#include "elf_buildid.h"
#include "elf_buildid_fd.h"
#include "outfile.h"

#define MEMFD_PREFIX	"/memfd:"
/* A component cut to fit NAME_MAX keeps this much, then "~" and a hash. */
#define CUT_AT		200

/* The parser's window: most ids in one read. */
static unsigned char win[65536];

/* Append @c to @out as itself or %XX; 0, or -1 when full. */
static int put(char *out, size_t len, size_t *n, unsigned char c, int escape)
{
	if (escape) {
		if (*n + 3 >= len)
			return -1;
		snprintf(out + *n, 4, "%%%02X", c);
		*n += 3;
		return 0;
	}
	if (*n + 1 >= len)
		return -1;
	out[(*n)++] = (char)c;
	out[*n] = 0;
	return 0;
}

static int escaped(unsigned char c, int dots, int slash_too)
{
	return dots || c < 0x20 || c == 0x7f || c == '%' || (slash_too && c == '/');
}

/*
 * One component of @len bytes at @s, escaped, appended to @out; one that
 * would pass NAME_MAX is cut, with a hash of all of it to tell it apart.
 */
static int put_component(char *out, size_t size, size_t *n, const char *s, size_t len,
			 int slash_too)
{
	int dots = (len == 1 && s[0] == '.') || (len == 2 && s[0] == '.' && s[1] == '.');
	size_t i, full = 0, keep;
	uint64_t h = 0xcbf29ce484222325ULL;

	for (i = 0; i < len; i++) {
		full += escaped((unsigned char)s[i], dots, slash_too) ? 3 : 1;
		h = (h ^ (unsigned char)s[i]) * 0x100000001b3ULL;
	}
	keep = full > NAME_MAX ? CUT_AT : full;
	for (i = 0, full = 0; i < len; i++) {
		unsigned char c = (unsigned char)s[i];
		int e = escaped(c, dots, slash_too);

		if (full + (e ? 3 : 1) > keep)
			break;
		if (put(out, size, n, c, e))
			return -1;
		full += e ? 3 : 1;
	}
	if (i < len) {
		if (*n + 18 >= size)
			return -1;
		snprintf(out + *n, 18, "~%016llx", (unsigned long long)h);
		*n += 17;
	}
	return 0;
}

int capture_relpath(const char *path, char *out, size_t len)
{
	const char *p = path, *end;
	size_t n = 0;

	if (!len)
		return -1;
	out[0] = 0;
	/* memfd_create() takes any name, "/" and ".." too: keep it one component. */
	if (!strncmp(path, MEMFD_PREFIX, strlen(MEMFD_PREFIX)))
		return put_component(out, len, &n, path + 1, strlen(path + 1), 1);
	while (*p) {
		end = strchrnul(p, '/');
		if (end > p && !(end - p == 1 && p[0] == '.')) {
			if ((n && put(out, len, &n, '/', 0)) ||
			    put_component(out, len, &n, p, (size_t)(end - p), 0))
				return -1;
		}
		p = *end ? end + 1 : end;
	}
	if (!n)
		return put_component(out, len, &n, "%", 1, 0);	/* "/" or "": "%25" */
	return 0;
}

/*
 * DIR is where root writes copies of other users' files: no one but the
 * user running mmap3 may choose what is in it or where it is.
 */
static int check_dir(const struct capture *c, const char *name)
{
	struct stat st;
	uid_t euid = geteuid();

	if (fstat(c->dirfd, &st)) {
		fprintf(stderr, "mmap3: %s: %s\n", c->dir, strerror(errno));
		return -1;
	}
	if (st.st_uid != euid) {
		fprintf(stderr, "mmap3: %s: owned by uid %u, expected the user running mmap3 "
			"(uid %u): its owner could plant names in the capture directory; give "
			"a directory of your own\n", name, (unsigned int)st.st_uid,
			(unsigned int)euid);
		return -1;
	}
	if (st.st_mode & (S_IWGRP | S_IWOTH)) {
		fprintf(stderr, "mmap3: %s: mode %04o, expected writable by its owner alone: "
			"others could plant names in the capture directory; chmod go-w it or "
			"give another\n", name, (unsigned int)(st.st_mode & 07777));
		return -1;
	}
	return 0;
}

int capture_open(struct capture *c, const char *dir)
{
	char *copy = strdup(dir), *p;
	size_t n;

	memset(c, 0, sizeof(*c));
	c->dir = dir;
	c->dirfd = -1;
	if (!copy || !*dir) {
		fprintf(stderr, "mmap3: '%s': %s\n", dir, copy ? "not a directory name" :
			"out of memory");
		free(copy);
		return -1;
	}
	/* "link/" would resolve the link: DIR itself is what is checked. */
	for (n = strlen(copy); n > 1 && copy[n - 1] == '/'; n--)
		copy[n - 1] = 0;
	/* DIR itself is the user's: mkdir -p it as given. */
	for (p = copy + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = 0;
		if (mkdir(copy, 0755) && errno != EEXIST)
			goto fail;
		*p = '/';
	}
	if (mkdir(copy, 0700) && errno != EEXIST)
		goto fail;
	c->dirfd = open(copy, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (c->dirfd < 0) {
		struct stat st;

		if (!lstat(copy, &st) && S_ISLNK(st.st_mode))
			fprintf(stderr, "mmap3: %s: a symbolic link, expected the capture "
				"directory itself: whoever can change the link would choose where "
				"files are written\n", dir);
		else
			fprintf(stderr, "mmap3: %s: %s\n", dir, strerror(errno));
		free(copy);
		return -1;
	}
	free(copy);
	if (check_dir(c, dir)) {
		capture_close(c);
		return -1;
	}
	return 0;
fail:
	fprintf(stderr, "mmap3: cannot create %s: %s\n", copy, strerror(errno));
	free(copy);
	return -1;
}

void capture_close(struct capture *c)
{
	if (c->dirfd >= 0)
		close(c->dirfd);
	c->dirfd = -1;
}

/* Where the stored file is read from: a capture handle or a file. */
struct source {
	int fd;			/* the device, or the file */
	uint32_t handle;	/* 0: read the file @fd with pread() */
	const char *path;	/* for messages */
};

static long source_read(const struct source *src, void *buf, size_t len, uint64_t off)
{
	long n;

	if (src->handle)
		return mmap3_device_capture_read(src->fd, src->handle, buf, len, off);
	n = pread(src->fd, buf, len, (off_t)off);
	return n < 0 ? -errno : n;
}

/* Copy @src into the new file @o; returns its size or -1. */
static long long copy_out(const struct source *src, struct outfile *o, struct capture_stats *st)
{
	static char buf[MMAP3_CAPTURE_READ_MAX];
	uint64_t off = 0;
	long n;

	while ((n = source_read(src, buf, sizeof(buf), off)) > 0) {
		const char *p = buf;
		size_t left = (size_t)n;

		while (left) {
			ssize_t w = write(o->fd, p, left);

			if (w < 0 && errno == EINTR)
				continue;
			if (w <= 0) {
				fprintf(stderr, "mmap3: %s: cannot write at offset %llu: %s\n",
					o->path, (unsigned long long)(off + (uint64_t)(p - buf)),
					strerror(w < 0 ? errno : EIO));
				return -1;
			}
			p += w;
			left -= (size_t)w;
		}
		off += (uint64_t)n;
		st->bytes += (uint64_t)n;
	}
	if (n < 0) {
		fprintf(stderr, "mmap3: %s: reading at offset %llu: %s\n", src->path,
			(unsigned long long)off, strerror((int)-n));
		return -1;
	}
	return (long long)off;
}

/* Is the file @fd's build-id @want? */
static int has_build_id(int fd, uint64_t size, const struct mmap3_build_id *want,
			struct elf_buildid *bid)
{
	elf_buildid_parse_buf(elf_buildid_fd_read, &fd, size, bid, win, sizeof(win));
	return bid->status == MMAP3_BUILDID_FOUND && bid->size == want->size &&
	       !memcmp(bid->id, want->data, bid->size);
}

/* An "elf" that was there already: kept if it is this build's. */
static int check_existing(int hexfd, const char *elf, const struct mmap3_build_id *want)
{
	struct elf_buildid bid;
	struct stat st;
	int fd = openat(hexfd, "elf", O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC), ok;

	if (fd < 0 || fstat(fd, &st) || !S_ISREG(st.st_mode)) {
		if (fd >= 0)
			close(fd);
		fprintf(stderr, "mmap3: %s exists and is not a regular file; not captured\n", elf);
		return 0;
	}
	ok = has_build_id(fd, (uint64_t)st.st_size, want, &bid);
	close(fd);
	if (!ok)
		fprintf(stderr, "mmap3: %s exists with another build-id; not replaced\n", elf);
	return ok;
}

/*
 * A directory below DIR could not be made: a name planted there (a
 * symbolic link, a file) costs only this capture; anything else (a full
 * disk) stops capturing.
 */
static int mkdirs_failed(const struct capture *c, const char *rel, const char *path)
{
	int err = errno;

	if (err == ELOOP || err == ENOTDIR || err == EXDEV) {
		fprintf(stderr, "mmap3: %s/%s: a symbolic link or no directory on the way (%s): "
			"nothing is created through it; %s not captured\n", c->dir, rel,
			strerror(err), path);
		return 0;
	}
	fprintf(stderr, "mmap3: %s/%s: %s\n", c->dir, rel, strerror(err));
	return -1;
}

/* Store @src, whose build-id must be @want, for @path. */
static int store(struct capture *c, const struct source *src, const char *path,
		 const struct mmap3_build_id *want)
{
	char hex[2 * MMAP3_BUILD_ID_SIZE_MAX + 1], rel[PATH_MAX], dirs[PATH_MAX];
	char target[PATH_MAX], elf[PATH_MAX + 256], xx[16];
	struct elf_buildid bid;
	struct outfile o;
	struct stat st;
	int i, hexfd = -1, xxfd = -1, ret = -1, linked;
	long long size;

	if (want->status != MMAP3_BUILDID_FOUND || !want->size)
		return 0;
	for (i = 0; i < want->size; i++)
		sprintf(hex + 2 * i, "%02x", want->data[i]);
	snprintf(xx, sizeof(xx), ".build-id/%.2s", hex);
	if (capture_relpath(path, rel, sizeof(rel)) ||
	    snprintf(dirs, sizeof(dirs), "%s/%s", rel, hex) >= (int)sizeof(dirs) ||
	    snprintf(target, sizeof(target), "../../%s/%s", rel, hex) >= (int)sizeof(target)) {
		fprintf(stderr, "mmap3: %s: path too long for the capture directory\n", path);
		return -1;
	}
	snprintf(elf, sizeof(elf), "%s/%s/elf", c->dir, dirs);

	xxfd = beneath_mkdirs(c->dirfd, xx, c->mode);
	if (xxfd < 0)
		return mkdirs_failed(c, xx, path);
	if (!fstatat(xxfd, hex + 2, &st, AT_SYMLINK_NOFOLLOW)) {
		c->stats.cached++;
		ret = 0;
		goto out;
	}
	hexfd = beneath_mkdirs(c->dirfd, dirs, c->mode);
	if (hexfd < 0) {
		ret = mkdirs_failed(c, dirs, path);
		goto out;
	}
	if (outfile_open_at(&o, hexfd, "elf", elf))
		goto out;
	size = copy_out(src, &o, &c->stats);
	if (size < 0) {
		outfile_abort(&o);
		goto out;
	}
	/* The stored bytes must be the mapped build's. */
	if (!has_build_id(o.fd, (uint64_t)size, want, &bid)) {
		char status[32];

		fprintf(stderr, "mmap3: %s changed after it was mapped (%s); not captured\n",
			path, bid.status == MMAP3_BUILDID_FOUND ? "another build-id" :
			mmap3_status_str(bid.status, status, sizeof(status)));
		outfile_abort(&o);
		c->stats.changed++;
		ret = 0;
		goto out;
	}
	linked = outfile_commit(&o);
	if (linked < 0)
		goto out;
	if (linked == OUTFILE_EXISTED && !check_existing(hexfd, elf, want)) {
		ret = 0;
		goto out;
	}
	/* symlinkat() never follows: a name planted there stays as it is. */
	if (symlinkat(target, xxfd, hex + 2) && errno != EEXIST) {
		fprintf(stderr, "mmap3: %s/%s/%s: %s\n", c->dir, xx, hex + 2, strerror(errno));
		goto out;
	}
	if (linked == OUTFILE_EXISTED)
		c->stats.cached++;
	else
		c->stats.stored++;
	ret = 0;
out:
	if (hexfd >= 0)
		close(hexfd);
	if (xxfd >= 0)
		close(xxfd);
	return ret;
}

int capture_store(struct capture *c, int fd, const struct mmap3_record_mmap *m)
{
	const struct source src = { .fd = fd, .handle = m->capture, .path = m->path };
	int ret = store(c, &src, m->path, &m->build_id);

	mmap3_device_capture_release(fd, m->capture);
	return ret;
}

int capture_store_file(struct capture *c, const char *path, const struct mmap3_build_id *bid)
{
	struct source src = { .path = path };
	struct stat st;
	int ret;

	src.fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
	if (src.fd < 0 || fstat(src.fd, &st) || !S_ISREG(st.st_mode)) {
		fprintf(stderr, "mmap3: cannot capture %s: %s\n", path,
			src.fd < 0 ? strerror(errno) : "not a regular file");
		if (src.fd >= 0)
			close(src.fd);
		return -1;
	}
	ret = store(c, &src, path, bid);
	close(src.fd);
	return ret;
}
