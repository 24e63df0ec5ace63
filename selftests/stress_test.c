// SPDX-License-Identifier: GPL-2.0
/*
 * The module under load, for MMAP3_STRESS_SECONDS (default 60): exec
 * storms and mmap/mprotect/munmap storms on every CPU; sessions opened,
 * configured (filters, clocks, buffer sizes, capture), enabled, read,
 * disabled and closed all the while; readers killed in the middle of
 * read(); captured files read while they are rewritten, truncated and
 * deleted; the test module loaded and unloaded in a loop; the page cache
 * dropped; rmmod of mmap3 tried while it is in use.
 *
 * Two sessions stay enabled through it all without a filter: every
 * mapping of the marker files the storms made must be in each of them as
 * a record, or inside a LOST count, and none twice.  Then mmap3 must
 * unload.  The kernel log is the rig's to check (tests/vm/run): no
 * warning, no KASAN or lockdep report, no leak.
 *
 * With MMAP3_STRESS_FAULTS=1 (the debug kernel), the module's allocations
 * fail at random (failslab and fail_page_alloc, filtered to call chains
 * through the module), and so do its file reads (fail_function): every
 * failure must become an error to the caller or a counted loss.
 */
#include <dirent.h>
#include <sched.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>

#include "kselftest_harness.h"
#include "session.h"
#include "faults.h"

#define SDIR "/tmp/stress_test"
#define MARK_EXEC SDIR "/mark_exec"	/* mapped by each exec'd mapexec */
#define MARK_MMAP SDIR "/mark_mmap"	/* mmap and mprotect storms */
#define CHURN_FILES 8

/* Counters shared by the storm processes. */
struct shared {
	int stop;
	uint64_t made_exec;		/* mappings of MARK_EXEC */
	uint64_t made_mmap;		/* executable mappings of MARK_MMAP */
	uint64_t sessions;		/* churn sessions opened */
	uint64_t killed_readers;
	uint64_t capture_reads;
	uint64_t module_cycles;
	uint64_t rmmod_refused;
	uint64_t rmmod_succeeded;	/* must stay 0 */
};

static struct shared *sh;
static uint8_t id_exec[20], id_mmap[20];

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static int stopping(void)
{
	return __atomic_load_n(&sh->stop, __ATOMIC_RELAXED);
}

static void add(uint64_t *c, uint64_t n)
{
	__atomic_add_fetch(c, n, __ATOMIC_RELAXED);
}

static unsigned int rnd(unsigned int *seed, unsigned int n)
{
	return rand_r(seed) % n;
}

static void pin(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu % sysconf(_SC_NPROCESSORS_ONLN), &set);
	sched_setaffinity(0, sizeof(set), &set);
}

/* fork + exec of a dynamically linked program that maps MARK_EXEC. */
static void exec_storm(int cpu)
{
	pin(cpu);
	while (!stopping()) {
		int status;
		pid_t c = fork_child();

		if (c == 0) {
			execl("/selftests/mapexec", "mapexec", MARK_EXEC, (char *)NULL);
			_exit(127);
		}
		if (c > 0 && waitpid(c, &status, 0) == c && WIFEXITED(status) &&
		    !WEXITSTATUS(status))
			add(&sh->made_exec, 1);
	}
}

/* mmap executable, mprotect away and back to executable, munmap. */
static void mmap_storm(int cpu)
{
	int fd = open(MARK_MMAP, O_RDONLY);

	pin(cpu);
	while (fd >= 0 && !stopping()) {
		void *p = mmap(NULL, 4096, PROT_READ | PROT_EXEC, MAP_PRIVATE, fd, 0);

		if (p == MAP_FAILED)
			continue;
		add(&sh->made_mmap, 1);
		if (!mprotect(p, 4096, PROT_READ) && !mprotect(p, 4096, PROT_READ | PROT_EXEC))
			add(&sh->made_mmap, 1);
		munmap(p, 4096);
	}
}

