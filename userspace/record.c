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

#include "capture_worker.h"
#include "device.h"
#include "msg.h"
#include "record.h"

#ifndef SYS_pidfd_open
#define SYS_pidfd_open 434
#endif
#ifndef SYS_pidfd_send_signal
#define SYS_pidfd_send_signal 424
#endif

/* What ends a recording without a command; passed on to one. */
static const int stop_signals[] = { SIGINT, SIGTERM, SIGHUP, SIGPIPE };

struct session {
	const struct record_opts *o;
	struct record_result *res;
	int dev;			/* -1 once closed */
	struct mmap3_records records;
	struct side_writer side;
	int side_open;
	struct capture cap;
	int cap_open;
	struct capture_worker worker;	/* copies captures off this loop */
	int sigfd, pidfd;
	pid_t child;			/* 0: none, or reaped */
	int stop;			/* no command, and a signal came */
	int failed;			/* the side file is lost */
	time_t shown;			/* status line: when last drawn */
	struct timespec enabled;	/* CLOCK_MONOTONIC just before ENABLE */
	int status_done;		/* the command ends: no more status line */
};

/*
 * On a terminal, a line of progress on standard error, drawn again once a
 * second and cleared (not ended) when done: what follows, perf's own
 * lines at its exit included, starts on a clean line.  Cleared for good
 * once a signal comes, as the command is then about to write its own.
 */
static void status_line(struct session *s, int clear)
{
	time_t now = time(NULL);

	if (!s->o->status_line || s->status_done)
		return;
	if (clear) {
		msg_status_clear();
		s->status_done = 1;
		return;
	}
	if (now != s->shown) {
		s->shown = now;
		msg_status("%llu mappings, %llu modules, %llu lost, %llu captured",
			   (unsigned long long)s->side.stats.mmaps,
			   (unsigned long long)s->side.stats.modules,
			   (unsigned long long)s->side.stats.lost,
			   (unsigned long long)atomic_load(&s->worker.stored));
	}
}

/* Keep the file of a mapping: queued for the capture worker. */
static void capture_mapping(struct session *s, const struct mmap3_record_mmap *m)
{
	if (s->worker.started)
		capture_worker_mapping(&s->worker, m);
	else
		mmap3_device_capture_release(s->dev, m->capture);
}

/* Keep the .ko of a module that was loaded, if it was found. */
static void capture_module(struct session *s, const struct mmap3_record_module *m)
{
	const char *path;

	if (!s->worker.started)
		return;
	path = kmod_find(s->o->kmods, m->name, &m->build_id);
	if (path)
		capture_worker_file(&s->worker, path, &m->build_id);
}

/* Stop writing the side file, and end the session. */
static void fail(struct session *s)
{
	if (s->worker.started)
		capture_worker_abandon(&s->worker);
	if (s->side_open)
		side_abort(&s->side);
	s->side_open = 0;
	if (s->dev >= 0)
		close(s->dev);
	s->dev = -1;
	s->failed = 1;
	if (s->child)
		msg_err("no side file written; waiting for %s to exit",
			s->o->argv[0]);
}

/* Every record there is now; 0 at its end too, -1 on failure (done). */
static int drain(struct session *s)
{
	const struct mmap3_record_header *h;
	int ret;

	while ((ret = mmap3_records_next(&s->records, &h)) > 0) {
		if (side_add_checked(&s->side, h, &s->records.mmap)) {
			fail(s);
			return -1;
		}
		if (h->type == MMAP3_RECORD_MMAP && ((const struct mmap3_record_mmap *)h)->capture)
			capture_mapping(s, (const void *)h);
		if (h->type == MMAP3_RECORD_MODULE_LOAD)
			capture_module(s, (const void *)h);
	}
	if (ret < 0)
		fail(s);
	return ret;
}

static void reap(struct session *s)
{
	int status;

	if (s->child && waitpid(s->child, &status, WNOHANG) == s->child) {
		s->res->child_status = status;
		s->child = 0;
	}
}

static void pass_on(struct session *s, int sig)
{
	if (s->pidfd >= 0 && !syscall(SYS_pidfd_send_signal, s->pidfd, sig, NULL, 0))
		return;
	kill(s->child, sig);
}

