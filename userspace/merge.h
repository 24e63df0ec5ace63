/* SPDX-License-Identifier: GPL-2.0 */
/*
 * userspace/merge.h - a perf.data in which stock perf resolves mappings by
 * the build-ids mmap3 recorded (mmap3 merge).
 */
#ifndef MMAP3_MERGE_H
#define MMAP3_MERGE_H

#include <stdint.h>

struct merge_stats {
	uint64_t rewritten;	/* perf's mappings given mmap3's build-id */
	uint64_t added;		/* mmap3's records perf did not have */
	uint64_t side_lost;	/* records mmap3 lost while recording */
	uint64_t aux_records;	/* AUXTRACE records carried over */
	/*
	 * Past perf's 64 KiB record size with PERF_DATA's sample_id trailer
	 * (or as MMAP2): mmap3's records not added, perf's mappings kept
	 * without mmap3's build-id.
	 */
	uint64_t too_long_added;
	uint64_t too_long_rewritten;
	/* What matching cost: lookups of perf's mappings, entries looked at. */
	uint64_t lookups;
	uint64_t probes;
	/* mmap3's records of processes perf did not record: not added. */
	uint64_t other_processes;
};

struct merge_opts {
	/* Add mmap3's records of every process, not only of those perf recorded. */
	int all_processes;
	/*
	 * @out is @perf_data itself, replaced when the merge is complete (and
	 * only if it is still the file read); it is not kept as .old.
	 */
	int in_place;
};

/*
 * Write @out from @perf_data (file or pipe mode) and the side file @side,
 * with @opts (NULL: the defaults).  The inputs are only read; @out
 * appears only when complete.  Returns 0, or -1 after printing one line.
 */
int merge_files(const char *perf_data, const char *side, const char *out,
		const struct merge_opts *opts, struct merge_stats *stats);

#endif /* MMAP3_MERGE_H */
