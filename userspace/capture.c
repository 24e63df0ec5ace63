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

static long fd_read(void *ctx, void *buf, size_t len, __u64 off)
{
	ssize_t n = pread(*(int *)ctx, buf, len, (off_t)off);

	return n < 0 ? -errno : n;
}

static void release(int fd, uint32_t handle)
{
	ioctl(fd, MMAP3_IOC_CAPTURE_RELEASE, &handle);
}

/* Copy the captured file to @tmp; returns its size or -1. */
static long long copy_out(int fd, uint32_t handle, const char *tmp, struct capture_stats *st)
{
	static char buf[MMAP3_CAPTURE_READ_MAX];
	struct mmap3_capture_read rd = {
		.size = sizeof(rd),
		.handle = handle,
		.buf = (uintptr_t)buf,
		.len = sizeof(buf),
	};
	int out = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0755);
	long n;

	if (out < 0) {
		fprintf(stderr, "mmap3: cannot create %s: %s\n", tmp, strerror(errno));
		return -1;
	}
	while ((n = ioctl(fd, MMAP3_IOC_CAPTURE_READ, &rd)) > 0) {
		if (write(out, buf, n) != n) {
			fprintf(stderr, "mmap3: %s: writing at offset %llu: %s\n", tmp,
				(unsigned long long)rd.offset, strerror(errno ? errno : ENOSPC));
			close(out);
			unlink(tmp);
			return -1;
		}
		rd.offset += n;
		st->bytes += n;
	}
	if (n < 0 || close(out)) {
		fprintf(stderr, "mmap3: %s: %s at offset %llu\n", tmp,
			n < 0 ? "reading the captured file failed" : "cannot write",
			(unsigned long long)rd.offset);
		unlink(tmp);
		return -1;
	}
	return (long long)rd.offset;
}

int capture_store(int fd, const struct mmap3_record_mmap *m, const char *dir,
		  struct capture_stats *st)
{
	char hex[2 * MMAP3_BUILD_ID_SIZE_MAX + 1], elf[PATH_MAX], tmp[PATH_MAX + 8];
	char link[PATH_MAX], target[PATH_MAX];
	const char *rel = m->path[0] == '/' ? m->path + 1 : m->path;
	struct elf_buildid bid;
	long long size;
	int i, in, ret = -1;

	for (i = 0; i < m->build_id.size; i++)
		sprintf(hex + 2 * i, "%02x", m->build_id.data[i]);
	if (snprintf(elf, sizeof(elf), "%s/%s/%s/elf", dir, rel, hex) >= (int)sizeof(elf) ||
	    snprintf(link, sizeof(link), "%s/.build-id/%.2s/%s", dir, hex, hex + 2) >=
	    (int)sizeof(link) ||
	    snprintf(target, sizeof(target), "../../%s/%s", rel, hex) >= (int)sizeof(target)) {
		fprintf(stderr, "mmap3: %s: path too long for the capture directory\n", m->path);
		goto out;
	}
	if (!access(link, F_OK)) {
		st->cached++;
		ret = 0;
		goto out;
	}
	snprintf(tmp, sizeof(tmp), "%s.tmp", elf);
	if (make_dirs(elf) || make_dirs(link))
		goto out;
	size = copy_out(fd, m->capture, tmp, st);
	if (size < 0)
		goto out;

	/* The stored bytes must be the mapped build's. */
	in = open(tmp, O_RDONLY | O_CLOEXEC);
	if (in < 0) {
		fprintf(stderr, "mmap3: %s: %s\n", tmp, strerror(errno));
		goto out;
	}
	elf_buildid_parse_buf(fd_read, &in, (__u64)size, &bid, win, sizeof(win));
	close(in);
	if (bid.status != MMAP3_BUILDID_FOUND || bid.size != m->build_id.size ||
	    memcmp(bid.id, m->build_id.data, bid.size)) {
		fprintf(stderr, "mmap3: %s changed after it was mapped (%s); not captured\n",
			m->path, bid.status == MMAP3_BUILDID_FOUND ? "another build-id" :
			elf_buildid_status_str(bid.status));
		unlink(tmp);
		st->changed++;
		ret = 0;
		goto out;
	}
	if (rename(tmp, elf) || (symlink(target, link) && errno != EEXIST)) {
		fprintf(stderr, "mmap3: storing %s in %s: %s\n", m->path, dir, strerror(errno));
		unlink(tmp);
		goto out;
	}
	st->stored++;
	ret = 0;
out:
	release(fd, m->capture);
	return ret;
}
