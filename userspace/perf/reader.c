// SPDX-License-Identifier: GPL-2.0
/*
 * userspace/perf/reader.c - reading and checking a perf.data file.
 *
 * File mode: struct perf_file_header, the attrs (each attr.size bytes and
 * a perf_file_section of its ids), the data section, then one
 * perf_file_section per feature bit and the features.  Pipe mode: a
 * 16-byte header, then records only; attrs, features, build-ids and
 * tracing data come as records, gathered at open as if from a header.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "reader.h"
#include "../openfile.h"

#define BUF_SIZE	(1U << 20)
#define ATTR_SIZE_MAX	4096	/* larger than any perf_event_attr yet */
#define MAX_ATTRS	65536	/* perf has one per event */

static int fail(struct perf_reader *r, uint64_t offset, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int fail(struct perf_reader *r, uint64_t offset, const char *fmt, ...)
{
	int n = snprintf(r->error, sizeof(r->error), "%s: offset %llu: ", r->path,
			 (unsigned long long)offset);
	va_list ap;

	if (n < 0 || (size_t)n >= sizeof(r->error))
		return -1;
	va_start(ap, fmt);
	vsnprintf(r->error + n, sizeof(r->error) - n, fmt, ap);
	va_end(ap);
	return -1;
}

/* A record type for messages: perf's name and its number. */
static const char *type_str(uint32_t type, char *buf, size_t len)
{
	const char *name = perf_record_name(type);

	if (name)
		snprintf(buf, len, "%s (%u)", name, type);
	else
		snprintf(buf, len, "%u", type);
	return buf;
}

const char *perf_reader_error(const struct perf_reader *r)
{
	return r->error;
}

static int read_at(struct perf_reader *r, void *buf, size_t len, uint64_t off, const char *what)
{
	size_t done = 0;

	while (done < len) {
		ssize_t n = pread(r->fd, (uint8_t *)buf + done, len - done, (off_t)(off + done));

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return fail(r, off + done, "cannot read %s: %s", what, strerror(errno));
		if (!n)
			return fail(r, off + done, "the file ends inside %s (%zu of %zu bytes)",
				    what, done, len);
		done += (size_t)n;
	}
	return 0;
}

/* Is [off, off + len) inside the file? */
static int in_file(const struct perf_reader *r, uint64_t off, uint64_t len)
{
	return off <= r->file_size && len <= r->file_size - off;
}

static int has_bit(const uint64_t *bits, unsigned int bit)
{
	return !!(bits[bit / 64] & (1ULL << (bit % 64)));
}

static int refuse_compressed(struct perf_reader *r, uint64_t off)
{
	/* perf 6.1's perf inject copies compressed records as they are. */
	return fail(r, off, "compressed perf.data (perf record -z) is not supported: "
		    "record again without -z");
}

static int refuse_dir_format(struct perf_reader *r, uint64_t off)
{
	return fail(r, off, "written by perf record --threads (HEADER_DIR_FORMAT: its "
		    "records are in the directory's data.N files): not supported; record "
		    "again without --threads");
}

/*
 * The fixed fields of each record type the tool may look into, and where
 * a NUL-terminated name starts (0: none).  Kernel records also carry the
 * sample_id trailer.  Types not listed need only their header.
 */
static const struct {
	uint16_t min;
	uint16_t name_at;
} layouts[] = {
	[PERF_RECORD_MMAP]		= { PERF_MMAP_FIXED, PERF_MMAP_FIXED },
	[PERF_RECORD_LOST]		= { sizeof(struct perf_record_lost), 0 },
	[PERF_RECORD_COMM]		= { 16, 16 },
	[PERF_RECORD_EXIT]		= { 32, 0 },
	[PERF_RECORD_THROTTLE]		= { 32, 0 },
	[PERF_RECORD_UNTHROTTLE]	= { 32, 0 },
	[PERF_RECORD_FORK]		= { 32, 0 },
	[PERF_RECORD_READ]		= { 24, 0 },
	[PERF_RECORD_MMAP2]		= { PERF_MMAP2_FIXED, PERF_MMAP2_FIXED },
	[PERF_RECORD_AUX]		= { 32, 0 },
	[PERF_RECORD_ITRACE_START]	= { 16, 0 },
	[PERF_RECORD_LOST_SAMPLES]	= { sizeof(struct perf_record_lost_samples), 0 },
	[PERF_RECORD_SWITCH_CPU_WIDE]	= { 16, 0 },
	[PERF_RECORD_NAMESPACES]	= { 24, 0 },
	[PERF_RECORD_KSYMBOL]		= { 24, 24 },
	[PERF_RECORD_BPF_EVENT]		= { 24, 0 },
	[PERF_RECORD_CGROUP]		= { 16, 16 },
	[PERF_RECORD_TEXT_POKE]		= { 20, 0 },
	[PERF_RECORD_AUX_OUTPUT_HW_ID]	= { 16, 0 },
	[PERF_RECORD_HEADER_ATTR]	= { sizeof(struct perf_event_header) + PERF_ATTR_SIZE_VER0, 0 },
	[PERF_RECORD_HEADER_TRACING_DATA] = { sizeof(struct perf_record_header_tracing_data), 0 },
	[PERF_RECORD_HEADER_BUILD_ID]	= { PERF_BUILD_ID_FIXED, PERF_BUILD_ID_FIXED },
	[PERF_RECORD_ID_INDEX]		= { 16, 0 },
	[PERF_RECORD_AUXTRACE_INFO]	= { 16, 0 },
	[PERF_RECORD_AUXTRACE]		= { sizeof(struct perf_record_auxtrace), 0 },
	[PERF_RECORD_HEADER_FEATURE]	= { sizeof(struct perf_record_header_feature), 0 },
};

/*
 * Check the record @h (h->size bytes, aligned) at @off, with @end the end
 * of the data, and give the size of what follows it outside h->size.
 * @trailer: the sample_id's size is known (not yet while pipe-mode
 * attrs are gathered).
 */
static int check_record(struct perf_reader *r, const struct perf_event_header *h, uint64_t off,
			uint64_t end, int trailer, uint64_t *payload)
{
	unsigned int min = sizeof(*h), name_at = 0, tail = 0;
	const uint8_t *p = (const uint8_t *)h;
	char t[48];

	*payload = 0;
	if (h->type == PERF_RECORD_COMPRESSED || h->type == PERF_RECORD_COMPRESSED2)
		return refuse_compressed(r, off);
	/* perf pads build-id names and feature payloads to 4 bytes only. */
	if (h->size % 8 && h->type != PERF_RECORD_HEADER_BUILD_ID &&
	    h->type != PERF_RECORD_HEADER_FEATURE)
		return fail(r, off, "record of type %s has size %u, expected a multiple of 8",
			    type_str(h->type, t, sizeof(t)), h->size);
	if (h->type < sizeof(layouts) / sizeof(layouts[0]) && layouts[h->type].min) {
		min = layouts[h->type].min;
		name_at = layouts[h->type].name_at;
	}
	if (h->type < PERF_RECORD_USER_TYPE_START && h->type != PERF_RECORD_SAMPLE && trailer)
		tail = r->id.size;
	if (h->size < min + tail)
		return fail(r, off, "record of type %s has size %u, expected at least %u "
			    "(%u of fields, %u of sample_id)", type_str(h->type, t, sizeof(t)),
			    h->size, min + tail, min, tail);
	if (name_at && !memchr(p + name_at, 0, h->size - tail - name_at))
		return fail(r, off + name_at, "the name in the %s record: expected a NUL "
			    "within its %u bytes", type_str(h->type, t, sizeof(t)),
			    h->size - tail - name_at);

	switch (h->type) {
	case PERF_RECORD_NAMESPACES: {
		uint64_t nr;

		memcpy(&nr, p + 16, 8);
		if (nr > (h->size - tail - 24u) / 16)
			return fail(r, off + 16, "NAMESPACES record of %u bytes with %llu "
				    "namespaces, expected at most %u", h->size,
				    (unsigned long long)nr, (h->size - tail - 24u) / 16);
		break;
	}
	case PERF_RECORD_ID_INDEX: {
		uint64_t nr;

		memcpy(&nr, p + 8, 8);
		if (nr > (h->size - 16u) / 32)
			return fail(r, off + 8, "ID_INDEX record of %u bytes with %llu entries, "
				    "expected at most %u", h->size, (unsigned long long)nr,
				    (h->size - 16u) / 32);
		break;
	}
	case PERF_RECORD_HEADER_ATTR: {
		uint32_t asize;

		memcpy(&asize, p + sizeof(*h) + offsetof(struct perf_event_attr, size), 4);
		if (!asize)
			asize = PERF_ATTR_SIZE_VER0;
		if (asize < PERF_ATTR_SIZE_VER0 || asize > ATTR_SIZE_MAX ||
		    asize > h->size - sizeof(*h) || (h->size - sizeof(*h) - asize) % 8)
			return fail(r, off, "ATTR record of %u bytes with an attr of %u, expected "
				    "an attr of %u to %u bytes inside the record and whole u64 ids "
				    "after it", h->size, asize, PERF_ATTR_SIZE_VER0, ATTR_SIZE_MAX);
		break;
	}
	case PERF_RECORD_HEADER_FEATURE: {
		uint64_t feat;

		memcpy(&feat, p + sizeof(*h), 8);
		if (feat == HEADER_COMPRESSED)
			return refuse_compressed(r, off);
		if (feat == HEADER_DIR_FORMAT)
			return refuse_dir_format(r, off);
		/* The payload-less last one only marks the end (HEADER_LAST_FEATURE). */
		if (feat >= HEADER_FEAT_BITS && h->size > sizeof(struct perf_record_header_feature))
			return fail(r, off + 8, "FEATURE record for feature %llu, expected "
				    "below %d", (unsigned long long)feat, HEADER_FEAT_BITS);
		break;
	}
	case PERF_RECORD_AUXTRACE:
		memcpy(payload, p + offsetof(struct perf_record_auxtrace, size), 8);
		break;
	case PERF_RECORD_HEADER_TRACING_DATA: {
		uint32_t size;

		memcpy(&size, p + sizeof(*h), 4);
		*payload = size;
		break;
	}
	}
	if (*payload && (*payload % 8 || *payload > end - off - h->size))
		return fail(r, off, "%s record announces %llu bytes after it, expected a "
			    "multiple of 8 within the %llu left", type_str(h->type, t, sizeof(t)),
			    (unsigned long long)*payload,
			    (unsigned long long)(end - off - h->size));
	return 0;
}

/* Make [off, off + len) available in the buffer. */
static int fill(struct perf_reader *r, uint64_t off, size_t len)
{
	uint64_t end = r->data_offset + r->data_size;

	if (off >= r->buf_off && off - r->buf_off + len <= r->buf_len)
		return 0;
	if (r->buf_cap < len || (r->buf_cap < BUF_SIZE && r->buf_cap < end - off)) {
		/* Up to 1 MB at a time; no more than a small file needs. */
		size_t cap = end - off < BUF_SIZE ? (size_t)(end - off) : BUF_SIZE;
		uint8_t *n;

		if (cap < len)
			cap = len;
		n = realloc(r->buf, cap);
		if (!n)
			return fail(r, off, "out of memory");
		r->buf = n;
		r->buf_cap = cap;
	}
	r->buf_off = off;
	r->buf_len = end - off < r->buf_cap ? (size_t)(end - off) : r->buf_cap;
	if (read_at(r, r->buf, r->buf_len, off, "the data section")) {
		r->buf_len = 0;
		return -1;
	}
	return 0;
}

/* The record at r->pos, checked; *@payload: what follows it. */
static int next_record(struct perf_reader *r, const struct perf_event_header **rec,
		       uint64_t *payload, int trailer)
{
	uint64_t end = r->data_offset + r->data_size, off = r->pos;
	struct perf_event_header h;
	const uint8_t *p;
	char t[48];

	if (off >= end)
		return 0;
	if (end - off < sizeof(h))
		return fail(r, off, "%llu bytes left in the data section, expected a record "
			    "header of 8", (unsigned long long)(end - off));
	if (fill(r, off, sizeof(h)))
		return -1;
	memcpy(&h, r->buf + (off - r->buf_off), sizeof(h));
	if (h.size < sizeof(h) || h.size > end - off)
		return fail(r, off, "record of type %s has size %u, expected 8 to %llu",
			    type_str(h.type, t, sizeof(t)), h.size,
			    (unsigned long long)(end - off));
	if (fill(r, off, h.size))
		return -1;
	p = r->buf + (off - r->buf_off);
	/* After a record perf padded to 4 bytes: never a misaligned access. */
	if ((uintptr_t)p % 8) {
		if (r->copy_cap < h.size) {
			free(r->copy);
			r->copy = malloc(65536);
			if (!r->copy)
				return fail(r, off, "out of memory");
			r->copy_cap = 65536;
		}
		memcpy(r->copy, p, h.size);
		p = r->copy;
	}
	if (check_record(r, (const void *)p, off, end, trailer, payload))
		return -1;
	*rec = (const void *)p;
	r->pos = off + h.size + *payload;
	return 1;
}

/*
 * Stream mode: [r->buf_off, r->buf_off + r->buf_len) is what was read of
 * the stream and not yet passed on.  Drop what lies before @off and read
 * until @len bytes from @off are there, or the stream ends.  Returns the
 * bytes there from @off (fewer than @len only at the end), or -1.
 */
static long stream_fill(struct perf_reader *r, uint64_t off, size_t len)
{
	size_t drop = (size_t)(off - r->buf_off);

	if (drop) {
		memmove(r->buf, r->buf + drop, r->buf_len - drop);
		r->buf_len -= drop;
		r->buf_off = off;
	}
	if (r->buf_cap < len) {
		size_t cap = len < 65536 ? 65536 : len;
		uint8_t *n = realloc(r->buf, cap);

		if (!n)
			return fail(r, off, "out of memory");
		r->buf = n;
		r->buf_cap = cap;
	}
	while (r->buf_len < len && !r->stream_end) {
		ssize_t n;
		int w = r->wait ? r->wait(r->wait_arg, 0) : 0;

		if (w < 0)
			return -1;
		if (w) {
			r->stream_end = 1;
			break;
		}
		n = read(r->fd, r->buf + r->buf_len, r->buf_cap - r->buf_len);
		if (n < 0 && (errno == EINTR || errno == EAGAIN))
			continue;
		if (n < 0)
			return fail(r, off + r->buf_len, "cannot read the stream: %s",
				    strerror(errno));
		if (!n) {
			w = r->wait ? r->wait(r->wait_arg, 1) : 0;
			if (w < 0)
				return -1;
			if (w)
				continue;
			r->stream_end = 1;
		}
		r->buf_len += (size_t)n;
	}
	return (long)(r->buf_len < len ? r->buf_len : len);
}

int perf_reader_payload(struct perf_reader *r, int (*sink)(void *arg, const void *buf, size_t len),
			void *arg)
{
	uint64_t at = r->pos - r->payload_left;

	while (r->payload_left) {
		size_t want = r->payload_left < BUF_SIZE ? (size_t)r->payload_left : BUF_SIZE;
		long n = stream_fill(r, at, want);

		if (n < 0)
			return -1;
		if (!n) {
			r->truncated = 1;
			return fail(r, at, "the stream ends inside a record's payload (%llu bytes "
				    "short)", (unsigned long long)r->payload_left);
		}
		if (sink && sink(arg, r->buf, (size_t)n))
			return -1;
		at += (uint64_t)n;
		r->payload_left -= (uint64_t)n;
	}
	return 0;
}

static int check_attrs(struct perf_reader *r);
static int map_ids(struct perf_reader *r);
static int add_attr(struct perf_reader *r, const uint8_t *raw, uint32_t size,
		    const void *ids, uint64_t nr_ids, uint64_t off);

/* The features a stream's reader keeps as they pass, for perf_reader_feature(). */
static const unsigned int stream_feats[] = { HEADER_HOSTNAME, HEADER_OSRELEASE };

static int keep_stream_feature(struct perf_reader *r, const struct perf_record_header_feature *f)
{
	size_t len = f->header.size - sizeof(*f);
	unsigned int i;

	for (i = 0; i < sizeof(stream_feats) / sizeof(stream_feats[0]); i++) {
		if (f->feat_id != stream_feats[i] || f->header.size <= sizeof(*f))
			continue;
		free(r->stream_feat[i].buf);
		r->stream_feat[i].buf = malloc(len);
		r->stream_feat[i].len = r->stream_feat[i].buf ? len : 0;
		if (!r->stream_feat[i].buf)
			return -1;
		memcpy(r->stream_feat[i].buf, f + 1, len);
	}
	return 0;
}

/*
 * The next record of a stream.  Its attrs come as records first: they
 * are taken as they come, and must all be there by the first record
 * that has a sample_id trailer or a sample.
 */
static int stream_next(struct perf_reader *r, const struct perf_event_header **rec,
		       uint64_t *payload)
{
	uint64_t off;
	struct perf_event_header h;
	long n;
	char t[48];

	if (perf_reader_payload(r, NULL, NULL))
		return -1;
	off = r->pos;
	n = stream_fill(r, off, sizeof(h));
	if (n <= 0)
		return (int)n;
	if ((size_t)n < sizeof(h)) {
		r->truncated = 1;
		return fail(r, off, "the stream ends inside a record header (%ld of 8 bytes)", n);
	}
	memcpy(&h, r->buf, sizeof(h));
	if (h.size < sizeof(h))
		return fail(r, off, "record of type %s has size %u, expected at least 8",
			    type_str(h.type, t, sizeof(t)), h.size);
	n = stream_fill(r, off, h.size);
	if (n < 0)
		return -1;
	if ((size_t)n < h.size) {
		r->truncated = 1;
		return fail(r, off, "the stream ends inside a record of type %s (%ld of %u "
			    "bytes)", type_str(h.type, t, sizeof(t)), n, h.size);
	}
	/* perf's pipe mode begins with its attrs: nothing has meaning before them. */
	if (!r->nr_attrs && h.type != PERF_RECORD_HEADER_ATTR)
		return fail(r, off, "a record of type %s before any ATTR record, expected the "
			    "attrs first (perf record -o - writes them so)",
			    type_str(h.type, t, sizeof(t)));
	/* perf writes every attr first: the first other record ends them. */
	if (h.type != PERF_RECORD_HEADER_ATTR && !r->attrs_ready) {
		if (check_attrs(r) || (r->time_at == -2 && map_ids(r)))
			return -1;
		r->attrs_ready = 1;
	}
	if (check_record(r, (const void *)r->buf, off, UINT64_MAX, r->attrs_ready, payload))
		return -1;
	if (h.type == PERF_RECORD_HEADER_ATTR) {
		const uint8_t *p = r->buf;
		uint32_t asize;

		if (r->attrs_ready)
			return fail(r, off, "an ATTR record after other records, expected every "
				    "attr first (as perf record writes them)");
		memcpy(&asize, p + sizeof(h) + offsetof(struct perf_event_attr, size), 4);
		if (!asize)
			asize = PERF_ATTR_SIZE_VER0;
		if (add_attr(r, p + sizeof(h), asize, p + sizeof(h) + asize,
			     (h.size - sizeof(h) - asize) / 8, off))
			return -1;
	}
	if (h.type == PERF_RECORD_HEADER_FEATURE && keep_stream_feature(r, (const void *)r->buf))
		return fail(r, off, "out of memory");
	*rec = (const void *)r->buf;
	r->payload_left = *payload;
	r->pos = off + h.size + *payload;
	return 1;
}

static int add_attr(struct perf_reader *r, const uint8_t *raw, uint32_t size,
		    const void *ids, uint64_t nr_ids, uint64_t off)
{
	struct perf_reader_attr *a;

	if (r->nr_attrs == MAX_ATTRS)
		return fail(r, off, "more than %d attrs", MAX_ATTRS);
	a = realloc(r->attrs, (r->nr_attrs + 1) * sizeof(*a));
	if (!a)
		return fail(r, off, "out of memory");
	r->attrs = a;
	a = &r->attrs[r->nr_attrs];
	memset(a, 0, sizeof(*a));
	r->nr_attrs++;
	memcpy(&a->attr, raw, size < sizeof(a->attr) ? size : sizeof(a->attr));
	a->raw = malloc(size);
	a->ids = malloc(nr_ids ? nr_ids * 8 : 1);
	if (!a->raw || !a->ids)
		return fail(r, off, "out of memory");
	memcpy(a->raw, raw, size);
	a->raw_size = size;
	if (nr_ids)
		memcpy(a->ids, ids, nr_ids * 8);
	a->nr_ids = nr_ids;
	return 0;
}

/* Gather what a pipe-mode file carries in records. */
static int open_pipe(struct perf_reader *r)
{
	const struct perf_event_header *h;
	uint64_t payload;
	int ret;

	r->pipe = 1;
	r->data_offset = sizeof(struct perf_pipe_file_header);
	r->data_size = r->file_size - r->data_offset;
	r->pos = r->data_offset;
	while ((ret = next_record(r, &h, &payload, 0)) > 0) {
		uint64_t off = r->pos - h->size - payload;
		const uint8_t *p = (const uint8_t *)h;

		switch (h->type) {
		case PERF_RECORD_HEADER_ATTR: {
			uint32_t asize;

			memcpy(&asize, p + sizeof(*h) + offsetof(struct perf_event_attr, size), 4);
			if (!asize)
				asize = PERF_ATTR_SIZE_VER0;
			if (add_attr(r, p + sizeof(*h), asize, p + sizeof(*h) + asize,
				     (h->size - sizeof(*h) - asize) / 8, off))
				return -1;
			break;
		}
		case PERF_RECORD_HEADER_FEATURE: {
			uint64_t feat;

			memcpy(&feat, p + sizeof(*h), 8);
			if (h->size == sizeof(struct perf_record_header_feature))
				break;	/* the end mark, not a feature */
			r->features[feat / 64] |= 1ULL << (feat % 64);
			r->feat[feat].offset = off + sizeof(struct perf_record_header_feature);
			r->feat[feat].size = h->size - sizeof(struct perf_record_header_feature);
			break;
		}
		case PERF_RECORD_HEADER_TRACING_DATA:
			/* In a file it is a feature with the same bytes. */
			r->features[0] |= 1ULL << HEADER_TRACING_DATA;
			r->feat[HEADER_TRACING_DATA].offset = off + h->size;
			r->feat[HEADER_TRACING_DATA].size = payload;
			break;
		case PERF_RECORD_HEADER_BUILD_ID: {
			uint8_t *n = realloc(r->pipe_build_ids, r->pipe_build_ids_len + h->size);

			if (!n)
				return fail(r, off, "out of memory");
			memcpy(n + r->pipe_build_ids_len, h, h->size);
			r->pipe_build_ids = n;
			r->pipe_build_ids_len += h->size;
			break;
		}
		}
	}
	if (ret < 0)
		return -1;
	if (!r->nr_attrs)
		return fail(r, r->data_offset, "pipe-mode perf.data without an ATTR record");
	return 0;
}

/*
 * The sections of a file-mode perf.data: the header, the attrs, each
 * attr's ids, the data, the feature table and each feature.  perf writes
 * them apart; sections that share bytes would have each one read (and
 * merge write) the same bytes again, a file's size many times over.
 */
enum region_kind { REGION_HEADER, REGION_ATTRS, REGION_IDS, REGION_DATA, REGION_TABLE,
		   REGION_FEATURE };

struct region {
	uint64_t off, len;
	uint64_t at;		/* where the file gives it, for messages */
	uint32_t kind, index;	/* enum region_kind; which attr or feature */
};

struct layout {
	struct region *reg;
	size_t nr, cap;
};

static void region_str(const struct region *g, char *buf, size_t len)
{
	static const char * const names[] = {
		[REGION_HEADER] = "the header", [REGION_ATTRS] = "the attrs",
		[REGION_DATA] = "the data", [REGION_TABLE] = "the feature table",
	};
	const char *feat = perf_feature_name(g->index);

	if (g->kind == REGION_IDS)
		snprintf(buf, len, "the ids of attr %u", g->index);
	else if (g->kind == REGION_FEATURE && feat)
		snprintf(buf, len, "feature %u (%s)", g->index, feat);
	else if (g->kind == REGION_FEATURE)
		snprintf(buf, len, "feature %u", g->index);
	else
		snprintf(buf, len, "%s", names[g->kind]);
}

static int add_region(struct perf_reader *r, struct layout *l, uint64_t off, uint64_t len,
		      uint64_t at, uint32_t kind, uint32_t index)
{
	if (!len)
		return 0;	/* an empty section is nowhere */
	if (l->nr == l->cap) {
		size_t cap = l->cap ? 2 * l->cap : 64;
		struct region *n = realloc(l->reg, cap * sizeof(*n));

		if (!n)
			return fail(r, at, "out of memory");
		l->reg = n;
		l->cap = cap;
	}
	l->reg[l->nr++] = (struct region){ off, len, at, kind, index };
	return 0;
}

static int by_offset(const void *a, const void *b)
{
	const struct region *x = a, *y = b;

	if (x->off != y->off)
		return x->off < y->off ? -1 : 1;
	return x->at < y->at ? -1 : x->at > y->at;
}

/* No two sections share a byte. */
static int check_layout(struct perf_reader *r, struct layout *l)
{
	const struct region *last = NULL;
	char a[48], b[48];
	size_t i;

	qsort(l->reg, l->nr, sizeof(*l->reg), by_offset);
	for (i = 0; i < l->nr; i++) {
		const struct region *g = &l->reg[i];

		/* @last: of those before, the one that reaches furthest. */
		if (last && g->off < last->off + last->len) {
			region_str(last, a, sizeof(a));
			region_str(g, b, sizeof(b));
			return fail(r, g->at, "%s at [%llu, +%llu) and %s at [%llu, +%llu) overlap: "
				    "expected every section apart, as perf writes them", a,
				    (unsigned long long)last->off, (unsigned long long)last->len, b,
				    (unsigned long long)g->off, (unsigned long long)g->len);
		}
		if (!last || g->off + g->len > last->off + last->len)
			last = g;
	}
	return 0;
}

/* Read the attrs and their ids of a file-mode header. */
static int read_attrs(struct perf_reader *r, const struct perf_file_header *fh, struct layout *l)
{
	uint64_t nr = fh->attrs.size / fh->attr_size, i, total = 0;
	uint8_t *raw = malloc(fh->attr_size);
	int ret = -1;

	if (!raw)
		return fail(r, fh->attrs.offset, "out of memory");
	for (i = 0; i < nr; i++) {
		uint64_t off = fh->attrs.offset + i * fh->attr_size, *ids = NULL;
		struct perf_file_section sec;
		uint32_t asize;
		int err;

		if (read_at(r, raw, fh->attr_size, off, "an attr"))
			goto out;
		memcpy(&asize, raw + offsetof(struct perf_event_attr, size), 4);
		if (!asize)
			asize = PERF_ATTR_SIZE_VER0;
		if (asize + sizeof(sec) != fh->attr_size) {
			fail(r, off + offsetof(struct perf_event_attr, size), "attr %llu has size %u, "
			     "expected %llu (the header's attr size less 16)", (unsigned long long)i,
			     asize, (unsigned long long)(fh->attr_size - sizeof(sec)));
			goto out;
		}
		memcpy(&sec, raw + asize, sizeof(sec));
		if (!in_file(r, sec.offset, sec.size) || sec.size % 8) {
			fail(r, off + asize, "ids of attr %llu at [%llu, +%llu), expected whole u64s "
			     "inside the %llu-byte file", (unsigned long long)i,
			     (unsigned long long)sec.offset, (unsigned long long)sec.size,
			     (unsigned long long)r->file_size);
			goto out;
		}
		/*
		 * Apart, the ids add up to no more than the file: checked
		 * before they are read, so attrs that all name the same bytes
		 * cost no memory (check_layout() then says which overlap).
		 */
		total += sec.size;
		if (total > r->file_size) {
			fail(r, off + asize, "ids of attr %llu at [%llu, +%llu) bring the attrs' ids "
			     "to %llu bytes, expected at most the %llu of the file (sections "
			     "apart)", (unsigned long long)i, (unsigned long long)sec.offset,
			     (unsigned long long)sec.size, (unsigned long long)total,
			     (unsigned long long)r->file_size);
			goto out;
		}
		if (add_region(r, l, sec.offset, sec.size, off + asize, REGION_IDS, (uint32_t)i))
			goto out;
		if (sec.size) {
			ids = malloc(sec.size);
			if (!ids) {
				fail(r, sec.offset, "out of memory");
				goto out;
			}
			if (read_at(r, ids, sec.size, sec.offset, "sample ids")) {
				free(ids);
				goto out;
			}
		}
		err = add_attr(r, raw, asize, ids, sec.size / 8, off);
		free(ids);
		if (err)
			goto out;
	}
	ret = 0;
out:
	free(raw);
	return ret;
}

static int open_file_layout(struct perf_reader *r, const struct perf_file_header *fh,
			    struct layout *l)
{
	uint64_t table;
	unsigned int bit, n;

	if (fh->size != sizeof(*fh))
		return fail(r, offsetof(struct perf_file_header, size), "header size %llu, "
			    "expected %zu (or 16 in pipe mode)", (unsigned long long)fh->size,
			    sizeof(*fh));
	if (r->file_size < sizeof(*fh))
		return fail(r, 0, "%llu bytes, too short for a perf.data header of %zu",
			    (unsigned long long)r->file_size, sizeof(*fh));
	if (fh->attr_size < PERF_ATTR_SIZE_VER0 + sizeof(struct perf_file_section) ||
	    fh->attr_size > ATTR_SIZE_MAX + sizeof(struct perf_file_section) || fh->attr_size % 8)
		return fail(r, offsetof(struct perf_file_header, attr_size), "attr size %llu, "
			    "expected a multiple of 8 from %zu to %zu",
			    (unsigned long long)fh->attr_size,
			    PERF_ATTR_SIZE_VER0 + sizeof(struct perf_file_section),
			    ATTR_SIZE_MAX + sizeof(struct perf_file_section));
	if (!fh->attrs.size || fh->attrs.size % fh->attr_size || fh->attrs.offset < sizeof(*fh) ||
	    !in_file(r, fh->attrs.offset, fh->attrs.size))
		return fail(r, offsetof(struct perf_file_header, attrs), "attrs section [%llu, "
			    "+%llu), expected whole attrs of %llu bytes after the header, inside "
			    "the %llu-byte file", (unsigned long long)fh->attrs.offset,
			    (unsigned long long)fh->attrs.size, (unsigned long long)fh->attr_size,
			    (unsigned long long)r->file_size);
	if (fh->attrs.size / fh->attr_size > MAX_ATTRS)
		return fail(r, offsetof(struct perf_file_header, attrs), "%llu attrs, expected "
			    "at most %d", (unsigned long long)(fh->attrs.size / fh->attr_size),
			    MAX_ATTRS);
	if (fh->data.offset < sizeof(*fh) || !in_file(r, fh->data.offset, fh->data.size))
		return fail(r, offsetof(struct perf_file_header, data), "data section [%llu, "
			    "+%llu), expected it after the header, inside the %llu-byte file "
			    "(was the file cut short?)", (unsigned long long)fh->data.offset,
			    (unsigned long long)fh->data.size, (unsigned long long)r->file_size);
	if (fh->attrs.offset < fh->data.offset + fh->data.size &&
	    fh->data.offset < fh->attrs.offset + fh->attrs.size)
		return fail(r, offsetof(struct perf_file_header, attrs), "the attrs [%llu, +%llu) "
			    "and the data [%llu, +%llu) overlap", (unsigned long long)fh->attrs.offset,
			    (unsigned long long)fh->attrs.size, (unsigned long long)fh->data.offset,
			    (unsigned long long)fh->data.size);
	/* perf record writes the data size last: 0 means it never finished. */
	if (!fh->data.size)
		return fail(r, offsetof(struct perf_file_header, data.size), "data size 0: the "
			    "file is incomplete, as perf warns (\"Was the 'perf record' command "
			    "properly terminated?\"); it was killed or failed before writing its "
			    "header");
	r->data_offset = fh->data.offset;
	r->data_size = fh->data.size;
	memcpy(r->features, fh->adds_features, sizeof(r->features));
	if (has_bit(r->features, HEADER_COMPRESSED))
		return refuse_compressed(r, offsetof(struct perf_file_header, adds_features));
	if (has_bit(r->features, HEADER_DIR_FORMAT))
		return refuse_dir_format(r, offsetof(struct perf_file_header, adds_features));
	if (add_region(r, l, 0, sizeof(*fh), 0, REGION_HEADER, 0) ||
	    add_region(r, l, fh->attrs.offset, fh->attrs.size,
		       offsetof(struct perf_file_header, attrs), REGION_ATTRS, 0) ||
	    add_region(r, l, fh->data.offset, fh->data.size,
		       offsetof(struct perf_file_header, data), REGION_DATA, 0) ||
	    read_attrs(r, fh, l))
		return -1;

	/* The feature table follows the data section, a section per bit set. */
	table = r->data_offset + r->data_size;
	for (bit = 0, n = 0; bit < HEADER_FEAT_BITS; bit++) {
		struct perf_file_section sec;

		if (!has_bit(r->features, bit))
			continue;
		if (read_at(r, &sec, sizeof(sec), table + n * sizeof(sec), "the feature table"))
			return -1;
		if (!in_file(r, sec.offset, sec.size))
			return fail(r, table + n * sizeof(sec), "feature %u at [%llu, +%llu), "
				    "expected inside the %llu-byte file",
				    bit, (unsigned long long)sec.offset,
				    (unsigned long long)sec.size, (unsigned long long)r->file_size);
		r->feat[bit] = sec;
		if (add_region(r, l, sec.offset, sec.size, table + n * sizeof(sec), REGION_FEATURE,
			       bit))
			return -1;
		n++;
	}
	if (add_region(r, l, table, n * sizeof(struct perf_file_section),
		       offsetof(struct perf_file_header, adds_features), REGION_TABLE, 0))
		return -1;
	return check_layout(r, l);
}

static int open_file(struct perf_reader *r, const struct perf_file_header *fh)
{
	struct layout l = { 0 };
	int ret = open_file_layout(r, fh, &l);

	free(l.reg);
	return ret;
}

/* One trailer and one place for a sample's time, or a lookup by id. */
static int check_attrs(struct perf_reader *r)
{
	unsigned int i;

	sample_id_layout_init(&r->id, &r->attrs[0].attr);
	r->time_at = sample_time_offset(&r->attrs[0].attr);
	r->attr_bytes = 0;
	for (i = 0; i < r->nr_attrs; i++) {
		const struct perf_event_attr *a = &r->attrs[i].attr;
		struct sample_id_layout l;

		sample_id_layout_init(&l, a);
		if (l.fields != r->id.fields)
			return fail(r, r->pipe ? r->data_offset : 0, "attrs 0 and %u have different "
				    "sample_id layouts (sample_type 0x%llx and 0x%llx, sample_id_all "
				    "%u and %u), which perf cannot read", i,
				    (unsigned long long)r->attrs[0].attr.sample_type,
				    (unsigned long long)a->sample_type,
				    r->attrs[0].attr.sample_id_all, a->sample_id_all);
		if (sample_time_offset(a) != sample_time_offset(&r->attrs[0].attr))
			r->time_at = -2;	/* found per sample, by its IDENTIFIER */
		if (r->attrs[i].raw_size > r->attr_bytes)
			r->attr_bytes = r->attrs[i].raw_size;
	}
	/* One attr size for a file header: zero-extend the smaller ones. */
	for (i = 0; i < r->nr_attrs; i++) {
		struct perf_reader_attr *a = &r->attrs[i];
		uint8_t *n;

		if (a->raw_size == r->attr_bytes)
			continue;
		n = calloc(1, r->attr_bytes);
		if (!n)
			return fail(r, 0, "out of memory");
		memcpy(n, a->raw, a->raw_size);
		memcpy(n + offsetof(struct perf_event_attr, size), &r->attr_bytes, 4);
		free(a->raw);
		a->raw = n;
		a->raw_size = r->attr_bytes;
	}
	return 0;
}

static int by_id(const void *a, const void *b)
{
	const struct perf_reader_id *x = a, *y = b;

	return x->id < y->id ? -1 : x->id > y->id;
}

/* Samples' ids, sorted, for finding each one's attr. */
static int map_ids(struct perf_reader *r)
{
	unsigned int i;
	uint64_t j, n = 0;

	for (i = 0; i < r->nr_attrs; i++)
		n += r->attrs[i].nr_ids;
	r->ids = malloc((n ? n : 1) * sizeof(*r->ids));
	if (!r->ids)
		return fail(r, 0, "out of memory");
	for (i = 0; i < r->nr_attrs; i++)
		for (j = 0; j < r->attrs[i].nr_ids; j++)
			r->ids[r->nr_ids++] = (struct perf_reader_id){ r->attrs[i].ids[j], i };
	qsort(r->ids, r->nr_ids, sizeof(*r->ids), by_id);
	return 0;
}

int perf_reader_open_fd(struct perf_reader *r, int fd, const char *name)
{
	struct perf_file_header fh;
	struct stat st;

	memset(r, 0, sizeof(*r));
	r->path = name;
	r->fd = fd;
	if (fstat(fd, &st)) {
		fail(r, 0, "%s", strerror(errno));
		goto err;
	}
	if (S_ISDIR(st.st_mode)) {
		if (!faccessat(fd, "data", F_OK, 0))
			refuse_dir_format(r, 0);
		else
			fail(r, 0, "a directory, expected a perf.data file");
		goto err;
	}
	/* A FIFO would block, or be read once and gone. */
	if (!S_ISREG(st.st_mode)) {
		fail(r, 0, "not a regular file (a FIFO, socket or device), expected a "
		     "perf.data file");
		goto err;
	}
	r->st = st;
	r->file_size = (uint64_t)st.st_size;
	if (r->file_size < sizeof(struct perf_pipe_file_header)) {
		fail(r, 0, "%llu bytes, too short for a perf.data header",
		     (unsigned long long)r->file_size);
		goto err;
	}
	memset(&fh, 0, sizeof(fh));
	if (read_at(r, &fh, r->file_size < sizeof(fh) ? sizeof(struct perf_pipe_file_header) :
		    sizeof(fh), 0, "the file header"))
		goto err;
	if (fh.magic == PERF_MAGIC2_SWAPPED) {
		fail(r, 0, "byte-swapped perf.data (recorded on the other byte order) is not "
		     "supported");
		goto err;
	}
	if (fh.magic == PERF_MAGIC1) {
		fail(r, 0, "version 1 perf.data (\"PERFFILE\") is not supported");
		goto err;
	}
	if (fh.magic != PERF_MAGIC2) {
		fail(r, 0, "not a perf.data file: magic 0x%016llx, expected \"PERFILE2\"",
		     (unsigned long long)fh.magic);
		goto err;
	}
	if (fh.size == sizeof(struct perf_pipe_file_header) ? open_pipe(r) : open_file(r, &fh))
		goto err;
	if (check_attrs(r) || (r->time_at == -2 && map_ids(r)))
		goto err;
	r->pos = r->data_offset;
	return 0;
err:
	perf_reader_close(r);
	return -1;
}

int perf_reader_open(struct perf_reader *r, const char *path)
{
	/* Looked at first: a link to a device or a FIFO is never opened. */
	struct stat st;
	int fd = open_checked(path, S_IFREG, &st);

	if (fd == -2 && S_ISDIR(st.st_mode))
		fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0) {
		memset(r, 0, sizeof(*r));
		r->fd = -1;
		r->path = path;
		if (fd == -2)
			snprintf(r->error, sizeof(r->error), "%s: offset 0: not a regular file (%s), "
				 "expected a perf.data file", path, file_type_name(&st));
		else
			snprintf(r->error, sizeof(r->error), "%s: %s", path, strerror(errno));
		return -1;
	}
	return perf_reader_open_fd(r, fd, path);
}

