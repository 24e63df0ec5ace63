/* SPDX-License-Identifier: GPL-2.0 */
/*
 * userspace/commands.h - the mmap3 tool's subcommands.
 */
#ifndef MMAP3_COMMANDS_H
#define MMAP3_COMMANDS_H

int cmd_version(int argc, char **argv);
int cmd_record(int argc, char **argv);
int cmd_capture(int argc, char **argv);
int cmd_fetch(int argc, char **argv);
int cmd_dump(int argc, char **argv);
int cmd_merge(int argc, char **argv);
int cmd_inject(int argc, char **argv);
int cmd_stat(int argc, char **argv);
int cmd_buildid(int argc, char **argv);

struct merge_stats;
void merge_report(const char *perf_data, const char *side, const char *out,
		  const struct merge_stats *st);

#endif /* MMAP3_COMMANDS_H */
