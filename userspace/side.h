/* SPDX-License-Identifier: GPL-2.0 */
/*
 * userspace/side.h - the side file: mmap3 records written as a perf.data
 * file that stock perf reads (perf script --show-mmap-events, perf
 * buildid-list).
 */
#ifndef MMAP3_SIDE_H
#define MMAP3_SIDE_H

#include <linux/mmap3.h>
#include <stdint.h>

#include "hashmap.h"
#include "kmod.h"
#include "perf/writer.h"

struct mmap3_mmap_parts;

/* The side file's one attr: its records' trailer, written and required so. */
#define SIDE_SAMPLE_TYPE	(PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CPU)

/*
 * HEADER_MMAP3_STATUS: what a mapping record of the side file cannot say
 * in perf's terms, for each record that has something to say: a build-id
 * status other than FOUND (TIMEOUT and NO_NOTE look alike in an MMAP2),
 * a build-id derived rather than the file's GNU one (its kind: a reader
 * before the field had it zero, GNU),
 * a flag (MMAP3_MMAP_CHANGED, _DELETED, _PATH_TRUNCATED, _DUMP), or a
 * process in a container (another mount namespace than the recorder's,
 * whose record names the file as that process sees it, as perf does).  The
 * payload is a struct side_status_header, then @nr entries, each keyed
 * by its record's time, pid and address.  Stock perf skips it; mmap3
 * dump shows it beside the records.
 */
#define SIDE_STATUS_VERSION	1

struct side_status_header {
	uint32_t version;		/* SIDE_STATUS_VERSION */
	uint32_t entry_size;		/* sizeof(struct side_status_entry) */
	uint64_t nr;
};

struct side_status_entry {
	uint64_t time;
	uint64_t addr;
	uint32_t pid;
	uint32_t tid;
	uint32_t flags;			/* MMAP3_MMAP_* */
	uint8_t status;			/* enum mmap3_buildid_status */
	uint8_t kind;			/* enum mmap3_buildid_kind, of a FOUND id */
	uint8_t __reserved[2];
	uint64_t mnt_ns;		/* struct mmap3_mmap_ns's, 0 if none */
	uint64_t cgroup;
};

struct side_stats {
	uint64_t mmaps;
	uint64_t modules;
	uint64_t lost;
	uint64_t no_build_id;
	uint64_t long_build_id;		/* > 20 bytes: not in MMAP2 */
};

struct side_writer {
	struct perf_writer pf;
	uint64_t page_size;
	/* HEADER_BUILD_ID payload, one entry per distinct (name, build-id). */
	uint8_t *table;
	size_t table_len, table_cap;
	/* The table's entries by their key: each one's offset + 1. */
	struct hashmap seen;
	/* Entries found lately, each an offset + 1 (0: none): see table_add_len(). */
#define SIDE_RECENT	256
	size_t recent[SIDE_RECENT];
	struct side_stats stats;
	/* HEADER_MMAP3_STATUS payload, header first. */
	uint8_t *status;
	size_t status_len, status_cap;
	uint64_t own_mnt_ns;		/* the recorder's mount namespace */
	/* Where modules' .ko files are looked for; NULL: not looked for. */
	struct kmod_index *kmods;
	/* The session's span, in its clock: HEADER_SAMPLE_TIME. */
	uint64_t first_time, last_time;
	/* side_open_sink(): each record to @sink, not to a file. */
	int (*sink)(void *arg, const void *rec);
	void *sink_arg;
	uint8_t *scratch;
};

/* @clock: MMAP3_CLOCK_LOCAL or a clockid, as set on the session. */
int side_open(struct side_writer *s, const char *path, int clock);
/*
 * Convert and append one record read from /dev/mmap3, checked there
 * (mmap3_records_next()), with the parts the check found if it is an
 * MMAP record (the records' ->mmap).
 */
int side_add_checked(struct side_writer *s, const struct mmap3_record_header *h,
		     const struct mmap3_mmap_parts *parts);
/* The same for a record checked, or made, elsewhere: its parts found again. */
int side_add(struct side_writer *s, const struct mmap3_record_header *h);
/*
 * The session ended at @time (its clock): the side file's span, which
 * merge checks against perf's, reaches to it even if nothing was mapped
 * since perf started (perf record -p PID of a process that maps nothing).
 */
void side_session_end(struct side_writer *s, uint64_t time);
int side_close(struct side_writer *s);
/* Give up the file (or, for a sink, just free what the writer holds). */
void side_abort(struct side_writer *s);

/*
 * No file: each perf record side_add() makes, with the side file's
 * trailer, goes to @sink (mmap3 inject), and each new HEADER_BUILD_ID
 * entry too, as a record (perf's pipe mode has them so), kept in ->table
 * as well to be told apart.  side_abort() frees it.
 */
int side_open_sink(struct side_writer *s, int (*sink)(void *arg, const void *rec), void *arg);

#endif /* MMAP3_SIDE_H */