int perf_reader_open_stream(struct perf_reader *r, int fd, const char *name,
			    int (*wait)(void *arg, int eof), void *wait_arg)
{
	struct perf_pipe_file_header ph;
	long n;

	memset(r, 0, sizeof(*r));
	r->path = name;
	r->fd = fd;
	r->stream = r->pipe = 1;
	r->wait = wait;
	r->wait_arg = wait_arg;
	n = stream_fill(r, 0, sizeof(ph));
	if (n < 0)
		goto err;
	if ((size_t)n < sizeof(ph)) {
		fail(r, 0, "%ld bytes, too short for a perf.data header", n);
		goto err;
	}
	memcpy(&ph, r->buf, sizeof(ph));
	if (ph.magic != PERF_MAGIC2) {
		fail(r, 0, "not perf's data: magic 0x%016llx, expected \"PERFILE2\"",
		     (unsigned long long)ph.magic);
		goto err;
	}
	if (ph.size != sizeof(ph)) {
		fail(r, 8, "a file-mode header (%llu bytes), expected perf's pipe mode (16): "
		     "perf record -o - writes it", (unsigned long long)ph.size);
		goto err;
	}
	r->data_offset = sizeof(ph);
	r->data_size = UINT64_MAX - sizeof(ph);
	r->pos = r->data_offset;
	return 0;
err:
	perf_reader_close(r);
	return -1;
}

