// SPDX-License-Identifier: GPL-2.0
/*
 * userspace/perf_command.c - perf record's command line, read as perf
 * reads it, so that the profile mmap3 merges into is the one perf wrote,
 * never a file the workload names after its own -o.
 */
#include <errno.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "command_output.h"
#include "msg.h"
#include "perf_command.h"

/* perf's options before the subcommand that take the next word. */
static const char *const global_with_value[] = { "--buildid-dir", "--debug", NULL };

/*
 * perf record's options as its parse-options takes them: the short
 * letter, the long name, and whether a value follows (required: stuck
 * or the next word; optional: only stuck, -z3 or --aio=2).  The union of
 * perf 6.1's and 7.2's, as "perf record -h" lists them; the host test
 * perf_options_test.sh checks it against both.
 */
enum { ARG_NONE, ARG_REQUIRED, ARG_OPTIONAL };

static const struct perf_option {
	char s;
	const char *l;
	unsigned char arg;
} record_options[] = {
	{ 'g', NULL, ARG_NONE },
	{ 0, "affinity", ARG_REQUIRED },
	{ 0, "aio", ARG_OPTIONAL },
	{ 0, "all-cgroups", ARG_NONE },
	{ 'a', "all-cpus", ARG_NONE },
	{ 0, "all-kernel", ARG_NONE },
	{ 0, "all-user", ARG_NONE },
	{ 0, "aux-sample", ARG_OPTIONAL },
	{ 'b', "branch-any", ARG_NONE },
	{ 'j', "branch-filter", ARG_REQUIRED },
	{ 0, "buildid-all", ARG_NONE },
	{ 0, "buildid-mmap", ARG_NONE },
	{ 0, "call-graph", ARG_REQUIRED },
	{ 'G', "cgroup", ARG_REQUIRED },
	{ 0, "clang-opt", ARG_REQUIRED },
	{ 0, "clang-path", ARG_REQUIRED },
	{ 'k', "clockid", ARG_REQUIRED },
	{ 0, "code-page-size", ARG_NONE },
	{ 'z', "compression-level", ARG_OPTIONAL },
	{ 0, "control", ARG_REQUIRED },
	{ 'c', "count", ARG_REQUIRED },
	{ 'C', "cpu", ARG_REQUIRED },
	{ 'd', "data", ARG_NONE },
	{ 0, "data-mmap", ARG_NONE },
	{ 0, "data-page-size", ARG_NONE },
	{ 0, "debuginfod", ARG_OPTIONAL },
	{ 'D', "delay", ARG_REQUIRED },
	{ 0, "dry-run", ARG_NONE },
	{ 'e', "event", ARG_REQUIRED },
	{ 0, "exclude-perf", ARG_NONE },
	{ 0, "filter", ARG_REQUIRED },
	{ 'F', "freq", ARG_REQUIRED },
	{ 0, "group", ARG_NONE },
	{ 'I', "intr-regs", ARG_OPTIONAL },
	{ 0, "kcore", ARG_NONE },
	{ 0, "kernel-callchains", ARG_NONE },
	{ 0, "latency", ARG_NONE },
	{ 0, "max-size", ARG_REQUIRED },
	{ 0, "mmap-flush", ARG_REQUIRED },
	{ 'm', "mmap-pages", ARG_REQUIRED },
	{ 0, "namespaces", ARG_NONE },
	{ 0, "no-bpf-event", ARG_NONE },
	{ 0, "no-buffering", ARG_NONE },
	{ 'B', "no-buildid", ARG_NONE },
	{ 'N', "no-buildid-cache", ARG_NONE },
	{ 'i', "no-inherit", ARG_NONE },
	{ 'n', "no-samples", ARG_NONE },
	{ 0, "num-thread-synthesize", ARG_REQUIRED },
	{ 0, "off-cpu", ARG_NONE },
	{ 0, "off-cpu-thresh", ARG_REQUIRED },
	{ 'o', "output", ARG_REQUIRED },
	{ 0, "overwrite", ARG_NONE },
	{ 0, "per-thread", ARG_NONE },
	{ 'P', "period", ARG_NONE },
	{ 0, "phys-data", ARG_NONE },
	{ 'p', "pid", ARG_REQUIRED },
	{ 0, "proc-map-timeout", ARG_REQUIRED },
	{ 'q', "quiet", ARG_NONE },
	{ 'R', "raw-samples", ARG_NONE },
	{ 'r', "realtime", ARG_REQUIRED },
	{ 0, "running-time", ARG_NONE },
	{ 0, "sample-cpu", ARG_NONE },
	{ 0, "sample-identifier", ARG_NONE },
	{ 0, "sample-mem-info", ARG_NONE },
	{ 0, "setup-filter", ARG_REQUIRED },
	{ 'S', "snapshot", ARG_OPTIONAL },
	{ 's', "stat", ARG_NONE },
	{ 0, "strict-freq", ARG_NONE },
	{ 0, "switch-events", ARG_NONE },
	{ 0, "switch-max-files", ARG_REQUIRED },
	{ 0, "switch-output", ARG_OPTIONAL },
	{ 0, "switch-output-event", ARG_REQUIRED },
	{ 0, "synth", ARG_REQUIRED },
	{ 0, "tail-synthesize", ARG_NONE },
	{ 0, "threads", ARG_OPTIONAL },
	{ 't', "tid", ARG_REQUIRED },
	{ 'T', "timestamp", ARG_NONE },
	{ 0, "timestamp-boundary", ARG_NONE },
	{ 0, "timestamp-filename", ARG_NONE },
	{ 0, "transaction", ARG_NONE },
	{ 'u', "uid", ARG_REQUIRED },
	{ 0, "user-callchains", ARG_NONE },
	{ 0, "user-regs", ARG_OPTIONAL },
	{ 'v', "verbose", ARG_NONE },
	{ 0, "vmlinux", ARG_REQUIRED },
	{ 'W', "weight", ARG_NONE },
};

