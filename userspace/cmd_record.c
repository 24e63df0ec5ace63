// SPDX-License-Identifier: GPL-2.0
/*
 * userspace/cmd_record.c - mmap3 record: options, messages and exit
 * status; the session itself is record.c.
 */
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "clocks.h"
#include "capture_worker.h"
#include "commands.h"
#include "cmd_common.h"
#include "merge.h"
#include "msg.h"
#include "openfile.h"
#include "perf_command.h"
#include "record.h"

static void usage(FILE *f)
{
	fprintf(f,
		"usage: mmap3 record [--merge] [-o FILE] [--capture DIR | --no-capture]\n"
		"                    " CAPTURE_LIMIT_SYNOPSIS "\n"
		"                    [--pid PID[,PID...]]... [--no-inherit] [--data]\n"
		"                    [--clock CLOCK] [--buffer-size BYTES] [--quiet]\n"
		"                    [--module-dir DIR]... [-- CMD [ARGS...]]\n"
		"\n"
		"Record executable mappings, modules and the kernel with their build-ids\n"
		"into FILE (default mmap3.data), a perf.data file, created 0600.  With CMD,\n"
		"run it (e.g. perf record ...) and stop once it has exited, with its exit\n"
		"status; SIGINT, SIGTERM, SIGHUP and SIGPIPE sent to mmap3 alone are passed\n"
		"on to it (those from the terminal reach it directly).  Without CMD, record\n"
		"until one of those signals.\n"
		"\n"
		"  -M, --merge           CMD is perf record: once it has exited, merge the\n"
		"                        side file into perf's own output (its -o, else\n"
		"                        perf.data), replaced when complete, and capture\n"
		"                        binaries where that perf keeps them (the\n"
		"                        perf --buildid-dir, buildid.dir, else ~/.debug),\n"
		"                        so plain 'perf report' resolves them; the side\n"
		"                        file is kept as OUTPUT.mmap3\n"
		"  -o, --output FILE     side file to write\n"
		"  -c, --capture DIR     keep each newly seen build-id's exact file in DIR,\n"
		"                        in perf's build-id cache layout: use it with\n"
		"                        'perf --buildid-dir DIR report' (or as ~/.debug);\n"
		"                        DIR must be yours, no symbolic link, and writable\n"
		"                        by you alone (under sudo: or by the user who\n"
		"                        ran sudo, who then owns what is made there)\n"
		"      --no-capture      with --merge: capture nothing\n");
	capture_limits_usage(f);
	fprintf(f,
		"  -p, --pid PID[,PID]   only these processes and their children, as perf\n"
		"                        record -p (repeatable, up to %d in all)\n"
		"      --no-inherit      with --pid: not their children\n"
		"  -d, --data            also non-executable file mappings\n"
		"  -k, --clock CLOCK     as perf record -k takes it: local (perf's default),\n"
		"                        monotonic (mono), monotonic_raw (raw), realtime\n"
		"                        (real), boottime (boot), tai, CLOCK_MONOTONIC...\n"
		"  -b, --buffer-size N   kernel buffer in bytes (a power of two from 64k to\n"
		"                        1G, default 4M)\n"
		"  -q, --quiet           no status line, no summary: warnings and errors only\n"
		"  -m, --module-dir DIR  also look for modules' .ko files here (repeatable;\n"
		"                        /lib/modules/RELEASE always), so perf reads their\n"
		"                        symbols and --capture keeps them\n",
		MMAP3_FILTER_MAX_PIDS);
}

static struct kmod_index kmods;

/* --merge, --no-capture, and whether -o and --capture were given. */
static int merge, no_capture, no_inherit, output_given, capture_dir_given;