void perf_reader_close(struct perf_reader *r)
{
	unsigned int i;

	if (r->fd >= 0)
		close(r->fd);
	r->fd = -1;
	for (i = 0; r->attrs && i < r->nr_attrs; i++) {
		free(r->attrs[i].raw);
		free(r->attrs[i].ids);
	}
	free(r->attrs);
	free(r->ids);
	r->ids = NULL;
	r->nr_ids = 0;
	free(r->pipe_build_ids);
	free(r->buf);
	free(r->copy);
	for (i = 0; i < sizeof(r->stream_feat) / sizeof(r->stream_feat[0]); i++) {
		free(r->stream_feat[i].buf);
		r->stream_feat[i].buf = NULL;
	}
	r->attrs = NULL;
	r->nr_attrs = 0;
	r->pipe_build_ids = NULL;
	r->buf = r->copy = NULL;
	r->buf_cap = r->copy_cap = r->buf_len = 0;
}

/* Where the sample @h has its time: by its IDENTIFIER's attr. */
static int sample_time_at(const struct perf_reader *r, const struct perf_event_header *h)
{
	struct perf_reader_id key, *found;

	if (r->time_at != -2)
		return r->time_at;
	if (!(r->attrs[0].attr.sample_type & PERF_SAMPLE_IDENTIFIER) ||
	    h->size < sizeof(*h) + 8)
		return -1;
	memcpy(&key.id, h + 1, 8);
	found = bsearch(&key, r->ids, r->nr_ids, sizeof(*r->ids), by_id);
	return found ? sample_time_offset(&r->attrs[found->attr].attr) : -1;
}

