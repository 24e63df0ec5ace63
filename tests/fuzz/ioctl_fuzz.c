// SPDX-License-Identifier: GPL-2.0
/*
 * A fuzzer of /dev/mmap3's system calls, run inside a test VM (the debug
 * kernel finds what goes wrong): several threads, each with a few
 * descriptors, issue random sequences of open, configure, enable, read,
 * poll, flush, stats, capture, disable and close, with random command
 * numbers and sizes and pointers that are NULL, unmapped, read-only or
 * crossing into an unmapped page, while files are mapped to give the
 * sessions records.  Results are not checked (any error is fine); the
 * kernel must stay clean, and afterwards a plain session must still work.
 *
 *   ioctl_fuzz [-s SEED] [-t SECONDS] [-j THREADS]
 *
 * A read() on a blocking descriptor may wait for ever (a session never
 * enabled has nothing to give, as a socket with no data): each thread's
 * timer interrupts it (EINTR), which tries the wait's way out too.
 *
 * Prints the seed first and last: each thread's sequence of calls is
 * drawn from SEED + its index (threads interleave as the scheduler does).
 * Exit status 0, or 1 if the final check fails.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/mmap3.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#define FDS		4
#define TARGET_FILE	"/tmp/ioctl_fuzz.elf"

static long page;
static char *guarded;		/* a page followed by an unmapped one */
static char *readonly;		/* a read-only page */
static volatile int stop;
static unsigned long calls[16];

