/* SPDX-License-Identifier: GPL-2.0 */
/*
 * userspace/perf/writer.h - writing perf's data, as perf's util/data.c
 * does for either mode.  File mode, a perf.data file:
 *
 *	[0]	struct perf_file_header
 *	[104]	the attrs' sample ids, then the attrs, each followed by the
 *		perf_file_section of its ids (as perf writes them)
 *	[...]	data: the records
 *	[...]	a perf_file_section per feature bit set, then the features
 *
 * created by outfile.c: unnamed until complete, 0600, never over a
 * symbolic link, FIFO, device node or an input.  Pipe mode, perf's
 * stream on a descriptor (perf record -o -): a struct
 * perf_pipe_file_header, then every record, the header's too, in order.
 * A stream's header records (attrs, features, tracing data, build-ids)
 * are written as records in pipe mode and into the header in file mode
 * (perf_writer_header_record()), as perf inject -o does.  Errors print
 * one line naming the file, what was written and the offset.
 */
#ifndef MMAP3_PERF_WRITER_H
#define MMAP3_PERF_WRITER_H

#include <stddef.h>
#include <stdint.h>

#include "../outfile.h"
#include "format.h"

struct perf_writer {
	struct outfile out;
	uint8_t *buf;			/* records not yet written, from buf_off */
	size_t buf_len;
	uint64_t buf_off;
	uint64_t attrs_offset, attrs_size, attr_size;
	uint64_t data_offset, data_size;
	uint64_t written_back;		/* sync_file_range() started up to here */
	int no_copy_range;		/* copy_file_range() cannot copy to this file */
	int finished;			/* perf_writer_finish() wrote it all */
	int pipe;			/* pipe mode, to out.fd */
	/*
	 * File mode from a stream: perf's build-id entries, in a temporary
	 * file beside the output however many perf sends, then ours, kept
	 * in memory (one per distinct file), after them: perf keeps a
	 * name's last entry.
	 */
	struct outfile ids;
	int ids_open;
	uint64_t ids_len;
	uint8_t *own_ids;
	size_t own_ids_len, own_ids_cap;
	struct {
		int set;
		void *buf;		/* the payload, or NULL: */
		int fd;			/* ... @len bytes at @off in @fd */
		uint64_t off, len;
	} feat[HEADER_FEAT_BITS];
};

/* An attr as it is in the file (attr.size bytes) and its sample ids. */
struct perf_writer_attr {
	const void *attr;
	const uint64_t *ids;
	uint64_t nr_ids;
};

/*
 * Start writing @path with @nr attrs of @attr_bytes bytes each (the size
 * in their attr.size); @inputs are files it must not be.  Returns 0, or -1
 * after printing one line.
 */
int perf_writer_open(struct perf_writer *w, const char *path, const struct perf_writer_attr *attrs,
		     unsigned int nr, uint32_t attr_bytes, const struct outfile_input *inputs,
		     unsigned int nr_inputs);

/* The same with the attrs (and their ids) of the perf.data @in reads. */
struct perf_reader;
int perf_writer_open_like(struct perf_writer *w, const char *path, const struct perf_reader *in,
			  const struct outfile_input *inputs, unsigned int nr_inputs);

/* The same with the one attr every record belongs to, in perf's size. */
int perf_writer_open_one(struct perf_writer *w, const char *path,
			 const struct perf_event_attr *attr);

/*
 * Pipe mode to @fd (standard output), @name for messages: the pipe's
 * header now, then records as they come, flushed by perf_writer_flush().
 */
int perf_writer_open_pipe(struct perf_writer *w, int fd, const char *name);

/* Write what is buffered: in pipe mode, to the reader now.  0, or -1 (printed). */
int perf_writer_flush(struct perf_writer *w);

/*
 * One of a stream's header records and the @len bytes of @payload that
 * follow it (tracing data): in pipe mode written as it is; in file mode
 * into the header: a feature's payload as its section, tracing data as
 * HEADER_TRACING_DATA, a build-id entry into the table; attrs and event
 * types are the file's already (perf_writer_open()).
 */
int perf_writer_header_record(struct perf_writer *w, const struct perf_event_header *h,
			      const void *payload, uint64_t len);

/*
 * HEADER_BUILD_ID entries of our own, @len bytes of records: in pipe
 * mode written as records (8-aligned, as perf 7 requires of a pipe's
 * events); in file mode added to the table after the stream's.
 */
int perf_writer_build_ids(struct perf_writer *w, const void *entries, size_t len);

/* Where the next record goes, in the file. */
uint64_t perf_writer_offset(const struct perf_writer *w);

/* Append one record (header.size bytes) to the data section. */
int perf_writer_record(struct perf_writer *w, const void *rec);
/*
 * Room for a record of @size bytes (at most 64 KiB) in the write buffer,
 * to be filled in place and then committed with perf_writer_commit(); NULL
 * if flushing the buffer failed (reported).  No copy, no allocation.
 */
void *perf_writer_reserve(struct perf_writer *w, size_t size);
void perf_writer_commit(struct perf_writer *w, size_t size);

/* Append @len bytes that follow a record outside its size (an AUXTRACE payload). */
int perf_writer_data(struct perf_writer *w, const void *buf, size_t len);

/*
 * Append @len bytes at @off in @fd (whole records) to the data section.
 * The kernel copies them (copy_file_range) where it can, so records kept
 * as they are never pass through user space.
 */
int perf_writer_copy(struct perf_writer *w, int fd, uint64_t off, uint64_t len);

/* Set a feature's payload (copied). */
int perf_writer_feature(struct perf_writer *w, unsigned int bit, const void *buf, size_t len);

/*
 * Set a feature's payload to @len bytes at @off in @fd, which must stay
 * open until the writer is closed: copied then (by the kernel where it
 * can), never held in memory, however large.
 */
int perf_writer_feature_copy(struct perf_writer *w, unsigned int bit, int fd, uint64_t off,
			     uint64_t len);

/* perf's string encoding: u32 length (padded to 64) and the padded string. */
int perf_writer_string_feature(struct perf_writer *w, unsigned int bit, const char *s);

/*
 * Write the features and the header; the file is whole but not in place
 * yet (perf_writer_close() puts it there, perf_writer_abort() drops it).
 */
int perf_writer_finish(struct perf_writer *w);

/* Finish the file if need be, then put it in place. */
int perf_writer_close(struct perf_writer *w);

/* Drop the file; nothing is left under any name. */
void perf_writer_abort(struct perf_writer *w);

#endif /* MMAP3_PERF_WRITER_H */
