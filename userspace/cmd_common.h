/* SPDX-License-Identifier: GPL-2.0 */
/*
 * userspace/cmd_common.h - what record and inject share on the command
 * line and in their summaries.
 */
#ifndef MMAP3_CMD_COMMON_H
#define MMAP3_CMD_COMMON_H

#include <linux/mmap3.h>
#include <stdint.h>
#include <stdio.h>

#include "capture.h"
#include "kmod.h"

/* A size with an optional k, M or G suffix; 0, or -1 if it is none. */
int parse_size(const char *s, uint64_t *out);

/*
 * The options record and inject share: a size (--@opt;
 * --buffer-size also what the module takes), seconds, a module directory.
 * 0, or 2 (a usage error) after saying what was expected.
 */
int option_size(const char *opt, const char *arg, uint64_t *out);
int option_seconds(const char *opt, const char *arg, uint64_t *out);
int option_module_dir(struct kmod_index *kmods, const char *arg);

/*
 * The capture limits record and inject take, for struct option tables
 * (getopt_long() returns OPT_CAPTURE_*), their lines in a usage text,
 * and one of them parsed into @l: 0, or 2 after saying what was wrong.
 */
enum {
	OPT_CAPTURE_MAX_FILE = 0x200,
	OPT_CAPTURE_MAX_TOTAL,
	OPT_CAPTURE_MAX_FILES,
	OPT_CAPTURE_MAX_SECONDS,
};

#define CAPTURE_LIMIT_OPTIONS \
	{ "capture-max-file", required_argument, NULL, OPT_CAPTURE_MAX_FILE }, \
	{ "capture-max-total", required_argument, NULL, OPT_CAPTURE_MAX_TOTAL }, \
	{ "capture-max-files", required_argument, NULL, OPT_CAPTURE_MAX_FILES }, \
	{ "capture-max-seconds", required_argument, NULL, OPT_CAPTURE_MAX_SECONDS }

#define CAPTURE_LIMIT_SYNOPSIS \
	"[--capture-max-file BYTES] [--capture-max-total BYTES]\n" \
	"                    [--capture-max-files N] [--capture-max-seconds N]"

void capture_limits_usage(FILE *f);
int option_capture_limit(int opt, const char *arg, struct capture_limits *l);

/*
 * A comma list of process ids (as perf record -p takes, --pid's too) into
 * @f; with @threads, thread ids, each taken as its process.  0, or -1
 * after saying what was wrong (@what names the option).
 */
int parse_pid_list(const char *what, const char *list, int threads, struct mmap3_filter *f);

/* Modules are looked for under /lib/modules/RELEASE of the running kernel. */
void kmod_add_running(struct kmod_index *kmods);

/* Every file not captured in @dir, by cause: none goes unsaid. */
void capture_report_skipped(const struct capture_stats *c, const char *dir);

#endif /* MMAP3_CMD_COMMON_H */
