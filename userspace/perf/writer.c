// SPDX-License-Identifier: GPL-2.0
/*
 * userspace/perf/writer.c - writing a perf.data file (see writer.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../msg.h"
#include "reader.h"
#include "writer.h"

/*
 * Records are gathered into a write of BUF_SIZE: the largest record
 * (header.size is 16 bits) fits, a write costs little beside 64 KiB of
 * records, and a session's tool keeps no more memory than that: a
 * short session would otherwise fault in and clear more buffer than it
 * writes.  Copies of whole ranges go by COPY_CHUNK.
 */
#define BUF_SIZE	(64U << 10)
#define COPY_CHUNK	(1U << 20)
/* The smallest attr that holds every bit we set (build_id is in VER0). */
#define ATTR_SIZE	PERF_ATTR_SIZE_VER5
/*
 * Start writing back every WRITE_BACK bytes, so the fsync at the end
 * finds most of the file on disk, not all of it still to write.
 */
#define WRITE_BACK	(32ULL << 20)

static int fail(struct perf_writer *w, const char *what, uint64_t off, int err)
{
	msg_err("%s: cannot write %s at offset %llu: %s", w->out.path, what,
		(unsigned long long)off, strerror(err));
	return -1;
}

/* @len bytes at @off of @fd (the output, or the build-ids beside it). */
static int pwrite_fd(struct perf_writer *w, int fd, const void *buf, size_t len, uint64_t off,
		     const char *what)
{
	size_t done = 0;

	while (done < len) {
		ssize_t n = pwrite(fd, (const uint8_t *)buf + done, len - done, (off_t)(off + done));

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return fail(w, what, off + done, n < 0 ? errno : EIO);
		done += (size_t)n;
	}
	return 0;
}

static int pwrite_all(struct perf_writer *w, const void *buf, size_t len, uint64_t off,
		      const char *what)
{
	return pwrite_fd(w, w->out.fd, buf, len, off, what);
}

static void write_back(struct perf_writer *w, uint64_t end)
{
	if (end - w->written_back < WRITE_BACK)
		return;
	sync_file_range(w->out.fd, (off64_t)w->written_back, (off64_t)(end - w->written_back),
			SYNC_FILE_RANGE_WRITE);
	w->written_back = end;
}

/* Pipe mode: @len bytes to the reader, in order. */
static int write_all(struct perf_writer *w, const void *buf, size_t len)
{
	size_t done = 0;

	while (done < len) {
		ssize_t n = write(w->out.fd, (const uint8_t *)buf + done, len - done);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno == EPIPE) {
			msg_err("%s: the reader closed the pipe (did perf report exit?)",
				w->out.path);
			return -1;
		}
		if (n <= 0)
			return fail(w, "records", w->buf_off + done, n < 0 ? errno : EIO);
		done += (size_t)n;
	}
	return 0;
}

static int flush(struct perf_writer *w)
{
	if (!w->buf_len)
		return 0;
	if (w->pipe ? write_all(w, w->buf, w->buf_len) :
	    pwrite_all(w, w->buf, w->buf_len, w->buf_off, "records"))
		return -1;
	w->buf_off += w->buf_len;
	w->buf_len = 0;
	if (!w->pipe)
		write_back(w, w->buf_off);
	return 0;
}

int perf_writer_flush(struct perf_writer *w)
{
	return flush(w);
}

int perf_writer_open_pipe(struct perf_writer *w, int fd, const char *name)
{
	static const struct perf_pipe_file_header ph = {
		.magic = PERF_MAGIC2,
		.size = sizeof(ph),
	};

	memset(w, 0, sizeof(*w));
	w->pipe = 1;
	w->out.path = name;
	w->out.fd = fd;
	w->buf = malloc(BUF_SIZE);
	if (!w->buf) {
		msg_err("%s: out of memory", name);
		return -1;
	}
	memcpy(w->buf, &ph, sizeof(ph));
	w->buf_len = sizeof(ph);
	return 0;
}

