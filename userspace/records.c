// SPDX-License-Identifier: GPL-2.0
/*
 * userspace/records.c - the records a session returns, each checked
 * before any field is read, as a file's are: the device is trusted no
 * more than a perf.data file (and the host tests put a stand-in there).
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "device.h"
#include "elf_buildid.h"
#include "msg.h"

#define READ_SIZE	(1U << 20)	/* a read returns many records */

int mmap3_records_init(struct mmap3_records *r, int fd)
{
	int flags = fcntl(fd, F_GETFL);

	memset(r, 0, sizeof(*r));
	r->fd = fd;
	r->wait = flags >= 0 && !(flags & O_NONBLOCK);
	r->cap = READ_SIZE;
	r->buf = malloc(r->cap);
	if (!r->buf) {
		msg_err("out of memory");
		return -1;
	}
	return 0;
}

void mmap3_records_set_wait(struct mmap3_records *r, int wait)
{
	int flags = fcntl(r->fd, F_GETFL);

	if (flags >= 0)
		fcntl(r->fd, F_SETFL, wait ? flags & ~O_NONBLOCK : flags | O_NONBLOCK);
	r->wait = wait;
}

void mmap3_records_free(struct mmap3_records *r)
{
	free(r->buf);
	r->buf = NULL;
	if (r->ctl)
		munmap(r->ctl, (size_t)sysconf(_SC_PAGESIZE));
	if (r->data)
		munmap((void *)r->data, r->size);
	r->ctl = NULL;
	r->data = NULL;
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

int mmap3_record_check_parts(const struct mmap3_record_header *h, size_t avail, const char **why,
			     struct mmap3_mmap_parts *parts)
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
		const struct mmap3_mmap_ns *ns = NULL;
		size_t path_len, root_len = 0;

		if (h->size <= sizeof(*m)) {
			*why = "an MMAP record's fields and a path";
			return -1;
		}
		/* One pass over the path: its NUL, and where what follows it starts. */
		path_len = strnlen(m->path, h->size - sizeof(*m));
		if (path_len == h->size - sizeof(*m)) {
			*why = "a path NUL-terminated within the MMAP record";
			return -1;
		}
		if (bad_build_id(&m->build_id)) {
			*why = "a build-id of at most 64 bytes";
			return -1;
		}
		if ((m->flags & MMAP3_MMAP_NS) &&
		    !(ns = mmap3_record_ns_root(m, path_len, &root_len))) {
			*why = "a struct mmap3_mmap_ns after the path, with a NUL-terminated root "
			       "path, within the MMAP record";
			return -1;
		}
		*parts = (struct mmap3_mmap_parts){
			.path_len = path_len, .ns = ns, .root_len = root_len,
		};
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

int mmap3_record_check(const struct mmap3_record_header *h, size_t avail, const char **why)
{
	struct mmap3_mmap_parts parts;

	return mmap3_record_check_parts(h, avail, why, &parts);
}

/*
 * Map the session's buffer: 1 if mapped, 0 to read() this time (no
 * buffer yet: try again later), -1 to read() for good (a module before
 * 2.3, or a stand-in that has no buffer to map).
 */
static int map_buffer(struct mmap3_records *r)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	struct mmap3_ring_control *ctl;
	uint64_t size, csize;
	void *data;

	ctl = mmap3_device_map(r->fd, page, PROT_READ | PROT_WRITE, 0);
	if (ctl == MAP_FAILED)
		return errno == EINVAL ? 0 : -1;
	/* Zero from a module before 2.6: its control is the first 24 bytes. */
	csize = __atomic_load_n(&ctl->control_size, __ATOMIC_RELAXED);
	if (csize && (csize < MMAP3_RING_CONTROL_SIZE_VER1 || csize > page || csize % 8)) {
		msg_err("%s: the mapped buffer's control page says it is %llu bytes, "
			"expected 0 or a multiple of 8 from %u to %zu", mmap3_device_path(),
			(unsigned long long)csize, MMAP3_RING_CONTROL_SIZE_VER1, page);
		munmap(ctl, page);
		return -1;
	}
	size = __atomic_load_n(&ctl->size, __ATOMIC_RELAXED);
	if (size < MMAP3_BUFFER_SIZE_MIN || size > MMAP3_BUFFER_SIZE_MAX || (size & (size - 1)) ||
	    size % page) {
		msg_err("%s: the mapped buffer's control page gives a size of "
			"%llu bytes, expected a power of two from %u to %u", mmap3_device_path(),
			(unsigned long long)size, MMAP3_BUFFER_SIZE_MIN, MMAP3_BUFFER_SIZE_MAX);
		munmap(ctl, page);
		return -1;
	}
	data = mmap3_device_map(r->fd, size, PROT_READ, (off_t)page);
	if (data == MAP_FAILED) {
		munmap(ctl, page);
		return -1;
	}
	r->ctl = ctl;
	r->data = data;
	r->size = size;
	r->tail = r->next = r->head = __atomic_load_n(&ctl->tail, __ATOMIC_RELAXED);
	return 1;
}

