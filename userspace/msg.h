/* SPDX-License-Identifier: GPL-2.0 */
/*
 * userspace/msg.h - the tool's messages on standard error, all through
 * here: the one prefix ("mmap3: "), and every byte of the message
 * escaped (escape_text()), so that a name another user chose (a path, a
 * memfd's name, a string of perf's) can never write control sequences to
 * the terminal of the root who runs the tool.  Call sites pass names as
 * they are.  Safe from any thread; a status line (msg_status()) is
 * erased before a message and drawn again by its owner.
 *
 * Formats carry no newline: each call is one line.
 */
#ifndef MMAP3_MSG_H
#define MMAP3_MSG_H

#include <stdarg.h>

#define MSG_PRINTF(a, b)	__attribute__((format(printf, a, b)))

/* An error: what failed, naming the file or device, the offset, the fix. */
void msg_err(const char *fmt, ...) MSG_PRINTF(1, 2);
/* Something the user must know but that did not fail the command. */
void msg_warn(const char *fmt, ...) MSG_PRINTF(1, 2);
/* What was done (summaries, what was loaded or where files go): not with -q. */
void msg_info(const char *fmt, ...) MSG_PRINTF(1, 2);
void msg_verr(const char *fmt, va_list ap);

/* -q: msg_info() says nothing. */
void msg_set_quiet(int quiet);

/*
 * A line of progress on a terminal (standard error), drawn over itself
 * without a newline; a message erases it first.  Not drawn if another
 * thread is printing at the moment (it comes again at the next call).
 */
void msg_status(const char *fmt, ...) MSG_PRINTF(1, 2);
/* Erase the status line, if it is drawn. */
void msg_status_clear(void);

#endif /* MMAP3_MSG_H */
