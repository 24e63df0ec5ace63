// SPDX-License-Identifier: GPL-2.0
/*
 * mmap3 merge stays near-linear on inputs crafted against its matching
 * (issue #24): one mapping made 80,000 times by one process, in both
 * files (each of perf's records looks among 80,000 of mmap3's for the
 * nearest in time: it was quadratic, 29 s), 20,000 maps of one kernel
 * module at one address, and 20,000 mappings whose names make their
 * unkeyed hashes end alike (issue #40: the index was unkeyed, so they
 * filled one run of it, 0.84 s, and 14.5 s at 80,000).  Counted, not
 * timed: the entries each lookup looks at (merge_stats.probes) stay
 * within a logarithm's worth, and every mapping still matches.  The
 * inputs are made by craft.py.  Prints TAP.
 *
 *   merge_cost_test SAME-PERF SAME-SIDE KMAPS-PERF KMAPS-SIDE FLOOD-PERF FLOOD-SIDE DIR
 */
#include <stdio.h>

#include "merge.h"
#include "tap.h"

int main(int argc, char **argv)
{
	struct merge_stats st;
	char out[4096];

	if (argc != 8) {
		fprintf(stderr, "usage: merge_cost_test SAME-PERF SAME-SIDE KMAPS-PERF KMAPS-SIDE "
			"FLOOD-PERF FLOOD-SIDE DIR\n");
		return 2;
	}
	snprintf(out, sizeof(out), "%s/same-merged.data", argv[7]);
	CHECK(!merge_files(argv[1], argv[2], out, NULL, &st), "80,000 identical mappings merge");
	CHECK(st.rewritten == 80000, "... every one of perf's given mmap3's build-id (%llu)",
	   (unsigned long long)st.rewritten);
	CHECK(st.lookups && st.probes <= 24 * st.lookups,
	   "... each lookup looks at %llu entries on average (at most 24: a binary search)",
	   (unsigned long long)(st.lookups ? st.probes / st.lookups : 0));
	snprintf(out, sizeof(out), "%s/kmaps-merged.data", argv[7]);
	CHECK(!merge_files(argv[3], argv[4], out, NULL, &st), "20,000 maps of one module at one address merge");
	CHECK(st.lookups == 20000 && st.probes <= 2 * st.lookups,
	   "... each of perf's looked up at once (%llu probes for %llu lookups)",
	   (unsigned long long)st.probes, (unsigned long long)st.lookups);
	snprintf(out, sizeof(out), "%s/flood-merged.data", argv[7]);
	CHECK(!merge_files(argv[5], argv[6], out, NULL, &st),
	      "20,000 mappings named to collide in an unkeyed hash merge");
	CHECK(st.rewritten == 20000, "... every one of perf's given mmap3's build-id (%llu)",
	      (unsigned long long)st.rewritten);
	CHECK(st.lookups == 20000 && st.probes <= 4 * st.lookups,
	      "... each looked up in %.2f entries (at most 4: the table is keyed)",
	      st.lookups ? (double)st.probes / (double)st.lookups : 0.0);
	return tap_done();
}
