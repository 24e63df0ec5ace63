/* SPDX-License-Identifier: GPL-2.0 */
/*
 * userspace/device.h - /dev/mmap3: opening it, checking its ABI, its
 * ioctls by name (device.c), and the records of a session, each checked
 * before use (records.c).
 * Errors print one line naming the device and what to do.
 */
#ifndef MMAP3_DEVICE_H
#define MMAP3_DEVICE_H

#include <linux/mmap3.h>
#include <string.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* The device to open: $MMAP3_DEVICE, else MMAP3_DEVICE_PATH. */
const char *mmap3_device_path(void);

/*
 * Open the device and check that the module speaks our ABI major.  On
 * failure print one line saying what went wrong and how to fix it, and
 * return -1.
 */
int mmap3_device_open(struct mmap3_abi_version *ver);

/*
 * The same, for a session: as root, when /dev/mmap3 is missing, first
 * load the installed module with modprobe, saying so in one line (as
 * LTTng's session daemon loads its modules).
 */
int mmap3_device_open_loading(struct mmap3_abi_version *ver);

/* Configure a disabled session; 0 or -1 (printed).  @buffer_size 0: default. */
int mmap3_device_setup(int fd, const struct mmap3_filter *filter, int clock,
		       uint64_t buffer_size);
int mmap3_device_enable(int fd);
int mmap3_device_disable(int fd);
int mmap3_device_flush(int fd);
int mmap3_device_stats(int fd, struct mmap3_stats *st);

/*
 * mmap() of the device, as records.c maps the session's buffer: the
 * address, or MAP_FAILED and errno (EINVAL: no buffer yet).
 */
void *mmap3_device_map(int fd, size_t len, int prot, off_t offset);

/* Read a captured file: bytes read, 0 at its end, or -errno. */
long mmap3_device_capture_read(int fd, uint32_t handle, void *buf, size_t len, uint64_t off);
void mmap3_device_capture_release(int fd, uint32_t handle);
/* Release @handle and have its build-id offered again (ABI 2.4): 0, or -errno. */
int mmap3_device_capture_forget(int fd, uint32_t handle);

/*
 * Captures offered and read as user @uid, group @gid with @groups (@n of
 * them) would, unprivileged (ABI 2.4, before ENABLE): 0, or -1 after
 * printing.
 */
int mmap3_device_set_capture_user(int fd, uid_t uid, gid_t gid, const gid_t *groups, int n);

/*
 * Where an MMAP record's parts are, as mmap3_record_check() found them:
 * lengths bounded by the record, so a user of them reads no byte past
 * it, even if the record's bytes changed since (a buffer shared with
 * the module is read in place).
 */
struct mmap3_mmap_parts {
	size_t path_len;			/* before the path's NUL */
	const struct mmap3_mmap_ns *ns;		/* MMAP3_MMAP_NS's, or NULL */
	size_t root_len;			/* ns's root path's, before its NUL */
};

/*
 * The records a session returns: read in place from the session's
 * buffer mapped (ABI 2.3), once the buffer exists (after ENABLE), else
 * read() in batches.
 */
struct mmap3_records {
	int fd;
	uint8_t *buf;
	size_t cap, len, pos;
	uint64_t offset;	/* of buf[0] in the session's stream */
	int eof;		/* disabled and drained */
	int map_state;		/* 0 not tried yet, 1 mapped, -1 read() for good */
	struct mmap3_ring_control *ctl;	/* mapped: its control page */
	const uint8_t *data;	/* ... and the buffer */
	uint64_t size;		/* ... of the buffer, a power of two */
	uint64_t head;		/* ... the module's head as last loaded */
	uint64_t next;		/* ... where the next record is */
	uint64_t tail;		/* ... the tail last given back */
	int wait;		/* block for records: @fd is not O_NONBLOCK */
	struct mmap3_mmap_parts mmap;	/* the last record's, if an MMAP record */
};

int mmap3_records_init(struct mmap3_records *r, int fd);
/* Block for records, or not (the fd's O_NONBLOCK, kept here too). */
void mmap3_records_set_wait(struct mmap3_records *r, int wait);
void mmap3_records_free(struct mmap3_records *r);

/*
 * The next record, checked (mmap3_record_check()): 1 and *@h, valid
 * until the next call (then the module may write over it), and for an
 * MMAP record its parts in r->mmap; 0 when none
 * is there now (a non-blocking fd) or at the end (r->eof); -1 on a read
 * error or a malformed record (printed, naming its offset in the
 * stream).
 */
int mmap3_records_next(struct mmap3_records *r, const struct mmap3_record_header **h);

/*
 * Is the record @h, with @avail bytes from it on, whole and sound for
 * its type: a header, a size that is a multiple of MMAP3_RECORD_ALIGN
 * within @avail, the fixed fields of its type, NUL-terminated names and
 * build-ids within their array?  0, or -1 and *@why says what was
 * expected.  Unknown types need only a sound header: readers skip them.
 */
int mmap3_record_check(const struct mmap3_record_header *h, size_t avail, const char **why);
/* The same, and for an MMAP record where its parts are, in *@parts. */
int mmap3_record_check_parts(const struct mmap3_record_header *h, size_t avail, const char **why,
			     struct mmap3_mmap_parts *parts);

/*
 * The container identity after @m's path of @path_len bytes
 * (MMAP3_MMAP_NS) and its root path's length in *@root_len, or NULL if
 * it has none or it does not fit the record (mmap3_record_check()
 * refuses such a record).
 */
static inline const struct mmap3_mmap_ns *mmap3_record_ns_root(const struct mmap3_record_mmap *m,
							       size_t path_len, size_t *root_len)
{
	const struct mmap3_record_header *h = &m->header;
	const struct mmap3_mmap_ns *ns;
	const char *nul;
	size_t at;

	if (!(m->flags & MMAP3_MMAP_NS) || h->size <= sizeof(*m))
		return NULL;
	at = (sizeof(*m) + path_len + 1 + MMAP3_RECORD_ALIGN - 1) &
	     ~(size_t)(MMAP3_RECORD_ALIGN - 1);
	if (at > h->size || h->size - at < sizeof(*ns))
		return NULL;
	ns = (const void *)((const char *)h + at);
	if (ns->size < sizeof(*ns) || ns->size > h->size - at)
		return NULL;
	nul = memchr(ns->root_path, 0, ns->size - sizeof(*ns));
	if (!nul)
		return NULL;
	*root_len = (size_t)(nul - ns->root_path);
	return ns;
}

/* A build-id status for messages: its description, or "status N". */
const char *mmap3_status_str(unsigned int status, char *buf, size_t len);
/*
 * Where a found build-id comes from (enum mmap3_buildid_kind), as dump
 * and buildid print it: "gnu" (the file's own note), "go" (derived from
 * its Go build id), "content" (from its bytes); "unknown" for a kind of a
 * newer module.
 */
static inline const char *mmap3_kind_name(unsigned int kind)
{
	switch (kind) {
	case MMAP3_BUILDID_GNU:
		return "gnu";
	case MMAP3_BUILDID_GO:
		return "go";
	case MMAP3_BUILDID_CONTENT:
		return "content";
	default:
		return "unknown";
	}
}

#endif /* MMAP3_DEVICE_H */
