// SPDX-License-Identifier: GPL-2.0
/*
 * userspace/cmd_merge.c - mmap3 merge PERF_DATA SIDE -o OUT: options,
 * messages and exit status; the merge itself is merge.c.
 */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "commands.h"
#include "merge.h"
#include "msg.h"

static void usage(FILE *f)
{
	fprintf(f, "usage: mmap3 merge [--all-processes] PERF_DATA SIDE -o OUT\n"
		"       mmap3 merge [--all-processes] --in-place PERF_DATA SIDE\n\n"
		"Write OUT: PERF_DATA (from perf record, file or pipe mode) with the\n"
		"mappings, modules and build-ids of SIDE (from mmap3 record), so perf\n"
		"report, perf script and perf buildid-list use the build-ids really\n"
		"mapped.  OUT is created 0600 and appears only when complete; it must\n"
		"not be an input, a symbolic link, a FIFO or a device node; an OUT that\n"
		"exists is kept as OUT.old.  Only the processes perf recorded get mmap3's\n"
		"records (perf record -p, -- CMD): SIDE's others stay out.\n\n"
		"  -o, --output OUT       the merged perf.data\n"
		"  -i, --in-place         PERF_DATA itself takes them, as record --merge\n"
		"                         does: rewritten where it is when no record moves,\n"
		"                         else replaced when the new one is complete\n"
		"  -a, --all-processes    add mmap3's records of every process SIDE has\n");
}

/* What a merge did, and what it could not: shared with record --merge. */
void merge_report(const char *perf_data, const char *side, const char *out,
		  const struct merge_stats *st)
{
	msg_info("wrote %s: %llu of perf's mappings given mmap3's build-id, %llu records added",
		 out, (unsigned long long)st->rewritten, (unsigned long long)st->added);
	if (st->other_processes)
		msg_info("left out %llu mappings of processes perf did not record "
			 "(mmap3 merge --all-processes adds them)",
			 (unsigned long long)st->other_processes);
	if (st->too_long_added || st->too_long_rewritten)
		msg_warn("%llu of mmap3's records not added and %llu of "
			 "perf's mappings not given mmap3's build-id: with %s's sample_id they "
			 "would pass perf's record size of 64 KiB",
			 (unsigned long long)st->too_long_added,
			 (unsigned long long)st->too_long_rewritten, perf_data);
	if (st->side_lost)
		msg_warn("%s lost %llu records while recording: some "
			 "mappings may lack mmap3's build-id (perf report counts them as "
			 "lost samples, apart from perf's own lost chunks)", side,
			 (unsigned long long)st->side_lost);
}

int cmd_merge(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "all-processes", no_argument, NULL, 'a' },
		{ "in-place", no_argument, NULL, 'i' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct merge_opts mo = { 0 };
	struct merge_stats st;
	const char *out = NULL;
	int c;

	while ((c = getopt_long(argc, argv, "o:iah", opts, NULL)) != -1) {
		if (c == 'o') {
			out = optarg;
		} else if (c == 'i') {
			mo.in_place = 1;
		} else if (c == 'a') {
			mo.all_processes = 1;
		} else if (c == 'h') {
			usage(stdout);
			return 0;
		} else {
			usage(stderr);
			return 2;
		}
	}
	if (argc - optind != 2) {
		usage(stderr);
		return 2;
	}
	if (!out == !mo.in_place) {
		msg_err(out ? "-o %s and --in-place: give one" :
			"no output: give -o OUT, or --in-place to write into %s", out ? out :
			argv[optind]);
		return 2;
	}
	if (mo.in_place)
		out = argv[optind];
	if (!strcmp(out, "-") || !strcmp(argv[optind], "-") || !strcmp(argv[optind + 1], "-")) {
		msg_err("'-': merge reads and writes perf.data files, not "
			"streams (a pipe: perf record -o - | mmap3 inject | perf report -i -)");
		return 2;
	}
	if (merge_files(argv[optind], argv[optind + 1], out, &mo, &st))
		return 1;
	merge_report(argv[optind], argv[optind + 1], out, &st);
	return 0;
}
