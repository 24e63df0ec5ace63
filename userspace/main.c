// SPDX-License-Identifier: GPL-2.0
/*
 * userspace/main.c - the mmap3 tool: subcommand dispatch.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "commands.h"
#include "device.h"
#include "msg.h"

#ifndef MMAP3_VERSION
#define MMAP3_VERSION "unknown"
#endif

int cmd_version(int argc, char **argv)
{
	struct mmap3_abi_version ver;
	int fd;

	if (argc == 2 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
		printf("usage: mmap3 version\n\nPrint the tool's version and ABI, and the "
		       "loaded module's.\n");
		return 0;
	}
	if (argc != 1) {
		fprintf(stderr, "usage: mmap3 version\n");
		return 2;
	}
	printf("mmap3 tool %s, ABI %u.%u\n", MMAP3_VERSION, MMAP3_ABI_MAJOR, MMAP3_ABI_MINOR);
	/* What is there, said: no module is an answer, not a failure. */
	if (access(mmap3_device_path(), F_OK) && errno == ENOENT) {
		printf("%s: no module loaded\n", mmap3_device_path());
		return 0;
	}
	fd = mmap3_device_open(&ver);
	if (fd < 0)
		return 1;
	printf("%s: module ABI %u.%u, features 0x%llx\n", mmap3_device_path(),
	       ver.major, ver.minor, (unsigned long long)ver.features);
	close(fd);
	return 0;
}

static const struct command {
	const char *name;
	int (*run)(int argc, char **argv);
	const char *help;
} commands[] = {
	{ "buildid", cmd_buildid, "build-id of PATH, --pid PID, --kernel or --module NAME, as the module sees it" },
	{ "capture", cmd_capture, "keep every binary this host maps in DIR, within bounds (a service)" },
	{ "dump", cmd_dump, "print what a perf.data or side file holds (--json)" },
	{ "fetch", cmd_fetch, "fetch the binaries a perf.data names from debuginfod into perf's cache" },
	{ "inject", cmd_inject, "a stage in perf's pipe: perf record -o - | mmap3 inject | perf report -i -" },
	{ "merge", cmd_merge, "merge a side file into perf.data: mmap3's build-ids for perf" },
	{ "record", cmd_record, "record mappings, modules and the kernel into a side file" },
	{ "stat", cmd_stat, "the module's cache and queue statistics" },
	{ "version", cmd_version, "print the tool's and the loaded module's versions" },
};

static void usage(FILE *f)
{
	size_t i;

	fprintf(f, "usage: mmap3 [--version] [--help] COMMAND [ARGS...]\n\ncommands:\n");
	for (i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		fprintf(f, "  %-10s %s\n", commands[i].name, commands[i].help);
	fprintf(f, "\n'mmap3 help COMMAND' (or 'mmap3 COMMAND --help') says more of one.\n");
}

static const struct command *find_command(const char *name)
{
	size_t i;

	for (i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		if (!strcmp(name, commands[i].name))
			return &commands[i];
	return NULL;
}

/* Has man a page of that name?  (The name is one of ours: no quoting needed.) */
static int man_has(const char *page)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "man -w %s >/dev/null 2>&1", page);
	return !system(cmd);
}

/*
 * mmap3 help COMMAND, as perf help COMMAND: its manual page, mmap3-COMMAND
 * (1), if man has it, else its --help.
 */
static int help(const char *name)
{
	const struct command *c = find_command(name);
	char page[64], *help_argv[] = { (char *)name, "--help", NULL };

	if (!c) {
		msg_err("unknown command '%s'", name);
		usage(stderr);
		return 2;
	}
	snprintf(page, sizeof(page), "mmap3-%s", name);
	if (isatty(1) && man_has(page)) {
		fflush(stdout);
		execlp("man", "man", page, (char *)NULL);
	}
	return c->run(2, help_argv);
}

/* What was printed must have been written: a full disk is an error. */
static int close_stdout(int ret)
{
	if (fflush(stdout) || ferror(stdout) || fclose(stdout)) {
		msg_err("writing to standard output: %s",
			errno ? strerror(errno) : "error");
		return ret ? ret : 1;
	}
	return ret;
}

int main(int argc, char **argv)
{
	size_t i;

	if (argc < 2) {
		usage(stderr);
		return 2;
	}
	if (!strcmp(argv[1], "help") && argc == 3 && strcmp(argv[2], "--help") &&
	    strcmp(argv[2], "-h"))
		return close_stdout(help(argv[2]));
	if (!strcmp(argv[1], "help") || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
		usage(stdout);
		return close_stdout(0);
	}
	/* As perf --version: the tool's, whatever the module. */
	if (!strcmp(argv[1], "--version") || !strcmp(argv[1], "-v")) {
		printf("mmap3 version %s (ABI %u.%u)\n", MMAP3_VERSION, MMAP3_ABI_MAJOR,
		       MMAP3_ABI_MINOR);
		return close_stdout(0);
	}
	for (i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		if (!strcmp(argv[1], commands[i].name))
			return close_stdout(commands[i].run(argc - 1, argv + 1));
	msg_err("unknown command '%s'", argv[1]);
	usage(stderr);
	return 2;
}