static int is_header_record(const struct perf_reader *r, uint32_t type)
{
	return r->pipe && (type == PERF_RECORD_HEADER_ATTR || type == PERF_RECORD_HEADER_FEATURE ||
			   type == PERF_RECORD_HEADER_BUILD_ID ||
			   type == PERF_RECORD_HEADER_TRACING_DATA);
}

int perf_reader_next(struct perf_reader *r, struct perf_rec *rec)
{
	const struct perf_event_header *h;
	uint64_t payload;
	int ret = r->stream ? stream_next(r, &h, &payload) : next_record(r, &h, &payload, 1);

	if (ret <= 0)
		return ret;
	memset(rec, 0, sizeof(*rec));
	rec->h = h;
	rec->payload = payload;
	rec->offset = r->pos - h->size - payload;
	rec->in_header = is_header_record(r, h->type);
	if (h->type == PERF_RECORD_SAMPLE) {
		int at = sample_time_at(r, h);

		if (at >= 0 && (unsigned int)at + 8 > h->size)
			return fail(r, rec->offset, "SAMPLE record of %u bytes, expected at least "
				    "%d for the fields before and with its time", h->size, at + 8);
		if (at >= 0) {
			memcpy(&rec->time, (const uint8_t *)h + at, 8);
			rec->has_time = 1;
		}
	} else if (h->type < PERF_RECORD_USER_TYPE_START && (r->id.fields & PERF_SAMPLE_TIME)) {
		struct sample_id s;

		sample_id_parse(&r->id, h, &s);	/* check_record() checked its size */
		rec->time = s.time;
		rec->has_time = 1;
	}
	return 1;
}