/* Sessions opened, configured at random, enabled, read, disabled, closed. */
static void session_churn(int seed0)
{
	static const int clocks[] = {
		MMAP3_CLOCK_LOCAL, CLOCK_MONOTONIC, CLOCK_MONOTONIC_RAW, CLOCK_REALTIME,
		CLOCK_BOOTTIME, CLOCK_TAI,
	};
	unsigned int seed = seed0;
	static char buf[1 << 16];

	while (!stopping()) {
		struct mmap3_stats st;
		struct pollfd pfd;
		int fd = session_open(), i, n;
		pid_t pid = getppid();

		if (fd < 0)
			continue;	/* ENOMEM under fault injection */
		add(&sh->sessions, 1);
		ioctl(fd, MMAP3_IOC_SET_BUFFER_SIZE, &(uint64_t){ 65536ull << rnd(&seed, 6) });
		ioctl(fd, MMAP3_IOC_SET_CLOCK, &clocks[rnd(&seed, 6)]);
		session_filter(fd, rnd(&seed, 4), rnd(&seed, 3) ? 0 : 1, &pid);
		if (ioctl(fd, MMAP3_IOC_ENABLE) == 0) {
			n = 1 + rnd(&seed, 20);
			for (i = 0; i < n && !stopping(); i++) {
				pfd = (struct pollfd){ .fd = fd, .events = POLLIN };
				poll(&pfd, 1, rnd(&seed, 50));
				if (pfd.revents & POLLIN)
					(void)!read(fd, buf, rnd(&seed, 2) ? sizeof(buf) : 64);
				if (!rnd(&seed, 5))
					ioctl(fd, MMAP3_IOC_FLUSH);
				if (!rnd(&seed, 5))
					get_stats(fd, &st);
			}
			if (rnd(&seed, 2))
				ioctl(fd, MMAP3_IOC_DISABLE);
		}
		close(fd);
	}
}

/* A reader killed while it blocks in read(). */
static void killed_readers(int seed0)
{
	unsigned int seed = seed0;

	while (!stopping()) {
		pid_t c = fork_child();

		if (c == 0) {
			static char buf[1 << 16];
			int fd = session_open();

			if (fd < 0 || ioctl(fd, MMAP3_IOC_ENABLE))
				_exit(1);
			for (;;)
				(void)!read(fd, buf, sizeof(buf));
		}
		usleep(10000 + rnd(&seed, 200000));
		kill(c, SIGKILL);
		waitpid(c, NULL, 0);
		add(&sh->killed_readers, 1);
	}
}

/* Captured files read while their files are rewritten, truncated, deleted. */
static void capture_race(int seed0)
{
	unsigned int seed = seed0;
	char path[64], got[8192];
	static char buf[1 << 16];
	int fd = -1;
	pid_t mapper;

	/*
	 * Under injected faults the session's allocations may fail: try
	 * again, or the files would never change and nothing be read.
	 */
	while (!stopping()) {
		fd = session_open();
		if (fd >= 0 && !session_filter(fd, MMAP3_FILTER_CAPTURE, 0, NULL) &&
		    !ioctl(fd, MMAP3_IOC_ENABLE))
			break;
		if (fd >= 0)
			close(fd);
		fd = -1;
		usleep(10000);
	}
	if (fd < 0)
		_exit(1);
	mapper = fork_child();
	if (mapper == 0) {
		while (!stopping()) {
			int i = rnd(&seed, CHURN_FILES);

			snprintf(path, sizeof(path), SDIR "/churn%d", i);
			switch (rnd(&seed, 4)) {
			case 0:
				write_elf(path, 1, 0, rnd(&seed, 256), 20, 256, NULL);
				break;
			case 1:
				truncate(path, rnd(&seed, 300));
				break;
			case 2:
				unlink(path);
				break;
			}
			munmap(map_exec(path), 4096);
		}
		_exit(0);
	}
	while (!stopping()) {
		struct pollfd pfd = { .fd = fd, .events = POLLIN };
		struct mmap3_record_header *h;
		ssize_t n;

		poll(&pfd, 1, 100);
		n = read(fd, buf, sizeof(buf));
		for (h = (void *)buf; n > 0 && (char *)h < buf + n;
		     h = (void *)((char *)h + h->size)) {
			struct mmap3_record_mmap *m = (void *)h;
			struct mmap3_capture_read rd = {
				.size = sizeof(rd), .buf = (uintptr_t)got, .len = sizeof(got),
			};

			if (h->type != MMAP3_RECORD_MMAP || !m->capture)
				continue;
			rd.handle = m->capture;
			while (ioctl(fd, MMAP3_IOC_CAPTURE_READ, &rd) > 0)
				rd.offset += sizeof(got);
			ioctl(fd, MMAP3_IOC_CAPTURE_RELEASE, &m->capture);
			add(&sh->capture_reads, 1);
		}
	}
	waitpid(mapper, NULL, 0);
	close(fd);
}

