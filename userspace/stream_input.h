/* SPDX-License-Identifier: GPL-2.0 */
/*
 * userspace/stream_input.h - perf's stream as mmap3 inject reads it:
 * standard input, a FIFO, or a file perf is still writing, looked at
 * before it is opened; read as it comes, never blocking the signals
 * that end it:
 *
 *  - SIGINT or SIGHUP (Ctrl-C, a hangup: the terminal sends them to the
 *    whole pipeline, perf too): the stream is read on until its writer
 *    closes it, or for as long as it goes on coming without a pause of
 *    STREAM_QUIET_MS, so that what perf writes as it stops is not lost;
 *    then it ends as at its end;
 *  - SIGTERM, or a second SIGINT or SIGHUP: it ends at once;
 *  - a regular file is followed while someone has it open for writing
 *    (perf record -o - >FILE): at its end, a read lease that cannot be
 *    had (F_SETLEASE: only with no writer) means more may come, and its
 *    inotify events say when; once no one writes it, its end is the end.
 *
 * The signals are blocked in the whole process from stream_input_open()
 * on (threads started later inherit that) and read from a signalfd.
 */
#ifndef MMAP3_STREAM_INPUT_H
#define MMAP3_STREAM_INPUT_H

#include <signal.h>

#define STREAM_QUIET_MS	2000

struct stream_input {
	const char *name;		/* for messages */
	int fd;
	int sigfd;
	int notify;			/* inotify of a regular file, or -1 */
	int regular;
	int draining;			/* a SIGINT or SIGHUP came */
	int stop;			/* end now */
	int signal;			/* the first signal that ended it, or 0 */
	int unsure;			/* could not tell whether a writer is there: said */
	sigset_t old;			/* the signal mask before */
};

/*
 * Open @path (NULL or "-": standard input), which must be a FIFO, a
 * socket or a regular file: looked at before it is opened.  0, or -1
 * after printing why.
 */
int stream_input_open(struct stream_input *in, const char *path);

/*
 * perf_reader's wait hook: before a read (@eof 0), 0 to read, 1 to take
 * the stream as ended; after a read found the end (@eof 1), 1 to read
 * again (more is coming), 0 for the end.  -1 on failure (printed).
 */
int stream_input_wait(void *in, int eof);

/* The descriptor is the reader's (closed with it); the rest is freed here. */
void stream_input_close(struct stream_input *in);

#endif /* MMAP3_STREAM_INPUT_H */
