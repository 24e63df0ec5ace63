// SPDX-License-Identifier: GPL-2.0
/*
 * userspace/stream_input.c - perf's stream read as it comes, a file
 * followed while it is written, the signals that end it taken in turn.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/signalfd.h>
#include <unistd.h>

#include "msg.h"
#include "openfile.h"
#include "stream_input.h"

/* How often a followed file's writer is looked for while nothing happens. */
#define FOLLOW_CHECK_MS	1000

static int open_path(struct stream_input *in, const char *path)
{
	static const mode_t types[] = { S_IFIFO, S_IFREG };
	struct stat st;
	unsigned int i;
	int fd = -2;

	/*
	 * Looked at first (a link to a device is never opened), then opened
	 * without waiting for a FIFO's writer: the signals must get through.
	 */
	for (i = 0; i < sizeof(types) / sizeof(types[0]) && fd == -2; i++)
		fd = open_checked_flags(path, types[i], O_RDONLY | O_NONBLOCK, &st);
	if (fd == -2) {
		msg_err("%s: %s, expected perf's data in a FIFO or a file", path,
			file_type_name(&st));
		return -1;
	}
	if (fd < 0) {
		msg_err("%s: %s", path, strerror(errno));
		return -1;
	}
	in->regular = S_ISREG(st.st_mode);
	return fd;
}

int stream_input_open(struct stream_input *in, const char *path)
{
	sigset_t mask;
	struct stat st;
	char self[64];

	memset(in, 0, sizeof(*in));
	in->fd = in->sigfd = in->notify = -1;
	sigemptyset(&mask);
	sigaddset(&mask, SIGINT);
	sigaddset(&mask, SIGHUP);
	sigaddset(&mask, SIGTERM);
	/* A shell starts background jobs with SIGINT ignored: none reaches a signalfd. */
	signal(SIGINT, SIG_DFL);
	signal(SIGTERM, SIG_DFL);
	sigprocmask(SIG_BLOCK, &mask, &in->old);
	in->sigfd = signalfd(-1, &mask, SFD_CLOEXEC | SFD_NONBLOCK);
	if (in->sigfd < 0) {
		msg_err("signalfd: %s", strerror(errno));
		return -1;
	}
	if (path && strcmp(path, "-")) {
		in->name = path;
		in->fd = open_path(in, path);
		if (in->fd < 0)
			return -1;
	} else {
		in->name = "standard input";
		if (isatty(0)) {
			msg_err("standard input is a terminal, expected perf's data: perf record "
				"-o - ... | mmap3 inject | perf report -i -");
			return -1;
		}
		in->fd = fcntl(0, F_DUPFD_CLOEXEC, 3);
		if (in->fd < 0 || fstat(in->fd, &st)) {
			msg_err("standard input: %s", strerror(errno));
			return -1;
		}
		if (!S_ISREG(st.st_mode) && !S_ISFIFO(st.st_mode) && !S_ISSOCK(st.st_mode)) {
			msg_err("standard input: %s, expected perf's data in a pipe or a file",
				file_type_name(&st));
			return -1;
		}
		in->regular = S_ISREG(st.st_mode);
	}
	if (in->regular) {
		in->notify = inotify_init1(IN_CLOEXEC | IN_NONBLOCK);
		snprintf(self, sizeof(self), "/proc/self/fd/%d", in->fd);
		if (in->notify >= 0 && inotify_add_watch(in->notify, self,
							 IN_MODIFY | IN_CLOSE_WRITE) < 0) {
			close(in->notify);
			in->notify = -1;
		}
	}
	return 0;
}

/* Take the signals that came. */
static void take_signals(struct stream_input *in)
{
	struct signalfd_siginfo si;

	while (read(in->sigfd, &si, sizeof(si)) == sizeof(si)) {
		if (!in->signal)
			in->signal = (int)si.ssi_signo;
		if (si.ssi_signo == SIGTERM || in->draining)
			in->stop = 1;
		in->draining = 1;
	}
}

/*
 * Is someone writing the file?  A read lease is refused (EAGAIN) while
 * any descriptor has it open for writing; given, it is given back at
 * once.  1, 0, or -1 if that cannot be asked (another owner without
 * CAP_LEASE, a file system without leases).
 */
static int has_writer(struct stream_input *in)
{
	if (!fcntl(in->fd, F_SETLEASE, F_RDLCK)) {
		fcntl(in->fd, F_SETLEASE, F_UNLCK);
		return 0;
	}
	return errno == EAGAIN ? 1 : -1;
}

/* At a regular file's end: 1 if more may come (and something happened), 0 if not. */
static int follow(struct stream_input *in)
{
	struct pollfd pfd[2] = {
		{ .fd = in->notify, .events = POLLIN },
		{ .fd = in->sigfd, .events = POLLIN },
	};
	char buf[4096];
	int w = has_writer(in);

	if (w < 0 && !in->unsure) {
		in->unsure = 1;
		msg_warn("%s: cannot tell whether it is still being written (%s): read to its "
			 "end now; a FIFO gives a stream as it comes", in->name, strerror(errno));
	}
	if (w <= 0)
		return 0;
	if (poll(pfd, 2, in->notify >= 0 ? FOLLOW_CHECK_MS : 100) < 0 && errno != EINTR)
		return 0;
	while (in->notify >= 0 && read(in->notify, buf, sizeof(buf)) > 0)
		;
	if (pfd[1].revents)
		take_signals(in);
	return 1;
}

int stream_input_wait(void *arg, int eof)
{
	struct stream_input *in = arg;

	if (eof) {
		/* Whatever came meanwhile: what ends a stream ends a followed file too. */
		take_signals(in);
		return in->regular && !in->draining && !in->stop ? follow(in) : 0;
	}
	for (;;) {
		struct pollfd pfd[2] = {
			{ .fd = in->fd, .events = POLLIN },
			{ .fd = in->sigfd, .events = POLLIN },
		};
		int n;

		if (in->stop)
			return 1;
		n = poll(pfd, 2, in->draining ? STREAM_QUIET_MS : -1);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			msg_err("%s: poll: %s", in->name, strerror(errno));
			return -1;
		}
		if (pfd[1].revents) {
			take_signals(in);
			continue;
		}
		/* Nothing for a while after Ctrl-C: the writer is not stopping. */
		if (!n)
			return 1;
		return 0;
	}
}

void stream_input_close(struct stream_input *in)
{
	/* Taken, not left pending to kill the tool once unblocked. */
	if (in->sigfd >= 0)
		take_signals(in);
	if (in->notify >= 0)
		close(in->notify);
	if (in->sigfd >= 0)
		close(in->sigfd);
	in->notify = in->sigfd = -1;
	sigprocmask(SIG_SETMASK, &in->old, NULL);
}
