// SPDX-License-Identifier: GPL-2.0
/*
 * userspace/cmd_record.c - mmap3 record: stream /dev/mmap3 into a side
 * file, itself a perf.data file, beside perf record.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "capture.h"
#include "commands.h"
#include "device.h"
#include "kmod.h"
#include "side.h"

static volatile sig_atomic_t stop_signal;
static volatile sig_atomic_t child_exited;

static void on_signal(int sig)
{
	stop_signal = sig;
}

static void on_child(int sig)
{
	(void)sig;
	child_exited = 1;
}

static const struct {
	const char *name;
	int id;
} clocks[] = {
	{ "local", MMAP3_CLOCK_LOCAL },
	{ "monotonic", CLOCK_MONOTONIC },
	{ "monotonic_raw", CLOCK_MONOTONIC_RAW },
	{ "realtime", CLOCK_REALTIME },
	{ "boottime", CLOCK_BOOTTIME },
	{ "tai", CLOCK_TAI },
};

static void usage(FILE *f)
{
	fprintf(f,
		"usage: mmap3 record [-o FILE] [--capture DIR] [--pid PID]... [--data]\n"
		"                    [--clock CLOCK] [--buffer-size BYTES]\n"
		"                    [--module-dir DIR]... [-- CMD [ARGS...]]\n"
		"\n"
		"Record executable mappings, modules and the kernel with their build-ids\n"
		"into FILE (default mmap3.data), a perf.data file.  With CMD, run it (e.g.\n"
		"perf record ...), forward SIGINT and SIGTERM to it and stop when it exits,\n"
		"with its exit status; without, record until SIGINT or SIGTERM.\n"
		"\n"
		"  -o, --output FILE     side file to write\n"
		"  -c, --capture DIR     keep each newly seen build-id's exact file in DIR,\n"
		"                        in perf's build-id cache layout (PERF_BUILDID_DIR)\n"
		"  -p, --pid PID         only this process (repeatable, up to %d)\n"
		"  -d, --data            also non-executable file mappings\n"
		"  -k, --clock CLOCK     local (perf's default), monotonic, monotonic_raw,\n"
		"                        realtime, boottime, tai: as perf record -k\n"
		"  -b, --buffer-size N   kernel buffer in bytes (power of two, default 4M)\n"
		"  -m, --module-dir DIR  also look for modules' .ko files here (repeatable;\n"
		"                        /lib/modules/RELEASE always), so perf reads their\n"
		"                        symbols and --capture keeps them\n",
		MMAP3_FILTER_MAX_PIDS);
}

static const char *capture_dir;
static struct capture_stats capture_stats;
static int capture_failed;
static struct kmod_index kmods;

/*
 * Keep the file of a mapping.  After a failure (disk full, most likely)
 * only release the module's copies: one error line, not one per file.
 */
static void capture_mapping(int fd, const struct mmap3_record_mmap *m)
{
	uint32_t handle = m->capture;

	if (capture_failed)
		ioctl(fd, MMAP3_IOC_CAPTURE_RELEASE, &handle);
	else if (capture_store(fd, m, capture_dir, &capture_stats))
		capture_failed = 1;
}

/* Keep the .ko of a module that was loaded, if it was found. */
static void capture_module(const struct mmap3_record_module *m)
{
	const char *path = kmod_find(&kmods, m->name, &m->build_id);

	if (path && capture_store_file(path, &m->build_id, capture_dir, &capture_stats))
		capture_failed = 1;
}

/* Read what the session has now; returns -1 on a fatal error. */
static int drain(int fd, struct side_writer *side, char *buf, size_t size, int *eof)
{
	for (;;) {
		ssize_t n = read(fd, buf, size);
		size_t off = 0;

		if (n == 0) {
			*eof = 1;
			return 0;
		}
		if (n < 0) {
			if (errno == EAGAIN || errno == EINTR)
				return 0;
			fprintf(stderr, "mmap3: reading %s: %s\n", mmap3_device_path(),
				strerror(errno));
			return -1;
		}
		while (off < (size_t)n) {
			const struct mmap3_record_header *h = (const void *)(buf + off);

			if (h->size < sizeof(*h) || h->size > (size_t)n - off) {
				fprintf(stderr, "mmap3: %s: record of %u bytes at offset %zu of a "
					"%zd-byte read, expected 16 to %zu\n", mmap3_device_path(),
					h->size, off, n, (size_t)n - off);
				return -1;
			}
			if (side_add(side, h))
				return -1;
			if (h->type == MMAP3_RECORD_MMAP &&
			    ((const struct mmap3_record_mmap *)h)->capture)
				capture_mapping(fd, (const void *)h);
			if (h->type == MMAP3_RECORD_MODULE_LOAD && capture_dir && !capture_failed)
				capture_module((const void *)h);
			off += h->size;
		}
	}
}