#define NR_OPTIONS	(sizeof(record_options) / sizeof(record_options[0]))

static int in_list(const char *arg, const char *const *list)
{
	for (; *list; list++)
		if (!strcmp(arg, *list))
			return 1;
	return 0;
}

static const char *base_name(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash ? slash + 1 : path;
}

/* The index of perf's subcommand in @argv, or 0 if @argv is no perf. */
static int subcommand(char **argv)
{
	int i;

	if (!argv[0] || strcmp(base_name(argv[0]), "perf"))
		return 0;
	for (i = 1; argv[i] && argv[i][0] == '-'; i++)
		if (in_list(argv[i], global_with_value) && argv[i + 1])
			i++;
	return argv[i] ? i : 0;
}

int perf_command_is_record(char **argv)
{
	int sub = subcommand(argv);

	return sub && !strcmp(argv[sub], "record");
}

const char *perf_command_option(size_t i, char *buf, size_t len)
{
	static const char *const arity[] = { "none", "required", "optional" };
	const struct perf_option *o = &record_options[i];

	if (i >= NR_OPTIONS)
		return NULL;
	snprintf(buf, len, "%c %s %s", o->s ? o->s : '-', o->l ? o->l : "-", arity[o->arg]);
	return buf;
}

static const struct perf_option *short_option(char c)
{
	size_t k;

	for (k = 0; k < NR_OPTIONS; k++)
		if (record_options[k].s == c)
			return &record_options[k];
	return NULL;
}

/*
 * The option --@name (@len bytes) names, as perf's parse-options finds
 * it: its long name, or "no-" and a name (or a "no-" name without it)
 * negating one that takes no value, or the start of exactly one of
 * those.  NULL if none or more than one; *@neg set if a negation.
 */
static const struct perf_option *long_option(const char *name, size_t len, int *neg)
{
	const struct perf_option *found = NULL;
	size_t k;
	int abbreviated = 0, found_neg = 0;

	for (k = 0; k < NR_OPTIONS; k++) {
		const struct perf_option *o = &record_options[k];
		const char *forms[3] = { o->l, NULL, NULL };
		char negated[64];
		unsigned int f;

		if (!o->l)
			continue;
		if (o->arg == ARG_NONE) {
			snprintf(negated, sizeof(negated), "no-%s", o->l);
			forms[1] = negated;
			if (!strncmp(o->l, "no-", 3))
				forms[2] = o->l + 3;
		}
		for (f = 0; f < 3 && forms[f]; f++) {
			if (strlen(forms[f]) == len && !strncmp(forms[f], name, len)) {
				*neg = f > 0;
				return o;
			}
			if (len < strlen(forms[f]) && !strncmp(forms[f], name, len)) {
				if (found && found != o)
					abbreviated = 2;
				else if (!abbreviated)
					abbreviated = 1;
				found = o;
				found_neg = f > 0;
			}
		}
	}
	*neg = found_neg;
	return abbreviated == 1 ? found : NULL;
}

/*
 * Walk perf record's options, up to the workload (the first word that is
 * no option nor an option's value) or "--": calls @fn(option, value) for
 * each option perf would take (NULL for one it does not know, which perf
 * refuses; @neg for its --no- form), value NULL if it has none; stops at
 * the first non-NULL return.
 */
typedef const char *option_fn(const struct perf_option *opt, int neg, const char *value,
			      const void *arg);

static const char *each_option(char **argv, option_fn *fn, const void *arg)
{
	const struct perf_option *o;
	const char *ret, *eq, *value;
	int i, j, neg = 0;

	for (i = subcommand(argv) + 1; argv[i] && argv[i][0] == '-' && argv[i][1]; i++) {
		const char *a = argv[i];

		if (!strcmp(a, "--")) {
			i++;
			break;
		}
		if (a[1] == '-') {
			eq = strchr(a, '=');
			o = long_option(a + 2, eq ? (size_t)(eq - a - 2) : strlen(a + 2), &neg);
			value = eq ? eq + 1 : NULL;
			if (o && !eq && o->arg == ARG_REQUIRED && argv[i + 1])
				value = argv[++i];
			ret = fn(o, neg, value, arg);
			if (ret)
				return ret;
			continue;
		}
		/* Short options, bundled as -ag or -aF99: a value ends the bundle. */
		for (j = 1; a[j]; j++) {
			o = short_option(a[j]);
			value = NULL;
			if (o && o->arg != ARG_NONE && a[j + 1])
				value = a + j + 1;
			else if (o && o->arg == ARG_REQUIRED && argv[i + 1])
				value = argv[++i];
			ret = fn(o, 0, value, arg);
			if (ret)
				return ret;
			if (value)
				break;
		}
	}
	/* The workload, if any: the end of perf's options. */
	return fn(NULL, 0, argv[i], arg);
}

