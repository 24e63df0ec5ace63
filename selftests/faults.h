/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The debug kernel's fault injectors (failslab, fail_page_alloc,
 * fail_function in debugfs), filtered to call chains through the module,
 * for the selftests that make its allocations fail.
 */
#ifndef MMAP3_SELFTEST_FAULTS_H
#define MMAP3_SELFTEST_FAULTS_H

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "session.h"

/* Module text range from /sys/module/mmap3/sections, for the stack filters. */
static inline int module_range(unsigned long *start, unsigned long *end)
{
	DIR *d = opendir("/sys/module/mmap3/sections");
	struct dirent *e;
	char path[300], val[32];

	*start = ~0ul;
	*end = 0;
	while (d && (e = readdir(d))) {
		unsigned long a;
		int fd;

		if (e->d_name[0] == '.' && (!e->d_name[1] || !strcmp(e->d_name, "..")))
			continue;
		snprintf(path, sizeof(path), "/sys/module/mmap3/sections/%s", e->d_name);
		fd = open(path, O_RDONLY);
		memset(val, 0, sizeof(val));
		if (fd < 0 || read(fd, val, sizeof(val) - 1) <= 0) {
			if (fd >= 0)
				close(fd);
			continue;
		}
		close(fd);
		a = strtoul(val, NULL, 0);
		if (!a)
			continue;
		if (a < *start)
			*start = a;
		if (a > *end)
			*end = a;
	}
	if (d)
		closedir(d);
	*end += 1 << 20;
	return *start < *end ? 0 : -1;
}

/*
 * An injector fails at most this many calls, counting down in its "times"
 * file: what is left says how many it failed.
 */
#define FAULT_TIMES 1000000000L
#define FAILSLAB "/sys/kernel/debug/failslab"
#define FAIL_PAGE_ALLOC "/sys/kernel/debug/fail_page_alloc"
#define FAIL_FUNCTION "/sys/kernel/debug/fail_function"

static inline void faults_set(const char *dir, const char *probability, unsigned long start,
		       unsigned long end)
{
	char path[128], val[32];

	snprintf(path, sizeof(path), "%s/verbose", dir);
	write_file(path, "0");
	snprintf(path, sizeof(path), "%s/interval", dir);
	write_file(path, "1");
	snprintf(path, sizeof(path), "%s/times", dir);
	snprintf(val, sizeof(val), "%ld", FAULT_TIMES);
	write_file(path, val);
	if (start) {
		snprintf(path, sizeof(path), "%s/ignore-gfp-wait", dir);
		write_file(path, "N");
		snprintf(path, sizeof(path), "%s/stacktrace-depth", dir);
		write_file(path, "32");
		snprintf(path, sizeof(path), "%s/require-start", dir);
		snprintf(val, sizeof(val), "0x%lx", start);
		write_file(path, val);
		snprintf(path, sizeof(path), "%s/require-end", dir);
		snprintf(val, sizeof(val), "0x%lx", end);
		write_file(path, val);
	}
	snprintf(path, sizeof(path), "%s/probability", dir);
	write_file(path, probability);
}

/* How many calls the injector of @dir failed, or -1. */
static inline long faults_injected(const char *dir)
{
	char path[128], val[32] = "";
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "%s/times", dir);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	n = read(fd, val, sizeof(val) - 1);
	close(fd);
	return n > 0 ? FAULT_TIMES - strtol(val, NULL, 10) : -1;
}

#endif /* MMAP3_SELFTEST_FAULTS_H */
