/* SPDX-License-Identifier: GPL-2.0 */
/*
 * userspace/match.h - which of mmap3's records each of perf's mapping
 * records is: the one rule, and the one index, of merge and inject.
 *
 * mmap3's mapping records are grouped by mapping (mapping.h says when two
 * records are one: user mappings by pid, tid, range, offset and name;
 * kernel maps by start and module), each group oldest first, the groups
 * in a keyed table (hashmap.h), so a lookup costs a probe or two and a
 * binary search however the mappings were chosen.  Then:
 *
 *  - perf's user mapping takes the record of its mapping nearest to it
 *    in time (perf's record comes a moment after mmap3's; a range mapped
 *    again and again, dlopen after dlclose, has one record each time),
 *    or the oldest for perf's records without a time (from /proc at its
 *    start, before anything mmap3 saw live);
 *  - perf's kernel map takes the first record of its module at its
 *    address not taken yet (a module unloaded and loaded again at the
 *    same address has a record each time, matched in order).
 *
 * Records are the caller's: added before perf's records are looked up,
 * and, for inject, removed once perf's stream is past them.
 */
#ifndef MMAP3_MATCH_H
#define MMAP3_MATCH_H

#include <stddef.h>
#include <stdint.h>

#include "hashmap.h"
#include "perf/format.h"

struct match_group;

struct match_rec {
	const struct perf_event_header *body;	/* a mapping record, without trailer */
	uint64_t time;
	int matched;				/* one of perf's records took it */
	struct match_group *group;		/* match.c's */
};

struct match {
	struct hashmap groups;			/* user mappings and kernel maps */
	/* What lookups cost: how many, and the entries they looked at. */
	uint64_t lookups, probes;
};

/* Index @r (a mapping record at @r->time): 0, or -1 out of memory. */
int match_add(struct match *m, struct match_rec *r);

/* Forget @r: inject, once perf is past its time. */
void match_remove(struct match *m, struct match_rec *r);

/*
 * mmap3's record of perf's mapping @h (at @time if @has_time), marked
 * matched; NULL if mmap3 has none.
 */
struct match_rec *match_find(struct match *m, const struct perf_event_header *h, int has_time,
			     uint64_t time);

/* The index, not the records (which may be gone already). */
void match_free(struct match *m);

#endif /* MMAP3_MATCH_H */