/* The test module in and out; the page cache dropped; rmmod of mmap3 tried. */
static void kernel_churn(void)
{
	double next_drop = 0, next_rmmod = 0;

	while (!stopping()) {
		if (!load_ko("/lib/mmap3/mmap3_test_module.ko")) {
			usleep(20000);
			if (!syscall(SYS_delete_module, "mmap3_test_module", O_NONBLOCK))
				add(&sh->module_cycles, 1);
		}
		if (now_s() > next_drop) {
			write_file("/proc/sys/vm/drop_caches", "3");
			next_drop = now_s() + 2;
		}
		if (now_s() > next_rmmod) {
			if (syscall(SYS_delete_module, "mmap3", O_NONBLOCK))
				add(&sh->rmmod_refused, 1);
			else
				add(&sh->rmmod_succeeded, 1);
			next_rmmod = now_s() + 3;
		}
		usleep(50000);
	}
}

/* A long-lived session and what it saw of the markers. */
struct watcher {
	int fd;
	uint64_t seen_exec, seen_mmap, lost, bad_ids, records;
};

static void watch(struct watcher *w, int faults)
{
	static char buf[1 << 20];
	ssize_t n;

	while ((n = read(w->fd, buf, sizeof(buf))) > 0) {
		struct mmap3_record_header *h;

		for (h = (void *)buf; (char *)h < buf + n; h = (void *)((char *)h + h->size)) {
			struct mmap3_record_mmap *m = (void *)h;
			const uint8_t *want;

			w->records++;
			if (h->type == MMAP3_RECORD_LOST)
				w->lost += ((struct mmap3_record_lost *)h)->lost;
			if (h->type != MMAP3_RECORD_MMAP || (m->flags & MMAP3_MMAP_DUMP) ||
			    !(m->prot & PROT_EXEC))
				continue;
			if (!strcmp(m->path, MARK_EXEC)) {
				w->seen_exec++;
				want = id_exec;
			} else if (!strcmp(m->path, MARK_MMAP)) {
				w->seen_mmap++;
				want = id_mmap;
			} else {
				continue;
			}
			/* Under injected read failures, a record may lack its id. */
			if (!build_id_is(&m->build_id, want, 20) &&
			    !(faults && m->build_id.status == MMAP3_BUILDID_IO_ERROR))
				w->bad_ids++;
		}
	}
}

static int faults_start(void)
{
	unsigned long start, end;

	if (module_range(&start, &end)) {
		fprintf(stderr, "# no address of mmap3's sections in /sys/module/mmap3/sections\n");
		return -1;
	}
	faults_set(FAILSLAB, "5", start, end);
	faults_set(FAIL_PAGE_ALLOC, "5", start, end);
	if (write_file(FAIL_FUNCTION "/inject", "file_reader_read") ||
	    /* retval takes the value's bits in hex, as the kernel's documentation writes -EIO. */
	    write_file(FAIL_FUNCTION "/file_reader_read/retval", "0xfffffffffffffffb")) {
		fprintf(stderr, "# fail_function: cannot inject file_reader_read: %s\n",
			strerror(errno));
		return -1;
	}
	faults_set(FAIL_FUNCTION, "10", 0, 0);
	return 0;
}

static void faults_stop(void)
{
	write_file(FAILSLAB "/probability", "0");
	write_file(FAIL_PAGE_ALLOC "/probability", "0");
	write_file(FAIL_FUNCTION "/probability", "0");
	write_file(FAIL_FUNCTION "/inject", "");
}

