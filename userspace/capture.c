// SPDX-License-Identifier: GPL-2.0
/*
 * userspace/capture.c - store captured files in perf's build-id cache
 * layout, verifying each stored file's build-id.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "capture.h"
#include "elf_buildid.h"
#include "elf_buildid_fd.h"

/* mkdir -p of the directory part of @path. */
static int make_dirs(char *path)
{
	char *p;

	for (p = path + 1; (p = strchr(p, '/')); p++) {
		*p = 0;
		if (mkdir(path, 0755) && errno != EEXIST) {
			fprintf(stderr, "mmap3: cannot create %s: %s\n", path, strerror(errno));
			*p = '/';
			return -1;
		}
		*p = '/';
	}
	return 0;
}

/* The parser's window: most ids in one read. */
static unsigned char win[65536];

static void release(int fd, uint32_t handle)
{
	ioctl(fd, MMAP3_IOC_CAPTURE_RELEASE, &handle);
}

/* Where copy_out() reads the stored file from: a capture handle or a file. */
struct source {
	int fd;			/* the device, or the file */
	uint32_t handle;	/* 0: read the file @fd with pread() */
	const char *path;	/* for messages */
};

static long source_read(const struct source *src, void *buf, size_t len, uint64_t off)
{
	struct mmap3_capture_read rd = {
		.size = sizeof(rd),
		.handle = src->handle,
		.buf = (uintptr_t)buf,
		.len = len,
		.offset = off,
	};
	long n;

	if (!src->handle) {
		n = pread(src->fd, buf, len, (off_t)off);
		return n < 0 ? -errno : n;
	}
	n = ioctl(src->fd, MMAP3_IOC_CAPTURE_READ, &rd);
	return n < 0 ? -errno : n;
}

/* A short write is retried, so a full disk shows as ENOSPC. */
static int write_all(int fd, const char *buf, size_t len)
{
	while (len) {
		ssize_t n = write(fd, buf, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -1;
		buf += n;
		len -= (size_t)n;
	}
	return 0;
}

/* Copy @src to @tmp; returns its size or -1. */
static long long copy_out(const struct source *src, const char *tmp, struct capture_stats *st)
{
	static char buf[MMAP3_CAPTURE_READ_MAX];
	int out = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0755);
	uint64_t off = 0;
	long n;

	if (out < 0) {
		fprintf(stderr, "mmap3: cannot create %s: %s\n", tmp, strerror(errno));
		return -1;
	}
	while ((n = source_read(src, buf, sizeof(buf), off)) > 0) {
		if (write_all(out, buf, (size_t)n)) {
			fprintf(stderr, "mmap3: %s: writing at offset %llu: %s\n", tmp,
				(unsigned long long)off, strerror(errno));
			close(out);
			unlink(tmp);
			return -1;
		}
		off += n;
		st->bytes += n;
	}
	if (n < 0) {
		fprintf(stderr, "mmap3: %s: reading at offset %llu: %s\n", src->path,
			(unsigned long long)off, strerror((int)-n));
		close(out);
		unlink(tmp);
		return -1;
	}
	if (close(out)) {
		fprintf(stderr, "mmap3: %s: cannot write at offset %llu: %s\n", tmp,
			(unsigned long long)off, strerror(errno));
		unlink(tmp);
		return -1;
	}
	return (long long)off;
}

/* Store @src, whose build-id must be @want, as @path under @dir. */
static int store(const struct source *src, const char *path, const struct mmap3_build_id *want,
		 const char *dir, struct capture_stats *st)
{
	char hex[2 * MMAP3_BUILD_ID_SIZE_MAX + 1], elf[PATH_MAX], tmp[PATH_MAX + 8];
	char link[PATH_MAX], target[PATH_MAX];
	const char *rel = path[0] == '/' ? path + 1 : path;
	struct elf_buildid bid;
	long long size;
	int i, in;

	for (i = 0; i < want->size; i++)
		sprintf(hex + 2 * i, "%02x", want->data[i]);
	if (snprintf(elf, sizeof(elf), "%s/%s/%s/elf", dir, rel, hex) >= (int)sizeof(elf) ||
	    snprintf(link, sizeof(link), "%s/.build-id/%.2s/%s", dir, hex, hex + 2) >=
	    (int)sizeof(link) ||
	    snprintf(target, sizeof(target), "../../%s/%s", rel, hex) >= (int)sizeof(target)) {
		fprintf(stderr, "mmap3: %s: path too long for the capture directory\n", path);
		return -1;
	}
	if (!access(link, F_OK)) {
		st->cached++;
		return 0;
	}
	snprintf(tmp, sizeof(tmp), "%s.tmp", elf);
	if (make_dirs(elf) || make_dirs(link))
		return -1;
	size = copy_out(src, tmp, st);
	if (size < 0)
		return -1;

	/* The stored bytes must be the mapped build's. */
	in = open(tmp, O_RDONLY | O_CLOEXEC);
	if (in < 0) {
		fprintf(stderr, "mmap3: %s: %s\n", tmp, strerror(errno));
		return -1;
	}
	elf_buildid_parse_buf(elf_buildid_fd_read, &in, (__u64)size, &bid, win, sizeof(win));
	close(in);
	if (bid.status != MMAP3_BUILDID_FOUND || bid.size != want->size ||
	    memcmp(bid.id, want->data, bid.size)) {
		fprintf(stderr, "mmap3: %s changed after it was mapped (%s); not captured\n",
			path, bid.status == MMAP3_BUILDID_FOUND ? "another build-id" :
			elf_buildid_status_str(bid.status));
		unlink(tmp);
		st->changed++;
		return 0;
	}
	if (rename(tmp, elf) || (symlink(target, link) && errno != EEXIST)) {
		fprintf(stderr, "mmap3: storing %s in %s: %s\n", path, dir, strerror(errno));
		unlink(tmp);
		return -1;
	}
	st->stored++;
	return 0;
}

int capture_store(int fd, const struct mmap3_record_mmap *m, const char *dir,
		  struct capture_stats *st)
{
	const struct source src = { .fd = fd, .handle = m->capture, .path = m->path };
	int ret = store(&src, m->path, &m->build_id, dir, st);

	release(fd, m->capture);
	return ret;
}

int capture_store_file(const char *path, const struct mmap3_build_id *bid, const char *dir,
		       struct capture_stats *st)
{
	struct source src = { .path = path };
	int ret;

	src.fd = open(path, O_RDONLY | O_CLOEXEC);
	if (src.fd < 0) {
		fprintf(stderr, "mmap3: cannot capture %s: %s\n", path, strerror(errno));
		return -1;
	}
	ret = store(&src, path, bid, dir, st);
	close(src.fd);
	return ret;
}
