// SPDX-License-Identifier: GPL-2.0
/*
 * perf record's command line as mmap3 record --merge reads it: the
 * profile it writes (never a file the workload names after its own -o),
 * the options that change what --merge does, and where that perf keeps
 * binaries.  Prints TAP.
 *
 *   perf_command_test DIR      (DIR: a scratch directory)
 *   perf_command_test --options  the options it knows, as perf_options_test.sh reads them
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "perf_command.h"
#include "tap.h"

#define ARGV(...) ((char *[]){ __VA_ARGS__, NULL })

static int same(const char *got, const char *want)
{
	return got && want ? !strcmp(got, want) : got == want;
}

/* What the command writes, with @fd (a file, a pipe) as its standard output. */
static const char *output_with(char **argv, int fd)
{
	const char *got;
	int saved;

	fflush(stdout);
	saved = dup(STDOUT_FILENO);
	dup2(fd, STDOUT_FILENO);
	got = perf_command_output(argv);
	dup2(saved, STDOUT_FILENO);
	close(saved);
	return got;
}

static int devnull = -1;

static void output(char **argv, const char *want, const char *what)
{
	const char *got = output_with(argv, devnull);

	CHECK(same(got, want), "%s: %s (got %s)", what, want ? want : "none", got ? got : "none");
}

