// SPDX-License-Identifier: GPL-2.0
/*
 * userspace/cmd_capture.c - mmap3 capture DIR: a host's store of every
 * binary mapped, for debuginfod -F DIR to serve (docs/fleet.md).
 *
 * One session at a time, of every process, with no side file: each newly
 * seen build-id's file is copied into DIR in perf's cache layout, and DIR
 * is kept within --max-bytes and --max-files, the least recently mapped
 * copies removed first (store.c).  The module offers a file once a
 * session, so once copies were removed, a binary still running or mapped
 * again needs a new session: the current one is ended and a new one
 * started, at most every --renew seconds; its state dump offers what is
 * mapped by then.  Runs until SIGINT, SIGTERM or SIGHUP.
 */
#include <errno.h>
#include <getopt.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <time.h>
#include <unistd.h>

#include "cmd_common.h"
#include "commands.h"
#include "msg.h"
#include "session.h"
#include "store.h"

#define MAX_BYTES_DEFAULT	(4ULL << 30)
#define MAX_FILES_DEFAULT	50000
/* A new session for binaries mapped again after removal, at most this often. */
#define RENEW_SECONDS_DEFAULT	60

static struct kmod_index kmods;

struct service {
	struct store store;
	int store_open;
	uint64_t max_bytes, max_files;
	uint64_t renew;			/* seconds between sessions, at least */
	int sigfd;
	int stop;			/* a stop signal came */
	time_t started;			/* the current session */
};

static void usage(FILE *f)
{
	fprintf(f,
		"usage: mmap3 capture [--max-bytes BYTES] [--max-files N]\n"
		"                     [--capture-max-file BYTES] [--capture-max-seconds N]\n"
		"                     [--renew SECONDS] [--module-dir DIR]... [--quiet] DIR\n"
		"\n"
		"Keep every binary this host maps, each newly seen build-id's exact file,\n"
		"in DIR (perf's build-id cache layout, which 'debuginfod -F DIR' serves),\n"
		"until SIGINT, SIGTERM or SIGHUP.  DIR is kept within its bounds, the\n"
		"least recently mapped copies removed first, each removal said.  The\n"
		"mmap3-capture service runs it on /var/cache/mmap3.\n"
		"\n"
		"      --max-bytes N     at most N bytes of copies in DIR (k, M, G; 0: no\n"
		"                        bound; default 4G)\n"
		"      --max-files N     at most N copies in DIR (0: no bound; default 50000)\n"
		"      --capture-max-file N   copy no file larger than N bytes (default 512M,\n"
		"                        and at most a quarter of --max-bytes)\n"
		"      --capture-max-seconds N  give up a file not read in N seconds\n"
		"                        (default 30)\n"
		"      --renew N         after copies were removed, a new session offers\n"
		"                        again what is mapped: at most every N seconds\n"
		"                        (default 60)\n"
		"  -m, --module-dir DIR  also look for modules' .ko files here (repeatable)\n"
		"  -q, --quiet           warnings and errors only\n");
}

static int opened(void *arg, struct capture *c)
{
	struct service *sv = arg;
	struct store_stats st;

	/* Each session knows which copies came from files root did not own alone. */
	if (sv->store_open)
		return store_claims(&sv->store, c);
	if (store_open(&sv->store, c, sv->max_bytes, sv->max_files))
		return -1;
	sv->store_open = 1;
	if (store_claims(&sv->store, c))
		return -1;
	st = store_get_stats(&sv->store);
	msg_info("keeping binaries in %s: %llu there (%llu MB), bounds %llu MB and %llu files",
		 c->dir, (unsigned long long)st.files, (unsigned long long)(st.bytes >> 20),
		 (unsigned long long)(sv->max_bytes >> 20), (unsigned long long)sv->max_files);
	return 0;
}

static void stored(void *arg, struct capture *c, const struct mmap3_build_id *bid,
		   const char *dirs, const char *base, uint64_t bytes, int root_owned)
{
	struct service *sv = arg;

	store_stored(&sv->store, c, bid, dirs, base, bytes, root_owned);
}

static void take_signals(struct service *sv)
{
	struct signalfd_siginfo si;

	while (read(sv->sigfd, &si, sizeof(si)) == sizeof(si))
		sv->stop = 1;
}

/* Every record there is: each mapping's time for the store, then handled. */
static int drain(struct service *sv, struct session *s)
{
	const struct mmap3_record_header *h;
	time_t now = time(NULL);
	int ret;

	while ((ret = session_next(s, &h)) > 0) {
		if (h->type == MMAP3_RECORD_MMAP)
			store_mapped(&sv->store, &((const struct mmap3_record_mmap *)h)->build_id,
				     now);
		if (session_handle(s, h))
			return -1;
	}
	return ret < 0 ? -1 : 0;
}

