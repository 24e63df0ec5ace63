// SPDX-License-Identifier: GPL-2.0
/*
 * The module under hostile conditions: a FUSE daemon that never answers
 * READ (other mappings, other sessions and a dump waiting for its own
 * reader go on; what waits for the hung read is bounded), an
 * execute-only binary, a file crafted to cost the parser, a
 * user's file opened O_DIRECT and watched by fanotify, limits on memory,
 * a state dump far larger than the buffer, and kernel.ftrace_enabled
 * turned off.
 *
 * Runs as root inside a test VM with the module loaded ($MMAP3_KO); the
 * FUSE and loop modules of kernels that do not build them in are in
 * /lib/mmap3/kernel/.
 */
#include <signal.h>
#include <sched.h>
#include <linux/capability.h>
#include <grp.h>
#include <sys/fanotify.h>
#include <sys/file.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <utime.h>

#include "kselftest_harness.h"
#include "session.h"

#define DIR "/tmp/hostile_test"

/* Tests that take longer than the harness's default 30 s. */
FIXTURE(slow) {
	int unused;
};

FIXTURE_SETUP(slow)
{
}

FIXTURE_TEARDOWN(slow)
{
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/*
 * Load one of the kernel's own modules the tests need, and what it
 * depends on (tests/vm/initramfs lists them in NAME.load), unless it is
 * built in or loaded.
 */
static void kernel_module(const char *name)
{
	char path[128], line[64];
	FILE *f;

	snprintf(path, sizeof(path), "/lib/mmap3/kernel/%s.load", name);
	f = fopen(path, "r");
	if (!f)
		return;		/* built in */
	while (fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = '\0';
		snprintf(path, sizeof(path), "/lib/mmap3/kernel/%s.ko", line);
		load_ko(path);	/* EEXIST: loaded already */
	}
	fclose(f);
	usleep(100000);		/* devtmpfs makes the nodes */
}

/*
 * Start the test FUSE daemon on @mnt serving @src, with the options of
 * @opt (words separated by spaces); its pid, or -1.
 */
static pid_t fusefs_start(const char *mnt, const char *src, const char *opt)
{
	char ready[16] = "", words[128], *argv[12] = { "fusefs", (char *)mnt, (char *)src };
	int pipefd[2], argc = 3;
	char *w, *save;
	pid_t pid;

	snprintf(words, sizeof(words), "%s", opt);
	for (w = strtok_r(words, " ", &save); w && argc < 11; w = strtok_r(NULL, " ", &save))
		argv[argc++] = w;

	kernel_module("fuse");
	mkdir(mnt, 0755);
	if (pipe(pipefd))
		return -1;
	pid = fork_child();
	if (pid == 0) {
		dup2(pipefd[1], 1);
		close(pipefd[0]);
		execv("/selftests/fusefs", argv);
		_exit(127);
	}
	close(pipefd[1]);
	if (read(pipefd[0], ready, sizeof(ready) - 1) <= 0 || strncmp(ready, "ready", 5)) {
		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
		pid = -1;
	}
	close(pipefd[0]);
	return pid;
}

/* Killing the daemon aborts the requests it never answered. */
static void fusefs_stop(pid_t pid, const char *mnt)
{
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	umount2(mnt, MNT_DETACH);
}

/* Run @argv, waiting at most @secs; its exit status, or -1 if it hung. */
static int run_bounded(char *const argv[], int secs)
{
	double end = now_s() + secs;
	int status;
	pid_t pid = fork_child();

	if (pid == 0) {
		int null = open("/dev/null", O_WRONLY);

		dup2(null, 1);
		dup2(null, 2);
		execvp(argv[0], argv);
		_exit(127);
	}
	while (now_s() < end) {
		if (waitpid(pid, &status, WNOHANG) == pid)
			return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
		usleep(20000);
	}
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	return -1;
}

static int unload_mmap3(void)
{
	return syscall(SYS_delete_module, "mmap3", O_NONBLOCK);
}

/* Kill the FUSE daemon, then unload mmap3 (its stuck reads let go) and load it again. */
static int fusefs_stop_and_reload(pid_t daemon, const char *mnt, const char *params)
{
	int i;

	fusefs_stop(daemon, mnt);
	for (i = 0; i < 100 && unload_mmap3(); i++)
		usleep(100000);
	return load_ko_params(getenv("MMAP3_KO"), params);
}

/* A child maps @path executable and exits: its pid once reaped, else -1. */
static pid_t map_in_child(const char *path)
{
	pid_t c = fork_child();
	int rc;

	if (c == 0)
		_exit(map_exec(path) == MAP_FAILED);
	if (c < 0 || waitpid(c, &rc, 0) != c || rc)
		return -1;
	return c;
}

/*
 * A FUSE file whose daemon takes READ requests and never answers: its
 * mapping's record comes with MMAP3_BUILDID_TIMEOUT after read_timeout_ms,
 * every other mapping and session flows, FLUSH, ENABLE's dump, DISABLE
 * and close return in bounded time, and so does rmmod (EBUSY while the
 * read is stuck).  mmap3 record exits normally.  Once the daemon dies,
 * the module unloads.
 */
TEST(fuse_read_that_never_ends_stalls_nothing)
{
	char *record_argv[] = { "mmap3", "record", "-o", DIR "/side.data", "--",
				"/selftests/mapexec", DIR "/mnt/slow", DIR "/plain0", NULL };
	struct mmap3_record_mmap *m;
	struct mmap3_stats st;
	struct records r = { }, r2 = { };
	char path[64];
	uint8_t id[8][20];
	int fd, fd2, i;
	pid_t daemon, c, holder;
	double t;

	mkdir(DIR, 0755);
	mkdir(DIR "/src", 0755);
	ASSERT_EQ(0, write_elf(DIR "/src/slow", 1, 0, 0x5a, 20, 256, NULL));
	for (i = 0; i < 8; i++) {
		snprintf(path, sizeof(path), DIR "/plain%d", i);
		ASSERT_EQ(0, write_elf(path, 1, 0, 0x60 + i, 20, 256, id[i]));
	}
	daemon = fusefs_start(DIR "/mnt", DIR "/src", "--hang");
	ASSERT_LT(0, daemon);

	fd = session_open();
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, ioctl(fd, MMAP3_IOC_ENABLE));
	ASSERT_EQ(0, read_dump(fd, &r));
	records_free(&r);

	/* A process maps the FUSE file and goes: the read hangs in the daemon. */
	c = map_in_child(DIR "/mnt/slow");
	ASSERT_LT(0, c);
	for (i = 0; i < 8; i++) {
		snprintf(path, sizeof(path), DIR "/plain%d", i);
		ASSERT_NE(MAP_FAILED, map_exec(path));
	}
	/*
	 * Each call below returns while the read still hangs (the daemon
	 * answers only when it dies, at the end), so it did not wait for
	 * it; one that did would never return and fail the harness's
	 * timeout.  How long each took is printed, not judged: that is
	 * a benchmark's, not a test's, on a shared machine.
	 */
	t = now_s();
	ASSERT_EQ(0, flush_and_read(fd, &r));
	TH_LOG("FLUSH took %.1f s with a read hanging", now_s() - t);
	for (i = 0; i < 8; i++) {
		snprintf(path, sizeof(path), DIR "/plain%d", i);
		m = find_mmap(&r, getpid(), path, 0);
		ASSERT_NE(NULL, m);
		EXPECT_TRUE(build_id_is(&m->build_id, id[i], 20));
	}
	m = find_mmap(&r, c, DIR "/mnt/slow", 0);
	ASSERT_NE(NULL, m);
	EXPECT_EQ(MMAP3_BUILDID_TIMEOUT, m->build_id.status);
	ASSERT_EQ(0, get_stats(fd, &st));
	EXPECT_LE(1, st.reads_timeout);
	EXPECT_LE(1, st.reads_in_flight);

	/* A mapping of it now gets TIMEOUT at once, and so does the dump. */
	holder = fork_child();
	if (holder == 0) {
		if (map_exec(DIR "/mnt/slow") == MAP_FAILED)
			_exit(1);
		pause();
		_exit(0);
	}
	usleep(200000);
	fd2 = session_open();
	ASSERT_LE(0, fd2);
	t = now_s();
	ASSERT_EQ(0, ioctl(fd2, MMAP3_IOC_ENABLE));
	ASSERT_EQ(0, read_dump(fd2, &r2));
	TH_LOG("ENABLE and its dump took %.1f s with a read hanging", now_s() - t);
	ASSERT_EQ(0, get_stats(fd, &st));
	EXPECT_LE(1, st.reads_in_flight);
	m = find_mmap(&r2, holder, DIR "/mnt/slow", 1);
	ASSERT_NE(NULL, m);
	EXPECT_EQ(MMAP3_BUILDID_TIMEOUT, m->build_id.status);

	/* mmap3 record beside a process mapping the hung file exits normally. */
	EXPECT_EQ(0, run_bounded(record_argv, 20));

	t = now_s();
	EXPECT_EQ(0, ioctl(fd, MMAP3_IOC_DISABLE));
	ASSERT_EQ(0, get_stats(fd, &st));
	EXPECT_LE(1, st.reads_in_flight);
	close(fd);
	close(fd2);
	TH_LOG("DISABLE and close took %.1f s with a read hanging", now_s() - t);
	/* The stuck read holds the module: rmmod says so, not waiting for it. */
	t = now_s();
	EXPECT_EQ(-1, unload_mmap3());
	EXPECT_TRUE(errno == EWOULDBLOCK || errno == EBUSY);
	TH_LOG("rmmod took %.1f s to say EBUSY", now_s() - t);

	kill(holder, SIGKILL);
	waitpid(holder, NULL, 0);
	ASSERT_EQ(0, fusefs_stop_and_reload(daemon, DIR "/mnt", ""));
	records_free(&r);
	records_free(&r2);
}

static volatile sig_atomic_t alarm_rang;

static void on_alarm(int sig)
{
	(void)sig;
	alarm_rang = 1;
}

/*
 * One try of blocked_reader_is_woken_for_a_deadline_record: 1 if the
 * reader was woken and read the TIMEOUT record, 0 if it was not, -1 if
 * the try cannot tell (another mapping came while it waited).
 */

static int deadline_wake_try(struct __test_metadata *_metadata)
{
	/* No SA_RESTART: the alarm ends the poll(). */
	struct sigaction sa = { .sa_handler = on_alarm };
	struct mmap3_record_header *h;
	struct mmap3_record_mmap *m;
	struct records r = { }, w = { };
	struct pollfd pfd;
	int go[2], fd, wfd, woken, others = 0, ret;
	pid_t daemon, c;
	double t;
	char x;

	daemon = fusefs_start(DIR "/mnt", DIR "/src", "--hang");
	if (daemon <= 0 || pipe(go))
		return 0;
	c = fork_child();
	if (c == 0) {
		close(go[1]);
		if (read(go[0], &x, 1) != 1 || map_exec(DIR "/mnt/slow") == MAP_FAILED)
			_exit(1);
		pause();
		_exit(0);
	}
	close(go[0]);
	fd = session_open();
	wfd = session_open();
	if (c < 0 || fd < 0 || wfd < 0 || session_filter(fd, 0, 1, &c) ||
	    ioctl(fd, MMAP3_IOC_ENABLE) || read_dump(fd, &r) ||
	    ioctl(wfd, MMAP3_IOC_ENABLE) || read_dump(wfd, &w)) {
		TH_LOG("setting up the sessions failed");
		ret = 0;
		goto out;
	}
	records_free(&r);
	records_free(&w);

	if (write(go[1], "g", 1) != 1) {
		ret = 0;
		goto out;
	}
	/*
	 * Not poll()'s own timeout: at its end poll() looks at the session
	 * again and returns 1 for a record that woke no one.  The alarm
	 * bounds the wait, and says it was not woken within the bound.
	 */
	pfd = (struct pollfd){ .fd = fd, .events = POLLIN };
	alarm_rang = 0;
	sigaction(SIGALRM, &sa, NULL);
	t = now_s();
	alarm(15);
	woken = poll(&pfd, 1, -1) == 1 && !alarm_rang;
	alarm(0);
	TH_LOG("%s after %.2f s", woken ? "woken" : "not woken within the bound", now_s() - t);
	read_available(fd, &r);
	m = find_mmap(&r, c, DIR "/mnt/slow", 0);
	/*
	 * The witness, unfiltered, has a record of every mapping that ran
	 * the worker since: each run wakes every reader with a record
	 * waiting, and would hide a deadline record that woke none.
	 */
	flush_and_read(wfd, &w);
	for_each_record(&w, h) {
		struct mmap3_record_mmap *wm = (void *)h;

		if (h->type == MMAP3_RECORD_MODULE_LOAD || h->type == MMAP3_RECORD_MODULE_UNLOAD ||
		    (h->type == MMAP3_RECORD_MMAP && (pid_t)wm->pid != c))
			others++;
	}
	if (others) {
		TH_LOG("%d other records came while the reader waited: this try cannot tell",
		       others);
		ret = -1;
	} else if (!woken || !m || m->build_id.status != MMAP3_BUILDID_TIMEOUT) {
		TH_LOG("no wake for the deadline record (record %s, status %d)",
		       m ? "read" : "absent", m ? m->build_id.status : -1);
		ret = 0;
	} else {
		ret = 1;
	}
out:
	if (c > 0) {
		kill(c, SIGKILL);
		waitpid(c, NULL, 0);
	}
	close(go[1]);
	if (fd >= 0)
		close(fd);
	if (wfd >= 0)
		close(wfd);
	records_free(&r);
	records_free(&w);
	if (fusefs_stop_and_reload(daemon, DIR "/mnt", ""))
		ret = 0;
	return ret;
}

/*
 * A reader blocked in poll() is woken for a record that no worker batch
 * delivers: the TIMEOUT of a mapping whose read hangs comes from the
 * deadline's work, and the session's filter lets no other mapping in.
 * Left asleep, the reader would wait for an unrelated mapping, for ever
 * here; a bound of fifteen times the deadline, an alarm (poll()'s own
 * timeout would return the record that woke no one), only turns that
 * into a failure.  Any mapping on the machine in that window runs the worker,
 * whose end wakes every reader with a record waiting, filtered or not:
 * it would hide a missing wake.  An unfiltered witness session sees such
 * mappings; a try that saw one is not judged, and is made again.
 */
TEST_F_TIMEOUT(slow, blocked_reader_is_woken_for_a_deadline_record, 120)
{
	int i, ret = -1;

	mkdir(DIR, 0755);
	mkdir(DIR "/src", 0755);
	ASSERT_EQ(0, write_elf(DIR "/src/slow", 1, 0, 0x5b, 20, 256, NULL));
	for (i = 0; i < 3 && ret < 0; i++)
		ret = deadline_wake_try(_metadata);
	if (ret < 0)
		SKIP(return, "other mappings came in every try: the wake cannot be told");
	EXPECT_EQ(1, ret);
}

/* A child that maps @path @n times and stays; its pid. */
static pid_t map_and_stay(const char *path, int n, const char *last)
{
	int ready[2];
	pid_t pid;
	char c;
	int i;

	if (pipe(ready))
		return -1;
	pid = fork_child();
	if (pid == 0) {
		close(ready[0]);
		for (i = 0; i < n; i++)
			if (map_exec(path) == MAP_FAILED)
				_exit(1);
		/* Mapped last, below the others: the dump reaches it first. */
		if (last && map_exec(last) == MAP_FAILED)
			_exit(1);
		if (write(ready[1], "", 1) != 1)
			_exit(1);
		pause();
		_exit(0);
	}
	close(ready[1]);
	/* Returns once every mapping is made (slow under emulation). */
	if (pid > 0 && read(ready[0], &c, 1) != 1) {
		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
		pid = -1;
	}
	close(ready[0]);
	return pid;
}

