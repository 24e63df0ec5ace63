// SPDX-License-Identifier: GPL-2.0
/*
 * userspace/perf_reader.c - reading a perf.data file (file mode).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "perf_reader.h"

#define PERF_MAGIC2		0x32454c4946524550ULL	/* "PERFILE2" */
#define PERF_MAGIC2_SWAPPED	0x50455246494c4532ULL
#define PERF_MAGIC1		0x454c494646524550ULL	/* "PERFFILE" */
#define HEADER_SIZE		104
#define PIPE_HEADER_SIZE	16
#define FEAT_COMPRESSED		27
#define FEAT_BUILD_ID		2
#define REC_HEADER_ATTR		64
#define REC_HEADER_TRACING_DATA	66
#define REC_HEADER_BUILD_ID	67
#define REC_HEADER_FEATURE	80
#define REC_COMPRESSED		81
#define REC_COMPRESSED2		83

struct file_header {
	uint64_t magic;
	uint64_t size;
	uint64_t attr_size;
	uint64_t attrs_offset, attrs_size;
	uint64_t data_offset, data_size;
	uint64_t event_types_offset, event_types_size;
	uint64_t adds_features[4];
};

static int err(const struct perf_reader *r, uint64_t offset, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "mmap3: %s: offset %llu: ", r->path, (unsigned long long)offset);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	return -1;
}

static int read_at(const struct perf_reader *r, void *buf, size_t len, uint64_t off,
		   const char *what)
{
	ssize_t n = pread(r->fd, buf, len, (off_t)off);

	if (n < 0)
		return err(r, off, "cannot read %s: %s", what, strerror(errno));
	if ((size_t)n != len)
		return err(r, off, "file ends inside %s (%zu of %zu bytes)", what, (size_t)n, len);
	return 0;
}

/* Is [off, off + len) inside the file? */
static int in_file(const struct perf_reader *r, uint64_t off, uint64_t len)
{
	return off <= r->file_size && len <= r->file_size - off;
}

static int next_record(struct perf_reader *r, const struct perf_event_header **rec,
		       uint64_t *offset);

/* Gather what a pipe-mode file carries in records. */
static int open_pipe(struct perf_reader *r)
{
	const struct perf_event_header *h;
	uint32_t max_size = 0;
	uint64_t off;
	unsigned int i;
	int ret;

	r->pipe = 1;
	r->data_offset = PIPE_HEADER_SIZE;
	r->data_size = r->file_size - PIPE_HEADER_SIZE;
	r->pos = r->data_offset;
	while ((ret = next_record(r, &h, &off)) > 0) {
		const uint8_t *p = (const uint8_t *)(h + 1);

		switch (h->type) {
		case REC_HEADER_ATTR: {
			uint32_t asize;
			struct perf_reader_attr *a;

			memcpy(&asize, p + 4, sizeof(asize));
			if (!asize)
				asize = PERF_ATTR_SIZE_VER0;
			if (asize < PERF_ATTR_SIZE_VER0 || asize > h->size - 8u ||
			    (h->size - 8u - asize) % 8 || r->nr_attrs == 64)
				return err(r, off, "HEADER_ATTR record of %u bytes with an attr of %u, "
					   "expected attr plus whole u64 ids (at most 64 attrs)",
					   h->size, asize);
			a = realloc(r->attrs, (r->nr_attrs + 1) * sizeof(*a));
			if (!a)
				return err(r, off, "out of memory");
			r->attrs = a;
			a = &r->attrs[r->nr_attrs];
			memset(a, 0, sizeof(*a));
			memcpy(&a->attr, p, asize < sizeof(a->attr) ? asize : sizeof(a->attr));
			a->raw = malloc(asize);
			r->pipe_ids[r->nr_attrs] = malloc(h->size - 8u - asize + 1);
			r->nr_attrs++;
			if (!a->raw || !r->pipe_ids[r->nr_attrs - 1])
				return err(r, off, "out of memory");
			memcpy(a->raw, p, asize);
			a->raw_size = asize;
			a->ids_size = h->size - 8u - asize;
			memcpy(r->pipe_ids[r->nr_attrs - 1], p + asize, a->ids_size);
			if (asize > max_size)
				max_size = asize;
			break;
		}
		case REC_HEADER_FEATURE: {
			uint64_t feat;

			if (h->size < 16)
				return err(r, off, "HEADER_FEATURE record of %u bytes, expected 16 or more",
					   h->size);
			memcpy(&feat, p, sizeof(feat));
			/*
			 * No payload: perf's end-of-features mark, sent with
			 * its HEADER_LAST_FEATURE, which a newer perf knows as
			 * a feature (6.1's 32 is 7.x's CPU_DOMAIN_INFO).
			 */
			if (h->size == 16)
				break;
			if (feat >= 256 || feat == FEAT_COMPRESSED)
				return err(r, off, feat == FEAT_COMPRESSED ?
					   "compressed perf.data (perf record -z) is not supported" :
					   "HEADER_FEATURE %llu, expected below 256",
					   (unsigned long long)feat);
			free(r->pipe_feat[feat]);
			r->pipe_feat[feat] = malloc(h->size - 16u + 1);
			if (!r->pipe_feat[feat])
				return err(r, off, "out of memory");
			memcpy(r->pipe_feat[feat], p + 8, h->size - 16u);
			r->feat_size[feat] = h->size - 16u;
			r->feat_offset[feat] = off + 16;
			r->features[feat / 64] |= 1ULL << (feat % 64);
			break;
		}
		case REC_HEADER_BUILD_ID: {
			uint8_t *n = realloc(r->pipe_build_ids, r->pipe_build_ids_len + h->size);

			if (!n)
				return err(r, off, "out of memory");
			memcpy(n + r->pipe_build_ids_len, h, h->size);
			r->pipe_build_ids = n;
			r->pipe_build_ids_len += h->size;
			break;
		}
		case REC_HEADER_TRACING_DATA:
			return err(r, off, "tracepoint data in pipe mode is not supported; "
				   "record to a file with perf record -o FILE");
		case REC_COMPRESSED:
		case REC_COMPRESSED2:
			return err(r, off, "compressed perf.data (perf record -z) is not supported; "
				   "record without -z");
		}
	}
	if (ret < 0)
		return -1;
	if (!r->nr_attrs)
		return err(r, PIPE_HEADER_SIZE, "pipe-mode perf.data without a HEADER_ATTR record");
	/* One attr size for the file header: zero-extend the smaller ones. */
	for (i = 0; i < r->nr_attrs; i++) {
		struct perf_reader_attr *a = &r->attrs[i];

		if (a->raw_size < max_size) {
			uint8_t *n = calloc(1, max_size);

			if (!n)
				return err(r, 0, "out of memory");
			memcpy(n, a->raw, a->raw_size);
			memcpy(n + 4, &max_size, sizeof(max_size));
			free(a->raw);
			a->raw = n;
			a->raw_size = max_size;
		}
	}
	r->attr_size = max_size + 16;
	r->pos = r->data_offset;
	return 0;
}