void perf_reader_seek(struct perf_reader *r, uint64_t off)
{
	r->pos = off;
}

void perf_reader_forget(struct perf_reader *r)
{
	r->buf_len = 0;
}

int perf_reader_next_as(struct perf_reader *r, struct perf_rec *rec,
			const struct perf_event_header *was)
{
	uint64_t end = r->data_offset + r->data_size, off = r->pos;
	struct perf_event_header h;
	char t[48], u[48];

	if (off >= end || end - off < sizeof(h))
		return fail(r, off, "no %s record of %u bytes in the data section [%llu, +%llu)",
			    type_str(was->type, t, sizeof(t)), was->size,
			    (unsigned long long)r->data_offset, (unsigned long long)r->data_size);
	if (fill(r, off, sizeof(h)))
		return -1;
	memcpy(&h, r->buf + (off - r->buf_off), sizeof(h));
	if (h.type != was->type || h.misc != was->misc || h.size != was->size)
		return fail(r, off, "a record of type %s, misc 0x%x and %u bytes, where the first "
			    "pass read type %s, misc 0x%x and %u bytes: expected the file unchanged "
			    "while it is read (was it written to?)", type_str(h.type, t, sizeof(t)),
			    h.misc, h.size, type_str(was->type, u, sizeof(u)), was->misc,
			    was->size);
	/* Its fields, names and trailer too: whoever reads it trusts them. */
	return perf_reader_next(r, rec) > 0 ? 0 : -1;
}

