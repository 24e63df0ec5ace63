// SPDX-License-Identifier: GPL-2.0
/*
 * userspace/perf_file.c - writing a perf.data file (file mode).
 *
 *	[0]	struct perf_file_header (104 bytes)
 *	[104]	the attr: struct perf_event_attr (attr.size bytes), then its
 *		ids section (empty)
 *	[...]	data: the records
 *	[...]	one struct perf_file_section per feature bit set, then the
 *		feature payloads
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "perf_file.h"

#define PERF_MAGIC2	0x32454c4946524550ULL	/* "PERFILE2" */
#define HEADER_SIZE	104
/* The smallest attr that holds every bit we set (build_id is in VER0). */
#define ATTR_SIZE	PERF_ATTR_SIZE_VER5

struct file_section {
	uint64_t offset;
	uint64_t size;
};

struct file_header {
	uint64_t magic;
	uint64_t size;
	uint64_t attr_size;
	struct file_section attrs;
	struct file_section data;
	struct file_section event_types;
	uint64_t adds_features[4];
};

/* Named by the output's path: the temporary file is removed on failure. */
static int fail(struct perf_file_writer *w, const char *what)
{
	int err = errno;
	off_t off = w->f ? ftello(w->f) : -1;

	if (off >= 0)
		fprintf(stderr, "mmap3: %s: %s at offset %lld: %s\n", w->path, what,
			(long long)off, strerror(err));
	else
		fprintf(stderr, "mmap3: %s: %s: %s\n", w->path, what, strerror(err));
	return -1;
}

static int write_at(struct perf_file_writer *w, const void *buf, size_t len, uint64_t off,
		    const char *what)
{
	if (fseeko(w->f, (off_t)off, SEEK_SET) || fwrite(buf, 1, len, w->f) != len)
		return fail(w, what);
	return 0;
}

static int create(struct perf_file_writer *w, const char *path)
{
	memset(w, 0, sizeof(*w));
	w->path = path;
	if (asprintf(&w->tmp_path, "%s.mmap3-tmp", path) < 0) {
		w->tmp_path = NULL;
		return fail(w, "out of memory");
	}
	w->f = fopen(w->tmp_path, "w+");
	if (!w->f)
		return fail(w, "cannot create");
	/* Records are small: one write per MB, not per 4 KB. */
	setvbuf(w->f, NULL, _IOFBF, 1 << 20);
	return 0;
}

int perf_file_open_attrs(struct perf_file_writer *w, const char *path,
			 const struct perf_file_attr_in *attrs, unsigned int nr,
			 uint32_t attr_bytes)
{
	struct file_header hdr = { 0 };
	uint64_t off = HEADER_SIZE, ids_off;
	unsigned int i;

	if (create(w, path))
		return -1;
	if (write_at(w, &hdr, sizeof(hdr), 0, "cannot write the header"))
		goto err;
	/* The ids arrays first, then the attrs, as perf writes them. */
	ids_off = off;
	for (i = 0; i < nr; i++) {
		if (attrs[i].nr_ids && write_at(w, attrs[i].ids, attrs[i].nr_ids * 8, off,
						"cannot write sample ids"))
			goto err;
		off += attrs[i].nr_ids * 8;
	}
	w->attrs_offset = off;
	w->attr_size = attr_bytes + sizeof(struct file_section);
	w->attrs_size = nr * w->attr_size;
	for (i = 0; i < nr; i++) {
		struct file_section ids = { attrs[i].nr_ids ? ids_off : 0, attrs[i].nr_ids * 8 };

		if (write_at(w, attrs[i].attr, attr_bytes, off, "cannot write an attr") ||
		    write_at(w, &ids, sizeof(ids), off + attr_bytes, "cannot write an attr"))
			goto err;
		ids_off += attrs[i].nr_ids * 8;
		off += w->attr_size;
	}
	w->data_offset = off;
	return 0;
err:
	perf_file_abort(w);
	return -1;
}

int perf_file_open(struct perf_file_writer *w, const char *path,
		   const struct perf_event_attr *attr)
{
	struct perf_event_attr a = *attr;
	struct perf_file_attr_in in = { .attr = &a };

	a.size = ATTR_SIZE;
	return perf_file_open_attrs(w, path, &in, 1, ATTR_SIZE);
}

int perf_file_write_record(struct perf_file_writer *w, const void *rec)
{
	const struct perf_event_header *h = rec;

	if (fwrite(rec, 1, h->size, w->f) != h->size)
		return fail(w, "cannot write a record");
	w->data_size += h->size;
	return 0;
}

/*
 * Start writing back every WRITE_BACK bytes written, so the fsync at the
 * end finds most of the file on disk, not all of it still to write.
 */
#define WRITE_BACK	(32ULL << 20)

static void write_back(struct perf_file_writer *w, uint64_t end)
{
	if (end - w->written_back < WRITE_BACK)
		return;
	sync_file_range(fileno(w->f), (off64_t)w->written_back,
			(off64_t)(end - w->written_back), SYNC_FILE_RANGE_WRITE);
	w->written_back = end;
}