/*
 * A session whose reader does not read, and whose dump waits for room
 * with a mapping of a hung FUSE file parked, holds up no other session:
 * another session's mapping of another hung file still gets its TIMEOUT
 * record at the deadline.  The waiting dump gets its parked record too,
 * once its reader reads.
 */
TEST(dump_waiting_for_its_reader_holds_up_no_other_session)
{
	struct mmap3_record_dump_done *done = NULL;
	struct mmap3_record_header *h;
	struct mmap3_record_mmap *m;
	struct records ra = { }, rb = { };
	int a, b;
	pid_t daemon, holder, c;

	mkdir(DIR, 0755);
	mkdir(DIR "/src", 0755);
	ASSERT_EQ(0, write_elf(DIR "/src/slow1", 1, 0, 0x71, 20, 256, NULL));
	ASSERT_EQ(0, write_elf(DIR "/src/slow2", 1, 0, 0x72, 20, 256, NULL));
	ASSERT_EQ(0, write_elf(DIR "/plain", 1, 0, 0x73, 20, 256, NULL));
	daemon = fusefs_start(DIR "/mnt", DIR "/src", "--hang");
	ASSERT_LT(0, daemon);
	/* 1500 records fill far more than a 64 KiB buffer. */
	holder = map_and_stay(DIR "/plain", 1500, DIR "/mnt/slow1");
	ASSERT_LT(0, holder);

	a = session_open();
	ASSERT_LE(0, a);
	ASSERT_EQ(0, ioctl(a, MMAP3_IOC_SET_BUFFER_SIZE, &(uint64_t){ 64 << 10 }));
	ASSERT_EQ(0, ioctl(a, MMAP3_IOC_ENABLE));
	/* Past slow1's deadline: its record is due while a's dump waits. */
	sleep(2);

	b = session_open();
	ASSERT_LE(0, b);
	ASSERT_EQ(0, ioctl(b, MMAP3_IOC_ENABLE));
	ASSERT_EQ(0, read_dump(b, &rb));
	records_free(&rb);
	c = map_in_child(DIR "/mnt/slow2");
	ASSERT_LT(0, c);
	ASSERT_EQ(0, flush_and_read(b, &rb));
	m = find_mmap(&rb, c, DIR "/mnt/slow2", 0);
	ASSERT_NE(NULL, m) {
		TH_LOG("no record of the second hung file: a's dump holds up the deadline");
	}
	EXPECT_EQ(MMAP3_BUILDID_TIMEOUT, m->build_id.status);

	/* a reads: its dump goes on, slow1's record in it. */
	ASSERT_EQ(0, read_dump(a, &ra));
	m = find_mmap(&ra, holder, DIR "/mnt/slow1", 1);
	ASSERT_NE(NULL, m);
	EXPECT_EQ(MMAP3_BUILDID_TIMEOUT, m->build_id.status);
	for_each_record(&ra, h)
		if (h->type == MMAP3_RECORD_DUMP_DONE)
			done = (void *)h;
	ASSERT_NE(NULL, done);
	EXPECT_LE(1501, done->mappings);

	close(a);
	close(b);
	kill(holder, SIGKILL);
	waitpid(holder, NULL, 0);
	ASSERT_EQ(0, fusefs_stop_and_reload(daemon, DIR "/mnt", ""));
	records_free(&ra);
	records_free(&rb);
}

/*
 * Mappings of a hung FUSE file made faster than its read's deadline, by
 * six users (a thousand each, below one user's share of 1024): at most
 * 4096 wait for the read in all (memory is bounded); the others get
 * TIMEOUT at once.  One user's share: one_users_hung_file_leaves_others_room.
 */
#define MAX_PARKED	4096
/* Slow in the debug kernel: 6000 mappings of a FUSE file under KASAN. */
TEST_F_TIMEOUT(slow, mappings_parked_for_a_hung_read_are_bounded, 300)
{
	struct mmap3_record_header *h;
	struct mmap3_stats st;
	struct records r = { };
	int fd, rc, i, u, timeouts = 0;
	pid_t daemon, c[6];

	mkdir(DIR, 0755);
	mkdir(DIR "/src", 0755);
	ASSERT_EQ(0, write_elf(DIR "/src/slow", 1, 0, 0x74, 20, 256, NULL));
	daemon = fusefs_start(DIR "/mnt", DIR "/src", "--hang");
	ASSERT_LT(0, daemon);
	/* A deadline far away: every mapping below comes before it. */
	ASSERT_EQ(0, reload_mmap3("read_timeout_ms=60000"));

	fd = session_open();
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, ioctl(fd, MMAP3_IOC_ENABLE));
	ASSERT_EQ(0, read_dump(fd, &r));
	records_free(&r);
	for (u = 0; u < 6; u++) {
		c[u] = fork_child();
		if (c[u] == 0) {
			int f;

			pin_to_cpu(0);
			if (setresgid(1000 + u, 1000 + u, 1000 + u) ||
			    setresuid(1000 + u, 1000 + u, 1000 + u))
				_exit(1);
			f = open(DIR "/mnt/slow", O_RDONLY);
			for (i = 0; i < 1000; i++) {
				void *p = mmap(NULL, 4096, PROT_READ | PROT_EXEC, MAP_PRIVATE, f, 0);

				if (p == MAP_FAILED || munmap(p, 4096))
					_exit(1);
				/* Let the worker keep the queue short. */
				if (i % 500 == 499)
					usleep(50000);
			}
			_exit(0);
		}
		ASSERT_LT(0, c[u]);
		/* One at a time: the worker keeps the queue short. */
		ASSERT_EQ(c[u], waitpid(c[u], &rc, 0));
		ASSERT_EQ(0, rc);
	}
	for (i = 0; i < 100; i++) {
		ASSERT_EQ(0, get_stats(fd, &st));
		if (!st.pending)
			break;
		usleep(100000);
	}
	usleep(100000);
	ASSERT_EQ(0, get_stats(fd, &st));
	ASSERT_EQ(0, read_available(fd, &r));
	for_each_record(&r, h) {
		struct mmap3_record_mmap *m = (void *)h;

		for (u = 0; u < 6; u++)
			if (h->type == MMAP3_RECORD_MMAP && (pid_t)m->pid == c[u] &&
			    m->build_id.status == MMAP3_BUILDID_TIMEOUT)
				timeouts++;
	}
	EXPECT_GE(MAX_PARKED, st.reads_parked);
	EXPECT_EQ(MAX_PARKED, st.reads_parked) {
		TH_LOG("%llu parked, %d given TIMEOUT, %llu lost in the queue",
		       (unsigned long long)st.reads_parked, timeouts,
		       (unsigned long long)st.queue_lost);
	}
	EXPECT_EQ(6000, st.reads_parked + timeouts + st.queue_lost);

	close(fd);
	ASSERT_EQ(0, fusefs_stop_and_reload(daemon, DIR "/mnt", ""));
	records_free(&r);
}

/* Read a small file such as a sysctl into @buf, its newline dropped; 0, or -1. */
static int read_small(const char *path, char *buf, size_t size)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -1;
	n = read(fd, buf, size - 1);
	close(fd);
	if (n <= 0)
		return -1;
	buf[n] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
	return 0;
}

/* Is the running kernel @major.@minor or later? */
static int kernel_at_least(int major, int minor)
{
	struct utsname u;
	int ma = 0, mi = 0;

	if (uname(&u) || sscanf(u.release, "%d.%d", &ma, &mi) != 2)
		return 1;
	return ma > major || (ma == major && mi >= minor);
}

#define WQ_CPUMASK	"/sys/devices/virtual/workqueue/cpumask"
#define RT_RUNTIME	"/proc/sys/kernel/sched_rt_runtime_us"
#define FAIR_SERVER1	"/sys/kernel/debug/sched/fair_server/cpu1/runtime"
#define RCU_EXPEDITED	"/sys/kernel/rcu_expedited"

static char saved_cpumask[64], saved_rt_runtime[32], saved_fair[32], saved_expedited[8];

/* Confine the unbound workers to CPU 1 and let RT spin there, or put it back. */
static int cpu1_for_spinning(int on)
{
	int ret = 0;

	/* The fair server changes only with RT throttling off: this order. */
	if (on) {
		ret |= write_file(WQ_CPUMASK, "2");
		ret |= write_file(RT_RUNTIME, "-1");
		/* Grace periods by IPI: CPU 1's softirqs may wait for the spinner. */
		if (saved_expedited[0])
			ret |= write_file(RCU_EXPEDITED, "1");
	}
	if (saved_fair[0])
		ret |= write_file(FAIR_SERVER1, on ? "0" : saved_fair);
	if (!on) {
		if (saved_expedited[0])
			ret |= write_file(RCU_EXPEDITED, saved_expedited);
		ret |= write_file(RT_RUNTIME, saved_rt_runtime);
		ret |= write_file(WQ_CPUMASK, saved_cpumask);
	}
	return ret;
}

/*
 * One try of disable_counts_mappings_left_unresolved, CPU 1
 * given to a spinner while DISABLE waits: 1 if the mapping was counted in
 * lost_unresolved (and lost), 0 if not, -1 if the try cannot tell
 * (DISABLE returned only once the spinner had let CPU 1 go: the
 * deadline's work may have served the mapping first, as it should).
 */
static int unresolved_try(struct __test_metadata *_metadata)
{
	struct sched_param sp = { .sched_priority = 10 };
	struct mmap3_stats st;
	int fd = -1, keeper = -1, i, rc, ret = 0, spinning;
	struct records r = { };
	pid_t daemon, hog = -1;
	double end;

	daemon = fusefs_start(DIR "/mnt", DIR "/src", "--hang");
	if (daemon <= 0 || reload_mmap3("read_timeout_ms=5000")) {
		TH_LOG("starting the FUSE daemon or reloading mmap3 failed: %m");
		goto out;
	}
	/*
	 * Another session, of init's mappings, keeps the hook: DISABLE is
	 * not the last, which would wait for the worker, on CPU 1.
	 */
	keeper = session_open();
	if (keeper < 0 || session_filter(keeper, 0, 1, &(pid_t){ 1 }) ||
	    ioctl(keeper, MMAP3_IOC_ENABLE) || read_dump(keeper, &r)) {
		TH_LOG("opening a session of init's failed: %m");
		goto out;
	}
	fd = own_session_open();
	if (fd < 0 || map_exec(DIR "/mnt/slow") == MAP_FAILED) {
		TH_LOG("opening a session or mapping the hung file failed: %m");
		goto out;
	}
	/* Parked for its read, the hook's queue empty. */
	for (i = 0; i < 100; i++) {
		if (get_stats(fd, &st))
			goto out;
		if (st.reads_parked && !st.pending)
			break;
		usleep(50000);
	}
	if (st.reads_parked != 1 || st.lost_unresolved) {
		TH_LOG("%llu parked, %llu unresolved before DISABLE",
		       (unsigned long long)st.reads_parked, (unsigned long long)st.lost_unresolved);
		goto out;
	}
	/* The module's workqueues made, its worker idle: confine them now. */
	if (cpu1_for_spinning(1)) {
		TH_LOG("confining the workers to CPU 1 failed");
		goto out;
	}
	/* After DISABLE's drain (at once), before the deadline (5 s). */
	hog = fork_child();
	if (hog == 0) {
		if (pin_to_cpu(1))
			_exit(1);
		usleep(1000000);
		if (sched_setscheduler(0, SCHED_FIFO, &sp))
			_exit(1);
		/* Past the flush's bound (deadline and a second) by three. */
		for (end = now_s() + 8; now_s() < end; )
			;
		_exit(0);
	}
	if (hog < 0)
		goto out;
	end = now_s();
	if (ioctl(fd, MMAP3_IOC_DISABLE) || get_stats(fd, &st)) {
		TH_LOG("DISABLE or GET_STATS failed: %m");
		goto out;
	}
	spinning = waitpid(hog, &rc, WNOHANG) == 0;
	TH_LOG("DISABLE took %.1f s, %s; %llu unresolved, %llu lost", now_s() - end,
	       spinning ? "CPU 1 still taken" : "CPU 1 let go first",
	       (unsigned long long)st.lost_unresolved, (unsigned long long)st.lost);
	if (st.lost_unresolved == 1 && st.lost >= 1)
		ret = 1;
	else
		ret = spinning ? 0 : -1;
out:
	if (hog > 0)
		waitpid(hog, NULL, 0);
	if (cpu1_for_spinning(0))
		ret = 0;
	if (fd >= 0)
		close(fd);
	if (keeper >= 0)
		close(keeper);
	records_free(&r);
	if (daemon > 0 && fusefs_stop_and_reload(daemon, DIR "/mnt", ""))
		ret = 0;
	return ret;
}

/*
 * DISABLE's flush waits for the mappings parked for slow reads until a
 * second past the deadline; one still waiting then (its deadline's work
 * not run) is counted in the session's lost_unresolved, and in its lost,
 * not left out in silence.  A mapping is parked for a FUSE read that
 * never answers; the kernel's unbound workers, where the deadline's work
 * runs, are confined to CPU 1, and a SCHED_FIFO spinner takes CPU 1
 * (RT throttling, and the fair server of 6.12 on, off) from after
 * DISABLE's drain of the hook to well past its flush's bound.  Since
 * 6.12 the fair server gives the fair class time beside any RT task;
 * it can be turned off only with CONFIG_SCHED_DEBUG's debugfs: the test
 * is skipped on such a kernel without it.  DISABLE must not itself
 * wait for CPU 1: grace periods are expedited (by IPI, not CPU 1's
 * softirqs, which may be left to its starved ksoftirqd) and a session
 * of init's keeps the hook, so DISABLE is not the last, which waits for
 * the worker.  A try where DISABLE still returned only once the spinner
 * was gone cannot tell (the deadline's work may have served the
 * mapping first): it is made again, three times, then SKIP.
 */
TEST_F_TIMEOUT(slow, disable_counts_mappings_left_unresolved, 180)
{
	int i, ret = -1;

	if (sysconf(_SC_NPROCESSORS_ONLN) < 2 ||
	    read_small(WQ_CPUMASK, saved_cpumask, sizeof(saved_cpumask)))
		SKIP(return, "needs two CPUs and the unbound workqueues' cpumask");
	ASSERT_EQ(0, read_small(RT_RUNTIME, saved_rt_runtime, sizeof(saved_rt_runtime)));
	mount("none", "/sys/kernel/debug", "debugfs", 0, NULL);	/* EBUSY: mounted */
	if (read_small(FAIR_SERVER1, saved_fair, sizeof(saved_fair)))
		saved_fair[0] = '\0';
	if (read_small(RCU_EXPEDITED, saved_expedited, sizeof(saved_expedited)))
		saved_expedited[0] = '\0';
	if (!saved_fair[0] && kernel_at_least(6, 12))
		SKIP(return, "the fair server (6.12) cannot be turned off: no CONFIG_SCHED_DEBUG");

	mkdir(DIR, 0755);
	mkdir(DIR "/src", 0755);
	ASSERT_EQ(0, write_elf(DIR "/src/slow", 1, 0, 0x5c, 20, 256, NULL));
	ASSERT_EQ(0, pin_to_cpu(0));
	for (i = 0; i < 3 && ret < 0; i++)
		ret = unresolved_try(_metadata);
	if (ret < 0)
		SKIP(return, "DISABLE waited for CPU 1 in every try: the count cannot be told");
	EXPECT_EQ(1, ret);
}

