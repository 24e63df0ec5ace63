// SPDX-License-Identifier: GPL-2.0
/*
 * userspace/record.c - mmap3 record's session.
 *
 * One poll() over the device, a signalfd and a pidfd of the command:
 * records are read whenever there are some, and until the command has
 * been reaped, so what perf maps while it writes its file after Ctrl-C
 * is in the side file too.  The signals that end a recording are blocked
 * and read from the signalfd, so they never interrupt a write or kill
 * the tool with a temporary file left; every descriptor is close-on-exec,
 * so the command inherits none.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "msg.h"
#include "record.h"
#include "session.h"

#ifndef SYS_pidfd_open
#define SYS_pidfd_open 434
#endif
#ifndef SYS_pidfd_send_signal
#define SYS_pidfd_send_signal 424
#endif

/* What ends a recording without a command; passed on to one. */
static const int stop_signals[] = { SIGINT, SIGTERM, SIGHUP, SIGPIPE };

struct record {
	const struct record_opts *o;
	struct record_result *res;
	struct session s;
	int sigfd, pidfd;
	pid_t child;			/* 0: none, or reaped */
	int stop;			/* no command, and a signal came */
	int failed;			/* the side file is lost */
	time_t shown;			/* status line: when last drawn */
	int status_done;		/* the command ends: no more status line */
};

/*
 * On a terminal, a line of progress on standard error, drawn again once a
 * second and cleared (not ended) when done: what follows, perf's own
 * lines at its exit included, starts on a clean line.  Cleared for good
 * once a signal comes, as the command is then about to write its own.
 */
static void status_line(struct record *r, int clear)
{
	time_t now = time(NULL);

	if (!r->o->status_line || r->status_done)
		return;
	if (clear) {
		msg_status_clear();
		r->status_done = 1;
		return;
	}
	if (now != r->shown) {
		r->shown = now;
		msg_status("%llu mappings, %llu modules, %llu lost, %llu captured",
			   (unsigned long long)r->s.side.stats.mmaps,
			   (unsigned long long)r->s.side.stats.modules,
			   (unsigned long long)r->s.side.stats.lost,
			   (unsigned long long)atomic_load(&r->s.worker.stored));
	}
}

/* Stop writing the side file, and end the session. */
static void fail(struct record *r)
{
	session_abandon(&r->s);
	if (r->s.side_open)
		side_abort(&r->s.side);
	r->s.side_open = 0;
	if (r->s.dev >= 0)
		close(r->s.dev);
	r->s.dev = -1;
	r->failed = 1;
	if (r->child)
		msg_err("no side file written; waiting for %s to exit", r->o->argv[0]);
}

/* Every record there is now; 0 at its end too, -1 on failure (done). */
static int drain(struct record *r)
{
	if (!session_take(&r->s))
		return 0;
	fail(r);
	return -1;
}

static void reap(struct record *r)
{
	int status;

	if (r->child && waitpid(r->child, &status, WNOHANG) == r->child) {
		r->res->child_status = status;
		r->child = 0;
	}
}

static void pass_on(struct record *r, int sig)
{
	if (r->pidfd >= 0 && !syscall(SYS_pidfd_send_signal, r->pidfd, sig, NULL, 0))
		return;
	kill(r->child, sig);
}

static void on_signals(struct record *r)
{
	struct signalfd_siginfo si;

	while (read(r->sigfd, &si, sizeof(si)) == sizeof(si)) {
		if (si.ssi_signo == SIGCHLD) {
			reap(r);
			continue;
		}
		if (!r->child) {
			r->stop = 1;
			continue;
		}
		/*
		 * The terminal signals its whole foreground process group
		 * (SI_KERNEL), the command included: passing it on would be
		 * twice.  Nor is our own SIGPIPE the command's business.
		 */
		if (si.ssi_code == SI_KERNEL || si.ssi_pid == (uint32_t)getpid() ||
		    si.ssi_pid == (uint32_t)r->child)
			continue;
		pass_on(r, (int)si.ssi_signo);
	}
}

/*
 * Fork the command; with @gate (a pipe's read end), it waits to run until
 * a byte comes there, and does not run if the pipe closes without one.
 */
static void start_child(struct record *r, const sigset_t *old, int gate)
{
	char go;

	r->child = fork();
	if (r->child < 0) {
		msg_err("fork: %s", strerror(errno));
		r->child = 0;
		return;
	}
	if (!r->child) {
		sigprocmask(SIG_SETMASK, old, NULL);
		if (gate >= 0 && read(gate, &go, 1) != 1)
			_exit(127);
		execvp(r->o->argv[0], r->o->argv);
		msg_err("cannot run %s: %s", r->o->argv[0], strerror(errno));
		_exit(127);
	}
	r->res->have_child = 1;
	/* Linux 5.3+; without it, SIGCHLD on the signalfd says the same. */
	r->pidfd = (int)syscall(SYS_pidfd_open, r->child, 0);
}

/*
 * The stop signals that came since the command was reaped: counted in
 * res->tail_signals (a second one means the merge is not wanted either).
 */
static int tail_signals(struct record *r)
{
	struct signalfd_siginfo si;
	int n = 0;

	while (read(r->sigfd, &si, sizeof(si)) == sizeof(si))
		if (si.ssi_signo != SIGCHLD)
			n++;
	r->res->tail_signals += n;
	return n;
}

