/* SPDX-License-Identifier: GPL-2.0 */
/*
 * userspace/perf_reader.h - reading a perf.data file (file mode):
 * header, attrs, the records of the data section, feature sections.
 * Every error names the file, the offset and what was expected.
 */
#ifndef MMAP3_PERF_READER_H
#define MMAP3_PERF_READER_H

#include <linux/perf_event.h>
#include <stdint.h>

struct perf_reader_attr {
	struct perf_event_attr attr;	/* zero-extended to our size */
	uint8_t *raw;			/* as on disk: attr.size bytes */
	uint32_t raw_size;
	uint64_t ids_offset;
	uint64_t ids_size;
};

struct perf_reader {
	const char *path;
	int fd;
	uint64_t file_size;
	uint64_t attr_size;
	uint64_t data_offset, data_size;
	uint64_t features[4];		/* the adds_features bitmap */
	uint64_t feat_offset[256];	/* by bit; 0 if absent */
	uint64_t feat_size[256];
	struct perf_reader_attr *attrs;
	unsigned int nr_attrs;
	/* Iteration over the data section. */
	uint64_t pos;
	uint8_t *buf;
	size_t buf_len, buf_cap;
	uint64_t buf_off;
	/*
	 * Pipe mode: the attrs, features and build-ids came as records
	 * (HEADER_ATTR, HEADER_FEATURE, HEADER_BUILD_ID); they are gathered
	 * at open, as if from a file header, and the iteration skips them.
	 */
	int pipe;
	uint64_t *pipe_ids[64];		/* per attr */
	void *pipe_feat[256];
	uint8_t *pipe_build_ids;
	size_t pipe_build_ids_len;
};

/* Open and check the file; print one line and return -1 on error. */
int perf_reader_open(struct perf_reader *r, const char *path);
void perf_reader_close(struct perf_reader *r);

/*
 * The next record of the data section: 1 and *@rec (valid until the next
 * call) and *@offset (in the file), 0 at the end, -1 on error (printed).
 */
int perf_reader_next(struct perf_reader *r, const struct perf_event_header **rec,
		     uint64_t *offset);

/* @len bytes at @off, e.g. a record seen before: 0, or -1 (printed). */
int perf_reader_read(struct perf_reader *r, void *buf, size_t len, uint64_t off);

/* The HEADER_BUILD_ID table, in either mode (malloc'd), or NULL. */
int perf_reader_build_ids(struct perf_reader *r, void **buf, size_t *len);

/* The sample ids of attr @i (malloc'd, attrs[i].ids_size bytes). */
int perf_reader_ids(struct perf_reader *r, unsigned int i, uint64_t **ids);
void perf_reader_rewind(struct perf_reader *r);

/* A feature section's bytes (malloc'd) or NULL if absent; -1 on error. */
int perf_reader_feature(struct perf_reader *r, unsigned int bit, void **buf, size_t *len);

#endif /* MMAP3_PERF_READER_H */