int perf_reader_open(struct perf_reader *r, const char *path)
{
	struct file_header h;
	struct stat st;
	unsigned int i, bit, n;

	memset(r, 0, sizeof(*r));
	r->path = path;
	r->fd = open(path, O_RDONLY | O_CLOEXEC);
	if (r->fd < 0) {
		fprintf(stderr, "mmap3: %s: %s\n", path, strerror(errno));
		return -1;
	}
	if (fstat(r->fd, &st) || !S_ISREG(st.st_mode)) {
		fprintf(stderr, "mmap3: %s: not a regular file\n", path);
		goto fail;
	}
	r->file_size = (uint64_t)st.st_size;
	if (r->file_size < PIPE_HEADER_SIZE) {
		err(r, 0, "%llu bytes, too short for a perf.data header",
		    (unsigned long long)r->file_size);
		goto fail;
	}
	memset(&h, 0, sizeof(h));
	if (read_at(r, &h, r->file_size < sizeof(h) ? PIPE_HEADER_SIZE : sizeof(h), 0,
		    "the file header"))
		goto fail;
	if (h.magic == PERF_MAGIC2_SWAPPED) {
		err(r, 0, "byte-swapped perf.data (recorded on another byte order) is not supported");
		goto fail;
	}
	if (h.magic == PERF_MAGIC1) {
		err(r, 0, "version 1 perf.data (\"PERFFILE\") is not supported");
		goto fail;
	}
	if (h.magic != PERF_MAGIC2) {
		err(r, 0, "not a perf.data file: magic 0x%016llx, expected \"PERFILE2\"",
		    (unsigned long long)h.magic);
		goto fail;
	}
	if (h.size == PIPE_HEADER_SIZE) {
		if (open_pipe(r))
			goto fail;
		return 0;
	}
	if (h.size != HEADER_SIZE) {
		err(r, 8, "header size %llu, expected %d", (unsigned long long)h.size, HEADER_SIZE);
		goto fail;
	}
	r->attr_size = h.attr_size;
	if (h.attr_size < PERF_ATTR_SIZE_VER0 + 16 || h.attr_size > 4096) {
		err(r, 16, "attr size %llu, expected %d to 4096", (unsigned long long)h.attr_size,
		    PERF_ATTR_SIZE_VER0 + 16);
		goto fail;
	}
	if (!in_file(r, h.attrs_offset, h.attrs_size) || h.attrs_size % h.attr_size ||
	    !h.attrs_size) {
		err(r, 24, "attrs section [%llu, +%llu) is not whole attrs of %llu bytes inside "
		    "the %llu-byte file", (unsigned long long)h.attrs_offset,
		    (unsigned long long)h.attrs_size, (unsigned long long)h.attr_size,
		    (unsigned long long)r->file_size);
		goto fail;
	}
	if (!in_file(r, h.data_offset, h.data_size)) {
		err(r, 40, "data section [%llu, +%llu) runs past the end of the %llu-byte file "
		    "(was perf record interrupted?)", (unsigned long long)h.data_offset,
		    (unsigned long long)h.data_size, (unsigned long long)r->file_size);
		goto fail;
	}
	r->data_offset = h.data_offset;
	r->data_size = h.data_size;
	memcpy(r->features, h.adds_features, sizeof(r->features));
	if (r->features[FEAT_COMPRESSED / 64] & (1ULL << (FEAT_COMPRESSED % 64))) {
		err(r, 72, "compressed perf.data (perf record -z) is not supported; "
		    "record without -z or run perf inject to decompress");
		goto fail;
	}

	r->nr_attrs = (unsigned int)(h.attrs_size / h.attr_size);
	r->attrs = calloc(r->nr_attrs, sizeof(*r->attrs));
	if (!r->attrs) {
		r->nr_attrs = 0;
		goto fail;
	}
	for (i = 0; i < r->nr_attrs; i++) {
		uint64_t off = h.attrs_offset + i * h.attr_size, ids[2];
		uint8_t raw[4096];
		uint32_t asize;

		if (read_at(r, raw, h.attr_size, off, "an attr"))
			goto fail;
		memcpy(&asize, raw + 4, sizeof(asize));
		if (!asize)
			asize = PERF_ATTR_SIZE_VER0;
		if (asize + 16 != h.attr_size) {
			err(r, off + 4, "attr %u has size %u, expected %llu (attr size - 16)", i,
			    asize, (unsigned long long)h.attr_size - 16);
			goto fail;
		}
		memcpy(&r->attrs[i].attr, raw,
		       asize < sizeof(r->attrs[i].attr) ? asize : sizeof(r->attrs[i].attr));
		r->attrs[i].raw = malloc(asize);
		if (!r->attrs[i].raw)
			goto fail;
		memcpy(r->attrs[i].raw, raw, asize);
		r->attrs[i].raw_size = asize;
		memcpy(ids, raw + asize, sizeof(ids));
		if (!in_file(r, ids[0], ids[1]) || ids[1] % 8) {
			err(r, off + asize, "ids of attr %u [%llu, +%llu) are not u64s inside the file",
			    i, (unsigned long long)ids[0], (unsigned long long)ids[1]);
			goto fail;
		}
		r->attrs[i].ids_offset = ids[0];
		r->attrs[i].ids_size = ids[1];
	}

	/* The feature table follows the data section. */
	n = 0;
	for (bit = 0; bit < 256; bit++)
		n += !!(r->features[bit / 64] & (1ULL << (bit % 64)));
	if (n) {
		uint64_t table = r->data_offset + r->data_size, sec[2];

		for (bit = 0, i = 0; bit < 256; bit++) {
			if (!(r->features[bit / 64] & (1ULL << (bit % 64))))
				continue;
			if (read_at(r, sec, sizeof(sec), table + 16 * i, "the feature table"))
				goto fail;
			if (!in_file(r, sec[0], sec[1])) {
				err(r, table + 16 * i, "feature %u [%llu, +%llu) is not inside the file",
				    bit, (unsigned long long)sec[0], (unsigned long long)sec[1]);
				goto fail;
			}
			r->feat_offset[bit] = sec[0];
			r->feat_size[bit] = sec[1];
			i++;
		}
	}
	r->pos = r->data_offset;
	return 0;
fail:
	perf_reader_close(r);
	return -1;
}

