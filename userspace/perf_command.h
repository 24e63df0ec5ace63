/* SPDX-License-Identifier: GPL-2.0 */
/*
 * userspace/perf_command.h - what mmap3 record knows of the command it
 * runs beside, when that is perf record: where perf writes its profile
 * and where perf keeps binaries by build-id (its build-id cache).
 */
#ifndef MMAP3_PERF_COMMAND_H
#define MMAP3_PERF_COMMAND_H

#include <stddef.h>

/*
 * The file the command writes: what follows its -o or --output, else
 * for "perf record" without one perf.data, or "-" if standard output is
 * a pipe (perf then writes there); NULL if none is known.
 */
const char *perf_command_output(char **argv);

/*
 * The @i-th option of perf record's that mmap3 knows, as "S LONG ARITY"
 * (- for no short letter or long name; none, required or optional) in
 * @buf; NULL past the last.  For the test that checks them against perf.
 */
const char *perf_command_option(size_t i, char *buf, size_t len);

/*
 * Whose mappings perf record records, as its options say: everything (-a,
 * -C, -G, -u, or neither a command nor -p/-t), the processes -p or the
 * threads -t name (and their children, unless -i), or the command it runs
 * and its children.
 */
struct perf_target {
	int system_wide;
	const char *pids, *tids;	/* -p's and -t's comma lists, as given */
	int inherit;			/* not -i, --no-inherit */
	int workload;			/* perf runs a command */
};

void perf_command_target(char **argv, struct perf_target *t);

/* Is the command perf record (any path to perf, global options before it)? */
int perf_command_is_record(char **argv);

/* The first of @opts (NULL-terminated) in perf record's options, or NULL. */
const char *perf_command_has(char **argv, const char *const *opts);

/*
 * Where that perf keeps its build-id cache, as perf decides it: its
 * --buildid-dir, else its buildid.dir setting (asked of "perf config"),
 * else $HOME/.debug (the home of the user running mmap3 without HOME).
 * Returns a string to free(), or NULL after printing why.
 */
char *perf_command_buildid_dir(char **argv);

/* The same for the perf found in PATH, run without options. */
char *perf_buildid_dir(void);

#endif /* MMAP3_PERF_COMMAND_H */
