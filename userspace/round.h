/* SPDX-License-Identifier: GPL-2.0 */
/*
 * userspace/round.h - perf's records of one round (what perf writes
 * between two FINISHED_ROUNDs), held with their payloads while mmap3
 * inject matches and writes them: each 8-aligned in one buffer, its
 * payload after it.
 */
#ifndef MMAP3_ROUND_H
#define MMAP3_ROUND_H

#include <linux/perf_event.h>
#include <stddef.h>
#include <stdint.h>

#include "perf/reader.h"

struct round_rec {
	size_t off;			/* in ->buf */
	uint64_t payload;		/* bytes after the record */
	uint64_t time;
	int has_time;
	int in_header;			/* one of perf's header records */
	void *match;			/* the caller's: what it matched it to */
};

struct round {
	struct round_rec *recs;
	size_t nr, cap;
	uint8_t *buf;
	size_t len, buf_cap;
};

static inline const struct perf_event_header *round_header(const struct round *r, size_t k)
{
	return (const void *)(r->buf + r->recs[k].off);
}

/*
 * Keep @rec and its payload, read from @in: 0, or -1 (out of memory, or
 * the payload could not be read: said).
 */
int round_add(struct round *r, struct perf_reader *in, const struct perf_rec *rec);

/* Empty it for the next round, keeping its memory. */
void round_clear(struct round *r);

void round_free(struct round *r);

#endif /* MMAP3_ROUND_H */