/*
 * Nothing more in the buffer now: poll() tells the module our tail (a
 * producer may be waiting for room), and whether more came or the
 * session ended.  Returns 1 to look again, 0 if none (r->eof at the end).
 */
static int mapped_wait(struct mmap3_records *r)
{
	struct pollfd pfd = { .fd = r->fd, .events = POLLIN };
	int wait = r->wait;

	for (;;) {
		if (poll(&pfd, 1, wait ? -1 : 0) < 0) {
			if (errno == EINTR)
				continue;
			msg_err("polling %s: %s", mmap3_device_path(),
				strerror(errno));
			return -1;
		}
		r->head = __atomic_load_n(&r->ctl->head, __ATOMIC_ACQUIRE);
		if (r->head != r->next)
			return 1;
		if (pfd.revents & (POLLHUP | POLLERR)) {
			r->eof = 1;
			return 0;
		}
		if (!wait)
			return 0;
	}
}

/* The next record from the mapped buffer, as mmap3_records_next(). */
static int next_mapped(struct mmap3_records *r, const struct mmap3_record_header **h)
{
	const struct mmap3_record_header *rec;
	uint64_t at, avail;
	const char *why;
	int ret;

	for (;;) {
		/* What was returned before is done with: the module may have it. */
		if (r->tail != r->next) {
			__atomic_store_n(&r->ctl->tail, r->next, __ATOMIC_RELEASE);
			r->tail = r->next;
		}
		if (r->next == r->head) {
			r->head = __atomic_load_n(&r->ctl->head, __ATOMIC_ACQUIRE);
			if (r->next == r->head && (ret = mapped_wait(r)) <= 0)
				return ret;
		}
		if (r->head - r->next > r->size) {
			msg_err("%s: the mapped buffer's head is at %llu, expected "
				"at most %llu bytes past the records read (%llu)",
				mmap3_device_path(), (unsigned long long)r->head,
				(unsigned long long)r->size, (unsigned long long)r->next);
			return -1;
		}
		/* Records never cross the buffer's end: a pad skips to it. */
		at = r->next & (r->size - 1);
		avail = r->head - r->next;
		if (avail > r->size - at)
			avail = r->size - at;
		rec = (const void *)(r->data + at);
		/* A pad may be 8 bytes, no whole header (struct mmap3_record_pad). */
		if (avail >= sizeof(struct mmap3_record_pad) && rec->type == MMAP3_RECORD_PAD) {
			if (rec->size != r->size - at || rec->size > avail) {
				msg_err("%s: offset %llu of the mapped records: a pad "
					"of %u bytes, expected one of the %llu bytes to the buffer's "
					"end", mmap3_device_path(), (unsigned long long)r->next,
					rec->size, (unsigned long long)(r->size - at));
				return -1;
			}
			r->next += rec->size;
			continue;
		}
		if (mmap3_record_check_parts(rec, avail, &why, &r->mmap)) {
			msg_err("%s: offset %llu of the mapped records: %s%u bytes%s, "
				"expected %s", mmap3_device_path(), (unsigned long long)r->next,
				avail < sizeof(*rec) ? "" : "a record of ",
				avail < sizeof(*rec) ? (unsigned int)avail : rec->size,
				avail < sizeof(*rec) ? " left" : "", why);
			return -1;
		}
		r->next += rec->size;
		*h = rec;
		return 1;
	}
}

int mmap3_records_next(struct mmap3_records *r, const struct mmap3_record_header **h)
{
	const struct mmap3_record_header *rec;
	const char *why;

	if (r->map_state == 1)
		return next_mapped(r, h);
	/* Between batches of read(), nothing is held: the reader can change. */
	if (r->pos == r->len && !r->map_state && (r->map_state = map_buffer(r)) == 1)
		return next_mapped(r, h);
	if (r->pos == r->len) {
		ssize_t n;

		do
			n = read(r->fd, r->buf, r->cap);
		while (n < 0 && errno == EINTR);
		if (n < 0 && errno == EAGAIN)
			return 0;
		if (n < 0) {
			msg_err("reading %s: %s", mmap3_device_path(),
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
	if (mmap3_record_check_parts(rec, r->len - r->pos, &why, &r->mmap)) {
		msg_err("%s: offset %llu of the records read: %s%u bytes%s, "
			"expected %s", mmap3_device_path(),
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