/* In a child: become uid 1000 with exactly CAP_PERFMON (or none). */
static int become_user(int perfmon)
{
	struct __user_cap_header_struct hdr = { .version = _LINUX_CAPABILITY_VERSION_3 };
	struct __user_cap_data_struct data[2] = { };

	if (prctl(PR_SET_KEEPCAPS, 1, 0, 0, 0) || setresgid(1000, 1000, 1000) ||
	    setresuid(1000, 1000, 1000))
		return -1;
	if (perfmon)
		data[1].effective = data[1].permitted = 1u << (CAP_PERFMON - 32);
	return syscall(SYS_capset, &hdr, data);
}

/*
 * An execute-only binary (0711) run by uid 1000: a session opened with
 * CAP_PERFMON alone gets its record and build-id, and a capture handle
 * whose read is refused; a session of root reads it byte for byte.
 */
TEST(execute_only_binary_not_readable_through_capture)
{
	struct mmap3_capture_read rd = { .size = sizeof(rd) };
	struct mmap3_record_mmap *m;
	struct records r = { };
	char want[65536], got[65536];
	int ready[2], go[2], status, fd, src, n;
	pid_t opener, runner;
	char byte;

	mkdir(DIR, 0755);
	src = open("/selftests/spin_v1", O_RDONLY);
	ASSERT_LE(0, src);
	n = read(src, want, sizeof(want));
	close(src);
	ASSERT_LT(0, n);
	fd = open(DIR "/xo", O_WRONLY | O_CREAT | O_TRUNC, 0711);
	ASSERT_LE(0, fd);
	src = open("/selftests/spin_v1", O_RDONLY);
	while ((n = read(src, got, sizeof(got))) > 0)
		ASSERT_EQ(n, write(fd, got, n));
	close(src);
	close(fd);
	ASSERT_EQ(0, chmod(DIR "/xo", 0711));
	ASSERT_EQ(0, pipe(ready));
	ASSERT_EQ(0, pipe(go));
	/* The opener is uid 1000: let it open the device (0600, root's). */
	ASSERT_EQ(0, chown(MMAP3_DEVICE_PATH, 1000, 0));

	opener = fork_child();
	if (opener == 0) {
		struct mmap3_record_mmap *xm;
		int sfd;

		if (become_user(1))
			_exit(20);
		sfd = capture_session_open(&r);
		if (sfd < 0)
			_exit(21);
		write(ready[1], "r", 1);
		if (read(go[0], &byte, 1) != 1 || flush_and_read(sfd, &r))
			_exit(23);
		xm = find_mmap(&r, 0, DIR "/xo", 0);
		if (!xm)
			_exit(24);
		if (xm->build_id.status != MMAP3_BUILDID_FOUND)
			_exit(25);
		if (!xm->capture)
			_exit(0);	/* no handle: also refused */
		rd.handle = xm->capture;
		rd.buf = (uintptr_t)got;
		rd.len = sizeof(got);
		if (ioctl(sfd, MMAP3_IOC_CAPTURE_READ, &rd) != -1)
			_exit(26);
		_exit(errno == EACCES ? 0 : 27);
	}
	ASSERT_EQ(1, read(ready[0], &byte, 1));
	ASSERT_EQ(0, chown(MMAP3_DEVICE_PATH, 0, 0));

	fd = capture_session_open(&r);
	ASSERT_LE(0, fd);
	records_free(&r);

	runner = fork_child();
	if (runner == 0) {
		if (become_user(0))
			_exit(30);
		execl(DIR "/xo", "xo", "10", (char *)NULL);
		_exit(31);
	}
	ASSERT_EQ(runner, waitpid(runner, &status, 0));
	ASSERT_EQ(0, WEXITSTATUS(status));
	ASSERT_EQ(1, write(go[1], "g", 1));
	ASSERT_EQ(opener, waitpid(opener, &status, 0));
	EXPECT_EQ(0, WEXITSTATUS(status));

	/* Root may read it: the bytes are the file's. */
	ASSERT_EQ(0, flush_and_read(fd, &r));
	m = find_mmap(&r, runner, DIR "/xo", 0);
	ASSERT_NE(NULL, m);
	ASSERT_NE(0, m->capture);
	rd.handle = m->capture;
	rd.buf = (uintptr_t)got;
	rd.len = sizeof(got);
	rd.offset = 0;
	n = ioctl(fd, MMAP3_IOC_CAPTURE_READ, &rd);
	ASSERT_LT(0, n);
	EXPECT_EQ(0, memcmp(want, got, n));
	close(fd);
	records_free(&r);
}

/*
 * An ELF file with no program headers and 100,000 section headers, none
 * a note: the module's per-file budget stops the parse
 * (MMAP3_BUILDID_LIMIT), the answer is cached until the file changes.
 */
static int write_costly_elf(const char *path, unsigned int nsh)
{
	size_t size = 64 + (size_t)nsh * 64;
	uint8_t *buf = calloc(1, size);
	unsigned int i;
	int fd, ret = -1;

	if (!buf)
		return -1;
	memcpy(buf, "\177ELF\2\1\1", 7);
	buf[16] = 3;				/* ET_DYN */
	buf[18] = 62;				/* x86-64 */
	buf[20] = 1;
	memcpy(buf + 0x28, &(uint64_t){ 64 }, 8);	/* e_shoff */
	buf[0x34] = 64;				/* e_ehsize */
	buf[0x3a] = 64;				/* e_shentsize */
	/* e_shnum 0: the count is in section 0's sh_size. */
	memcpy(buf + 64 + 32, &(uint64_t){ nsh }, 8);
	for (i = 1; i < nsh; i++)
		buf[64 + (size_t)i * 64 + 4] = 1;	/* SHT_PROGBITS */
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0755);
	if (fd >= 0 && write(fd, buf, size) == (ssize_t)size)
		ret = 0;
	if (fd >= 0)
		close(fd);
	free(buf);
	return ret;
}

TEST(crafted_file_over_the_budget_is_limit_until_it_changes)
{
	struct mmap3_stats s0, s1, s2;
	struct mmap3_record_mmap *m;
	struct records r = { };
	int fd;

	mkdir(DIR, 0755);
	ASSERT_EQ(0, write_costly_elf(DIR "/costly", 100000));
	fd = session_open();
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, session_filter(fd, 0, 1, &(pid_t){ getpid() }));
	ASSERT_EQ(0, ioctl(fd, MMAP3_IOC_ENABLE));
	ASSERT_EQ(0, read_dump(fd, &r));
	ASSERT_EQ(0, get_stats(fd, &s0));
	ASSERT_NE(MAP_FAILED, map_exec(DIR "/costly"));
	ASSERT_NE(MAP_FAILED, map_exec(DIR "/costly"));
	ASSERT_EQ(0, flush_and_read(fd, &r));
	ASSERT_EQ(0, get_stats(fd, &s1));
	m = find_mmap(&r, getpid(), DIR "/costly", 0);
	ASSERT_NE(NULL, m);
	EXPECT_EQ(MMAP3_BUILDID_LIMIT, m->build_id.status);
	/* Parsed once; the second mapping was served from the cache. */
	EXPECT_EQ(s0.parse[MMAP3_BUILDID_LIMIT] + 1, s1.parse[MMAP3_BUILDID_LIMIT]);
	EXPECT_LE(s0.cache_hits + 1, s1.cache_hits);

	/* A change (here only its times) makes it be read again. */
	usleep(20000);
	ASSERT_EQ(0, utime(DIR "/costly", NULL));
	ASSERT_NE(MAP_FAILED, map_exec(DIR "/costly"));
	ASSERT_EQ(0, flush_and_read(fd, &r));
	ASSERT_EQ(0, get_stats(fd, &s2));
	EXPECT_EQ(s1.parse[MMAP3_BUILDID_LIMIT] + 1, s2.parse[MMAP3_BUILDID_LIMIT]);
	close(fd);
	records_free(&r);
	unlink(DIR "/costly");
}

static int sh(const char *cmd)
{
	return system(cmd) == 0 ? 0 : -1;
}

/*
 * The module reads a file through an open of its own: the user's file,
 * opened O_DIRECT on a block filesystem, is not read (whose alignment
 * rules a small read breaks), and reading raises no fanotify access
 * event.  The file's pages are dropped first, so it is read from disk.
 */
TEST(reads_do_not_disturb_the_users_file)
{
	struct fanotify_event_metadata ev[64];
	struct mmap3_record_mmap *m;
	struct records r = { };
	uint8_t id[20];
	int fd, fan, ufd, i;
	ssize_t n;
	void *p;

	mkdir(DIR, 0755);
	mkdir(DIR "/disk", 0755);
	kernel_module("loop");
	kernel_module("ext4");
	ASSERT_EQ(0, sh("dd if=/dev/zero of=" DIR "/disk.img bs=1M count=8 2>/dev/null && "
			"mke2fs -F -q " DIR "/disk.img >/dev/null 2>&1 && "
			/* devtmpfs makes the loop device's node a moment later */
			"for i in 1 2 3 4 5 6 7 8 9 10; do "
			"mount -o loop -t ext2 " DIR "/disk.img " DIR "/disk && break; "
			"sleep 0.5; done; grep -q \" " DIR "/disk \" /proc/mounts"));
	ASSERT_EQ(0, write_elf(DIR "/disk/direct", 1, 0, 0x7d, 20, 256, id));
	sync();
	ASSERT_EQ(0, write_file("/proc/sys/vm/drop_caches", "3"));

	fan = fanotify_init(FAN_CLASS_NOTIF | FAN_NONBLOCK, O_RDONLY);
	ASSERT_LE(0, fan);
	ASSERT_EQ(0, fanotify_mark(fan, FAN_MARK_ADD | FAN_MARK_MOUNT, FAN_ACCESS,
				   AT_FDCWD, DIR "/disk"));
	fd = session_open();
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, session_filter(fd, 0, 1, &(pid_t){ getpid() }));
	ASSERT_EQ(0, ioctl(fd, MMAP3_IOC_ENABLE));
	ASSERT_EQ(0, read_dump(fd, &r));
	ufd = open(DIR "/disk/direct", O_RDONLY | O_DIRECT);
	ASSERT_LE(0, ufd);
	p = mmap(NULL, 4096, PROT_READ | PROT_EXEC, MAP_PRIVATE, ufd, 0);
	ASSERT_NE(MAP_FAILED, p);
	ASSERT_EQ(0, flush_and_read(fd, &r));
	m = find_mmap(&r, getpid(), DIR "/disk/direct", 0);
	ASSERT_NE(NULL, m);
	EXPECT_TRUE(build_id_is(&m->build_id, id, 20)) {
		TH_LOG("status %u", m->build_id.status);
	}
	n = read(fan, ev, sizeof(ev));
	EXPECT_EQ(-1, n) {
		for (i = 0; n > 0 && i < n / (int)sizeof(ev[0]); i++)
			TH_LOG("fanotify: mask 0x%llx from pid %d",
			       (unsigned long long)ev[i].mask, ev[i].pid);
	}
	munmap(p, 4096);
	close(ufd);
	close(fan);
	close(fd);
	records_free(&r);
	EXPECT_EQ(0, sh("umount " DIR "/disk"));
}

/*
 * Memory: a queue per online CPU, not per possible one.  A CPU brought
 * online during a session gets its queue, and its mappings are recorded,
 * none counted lost.
 */
TEST(queues_follow_the_online_cpus)
{
	const char *online = "/sys/devices/system/cpu/cpu1/online";
	struct records r = { 0 };
	struct mmap3_stats one = { 0 }, two = { 0 };
	int fd, status;
	pid_t pid;

	if (sysconf(_SC_NPROCESSORS_ONLN) < 2 || write_file(online, "0"))
		SKIP(return, "cpu1 cannot be taken offline here");
	fd = session_open();
	EXPECT_LE(0, fd);
	EXPECT_EQ(0, ioctl(fd, MMAP3_IOC_ENABLE));
	EXPECT_EQ(0, get_stats(fd, &one));
	/* Whatever failed above, cpu1 comes back for the tests after this one. */
	ASSERT_EQ(0, write_file(online, "1"));
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, get_stats(fd, &two));
	EXPECT_LT(0, one.queue_memory);
	EXPECT_EQ(2 * one.queue_memory, two.queue_memory);

	ASSERT_EQ(0, read_dump(fd, &r));
	pid = fork_child();
	ASSERT_LE(0, pid);
	if (pid == 0)
		_exit(pin_to_cpu(1) || map_exec("/selftests/spin_v1") == MAP_FAILED);
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_EQ(0, status);
	ASSERT_EQ(0, flush_and_read(fd, &r));
	EXPECT_NE(NULL, find_mmap(&r, pid, "/selftests/spin_v1", 0));
	ASSERT_EQ(0, get_stats(fd, &two));
	EXPECT_EQ(0, two.lost_queue);
	EXPECT_EQ(0, count_type(&r, MMAP3_RECORD_LOST));
	records_free(&r);
	close(fd);
}

/*
 * The hook's queues, made at the first ENABLE and charged to its
 * opener's memory cgroup, fail with ENOMEM where that cgroup has no
 * room for them: a memory-limited agent gets an error, not its cgroup's
 * OOM killer (which took it before the allocation could fail).
 */
TEST(queues_give_enomem_not_the_oom_killer)
{
	int status = 0;
	pid_t c;

	mkdir("/sys/fs/cgroup", 0755);
	mount("cgroup2", "/sys/fs/cgroup", "cgroup2", 0, NULL);
	if (access("/sys/fs/cgroup/cgroup.controllers", F_OK))
		SKIP(return, "no cgroup v2");
	write_file("/sys/fs/cgroup/cgroup.subtree_control", "+memory");
	mkdir("/sys/fs/cgroup/mmap3_small", 0755);
	/* Less than the two CPUs' queues (about 800 KiB each). */
	ASSERT_EQ(0, write_file("/sys/fs/cgroup/mmap3_small/memory.max", "1M"));
	c = fork_child();
	if (c == 0) {
		uint64_t size = 64 << 10;
		int fd = session_open();

		if (fd < 0 || ioctl(fd, MMAP3_IOC_SET_BUFFER_SIZE, &size))
			_exit(10);
		if (write_file("/sys/fs/cgroup/mmap3_small/cgroup.procs", "0"))
			_exit(11);
		_exit(ioctl(fd, MMAP3_IOC_ENABLE) == -1 && errno == ENOMEM ? 0 : 12);
	}
	ASSERT_EQ(c, waitpid(c, &status, 0));
	EXPECT_TRUE(WIFEXITED(status)) {
		TH_LOG("the opener was killed by signal %d", WTERMSIG(status));
	}
	if (WIFEXITED(status))
		EXPECT_EQ(0, WEXITSTATUS(status));
	rmdir("/sys/fs/cgroup/mmap3_small");
}

/*
 * Memory: the hook's queues exist only while a session is enabled; a
 * buffer beyond max_buffer_size is refused; buffers are charged to the
 * opener's memory cgroup; sessions are bounded in number.
 */