static int same_time(const struct timespec *a, const struct timespec *b)
{
	return a->tv_sec == b->tv_sec && a->tv_nsec == b->tv_nsec;
}

int perf_reader_unchanged(struct perf_reader *r)
{
	struct stat st;

	if (fstat(r->fd, &st))
		return fail(r, 0, "%s", strerror(errno));
	if (st.st_size != r->st.st_size)
		return fail(r, (uint64_t)(st.st_size < r->st.st_size ? st.st_size : r->st.st_size),
			    "the file is now %llu bytes, %llu when it was opened: expected it "
			    "unchanged while it is read; read a copy no one writes to",
			    (unsigned long long)st.st_size, (unsigned long long)r->st.st_size);
	/* A writer may set the mtime back; not the ctime. */
	if (!same_time(&st.st_mtim, &r->st.st_mtim) || !same_time(&st.st_ctim, &r->st.st_ctim))
		return fail(r, 0, "the file was written to (its modification or change time "
			    "moved) since it was opened: expected it unchanged while it is read; "
			    "read a copy no one writes to");
	return 0;
}

int perf_reader_has_feature(const struct perf_reader *r, unsigned int bit)
{
	return bit < HEADER_FEAT_BITS && has_bit(r->features, bit);
}

int perf_reader_feature(struct perf_reader *r, unsigned int bit, void **buf, size_t *len)
{
	unsigned int i;

	*buf = NULL;
	*len = 0;
	for (i = 0; r->stream && i < sizeof(stream_feats) / sizeof(stream_feats[0]); i++) {
		if (stream_feats[i] != bit || !r->stream_feat[i].buf)
			continue;
		*buf = malloc(r->stream_feat[i].len);
		if (!*buf)
			return fail(r, r->pos, "out of memory");
		memcpy(*buf, r->stream_feat[i].buf, r->stream_feat[i].len);
		*len = r->stream_feat[i].len;
		return 0;
	}
	if (!perf_reader_has_feature(r, bit))
		return 0;
	*buf = malloc(r->feat[bit].size ? r->feat[bit].size : 1);
	if (!*buf)
		return fail(r, r->feat[bit].offset, "out of memory");
	if (read_at(r, *buf, r->feat[bit].size, r->feat[bit].offset, "a feature section")) {
		free(*buf);
		*buf = NULL;
		return -1;
	}
	*len = r->feat[bit].size;
	return 0;
}

