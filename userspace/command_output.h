/* SPDX-License-Identifier: GPL-2.0 */
/*
 * userspace/command_output.h - another program asked a question: run
 * with no input and its errors dropped, the first line it prints taken.
 */
#ifndef MMAP3_COMMAND_OUTPUT_H
#define MMAP3_COMMAND_OUTPUT_H

#include <stddef.h>

/*
 * Run @argv (looked for in PATH); the first line of its standard output,
 * without its newline, at most @len - 1 bytes, into @out.  Returns its
 * exit status (0 to 255), or -1 if it could not be run or was killed
 * (errno says why when it could not be run).
 */
int command_output(char *const argv[], char *out, size_t len);

#endif /* MMAP3_COMMAND_OUTPUT_H */
