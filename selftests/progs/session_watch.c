// SPDX-License-Identifier: GPL-2.0
/*
 * A session of its own beside the suites' second pass (tests/vm/
 * suites-guest): enabled, it reads its records with read() until SIGINT
 * or SIGTERM, then disables the session and reads it to its end, and
 * compares the records its LOST records said were lost with those the
 * module counted lost by cause (MMAP3_IOC_GET_STATS: buffer, queue,
 * memory, dump, unresolved).  A loss counted but never said, or said but
 * never counted, fails it.
 *
 *   session_watch READY     touches READY once the session is enabled;
 *                           prints one line; exits 0, 1 if the two
 *                           differ, 2 on an error
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/mmap3.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

int main(int argc, char **argv)
{
	static char buf[1 << 20];
	struct sigaction sa = { .sa_handler = on_signal };
	unsigned long long records = 0, said = 0;
	struct mmap3_stats st;
	int fd, ready, disabled = 0;
	ssize_t n, off;

	if (argc != 2) {
		fprintf(stderr, "usage: session_watch READY\n");
		return 2;
	}
	/* No SA_RESTART: a signal ends a blocking read() or poll(). */
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	fd = open(MMAP3_DEVICE_PATH, O_RDONLY | O_CLOEXEC);
	if (fd < 0 || ioctl(fd, MMAP3_IOC_ENABLE)) {
		perror("session_watch: " MMAP3_DEVICE_PATH);
		return 2;
	}
	ready = open(argv[1], O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
	if (ready >= 0)
		close(ready);
	for (;;) {
		struct pollfd p = { .fd = fd, .events = POLLIN };

		if (stop && !disabled) {
			if (ioctl(fd, MMAP3_IOC_DISABLE)) {
				perror("session_watch: DISABLE");
				return 2;
			}
			disabled = 1;
		}
		/* Not to block in read() past a signal that came before it. */
		if (!disabled && poll(&p, 1, 200) <= 0)
			continue;
		n = read(fd, buf, sizeof(buf));
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			perror("session_watch: read");
			return 2;
		}
		/* 0: disabled and read to its end, the last LOST record too. */
		if (!n)
			break;
		for (off = 0; off + (ssize_t)sizeof(struct mmap3_record_header) <= n;) {
			const struct mmap3_record_header *h = (const void *)(buf + off);

			if (h->size < sizeof(*h) || h->size > n - off) {
				fprintf(stderr, "session_watch: a record of %u bytes at %zd of %zd\n",
					h->size, off, n);
				return 2;
			}
			records++;
			if (h->type == MMAP3_RECORD_LOST)
				said += ((const struct mmap3_record_lost *)h)->lost;
			off += h->size;
		}
	}
	memset(&st, 0, sizeof(st));
	st.size = sizeof(st);
	if (ioctl(fd, MMAP3_IOC_GET_STATS, &st)) {
		perror("session_watch: GET_STATS");
		return 2;
	}
	printf("session_watch: %llu records; lost: %llu said in LOST records, %llu counted "
	       "(buffer %llu, queue %llu, memory %llu, dump %llu, unresolved %llu)\n",
	       records, said, (unsigned long long)st.lost, (unsigned long long)st.lost_buffer,
	       (unsigned long long)st.lost_queue, (unsigned long long)st.lost_nomem,
	       (unsigned long long)st.lost_dump, (unsigned long long)st.lost_unresolved);
	return said != st.lost;
}
