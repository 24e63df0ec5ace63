/* SPDX-License-Identifier: GPL-2.0 */
/*
 * userspace/cmd_common.h - what record and inject share on the command
 * line and in their summaries.
 */
#ifndef MMAP3_CMD_COMMON_H
#define MMAP3_CMD_COMMON_H

#include <stdint.h>

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

/* Modules are looked for under /lib/modules/RELEASE of the running kernel. */
void kmod_add_running(struct kmod_index *kmods);

/* Every file not captured in @dir, by cause: none goes unsaid. */
void capture_report_skipped(const struct capture_stats *c, const char *dir);

#endif /* MMAP3_CMD_COMMON_H */