/* One session: 0 at a stop signal, 1 for a new one, -1 on failure (printed). */
static int one_session(struct service *sv, const struct session_opts *so)
{
	struct session s;
	int ret = -1;

	if (session_open(&s, so) || session_enable(&s))
		goto out;
	if (!s.capturing) {
		msg_err("%s: the session cannot capture: nothing to do", so->capture_dir);
		goto out;
	}
	sv->started = time(NULL);
	for (;;) {
		struct pollfd pfd[2] = {
			{ .fd = sv->sigfd, .events = POLLIN },
			{ .fd = s.dev, .events = POLLIN },
		};

		if (poll(pfd, 2, 10000) < 0 && errno != EINTR) {
			msg_err("poll: %s", strerror(errno));
			goto out;
		}
		if (pfd[0].revents)
			take_signals(sv);
		if (drain(sv, &s))
			goto out;
		if (sv->stop || s.records.eof || atomic_load(&s.worker.failed))
			break;
		if (store_wants_new_session(&sv->store) &&
		    (uint64_t)(time(NULL) - sv->started) >= sv->renew)
			break;
	}
	if (atomic_load(&s.worker.failed)) {
		msg_err("%s: capturing failed (above)", so->capture_dir);
		goto out;
	}
	if (s.records.eof && !sv->stop) {
		msg_err("the session ended (the module was unloaded?)");
		goto out;
	}
	if (session_finish_records(&s, 0))
		goto out;
	/* What was offered is copied; a second signal gives it up. */
	while (capture_worker_wait(&s.worker, sv->sigfd)) {
		take_signals(sv);
		msg_warn("stopped capturing (a signal): what was still to be copied is given up");
		capture_worker_cancel(&s.worker);
		break;
	}
	session_finish_captures(&s);
	capture_report_skipped(&s.cap.stats, so->capture_dir);
	ret = sv->stop ? 0 : 1;
out:
	session_close(&s);
	return ret;
}

int cmd_capture(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "max-bytes", required_argument, NULL, 'B' },
		{ "max-files", required_argument, NULL, 'F' },
		{ "capture-max-file", required_argument, NULL, OPT_CAPTURE_MAX_FILE },
		{ "capture-max-seconds", required_argument, NULL, OPT_CAPTURE_MAX_SECONDS },
		{ "renew", required_argument, NULL, 'R' },
		{ "module-dir", required_argument, NULL, 'm' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct service sv = {
		.max_bytes = MAX_BYTES_DEFAULT,
		.max_files = MAX_FILES_DEFAULT,
		.renew = RENEW_SECONDS_DEFAULT,
	};
	/* The store bounds DIR as a whole, not what one session copies. */
	struct session_opts so = {
		.filter = { .size = sizeof(so.filter) },
		.clock = MMAP3_CLOCK_LOCAL,
		.load_module = 1,
		.capture_limits = { CAPTURE_MAX_FILE, 0, 0, CAPTURE_MAX_SECONDS },
		.capture_stored = stored,
		.capture_stored_arg = &sv,
		.capture_opened = opened,
		.kmods = &kmods,
	};
	sigset_t mask, old;
	struct store_stats st;
	int c, ret, sessions = 0;

	kmod_add_running(&kmods);
	while ((c = getopt_long(argc, argv, "m:qh", opts, NULL)) != -1) {
		switch (c) {
		case 'B':
			if (option_size("max-bytes", optarg, &sv.max_bytes))
				return 2;
			break;
		case 'F':
			if (option_size("max-files", optarg, &sv.max_files))
				return 2;
			break;
		case 'R':
			if (option_seconds("renew", optarg, &sv.renew))
				return 2;
			break;
		case OPT_CAPTURE_MAX_FILE:
		case OPT_CAPTURE_MAX_SECONDS:
			if (option_capture_limit(c, optarg, &so.capture_limits))
				return 2;
			break;
		case 'm':
			if (option_module_dir(&kmods, optarg))
				return 2;
			break;
		case 'q':
			msg_set_quiet(1);
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (optind != argc - 1) {
		usage(stderr);
		return 2;
	}
	so.capture_dir = argv[optind];
	/* One file past a quarter of the store would empty it of all else. */
	if (sv.max_bytes && (!so.capture_limits.max_file ||
			     so.capture_limits.max_file > sv.max_bytes / 4))
		so.capture_limits.max_file = sv.max_bytes / 4 ? sv.max_bytes / 4 : 1;

	sigemptyset(&mask);
	sigaddset(&mask, SIGINT);
	sigaddset(&mask, SIGTERM);
	sigaddset(&mask, SIGHUP);
	sigprocmask(SIG_BLOCK, &mask, &old);
	sv.sigfd = signalfd(-1, &mask, SFD_CLOEXEC | SFD_NONBLOCK);
	if (sv.sigfd < 0) {
		msg_err("signalfd: %s", strerror(errno));
		return 1;
	}
	do {
		ret = one_session(&sv, &so);
		sessions++;
		if (ret > 0) {
			store_new_session(&sv.store);
			msg_info("a new session: copies were removed, and what is mapped is "
				 "offered again");
		}
	} while (ret > 0);
	if (sv.store_open) {
		st = store_get_stats(&sv.store);
		msg_info("%s: %llu binaries kept (%llu MB): %llu there at the start, %llu stored, "
			 "%llu removed (%llu MB) in %llu passes, %llu could not be removed; "
			 "%d sessions", so.capture_dir, (unsigned long long)st.files,
			 (unsigned long long)(st.bytes >> 20), (unsigned long long)st.found,
			 (unsigned long long)st.stored, (unsigned long long)st.evicted,
			 (unsigned long long)(st.evicted_bytes >> 20),
			 (unsigned long long)st.passes, (unsigned long long)st.evict_failed,
			 sessions);
		store_close(&sv.store);
	}
	close(sv.sigfd);
	sigprocmask(SIG_SETMASK, &old, NULL);
	return ret ? 1 : 0;
}