void perf_reader_close(struct perf_reader *r)
{
	if (r->fd >= 0)
		close(r->fd);
	r->fd = -1;
	for (unsigned int i = 0; r->attrs && i < r->nr_attrs; i++)
		free(r->attrs[i].raw);
	free(r->attrs);
	for (unsigned int i = 0; i < 64; i++) {
		free(r->pipe_ids[i]);
		r->pipe_ids[i] = NULL;
	}
	for (unsigned int i = 0; i < 256; i++) {
		free(r->pipe_feat[i]);
		r->pipe_feat[i] = NULL;
	}
	free(r->pipe_build_ids);
	r->pipe_build_ids = NULL;
	free(r->buf);
	r->attrs = NULL;
	r->buf = NULL;
}

/* Make [off, off + len) available in the buffer. */
static int fill(struct perf_reader *r, uint64_t off, size_t len)
{
	if (off >= r->buf_off && off + len <= r->buf_off + r->buf_len)
		return 0;
	if (r->buf_cap < len || r->buf_cap < (1 << 20)) {
		size_t cap = len > (1 << 20) ? len : (1 << 20);
		uint8_t *n = realloc(r->buf, cap);

		if (!n)
			return err(r, off, "out of memory");
		r->buf = n;
		r->buf_cap = cap;
	}
	r->buf_off = off;
	r->buf_len = r->data_offset + r->data_size - off;
	if (r->buf_len > r->buf_cap)
		r->buf_len = r->buf_cap;
	return read_at(r, r->buf, r->buf_len, off, "the data section");
}

