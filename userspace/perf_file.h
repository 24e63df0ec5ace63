/* SPDX-License-Identifier: GPL-2.0 */
/*
 * userspace/perf_file.h - writing a perf.data file (file mode): header,
 * one attr, a data section of records, feature sections.  Layout in
 * tools/perf/Documentation/perf.data-file-format.txt.
 */
#ifndef MMAP3_PERF_FILE_H
#define MMAP3_PERF_FILE_H

#include <linux/perf_event.h>
#include <stdint.h>
#include <stdio.h>

/* Feature bits (tools/perf/util/header.h). */
#define PERF_FEAT_BUILD_ID	2
#define PERF_FEAT_HOSTNAME	3
#define PERF_FEAT_OSRELEASE	4
#define PERF_FEAT_ARCH		6

/* perf's user record types. */
#define PERF_RECORD_HEADER_BUILD_ID	67
#define PERF_RECORD_MISC_BUILD_ID_SIZE	(1 << 15)

#define PERF_FEAT_BITS	256

struct perf_file_writer {
	const char *path;	/* final name */
	char *tmp_path;		/* written here, renamed on success */
	FILE *f;
	uint64_t attrs_offset;
	uint64_t attrs_size;
	uint64_t attr_size;	/* one attr with its ids section */
	uint64_t data_offset;
	uint64_t data_size;
	uint64_t written_back;	/* sync_file_range() started up to here */
	int no_copy_range;	/* copy_file_range() cannot copy to this file */
	/* Feature payloads, by bit. */
	struct {
		void *buf;
		size_t len;
	} feat[PERF_FEAT_BITS];
};

/* An attr as it is on disk (attr.size bytes) and its sample ids. */
struct perf_file_attr_in {
	const void *attr;
	const uint64_t *ids;
	uint64_t nr_ids;
};

/*
 * Start writing @path (through a temporary file next to it).  @attr is
 * the one event every record belongs to.  Returns 0 or prints one line
 * and returns -1.
 */
int perf_file_open(struct perf_file_writer *w, const char *path,
		   const struct perf_event_attr *attr);

/*
 * The same with @nr attrs of @attr_bytes bytes each (the size in their
 * attr.size), each with its ids, as perf inject writes a file it read.
 */
int perf_file_open_attrs(struct perf_file_writer *w, const char *path,
			 const struct perf_file_attr_in *attrs, unsigned int nr,
			 uint32_t attr_bytes);

/* Append one record (header.size bytes) to the data section. */
int perf_file_write_record(struct perf_file_writer *w, const void *rec);

/*
 * Append @len bytes of whole records at @off in @fd to the data section.
 * The kernel copies them (copy_file_range) where it can, so records kept
 * as they are never pass through user space.
 */
int perf_file_copy_records(struct perf_file_writer *w, int fd, uint64_t off, uint64_t len);

/* Set a feature's payload (copied). */
int perf_file_set_feature(struct perf_file_writer *w, unsigned int bit, const void *buf,
			  size_t len);

/* perf's string encoding: u32 length (aligned to 64) and the padded string. */
int perf_file_set_string_feature(struct perf_file_writer *w, unsigned int bit,
				 const char *s);

/* Write features and the final header, then rename into place. */
int perf_file_close(struct perf_file_writer *w);

/* Remove the temporary file; nothing is left under the final name. */
void perf_file_abort(struct perf_file_writer *w);

#endif /* MMAP3_PERF_FILE_H */