int perf_writer_open(struct perf_writer *w, const char *path, const struct perf_writer_attr *attrs,
		     unsigned int nr, uint32_t attr_bytes, const struct outfile_input *inputs,
		     unsigned int nr_inputs)
{
	struct perf_file_header hdr = { 0 };
	uint64_t off = sizeof(hdr), ids_off;
	unsigned int i;

	memset(w, 0, sizeof(*w));
	if (outfile_open(&w->out, path, inputs, nr_inputs))
		return -1;
	w->buf = malloc(BUF_SIZE);
	if (!w->buf) {
		msg_err("%s: out of memory", path);
		goto err;
	}
	/* The header is written last, when the sizes are known. */
	if (pwrite_all(w, &hdr, sizeof(hdr), 0, "the header"))
		goto err;
	ids_off = off;
	for (i = 0; i < nr; i++) {
		if (attrs[i].nr_ids && pwrite_all(w, attrs[i].ids, attrs[i].nr_ids * 8, off,
						  "sample ids"))
			goto err;
		off += attrs[i].nr_ids * 8;
	}
	w->attrs_offset = off;
	w->attr_size = attr_bytes + sizeof(struct perf_file_section);
	w->attrs_size = nr * w->attr_size;
	for (i = 0; i < nr; i++) {
		struct perf_file_section ids = { attrs[i].nr_ids ? ids_off : 0, attrs[i].nr_ids * 8 };

		if (pwrite_all(w, attrs[i].attr, attr_bytes, off, "an attr") ||
		    pwrite_all(w, &ids, sizeof(ids), off + attr_bytes, "an attr"))
			goto err;
		ids_off += attrs[i].nr_ids * 8;
		off += w->attr_size;
	}
	w->data_offset = w->buf_off = off;
	return 0;
err:
	perf_writer_abort(w);
	return -1;
}

int perf_writer_open_like(struct perf_writer *w, const char *path, const struct perf_reader *in,
			  const struct outfile_input *inputs, unsigned int nr_inputs)
{
	struct perf_writer_attr *attrs = calloc(in->nr_attrs, sizeof(*attrs));
	unsigned int i;
	int ret;

	if (!attrs) {
		msg_err("%s: out of memory", path);
		return -1;
	}
	for (i = 0; i < in->nr_attrs; i++)
		attrs[i] = (struct perf_writer_attr){ in->attrs[i].raw, in->attrs[i].ids,
						      in->attrs[i].nr_ids };
	ret = perf_writer_open(w, path, attrs, in->nr_attrs, in->attr_bytes, inputs, nr_inputs);
	free(attrs);
	return ret;
}

int perf_writer_open_one(struct perf_writer *w, const char *path,
			 const struct perf_event_attr *attr)
{
	struct perf_event_attr a = *attr;
	struct perf_writer_attr in = { .attr = &a };

	a.size = ATTR_SIZE;
	return perf_writer_open(w, path, &in, 1, ATTR_SIZE, NULL, 0);
}

/* Append @len bytes to the temporary file of perf's build-id entries. */
static int ids_spill(struct perf_writer *w, const void *buf, size_t len)
{
	if (!w->ids_open) {
		if (outfile_open_at(&w->ids, w->out.dirfd, ".mmap3-build-ids", w->out.path))
			return -1;
		w->ids_open = 1;
	}
	if (pwrite_fd(w, w->ids.fd, buf, len, w->ids_len, "perf's build-ids beside it"))
		return -1;
	w->ids_len += len;
	return 0;
}

int perf_writer_header_record(struct perf_writer *w, const struct perf_event_header *h,
			      const void *payload, uint64_t len)
{
	const struct perf_record_header_feature *f = (const void *)h;

	if (w->pipe)
		return perf_writer_record(w, h) || (len && perf_writer_data(w, payload, len)) ? -1 : 0;
	switch (h->type) {
	case PERF_RECORD_HEADER_FEATURE:
		/* The last, empty one only marks the end of the features. */
		if (h->size <= sizeof(*f) || f->feat_id >= HEADER_FEAT_BITS)
			return 0;
		return perf_writer_feature(w, (unsigned int)f->feat_id, f + 1, h->size - sizeof(*f));
	case PERF_RECORD_HEADER_TRACING_DATA:
		return perf_writer_feature(w, HEADER_TRACING_DATA, payload, len);
	case PERF_RECORD_HEADER_BUILD_ID:
		return ids_spill(w, h, h->size);
	default:
		/* Attrs and event types: in the file's header already. */
		return 0;
	}
}

int perf_writer_build_ids(struct perf_writer *w, const void *entries, size_t len)
{
	uint8_t *n;
	size_t cap;

	if (w->pipe) {
		const uint8_t *p = entries, *end = p + len;

		/* Each padded to 8 bytes, as perf 7 requires of every event in a pipe. */
		while (p < end) {
			struct perf_event_header h;
			size_t size;

			memcpy(&h, p, sizeof(h));
			size = (h.size + 7U) & ~7U;
			if (perf_writer_data(w, &(struct perf_event_header){ h.type, h.misc,
					     (uint16_t)size }, sizeof(h)) ||
			    perf_writer_data(w, p + sizeof(h), h.size - sizeof(h)) ||
			    perf_writer_data(w, "\0\0\0\0\0\0\0", size - h.size))
				return -1;
			p += h.size;
		}
		return 0;
	}
	if (w->own_ids_len + len > w->own_ids_cap) {
		for (cap = w->own_ids_cap ? w->own_ids_cap : 4096; cap < w->own_ids_len + len; )
			cap *= 2;
		n = realloc(w->own_ids, cap);
		if (!n) {
			msg_err("%s: out of memory", w->out.path);
			return -1;
		}
		w->own_ids = n;
		w->own_ids_cap = cap;
	}
	memcpy(w->own_ids + w->own_ids_len, entries, len);
	w->own_ids_len += len;
	return 0;
}

