// SPDX-License-Identifier: GPL-2.0
/*
 * userspace/clocks.c - clock names as perf record -k has them
 * (tools/perf/builtin-record.c: parse_clockid()).
 */
#include <linux/mmap3.h>
#include <stdio.h>
#include <stdlib.h>
#include <strings.h>
#include <time.h>

#include "clocks.h"

static const struct {
	const char *name;
	int id;
} clocks[] = {
	/* The first name of each is the one said. */
	{ "local", MMAP3_CLOCK_LOCAL },
	{ "monotonic", CLOCK_MONOTONIC },
	{ "monotonic_raw", CLOCK_MONOTONIC_RAW },
	{ "realtime", CLOCK_REALTIME },
	{ "boottime", CLOCK_BOOTTIME },
	{ "tai", CLOCK_TAI },
	/* perf's "for the lazy". */
	{ "mono", CLOCK_MONOTONIC },
	{ "raw", CLOCK_MONOTONIC_RAW },
	{ "real", CLOCK_REALTIME },
	{ "boot", CLOCK_BOOTTIME },
};

#define NR_CLOCKS	(sizeof(clocks) / sizeof(clocks[0]))

int clock_parse(const char *s, int *id)
{
	char *end;
	long n;
	size_t i;

	n = strtol(s, &end, 10);
	if (end != s && !*end) {
		for (i = 1; i < NR_CLOCKS; i++)
			if (clocks[i].id == n) {
				*id = clocks[i].id;
				return 0;
			}
		return -1;
	}
	if (!strncasecmp(s, "CLOCK_", 6))
		s += 6;
	for (i = 0; i < NR_CLOCKS; i++)
		if (!strcasecmp(s, clocks[i].name)) {
			*id = clocks[i].id;
			return 0;
		}
	return -1;
}

const char *clock_name(int id, char *buf, size_t len)
{
	size_t i;

	if (id == MMAP3_CLOCK_LOCAL)
		return "local (perf's default)";
	for (i = 0; i < NR_CLOCKS; i++)
		if (clocks[i].id == id)
			return clocks[i].name;
	snprintf(buf, len, "clock %d", id);
	return buf;
}