static void on_signals(struct session *s)
{
	struct signalfd_siginfo si;

	while (read(s->sigfd, &si, sizeof(si)) == sizeof(si)) {
		if (si.ssi_signo == SIGCHLD) {
			reap(s);
			continue;
		}
		if (!s->child) {
			s->stop = 1;
			continue;
		}
		/*
		 * The terminal signals its whole foreground process group
		 * (SI_KERNEL), the command included: passing it on would be
		 * twice.  Nor is our own SIGPIPE the command's business.
		 */
		if (si.ssi_code == SI_KERNEL || si.ssi_pid == (uint32_t)getpid() ||
		    si.ssi_pid == (uint32_t)s->child)
			continue;
		pass_on(s, (int)si.ssi_signo);
	}
}

static void start_child(struct session *s, const sigset_t *old)
{
	s->child = fork();
	if (s->child < 0) {
		msg_err("fork: %s", strerror(errno));
		s->child = 0;
		return;
	}
	if (!s->child) {
		sigprocmask(SIG_SETMASK, old, NULL);
		execvp(s->o->argv[0], s->o->argv);
		msg_err("cannot run %s: %s", s->o->argv[0], strerror(errno));
		_exit(127);
	}
	s->res->have_child = 1;
	/* Linux 5.3+; without it, SIGCHLD on the signalfd says the same. */
	s->pidfd = (int)syscall(SYS_pidfd_open, s->child, 0);
}

/* Until the command has been reaped, or a signal without one. */
static int loop(struct session *s)
{
	while (s->child ? 1 : !s->stop && !s->failed && !s->records.eof) {
		struct pollfd pfd[3] = {
			{ .fd = s->sigfd, .events = POLLIN },
			{ .fd = s->child ? s->pidfd : -1, .events = POLLIN },
			{ .fd = s->records.eof ? -1 : s->dev, .events = POLLIN },
		};

		if (poll(pfd, 3, s->o->status_line ? 1000 : -1) < 0 && errno != EINTR) {
			msg_err("poll: %s", strerror(errno));
			return -1;
		}
		if (pfd[2].revents && s->dev >= 0)
			drain(s);
		if (pfd[0].revents) {
			status_line(s, 1);
			on_signals(s);
		}
		if (pfd[1].revents)
			reap(s);
		if (!s->failed)
			status_line(s, 0);
		if (!s->child && s->res->have_child)
			break;
	}
	return 0;
}

/*
 * Everything mapped until now, then the rest of the buffer; then what the
 * module could not hand over: first-seen build-ids it gave no capture
 * handle (its capture_ids and MMAP3_CAPTURE_MAX, memory).
 */
static uint64_t ns(const struct timespec *t)
{
	return (uint64_t)t->tv_sec * 1000000000 + (uint64_t)t->tv_nsec;
}

/*
 * Now, in the session's clock: read where user space can, else (perf's
 * local clock) the session's first record's time plus what CLOCK_MONOTONIC
 * says has passed since ENABLE, which the first record follows.
 */
static uint64_t session_now(const struct session *s)
{
	struct timespec now;

	if (s->o->clock != MMAP3_CLOCK_LOCAL && !clock_gettime(s->o->clock, &now))
		return ns(&now);
	clock_gettime(CLOCK_MONOTONIC, &now);
	if (!s->side.first_time || ns(&now) < ns(&s->enabled))
		return 0;
	return s->side.first_time + (ns(&now) - ns(&s->enabled));
}

static int finish(struct session *s)
{
	struct mmap3_stats st;

	side_session_end(&s->side, session_now(s));
	if (mmap3_device_disable(s->dev)) {
		fail(s);
		return -1;
	}
	/* Drained and disabled, read() returns 0: no need to poll, no spin. */
	mmap3_records_set_wait(&s->records, 1);
	while (!s->records.eof)
		if (drain(s))
			return -1;
	/* What was offered is copied before the session's handles go. */
	capture_worker_finish(&s->worker);
	/* Unknown is not none: said (by mmap3_device_stats()), and again at the end. */
	if (s->cap_open) {
		if (mmap3_device_stats(s->dev, &st)) {
			s->res->stats_failed = 1;
			return 0;
		}
		s->cap.stats.refused = st.captures_refused;
		s->cap.stats.denied = st.captures_denied;
	}
	return 0;
}