/* The table: perf's entries, then ours, copied from beside the file at the end. */
static int build_id_table(struct perf_writer *w)
{
	if (!w->ids_open && !w->own_ids_len)
		return 0;
	if (!w->ids_open)
		return perf_writer_feature(w, HEADER_BUILD_ID, w->own_ids, w->own_ids_len);
	if (w->own_ids_len && ids_spill(w, w->own_ids, w->own_ids_len))
		return -1;
	return perf_writer_feature_copy(w, HEADER_BUILD_ID, w->ids.fd, 0, w->ids_len);
}

uint64_t perf_writer_offset(const struct perf_writer *w)
{
	return w->data_offset + w->data_size;
}

void *perf_writer_reserve(struct perf_writer *w, size_t size)
{
	if (size > BUF_SIZE) {
		fail(w, "a record", perf_writer_offset(w), EMSGSIZE);
		return NULL;
	}
	if (w->buf_len + size > BUF_SIZE && flush(w))
		return NULL;
	return w->buf + w->buf_len;
}

void perf_writer_commit(struct perf_writer *w, size_t size)
{
	w->buf_len += size;
	w->data_size += size;
}

int perf_writer_record(struct perf_writer *w, const void *rec)
{
	const struct perf_event_header *h = rec;

	if (w->buf_len + h->size > BUF_SIZE && flush(w))
		return -1;
	memcpy(w->buf + w->buf_len, rec, h->size);
	w->buf_len += h->size;
	w->data_size += h->size;
	return 0;
}

int perf_writer_data(struct perf_writer *w, const void *buf, size_t len)
{
	while (len) {
		size_t k;

		if (w->buf_len == BUF_SIZE && flush(w))
			return -1;
		k = BUF_SIZE - w->buf_len < len ? BUF_SIZE - w->buf_len : len;
		memcpy(w->buf + w->buf_len, buf, k);
		w->buf_len += k;
		w->data_size += k;
		buf = (const uint8_t *)buf + k;
		len -= k;
	}
	return 0;
}

/* @len bytes at @off in @fd to @to in the output; @what for messages. */
static int copy_range(struct perf_writer *w, int fd, uint64_t off, uint64_t to, uint64_t len,
		      const char *what)
{
	loff_t in = (loff_t)off, out = (loff_t)to;
	uint64_t left = len;
	uint8_t *buf;

	while (left && !w->no_copy_range) {
		ssize_t n = copy_file_range(fd, &in, w->out.fd, &out,
					    left < WRITE_BACK ? left : WRITE_BACK, 0);

		/* Not between these files: do not ask again for every run. */
		if (n < 0 && (errno == EXDEV || errno == ENOSYS || errno == EINVAL ||
			      errno == EOPNOTSUPP))
			w->no_copy_range = 1;
		else if (n < 0 && errno != EINTR)
			return fail(w, what, (uint64_t)out, errno);
		if (n == 0)
			break;	/* the input shrank: copied by hand, which says so */
		if (n > 0) {
			left -= (uint64_t)n;
			write_back(w, (uint64_t)out);
		}
	}
	if (left) {
		buf = malloc(COPY_CHUNK);
		if (!buf)
			return fail(w, what, (uint64_t)out, ENOMEM);
		while (left) {
			size_t chunk = left < COPY_CHUNK ? (size_t)left : COPY_CHUNK;
			ssize_t n = pread(fd, buf, chunk, in);

			if (n < 0 && errno == EINTR)
				continue;
			if (n <= 0) {
				msg_err("%s: cannot read %s to copy at offset %llu: %s",
					w->out.path, what, (unsigned long long)in,
					n ? strerror(errno) : "the input ended early");
				free(buf);
				return -1;
			}
			if (pwrite_all(w, buf, (size_t)n, (uint64_t)out, what)) {
				free(buf);
				return -1;
			}
			in += n;
			out += n;
			left -= (uint64_t)n;
		}
		free(buf);
	}
	return 0;
}