/* Wait for @child, passing it SIGINT and SIGTERM as they come. */
static void wait_forwarding(pid_t child, int *status)
{
	for (;;) {
		if (stop_signal) {
			kill(child, stop_signal);
			stop_signal = 0;
		}
		if (waitpid(child, status, 0) == child || errno != EINTR)
			return;
	}
}

static void status_line(const struct side_writer *side, int final)
{
	fprintf(stderr, "\rmmap3: %llu mappings, %llu modules, %llu lost, %llu captured%s",
		(unsigned long long)side->stats.mmaps, (unsigned long long)side->stats.modules,
		(unsigned long long)side->stats.lost, (unsigned long long)capture_stats.stored,
		final ? "\n" : "");
}

static int record(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "capture", required_argument, NULL, 'c' },
		{ "pid", required_argument, NULL, 'p' },
		{ "data", no_argument, NULL, 'd' },
		{ "clock", required_argument, NULL, 'k' },
		{ "buffer-size", required_argument, NULL, 'b' },
		{ "module-dir", required_argument, NULL, 'm' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct mmap3_filter filter = { .size = sizeof(filter) };
	const char *output = "mmap3.data";
	struct mmap3_abi_version ver;
	struct side_writer side;
	int clock = MMAP3_CLOCK_LOCAL, fd, c, eof = 0, status = 0, tty = isatty(2);
	uint64_t buffer_size = 0;
	struct sigaction sa = { 0 };
	pid_t child = -1;
	size_t bufsize = 1 << 20;
	char *buf, *end;
	char modules[sizeof(((struct utsname *)0)->release) + 16];
	struct utsname u;
	time_t last = 0;
	size_t i;

	uname(&u);
	snprintf(modules, sizeof(modules), "/lib/modules/%s", u.release);
	kmod_add_dir(&kmods, modules);	/* none is fine: nothing installed */
	while ((c = getopt_long(argc, argv, "+o:c:p:dk:b:m:h", opts, NULL)) != -1) {
		switch (c) {
		case 'o':
			output = optarg;
			break;
		case 'c':
			capture_dir = optarg;
			filter.flags |= MMAP3_FILTER_CAPTURE;
			break;
		case 'p':
			if (filter.nr_pids == MMAP3_FILTER_MAX_PIDS) {
				fprintf(stderr, "mmap3 record: at most %d --pid\n",
					MMAP3_FILTER_MAX_PIDS);
				return 2;
			}
			filter.pids[filter.nr_pids] = (int)strtol(optarg, &end, 10);
			if (*end || filter.pids[filter.nr_pids] <= 0) {
				fprintf(stderr, "mmap3 record: --pid %s: not a process id\n", optarg);
				return 2;
			}
			filter.nr_pids++;
			break;
		case 'd':
			filter.flags |= MMAP3_FILTER_DATA;
			break;
		case 'k':
			for (i = 0; i < sizeof(clocks) / sizeof(clocks[0]); i++)
				if (!strcmp(optarg, clocks[i].name))
					break;
			if (i == sizeof(clocks) / sizeof(clocks[0])) {
				fprintf(stderr, "mmap3 record: --clock %s: unknown clock\n", optarg);
				return 2;
			}
			clock = clocks[i].id;
			break;
		case 'b':
			buffer_size = strtoull(optarg, &end, 0);
			if (*end == 'k' || *end == 'K')
				buffer_size <<= 10, end++;
			else if (*end == 'm' || *end == 'M')
				buffer_size <<= 20, end++;
			if (*end) {
				fprintf(stderr, "mmap3 record: --buffer-size %s: not a size\n", optarg);
				return 2;
			}
			break;
		case 'm':
			if (kmod_add_dir(&kmods, optarg)) {
				fprintf(stderr, "mmap3 record: --module-dir %s: %s\n", optarg,
					errno == E2BIG ? "too many directories" : strerror(errno));
				return 2;
			}
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}

	fd = mmap3_device_open(&ver);
	if (fd < 0)
		return 1;
	if ((buffer_size && ioctl(fd, MMAP3_IOC_SET_BUFFER_SIZE, &buffer_size)) ||
	    ioctl(fd, MMAP3_IOC_SET_FILTER, &filter) || ioctl(fd, MMAP3_IOC_SET_CLOCK, &clock)) {
		fprintf(stderr, "mmap3 record: %s: configuring the session: %s\n",
			mmap3_device_path(), strerror(errno));
		return 1;
	}
	buf = malloc(bufsize);
	if (!buf || side_open(&side, output, clock)) {
		free(buf);
		return 1;
	}
	side.kmods = &kmods;

	sa.sa_handler = on_signal;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sa.sa_handler = on_child;
	sa.sa_flags = SA_NOCLDSTOP;
	sigaction(SIGCHLD, &sa, NULL);

	/* Enable before starting the command, so its first mappings are in. */
	if (ioctl(fd, MMAP3_IOC_ENABLE)) {
		fprintf(stderr, "mmap3 record: %s: enabling the session: %s\n",
			mmap3_device_path(), strerror(errno));
		goto fail;
	}
	if (optind < argc) {
		child = fork();
		if (child < 0) {
			fprintf(stderr, "mmap3 record: fork: %s\n", strerror(errno));
			goto fail;
		}
		if (child == 0) {
			signal(SIGINT, SIG_DFL);
			signal(SIGTERM, SIG_DFL);
			execvp(argv[optind], argv + optind);
			fprintf(stderr, "mmap3 record: cannot run %s: %s\n", argv[optind],
				strerror(errno));
			_exit(127);
		}
	}

	fcntl(fd, F_SETFL, O_NONBLOCK);
	while (!stop_signal && !child_exited) {
		struct pollfd pfd = { .fd = fd, .events = POLLIN };

		if (poll(&pfd, 1, 250) < 0 && errno != EINTR)
			break;
		if (drain(fd, &side, buf, bufsize, &eof))
			goto fail;
		if (tty && time(NULL) != last) {
			last = time(NULL);
			status_line(&side, 0);
		}
	}
	if (child > 0)
		wait_forwarding(child, &status);
	/* Everything mapped until now, then the rest of the buffer. */
	if (ioctl(fd, MMAP3_IOC_DISABLE)) {
		fprintf(stderr, "mmap3 record: %s: disabling the session: %s\n",
			mmap3_device_path(), strerror(errno));
		goto fail;
	}
	while (!eof)
		if (drain(fd, &side, buf, bufsize, &eof))
			goto fail;
	close(fd);
	free(buf);
	if (tty)
		status_line(&side, 1);
	if (side_close(&side))
		return 1;
	fprintf(stderr, "mmap3: wrote %s: %llu mappings (%llu without a build-id), "
		"%llu modules\n", output, (unsigned long long)side.stats.mmaps,
		(unsigned long long)side.stats.no_build_id,
		(unsigned long long)side.stats.modules);
	if (capture_dir)
		fprintf(stderr, "mmap3: captured %llu files (%llu MB) in %s, %llu there already, "
			"%llu changed after mapping\n", (unsigned long long)capture_stats.stored,
			(unsigned long long)(capture_stats.bytes >> 20), capture_dir,
			(unsigned long long)capture_stats.cached,
			(unsigned long long)capture_stats.changed);
	if (side.stats.lost)
		fprintf(stderr, "mmap3: WARNING: %llu records LOST: the profile may miss "
			"mappings; use a larger --buffer-size\n",
			(unsigned long long)side.stats.lost);
	if (capture_failed) {
		fprintf(stderr, "mmap3: capturing files into %s failed (see above); stopped "
			"capturing there\n", capture_dir);
		return 1;
	}
	if (child > 0)
		return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
	return 0;

fail:
	side_abort(&side);
	close(fd);
	free(buf);
	/*
	 * CMD is the user's own job (perf record): losing the side file is
	 * no reason to lose it too.  Wait for it, still forwarding signals.
	 */
	if (child > 0 && !child_exited)
		fprintf(stderr, "mmap3 record: no side file written; waiting for %s to exit\n",
			argv[optind]);
	if (child > 0)
		wait_forwarding(child, &status);
	return 1;
}

int cmd_record(int argc, char **argv)
{
	int ret = record(argc, argv);

	kmod_free(&kmods);
	return ret;
}
