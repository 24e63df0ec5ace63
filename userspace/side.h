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

#include "kmod.h"
#include "perf/writer.h"

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
	/* The table's entries by hash, open addressing (hash 0: free). */
	struct side_seen {
		uint64_t hash;
		size_t off;		/* of the entry in the table */
	} *seen;
	size_t seen_len, seen_cap;	/* cap: a power of two */
	/* A lookup's cost, counted for the tests: lookups, slots walked. */
	size_t seen_lookups, seen_probes;
	struct side_stats stats;
	/* Where modules' .ko files are looked for; NULL: not looked for. */
	struct kmod_index *kmods;
};

/* @clock: MMAP3_CLOCK_LOCAL or a clockid, as set on the session. */
int side_open(struct side_writer *s, const char *path, int clock);
/* Convert and append one record read from /dev/mmap3 (and checked there). */
int side_add(struct side_writer *s, const struct mmap3_record_header *h);
int side_close(struct side_writer *s);
void side_abort(struct side_writer *s);

#endif /* MMAP3_SIDE_H */