int perf_reader_string_feature(struct perf_reader *r, unsigned int bit, char *out, size_t len)
{
	uint32_t slen;
	size_t size;
	void *buf;

	out[0] = 0;
	if (perf_reader_feature(r, bit, &buf, &size) || !buf)
		return 0;
	/* u32 length (with padding), then the NUL-terminated string. */
	if (size >= 4) {
		memcpy(&slen, buf, 4);
		if (slen <= size - 4 && memchr((char *)buf + 4, 0, slen))
			snprintf(out, len, "%s", (char *)buf + 4);
	}
	free(buf);
	return out[0] != 0;
}

int perf_reader_build_ids(struct perf_reader *r, void **buf, size_t *len)
{
	struct perf_build_id_entry e;
	const char *why;
	size_t off = 0, prev = 0;
	int ret = 0;

	if (!r->pipe) {
		if (perf_reader_feature(r, HEADER_BUILD_ID, buf, len))
			return -1;
	} else {
		*buf = NULL;
		*len = r->pipe_build_ids_len;
		if (!*len)
			return 0;
		*buf = malloc(*len);
		if (!*buf)
			return fail(r, 0, "out of memory");
		memcpy(*buf, r->pipe_build_ids, *len);
	}
	/* Entries are read by whoever asked: check them all first. */
	while (*buf && (ret = perf_build_id_next(*buf, *len, &off, &e, &why)) > 0)
		prev = off;
	if (*buf && ret < 0) {
		free(*buf);
		*buf = NULL;
		return fail(r, r->pipe ? 0 : r->feat[HEADER_BUILD_ID].offset + prev,
			    "build-id table entry %zu bytes into the table of %zu: expected %s",
			    prev, *len, why);
	}
	return 0;
}