static pid_t spawn(void (*fn)(int), int arg)
{
	pid_t pid = fork_child();

	if (pid == 0) {
		fn(arg);
		_exit(0);
	}
	return pid;
}

static void kernel_churn_arg(int unused)
{
	(void)unused;
	kernel_churn();
}

FIXTURE(load) {
	int unused;
};

/* The counters the storms share, and the marker files they map. */
FIXTURE_SETUP(load)
{
	sh = mmap(NULL, sizeof(*sh), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, sh);
	mkdir(SDIR, 0755);
	ASSERT_EQ(0, write_elf(MARK_EXEC, 1, 0, 0xe1, 20, 256, id_exec));
	ASSERT_EQ(0, write_elf(MARK_MMAP, 1, 0, 0xe2, 20, 256, id_mmap));
}

FIXTURE_TEARDOWN(load)
{
}

/* MMAP3_STRESS_SECONDS of load, and the checks after: at most an hour. */
TEST_F_TIMEOUT(load, stress, 3600)
{
	const char *env = getenv("MMAP3_STRESS_SECONDS");
	int seconds = env ? atoi(env) : 60, faults = !!getenv("MMAP3_STRESS_FAULTS");
	int ncpu = sysconf(_SC_NPROCESSORS_ONLN), nkids = 0, i, w;
	struct watcher watchers[2];
	struct mmap3_stats st;
	pid_t kids[32];
	double end;

	for (w = 0; w < 2; w++) {
		struct records r = { };

		watchers[w] = (struct watcher){ .fd = session_open() };
		ASSERT_LE(0, watchers[w].fd);
		ASSERT_EQ(0, ioctl(watchers[w].fd, MMAP3_IOC_SET_BUFFER_SIZE,
				   &(uint64_t){ 16 << 20 }));
		ASSERT_EQ(0, ioctl(watchers[w].fd, MMAP3_IOC_ENABLE));
		ASSERT_EQ(0, read_dump(watchers[w].fd, &r));
		records_free(&r);
		fcntl(watchers[w].fd, F_SETFL, O_NONBLOCK);
	}
	if (faults)
		ASSERT_EQ(0, faults_start());

	for (i = 0; i < ncpu; i++) {
		kids[nkids++] = spawn(exec_storm, i);
		kids[nkids++] = spawn(mmap_storm, i);
	}
	for (i = 0; i < 3; i++)
		kids[nkids++] = spawn(session_churn, i + 1);
	kids[nkids++] = spawn(killed_readers, 7);
	kids[nkids++] = spawn(capture_race, 9);
	kids[nkids++] = spawn(kernel_churn_arg, 0);

	end = now_s() + seconds;
	while (now_s() < end) {
		struct pollfd pfd[2] = {
			{ .fd = watchers[0].fd, .events = POLLIN },
			{ .fd = watchers[1].fd, .events = POLLIN },
		};

		poll(pfd, 2, 100);
		for (w = 0; w < 2; w++)
			watch(&watchers[w], faults);
	}
	__atomic_store_n(&sh->stop, 1, __ATOMIC_RELAXED);
	for (i = 0; i < nkids; i++)
		waitpid(kids[i], NULL, 0);
	if (faults) {
		long slab = faults_injected(FAILSLAB), pages = faults_injected(FAIL_PAGE_ALLOC);
		long reads = faults_injected(FAIL_FUNCTION);

		faults_stop();
		ksft_print_msg("injected: %ld slab allocations, %ld page allocations, %ld file reads failed\n",
			       slab, pages, reads);
		/* A filter or a setting that no longer matches fails nothing. */
		EXPECT_LT(0, slab);
		EXPECT_LT(0, pages);
		EXPECT_LT(0, reads);
	}

	for (w = 0; w < 2; w++) {
		struct watcher *x = &watchers[w];

		ASSERT_EQ(0, ioctl(x->fd, MMAP3_IOC_DISABLE));
		ASSERT_EQ(0, get_stats(x->fd, &st));
		watch(x, faults);
		ksft_print_msg("session %d: %llu records; markers made %llu exec, %llu mmap; seen %llu, %llu; lost %llu (buffer %llu, queue %llu, nomem %llu); timeouts %llu\n",
			       w, (unsigned long long)x->records,
			       (unsigned long long)sh->made_exec, (unsigned long long)sh->made_mmap,
			       (unsigned long long)x->seen_exec, (unsigned long long)x->seen_mmap,
			       (unsigned long long)x->lost, (unsigned long long)st.lost_buffer,
			       (unsigned long long)st.lost_queue, (unsigned long long)st.lost_nomem,
			       (unsigned long long)st.reads_timeout);
		EXPECT_EQ(st.lost, x->lost);
		EXPECT_GE(sh->made_exec, x->seen_exec);
		EXPECT_GE(sh->made_mmap, x->seen_mmap);
		EXPECT_LE(sh->made_exec + sh->made_mmap, x->seen_exec + x->seen_mmap + x->lost);
		EXPECT_EQ(0, x->bad_ids);
		close(x->fd);
	}
	ksft_print_msg("%llu churn sessions, %llu readers killed, %llu captures read, %llu module cycles, rmmod refused %llu times\n",
		       (unsigned long long)sh->sessions, (unsigned long long)sh->killed_readers,
		       (unsigned long long)sh->capture_reads,
		       (unsigned long long)sh->module_cycles,
		       (unsigned long long)sh->rmmod_refused);
	EXPECT_LT(0, sh->made_exec);
	EXPECT_LT(0, sh->made_mmap);
	EXPECT_LT(0, sh->sessions);
	EXPECT_LT(0, sh->rmmod_refused);
	EXPECT_EQ(0, sh->rmmod_succeeded);

	/* Nothing holds the module: it unloads (slow reads may need a moment). */
	for (i = 0; i < 50 && syscall(SYS_delete_module, "mmap3", O_NONBLOCK); i++)
		usleep(100000);
	EXPECT_GT(50, i);
	ASSERT_EQ(0, load_ko(getenv("MMAP3_KO")));
}

