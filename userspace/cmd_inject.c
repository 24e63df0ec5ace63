// SPDX-License-Identifier: GPL-2.0
/*
 * userspace/cmd_inject.c - mmap3 inject: options, messages and exit
 * status; the pipe stage itself is inject.c.
 */
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "capture_worker.h"
#include "cmd_common.h"
#include "commands.h"
#include "inject.h"
#include "msg.h"
#include "perf_command.h"

static void usage(FILE *f)
{
	fprintf(f,
		"usage: mmap3 inject [-i IN] [-o OUT] [--capture DIR | --no-capture]\n"
		"                    " CAPTURE_LIMIT_SYNOPSIS "\n"
		"                    [--all-processes]\n"
		"                    [--buffer-size BYTES] [--module-dir DIR]... [--quiet]\n"
		"\n"
		"A stage in perf's pipe, as perf inject is:\n"
		"\n"
		"  perf record -o - ... | mmap3 inject | perf report -i -\n"
		"\n"
		"Open a session of its own at once, and pass perf's stream on with\n"
		"mmap3's records merged in as they come: perf's mappings given the\n"
		"build-ids really mapped, modules loaded since and mappings perf missed\n"
		"added, of the processes perf recorded only.  Binaries are kept where\n"
		"perf looks for them (perf's buildid.dir, else ~/.debug; under sudo the\n"
		"invoking user's), so perf report at the end of the pipe resolves a\n"
		"binary replaced during the session with no option.\n"
		"\n"
		"  -i, --input IN        perf's pipe-mode data (default: standard input)\n"
		"  -o, --output OUT      a perf.data in perf's file format, as perf inject\n"
		"                        -o writes (default: the pipe on standard output);\n"
		"                        created 0600, it appears when complete; one that\n"
		"                        exists is kept as OUT.old\n"
		"  -c, --capture DIR     keep binaries in DIR instead (perf --buildid-dir DIR)\n"
		"      --no-capture      keep no binaries\n");
	capture_limits_usage(f);
	fprintf(f,
		"  -a, --all-processes   add mmap3's records of every process\n"
		"  -b, --buffer-size N   the session's kernel buffer (64k to 1G, default 4M)\n"
		"  -m, --module-dir DIR  also look for modules' .ko files here (repeatable)\n"
		"  -q, --quiet           no summary: warnings and errors only\n");
}

static struct kmod_index kmods;

/* What was done, after perf's stream went through (@ok), and what was not. */
static void report(const struct inject_opts *o, const struct inject_stats *st, int ok)
{
	if (ok && !st->not_here)
		msg_info("%llu of perf's mappings given mmap3's build-id, %llu records added; %llu "
			 "rounds waited for the module", (unsigned long long)st->rewritten,
			 (unsigned long long)st->added, (unsigned long long)st->flushes);
	if (st->other_processes || st->capture.others)
		msg_info("left out %llu mappings of processes perf did not record, and %llu of "
			 "their files not captured (--all-processes adds them)",
			 (unsigned long long)st->other_processes,
			 (unsigned long long)st->capture.others);
	if (ok && o->capture_dir && !st->not_here)
		msg_info("captured %llu files (%llu MB) in %s, %llu there "
			 "already, %llu changed after mapping",
			 (unsigned long long)st->capture.stored,
			 (unsigned long long)(st->capture.bytes >> 20), o->capture_dir,
			 (unsigned long long)st->capture.cached,
			 (unsigned long long)st->capture.changed);
	if (o->capture_dir && !st->not_here)
		capture_report_skipped(&st->capture, o->capture_dir);
	if (st->nothing_live)
		msg_warn("perf's records all come before this "
			 "session started: nothing of mmap3's was added; for a perf.data recorded "
			 "before, record a side file beside it (mmap3 record) and use mmap3 merge");
	if (st->late)
		msg_warn("%llu of mmap3's records came after perf "
			 "had delivered their time: perf report takes them late",
			 (unsigned long long)st->late);
	if (st->copies_late)
		msg_warn("%llu times perf's stream went on before a binary was kept (a copy "
			 "took over %d s): perf report -i - may show its first samples without "
			 "symbols; the copies are kept, and a report of the data written has "
			 "them", (unsigned long long)st->copies_late, INJECT_COPY_WAIT_SECONDS);
	if (st->too_long)
		msg_warn("%llu records past perf's record size of "
			 "64 KiB with its sample_id: left as perf wrote them, or out",
			 (unsigned long long)st->too_long);
	if (st->dropped)
		msg_warn("%llu of mmap3's records dropped: more "
			 "than 256 MiB waited for perf's stream", (unsigned long long)st->dropped);
	if (st->session_lost)
		msg_warn("the session lost %llu records: some "
			 "mappings may lack mmap3's build-id; use a larger --buffer-size",
			 (unsigned long long)st->session_lost);
	if (st->capture_failed)
		msg_err("capturing files into %s failed (see above); "
			"stopped capturing there", o->capture_dir);
}