int perf_writer_copy(struct perf_writer *w, int fd, uint64_t off, uint64_t len)
{
	if (flush(w) || copy_range(w, fd, off, w->buf_off, len, "records"))
		return -1;
	w->data_size += len;
	w->buf_off += len;
	return 0;
}

int perf_writer_feature(struct perf_writer *w, unsigned int bit, const void *buf, size_t len)
{
	void *copy;

	if (bit >= HEADER_FEAT_BITS)
		return -1;
	copy = malloc(len ? len : 1);
	if (!copy) {
		msg_err("%s: out of memory", w->out.path);
		return -1;
	}
	memcpy(copy, buf, len);
	free(w->feat[bit].buf);
	w->feat[bit].set = 1;
	w->feat[bit].buf = copy;
	w->feat[bit].len = len;
	return 0;
}

int perf_writer_feature_copy(struct perf_writer *w, unsigned int bit, int fd, uint64_t off,
			     uint64_t len)
{
	if (bit >= HEADER_FEAT_BITS)
		return -1;
	free(w->feat[bit].buf);
	w->feat[bit].set = 1;
	w->feat[bit].buf = NULL;
	w->feat[bit].fd = fd;
	w->feat[bit].off = off;
	w->feat[bit].len = len;
	return 0;
}

int perf_writer_string_feature(struct perf_writer *w, unsigned int bit, const char *s)
{
	uint32_t len = (uint32_t)((strlen(s) + 1 + 63) & ~63UL);
	uint8_t *buf = calloc(1, sizeof(len) + len);
	int ret;

	if (!buf) {
		msg_err("%s: out of memory", w->out.path);
		return -1;
	}
	memcpy(buf, &len, sizeof(len));
	memcpy(buf + sizeof(len), s, strlen(s));
	ret = perf_writer_feature(w, bit, buf, sizeof(len) + len);
	free(buf);
	return ret;
}

static void free_features(struct perf_writer *w)
{
	unsigned int bit;

	for (bit = 0; bit < HEADER_FEAT_BITS; bit++) {
		free(w->feat[bit].buf);
		w->feat[bit].buf = NULL;
		w->feat[bit].set = 0;
	}
	free(w->buf);
	w->buf = NULL;
	free(w->own_ids);
	w->own_ids = NULL;
	w->own_ids_len = w->own_ids_cap = 0;
	if (w->ids_open)
		outfile_abort(&w->ids);
	w->ids_open = 0;
}

int perf_writer_finish(struct perf_writer *w)
{
	struct perf_file_header hdr = {
		.magic = PERF_MAGIC2,
		.size = sizeof(hdr),
		.attr_size = w->attr_size,
		.attrs = { w->attrs_offset, w->attrs_size },
		.data = { w->data_offset, w->data_size },
	};
	struct perf_file_section sec;
	unsigned int bit, n = 0;
	uint64_t off, table;

	if (w->pipe) {
		if (flush(w))
			return -1;
		free_features(w);
		w->finished = 1;
		return 0;
	}
	if (flush(w) || build_id_table(w))
		goto err;
	table = w->data_offset + w->data_size;
	for (bit = 0; bit < HEADER_FEAT_BITS; bit++)
		n += w->feat[bit].set;
	off = table + n * sizeof(sec);
	for (bit = 0, n = 0; bit < HEADER_FEAT_BITS; bit++) {
		if (!w->feat[bit].set)
			continue;
		hdr.adds_features[bit / 64] |= 1ULL << (bit % 64);
		sec.offset = off;
		sec.size = w->feat[bit].len;
		if ((w->feat[bit].buf ?
		     pwrite_all(w, w->feat[bit].buf, w->feat[bit].len, off, "a feature section") :
		     copy_range(w, w->feat[bit].fd, w->feat[bit].off, off, w->feat[bit].len,
				"a feature section")) ||
		    pwrite_all(w, &sec, sizeof(sec), table + n * sizeof(sec), "the feature table"))
			goto err;
		off += w->feat[bit].len;
		n++;
	}
	if (pwrite_all(w, &hdr, sizeof(hdr), 0, "the header"))
		goto err;
	free_features(w);
	w->finished = 1;
	return 0;
err:
	perf_writer_abort(w);
	return -1;
}

int perf_writer_close(struct perf_writer *w)
{
	if (!w->finished && perf_writer_finish(w))
		return -1;
	return w->pipe ? 0 : outfile_commit(&w->out) ? -1 : 0;
}

void perf_writer_abort(struct perf_writer *w)
{
	if (!w->pipe)
		outfile_abort(&w->out);
	free_features(w);
}