/*
 * The probe patched in and out of perf_event_mmap as fast as sessions
 * come and go (probe_grace_ms 0), for half of MMAP3_STRESS_SECONDS, while
 * every CPU maps, mprotects and execs: each cycle rewrites the probed
 * instruction under CPUs running it.  The kernel must take no stray trap
 * (the rig fails the run on an Oops), and a session after it records.
 */
TEST_F_TIMEOUT(load, probe_cycles_beside_storms, 1800)
{
	const char *env = getenv("MMAP3_STRESS_SECONDS");
	int seconds = (env ? atoi(env) : 60) / 2, ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	int nkids = 0, i, fd;
	unsigned long cycles = 0, removed = 0;
	pid_t kids[32];
	double end;

	ASSERT_EQ(0, write_file(PROBE_GRACE, "0"));
	for (i = 0; i < ncpu; i++) {
		kids[nkids++] = spawn(exec_storm, i);
		kids[nkids++] = spawn(mmap_storm, i);
	}
	end = now_s() + seconds;
	while (now_s() < end) {
		fd = session_open();
		ASSERT_LE(0, fd);
		ASSERT_EQ(0, ioctl(fd, MMAP3_IOC_ENABLE));
		close(fd);
		cycles++;
		/* Out before the next one is in: a full cycle each time. */
		for (i = 0; i < 200 && probe_patched() == 1; i++)
			usleep(5000);
		removed += probe_patched() == 0;
	}
	__atomic_store_n(&sh->stop, 1, __ATOMIC_RELAXED);
	for (i = 0; i < nkids; i++)
		waitpid(kids[i], NULL, 0);
	write_file(PROBE_GRACE, "2000");
	ksft_print_msg("%lu probe cycles (%lu removed before the next), %llu exec and %llu mmap markers made beside them\n",
		       cycles, removed, (unsigned long long)sh->made_exec,
		       (unsigned long long)sh->made_mmap);
	EXPECT_LT(0, removed);
	EXPECT_LT(0, sh->made_mmap);

	fd = session_open();
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, ioctl(fd, MMAP3_IOC_ENABLE));
	EXPECT_TRUE(session_records_a_mapping(fd, MARK_MMAP));
	close(fd);
}

TEST_HARNESS_MAIN
