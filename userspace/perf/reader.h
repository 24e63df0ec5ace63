/* SPDX-License-Identifier: GPL-2.0 */
/*
 * userspace/perf/reader.h - reading a perf.data file, in file or pipe
 * mode, as dump and merge parse it (and the fuzzer tests it).
 *
 * Everything is checked before it is used: the header's sections lie in
 * the file and share no byte (or a small file would be read many times
 * over), each record has at least its type's fixed fields and
 * sample_id trailer, names end in a NUL inside the record, sizes are
 * multiples of 8 (but for the two kinds perf itself pads to 4), payloads
 * that follow a record (AUXTRACE, TRACING_DATA) lie in the data section.
 * Shapes the tool cannot use are refused by name: compressed data,
 * perf record --threads directories, byte-swapped and version-1 files.
 * An error is one line naming the file, the offset and what was expected
 * there (perf_reader_error()); nothing is printed here.
 */
#ifndef MMAP3_PERF_READER_H
#define MMAP3_PERF_READER_H

#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>

#include "format.h"
#include "sample_id.h"

struct perf_reader_attr {
	struct perf_event_attr attr;	/* zero-extended to our size */
	uint8_t *raw;			/* as in the file: raw_size bytes */
	uint32_t raw_size;
	uint64_t *ids;			/* its sample ids */
	uint64_t nr_ids;
};

/* A sample id and the attr it belongs to. */
struct perf_reader_id {
	uint64_t id;
	unsigned int attr;
};

/* One record of the data section. */
struct perf_rec {
	const struct perf_event_header *h;	/* 8-byte aligned, h->size bytes */
	uint64_t offset;			/* of the record in the file */
	uint64_t payload;			/* bytes that follow it (AUXTRACE, TRACING_DATA) */
	/*
	 * Pipe mode only: a record perf_reader_open() took as part of the
	 * header (HEADER_ATTR, HEADER_FEATURE, HEADER_BUILD_ID, tracing
	 * data); a file-mode copy carries it in the file header instead.
	 */
	int in_header;
	int has_time;				/* from the sample or the trailer */
	uint64_t time;
};

struct perf_reader {
	const char *path;
	int fd;
	struct stat st;			/* at open: perf_reader_unchanged() compares */
	uint64_t file_size;
	int pipe;
	uint64_t data_offset, data_size;
	uint64_t features[HEADER_FEAT_BITS / 64];	/* adds_features */
	struct perf_file_section feat[HEADER_FEAT_BITS];	/* by bit, in the file */
	struct perf_reader_attr *attrs;
	unsigned int nr_attrs;
	uint32_t attr_bytes;		/* every raw attr's size (the largest) */
	struct sample_id_layout id;	/* every attr's trailer (perf needs one) */
	int time_at;			/* offset of a sample's time: -1 none, -2 by id */
	struct perf_reader_id *ids;	/* with time_at -2: every attr's ids, sorted */
	uint64_t nr_ids;
	uint8_t *pipe_build_ids;	/* pipe mode: the HEADER_BUILD_ID records */
	size_t pipe_build_ids_len;
	/* Iteration over the data section. */
	uint64_t pos;
	uint8_t *buf;
	size_t buf_len, buf_cap;
	uint64_t buf_off;
	uint8_t *copy;			/* a record that was not 8-byte aligned */
	size_t copy_cap;
	/* Stream mode: read once, in order (perf_reader_open_stream()). */
	int stream, stream_end, attrs_ready;
	uint64_t payload_left;		/* of the last record, not yet read */
	/*
	 * Stream mode, if set: called before each read() (@eof 0): 0 to
	 * read, 1 to take the stream as ended there; after a read() found
	 * its end (@eof 1): 1 to read again, 0 for the end; -1 fails.
	 */
	int (*wait)(void *arg, int eof);
	void *wait_arg;
	int truncated;			/* the error: the stream ended inside a record */
	/* Stream mode: the host's and kernel's names, as their features came. */
	struct {
		void *buf;
		size_t len;
	} stream_feat[2];
	char error[512];
};