static int set_up(struct session *s)
{
	const struct record_opts *o = s->o;
	struct mmap3_filter filter = o->filter;
	struct mmap3_abi_version ver;
	int vdso_failed;

	s->dev = mmap3_device_open_loading(&ver);
	if (s->dev < 0)
		return -1;
	/* A module of ABI 2.1 or older knows only the processes themselves. */
	if ((filter.flags & MMAP3_FILTER_INHERIT) && ver.minor < 2) {
		filter.flags &= ~MMAP3_FILTER_INHERIT;
		msg_warn("the loaded module (ABI %u.%u) does not "
			 "follow children: only the --pid processes themselves are recorded",
			 ver.major, ver.minor);
	}
	if (mmap3_device_setup(s->dev, &filter, o->clock, o->buffer_size) ||
	    mmap3_records_init(&s->records, s->dev))
		return -1;
	if (o->capture_dir) {
		if (capture_open(&s->cap, o->capture_dir))
			return -1;
		s->cap_open = 1;
		s->cap.max_file = o->capture_max_file;
		s->cap.max_total = o->capture_max_total;
		s->cap.max_seconds = o->capture_max_seconds;
		/*
		 * perf keeps the vdso in its cache: so does DIR, for perf
		 * --buildid-dir DIR. Stored before the worker starts, so alone
		 * on @s->cap; failing (a full disk) costs what any capture's
		 * failure costs: the line said, later captures abandoned.
		 */
		vdso_failed = capture_store_vdso(&s->cap);
		if (capture_worker_start(&s->worker, &s->cap, s->dev))
			return -1;
		if (vdso_failed)
			capture_worker_abandon(&s->worker);
	}
	if (side_open(&s->side, o->output, o->clock))
		return -1;
	s->side_open = 1;
	s->side.kmods = o->kmods;
	return 0;
}

int record_run(const struct record_opts *o, struct record_result *res)
{
	struct session s = { .o = o, .res = res, .dev = -1, .sigfd = -1, .pidfd = -1 };
	sigset_t mask, old;
	unsigned int i;
	int ret = -1;

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
	s.sigfd = signalfd(-1, &mask, SFD_CLOEXEC | SFD_NONBLOCK);
	if (s.sigfd < 0) {
		msg_err("signalfd: %s", strerror(errno));
		goto out;
	}
	if (set_up(&s))
		goto out;
	/* Enable before starting the command, so its first mappings are in. */
	clock_gettime(CLOCK_MONOTONIC, &s.enabled);
	if (mmap3_device_enable(s.dev))
		goto out;
	if (o->argv) {
		start_child(&s, &old);
		if (!s.child)
			goto out;
	}
	mmap3_records_set_wait(&s.records, 0);
	if (loop(&s) || s.failed || finish(&s))
		goto out;
	close(s.dev);
	s.dev = -1;
	status_line(&s, 1);
	s.side_open = 0;
	if (side_close(&s.side))
		goto out;
	ret = 0;
out:
	if (s.child && !s.failed)
		fail(&s);	/* says so, and waits */
	while (s.child) {
		struct pollfd pfd[2] = {
			{ .fd = s.sigfd, .events = POLLIN },
			{ .fd = s.pidfd, .events = POLLIN },
		};

		if (poll(pfd, s.sigfd >= 0 ? 2 : 0, s.sigfd >= 0 ? -1 : 100) < 0 && errno != EINTR)
			break;
		if (s.sigfd >= 0)
			on_signals(&s);
		reap(&s);
	}
	/* On failure: what is queued is released, not copied. */
	capture_worker_finish(&s.worker);
	res->side = s.side.stats;
	s.cap.stats.backlog = s.worker.backlog;
	res->capture = s.cap.stats;
	if (atomic_load(&s.worker.failed) && !s.failed)
		res->capture_failed = 1;
	if (s.side_open)
		side_abort(&s.side);
	if (s.cap_open)
		capture_close(&s.cap);
	mmap3_records_free(&s.records);
	if (s.dev >= 0)
		close(s.dev);
	if (s.pidfd >= 0)
		close(s.pidfd);
	if (s.sigfd >= 0)
		close(s.sigfd);
	sigprocmask(SIG_SETMASK, &old, NULL);
	return ret || s.failed ? -1 : 0;
}