TEST(memory_is_bounded_and_charged)
{
	struct mmap3_stats st;
	char cur[32] = "";
	long before, after;
	int fd, fds[4], i, cg;

	fd = session_open();
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, get_stats(fd, &st));
	EXPECT_EQ(0, st.queue_memory);
	EXPECT_EQ(-1, ioctl(fd, MMAP3_IOC_SET_BUFFER_SIZE, &(uint64_t){ 512ull << 20 }));
	EXPECT_EQ(EINVAL, errno);
	ASSERT_EQ(0, ioctl(fd, MMAP3_IOC_ENABLE));
	ASSERT_EQ(0, get_stats(fd, &st));
	EXPECT_LT(0, st.queue_memory);
	EXPECT_LE(st.buffer_size, st.memory);
	ASSERT_EQ(0, ioctl(fd, MMAP3_IOC_DISABLE));
	ASSERT_EQ(0, get_stats(fd, &st));
	EXPECT_EQ(0, st.queue_memory);
	close(fd);

	/* A cgroup of our own: the buffer shows in its memory.current. */
	mkdir("/sys/fs/cgroup", 0755);
	mount("cgroup2", "/sys/fs/cgroup", "cgroup2", 0, NULL);
	if (!access("/sys/fs/cgroup/cgroup.controllers", F_OK)) {
		write_file("/sys/fs/cgroup/cgroup.subtree_control", "+memory");
		mkdir("/sys/fs/cgroup/mmap3_test", 0755);
		ASSERT_EQ(0, write_file("/sys/fs/cgroup/mmap3_test/cgroup.procs", "0"));
		fd = session_open();
		ASSERT_LE(0, fd);
		cg = open("/sys/fs/cgroup/mmap3_test/memory.current", O_RDONLY);
		ASSERT_LE(0, cg);
		ASSERT_LT(0, pread(cg, cur, sizeof(cur) - 1, 0));
		before = atol(cur);
		ASSERT_EQ(0, ioctl(fd, MMAP3_IOC_SET_BUFFER_SIZE, &(uint64_t){ 64ull << 20 }));
		memset(cur, 0, sizeof(cur));
		ASSERT_LT(0, pread(cg, cur, sizeof(cur) - 1, 0));
		after = atol(cur);
		EXPECT_LE(before + (60l << 20), after) {
			TH_LOG("memory.current %ld -> %ld", before, after);
		}
		close(cg);
		close(fd);
		write_file("/sys/fs/cgroup/cgroup.procs", "0");
		rmdir("/sys/fs/cgroup/mmap3_test");
	}

	ASSERT_EQ(0, reload_mmap3("max_sessions=3"));
	for (i = 0; i < 3; i++) {
		fds[i] = session_open();
		ASSERT_LE(0, fds[i]);
	}
	EXPECT_EQ(-1, session_open());
	EXPECT_EQ(EMFILE, errno);
	for (i = 0; i < 3; i++)
		close(fds[i]);
	ASSERT_EQ(0, reload_mmap3(""));
}

/*
 * The state dump streams while the reader drains: 2000 processes with
 * 30 executable mappings each besides their own exist before ENABLE,
 * and with the default 4 MiB buffer nothing is lost.  MMAP3_DUMP_PROCS
 * sets fewer (the debug kernel under emulation forks slowly).
 */
TEST_F_TIMEOUT(slow, dump_of_60000_mappings_streams_without_loss, 900)
{
	enum { MAX_PROCS = 2000, MAPS = 30 };
	static pid_t kids[MAX_PROCS];
	const char *env = getenv("MMAP3_DUMP_PROCS");
	const int PROCS = env && atoi(env) > 0 && atoi(env) < MAX_PROCS ? atoi(env) : MAX_PROCS;
	struct mmap3_record_header *h;
	struct mmap3_stats st;
	struct records r = { };
	uint64_t ours = 0, lost = 0;
	int fd, i, j, pipefd[2], ready[2];
	double t;
	char c;

	mkdir(DIR, 0755);
	ASSERT_EQ(0, write_elf(DIR "/many", 1, 0, 0x3c, 20, 256, NULL));
	ASSERT_EQ(0, pipe(pipefd));
	ASSERT_EQ(0, pipe(ready));
	for (i = 0; i < PROCS; i++) {
		kids[i] = fork_child();
		ASSERT_LE(0, kids[i]);
		if (kids[i] == 0) {
			for (j = 0; j < MAPS; j++)
				if (map_exec(DIR "/many") == MAP_FAILED)
					_exit(1);
			close(pipefd[1]);
			write(ready[1], "r", 1);
			read(pipefd[0], &c, 1);		/* until the parent is done */
			_exit(0);
		}
	}
	close(pipefd[0]);
	/* Every child has mapped, and is at rest. */
	for (i = 0; i < PROCS; i++)
		ASSERT_EQ(1, read(ready[0], &c, 1));

	fd = session_open();
	ASSERT_LE(0, fd);
	t = now_s();
	ASSERT_EQ(0, ioctl(fd, MMAP3_IOC_ENABLE));
	/* Blocking reads, as a tool's: the dump waits for room meanwhile. */
	while (!has_type(&r, MMAP3_RECORD_DUMP_DONE)) {
		static char buf[1 << 20];
		ssize_t n = read(fd, buf, sizeof(buf));

		ASSERT_LT(0, n);
		r.buf = realloc(r.buf, r.len + n);
		memcpy(r.buf + r.len, buf, n);
		r.len += n;
	}
	t = now_s() - t;
	for_each_record(&r, h) {
		struct mmap3_record_mmap *m = (void *)h;

		if (h->type == MMAP3_RECORD_LOST)
			lost += ((struct mmap3_record_lost *)h)->lost;
		if (h->type == MMAP3_RECORD_MMAP && (m->flags & MMAP3_MMAP_DUMP) &&
		    !strcmp(m->path, DIR "/many"))
			ours++;
	}
	ASSERT_EQ(0, get_stats(fd, &st));
	EXPECT_EQ((uint64_t)PROCS * MAPS, ours);
	EXPECT_EQ(0, lost);
	EXPECT_EQ(0, st.lost);
	for_each_record(&r, h)
		if (h->type == MMAP3_RECORD_DUMP_DONE)
			ksft_print_msg("dump: %llu mappings of %u processes, DUMP_DONE after %.2f s\n",
				       (unsigned long long)((struct mmap3_record_dump_done *)h)->mappings,
				       ((struct mmap3_record_dump_done *)h)->tasks, t);
	close(fd);
	close(pipefd[1]);
	for (i = 0; i < PROCS; i++)
		waitpid(kids[i], NULL, 0);
	records_free(&r);
}

/* Make an ext2 filesystem on a loop device at DIR/disk (nanosecond times). */
static int ext2_mount(void)
{
	mkdir(DIR, 0755);
	mkdir(DIR "/disk", 0755);
	kernel_module("loop");
	kernel_module("ext4");
	return sh("dd if=/dev/zero of=" DIR "/disk.img bs=1M count=16 2>/dev/null && "
		  "mke2fs -F -q -I 256 " DIR "/disk.img >/dev/null 2>&1 && "
		  /* devtmpfs makes the loop device's node a moment later */
		  "for i in 1 2 3 4 5 6 7 8 9 10; do "
		  "mount -o loop -t ext2 " DIR "/disk.img " DIR "/disk && break; "
		  "sleep 0.5; done; grep -q \" " DIR "/disk \" /proc/mounts");
}

/* Children that map @n files @fmt (with %d) and stay; their pids in @kids. */
static int map_each_in_children(const char *fmt, int n, pid_t *kids)
{
	char path[128];
	int i;

	for (i = 0; i < n; i++) {
		snprintf(path, sizeof(path), fmt, i);
		kids[i] = fork_child();
		if (kids[i] == 0) {
			if (map_exec(path) == MAP_FAILED)
				_exit(1);
			pause();
			_exit(0);
		}
		if (kids[i] < 0)
			return -1;
	}
	return 0;
}

static void kill_all(pid_t *kids, int n)
{
	int i;

	for (i = 0; i < n; i++) {
		if (kids[i] > 0) {
			kill(kids[i], SIGKILL);
			waitpid(kids[i], NULL, 0);
		}
	}
}

/*
 * @hung files hung%d on a FUSE mount at DIR/mnt that never answers, and
 * @cold programs at @fmt (with %d) on ext2 at DIR/disk, their build-ids
 * in @id, written to disk; the module reloaded with @params.  The FUSE
 * daemon's pid, or -1.
 */
static pid_t hung_beside_cold(int hung, const char *fmt, int cold, uint8_t (*id)[20],
			      const char *params)
{
	char path[128];
	int i;

	mkdir(DIR, 0755);
	mkdir(DIR "/src", 0755);
	for (i = 0; i < hung; i++) {
		snprintf(path, sizeof(path), DIR "/src/hung%d", i);
		if (write_elf(path, 1, 0, 0x20 + i, 20, 256, NULL))
			return -1;
	}
	if (ext2_mount())
		return -1;
	for (i = 0; i < cold; i++) {
		snprintf(path, sizeof(path), fmt, i);
		if (write_elf(path, 1, 0, 0x80 + i, 20, 256, id[i]))
			return -1;
	}
	sync();
	if (reload_mmap3(params))
		return -1;
	return fusefs_start(DIR "/mnt", DIR "/src", "--hang");
}

/*
 * A filesystem that stops answering holds one slow reader, not the
 * pool: with eight files hung on one FUSE mount (one read stuck in its
 * daemon, the others waiting behind it on the same filesystem), fifty
 * programs freshly written to an ext2 filesystem on a loop device, their
 * pages dropped, are read from disk and every one gets its build-id
 * while the hung reads are still before their deadline: no record of a
 * hung file (TIMEOUT, at the deadline) has come yet.  Were the eight
 * reads of one mount allowed to run at once, they would take all
 * slow_readers (four) until their deadline, and the cold files' records
 * would come only after the hung files' TIMEOUT records: an order, not
 * a time, tells.  The deadline is long (60 s) so the ext2 reads, one at
 * a time on their filesystem, are not judged by the speed of an
 * emulated disk; the test waits for it only if the rule is broken.
 */
TEST_F_TIMEOUT(slow, hung_filesystem_holds_one_reader, 300)
{
	struct pollfd pfd;
	struct mmap3_record_header *h;
	struct mmap3_record_mmap *m;
	struct mmap3_stats st;
	struct records r = { };
	uint8_t id[50][20];
	pid_t daemon, kids[8] = { };
	char path[128];
	int fd, i, k, found = 0, hung_seen = 0;

	daemon = hung_beside_cold(8, DIR "/disk/cold%d", 50, id, "read_timeout_ms=60000");
	ASSERT_LT(0, daemon);
	fd = session_open();
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, ioctl(fd, MMAP3_IOC_ENABLE));
	ASSERT_EQ(0, read_dump(fd, &r));
	records_free(&r);

	ASSERT_EQ(0, map_each_in_children(DIR "/mnt/hung%d", 8, kids));
	/* Their eight reads are asked for (one running, or all, if the rule is broken). */
	for (i = 0; i < 300; i++) {
		ASSERT_EQ(0, get_stats(fd, &st));
		if (st.reads_in_flight >= 8)
			break;
		usleep(100000);
	}
	ASSERT_LE(8, st.reads_in_flight);
	ASSERT_EQ(0, write_file("/proc/sys/vm/drop_caches", "3"));
	for (i = 0; i < 50; i++) {
		snprintf(path, sizeof(path), DIR "/disk/cold%d", i);
		ASSERT_NE(MAP_FAILED, map_exec(path));
	}
	/*
	 * No FLUSH: it would wait for the hung files' deadline.  Read until
	 * every cold file has its record, or a hung file's comes first;
	 * bounded past the deadline for a module that sends neither.
	 */
	pfd = (struct pollfd){ .fd = fd, .events = POLLIN };
	for (k = 0; k < 240 && found < 50 && !hung_seen; k++) {
		poll(&pfd, 1, 500);
		ASSERT_EQ(0, read_available(fd, &r));
		found = 0;
		for (i = 0; i < 50; i++) {
			snprintf(path, sizeof(path), DIR "/disk/cold%d", i);
			if (find_mmap(&r, getpid(), path, 0))
				found++;
		}
		for_each_record(&r, h) {
			m = (void *)h;
			for (i = 0; i < 8; i++)
				if (h->type == MMAP3_RECORD_MMAP && (pid_t)m->pid == kids[i])
					hung_seen++;
		}
	}
	TH_LOG("%d of 50 cold files had records, %d records of hung files came first",
	       found, hung_seen);
	EXPECT_EQ(0, hung_seen) {
		TH_LOG("a hung file's deadline came first: its mount held more than one reader");
	}
	ASSERT_EQ(50, found);
	found = 0;
	for (i = 0; i < 50; i++) {
		snprintf(path, sizeof(path), DIR "/disk/cold%d", i);
		m = find_mmap(&r, getpid(), path, 0);
		if (build_id_is(&m->build_id, id[i], 20))
			found++;
		else
			TH_LOG("%s: status %u", path, m->build_id.status);
	}
	EXPECT_EQ(50, found);
	ASSERT_EQ(0, get_stats(fd, &st));
	EXPECT_EQ(0, st.reads_timeout);
	EXPECT_LE(1, st.reads_in_flight);
	TH_LOG("%d of 50 cold files resolved beside 8 hung ones; %llu reads in flight",
	       found, (unsigned long long)st.reads_in_flight);

	close(fd);
	records_free(&r);
	kill_all(kids, 8);
	ASSERT_EQ(0, fusefs_stop_and_reload(daemon, DIR "/mnt", ""));
	/* This process still maps its files. */
	EXPECT_EQ(0, umount2(DIR "/disk", MNT_DETACH));
}

/*
 * One user's hung file leaves other users room to wait: uid 1000 maps
 * one file of a FUSE mount that never answers 4,200 times (each mapping
 * waits for the one stuck read, until its deadline), then root maps ten
 * programs freshly written to an ext2 filesystem, their pages dropped,
 * which must still be read and get their build-ids.  Before, the 4,096
 * mappings that may wait were one budget for all, and uid 1000's took
 * it: root's cold files got TIMEOUT.  Now a user has a quarter of it;
 * every one of uid 1000's mappings gets TIMEOUT, past the quarter at
 * once, the others at the deadline.
 */