static const char *output_of(const struct perf_option *opt, int neg, const char *value,
			     const void *arg)
{
	(void)arg, (void)neg;
	return opt && opt->s == 'o' ? value : NULL;
}

static const char *targets(const struct perf_option *opt, int neg, const char *value,
			   const void *arg)
{
	struct perf_target *t = (void *)arg;

	if (!opt) {
		/* Once the options are read: a command, or everything. */
		t->workload = value && !t->pids && !t->tids && !t->system_wide;
		if (!t->workload && !t->pids && !t->tids)
			t->system_wide = 1;
		return NULL;
	}
	switch (neg ? 0 : opt->s) {
	case 'a':
	case 'C':
	case 'G':
	case 'u':
		t->system_wide = 1;
		break;
	case 'p':
		t->pids = value;
		break;
	case 't':
		t->tids = value;
		break;
	case 'i':
		t->inherit = 0;
		break;
	}
	/* --inherit, --no-no-inherit: perf's own way back. */
	if (neg && opt->s == 'i')
		t->inherit = 1;
	return NULL;
}

void perf_command_target(char **argv, struct perf_target *t)
{
	memset(t, 0, sizeof(*t));
	t->inherit = 1;
	each_option(argv, targets, t);
}

const char *perf_command_output(char **argv)
{
	const char *out;
	struct stat st;
	int i;

	if (!argv || !argv[0])
		return NULL;
	if (perf_command_is_record(argv)) {
		out = each_option(argv, output_of, NULL);
		if (out)
			return out;
		/* As perf's check_pipe(): no -o and a pipe for stdout is -o -. */
		return !fstat(STDOUT_FILENO, &st) && S_ISFIFO(st.st_mode) ? "-" : "perf.data";
	}
	/* Another command (a script, a wrapper): its -o or --output if any. */
	for (i = 1; argv[i] && strcmp(argv[i], "--"); i++) {
		if ((!strcmp(argv[i], "-o") || !strcmp(argv[i], "--output")) && argv[i + 1])
			return argv[i + 1];
		if (!strncmp(argv[i], "--output=", 9))
			return argv[i] + 9;
	}
	return NULL;
}

static const char *named(const struct perf_option *opt, int neg, const char *value,
			 const void *arg)
{
	const char *const *opts = arg;

	(void)value;
	for (; opt && !neg && *opts; opts++)
		if ((opt->s && (*opts)[0] == '-' && (*opts)[1] == opt->s && !(*opts)[2]) ||
		    (opt->l && !strncmp(*opts, "--", 2) && !strcmp(*opts + 2, opt->l)))
			return *opts;
	return NULL;
}

const char *perf_command_has(char **argv, const char *const *opts)
{
	return perf_command_is_record(argv) ? each_option(argv, named, opts) : NULL;
}

/* "perf config buildid.dir": the setting's value, "" if unset, NULL on error. */
static char *configured(const char *perf)
{
	char *argv[] = { (char *)perf, "--no-pager", "config", "buildid.dir", NULL };
	char buf[4096 + 16];

	if (command_output(argv, buf, sizeof(buf)))
		return NULL;
	if (!strncmp(buf, "buildid.dir=", 12))
		return strdup(buf + 12);
	return buf[0] ? NULL : strdup("");
}

char *perf_command_buildid_dir(char **argv)
{
	const char *home = getenv("HOME");
	struct passwd *pw;
	char *dir = NULL;
	int i, sub = subcommand(argv);

	for (i = 1; i < sub; i++) {
		if (!strcmp(argv[i], "--buildid-dir") && argv[i + 1])
			return strdup(argv[i + 1]);
		if (!strncmp(argv[i], "--buildid-dir=", 14))
			return strdup(argv[i] + 14);
	}
	if (sub) {
		dir = configured(argv[0]);
		if (dir && *dir)
			return dir;
		free(dir);
	}
	if (!home || !*home) {
		pw = getpwuid(geteuid());
		home = pw ? pw->pw_dir : NULL;
	}
	if (!home || !*home) {
		msg_err("no HOME, and no home directory for uid %u: "
			"where perf keeps binaries is not known; give --capture DIR",
			(unsigned int)geteuid());
		return NULL;
	}
	if (asprintf(&dir, "%s/.debug", home) < 0)
		return NULL;
	return dir;
}

char *perf_buildid_dir(void)
{
	static char perf[] = "perf", record[] = "record";
	char *argv[] = { perf, record, NULL };

	return perf_command_buildid_dir(argv);
}