int perf_build_id_next(const uint8_t *table, size_t len, size_t *off,
		       struct perf_build_id_entry *e, const char **why)
{
	struct perf_record_header_build_id b;

	if (*off >= len)
		return 0;
	if (len - *off < PERF_BUILD_ID_FIXED + 1) {
		*why = "an entry of at least 37 bytes";
		return -1;
	}
	memcpy(&b, table + *off, PERF_BUILD_ID_FIXED);
	if (b.header.size < PERF_BUILD_ID_FIXED + 1 || b.header.size > len - *off) {
		*why = "an entry size from 37 to the end of the table";
		return -1;
	}
	if (!memchr(table + *off + PERF_BUILD_ID_FIXED, 0, b.header.size - PERF_BUILD_ID_FIXED)) {
		*why = "a NUL-terminated name inside the entry";
		return -1;
	}
	e->misc = b.header.misc;
	e->pid = b.pid;
	e->size = (b.header.misc & PERF_RECORD_MISC_BUILD_ID_SIZE) ? b.size : PERF_BUILD_ID_SIZE;
	if (e->size > PERF_BUILD_ID_SIZE)
		e->size = PERF_BUILD_ID_SIZE;
	memcpy(e->id, b.build_id, PERF_BUILD_ID_SIZE);
	e->name = (const char *)table + *off + PERF_BUILD_ID_FIXED;
	*off += b.header.size;
	return 1;
}