static int next_record(struct perf_reader *r, const struct perf_event_header **rec,
		       uint64_t *offset)
{
	uint64_t end = r->data_offset + r->data_size;
	struct perf_event_header h;

	if (r->pos == end)
		return 0;
	if (end - r->pos < sizeof(h))
		return err(r, r->pos, "%llu bytes left in the data section, expected a record "
			   "header of 8", (unsigned long long)(end - r->pos));
	if (fill(r, r->pos, sizeof(h)))
		return -1;
	memcpy(&h, r->buf + (r->pos - r->buf_off), sizeof(h));
	if (h.size < sizeof(h) || h.size > end - r->pos)
		return err(r, r->pos, "record of type %u has size %u, expected 8 to %llu",
			   h.type, h.size, (unsigned long long)(end - r->pos));
	if (fill(r, r->pos, h.size))
		return -1;
	*rec = (const void *)(r->buf + (r->pos - r->buf_off));
	*offset = r->pos;
	r->pos += h.size;
	return 1;
}

int perf_reader_next(struct perf_reader *r, const struct perf_event_header **rec,
		     uint64_t *offset)
{
	int ret;

	while ((ret = next_record(r, rec, offset)) > 0) {
		/* In pipe mode these are the header: perf_reader_open() has them. */
		if (r->pipe && ((*rec)->type == REC_HEADER_ATTR ||
				(*rec)->type == REC_HEADER_FEATURE ||
				(*rec)->type == REC_HEADER_BUILD_ID))
			continue;
		return ret;
	}
	return ret;
}

int perf_reader_build_ids(struct perf_reader *r, void **buf, size_t *len)
{
	if (!r->pipe)
		return perf_reader_feature(r, FEAT_BUILD_ID, buf, len);
	*buf = NULL;
	*len = r->pipe_build_ids_len;
	if (!*len)
		return 0;
	*buf = malloc(*len);
	if (!*buf)
		return err(r, 0, "out of memory");
	memcpy(*buf, r->pipe_build_ids, *len);
	return 0;
}

int perf_reader_ids(struct perf_reader *r, unsigned int i, uint64_t **ids)
{
	const struct perf_reader_attr *a = &r->attrs[i];

	*ids = malloc(a->ids_size ? a->ids_size : 1);
	if (!*ids)
		return err(r, a->ids_offset, "out of memory");
	if (r->pipe) {
		memcpy(*ids, r->pipe_ids[i], a->ids_size);
		return 0;
	}
	if (read_at(r, *ids, a->ids_size, a->ids_offset, "sample ids")) {
		free(*ids);
		*ids = NULL;
		return -1;
	}
	return 0;
}

int perf_reader_read(struct perf_reader *r, void *buf, size_t len, uint64_t off)
{
	return read_at(r, buf, len, off, "a record");
}

/* Restart the iteration over the data section. */
void perf_reader_rewind(struct perf_reader *r)
{
	r->pos = r->data_offset;
}

int perf_reader_feature(struct perf_reader *r, unsigned int bit, void **buf, size_t *len)
{
	*buf = NULL;
	*len = 0;
	if (bit >= 256 || !r->feat_offset[bit])
		return 0;
	if (r->pipe) {
		*buf = malloc(r->feat_size[bit] + 1);
		if (!*buf)
			return err(r, r->feat_offset[bit], "out of memory");
		memcpy(*buf, r->pipe_feat[bit], r->feat_size[bit]);
		*len = r->feat_size[bit];
		return 0;
	}
	*buf = malloc(r->feat_size[bit] ? r->feat_size[bit] : 1);
	if (!*buf)
		return err(r, r->feat_offset[bit], "out of memory");
	if (read_at(r, *buf, r->feat_size[bit], r->feat_offset[bit], "a feature section")) {
		free(*buf);
		*buf = NULL;
		return -1;
	}
	*len = r->feat_size[bit];
	return 0;
}