/*
 * Open and check @path.  Returns 0, or -1 with the reason in
 * perf_reader_error() (the reader is then closed).
 */
int perf_reader_open(struct perf_reader *r, const char *path);
/* The same for @fd, which the reader then owns; @name is for messages. */
int perf_reader_open_fd(struct perf_reader *r, int fd, const char *name);
void perf_reader_close(struct perf_reader *r);

/*
 * Read @fd (a pipe: perf record -o -) once, in order, as perf's pipe
 * mode comes: the attrs as their records come, each record checked as
 * in a file, the data's end the stream's.  Only perf_reader_next() and
 * perf_reader_payload() apply.  The reader owns @fd.  @wait, if given,
 * is asked around each read() (the wait field above).
 */
int perf_reader_open_stream(struct perf_reader *r, int fd, const char *name,
			    int (*wait)(void *arg, int eof), void *wait_arg);

/*
 * Stream mode: the payload that follows the last record (AUXTRACE data,
 * tracing data) handed to @sink in pieces of at most 1 MiB, or skipped
 * with @sink NULL (as the next perf_reader_next() does).  0, or -1.
 */
int perf_reader_payload(struct perf_reader *r, int (*sink)(void *arg, const void *buf, size_t len),
			void *arg);

/* "PATH: offset N: what was expected", for the last -1 returned. */
const char *perf_reader_error(const struct perf_reader *r);

/*
 * The next record: 1 and *@rec (valid until the next call), 0 at the end
 * of the data, -1 on error.
 */
int perf_reader_next(struct perf_reader *r, struct perf_rec *rec);

/* The next record read from @off on (a record's start perf_reader_next() gave). */
void perf_reader_seek(struct perf_reader *r, uint64_t off);

/* What is read from here on is read from the file again, not kept from before. */
void perf_reader_forget(struct perf_reader *r);

/*
 * perf_reader_next() of a record read before with the header @was: it
 * must still have that header, and pass every check it passed then.
 * Returns 0, or -1 if the file changed under us (the message says how).
 */
int perf_reader_next_as(struct perf_reader *r, struct perf_rec *rec,
			const struct perf_event_header *was);

/*
 * Is the file as it was opened: same inode, size, modification and
 * change times?  0, or -1 and the message says what changed.
 */
int perf_reader_unchanged(struct perf_reader *r);

/*
 * A feature section's bytes (malloc'd), *@buf NULL if absent; 0 or -1.
 * A stream keeps HOSTNAME's and OSRELEASE's as they pass.
 */
int perf_reader_feature(struct perf_reader *r, unsigned int bit, void **buf, size_t *len);
int perf_reader_has_feature(const struct perf_reader *r, unsigned int bit);

/* A string feature (HOSTNAME, OSRELEASE, ARCH) into @out; 0 if absent or bad. */
int perf_reader_string_feature(struct perf_reader *r, unsigned int bit, char *out, size_t len);

/*
 * The HEADER_BUILD_ID table in either mode (malloc'd), NULL if none;
 * every entry checked (perf_build_id_next() then cannot fail).
 */
int perf_reader_build_ids(struct perf_reader *r, void **buf, size_t *len);

/*
 * One entry of a HEADER_BUILD_ID table: perf pads names to 64 bytes
 * (before 6.13) or 8, so entries need not be 8-byte multiples and are
 * read by copy.  Returns 1 and the entry at *@off (then advanced), 0 at
 * the end, -1 on a malformed entry (@why says what was expected).
 */
struct perf_build_id_entry {
	uint16_t misc;
	int32_t pid;
	uint8_t size;
	uint8_t id[PERF_BUILD_ID_SIZE];
	const char *name;		/* in the table, NUL-terminated */
};

int perf_build_id_next(const uint8_t *table, size_t len, size_t *off,
		       struct perf_build_id_entry *e, const char **why);

#endif /* MMAP3_PERF_READER_H */