int perf_file_copy_records(struct perf_file_writer *w, int fd, uint64_t off, uint64_t len)
{
	loff_t in = (loff_t)off, out = (loff_t)(w->data_offset + w->data_size);
	uint64_t left = len;
	uint8_t *buf;

	if (fflush(w->f))
		return fail(w, "cannot write records");
	while (left && !w->no_copy_range) {
		ssize_t n = copy_file_range(fd, &in, fileno(w->f), &out,
					    left < WRITE_BACK ? left : WRITE_BACK, 0);

		/* Not between these files: do not ask again for every run. */
		if (n < 0 && (errno == EXDEV || errno == ENOSYS || errno == EINVAL ||
			      errno == EOPNOTSUPP))
			w->no_copy_range = 1;
		if (n <= 0)
			break;
		left -= (uint64_t)n;
		write_back(w, (uint64_t)out);
	}
	/* Another file system (EXDEV), or no copy_file_range: copy it here. */
	if (left) {
		buf = malloc(1 << 20);
		if (!buf || fseeko(w->f, out, SEEK_SET)) {
			free(buf);
			return fail(w, "cannot write records");
		}
		while (left) {
			size_t chunk = left < (1 << 20) ? (size_t)left : (1 << 20);
			ssize_t n = pread(fd, buf, chunk, in);

			if (n <= 0 || fwrite(buf, 1, (size_t)n, w->f) != (size_t)n) {
				if (!n)
					errno = EIO;	/* the input shrank */
				free(buf);
				return fail(w, n <= 0 ? "cannot read the records to copy" :
					    "cannot write records");
			}
			in += n;
			left -= (uint64_t)n;
		}
		free(buf);
	}
	w->data_size += len;
	if (fseeko(w->f, (off_t)(w->data_offset + w->data_size), SEEK_SET))
		return fail(w, "cannot write records");
	return 0;
}

int perf_file_set_feature(struct perf_file_writer *w, unsigned int bit, const void *buf,
			  size_t len)
{
	void *copy;

	if (bit >= sizeof(w->feat) / sizeof(w->feat[0]))
		return -1;
	copy = malloc(len ? len : 1);
	if (!copy)
		return fail(w, "out of memory");
	memcpy(copy, buf, len);
	free(w->feat[bit].buf);
	w->feat[bit].buf = copy;
	w->feat[bit].len = len;
	return 0;
}

int perf_file_set_string_feature(struct perf_file_writer *w, unsigned int bit,
				 const char *s)
{
	uint32_t len = (uint32_t)((strlen(s) + 1 + 63) & ~63UL);
	uint8_t *buf = calloc(1, sizeof(len) + len);
	int ret;

	if (!buf)
		return fail(w, "out of memory");
	memcpy(buf, &len, sizeof(len));
	memcpy(buf + sizeof(len), s, strlen(s));
	ret = perf_file_set_feature(w, bit, buf, sizeof(len) + len);
	free(buf);
	return ret;
}

int perf_file_close(struct perf_file_writer *w)
{
	struct file_header hdr = {
		.magic = PERF_MAGIC2,
		.size = HEADER_SIZE,
		.attr_size = w->attr_size,
		.attrs = { w->attrs_offset, w->attrs_size },
		.data = { w->data_offset, w->data_size },
	};
	struct file_section sec[PERF_FEAT_BITS];
	unsigned int bit, n = 0;
	uint64_t off, table = w->data_offset + w->data_size;

	for (bit = 0; bit < sizeof(w->feat) / sizeof(w->feat[0]); bit++)
		if (w->feat[bit].buf)
			n++;
	off = table + n * sizeof(sec[0]);
	n = 0;
	for (bit = 0; bit < sizeof(w->feat) / sizeof(w->feat[0]); bit++) {
		if (!w->feat[bit].buf)
			continue;
		hdr.adds_features[bit / 64] |= 1ULL << (bit % 64);
		sec[n].offset = off;
		sec[n].size = w->feat[bit].len;
		if (write_at(w, w->feat[bit].buf, w->feat[bit].len, off,
			     "cannot write a feature section"))
			goto err;
		off += w->feat[bit].len;
		n++;
	}
	if ((n && write_at(w, sec, n * sizeof(sec[0]), table, "cannot write the feature table")) ||
	    write_at(w, &hdr, sizeof(hdr), 0, "cannot write the header"))
		goto err;
	if (fflush(w->f) || fsync(fileno(w->f))) {
		fail(w, "cannot write");
		goto err;
	}
	if (fclose(w->f)) {
		w->f = NULL;
		fail(w, "cannot write");
		goto err;
	}
	w->f = NULL;
	if (rename(w->tmp_path, w->path)) {
		fprintf(stderr, "mmap3: cannot rename %s to %s: %s\n", w->tmp_path, w->path,
			strerror(errno));
		goto err;
	}
	for (bit = 0; bit < sizeof(w->feat) / sizeof(w->feat[0]); bit++)
		free(w->feat[bit].buf);
	free(w->tmp_path);
	w->tmp_path = NULL;
	return 0;
err:
	perf_file_abort(w);
	return -1;
}

void perf_file_abort(struct perf_file_writer *w)
{
	unsigned int bit;

	if (w->f)
		fclose(w->f);
	w->f = NULL;
	if (w->tmp_path)
		unlink(w->tmp_path);
	free(w->tmp_path);
	w->tmp_path = NULL;
	for (bit = 0; bit < sizeof(w->feat) / sizeof(w->feat[0]); bit++) {
		free(w->feat[bit].buf);
		w->feat[bit].buf = NULL;
	}
}