/* Until the command has been reaped, or a signal without one. */
static int loop(struct record *r)
{
	while (r->child ? 1 : !r->stop && !r->failed && !r->s.records.eof) {
		struct pollfd pfd[3] = {
			{ .fd = r->sigfd, .events = POLLIN },
			{ .fd = r->child ? r->pidfd : -1, .events = POLLIN },
			{ .fd = r->s.records.eof ? -1 : r->s.dev, .events = POLLIN },
		};

		if (poll(pfd, 3, r->o->status_line ? 1000 : -1) < 0 && errno != EINTR) {
			msg_err("poll: %s", strerror(errno));
			return -1;
		}
		if (pfd[2].revents && r->s.dev >= 0)
			drain(r);
		if (pfd[0].revents) {
			status_line(r, 1);
			on_signals(r);
		}
		if (pfd[1].revents)
			reap(r);
		if (!r->failed)
			status_line(r, 0);
		if (!r->child && r->res->have_child)
			break;
	}
	return 0;
}

int record_run(const struct record_opts *o, struct record_result *res)
{
	struct session_opts so = {
		.filter = o->filter,
		.clock = o->clock,
		.buffer_size = o->buffer_size,
		.load_module = 1,
		.side_path = o->output,
		.capture_dir = o->capture_dir,
		.capture_limits = o->capture_limits,
		.kmods = o->kmods,
	};
	struct record r = { .o = o, .res = res, .sigfd = -1, .pidfd = -1, .s.dev = -1 };
	int ret = -1, gate[2] = { -1, -1 };
	sigset_t mask, old;
	unsigned int i;

	memset(res, 0, sizeof(*res));
	sigemptyset(&mask);
	for (i = 0; i < sizeof(stop_signals) / sizeof(stop_signals[0]); i++)
		sigaddset(&mask, stop_signals[i]);
	sigaddset(&mask, SIGCHLD);
	/*
	 * A shell starts background jobs with SIGINT ignored, and an ignored
	 * signal never reaches a signalfd.  SIGHUP and SIGPIPE stay ignored
	 * if they are (nohup).
	 */
	signal(SIGINT, SIG_DFL);
	signal(SIGTERM, SIG_DFL);
	sigprocmask(SIG_BLOCK, &mask, &old);
	r.sigfd = signalfd(-1, &mask, SFD_CLOEXEC | SFD_NONBLOCK);
	if (r.sigfd < 0) {
		msg_err("signalfd: %s", strerror(errno));
		goto out;
	}
	/*
	 * Following the command: forked first, its pid the filter's (with its
	 * descendants), waiting until the session is enabled.
	 */
	if (o->argv && o->follow_command) {
		if (pipe2(gate, O_CLOEXEC)) {
			msg_err("pipe: %s", strerror(errno));
			goto out;
		}
		start_child(&r, &old, gate[0]);
		close(gate[0]);
		if (!r.child)
			goto out;
		so.filter.nr_pids = 1;
		so.filter.pids[0] = r.child;
		so.filter.flags |= MMAP3_FILTER_INHERIT;
		so.capture_skip_pid = r.child;
	}
	/* Enabled before the command starts, so its first mappings are in. */
	if (session_open(&r.s, &so) || session_enable(&r.s))
		goto out;
	if (gate[1] >= 0) {
		if (write(gate[1], "g", 1) != 1)
			goto out;
		close(gate[1]);
		gate[1] = -1;
	} else if (o->argv) {
		start_child(&r, &old, -1);
		if (!r.child)
			goto out;
	}
	if (loop(&r) || r.failed)
		goto out;
	if (session_finish_records(&r.s, session_now(&r.s))) {
		fail(&r);
		goto out;
	}
	/*
	 * The captures still queued are copied while the command's output
	 * waits for its merge: a stop signal meanwhile gives them up (said,
	 * counted), and the merge goes on.
	 */
	while (capture_worker_wait(&r.s.worker, r.sigfd))
		if (tail_signals(&r)) {
			msg_warn("stopped capturing (a signal): what was still to be copied is "
				 "given up");
			capture_worker_cancel(&r.s.worker);
			break;
		}
	session_finish_captures(&r.s);
	res->stats_failed = r.s.stats_failed;
	status_line(&r, 1);
	if (session_close_side(&r.s))
		goto out;
	ret = 0;
out:
	/* A command that never ran (the session failed first): nothing of it to wait for. */
	if (gate[1] >= 0) {
		close(gate[1]);
		while (r.child && waitpid(r.child, NULL, 0) < 0 && errno == EINTR)
			;
		r.child = 0;
		res->have_child = 0;
	}
	if (r.child && !r.failed)
		fail(&r);	/* says so, and waits */
	while (r.child) {
		struct pollfd pfd[2] = {
			{ .fd = r.sigfd, .events = POLLIN },
			{ .fd = r.pidfd, .events = POLLIN },
		};

		if (poll(pfd, r.sigfd >= 0 ? 2 : 0, r.sigfd >= 0 ? -1 : 100) < 0 && errno != EINTR)
			break;
		if (r.sigfd >= 0)
			on_signals(&r);
		reap(&r);
	}
	session_close(&r.s);
	res->side = r.s.side.stats;
	res->capture = r.s.cap.stats;
	if (atomic_load(&r.s.worker.failed) && !r.failed)
		res->capture_failed = 1;
	if (r.pidfd >= 0)
		close(r.pidfd);
	/* With the merge to come, the signals stay blocked: cmd_record.c takes them. */
	if (r.sigfd >= 0 && o->hold_signals && !r.child)
		tail_signals(&r);
	if (r.sigfd >= 0)
		close(r.sigfd);
	res->old_mask = old;
	if (!o->hold_signals)
		sigprocmask(SIG_SETMASK, &old, NULL);
	return ret || r.failed ? -1 : 0;
}