TEST_F_TIMEOUT(slow, one_users_hung_file_leaves_others_room, 300)
{
	const int maps = 4200, cold = 10;
	struct mmap3_record_header *h;
	struct mmap3_record_mmap *m;
	struct records r = { };
	uint8_t id[10][20];
	int fd, i, up[2], found = 0, timeouts = 0;
	pid_t daemon, c;
	char path[128], byte;

	daemon = hung_beside_cold(1, DIR "/disk/room%d", cold, id, "read_timeout_ms=15000");
	ASSERT_LT(0, daemon);
	fd = session_open();
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, ioctl(fd, MMAP3_IOC_ENABLE));
	ASSERT_EQ(0, read_dump(fd, &r));
	records_free(&r);

	ASSERT_EQ(0, pipe(up));
	c = fork_child();
	if (c == 0) {
		close(up[0]);
		if (become_user(0))
			_exit(1);
		for (i = 0; i < maps; i++)
			if (map_exec(DIR "/mnt/hung0") == MAP_FAILED)
				_exit(1);
		if (write(up[1], "m", 1) != 1)
			_exit(1);
		pause();
		_exit(0);
	}
	ASSERT_LT(0, c);
	close(up[1]);
	ASSERT_EQ(1, read(up[0], &byte, 1));
	close(up[0]);
	usleep(500000);		/* the worker has parked them */
	ASSERT_EQ(0, write_file("/proc/sys/vm/drop_caches", "3"));
	for (i = 0; i < cold; i++) {
		snprintf(path, sizeof(path), DIR "/disk/room%d", i);
		ASSERT_NE(MAP_FAILED, map_exec(path));
	}
	/* Waits for the parked ones, the hung file's until its deadline. */
	ASSERT_EQ(0, flush_and_read(fd, &r));
	for (i = 0; i < cold; i++) {
		snprintf(path, sizeof(path), DIR "/disk/room%d", i);
		m = find_mmap(&r, getpid(), path, 0);
		ASSERT_NE(NULL, m);
		if (build_id_is(&m->build_id, id[i], 20))
			found++;
		else
			TH_LOG("%s: status %u", path, m->build_id.status);
	}
	EXPECT_EQ(cold, found);
	for_each_record(&r, h) {
		m = (void *)h;
		if (h->type == MMAP3_RECORD_MMAP && (pid_t)m->pid == c &&
		    m->build_id.status == MMAP3_BUILDID_TIMEOUT)
			timeouts++;
	}
	/* All of the user's: those past a quarter at once, the rest at the deadline. */
	EXPECT_EQ(maps, timeouts);
	TH_LOG("%d of %d cold files of root's read beside %d of uid 1000's mappings of a hung file",
	       found, cold, maps);

	close(fd);
	records_free(&r);
	kill_all(&c, 1);
	ASSERT_EQ(0, fusefs_stop_and_reload(daemon, DIR "/mnt", ""));
	EXPECT_EQ(0, umount2(DIR "/disk", MNT_DETACH));
}

/*
 * Reads stuck past their deadline stop counting against their user's
 * readers: root maps one file on each of four FUSE mounts that never
 * answer (four reads, slow_readers' worth, all root's), waits past the
 * deadline, then maps a program freshly written to ext2, its pages
 * dropped: it is read and gets its build-id.  Before, the four stuck
 * reads still counted as root's running ones, so no read of root's
 * could start while they hung: every later cold file of every root
 * process got TIMEOUT.
 */
TEST_F_TIMEOUT(slow, stuck_reads_leave_their_user_readers, 300)
{
	struct mmap3_record_mmap *m;
	struct records r = { };
	char mnt[4][64], path[128];
	pid_t daemons[4];
	uint8_t id[20];
	int fd, i;

	mkdir(DIR, 0755);
	mkdir(DIR "/src", 0755);
	ASSERT_EQ(0, write_elf(DIR "/src/stuck", 1, 0, 0x32, 20, 256, NULL));
	ASSERT_EQ(0, ext2_mount());
	ASSERT_EQ(0, write_elf(DIR "/disk/after", 1, 0, 0x9f, 20, 256, id));
	sync();
	ASSERT_EQ(0, reload_mmap3("read_timeout_ms=3000"));
	for (i = 0; i < 4; i++) {
		snprintf(mnt[i], sizeof(mnt[i]), DIR "/mnt%d", i);
		daemons[i] = fusefs_start(mnt[i], DIR "/src", "--hang");
		ASSERT_LT(0, daemons[i]);
	}
	fd = session_open();
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, ioctl(fd, MMAP3_IOC_ENABLE));
	ASSERT_EQ(0, read_dump(fd, &r));
	records_free(&r);

	for (i = 0; i < 4; i++) {
		snprintf(path, sizeof(path), DIR "/mnt%d/stuck", i);
		ASSERT_LT(0, map_in_child(path));
	}
	sleep(5);		/* their reads stuck, past the deadline */
	ASSERT_EQ(0, write_file("/proc/sys/vm/drop_caches", "3"));
	ASSERT_NE(MAP_FAILED, map_exec(DIR "/disk/after"));
	ASSERT_EQ(0, flush_and_read(fd, &r));
	m = find_mmap(&r, getpid(), DIR "/disk/after", 0);
	ASSERT_NE(NULL, m);
	EXPECT_TRUE(build_id_is(&m->build_id, id, 20)) {
		TH_LOG("status %u beside four of root's reads stuck past their deadline",
		       m->build_id.status);
	}

	close(fd);
	records_free(&r);
	for (i = 0; i < 3; i++)
		fusefs_stop(daemons[i], mnt[i]);
	ASSERT_EQ(0, fusefs_stop_and_reload(daemons[3], mnt[3], ""));
	EXPECT_EQ(0, umount2(DIR "/disk", MNT_DETACH));
}

/*
 * The module reads a file as its mapper could: a FUSE daemon that
 * serves only uid 1000 (as a root-squashing NFS server, or a FUSE mount
 * without allow_other, keeps others out) answers the module's reads of
 * what uid 1000 mapped.  Before, they were made as root, and refused.
 */
TEST(slow_reads_are_made_as_the_mapper)
{
	struct mmap3_record_mmap *m;
	struct records r = { };
	uint8_t id[20];
	pid_t daemon, c;
	int fd;

	mkdir(DIR, 0755);
	mkdir(DIR "/src", 0755);
	ASSERT_EQ(0, write_elf(DIR "/src/users", 1, 0, 0x41, 20, 256, id));
	daemon = fusefs_start(DIR "/mnt", DIR "/src", "--only-uid 1000");
	ASSERT_LT(0, daemon);
	fd = session_open();
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, ioctl(fd, MMAP3_IOC_ENABLE));
	ASSERT_EQ(0, read_dump(fd, &r));
	records_free(&r);

	c = fork_child();
	if (c == 0) {
		if (become_user(0) || map_exec(DIR "/mnt/users") == MAP_FAILED)
			_exit(1);
		pause();
		_exit(0);
	}
	ASSERT_LT(0, c);
	usleep(100000);
	ASSERT_EQ(0, flush_and_read(fd, &r));
	m = find_mmap(&r, c, DIR "/mnt/users", 0);
	ASSERT_NE(NULL, m);
	EXPECT_TRUE(build_id_is(&m->build_id, id, 20)) {
		TH_LOG("status %u: read as someone else than its mapper", m->build_id.status);
	}
	kill(c, SIGKILL);
	waitpid(c, NULL, 0);
	close(fd);
	records_free(&r);
	fusefs_stop(daemon, DIR "/mnt");
}

/*
 * A capture handle holds the file, not the mapper's open of it: a
 * program written and mapped through one open file, which also holds a
 * flock, and closed, can be executed (no ETXTBSY from a writer kept
 * alive) and locked again while the session still holds its handle.
 */
TEST(capture_holds_no_users_open_file)
{
	struct mmap3_record_mmap *m;
	struct records r = { };
	char buf[65536], said = 0;
	int fd, src, n, status, lk, up[2], down[2];
	pid_t c, runner;

	mkdir(DIR, 0755);
	fd = capture_session_open(&r);
	ASSERT_LE(0, fd);
	records_free(&r);

	ASSERT_EQ(0, pipe(up));
	ASSERT_EQ(0, pipe(down));
	c = fork_child();
	if (c == 0) {
		int w = open(DIR "/rw_prog", O_RDWR | O_CREAT | O_TRUNC, 0755);

		close(up[0]);
		close(down[1]);
		src = open("/selftests/spin_v2", O_RDONLY);
		if (w < 0 || src < 0 || flock(w, LOCK_EX))
			_exit(1);
		while ((n = read(src, buf, sizeof(buf))) > 0)
			if (write(w, buf, n) != n)
				_exit(1);
		if (mmap(NULL, 4096, PROT_READ | PROT_EXEC, MAP_PRIVATE, w, 0) == MAP_FAILED)
			_exit(1);
		/* Alive until its record is read: a capture is offered for a live mapper. */
		if (write(up[1], "m", 1) != 1 || read(down[0], &said, 1) < 0)
			_exit(1);
		_exit(0);	/* its mapping, open file and lock go with it */
	}
	close(up[1]);
	close(down[0]);
	ASSERT_EQ(1, read(up[0], &said, 1));
	close(up[0]);
	ASSERT_EQ(0, flush_and_read(fd, &r));
	close(down[1]);
	ASSERT_EQ(c, waitpid(c, &status, 0));
	ASSERT_EQ(0, WEXITSTATUS(status));
	m = find_mmap(&r, c, DIR "/rw_prog", 0);
	ASSERT_NE(NULL, m);
	ASSERT_NE(0, m->capture);

	/*
	 * The worker's last reference to the mapper's open file went with
	 * the record; a kworker's fput() completes a moment later.
	 */
	lk = open(DIR "/rw_prog", O_RDONLY);
	ASSERT_LE(0, lk);
	for (n = 0; n < 100 && flock(lk, LOCK_EX | LOCK_NB); n++)
		usleep(10000);
	EXPECT_EQ(0, flock(lk, LOCK_EX | LOCK_NB)) {
		TH_LOG("the mapper's flock outlived it: %s", strerror(errno));
	}
	close(lk);
	runner = fork_child();
	if (runner == 0) {
		execl(DIR "/rw_prog", "rw_prog", "1", (char *)NULL);
		_exit(errno == ETXTBSY ? 99 : 98);
	}
	ASSERT_EQ(runner, waitpid(runner, &status, 0));
	EXPECT_EQ(0, WEXITSTATUS(status)) {
		TH_LOG("exec: %s", WEXITSTATUS(status) == 99 ? "ETXTBSY" : "failed");
	}
	close(fd);
	records_free(&r);
}

/* The first live mapping record of @pid whose path starts with @prefix. */
static struct mmap3_record_mmap *find_mmap_prefix(struct records *r, pid_t pid,
						  const char *prefix)
{
	struct mmap3_record_header *h;

	for_each_record(r, h) {
		struct mmap3_record_mmap *m = (void *)h;

		if (h->type == MMAP3_RECORD_MMAP && (pid_t)m->pid == pid &&
		    !(m->flags & MMAP3_MMAP_DUMP) && !strncmp(m->path, prefix, strlen(prefix)))
			return m;
	}
	return NULL;
}

/* In a child: become uid @uid with exactly CAP_PERFMON (or none). */
static int become_uid(uid_t uid, int perfmon)
{
	struct __user_cap_header_struct hdr = { .version = _LINUX_CAPABILITY_VERSION_3 };
	struct __user_cap_data_struct data[2] = { };

	if (prctl(PR_SET_KEEPCAPS, 1, 0, 0, 0) || setgroups(0, NULL) ||
	    setresgid(uid, uid, uid) || setresuid(uid, uid, uid))
		return -1;
	if (perfmon)
		data[1].effective = data[1].permitted = 1u << (CAP_PERFMON - 32);
	return syscall(SYS_capset, &hdr, data);
}

/* Wait up to 20 s until @pid runs a program whose path starts with @prefix. */
static int wait_exe(pid_t pid, const char *prefix)
{
	char link[64], exe[4096];
	ssize_t n;
	int i;

	snprintf(link, sizeof(link), "/proc/%d/exe", pid);
	for (i = 0; i < 2000; i++) {
		n = readlink(link, exe, sizeof(exe) - 1);
		if (n > 0) {
			exe[n] = 0;
			if (!strncmp(exe, prefix, strlen(prefix)))
				return 0;
		}
		usleep(10000);
	}
	return -1;
}

/*
 * Captures are no wider than /proc/PID/map_files: a CAP_PERFMON-only
 * opener (uid 1000) gets no handle for uid 2000's memfd program (its
 * inode is mode 0777) nor for uid 2000's program under a 0700 directory,
 * but one for its own program, whose bytes it reads; root gets and reads
 * all three.
 */
TEST(capture_no_wider_than_map_files)
{
	struct mmap3_capture_read rd = { .size = sizeof(rd) };
	struct mmap3_record_mmap *m;
	struct records r = { };
	int ready[2], go[2], status, fd, n;
	pid_t opener, memfd_runner, dir_runner, own_runner;
	char pids[64], got[4096], byte;

	mkdir(DIR, 0755);
	ASSERT_EQ(0, mkdir(DIR "/private", 0700));
	ASSERT_EQ(0, sh("cp /selftests/spin_v1 " DIR "/private/prog && "
			"cp /selftests/spin_v3 " DIR "/own_prog && "
			"chown -R 2000:2000 " DIR "/private && chown 1000:1000 " DIR "/own_prog"));
	ASSERT_EQ(0, pipe(ready));
	ASSERT_EQ(0, pipe(go));
	ASSERT_EQ(0, chown(MMAP3_DEVICE_PATH, 1000, 0));

	opener = fork_child();
	if (opener == 0) {
		pid_t p[3];
		int sfd, i;

		if (become_uid(1000, 1))
			_exit(20);
		sfd = capture_session_open(&r);
		if (sfd < 0)
			_exit(21);
		write(ready[1], "r", 1);
		if (read(go[0], pids, sizeof(pids)) <= 0 ||
		    sscanf(pids, "%d %d %d", &p[0], &p[1], &p[2]) != 3)
			_exit(22);
		/*
		 * /proc/PID/exe names the program before exec maps it: the
		 * mappings may come after a first FLUSH on a busy machine.
		 */
		for (i = 0; i < 100; i++) {
			if (flush_and_read(sfd, &r))
				_exit(22);
			if (find_mmap_prefix(&r, p[0], "/memfd:") &&
			    find_mmap(&r, p[1], DIR "/private/prog", 0) &&
			    find_mmap(&r, p[2], DIR "/own_prog", 0))
				break;
			usleep(100000);
		}
		m = find_mmap_prefix(&r, p[0], "/memfd:");
		if (!m || m->capture)
			_exit(m ? 23 : 24);
		m = find_mmap(&r, p[1], DIR "/private/prog", 0);
		if (!m || m->capture)
			_exit(m ? 25 : 26);
		/* Its own process's file: offered, and read. */
		m = find_mmap(&r, p[2], DIR "/own_prog", 0);
		if (!m || !m->capture)
			_exit(m ? 27 : 28);
		rd.handle = m->capture;
		rd.buf = (uintptr_t)got;
		rd.len = sizeof(got);
		i = ioctl(sfd, MMAP3_IOC_CAPTURE_READ, &rd);
		_exit(i > 0 && !memcmp(got, "\177ELF", 4) ? 0 : 29);
	}
	ASSERT_EQ(1, read(ready[0], &byte, 1));
	ASSERT_EQ(0, chown(MMAP3_DEVICE_PATH, 0, 0));
	fd = capture_session_open(&r);
	ASSERT_LE(0, fd);
	records_free(&r);

	/* They run while the mappings are looked at: 3 s each. */
	memfd_runner = fork_child();
	if (memfd_runner == 0) {
		if (become_uid(2000, 0))
			_exit(30);
		execl("/selftests/memfd_exec", "memfd_exec", "ctr", "/selftests/spin_v2", "3000",
		      (char *)NULL);
		_exit(31);
	}
	dir_runner = fork_child();
	if (dir_runner == 0) {
		if (become_uid(2000, 0))
			_exit(30);
		execl(DIR "/private/prog", "prog", "3000", (char *)NULL);
		_exit(31);
	}
	own_runner = fork_child();
	if (own_runner == 0) {
		if (become_uid(1000, 0))
			_exit(30);
		execl(DIR "/own_prog", "own_prog", "3000", (char *)NULL);
		_exit(31);
	}
	/* Each has exec'd its program (the debug kernel takes its time). */
	EXPECT_EQ(0, wait_exe(memfd_runner, "/memfd:ctr"));
	EXPECT_EQ(0, wait_exe(dir_runner, DIR "/private/prog"));
	EXPECT_EQ(0, wait_exe(own_runner, DIR "/own_prog"));
	snprintf(pids, sizeof(pids), "%d %d %d", memfd_runner, dir_runner, own_runner);
	ASSERT_EQ((ssize_t)strlen(pids), write(go[1], pids, strlen(pids)));
	ASSERT_EQ(opener, waitpid(opener, &status, 0));
	EXPECT_EQ(0, WEXITSTATUS(status)) {
		TH_LOG("uid 1000's session: exit %d (23: a handle for the memfd, "
		       "25: for the private file, 27: none for its own)", WEXITSTATUS(status));
	}

	/* Root reads all three. */
	ASSERT_EQ(0, flush_and_read(fd, &r));
	m = find_mmap_prefix(&r, memfd_runner, "/memfd:");
	ASSERT_NE(NULL, m);
	ASSERT_NE(0, m->capture);
	rd.handle = m->capture;
	rd.buf = (uintptr_t)got;
	rd.len = sizeof(got);
	n = ioctl(fd, MMAP3_IOC_CAPTURE_READ, &rd);
	EXPECT_LT(0, n);
	m = find_mmap(&r, dir_runner, DIR "/private/prog", 0);
	ASSERT_NE(NULL, m);
	ASSERT_NE(0, m->capture);
	rd.handle = m->capture;
	n = ioctl(fd, MMAP3_IOC_CAPTURE_READ, &rd);
	EXPECT_LT(0, n);
	kill_all((pid_t[]){ memfd_runner, dir_runner, own_runner }, 3);
	close(fd);
	records_free(&r);
}