static uint64_t next(uint64_t *s)
{
	/* splitmix64: small, good enough, reproducible. */
	uint64_t z = (*s += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

static uint64_t pick(uint64_t *s, uint64_t n)
{
	return next(s) % n;
}

/*
 * An argument: NULL, unmapped, read-only, a struct ending where the
 * guarded page ends (its tail unmapped), or a valid buffer with random
 * bytes and a size field from the interesting ones.
 */
static void *argument(uint64_t *s, char *buf, size_t buflen)
{
	static const uint32_t sizes[] = {
		0, 4, 8, 15, 16, 24, 32, 272, 351, 352, 353, 4096, 4097, 0xffffffff,
	};
	uint32_t size;
	size_t i;

	switch (pick(s, 8)) {
	case 0:
		return NULL;
	case 1:
		return guarded + page;		/* unmapped */
	case 2:
		return readonly;
	case 3:
		return guarded + page - 1 - pick(s, 64);
	case 4:
		return (void *)(uintptr_t)next(s);
	default:
		for (i = 0; i < buflen; i++)
			buf[i] = pick(s, 4) ? 0 : (char)next(s);
		size = sizes[pick(s, sizeof(sizes) / sizeof(sizes[0]))];
		memcpy(buf, &size, sizeof(size));
		return buf;
	}
}

static unsigned long command(uint64_t *s)
{
	static const unsigned int dirs[] = { _IOC_NONE, _IOC_READ, _IOC_WRITE,
					     _IOC_READ | _IOC_WRITE };
	unsigned int nr = pick(s, 4) ? pick(s, 12) : pick(s, 256);
	unsigned int type = pick(s, 8) ? MMAP3_IOC_MAGIC : pick(s, 256);

	if (!pick(s, 16))
		return next(s);
	return _IOC(dirs[pick(s, 4)], type, nr, pick(s, 4) ? pick(s, 512) : pick(s, 1 << 14));
}

static void interrupted(int sig)
{
	(void)sig;
}

static void *fuzz(void *arg)
{
	uint64_t seed = *(uint64_t *)arg;
	static const int clocks[] = { -1, 1, 4, 0, 7, 11, 12345 };
	struct sigevent sev = { .sigev_notify = SIGEV_THREAD_ID, .sigev_signo = SIGUSR1 };
	int fds[FDS], i;
	char buf[8192];
	timer_t timer;

	/* This thread's own timer: a blocking read() is interrupted, not waited on. */
	sev._sigev_un._tid = gettid();
	if (timer_create(CLOCK_MONOTONIC, &sev, &timer)) {
		perror("timer_create");
		exit(1);
	}

	for (i = 0; i < FDS; i++)
		fds[i] = -1;
	while (!stop) {
		int slot = pick(&seed, FDS), op = pick(&seed, 14), fd = fds[slot];
		struct pollfd pfd;
		void *p;

		__atomic_add_fetch(&calls[op], 1, __ATOMIC_RELAXED);
		switch (op) {
		case 0:		/* open, or close and reopen */
			if (fd >= 0)
				close(fd);
			fds[slot] = open(MMAP3_DEVICE_PATH,
					 O_RDONLY | O_CLOEXEC | (pick(&seed, 2) ? O_NONBLOCK : 0));
			break;
		case 1:
			if (fd >= 0)
				close(fd);
			fds[slot] = -1;
			break;
		case 2:		/* any command, any argument */
			ioctl(fd, command(&seed), argument(&seed, buf, sizeof(buf)));
			break;
		case 3:
			ioctl(fd, MMAP3_IOC_ENABLE);
			break;
		case 4:
			ioctl(fd, MMAP3_IOC_DISABLE);
			break;
		case 5:
			ioctl(fd, MMAP3_IOC_FLUSH);
			break;
		case 6:
			ioctl(fd, MMAP3_IOC_SET_BUFFER_SIZE,
			      pick(&seed, 4) ? &(uint64_t){ 65536ull << pick(&seed, 8) } :
			      argument(&seed, buf, sizeof(buf)));
			break;
		case 7:
			ioctl(fd, MMAP3_IOC_SET_CLOCK, pick(&seed, 4) ?
			      (void *)&clocks[pick(&seed, 7)] : argument(&seed, buf, sizeof(buf)));
			break;
		case 8: {	/* a filter, valid or not */
			struct mmap3_filter f = {
				.size = pick(&seed, 4) ? sizeof(f) : pick(&seed, 600),
				.flags = pick(&seed, 4) ? pick(&seed, 4) : (uint32_t)next(&seed),
				.nr_pids = pick(&seed, 3) ? pick(&seed, 3) : pick(&seed, 100),
			};

			f.pids[0] = pick(&seed, 2) ? getpid() : (int)next(&seed);
			ioctl(fd, MMAP3_IOC_SET_FILTER, pick(&seed, 4) ? (void *)&f :
			      argument(&seed, buf, sizeof(buf)));
			break;
		}
		case 9: {
			size_t len = pick(&seed, 2) ? pick(&seed, 64) : pick(&seed, 1 << 16);

			/*
			 * Fires again and again until disarmed: a thread the host
			 * holds back past the first expiry, before read() starts
			 * waiting, is still interrupted by the next one.
			 */
			struct itimerspec its = {
				.it_value.tv_nsec = (long)(1 + pick(&seed, 50)) * 1000000,
				.it_interval.tv_nsec = 10 * 1000000,
			};

			/* Our own buffer is no target: the kernel writes what it is told. */
			p = argument(&seed, buf, sizeof(buf));
			timer_settime(timer, 0, &its, NULL);
			(void)!read(fd, p, p == buf && len > sizeof(buf) ? sizeof(buf) : len);
			its = (struct itimerspec){ 0 };
			timer_settime(timer, 0, &its, NULL);
			break;
		}
		case 10:
			pfd = (struct pollfd){ .fd = fd, .events = POLLIN };
			poll(&pfd, 1, pick(&seed, 20));
			break;
		case 11: {	/* capture reads of any handle, anywhere */
			struct mmap3_capture_read rd = {
				.size = sizeof(rd),
				.handle = pick(&seed, 8),
				.offset = pick(&seed, 2) ? pick(&seed, 8192) : next(&seed),
				.buf = (uintptr_t)argument(&seed, buf, sizeof(buf)),
				.len = pick(&seed, 2) ? pick(&seed, 8192) : next(&seed),
			};

			if (rd.buf == (uintptr_t)buf && (pick(&seed, 2) || rd.len > sizeof(buf)))
				rd.len = sizeof(buf);
			ioctl(fd, MMAP3_IOC_CAPTURE_READ, pick(&seed, 8) ? (void *)&rd :
			      argument(&seed, buf, sizeof(buf)));
			if (pick(&seed, 2))
				ioctl(fd, pick(&seed, 2) ? MMAP3_IOC_CAPTURE_RELEASE :
				      MMAP3_IOC_CAPTURE_FORGET, &rd.handle);
			break;
		}
		case 13: {	/* captures for another user: any ids, any groups */
			uint32_t groups[4] = { 1000, (uint32_t)next(&seed), 0, 65534 };
			struct mmap3_capture_user cu = {
				.size = pick(&seed, 4) ? sizeof(cu) : pick(&seed, 64),
				.uid = pick(&seed, 2) ? 1000 : (uint32_t)next(&seed),
				.gid = pick(&seed, 2) ? 1000 : (uint32_t)next(&seed),
				.nr_groups = pick(&seed, 4) ? pick(&seed, 5) : (uint32_t)next(&seed),
				.groups = pick(&seed, 4) ? (uintptr_t)groups :
					  (uintptr_t)argument(&seed, buf, sizeof(buf)),
			};

			ioctl(fd, MMAP3_IOC_SET_CAPTURE_USER, pick(&seed, 8) ? (void *)&cu :
			      argument(&seed, buf, sizeof(buf)));
			break;
		}
		case 12: {	/* mappings, so sessions have records */
			int f = open(TARGET_FILE, O_RDONLY);

			if (f >= 0) {
				munmap(mmap(NULL, page, PROT_READ | PROT_EXEC, MAP_PRIVATE, f, 0), page);
				close(f);
			}
			break;
		}
		}
	}
	for (i = 0; i < FDS; i++)
		if (fds[i] >= 0)
			close(fds[i]);
	timer_delete(timer);
	return NULL;
}

/* A minimal ELF file with a build-id note, for the mappings. */
static int write_target(void)
{
	static const uint8_t note[] = {
		4, 0, 0, 0, 20, 0, 0, 0, 3, 0, 0, 0, 'G', 'N', 'U', 0,
		1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20,
	};
	uint8_t elf[256] = { 0x7f, 'E', 'L', 'F', 2, 1, 1 };
	int fd, ok;

	elf[16] = 3;			/* ET_DYN */
	elf[18] = 62;
	elf[20] = 1;
	elf[0x20] = 64;			/* e_phoff */
	elf[0x34] = 64;			/* e_ehsize */
	elf[0x36] = 56;			/* e_phentsize */
	elf[0x38] = 1;			/* e_phnum */
	elf[64] = 4;			/* PT_NOTE */
	elf[64 + 8] = 128;		/* p_offset */
	elf[64 + 32] = sizeof(note);	/* p_filesz */
	elf[64 + 48] = 4;		/* p_align */
	memcpy(elf + 128, note, sizeof(note));
	fd = open(TARGET_FILE, O_WRONLY | O_CREAT | O_TRUNC, 0755);
	if (fd < 0)
		return -1;
	ok = write(fd, elf, sizeof(elf)) == sizeof(elf);
	close(fd);
	return ok ? 0 : -1;
}

/* After the storm, a plain session still works. */
static int sane(void)
{
	char buf[1 << 16];
	int fd = open(MMAP3_DEVICE_PATH, O_RDONLY), found = 0, f, tries;
	ssize_t n;
	void *p;

	if (fd < 0 || ioctl(fd, MMAP3_IOC_ENABLE))
		return -1;
	f = open(TARGET_FILE, O_RDONLY);
	p = mmap(NULL, page, PROT_READ | PROT_EXEC, MAP_PRIVATE, f, 0);
	if (p == MAP_FAILED || ioctl(fd, MMAP3_IOC_FLUSH))
		return -1;
	for (tries = 0; tries < 200 && !found; tries++) {
		struct mmap3_record_header *h;

		n = read(fd, buf, sizeof(buf));
		for (h = (void *)buf; n > 0 && (char *)h < buf + n; h = (void *)((char *)h + h->size))
			if (h->type == MMAP3_RECORD_MMAP &&
			    ((struct mmap3_record_mmap *)h)->addr == (uintptr_t)p &&
			    ((struct mmap3_record_mmap *)h)->build_id.status == MMAP3_BUILDID_FOUND)
				found = 1;
	}
	close(f);
	close(fd);
	return found ? 0 : -1;
}

int main(int argc, char **argv)
{
	uint64_t seed = time(NULL), seeds[16];
	int seconds = 60, threads = 4, c, i;
	pthread_t tid[16];

	while ((c = getopt(argc, argv, "s:t:j:")) != -1) {
		if (c == 's')
			seed = strtoull(optarg, NULL, 0);
		else if (c == 't')
			seconds = atoi(optarg);
		else if (c == 'j')
			threads = atoi(optarg) > 16 ? 16 : atoi(optarg);
		else
			return 2;
	}
	/* No SA_RESTART: the interrupted read() returns EINTR. */
	sigaction(SIGUSR1, &(struct sigaction){ .sa_handler = interrupted }, NULL);
	printf("# ioctl_fuzz: seed %llu, %d threads, %d s\n", (unsigned long long)seed,
	       threads, seconds);
	fflush(stdout);
	page = sysconf(_SC_PAGESIZE);
	guarded = mmap(NULL, 2 * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
		       -1, 0);
	readonly = mmap(NULL, page, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (guarded == MAP_FAILED || readonly == MAP_FAILED || munmap(guarded + page, page) ||
	    write_target())
		return 1;
	for (i = 0; i < threads; i++) {
		seeds[i] = seed + i;
		pthread_create(&tid[i], NULL, fuzz, &seeds[i]);
	}
	sleep(seconds);
	stop = 1;
	for (i = 0; i < threads; i++)
		pthread_join(tid[i], NULL);
	for (c = 0, i = 0; i < 13; i++)
		c += calls[i];
	if (sane()) {
		printf("not ok 1 ioctl fuzz: a session fails after the run (seed %llu)\n",
		       (unsigned long long)seed);
		return 1;
	}
	printf("ok 1 ioctl fuzz: %d calls, seed %llu\n", c, (unsigned long long)seed);
	return 0;
}
