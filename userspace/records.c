// SPDX-License-Identifier: GPL-2.0
/*
 * userspace/records.c - the records a session returns, each checked
 * before any field is read, as a file's are: the device is trusted no
 * more than a perf.data file (and the host tests put a stand-in there).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "device.h"
#include "elf_buildid.h"

#define READ_SIZE	(1U << 20)	/* a read returns many records */

int mmap3_records_init(struct mmap3_records *r, int fd)
{
	memset(r, 0, sizeof(*r));
	r->fd = fd;
	r->cap = READ_SIZE;
	r->buf = malloc(r->cap);
	if (!r->buf) {
		fprintf(stderr, "mmap3: out of memory\n");
		return -1;
	}
	return 0;
}

void mmap3_records_free(struct mmap3_records *r)
{
	free(r->buf);
	r->buf = NULL;
}

/* The name (NUL-terminated in @len bytes at @at) of a record. */
static int has_nul(const struct mmap3_record_header *h, size_t at, size_t len)
{
	return at + len <= h->size && memchr((const char *)h + at, 0, len);
}

static int bad_build_id(const struct mmap3_build_id *b)
{
	return b->size > MMAP3_BUILD_ID_SIZE_MAX;
}

int mmap3_record_check(const struct mmap3_record_header *h, size_t avail, const char **why)
{
	if (avail < sizeof(*h)) {
		*why = "a record header of 16 bytes";
		return -1;
	}
	if (h->size < sizeof(*h) || h->size % MMAP3_RECORD_ALIGN || h->size > avail) {
		*why = "a size that is a multiple of 8, from 16 to the end of the read";
		return -1;
	}
	switch (h->type) {
	case MMAP3_RECORD_MMAP: {
		const struct mmap3_record_mmap *m = (const void *)h;

		if (h->size <= sizeof(*m)) {
			*why = "an MMAP record's fields and a path";
			return -1;
		}
		if (!has_nul(h, sizeof(*m), h->size - sizeof(*m))) {
			*why = "a path NUL-terminated within the MMAP record";
			return -1;
		}
		if (bad_build_id(&m->build_id)) {
			*why = "a build-id of at most 64 bytes";
			return -1;
		}
		if ((m->flags & MMAP3_MMAP_NS) && !mmap3_record_ns(m)) {
			*why = "a struct mmap3_mmap_ns after the path, with a NUL-terminated root "
			       "path, within the MMAP record";
			return -1;
		}
		break;
	}
	case MMAP3_RECORD_MODULE_LOAD:
	case MMAP3_RECORD_MODULE_UNLOAD: {
		const struct mmap3_record_module *m = (const void *)h;

		if (h->size < sizeof(*m)) {
			*why = "a MODULE record's fields";
			return -1;
		}
		if (!has_nul(h, offsetof(struct mmap3_record_module, name), sizeof(m->name))) {
			*why = "a module name NUL-terminated within its 64 bytes";
			return -1;
		}
		if (bad_build_id(&m->build_id)) {
			*why = "a build-id of at most 64 bytes";
			return -1;
		}
		break;
	}
	case MMAP3_RECORD_KERNEL: {
		const struct mmap3_record_kernel *k = (const void *)h;

		if (h->size < sizeof(*k)) {
			*why = "a KERNEL record's fields";
			return -1;
		}
		if (!has_nul(h, offsetof(struct mmap3_record_kernel, release), sizeof(k->release))) {
			*why = "a kernel release NUL-terminated within its 65 bytes";
			return -1;
		}
		if (bad_build_id(&k->build_id)) {
			*why = "a build-id of at most 64 bytes";
			return -1;
		}
		break;
	}
	case MMAP3_RECORD_LOST:
		if (h->size < sizeof(struct mmap3_record_lost)) {
			*why = "a LOST record's count";
			return -1;
		}
		break;
	}
	return 0;
}

int mmap3_records_next(struct mmap3_records *r, const struct mmap3_record_header **h)
{
	const struct mmap3_record_header *rec;
	const char *why;

	if (r->pos == r->len) {
		ssize_t n;

		do
			n = read(r->fd, r->buf, r->cap);
		while (n < 0 && errno == EINTR);
		if (n < 0 && errno == EAGAIN)
			return 0;
		if (n < 0) {
			fprintf(stderr, "mmap3: reading %s: %s\n", mmap3_device_path(),
				strerror(errno));
			return -1;
		}
		r->offset += r->len;
		r->len = (size_t)n;
		r->pos = 0;
		if (!n) {
			r->eof = 1;
			return 0;
		}
	}
	rec = (const void *)(r->buf + r->pos);
	if (mmap3_record_check(rec, r->len - r->pos, &why)) {
		fprintf(stderr, "mmap3: %s: offset %llu of the records read: %s%u bytes%s, "
			"expected %s\n", mmap3_device_path(),
			(unsigned long long)(r->offset + r->pos),
			r->len - r->pos < sizeof(*rec) ? "" : "a record of ",
			r->len - r->pos < sizeof(*rec) ? (unsigned int)(r->len - r->pos) : rec->size,
			r->len - r->pos < sizeof(*rec) ? " left" : "", why);
		return -1;
	}
	r->pos += rec->size;
	*h = rec;
	return 1;
}

const char *mmap3_status_str(unsigned int status, char *buf, size_t len)
{
	const char *s = status < MMAP3_BUILDID_NR_STATUS ? elf_buildid_status_str(status) : NULL;

	/* A newer module may know statuses this tool does not. */
	if (!s || !strcmp(s, "unknown status")) {
		snprintf(buf, len, "status %u", status);
		return buf;
	}
	return s;
}