int main(int argc, char **argv)
{
	static const char *const no_cache[] = { "-N", "--no-buildid-cache", NULL };
	static const char *const chunked[] = { "--switch-output", NULL };
	char path[4096], *dir;
	const char *got;
	int fds[2];
	FILE *f;

	if (argc == 2 && !strcmp(argv[1], "--options")) {
		size_t i;

		for (i = 0; perf_command_option(i, path, sizeof(path)); i++)
			printf("%s\n", path);
		return 0;
	}
	if (argc != 2)
		return 2;
	devnull = open("/dev/null", O_WRONLY);
	if (devnull < 0 || pipe(fds))
		return 2;
	output(ARGV("perf", "record", "./a"), "perf.data", "perf record alone writes perf.data");
	output(ARGV("/usr/bin/perf", "record", "-a"), "perf.data", "any path to perf");
	output(ARGV("perf", "record", "-o", "x.data", "./a"), "x.data", "-o FILE");
	output(ARGV("perf", "record", "-ox.data", "./a"), "x.data", "-oFILE");
	output(ARGV("perf", "record", "--output", "x.data"), "x.data", "--output FILE");
	output(ARGV("perf", "record", "--output=x.data"), "x.data", "--output=FILE");
	output(ARGV("perf", "record", "-aqo", "x.data", "./a"), "x.data", "-o last in a bundle");
	output(ARGV("perf", "record", "-aF99", "-o", "x.data"), "x.data",
	       "a value stuck in a bundle ends it");
	output(ARGV("perf", "record", "-e", "cycles", "-c", "1000", "-o", "x.data", "./a"), "x.data",
	       "options' values are no workload");
	output(ARGV("perf", "record", "-e", "-o", "./a"), "perf.data",
	       "-o as -e's value is no output option");
	output(ARGV("perf", "record", "-F", "99", "gcc", "-o", "prog", "prog.c"), "perf.data",
	       "the workload's own -o is not perf's");
	output(ARGV("perf", "record", "--", "gcc", "-o", "prog"), "perf.data",
	       "nor after --");
	output(ARGV("perf", "record", "--call-graph", "dwarf", "-o", "x.data", "./a"), "x.data",
	       "a long option's separate value");
	output(ARGV("perf", "--buildid-dir", "/d", "record", "-o", "x.data"), "x.data",
	       "perf's own options before record");
	output(ARGV("perf", "record", "-o", "-", "./a"), "-", "-o - (a pipe) is said as it is");
	output(ARGV("perf", "stat", "-o", "s.txt", "./a"), "s.txt",
	       "another command: its -o, for the side file's clash check");
	output(ARGV("./script", "arg"), NULL, "another command without -o: none");
	got = output_with(ARGV("perf", "record", "./a"), fds[1]);
	CHECK(same(got, "-"), "no -o and standard output a pipe: perf writes there, - (got %s)",
	      got ? got : "none");
	got = output_with(ARGV("perf", "record", "-o", "x.data", "./a"), fds[1]);
	CHECK(same(got, "x.data"), "-o x.data and standard output a pipe: x.data (got %s)",
	      got ? got : "none");

	CHECK(perf_command_is_record(ARGV("perf", "--no-pager", "record")),
	      "perf --no-pager record is perf record");
	CHECK(!perf_command_is_record(ARGV("perf", "report")), "perf report is not");
	CHECK(!perf_command_is_record(ARGV("sudo", "perf", "record")),
	      "sudo perf record is not known as perf record");
	CHECK(same(perf_command_has(ARGV("perf", "record", "-aN", "./a"), no_cache), "-N"),
	      "-N in a bundle is found");
	CHECK(perf_command_has(ARGV("perf", "record", "--no-buildid-cache"), no_cache),
	      "--no-buildid-cache is found");
	CHECK(perf_command_has(ARGV("perf", "record", "--no-buildid-c"), no_cache),
	      "... by a unique prefix, as perf takes it");
	CHECK(!perf_command_has(ARGV("perf", "record", "--buildid-cache"), no_cache),
	      "--buildid-cache, its negation, is not it");
	output(ARGV("perf", "record", "--out", "x.data", "./a"), "x.data",
	       "--out: a unique prefix of --output");
	output(ARGV("perf", "record", "--exclude-perf", "-o", "x.data", "./a"), "x.data",
	       "--exclude-perf takes no value");
	output(ARGV("perf", "record", "--vmlinux", "-o", "x.data"), "perf.data",
	       "--vmlinux takes the next word, -o here");
	output(ARGV("perf", "record", "-z", "-o", "x.data", "./a"), "x.data",
	       "-z's level is only stuck to it (-z3)");
	output(ARGV("perf", "record", "--aio", "-o", "x.data", "./a"), "x.data",
	       "--aio's count is only after = (--aio=2)");
	output(ARGV("perf", "record", "--s", "-o", "x.data", "./a"), "x.data",
	       "an ambiguous prefix takes no value: perf refuses it");
	CHECK(!perf_command_has(ARGV("perf", "record", "./a", "-N"), no_cache),
	      "the workload's -N is not perf's");
	CHECK(same(perf_command_has(ARGV("perf", "record", "--switch-output=1s"), chunked),
		   "--switch-output"), "--switch-output=1s is found");

	dir = perf_command_buildid_dir(ARGV("perf", "--buildid-dir", "/some/dir", "record"));
	CHECK(same(dir, "/some/dir"), "perf --buildid-dir DIR: DIR (got %s)", dir);
	free(dir);
	dir = perf_command_buildid_dir(ARGV("perf", "--buildid-dir=/eq/dir", "record"));
	CHECK(same(dir, "/eq/dir"), "perf --buildid-dir=DIR: DIR (got %s)", dir);
	free(dir);
	/* perf's setting, asked of perf config with the command's own perf. */
	snprintf(path, sizeof(path), "%s/perfconfig", argv[1]);
	f = fopen(path, "w");
	if (!f)
		return 1;
	fprintf(f, "[buildid]\n\tdir = /configured/dir\n");
	fclose(f);
	setenv("PERF_CONFIG", path, 1);
	dir = perf_command_buildid_dir(ARGV("perf", "record"));
	CHECK(same(dir, "/configured/dir"), "buildid.dir set: that (got %s)", dir);
	free(dir);
	unsetenv("PERF_CONFIG");
	setenv("PERF_CONFIG", "/dev/null", 1);
	setenv("HOME", "/home/someone", 1);
	dir = perf_command_buildid_dir(ARGV("perf", "record"));
	CHECK(same(dir, "/home/someone/.debug"), "else $HOME/.debug (got %s)", dir);
	free(dir);
	dir = perf_command_buildid_dir(ARGV("/no/such/perf", "record"));
	CHECK(same(dir, "/home/someone/.debug"), "a perf that cannot say: $HOME/.debug (got %s)",
	      dir);
	free(dir);
	return tap_done();
}
