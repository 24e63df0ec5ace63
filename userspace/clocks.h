/* SPDX-License-Identifier: GPL-2.0 */
/*
 * userspace/clocks.h - the clocks a session can stamp records with, named
 * as perf record -k names them: the one table of the tool.
 */
#ifndef MMAP3_CLOCKS_H
#define MMAP3_CLOCKS_H

#include <stddef.h>

/*
 * @s as perf record -k takes it: a name (monotonic, monotonic_raw,
 * realtime, boottime, tai, or mono, raw, real, boot), in any case, with
 * or without "CLOCK_", or a clockid's number; and "local", perf's default
 * without -k (MMAP3_CLOCK_LOCAL).  0 and *@id, or -1.
 */
int clock_parse(const char *s, int *id);

/* A clock's name: "local (perf's default)", "monotonic"... or "clock N" in @buf. */
const char *clock_name(int id, char *buf, size_t len);

/* The names clock_parse() takes, for usage messages. */
#define CLOCK_NAMES	"local (perf's default), monotonic (mono), monotonic_raw (raw), " \
			"realtime (real), boottime (boot), tai"

#endif /* MMAP3_CLOCKS_H */