/* A capturing session whose captures are for @uid (as under sudo), enabled. */
static int session_for_user(struct records *r, uid_t uid)
{
	uint32_t groups[] = { uid };
	struct mmap3_capture_user cu = {
		.size = sizeof(cu), .uid = uid, .gid = uid, .nr_groups = 1,
		.groups = (uintptr_t)groups,
	};
	int fd = session_open();

	if (fd < 0)
		return -1;
	if (session_filter(fd, MMAP3_FILTER_CAPTURE, 0, NULL) ||
	    ioctl(fd, MMAP3_IOC_SET_CAPTURE_USER, &cu) || ioctl(fd, MMAP3_IOC_ENABLE) ||
	    read_dump(fd, r)) {
		close(fd);
		return -1;
	}
	return fd;
}

/*
 * Under sudo the copies are the invoking user's (ABI 2.4): root's session,
 * its captures set for uid 1000, is offered only what uid 1000 could read
 * itself, by its path or through /proc/PID/map_files, and reads only
 * what uid 1000 may read: not a root-only program run by root (0700 in a
 * 0700 directory), not uid 2000's program in its private directory, not
 * root's program run from a memfd, not an execute-only program (even one
 * uid 1000 runs); its own program and a world-readable one root runs,
 * byte for byte.  A session of root for itself is offered all of them.
 * Only one who could become that user may ask (EPERM), and only before
 * ENABLE (EBUSY).
 */
TEST(capture_for_the_user_who_ran_sudo)
{
	struct mmap3_capture_user cu = { .size = sizeof(cu), .uid = 1000, .gid = 1000 };
	struct mmap3_capture_read rd = { .size = sizeof(rd) };
	struct mmap3_record_mmap *m;
	struct records r = { }, rr = { };
	pid_t kids[6], opener;
	int fd, rootfd, status, n, i;
	char got[4096];
	/* The first four not for uid 1000, the last two for it. */
	const char *progs[6] = { DIR "/root/prog", DIR "/private/prog", "/memfd:rootmem",
				 DIR "/xo", DIR "/own_prog", DIR "/public" };

	mkdir(DIR, 0755);
	ASSERT_EQ(0, sh("mkdir -p -m 0700 " DIR "/root " DIR "/private && "
			"cp /selftests/spin_v1 " DIR "/root/prog && chmod 0700 " DIR "/root/prog && "
			"cp /selftests/spin_v2 " DIR "/private/prog && "
			"chown -R 2000:2000 " DIR "/private && "
			"cp /selftests/spin_v3 " DIR "/xo && chmod 0711 " DIR "/xo && "
			"cp /selftests/spin_v4 " DIR "/own_prog && chown 1000:1000 " DIR "/own_prog && "
			"cp /selftests/spin_v5 " DIR "/public && chmod 0755 " DIR "/public"));

	/* uid 1000 with CAP_PERFMON opens a session: it may not ask for anyone. */
	ASSERT_EQ(0, chown(MMAP3_DEVICE_PATH, 1000, 0));
	opener = fork_child();
	if (opener == 0) {
		int sfd;

		if (become_uid(1000, 1))
			_exit(20);
		sfd = session_open();
		if (sfd < 0)
			_exit(21);
		if (ioctl(sfd, MMAP3_IOC_SET_CAPTURE_USER, &cu) != -1)
			_exit(22);
		_exit(errno == EPERM ? 0 : 23);
	}
	ASSERT_EQ(opener, waitpid(opener, &status, 0));
	ASSERT_EQ(0, chown(MMAP3_DEVICE_PATH, 0, 0));
	EXPECT_EQ(0, WEXITSTATUS(status)) {
		TH_LOG("22: uid 1000 set another user's captures");
	}

	fd = session_for_user(&r, 1000);
	ASSERT_LE(0, fd);
	EXPECT_EQ(-1, ioctl(fd, MMAP3_IOC_SET_CAPTURE_USER, &cu));
	EXPECT_EQ(EBUSY, errno);
	rootfd = capture_session_open(&rr);
	ASSERT_LE(0, rootfd);

	/*
	 * Root runs its program, its memfd and the public one; uid 2000 its
	 * own; uid 1000 the execute-only one and its own.
	 */
	for (i = 0; i < 6; i++) {
		kids[i] = fork_child();
		if (kids[i] == 0) {
			if ((i == 1 && become_uid(2000, 0)) || ((i == 3 || i == 4) && become_uid(1000, 0)))
				_exit(30);
			if (i == 2)
				execl("/selftests/memfd_exec", "memfd_exec", "rootmem",
				      "/selftests/spin_v6", "3000", (char *)NULL);
			else
				execl(progs[i], "prog", "3000", (char *)NULL);
			_exit(31);
		}
	}
	for (i = 0; i < 6; i++)
		EXPECT_EQ(0, wait_exe(kids[i], progs[i]));
	for (n = 0; n < 100; n++) {
		ASSERT_EQ(0, flush_and_read(fd, &r));
		for (i = 0; i < 6; i++)
			if (!find_mmap_prefix(&r, kids[i], progs[i]))
				break;
		if (i == 6)
			break;
		usleep(100000);
	}
	for (i = 0; i < 4; i++) {
		m = find_mmap_prefix(&r, kids[i], progs[i]);
		ASSERT_NE(NULL, m);
		EXPECT_EQ(MMAP3_BUILDID_FOUND, m->build_id.status);
		if (!m->capture)
			continue;
		/* Offered (it may be, for a program uid 1000 runs): never read. */
		rd.handle = m->capture;
		rd.buf = (uintptr_t)got;
		rd.len = sizeof(got);
		EXPECT_EQ(-1, ioctl(fd, MMAP3_IOC_CAPTURE_READ, &rd)) {
			TH_LOG("uid 1000's captures read %s", progs[i]);
		}
		EXPECT_EQ(EACCES, errno);
	}
	for (i = 4; i < 6; i++) {
		m = find_mmap(&r, kids[i], progs[i], 0);
		ASSERT_NE(NULL, m);
		ASSERT_NE(0, m->capture) {
			TH_LOG("no handle for %s", progs[i]);
		}
		rd.handle = m->capture;
		rd.buf = (uintptr_t)got;
		rd.len = sizeof(got);
		EXPECT_LT(0, ioctl(fd, MMAP3_IOC_CAPTURE_READ, &rd));
		EXPECT_EQ(0, memcmp(got, "\177ELF", 4));
	}

	/* Root's own session: each offered, and read. */
	ASSERT_EQ(0, flush_and_read(rootfd, &rr));
	for (i = 0; i < 6; i++) {
		m = find_mmap_prefix(&rr, kids[i], progs[i]);
		ASSERT_NE(NULL, m);
		ASSERT_NE(0, m->capture);
		rd.handle = m->capture;
		EXPECT_LT(0, ioctl(rootfd, MMAP3_IOC_CAPTURE_READ, &rd));
	}
	kill_all(kids, 6);
	close(fd);
	close(rootfd);
	records_free(&r);
	records_free(&rr);
}

/*
 * CAPTURE_FORGET (ABI 2.4) gives a handle back and forgets its build-id:
 * the next mapping of that file is offered a handle again, where after
 * CAPTURE_RELEASE it is not (the session has it).
 */
TEST(capture_forget_offers_again)
{
	struct mmap3_record_mmap *m;
	struct records r = { };
	uint32_t handle;
	int fd, round;
	pid_t kid;

	fd = capture_session_open(&r);
	ASSERT_LE(0, fd);
	for (round = 0; round < 3; round++) {
		kid = fork_child();
		if (kid == 0) {
			execl("/selftests/spin_v5", "spin_v5", "10", (char *)NULL);
			_exit(31);
		}
		ASSERT_EQ(kid, waitpid(kid, NULL, 0));
		ASSERT_EQ(0, flush_and_read(fd, &r));
		m = find_mmap(&r, kid, "/selftests/spin_v5", 0);
		ASSERT_NE(NULL, m);
		handle = m->capture;
		if (round == 2) {
			/* Released, not forgotten: the session has it. */
			EXPECT_EQ(0, handle);
			break;
		}
		ASSERT_NE(0, handle) {
			TH_LOG("round %d: no handle", round);
		}
		if (round == 0) {
			EXPECT_EQ(0, ioctl(fd, MMAP3_IOC_CAPTURE_FORGET, &handle));
			EXPECT_EQ(-1, ioctl(fd, MMAP3_IOC_CAPTURE_FORGET, &handle));
			EXPECT_EQ(ENOENT, errno);
		} else {
			EXPECT_EQ(0, ioctl(fd, MMAP3_IOC_CAPTURE_RELEASE, &handle));
		}
	}
	close(fd);
	records_free(&r);
}

/*
 * A capture read whose filesystem stops answering returns ETIMEDOUT
 * after read_timeout_ms, and at once while that read is still stuck;
 * the bytes in the page cache still come, and other files' reads go on.
 */
TEST(capture_read_of_a_hung_file_times_out)
{
	struct mmap3_capture_read rd = { .size = sizeof(rd) };
	struct mmap3_record_mmap *m, *other;
	struct records r = { };
	static char got[1 << 20];
	uint8_t id[20];
	pid_t daemon;
	double t;
	int fd, f;

	mkdir(DIR, 0755);
	mkdir(DIR "/src", 0755);
	ASSERT_EQ(0, write_elf(DIR "/src/big", 1, 0, 0x52, 20, 256, id));
	ASSERT_EQ(0, truncate(DIR "/src/big", 2 << 20));
	ASSERT_EQ(0, write_elf(DIR "/plain", 1, 0, 0x53, 20, 256, NULL));
	/* The first READ answered (the first page), every later one hangs. */
	daemon = fusefs_start(DIR "/mnt", DIR "/src", "--hang-after 1");
	ASSERT_LT(0, daemon);
	f = open(DIR "/mnt/big", O_RDONLY);
	ASSERT_LE(0, f);
	ASSERT_EQ(0, posix_fadvise(f, 0, 0, POSIX_FADV_RANDOM));
	ASSERT_EQ(4096, pread(f, got, 4096, 0));
	close(f);

	fd = capture_session_open(&r);
	ASSERT_LE(0, fd);
	records_free(&r);
	ASSERT_NE(MAP_FAILED, map_exec(DIR "/mnt/big"));
	ASSERT_NE(MAP_FAILED, map_exec(DIR "/plain"));
	ASSERT_EQ(0, flush_and_read(fd, &r));
	m = find_mmap(&r, getpid(), DIR "/mnt/big", 0);
	other = find_mmap(&r, getpid(), DIR "/plain", 0);
	ASSERT_NE(NULL, m);
	ASSERT_NE(NULL, other);
	ASSERT_TRUE(build_id_is(&m->build_id, id, 20));
	ASSERT_NE(0, m->capture);

	rd.handle = m->capture;
	rd.buf = (uintptr_t)got;
	rd.len = 4096;
	EXPECT_EQ(4096, ioctl(fd, MMAP3_IOC_CAPTURE_READ, &rd));
	rd.len = sizeof(got);
	t = now_s();
	EXPECT_EQ(-1, ioctl(fd, MMAP3_IOC_CAPTURE_READ, &rd));
	EXPECT_EQ(ETIMEDOUT, errno);
	TH_LOG("a read of the hung file returned after %.1f s", now_s() - t);
	EXPECT_EQ(-1, ioctl(fd, MMAP3_IOC_CAPTURE_READ, &rd));
	EXPECT_EQ(ETIMEDOUT, errno);
	rd.len = 4096;
	EXPECT_EQ(4096, ioctl(fd, MMAP3_IOC_CAPTURE_READ, &rd));
	rd.handle = other->capture;
	rd.len = sizeof(got);
	EXPECT_LT(0, ioctl(fd, MMAP3_IOC_CAPTURE_READ, &rd));

	close(fd);
	records_free(&r);
	/* The stuck read holds the module until the daemon goes. */
	ASSERT_EQ(0, fusefs_stop_and_reload(daemon, DIR "/mnt", ""));
}

/*
 * Rewrite @path in place with the same ELF file but a build-id of @fill:
 * one write of the same size, no truncation.
 */
static int rewrite_in_place(const char *path, uint8_t fill, uint8_t *id)
{
	char buf[4096];
	int fd, ret = -1;
	ssize_t n;

	if (write_elf(DIR "/rewrite.tmp", 1, 0, fill, 20, 256, id))
		return -1;
	fd = open(DIR "/rewrite.tmp", O_RDONLY);
	n = fd < 0 ? -1 : read(fd, buf, sizeof(buf));
	if (fd >= 0)
		close(fd);
	fd = open(path, O_WRONLY);
	if (fd >= 0 && n > 0 && pwrite(fd, buf, n, 0) == n)
		ret = 0;
	if (fd >= 0)
		close(fd);
	return ret;
}

/*
 * A record's build-id is of the state its mtime names, and the record
 * says CHANGED when that is not the state the file was mapped in: a
 * program on ext2 (pages dropped) rewritten in place (one write, the
 * same size) while its read waits behind forty others of its filesystem
 * gets either its old id and mtime, unflagged, or the new ones with
 * CHANGED, never a mix.
 */
