// SPDX-License-Identifier: GPL-2.0
/*
 * userspace/perf_command.c - perf record's command line, read as perf
 * reads it, so that the profile mmap3 merges into is the one perf wrote,
 * never a file the workload names after its own -o.
 */
#include <errno.h>
#include <fcntl.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "msg.h"
#include "perf_command.h"

/* perf's options before the subcommand that take the next word. */
static const char *const global_with_value[] = { "--buildid-dir", "--debug", NULL };

/*
 * perf record's options that take the next word as their value when not
 * given stuck to it (-F99, --freq=99): the short ones, then the long.
 */
static const char record_short_with_value[] = "eoptrcFmGCujkD";
static const char *const record_long_with_value[] = {
	"--event", "--output", "--pid", "--tid", "--realtime", "--count", "--freq",
	"--mmap-pages", "--cgroup", "--cpu", "--uid", "--branch-filter", "--clockid",
	"--delay", "--filter", "--exclude-perf", "--call-graph", "--switch-max-files",
	"--affinity", "--mmap-flush", "--max-size", "--proc-map-timeout", "--clang-path",
	"--clang-opt", "--pfm-events", "--control", "--synth", "--switch-output-event",
	"--num-thread-synthesize", "--off-cpu-thresh", "--setup-filter", NULL,
};

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

/*
 * Walk perf record's options, up to the workload (the first word that is
 * no option nor an option's value) or "--": calls @fn(option, value) for
 * each, value NULL if it has none; stops at the first non-zero return.
 */
static const char *each_option(char **argv, const char *(*fn)(const char *opt,
							       const char *value,
							       const void *arg),
			       const void *arg)
{
	const char *ret, *eq, *value;
	char opt[64];
	int i, j;

	for (i = subcommand(argv) + 1; argv[i] && argv[i][0] == '-' && argv[i][1]; i++) {
		const char *a = argv[i];

		if (!strcmp(a, "--"))
			break;
		if (a[1] == '-') {
			eq = strchr(a, '=');
			value = NULL;
			if (eq) {
				snprintf(opt, sizeof(opt), "%.*s", (int)(eq - a), a);
				value = eq + 1;
			} else {
				snprintf(opt, sizeof(opt), "%s", a);
				if (in_list(a, record_long_with_value) && argv[i + 1])
					value = argv[++i];
			}
			ret = fn(opt, value, arg);
			if (ret)
				return ret;
			continue;
		}
		/* Short options, bundled as -ag or -aF99: a value ends the bundle. */
		for (j = 1; a[j]; j++) {
			snprintf(opt, sizeof(opt), "-%c", a[j]);
			value = NULL;
			if (strchr(record_short_with_value, a[j])) {
				value = a[j + 1] ? a + j + 1 : argv[i + 1];
				if (!a[j + 1] && argv[i + 1])
					i++;
			}
			ret = fn(opt, value, arg);
			if (ret)
				return ret;
			if (value)
				break;
		}
	}
	return NULL;
}

static const char *output_of(const char *opt, const char *value, const void *arg)
{
	(void)arg;
	if (value && (!strcmp(opt, "-o") || !strcmp(opt, "--output")))
		return value;
	return NULL;
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

static const char *named(const char *opt, const char *value, const void *arg)
{
	const char *const *opts = arg;

	(void)value;
	for (; *opts; opts++)
		if (!strcmp(opt, *opts))
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
	char buf[4096 + 16], *nl, *ret = NULL;
	size_t len = 0;
	int fds[2], status, devnull;
	ssize_t n;
	pid_t pid;

	if (pipe2(fds, O_CLOEXEC))
		return NULL;
	pid = fork();
	if (pid < 0) {
		close(fds[0]);
		close(fds[1]);
		return NULL;
	}
	if (!pid) {
		devnull = open("/dev/null", O_RDWR | O_CLOEXEC);
		dup2(devnull, 0);
		dup2(fds[1], 1);
		dup2(devnull, 2);
		execlp(perf, perf, "--no-pager", "config", "buildid.dir", (char *)NULL);
		_exit(127);
	}
	close(fds[1]);
	while (len < sizeof(buf) - 1 &&
	       (n = read(fds[0], buf + len, sizeof(buf) - 1 - len)) != 0) {
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			break;
		len += (size_t)n;
	}
	close(fds[0]);
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	buf[len] = 0;
	if (!WIFEXITED(status) || WEXITSTATUS(status))
		return NULL;
	nl = strchr(buf, '\n');
	if (nl)
		*nl = 0;
	if (!strncmp(buf, "buildid.dir=", 12))
		ret = strdup(buf + 12);
	else if (!buf[0])
		ret = strdup("");
	return ret;
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