/* Options into @o; returns -1 to go on, else the exit status. */
static int parse(int argc, char **argv, struct record_opts *o)
{
	static const struct option opts[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "merge", no_argument, NULL, 'M' },
		{ "capture", required_argument, NULL, 'c' },
		{ "no-capture", no_argument, NULL, 'n' },
		{ "no-inherit", no_argument, NULL, 'I' },
		CAPTURE_LIMIT_OPTIONS,
		{ "pid", required_argument, NULL, 'p' },
		{ "data", no_argument, NULL, 'd' },
		{ "clock", required_argument, NULL, 'k' },
		{ "buffer-size", required_argument, NULL, 'b' },
		{ "module-dir", required_argument, NULL, 'm' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	kmod_add_running(&kmods);
	while ((c = getopt_long(argc, argv, "+o:Mc:p:dk:b:m:qh", opts, NULL)) != -1) {
		switch (c) {
		case 'o':
			o->output = optarg;
			output_given = 1;
			break;
		case 'M':
			merge = 1;
			break;
		case 'n':
			no_capture = 1;
			break;
		case 'I':
			no_inherit = 1;
			break;
		case 'c':
			o->capture_dir = optarg;
			capture_dir_given = 1;
			o->filter.flags |= MMAP3_FILTER_CAPTURE;
			break;
		case 'p':
			/* A comma list, as perf record -p takes. */
			if (parse_pid_list("--pid", optarg, 0, &o->filter))
				return 2;
			break;
		case 'd':
			o->filter.flags |= MMAP3_FILTER_DATA;
			break;
		case OPT_CAPTURE_MAX_FILE:
		case OPT_CAPTURE_MAX_TOTAL:
		case OPT_CAPTURE_MAX_FILES:
		case OPT_CAPTURE_MAX_SECONDS:
			if (option_capture_limit(c, optarg, &o->capture_limits))
				return 2;
			break;
		case 'k':
			if (clock_parse(optarg, &o->clock)) {
				msg_err("--clock %s: not a clock; expected one "
					"of " CLOCK_NAMES ", or a clockid's number", optarg);
				return 2;
			}
			break;
		case 'b':
			if (option_size("buffer-size", optarg, &o->buffer_size))
				return 2;
			break;
		case 'm':
			if (option_module_dir(&kmods, optarg))
				return 2;
			break;
		case 'q':
			o->quiet = 1;
			msg_set_quiet(1);
			o->status_line = 0;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	o->argv = optind < argc ? argv + optind : NULL;
	/* As perf record -p: children too, unless --no-inherit. */
	if (o->filter.nr_pids && !no_inherit)
		o->filter.flags |= MMAP3_FILTER_INHERIT;
	return -1;
}

/* Every file not captured, by cause, and what could not be counted. */
static void report_skipped(const struct record_result *res, const char *dir)
{
	capture_report_skipped(&res->capture, dir);
	if (res->stats_failed)
		msg_warn("the module's statistics could not be read "
			 "(above): files it gave no copy of are not counted");
}

/* @path as an absolute name: its directory resolved, its own name kept. */
static int absolute(const char *path, char *out, size_t len)
{
	char dir[PATH_MAX], *d = strdup(path), *slash, *base;
	int ret = -1;

	if (!d)
		return -1;
	slash = strrchr(d, '/');
	base = slash ? slash + 1 : d;
	if (slash == d)
		strcpy(dir, "/");
	else if (!realpath(slash ? (*slash = 0, d) : ".", dir))
		goto out;
	if (snprintf(out, len, "%s/%s", strcmp(dir, "/") ? dir : "", base) < (int)len)
		ret = 0;
out:
	free(d);
	return ret;
}

/* Is the side file the command's own output?  Then one would lose the other. */
static int output_clash(const struct record_opts *o)
{
	char a[PATH_MAX + NAME_MAX + 2], b[PATH_MAX + NAME_MAX + 2];
	const char *theirs = o->argv ? perf_command_output(o->argv) : NULL;

	if (!theirs || absolute(o->output, a, sizeof(a)) || absolute(theirs, b, sizeof(b)) ||
	    strcmp(a, b))
		return 0;
	msg_err("-o %s: the command writes %s too; give the side file "
		"another name (e.g. -o mmap3.data)", o->output, theirs);
	return 1;
}

/*
 * The system's directory (/dev, /proc, /sys) @path is in, as its
 * directory resolves (/dev/fd/1 is in /proc), or NULL: no file of
 * mmap3's is made there, whatever they lead to.
 */
static const char *system_dir(const char *path)
{
	static const char *const dirs[] = { "/dev", "/proc", "/sys" };
	char *copy = strdup(path), *slash, *real;
	const char *ret = NULL;
	unsigned int i;
	size_t n;

	if (!copy)
		return NULL;
	slash = strrchr(copy, '/');
	if (slash)
		*(slash == copy ? slash + 1 : slash) = 0;
	real = realpath(slash ? copy : ".", NULL);
	for (i = 0; real && i < sizeof(dirs) / sizeof(dirs[0]); i++) {
		n = strlen(dirs[i]);
		if (!strncmp(real, dirs[i], n) && (!real[n] || real[n] == '/'))
			ret = dirs[i];
	}
	free(real);
	free(copy);
	return ret;
}

/* perf's profile, before the session: what perf writing it anew changes. */
struct profile_before {
	const char *path;
	int existed;
	struct stat st;
};

/*
 * --merge: the profile perf record writes, the side file beside it and,
 * unless told otherwise, captures where that perf keeps binaries.
 * Returns -1 to go on, else the exit status after printing why.
 */
static int merge_setup(struct record_opts *o, struct profile_before *p, char **side,
		       char **dir)
{
	static const char *const chunked[] = { "--switch-output", NULL };
	static const char *const compressed[] = { "-z", NULL };
	static const char *const threaded[] = { "--threads", NULL };
	static const char *const no_cache[] = { "-N", "--no-buildid-cache", NULL };
	const char *where;

	if (!o->argv || !perf_command_is_record(o->argv)) {
		msg_err("--merge: expected '-- perf record ...': the file "
			"merged into is perf record's profile");
		return 2;
	}
	p->path = perf_command_output(o->argv);
	if (!strcmp(p->path, "-")) {
		msg_err("--merge: perf record writes standard output (-o "
			"-, or no -o and standard output a pipe): there is no profile to "
			"merge into; give it a file with -o");
		return 2;
	}
	if (perf_command_has(o->argv, chunked)) {
		msg_err("--merge: perf record --switch-output writes a "
			"file per chunk: record without --merge and merge each chunk with the "
			"side file (mmap3 merge CHUNK SIDE -o OUT)");
		return 2;
	}
	/* What merge could not read: said before anything is recorded. */
	if (perf_command_has(o->argv, compressed)) {
		msg_err("--merge: perf record -z writes compressed data, which merge cannot "
			"read: record without -z (perf inject can compress it afterwards)");
		return 2;
	}
	if (perf_command_has(o->argv, threaded)) {
		msg_err("--merge: perf record --threads writes a directory of files, which "
			"merge cannot read: record without --threads");
		return 2;
	}
	where = system_dir(p->path);
	if (where) {
		msg_err("--merge: perf record writes %s, a name of %s: merge rewrites a regular "
			"file, and writes the side file beside it; give perf's -o a file's name",
			p->path, where);
		return 2;
	}
	if (!stat(p->path, &p->st) && !S_ISREG(p->st.st_mode)) {
		msg_err("--merge: perf record writes %s, which is %s: merge rewrites a regular "
			"file; give perf's -o one", p->path, file_type_name(&p->st));
		return 2;
	}
	/* Whose mappings are recorded and captured: those perf records (unless --pid). */
	if (!o->filter.nr_pids) {
		struct perf_target t;

		perf_command_target(o->argv, &t);
		if (t.workload)
			o->follow_command = 1;
		if ((t.pids && parse_pid_list("perf record -p", t.pids, 0, &o->filter)) ||
		    (t.tids && parse_pid_list("perf record -t", t.tids, 1, &o->filter)))
			return 2;
		if (o->filter.nr_pids && t.inherit)
			o->filter.flags |= MMAP3_FILTER_INHERIT;
	}
	if (capture_dir_given && no_capture) {
		msg_err("--capture and --no-capture: give one");
		return 2;
	}
	if (!output_given) {
		if (asprintf(side, "%s.mmap3", p->path) < 0)
			return 1;
		o->output = *side;
	}
	p->existed = !lstat(p->path, &p->st);
	if (o->capture_dir || no_capture || perf_command_has(o->argv, no_cache))
		return -1;
	*dir = perf_command_buildid_dir(o->argv);
	if (!*dir)
		return 1;
	o->capture_dir = *dir;
	o->filter.flags |= MMAP3_FILTER_CAPTURE;
	msg_info("capturing binaries into %s, where perf looks for them "
		"(--no-capture: none)", *dir);
	return -1;
}

/*
 * After perf record has exited: its profile, if it wrote one, with the
 * side file's records, in place.  Returns 0, or 1 after printing why,
 * perf's profile then left as perf wrote it.
 */
static int merge_profile(const struct record_opts *o, const struct profile_before *p)
{
	const struct merge_opts mo = { .in_place = 1 };
	struct merge_stats st;
	struct stat now;

	if (lstat(p->path, &now) || (p->existed && now.st_ino == p->st.st_ino &&
				     now.st_dev == p->st.st_dev &&
				     now.st_mtim.tv_sec == p->st.st_mtim.tv_sec &&
				     now.st_mtim.tv_nsec == p->st.st_mtim.tv_nsec)) {
		msg_err("%s: not written by perf record: nothing merged; "
			"mmap3's records are in %s", p->path, o->output);
		return 1;
	}
	if (merge_files(p->path, o->output, p->path, &mo, &st)) {
		msg_err("%s left as perf wrote it; mmap3's records are in %s",
			p->path, o->output);
		return 1;
	}
	merge_report(p->path, o->output, p->path, &st);
	return 0;
}

/* The stop signals pending (blocked since record_run()): taken, counted. */
static int stop_signals_taken(void)
{
	static const struct timespec now;
	sigset_t set;
	int n = 0;

	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGHUP);
	sigaddset(&set, SIGPIPE);
	while (sigtimedwait(&set, NULL, &now) > 0)
		n++;
	return n;
}

static int record(int argc, char **argv)
{
	struct record_opts o = {
		.output = "mmap3.data",
		.filter = { .size = sizeof(o.filter) },
		.capture_limits = CAPTURE_LIMITS_DEFAULT,
		.clock = MMAP3_CLOCK_LOCAL,
		.kmods = &kmods,
		.status_line = isatty(2),
	};
	struct profile_before profile = { 0 };
	char *side = NULL, *dir = NULL;
	struct record_result res;
	int ret = parse(argc, argv, &o), status = 0;

	if (ret >= 0)
		return ret;
	if (merge) {
		ret = merge_setup(&o, &profile, &side, &dir);
		if (ret >= 0)
			goto out;
	}
	ret = 2;
	if (!strcmp(o.output, "-")) {
		msg_err("-o -: the side file is a perf.data file, not a "
			"stream: give it a name");
		goto out;
	}
	if (output_clash(&o))
		goto out;
	ret = 1;
	o.hold_signals = merge;
	if (record_run(&o, &res)) {
		if (merge)
			msg_err("%s left as perf wrote it: no side file to merge into it",
				profile.path);
		goto out;
	}
	msg_info("wrote %s: %llu mappings (%llu without a build-id), %llu modules", o.output,
		 (unsigned long long)res.side.mmaps, (unsigned long long)res.side.no_build_id,
		 (unsigned long long)res.side.modules);
	if (o.capture_dir)
		msg_info("captured %llu files (%llu MB) in %s, %llu there already, "
			 "%llu changed after mapping", (unsigned long long)res.capture.stored,
			 (unsigned long long)(res.capture.bytes >> 20), o.capture_dir,
			 (unsigned long long)res.capture.cached,
			 (unsigned long long)res.capture.changed);
	if (o.capture_dir)
		report_skipped(&res, o.capture_dir);
	if (res.side.lost)
		msg_warn("%llu records LOST: the profile may miss "
			 "mappings; use a larger --buffer-size",
			 (unsigned long long)res.side.lost);
	if (res.capture_failed) {
		msg_err("capturing files into %s failed (see above); stopped "
			"capturing there", o.capture_dir);
		status = 1;
	}
	/* A second stop signal once perf had exited: no merge wanted either. */
	if (merge && res.tail_signals + stop_signals_taken() >= 2) {
		msg_warn("%s left as perf wrote it (a second signal); mmap3's records are in %s",
			 profile.path, o.output);
		status = 1;
	} else if (merge && merge_profile(&o, &profile))
		status = 1;
	ret = status;
	/* The command's own failure says the most: its status first. */
	if (res.have_child && (!WIFEXITED(res.child_status) || WEXITSTATUS(res.child_status)))
		ret = WIFEXITED(res.child_status) ? WEXITSTATUS(res.child_status) :
		      128 + WTERMSIG(res.child_status);
out:
	/* Nothing pending may kill the tool once unblocked: taken first. */
	if (o.hold_signals) {
		stop_signals_taken();
		sigprocmask(SIG_SETMASK, &res.old_mask, NULL);
	}
	free(side);
	free(dir);
	return ret;
}

int cmd_record(int argc, char **argv)
{
	int ret = record(argc, argv);

	kmod_free(&kmods);
	return ret;
}