TEST(record_tells_a_change_during_its_read)
{
	struct mmap3_record_mmap *m;
	struct mmap3_stats st;
	struct records r = { };
	uint8_t old_id[20], new_id[20];
	struct stat before, after;
	uint64_t misses;
	char path[128];
	int fd, i, tries;

	ASSERT_EQ(0, ext2_mount());
	for (i = 0; i < 40; i++) {
		snprintf(path, sizeof(path), DIR "/disk/filler%d", i);
		ASSERT_EQ(0, write_elf(path, 1, 0, 0x90 + i, 20, 256, NULL));
	}
	ASSERT_EQ(0, write_elf(DIR "/disk/target", 1, 0, 0x31, 20, 256, old_id));
	sync();
	ASSERT_EQ(0, stat(DIR "/disk/target", &before));
	ASSERT_EQ(0, write_file("/proc/sys/vm/drop_caches", "3"));
	fd = session_open();
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, session_filter(fd, 0, 1, &(pid_t){ getpid() }));
	ASSERT_EQ(0, ioctl(fd, MMAP3_IOC_ENABLE));
	ASSERT_EQ(0, read_dump(fd, &r));
	records_free(&r);

	ASSERT_EQ(0, get_stats(fd, &st));
	misses = st.cache_misses;
	for (i = 0; i < 40; i++) {
		snprintf(path, sizeof(path), DIR "/disk/filler%d", i);
		ASSERT_NE(MAP_FAILED, map_exec(path));
	}
	ASSERT_NE(MAP_FAILED, map_exec(DIR "/disk/target"));
	/* Rewritten once the worker has handed the target's read over. */
	for (tries = 0; tries < 1000; tries++) {
		ASSERT_EQ(0, get_stats(fd, &st));
		if (st.cache_misses - misses >= 41)
			break;
		usleep(1000);
	}
	usleep(2000);
	ASSERT_EQ(0, rewrite_in_place(DIR "/disk/target", 0x32, new_id));
	ASSERT_EQ(0, stat(DIR "/disk/target", &after));
	ASSERT_EQ(0, flush_and_read(fd, &r));
	m = find_mmap(&r, getpid(), DIR "/disk/target", 0);
	ASSERT_NE(NULL, m);
	if (!(m->flags & MMAP3_MMAP_CHANGED)) {
		TH_LOG("read before the rewrite: the mapped file's id");
		EXPECT_TRUE(build_id_is(&m->build_id, old_id, 20)) {
			TH_LOG("status %u, not the mapped file's id, and no CHANGED",
			       m->build_id.status);
		}
		EXPECT_EQ(before.st_mtim.tv_sec, m->mtime_sec);
		EXPECT_EQ(before.st_mtim.tv_nsec, m->mtime_nsec);
	} else {
		TH_LOG("read after the rewrite: the new file's id, CHANGED");
		EXPECT_TRUE(build_id_is(&m->build_id, new_id, 20)) {
			TH_LOG("status %u", m->build_id.status);
		}
		EXPECT_EQ(after.st_mtim.tv_sec, m->mtime_sec);
		EXPECT_EQ(after.st_mtim.tv_nsec, m->mtime_nsec);
	}
	close(fd);
	records_free(&r);
	EXPECT_EQ(0, umount2(DIR "/disk", MNT_DETACH));
}

/*
 * Whatever the module reads of a file mapped through overlayfs is the
 * mapped inode.  A program of a lower layer on ext2 (its pages dropped)
 * is mapped through overlay A; while its read waits behind forty others
 * of its filesystem, A copies it up and rewrites it.  Its record carries
 * the lower file's id, and so do the same file mapped through overlay B
 * and directly: before 6.8 the mapped file has the overlay's path, and
 * the module's own open of that path would have read the upper file (and
 * cached its id under the lower inode).  A's file now is the upper one.
 */
TEST(overlay_reads_the_mapped_layer)
{
	struct mmap3_record_mmap *m;
	struct mmap3_stats st;
	struct records r = { };
	uint8_t lower_id[20], upper_id[20];
	char path[128];
	int fd, i, tries;

	ASSERT_EQ(0, ext2_mount());
	kernel_module("overlay");
	ASSERT_EQ(0, sh("cd " DIR "/disk && mkdir -p lower upA workA upB workB && "
			"mkdir -p " DIR "/ovA " DIR "/ovB"));
	for (i = 0; i < 40; i++) {
		snprintf(path, sizeof(path), DIR "/disk/filler%d", i);
		ASSERT_EQ(0, write_elf(path, 1, 0, 0x90 + i, 20, 256, NULL));
	}
	ASSERT_EQ(0, write_elf(DIR "/disk/lower/prog", 1, 0, 0x4c, 20, 256, lower_id));
	ASSERT_EQ(0, mount("overlay", DIR "/ovA", "overlay", 0,
			   "lowerdir=" DIR "/disk/lower,upperdir=" DIR "/disk/upA,workdir=" DIR
			   "/disk/workA"));
	ASSERT_EQ(0, mount("overlay", DIR "/ovB", "overlay", 0,
			   "lowerdir=" DIR "/disk/lower,upperdir=" DIR "/disk/upB,workdir=" DIR
			   "/disk/workB"));
	sync();
	ASSERT_EQ(0, write_file("/proc/sys/vm/drop_caches", "3"));
	fd = session_open();
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, session_filter(fd, 0, 1, &(pid_t){ getpid() }));
	ASSERT_EQ(0, ioctl(fd, MMAP3_IOC_ENABLE));
	ASSERT_EQ(0, read_dump(fd, &r));
	records_free(&r);

	for (i = 0; i < 40; i++) {
		snprintf(path, sizeof(path), DIR "/disk/filler%d", i);
		ASSERT_NE(MAP_FAILED, map_exec(path));
	}
	ASSERT_NE(MAP_FAILED, map_exec(DIR "/ovA/prog"));
	for (tries = 0; tries < 1000; tries++) {
		ASSERT_EQ(0, get_stats(fd, &st));
		if (st.reads_parked)
			break;
		usleep(1000);
	}
	/* Copied up, and rewritten there. */
	ASSERT_EQ(0, write_elf(DIR "/ovA/prog", 1, 0, 0x55, 20, 256, upper_id));
	ASSERT_EQ(0, flush_and_read(fd, &r));
	m = find_mmap(&r, getpid(), DIR "/ovA/prog", 0);
	ASSERT_NE(NULL, m);
	EXPECT_TRUE(build_id_is(&m->build_id, lower_id, 20)) {
		TH_LOG("through A: status %u, %s", m->build_id.status,
		       build_id_is(&m->build_id, upper_id, 20) ? "the upper file's id" : "");
	}
	records_free(&r);

	ASSERT_NE(MAP_FAILED, map_exec(DIR "/ovB/prog"));
	ASSERT_NE(MAP_FAILED, map_exec(DIR "/disk/lower/prog"));
	ASSERT_NE(MAP_FAILED, map_exec(DIR "/ovA/prog"));
	ASSERT_EQ(0, flush_and_read(fd, &r));
	m = find_mmap(&r, getpid(), DIR "/ovB/prog", 0);
	ASSERT_NE(NULL, m);
	EXPECT_TRUE(build_id_is(&m->build_id, lower_id, 20));
	m = find_mmap(&r, getpid(), DIR "/disk/lower/prog", 0);
	ASSERT_NE(NULL, m);
	EXPECT_TRUE(build_id_is(&m->build_id, lower_id, 20));
	/* The later mapping through A, of the upper file. */
	m = find_mmap(&r, getpid(), DIR "/ovA/prog", 0);
	ASSERT_NE(NULL, m);
	EXPECT_TRUE(build_id_is(&m->build_id, upper_id, 20));
	close(fd);
	records_free(&r);
	EXPECT_EQ(0, umount2(DIR "/ovA", MNT_DETACH));
	EXPECT_EQ(0, umount2(DIR "/ovB", MNT_DETACH));
	EXPECT_EQ(0, umount2(DIR "/disk", MNT_DETACH));
}

/*
 * A real-time process that maps a file and then keeps its CPU (SCHED_FIFO
 * 50, pinned, never sleeping, for 3 s) does not hold its record back: it
 * reaches the reader, on the other CPU, while the mapper still runs.  On
 * PREEMPT_RT the hook's hand-off ran in that CPU's irq_work thread
 * (SCHED_FIFO 1), and the worker's delay was a timer of that CPU, both
 * starved.
 */
TEST(records_come_while_a_realtime_mapper_runs)
{
	struct sched_param sp = { .sched_priority = 50 };
	struct pollfd pfd;
	struct records r = { };
	volatile int *state;
	int fd, still_running;
	pid_t c;

	mkdir(DIR, 0755);
	ASSERT_EQ(0, write_elf(DIR "/rt_mapped", 1, 0, 0x3a, 20, 256, NULL));
	state = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, state);
	ASSERT_EQ(0, pin_to_cpu(1));
	c = fork_child();
	if (c == 0) {
		double end;

		while (!state[1])
			usleep(1000);
		if (pin_to_cpu(0) || sched_setscheduler(0, SCHED_FIFO, &sp))
			_exit(1);
		state[0] = 1;
		if (map_exec(DIR "/rt_mapped") == MAP_FAILED)
			_exit(2);
		for (end = now_s() + 3; now_s() < end;)
			;
		state[0] = 2;
		_exit(0);
	}
	ASSERT_LT(0, c);
	fd = session_open();
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, session_filter(fd, 0, 1, &c));
	ASSERT_EQ(0, ioctl(fd, MMAP3_IOC_ENABLE));
	ASSERT_EQ(0, read_dump(fd, &r));
	records_free(&r);
	state[1] = 1;

	pfd = (struct pollfd){ .fd = fd, .events = POLLIN };
	EXPECT_EQ(1, poll(&pfd, 1, 10000));
	still_running = state[0] == 1;
	ASSERT_EQ(0, read_available(fd, &r));
	EXPECT_NE(NULL, find_mmap(&r, c, DIR "/rt_mapped", 0));
	EXPECT_TRUE(still_running) {
		TH_LOG("the record came only once the real-time mapper let its CPU go");
	}
	waitpid(c, NULL, 0);
	close(fd);
	records_free(&r);
}

/* How many of @pid's mappings are of @path, from /proc/PID/maps. */
static int count_maps(pid_t pid, const char *path)
{
	char name[64], line[512];
	size_t len = strlen(path);
	int n = 0;
	FILE *f;

	snprintf(name, sizeof(name), "/proc/%d/maps", pid);
	f = fopen(name, "re");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		char *nl = strchr(line, '\n');

		if (nl)
			*nl = 0;
		if (strlen(line) >= len && !strcmp(line + strlen(line) - len, path))
			n++;
	}
	fclose(f);
	return n;
}

/*
 * The dump does not wait for a process whose memory map stays locked
 * (held for writing 4 s, as by a writer stuck that long): it tries it
 * again at the end, then counts it skipped, and lost as many mappings as
 * it has memory areas, at least its 30 mappings of a file; before, a
 * skipped process counted one.
 */
TEST(dump_counts_a_locked_process_by_its_mappings)
{
	const char *ko = "/lib/mmap3/mmap3_test_module.ko";
	struct mmap3_record_dump_done *done = NULL;
	struct mmap3_record_header *h;
	struct mmap3_stats st;
	struct records r = { };
	char arg[64];
	pid_t holder, locker;
	int fd, i;

	mkdir(DIR, 0755);
	ASSERT_EQ(0, write_elf(DIR "/locked", 1, 0, 0x6c, 20, 256, NULL));
	load_ko(ko);
	holder = fork_child();
	if (holder == 0) {
		execl("/selftests/mapexec", "mapexec", "-n", "30", "-w", DIR "/locked",
		      (char *)NULL);
		_exit(127);
	}
	ASSERT_LT(0, holder);
	/* All 30 made before the lock is taken (the debug kernel is slow to). */
	for (i = 0; i < 1000 && count_maps(holder, DIR "/locked") < 30; i++)
		usleep(10000);
	ASSERT_EQ(30, count_maps(holder, DIR "/locked"));
	locker = fork_child();
	if (locker == 0) {
		snprintf(arg, sizeof(arg), "%d 4000", holder);
		_exit(write_file("/sys/module/mmap3_test_module/parameters/lock_mm", arg) ? 1 : 0);
	}
	ASSERT_LT(0, locker);
	usleep(200000);

	fd = session_open();
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, session_filter(fd, 0, 1, &holder));
	ASSERT_EQ(0, ioctl(fd, MMAP3_IOC_ENABLE));
	ASSERT_EQ(0, read_dump(fd, &r));
	for_each_record(&r, h)
		if (h->type == MMAP3_RECORD_DUMP_DONE)
			done = (void *)h;
	ASSERT_NE(NULL, done);
	EXPECT_EQ(1, done->tasks_skipped);
	ASSERT_EQ(0, get_stats(fd, &st));
	EXPECT_LE(30, st.lost_dump) {
		TH_LOG("a skipped process counted %llu lost", (unsigned long long)st.lost_dump);
	}
	waitpid(locker, NULL, 0);
	kill(holder, SIGKILL);
	waitpid(holder, NULL, 0);
	close(fd);
	records_free(&r);
	syscall(SYS_delete_module, "mmap3_test_module", O_NONBLOCK);
}

/*
 * A child that runs @step(@arg) and stays until held_release(): its
 * pid, and in *@said what @step returned ('m': done; else which step
 * failed, its errno lost with the child), or 0 if it died first.
 */
struct held {
	pid_t pid;
	int release;		/* closing it lets the child exit */
};

static char held_start(struct held *h, char (*step)(void *arg), void *arg)
{
	int up[2], down[2];
	char said = 0;

	h->pid = -1;
	if (pipe(up) || pipe(down))
		return 0;
	h->pid = fork_child();
	if (h->pid == 0) {
		close(up[0]);
		close(down[1]);
		said = step(arg);
		if (write(up[1], &said, 1) != 1 || read(down[0], &said, 1) < 0)
			_exit(1);
		_exit(0);
	}
	close(up[1]);
	close(down[0]);
	h->release = down[1];
	if (h->pid < 0 || read(up[0], &said, 1) != 1)
		said = 0;
	close(up[0]);
	return said;
}

/* Let the child exit and reap it: 0, or -1. */
static int held_release(struct held *h)
{
	close(h->release);
	return waitpid(h->pid, NULL, 0) == h->pid ? 0 : -1;
}

/* A container of one process: its own mounts, a file mapped from one. */
static char map_in_own_namespace(void *dev)
{
	return unshare(CLONE_NEWNS) ? 'u' :
	       mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) ? 'p' :
	       mount(dev, DIR "/nsmnt", "ext2", 0, NULL) ? 'M' :
	       write_elf(DIR "/nsmnt/prog", 1, 0, 0x5a, 20, 256, NULL) ? 'w' :
	       map_exec(DIR "/nsmnt/prog") == MAP_FAILED ? 'x' : 'm';
}

/*
 * A mount namespace the session saw is let go soon after its last
 * process is gone, while the session goes on: a container's filesystems
 * unmount as it exits, and their loop devices can be detached.  (The
 * cache of namespace ids held each /proc/PID/ns/mnt open until its slot
 * was needed or the last session ended: for ever, as far as this test
 * waits.)  The oracle: an exclusive open of the loop device, refused
 * (EBUSY) while a filesystem on it is mounted in any namespace.
 */