static int inject(int argc, char **argv)
{
	enum { OPT_NO_CAPTURE = 256 };
	static const struct option opts[] = {
		{ "input", required_argument, NULL, 'i' },
		{ "output", required_argument, NULL, 'o' },
		{ "capture", required_argument, NULL, 'c' },
		{ "no-capture", no_argument, NULL, OPT_NO_CAPTURE },
		CAPTURE_LIMIT_OPTIONS,
		{ "all-processes", no_argument, NULL, 'a' },
		{ "buffer-size", required_argument, NULL, 'b' },
		{ "module-dir", required_argument, NULL, 'm' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct inject_opts o = {
		.capture_limits = CAPTURE_LIMITS_DEFAULT,
		.kmods = &kmods,
	};
	struct inject_stats st;
	int c, no_capture = 0, ret;
	char *dir = NULL;

	kmod_add_running(&kmods);

	while ((c = getopt_long(argc, argv, "i:o:c:ab:m:qh", opts, NULL)) != -1) {
		switch (c) {
		case 'i':
			o.input = optarg;
			break;
		case 'o':
			o.output = optarg;
			break;
		case 'c':
			o.capture_dir = optarg;
			break;
		case OPT_NO_CAPTURE:
			no_capture = 1;
			break;
		case OPT_CAPTURE_MAX_FILE:
		case OPT_CAPTURE_MAX_TOTAL:
		case OPT_CAPTURE_MAX_FILES:
		case OPT_CAPTURE_MAX_SECONDS:
			if (option_capture_limit(c, optarg, &o.capture_limits))
				return 2;
			break;
		case 'b':
			if (option_size("buffer-size", optarg, &o.buffer_size))
				return 2;
			break;
		case 'a':
			o.all_processes = 1;
			break;
		case 'm':
			if (option_module_dir(&kmods, optarg))
				return 2;
			break;
		case 'q':
			msg_set_quiet(1);
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (optind != argc) {
		usage(stderr);
		return 2;
	}
	if (no_capture && o.capture_dir) {
		msg_err("--capture and --no-capture: give one");
		return 2;
	}
	if (o.input && o.output && strcmp(o.input, "-") && !strcmp(o.input, o.output)) {
		msg_err("-i %s and -o %s: one file cannot be both",
			o.input, o.output);
		return 2;
	}
	if (!no_capture && !o.capture_dir) {
		dir = perf_buildid_dir();
		if (!dir)
			return 1;
		o.capture_dir = dir;
		msg_info("capturing binaries into %s, where perf looks "
			 "for them (--no-capture: none)", dir);
	}
	ret = inject_run(&o, &st) ? 1 : 0;
	report(&o, &st, !ret);
	if (st.capture_failed)
		ret = 1;
	/* Asked to stop, it stopped, its output whole: said as perf record says it. */
	if (!ret && st.signal == SIGTERM)
		ret = 128 + SIGTERM;
	free(dir);
	return ret;
}

int cmd_inject(int argc, char **argv)
{
	int ret = inject(argc, argv);

	kmod_free(&kmods);
	return ret;
}
