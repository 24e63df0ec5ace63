/* SPDX-License-Identifier: GPL-2.0 */
/*
 * userspace/cmd_common.h - what record and inject share on the command
 * line and in their summaries.
 */
#ifndef MMAP3_CMD_COMMON_H
#define MMAP3_CMD_COMMON_H

#include <stdint.h>

#include "capture.h"

/* A size with an optional k, M or G suffix; 0, or -1 if it is none. */
int parse_size(const char *s, uint64_t *out);

/* Every file not captured in @dir, by cause: none goes unsaid. */
void capture_report_skipped(const struct capture_stats *c, const char *dir);

#endif /* MMAP3_CMD_COMMON_H */