TEST_F_TIMEOUT(slow, mount_namespace_let_go_with_its_process, 120)
{
	int fd, bdev = -1, i;
	struct records r = { 0 };
	char dev[64] = "";
	struct held kid;
	FILE *p;

	mkdir(DIR, 0755);
	mkdir(DIR "/nsmnt", 0755);
	kernel_module("loop");
	kernel_module("ext4");
	ASSERT_EQ(0, sh("dd if=/dev/zero of=" DIR "/ns.img bs=1M count=8 2>/dev/null && "
			"mke2fs -F -q " DIR "/ns.img >/dev/null 2>&1"));
	p = popen("d=$(losetup -f) && losetup $d " DIR "/ns.img && echo $d", "r");
	ASSERT_NE(NULL, p);
	if (!fgets(dev, sizeof(dev), p))
		dev[0] = '\0';
	pclose(p);
	dev[strcspn(dev, "\n")] = '\0';
	ASSERT_NE('\0', dev[0]);
	fd = session_open();
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, ioctl(fd, MMAP3_IOC_ENABLE));
	ASSERT_EQ(0, read_dump(fd, &r));
	ASSERT_EQ('m', held_start(&kid, map_in_own_namespace, dev));
	/* Its record is out: the worker has looked at its namespace. */
	ASSERT_EQ(0, ioctl(fd, MMAP3_IOC_FLUSH));
	ASSERT_EQ(0, read_available(fd, &r));
	EXPECT_NE(NULL, find_mmap(&r, kid.pid, DIR "/nsmnt/prog", 0));
	ASSERT_EQ(0, held_release(&kid));
	/* The sweep runs each second; 30 s is for a loaded machine, not a bound measured. */
	for (i = 0; i < 300 && bdev < 0; i++) {
		bdev = open(dev, O_RDONLY | O_EXCL | O_CLOEXEC);
		if (bdev < 0)
			usleep(100000);
	}
	EXPECT_LE(0, bdev) {
		TH_LOG("%s still mounted %.1f s after its namespace's last process exited",
		       dev, i / 10.0);
	}
	if (bdev >= 0)
		close(bdev);
	close(fd);
	records_free(&r);
	ASSERT_EQ(0, sh("for d in $(losetup -a | grep " DIR "/ns.img | cut -d: -f1); do "
			"losetup -d $d; done; rm -f " DIR "/ns.img"));
}

/* An flock on DIR/locked, and 400 mappings of it through that open file. */
static char lock_and_map(void *unused)
{
	int f = open(DIR "/locked", O_RDWR | O_CLOEXEC), i;

	(void)unused;
	if (f < 0 || flock(f, LOCK_EX))
		return 'l';
	for (i = 0; i < 400; i++)
		if (mmap(NULL, 4096, PROT_READ | PROT_EXEC, MAP_PRIVATE, f, 0) == MAP_FAILED)
			return 'x';
	return 'm';
}

/*
 * A reader that stops reading does not keep what the dump took: a
 * process holds an flock on the file it maps 400 times through that
 * open file; a session of a 64 KiB buffer, filtered to it, is enabled
 * and never read, so its dump waits for room with the process's files
 * taken.  The process exits; within the dump's stall bound (10 s)
 * another open of the file can take the lock.  Before, the dump waited
 * for room as long as the session lived, and the exited process's lock
 * with it.
 */
TEST_F_TIMEOUT(slow, dump_lets_go_for_a_stalled_reader, 120)
{
	struct mmap3_stats st;
	int fd, i, lk = -1, locked = 0;
	struct held kid;

	mkdir(DIR, 0755);
	ASSERT_EQ(0, write_elf(DIR "/locked", 1, 0, 0x5b, 20, 4096, NULL));
	ASSERT_EQ('m', held_start(&kid, lock_and_map, NULL));
	fd = session_open();
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, ioctl(fd, MMAP3_IOC_SET_BUFFER_SIZE, &(uint64_t){ 64 << 10 }));
	ASSERT_EQ(0, session_filter(fd, 0, 1, &kid.pid));
	ASSERT_EQ(0, ioctl(fd, MMAP3_IOC_ENABLE));
	sleep(2);		/* the dump has filled the buffer, and waits */
	ASSERT_EQ(0, held_release(&kid));
	for (i = 0; i < 60 && !locked; i++) {
		lk = open(DIR "/locked", O_RDONLY | O_CLOEXEC);
		ASSERT_LE(0, lk);
		locked = !flock(lk, LOCK_EX | LOCK_NB);
		close(lk);
		if (!locked)
			usleep(500000);
	}
	EXPECT_TRUE(locked) {
		TH_LOG("the exited process's lock still held %d s later", i / 2);
	}
	/* What did not fit is counted. */
	ASSERT_EQ(0, get_stats(fd, &st));
	EXPECT_LT(0, st.lost_buffer);
	close(fd);
	unlink(DIR "/locked");
}

/*
 * A FUSE daemon chooses its files' inode numbers, generations and times,
 * and a filesystem mounted again may find the freed superblock's address
 * and anonymous device number.  Mounted eight times, in turn over two
 * files of one size with the same numbers and times and other build-ids,
 * each mount's file gets its own id, never the one cached for the mount
 * before it.
 */
TEST(fuse_mounted_again_gets_no_stale_build_id)
{
	struct mmap3_record_mmap *m;
	struct records r = { };
	uint8_t id[2][20];
	unsigned int same_dev = 0;
	dev_t last = 0;
	struct stat st;
	pid_t daemon;
	int fd, i, again;
	void *p;

	mkdir(DIR, 0755);
	mkdir(DIR "/srcA", 0755);
	mkdir(DIR "/srcB", 0755);
	ASSERT_EQ(0, write_elf(DIR "/srcA/lib", 1, 0, 0xa1, 20, 256, id[0]));
	ASSERT_EQ(0, write_elf(DIR "/srcB/lib", 1, 0, 0xb2, 20, 256, id[1]));
	fd = own_session_open();
	ASSERT_LE(0, fd);
	for (i = 0; i < 8; i++) {
		daemon = fusefs_start(DIR "/mnt", i % 2 ? DIR "/srcB" : DIR "/srcA",
				      "--gen 7 --time 1000000");
		ASSERT_LT(0, daemon);
		ASSERT_EQ(0, stat(DIR "/mnt/lib", &st));
		again = i && st.st_dev == last;
		same_dev += again;
		last = st.st_dev;
		p = map_exec(DIR "/mnt/lib");
		ASSERT_NE(MAP_FAILED, p);
		ASSERT_EQ(0, flush_and_read(fd, &r));
		m = find_mmap(&r, getpid(), DIR "/mnt/lib", 0);
		ASSERT_NE(NULL, m);
		EXPECT_TRUE(build_id_is(&m->build_id, id[i % 2], 20)) {
			TH_LOG("mount %d (%s device as the mount before): %s", i + 1,
			       again ? "the same" : "another",
			       build_id_is(&m->build_id, id[!(i % 2)], 20) ?
			       "the other file's id, cached for the mount before" : "not its id");
		}
		munmap(p, 4096);
		records_free(&r);
		fusefs_stop(daemon, DIR "/mnt");
		/* The superblock is freed after a grace period: let the next find it. */
		usleep(100000);
	}
	ksft_print_msg("%u of 7 mounts had the device number of the mount before\n", same_dev);
	close(fd);
}

/* The huge page size from /proc/meminfo, in bytes; 0 if none. */
static unsigned long huge_page_size(void)
{
	FILE *f = fopen("/proc/meminfo", "re");
	unsigned long kb = 0;
	char line[128];

	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "Hugepagesize: %lu kB", &kb) == 1)
			break;
	if (f)
		fclose(f);
	return kb << 10;
}

/*
 * A file of hugetlbfs, its build-id note in its first huge page past the
 * first small page, and a decoy note where the third huge page begins.
 * Before 6.7 hugetlbfs's page cache was indexed by huge page, so a
 * lookup of the note's small page found the decoy's: the module must
 * read the file, not its page cache, and give the real id.
 */
TEST(hugetlbfs_file_gives_its_own_build_id)
{
	uint8_t id[20], decoy[20];
	struct mmap3_record_mmap *m;
	unsigned long hp = huge_page_size();
	struct records r = { };
	struct elf e;
	int fd, f;
	void *p;

	if (!hp)
		SKIP(return, "no huge pages in this kernel");
	mkdir(DIR, 0755);
	mkdir(DIR "/huge", 0755);
	if (mount("none", DIR "/huge", "hugetlbfs", 0, NULL))
		SKIP(return, "no hugetlbfs: %s", strerror(errno));
	if (write_file("/proc/sys/vm/nr_hugepages", "3")) {
		umount(DIR "/huge");
		SKIP(return, "cannot reserve 3 huge pages");
	}
	memset(id, 0x4e, sizeof(id));
	memset(decoy, 0xd0, sizeof(decoy));
	e = new_elf(1, 0, 1, 0);
	add_ph(&e, 0, 4, 8192, add_buildid(&e, 8192, id, 20, 4) - 8192, 4);
	add_buildid(&e, 2 * hp, decoy, 20, 4);
	f = open(DIR "/huge/elf", O_RDWR | O_CREAT | O_CLOEXEC, 0755);
	ASSERT_LE(0, f);
	ASSERT_EQ(0, ftruncate(f, (off_t)(3 * hp)));
	p = mmap(NULL, 3 * hp, PROT_READ | PROT_WRITE, MAP_SHARED, f, 0);
	if (p == MAP_FAILED) {
		close(f);
		unlink(DIR "/huge/elf");
		umount(DIR "/huge");
		SKIP(return, "no 3 huge pages free: %s", strerror(errno));
	}
	memcpy(p, e.buf, e.size);
	munmap(p, 3 * hp);
	close(f);
	free(e.buf);

	fd = own_session_open();
	ASSERT_LE(0, fd);
	/* Shared: a private mapping would reserve a huge page the file holds. */
	f = open(DIR "/huge/elf", O_RDONLY | O_CLOEXEC);
	ASSERT_LE(0, f);
	p = mmap(NULL, hp, PROT_READ | PROT_EXEC, MAP_SHARED, f, 0);
	close(f);
	ASSERT_NE(MAP_FAILED, p);
	ASSERT_EQ(0, flush_and_read(fd, &r));
	m = find_mmap(&r, getpid(), DIR "/huge/elf", 0);
	ASSERT_NE(NULL, m);
	EXPECT_EQ(MMAP3_BUILDID_FOUND, m->build_id.status);
	EXPECT_TRUE(build_id_is(&m->build_id, id, 20)) {
		TH_LOG("not the file's build-id%s",
		       build_id_is(&m->build_id, decoy, 20) ? ": the decoy's, a huge page away" : "");
	}
	munmap(p, hp);
	records_free(&r);
	close(fd);
	unlink(DIR "/huge/elf");
	umount(DIR "/huge");
	write_file("/proc/sys/vm/nr_hugepages", "0");
}

#define FTRACE_ENABLED	"/proc/sys/kernel/ftrace_enabled"

/* Sets kernel.ftrace_enabled; its teardown, in the parent, puts it back. */
FIXTURE(ftrace_sysctl) {
	int unused;
};

FIXTURE_SETUP(ftrace_sysctl)
{
	if (access(FTRACE_ENABLED, W_OK))
		SKIP(return, "no %s: a kernel without function tracing", FTRACE_ENABLED);
}

FIXTURE_TEARDOWN_PARENT(ftrace_sysctl)
{
	write_file(FTRACE_ENABLED, "1");
	write_file(PROBE_GRACE, "2000");
}

/*
 * kernel.ftrace_enabled=0 stops the kernel calling ftrace_ops, and
 * kprobes on an ftrace site: a hook that is one must refuse it (the
 * sysctl write, or the session's ENABLE, fails with EBUSY) rather than
 * let its records stop with no LOST record.  Where the hook does not go
 * through ftrace (an int3 or BRK kprobe), records simply keep coming.
 */
TEST_F(ftrace_sysctl, ftrace_disabled_loses_nothing_silently)
{
	int fd, ret, err, recorded = 0;

	mkdir(DIR, 0755);
	ASSERT_EQ(0, write_elf(DIR "/ftrace_off", 1, 0, 0x5f, 20, 256, NULL));

	/* (1) Turned off under an enabled session. */
	fd = session_open();
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, session_filter(fd, 0, 1, &(pid_t){ getpid() }));
	ASSERT_EQ(0, ioctl(fd, MMAP3_IOC_ENABLE));
	ret = write_file(FTRACE_ENABLED, "0");
	err = errno;
	if (!ret)
		recorded = session_records_a_mapping(fd, DIR "/ftrace_off");
	write_file(FTRACE_ENABLED, "1");
	close(fd);
	ksft_print_msg("ftrace_enabled=0 under a session: %s\n",
		       ret ? strerror(err) : recorded ? "taken, records came" : "taken, no record");
	if (ret) {
		EXPECT_EQ(EBUSY, err) {
			TH_LOG("writing 0 to %s: %s, expected EBUSY", FTRACE_ENABLED,
			       strerror(err));
		}
	} else {
		EXPECT_TRUE(recorded) {
			TH_LOG("ftrace_enabled=0 was taken, then a mapping gave no record");
		}
	}

	/* (2) Already off when a session arms the hook. */
	ASSERT_EQ(0, write_file(PROBE_GRACE, "0"));
	ASSERT_TRUE(probe_becomes(0)) {
		TH_LOG("perf_event_mmap is still patched after the last session");
	}
	ASSERT_EQ(0, write_file(FTRACE_ENABLED, "0")) {
		TH_LOG("writing 0 to %s with no session: %s", FTRACE_ENABLED, strerror(errno));
	}
	fd = session_open();
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, session_filter(fd, 0, 1, &(pid_t){ getpid() }));
	ret = ioctl(fd, MMAP3_IOC_ENABLE);
	err = errno;
	recorded = 0;
	if (!ret)
		recorded = session_records_a_mapping(fd, DIR "/ftrace_off");
	close(fd);
	write_file(FTRACE_ENABLED, "1");
	ksft_print_msg("ENABLE with ftrace_enabled=0: %s\n",
		       ret ? strerror(err) : recorded ? "done, records came" : "done, no record");
	if (ret) {
		EXPECT_EQ(EBUSY, err) {
			TH_LOG("ENABLE with ftrace_enabled=0: %s, expected EBUSY", strerror(err));
		}
	} else {
		EXPECT_TRUE(recorded) {
			TH_LOG("a session enabled with ftrace_enabled=0 did not record a mapping");
		}
	}
}

/* A module parameter's value, or "" if it has none (not a test build). */
static void param_value(const char *name, char *buf, size_t size)
{
	char path[128];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/sys/module/mmap3/parameters/%s", name);
	buf[0] = '\0';
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	n = read(fd, buf, size - 1);
	close(fd);
	buf[n > 0 ? n : 0] = '\0';
}

/*
 * The keys of the cache's and the build-id table's hashes are drawn at
 * each load: a key never drawn (all zero) would hash alike on every load,
 * and any user could choose inode numbers or build-ids sharing a chain.
 * Test builds show the hash of 0 under each key; two loads must differ
 * (alike by chance: 2^-32 and 2^-64).
 */
TEST(hash_keys_drawn_at_each_load)
{
	char cache1[32], id1[32], cache2[32], id2[32];

	param_value("test_cache_key_probe", cache1, sizeof(cache1));
	param_value("test_id_key_probe", id1, sizeof(id1));
	if (!cache1[0] || !id1[0])
		SKIP(return, "not a test build of the module: no key probes");
	ASSERT_EQ(0, reload_mmap3(""));
	param_value("test_cache_key_probe", cache2, sizeof(cache2));
	param_value("test_id_key_probe", id2, sizeof(id2));
	ASSERT_NE(0, cache2[0]);
	EXPECT_STRNE(cache1, cache2) {
		TH_LOG("the cache's key hashed 0 to %s on two loads", cache1);
	}
	EXPECT_STRNE(id1, id2) {
		TH_LOG("the build-id table's key hashed 0 to %s on two loads", id1);
	}
}

TEST_HARNESS_MAIN
