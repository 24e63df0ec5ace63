// SPDX-License-Identifier: GPL-2.0
/*
 * Records exactly right: the build-id of what was mapped in every
 * interleaving of the worker, records consistent with themselves, every
 * loss counted in the session's clock, paths too long for PATH_MAX, and
 * kernel facts taken from the kernel, not from the caller's namespace,
 * and filters that name processes, not pid numbers.
 *
 * Runs as root inside a test VM with the module loaded ($MMAP3_KO), built
 * with the test hooks (tests/vm/build-module).
 */
#include <sched.h>
#include <signal.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>

#include <poll.h>

#include "kselftest_harness.h"
#include "session.h"

#define DIR "/tmp/exact_test"

/* A child on @cpu that maps @path once, then waits to be killed. */
static pid_t map_on_cpu(int cpu, const char *path)
{
	pid_t pid = fork_child();

	if (pid == 0) {
		if (pin_to_cpu(cpu) || map_exec(path) == MAP_FAILED)
			_exit(1);
		pause();
		_exit(0);
	}
	usleep(100000);
	return pid;
}

static void reap(pid_t pid)
{
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
}

/*
 * P maps F in state S1 on CPU 1; F is rewritten (S2); Q maps F on CPU 0.
 * The worker, held back, drains CPU 0 first: Q's mapping reads S2 and
 * caches it, then P's is looked up with S1.  P must get the id of what it
 * mapped, with S1's mtime, and Q's entry must stay.
 */
TEST(older_event_neither_evicts_nor_misreads_a_newer_state)
{
	struct mmap3_stats s0, s1;
	struct mmap3_record_mmap *m;
	struct records r = { };
	struct stat st1, st2;
	uint8_t a[20], b[20];
	pid_t p, q;
	int fd;

	mkdir(DIR, 0755);
	ASSERT_EQ(0, write_elf(DIR "/f", 1, 0, 0xa1, 20, 256, a));
	ASSERT_EQ(0, stat(DIR "/f", &st1));
	fd = session_open();
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, ioctl(fd, MMAP3_IOC_ENABLE));
	ASSERT_EQ(0, read_dump(fd, &r));
	/* S1 is known: a first mapping read it. */
	ASSERT_NE(MAP_FAILED, map_exec(DIR "/f"));
	ASSERT_EQ(0, flush_and_read(fd, &r));
	records_free(&r);
	ASSERT_EQ(0, get_stats(fd, &s0));

	ASSERT_EQ(0, set_worker_delay("1000"));
	p = map_on_cpu(1, DIR "/f");
	usleep(20000);
	ASSERT_EQ(0, write_elf(DIR "/f", 1, 0, 0xb2, 20, 256, b));
	ASSERT_EQ(0, stat(DIR "/f", &st2));
	q = map_on_cpu(0, DIR "/f");
	ASSERT_EQ(0, flush_and_read(fd, &r));
	ASSERT_EQ(0, set_worker_delay("0"));
	ASSERT_EQ(0, get_stats(fd, &s1));

	m = find_mmap(&r, q, DIR "/f", 0);
	ASSERT_NE(NULL, m);
	EXPECT_TRUE(build_id_is(&m->build_id, b, 20));
	EXPECT_FALSE(m->flags & MMAP3_MMAP_CHANGED);
	EXPECT_EQ(st2.st_mtim.tv_sec, m->mtime_sec);
	EXPECT_EQ(st2.st_mtim.tv_nsec, m->mtime_nsec);
	m = find_mmap(&r, p, DIR "/f", 0);
	ASSERT_NE(NULL, m);
	EXPECT_TRUE(build_id_is(&m->build_id, a, 20));
	EXPECT_FALSE(m->flags & MMAP3_MMAP_CHANGED);
	/* The mtime of the state whose id it carries. */
	EXPECT_EQ(st1.st_mtim.tv_sec, m->mtime_sec);
	EXPECT_EQ(st1.st_mtim.tv_nsec, m->mtime_nsec);
	EXPECT_EQ(s0.cache_invalidations, s1.cache_invalidations);
	/* S2 read once, by Q; P was served from the cache. */
	EXPECT_EQ(s0.parse[MMAP3_BUILDID_FOUND] + 1, s1.parse[MMAP3_BUILDID_FOUND]);
	reap(p);
	reap(q);
	close(fd);
	records_free(&r);
}

/* The same order for a file never seen in S1: P's record says CHANGED. */
TEST(unseen_state_gets_the_current_id_flagged_changed)
{
	struct mmap3_stats s0, s1;
	struct mmap3_record_mmap *m;
	struct records r = { };
	uint8_t b[20];
	pid_t p, q;
	int fd;

	mkdir(DIR, 0755);
	ASSERT_EQ(0, write_elf(DIR "/g", 1, 0, 0xc3, 20, 256, NULL));
	fd = session_open();
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, ioctl(fd, MMAP3_IOC_ENABLE));
	ASSERT_EQ(0, read_dump(fd, &r));
	records_free(&r);
	ASSERT_EQ(0, get_stats(fd, &s0));
	ASSERT_EQ(0, set_worker_delay("1000"));
	p = map_on_cpu(1, DIR "/g");
	usleep(20000);
	ASSERT_EQ(0, write_elf(DIR "/g", 1, 0, 0xd4, 20, 256, b));
	q = map_on_cpu(0, DIR "/g");
	ASSERT_EQ(0, flush_and_read(fd, &r));
	ASSERT_EQ(0, set_worker_delay("0"));
	ASSERT_EQ(0, get_stats(fd, &s1));
	m = find_mmap(&r, q, DIR "/g", 0);
	ASSERT_NE(NULL, m);
	EXPECT_TRUE(build_id_is(&m->build_id, b, 20));
	m = find_mmap(&r, p, DIR "/g", 0);
	ASSERT_NE(NULL, m);
	EXPECT_TRUE(build_id_is(&m->build_id, b, 20));
	EXPECT_TRUE(m->flags & MMAP3_MMAP_CHANGED);
	/* Read once: P took Q's entry, evicting nothing. */
	EXPECT_EQ(s0.parse[MMAP3_BUILDID_FOUND] + 1, s1.parse[MMAP3_BUILDID_FOUND]);
	EXPECT_EQ(s0.cache_invalidations, s1.cache_invalidations);
	reap(p);
	reap(q);
	close(fd);
	records_free(&r);
}

/* While two processes map as fast as they can, KERNEL is still first. */
TEST(kernel_record_first_under_load)
{
	struct mmap3_record_header *h;
	pid_t storm[2];
	int i, fd;

	mkdir(DIR, 0755);
	ASSERT_EQ(0, write_elf(DIR "/storm", 1, 0, 0xe5, 20, 256, NULL));
	for (i = 0; i < 2; i++) {
		storm[i] = fork_child();
		if (storm[i] == 0) {
			pin_to_cpu(i);
			for (;;)
				munmap(map_exec(DIR "/storm"), 4096);
		}
	}
	for (i = 0; i < 10; i++) {
		struct records r = { };

		fd = session_open();
		ASSERT_LE(0, fd);
		ASSERT_EQ(0, ioctl(fd, MMAP3_IOC_ENABLE));
		ASSERT_EQ(0, read_dump(fd, &r));
		h = (void *)r.buf;
		EXPECT_EQ(MMAP3_RECORD_KERNEL, h->type);
		close(fd);
		records_free(&r);
	}
	reap(storm[0]);
	reap(storm[1]);
}

/*
 * A module unloaded while the dump runs: the dump's LOAD record has the
 * time it looked, before the live UNLOAD (the test build's
 * test_dump_delay_ms holds the dump back after it looked).
 */
TEST(dumped_module_sorts_before_its_unload)
{
	const char *ko = "/lib/mmap3/mmap3_test_module.ko";
	struct mmap3_record_header *h;
	struct records r = { };
	uint64_t load = 0, unload = 0;
	int fd;

	ASSERT_EQ(0, load_ko(ko));
	ASSERT_EQ(0, write_file("/sys/module/mmap3/parameters/test_dump_delay_ms", "500"));
	fd = session_open();
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, ioctl(fd, MMAP3_IOC_ENABLE));
	usleep(100000);
	ASSERT_EQ(0, syscall(SYS_delete_module, "mmap3_test_module", O_NONBLOCK));
	ASSERT_EQ(0, read_dump(fd, &r));
	write_file("/sys/module/mmap3/parameters/test_dump_delay_ms", "0");
	for_each_record(&r, h) {
		struct mmap3_record_module *m = (void *)h;

		if (h->type != MMAP3_RECORD_MODULE_LOAD && h->type != MMAP3_RECORD_MODULE_UNLOAD)
			continue;
		if (strcmp(m->name, "mmap3_test_module"))
			continue;
		if (h->type == MMAP3_RECORD_MODULE_LOAD && (m->flags & MMAP3_MODULE_DUMP))
			load = h->time;
		if (h->type == MMAP3_RECORD_MODULE_UNLOAD)
			unload = h->time;
	}
	ASSERT_NE(0, load);
	ASSERT_NE(0, unload);
	EXPECT_LT(load, unload);
	close(fd);
	records_free(&r);
}

/*
 * A session opened in a chroot: dumped and live records name files from
 * the same root, the initial one; kernel addresses follow the real
 * kptr_restrict, not a file planted in the chroot.
 */
TEST(chrooted_opener_sees_the_initial_root)
{
	struct stat dev;
	int status, fd;
	pid_t c;

	mkdir(DIR, 0755);
	mkdir(DIR "/root", 0755);
	mkdir(DIR "/root/dev", 0755);
	mkdir(DIR "/root/proc", 0755);
	mkdir(DIR "/root/proc/sys", 0755);
	mkdir(DIR "/root/proc/sys/kernel", 0755);
	fd = open(DIR "/root/proc/sys/kernel/kptr_restrict", O_WRONLY | O_CREAT | O_TRUNC, 0644);
	ASSERT_LE(0, fd);
	ASSERT_EQ(2, write(fd, "0\n", 2));
	close(fd);
	ASSERT_EQ(0, stat(MMAP3_DEVICE_PATH, &dev));
	unlink(DIR "/root/dev/mmap3");
	ASSERT_EQ(0, mknod(DIR "/root/dev/mmap3", S_IFCHR | 0600, dev.st_rdev));
	ASSERT_EQ(0, write_elf(DIR "/root/lib", 1, 0, 0xf6, 20, 256, NULL));
	ASSERT_EQ(0, write_file("/proc/sys/kernel/kptr_restrict", "2"));

	c = fork_child();
	if (c == 0) {
		struct mmap3_record_mmap *dumped, *live;
		struct mmap3_record_header *h;
		struct records r = { };
		int fd;

		if (chroot(DIR "/root") || chdir("/") || map_exec("/lib") == MAP_FAILED)
			_exit(10);
		fd = session_open();
		if (fd < 0 || session_filter(fd, 0, 1, &(pid_t){ getpid() }) ||
		    ioctl(fd, MMAP3_IOC_ENABLE) || read_dump(fd, &r))
			_exit(11);
		if (map_exec("/lib") == MAP_FAILED || flush_and_read(fd, &r))
			_exit(12);
		dumped = find_mmap(&r, 0, DIR "/root/lib", 1);
		live = find_mmap(&r, 0, DIR "/root/lib", 0);
		for_each_record(&r, h)
			if (h->type == MMAP3_RECORD_MMAP)
				fprintf(stderr, "# record: %s%s\n", ((struct mmap3_record_mmap *)h)->path,
					((struct mmap3_record_mmap *)h)->flags & MMAP3_MMAP_DUMP ?
					" (dump)" : "");
		if (!dumped)
			_exit(13);
		if (!live)
			_exit(14);
		for_each_record(&r, h)
			if (h->type == MMAP3_RECORD_MODULE_LOAD &&
			    ((struct mmap3_record_module *)h)->text_addr)
				_exit(15);
		_exit(0);
	}
	ASSERT_EQ(c, waitpid(c, &status, 0));
	write_file("/proc/sys/kernel/kptr_restrict", "1");
	EXPECT_TRUE(WIFEXITED(status));
	EXPECT_EQ(0, WEXITSTATUS(status));
}

/* insmod from a chroot without /sys: the kernel's build-id is still read. */
TEST(kernel_build_id_read_from_the_initial_namespace)
{
	struct mmap3_record_kernel *k;
	struct records r = { };
	int status, fd;
	pid_t c;

	mkdir(DIR, 0755);
	mkdir(DIR "/empty", 0755);
	ASSERT_EQ(0, syscall(SYS_delete_module, "mmap3", O_NONBLOCK));
	c = fork_child();
	if (c == 0) {
		int ko = open(getenv("MMAP3_KO"), O_RDONLY | O_CLOEXEC);

		if (ko < 0 || chroot(DIR "/empty") || chdir("/"))
			_exit(10);
		_exit(syscall(SYS_finit_module, ko, "", 0) ? 11 : 0);
	}
	ASSERT_EQ(c, waitpid(c, &status, 0));
	ASSERT_EQ(0, WEXITSTATUS(status));
	fd = session_open();
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, ioctl(fd, MMAP3_IOC_ENABLE));
	ASSERT_EQ(0, read_dump(fd, &r));
	k = (void *)r.buf;
	ASSERT_EQ(MMAP3_RECORD_KERNEL, k->header.type);
	EXPECT_EQ(MMAP3_BUILDID_FOUND, k->build_id.status);
	EXPECT_EQ(20, k->build_id.size);
	close(fd);
	records_free(&r);
}

/*
 * The hook's queue overflows and the session is disabled right after:
 * its last records were lost, so it ends with a LOST record, stamped in
 * its clock, and mapped + lost is every mapping.
 */
TEST(last_losses_end_the_session_in_its_clock)
{
	const int n = 100;
	struct mmap3_record_header *h, *last = NULL;
	struct records r = { };
	struct timespec t0, t1;
	uint64_t mapped = 0, lost = 0;
	int fd, i;

	mkdir(DIR, 0755);
	ASSERT_EQ(0, write_elf(DIR "/q", 1, 0, 0x17, 20, 256, NULL));
	ASSERT_EQ(0, reload_mmap3("queue_len=16"));
	fd = session_open();
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, session_filter(fd, 0, 1, &(pid_t){ getpid() }));
	ASSERT_EQ(0, ioctl(fd, MMAP3_IOC_SET_CLOCK, &(int){ CLOCK_MONOTONIC }));
	ASSERT_EQ(0, ioctl(fd, MMAP3_IOC_ENABLE));
	ASSERT_EQ(0, read_dump(fd, &r));
	records_free(&r);
	/* The worker sleeps through all of them: all but 16 are lost. */
	ASSERT_EQ(0, set_worker_delay("3000"));
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (i = 0; i < n; i++)
		munmap(map_exec(DIR "/q"), 4096);
	ASSERT_EQ(0, ioctl(fd, MMAP3_IOC_DISABLE));
	clock_gettime(CLOCK_MONOTONIC, &t1);
	ASSERT_EQ(0, set_worker_delay("0"));
	ASSERT_EQ(0, read_available(fd, &r));
	for_each_record(&r, h) {
		if (h->type == MMAP3_RECORD_LOST)
			lost += ((struct mmap3_record_lost *)h)->lost;
		if (h->type == MMAP3_RECORD_MMAP && !strcmp(((struct mmap3_record_mmap *)h)->path,
							    DIR "/q"))
			mapped++;
		last = h;
	}
	ASSERT_NE(NULL, last);
	EXPECT_EQ(MMAP3_RECORD_LOST, last->type);
	EXPECT_LT(0, lost);
	EXPECT_EQ((uint64_t)n, mapped + lost);
	EXPECT_LE(t0.tv_sec * 1000000000ull + t0.tv_nsec, last->time);
	EXPECT_GE(t1.tv_sec * 1000000000ull + t1.tv_nsec, last->time);
	close(fd);
	records_free(&r);
	ASSERT_EQ(0, reload_mmap3(""));
}

/* A path longer than PATH_MAX: the record comes, with the file's name. */
TEST(path_longer_than_path_max_is_flagged)
{
	struct mmap3_record_mmap *m;
	struct records r = { };
	char name[250];
	int dir, i, fd, f;
	void *p;

	mkdir(DIR, 0755);
	memset(name, 'd', sizeof(name) - 1);
	name[sizeof(name) - 1] = '\0';
	dir = open(DIR, O_RDONLY | O_DIRECTORY);
	ASSERT_LE(0, dir);
	for (i = 0; i < 20; i++) {
		int next;

		mkdirat(dir, name, 0755);
		next = openat(dir, name, O_RDONLY | O_DIRECTORY);
		ASSERT_LE(0, next);
		close(dir);
		dir = next;
	}
	f = openat(dir, "deep", O_RDWR | O_CREAT | O_TRUNC, 0755);
	ASSERT_LE(0, f);
	ASSERT_EQ(0, ftruncate(f, 4096));
	fd = session_open();
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, session_filter(fd, 0, 1, &(pid_t){ getpid() }));
	ASSERT_EQ(0, ioctl(fd, MMAP3_IOC_ENABLE));
	ASSERT_EQ(0, read_dump(fd, &r));
	p = mmap(NULL, 4096, PROT_READ | PROT_EXEC, MAP_PRIVATE, f, 0);
	ASSERT_NE(MAP_FAILED, p);
	ASSERT_EQ(0, flush_and_read(fd, &r));
	m = find_mmap(&r, getpid(), "deep", 0);
	ASSERT_NE(NULL, m);
	EXPECT_TRUE(m->flags & MMAP3_MMAP_PATH_TRUNCATED);
	EXPECT_EQ(MMAP3_BUILDID_NOT_ELF, m->build_id.status);
	munmap(p, 4096);
	close(f);
	close(dir);
	close(fd);
	records_free(&r);
}

/* Are the @len bytes at @p all zero? */
static int all_zero(const void *p, size_t len)
{
	const uint8_t *b = p;

	while (len--)
		if (*b++)
			return 0;
	return 1;
}

/*
 * Map @path @n times, reading the records every 16 (no loss in a 64 KiB
 * buffer); the records are appended to @r.
 */
static int map_many(int fd, const char *path, int n, struct records *r)
{
	int i;

	for (i = 0; i < n; i++) {
		void *p = map_exec(path);

		if (p == MAP_FAILED)
			return -1;
		munmap(p, 4096);
		if (i % 16 == 15 && flush_and_read(fd, r))
			return -1;
	}
	return flush_and_read(fd, r);
}

/*
 * Every byte of a mapping's record is written: the sink writes it in
 * place in the buffer (sink.c), over whatever was there.  After the
 * buffer has wrapped over records of a long path and a 64-byte build-id
 * several times, those of a short path and a 4-byte id carry zeros, not
 * the old records' bytes, after each string's NUL, in the reserved
 * fields and past the build-id's size.
 */
TEST(record_bytes_past_each_string_are_zero)
{
	struct mmap3_record_header *h;
	struct records r = { };
	uint64_t size = MMAP3_BUFFER_SIZE_MIN;
	char longp[sizeof(DIR) + 200];
	int fd, checked = 0;
	struct stat st;

	mkdir(DIR, 0755);
	memset(longp, 'x', sizeof(longp) - 1);
	longp[sizeof(longp) - 1] = '\0';
	memcpy(longp, DIR "/", sizeof(DIR));
	ASSERT_EQ(0, write_elf(longp, 1, 0, 0x77, 64, 256, NULL));
	ASSERT_EQ(0, write_elf(DIR "/s", 1, 0, 0x73, 4, 256, NULL));
	ASSERT_EQ(0, stat(DIR "/s", &st));
	fd = session_open();
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, ioctl(fd, MMAP3_IOC_SET_BUFFER_SIZE, &size));
	ASSERT_EQ(0, session_filter(fd, 0, 1, &(pid_t){ getpid() }));
	ASSERT_EQ(0, ioctl(fd, MMAP3_IOC_ENABLE));
	ASSERT_EQ(0, read_dump(fd, &r));
	records_free(&r);

	/* 416 bytes a record (168 + 216 + 32): the buffer is written over 3 times. */
	ASSERT_EQ(0, map_many(fd, longp, 480, &r));
	ASSERT_LT(3 * size, r.len);
	records_free(&r);
	ASSERT_EQ(0, map_many(fd, DIR "/s", 480, &r));
	ASSERT_LT(size, r.len);
	for_each_record(&r, h) {
		const struct mmap3_record_mmap *m = (const void *)h;
		const struct mmap3_mmap_ns *ns;
		size_t len, at;

		ASSERT_NE(MMAP3_RECORD_LOST, h->type);
		if (h->type != MMAP3_RECORD_MMAP || m->ino != st.st_ino)
			continue;
		ASSERT_EQ(0, strncmp(m->path, DIR "/s", sizeof(DIR "/s")));
		ASSERT_EQ(4, m->build_id.size);
		EXPECT_TRUE(all_zero(m->build_id.__reserved, sizeof(m->build_id.__reserved)));
		EXPECT_TRUE(all_zero(m->build_id.data + 4, sizeof(m->build_id.data) - 4));
		len = strlen(m->path);
		at = (sizeof(*m) + len + 1 + 7) & ~(size_t)7;
		ASSERT_LE(at, h->size);
		EXPECT_TRUE(all_zero(m->path + len, at - sizeof(*m) - len));
		ASSERT_TRUE(m->flags & MMAP3_MMAP_NS);
		ns = (const void *)((const char *)h + at);
		ASSERT_EQ(h->size - at, ns->size);
		EXPECT_EQ(0, ns->__reserved);
		len = strnlen(ns->root_path, ns->size - sizeof(*ns));
		ASSERT_LT(len, ns->size - sizeof(*ns));
		EXPECT_TRUE(all_zero(ns->root_path + len, ns->size - sizeof(*ns) - len));
		checked++;
	}
	EXPECT_EQ(480, checked);
	close(fd);
	records_free(&r);
	unlink(longp);
	unlink(DIR "/s");
}

/* @pid's live mapping record at @addr. */
static struct mmap3_record_mmap *mmap_at(struct records *r, pid_t pid, const void *addr)
{
	struct mmap3_record_header *h;

	for_each_record(r, h) {
		struct mmap3_record_mmap *m = (void *)h;

		if (h->type == MMAP3_RECORD_MMAP && (pid_t)m->pid == pid &&
		    !(m->flags & MMAP3_MMAP_DUMP) && m->addr == (uintptr_t)addr)
			return m;
	}
	return NULL;
}

/* The record at @addr names @path, deleted or not. */
#define EXPECT_PATH_AT(r, addr, name, deleted)					\
	do {									\
		struct mmap3_record_mmap *_m = mmap_at(r, getpid(), addr);	\
										\
		ASSERT_NE(NULL, _m);						\
		EXPECT_STREQ(name, _m->path);					\
		EXPECT_EQ(!!(deleted), !!(_m->flags & MMAP3_MMAP_DELETED));	\
	} while (0)

/*
 * The worker takes the path of a burst's file once (record.c): each
 * record still names its own file, through its own mount, as it was
 * named after the mapping; deleted if it is by the time the record is
 * made; and nothing of one worker run's paths outlives it.
 */
TEST(paths_of_a_burst_are_each_files_own)
{
	struct records r = { };
	void *a1, *a2, *a3, *a4, *a5, *a6, *a7;
	int fd, f;

	mkdir(DIR, 0755);
	mkdir(DIR "/bind", 0755);
	ASSERT_EQ(0, write_elf(DIR "/p1", 1, 0, 0x51, 20, 256, NULL));
	ASSERT_EQ(0, write_elf(DIR "/q1", 1, 0, 0x52, 20, 256, NULL));
	ASSERT_EQ(0, mount(DIR, DIR "/bind", NULL, MS_BIND, NULL));
	fd = own_session_open();
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, pin_to_cpu(0));

	/* One worker run, after every mapping and change of the burst. */
	ASSERT_EQ(0, set_worker_delay("1000"));
	a1 = map_exec(DIR "/p1");
	ASSERT_EQ(0, rename(DIR "/p1", DIR "/p2"));
	a2 = map_exec(DIR "/p2");
	a3 = map_exec(DIR "/q1");
	/* The same dentry through another mount. */
	a4 = map_exec(DIR "/bind/p2");
	f = open(DIR "/p2", O_RDONLY | O_CLOEXEC);
	ASSERT_LE(0, f);
	ASSERT_EQ(0, unlink(DIR "/p2"));
	a5 = mmap(NULL, 4096, PROT_READ | PROT_EXEC, MAP_PRIVATE, f, 0);
	close(f);
	ASSERT_EQ(0, flush_and_read(fd, &r));
	ASSERT_EQ(0, set_worker_delay("0"));
	ASSERT_NE(MAP_FAILED, a1);
	ASSERT_NE(MAP_FAILED, a2);
	ASSERT_NE(MAP_FAILED, a3);
	ASSERT_NE(MAP_FAILED, a4);
	ASSERT_NE(MAP_FAILED, a5);
	EXPECT_PATH_AT(&r, a1, DIR "/p2", true);
	EXPECT_PATH_AT(&r, a2, DIR "/p2", true);
	EXPECT_PATH_AT(&r, a3, DIR "/q1", false);
	EXPECT_PATH_AT(&r, a4, DIR "/bind/p2", true);
	EXPECT_PATH_AT(&r, a5, DIR "/p2", true);
	records_free(&r);

	/* A rename between two worker runs: the second names the new path. */
	a6 = map_exec(DIR "/q1");
	ASSERT_NE(MAP_FAILED, a6);
	ASSERT_EQ(0, flush_and_read(fd, &r));
	EXPECT_PATH_AT(&r, a6, DIR "/q1", false);
	records_free(&r);
	ASSERT_EQ(0, rename(DIR "/q1", DIR "/q2"));
	a7 = map_exec(DIR "/q2");
	ASSERT_NE(MAP_FAILED, a7);
	ASSERT_EQ(0, flush_and_read(fd, &r));
	EXPECT_PATH_AT(&r, a7, DIR "/q2", false);
	records_free(&r);

	close(fd);
	umount2(DIR "/bind", MNT_DETACH);
	unlink(DIR "/q2");
}

/*
 * The worker keeps the build-id the cache gave for a file in one state
 * for the mappings after it in a run (resolve.c): a mapping of the same
 * file in another state still gets that state's.
 */
TEST(ids_of_a_burst_follow_the_files_state)
{
	struct mmap3_record_mmap *m;
	struct records r = { };
	void *a1, *a2, *a3;
	uint8_t id1[20], id2[20];
	int fd;

	mkdir(DIR, 0755);
	ASSERT_EQ(0, write_elf(DIR "/s", 1, 0, 0x61, 20, 256, id1));
	fd = own_session_open();
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, pin_to_cpu(0));
	/* The first state is cached. */
	ASSERT_NE(MAP_FAILED, map_exec(DIR "/s"));
	ASSERT_EQ(0, flush_and_read(fd, &r));
	records_free(&r);

	ASSERT_EQ(0, set_worker_delay("1000"));
	a1 = map_exec(DIR "/s");
	/* A new mtime: the clock the timestamps take ticks by the jiffy. */
	usleep(20000);
	ASSERT_EQ(0, write_elf(DIR "/s", 1, 0, 0x62, 20, 256, id2));
	a2 = map_exec(DIR "/s");
	a3 = map_exec(DIR "/s");
	ASSERT_EQ(0, flush_and_read(fd, &r));
	ASSERT_EQ(0, set_worker_delay("0"));
	ASSERT_NE(MAP_FAILED, a1);
	ASSERT_NE(MAP_FAILED, a2);
	ASSERT_NE(MAP_FAILED, a3);
	m = mmap_at(&r, getpid(), a1);
	ASSERT_NE(NULL, m);
	EXPECT_TRUE(build_id_is(&m->build_id, id1, 20));
	EXPECT_FALSE(m->flags & MMAP3_MMAP_CHANGED);
	m = mmap_at(&r, getpid(), a2);
	ASSERT_NE(NULL, m);
	EXPECT_TRUE(build_id_is(&m->build_id, id2, 20));
	EXPECT_FALSE(m->flags & MMAP3_MMAP_CHANGED);
	m = mmap_at(&r, getpid(), a3);
	ASSERT_NE(NULL, m);
	EXPECT_TRUE(build_id_is(&m->build_id, id2, 20));
	records_free(&r);
	close(fd);
	unlink(DIR "/s");
}

/*
 * The hook's queue losses belong to the sessions enabled when they
 * happen: one opened before but enabled after them counts none, and its
 * first record is still KERNEL.
 */
TEST(losses_before_enable_are_not_the_sessions)
{
	struct mmap3_stats st;
	struct records r = { };
	int a, b, i;

	mkdir(DIR, 0755);
	ASSERT_EQ(0, write_elf(DIR "/q2", 1, 0, 0x18, 20, 256, NULL));
	ASSERT_EQ(0, reload_mmap3("queue_len=16"));
	a = session_open();
	b = session_open();
	ASSERT_LE(0, a);
	ASSERT_LE(0, b);
	ASSERT_EQ(0, session_filter(a, 0, 1, &(pid_t){ getpid() }));
	ASSERT_EQ(0, ioctl(a, MMAP3_IOC_ENABLE));
	ASSERT_EQ(0, read_dump(a, &r));
	records_free(&r);
	ASSERT_EQ(0, set_worker_delay("2000"));
	for (i = 0; i < 100; i++)
		munmap(map_exec(DIR "/q2"), 4096);
	ASSERT_EQ(0, get_stats(b, &st));
	EXPECT_EQ(0, st.lost);
	ASSERT_EQ(0, set_worker_delay("0"));
	ASSERT_EQ(0, get_stats(a, &st));
	EXPECT_LT(0, st.lost_queue);
	ASSERT_EQ(0, ioctl(a, MMAP3_IOC_FLUSH));

	ASSERT_EQ(0, ioctl(b, MMAP3_IOC_ENABLE));
	ASSERT_EQ(0, read_dump(b, &r));
	ASSERT_LT(0, r.len);
	EXPECT_EQ(MMAP3_RECORD_KERNEL, ((struct mmap3_record_header *)r.buf)->type);
	EXPECT_EQ(0, count_type(&r, MMAP3_RECORD_LOST));
	ASSERT_EQ(0, get_stats(b, &st));
	EXPECT_EQ(0, st.lost);
	close(a);
	close(b);
	records_free(&r);
	ASSERT_EQ(0, reload_mmap3(""));
}

/*
 * poll() waits before the first ENABLE; after DISABLE it says POLLIN
 * while a read has something to give, the last LOST record included
 * (its buffer was too full to take it at DISABLE), and POLLHUP after.
 * The buffer cannot be resized away under that last LOST record.
 */
TEST(poll_tells_the_last_loss_before_the_end)
{
	struct pollfd pfd;
	static char buf[1 << 20];
	uint64_t lost = 0;
	int fd, q3, i, hup = 0;
	ssize_t n;

	mkdir(DIR, 0755);
	ASSERT_EQ(0, write_elf(DIR "/q3", 1, 0, 0x19, 20, 256, NULL));
	q3 = open(DIR "/q3", O_RDONLY | O_CLOEXEC);
	ASSERT_LE(0, q3);
	fd = session_open();
	ASSERT_LE(0, fd);
	pfd = (struct pollfd){ .fd = fd, .events = POLLIN };
	EXPECT_EQ(0, poll(&pfd, 1, 0));
	ASSERT_EQ(0, ioctl(fd, MMAP3_IOC_SET_BUFFER_SIZE, &(uint64_t){ 64 << 10 }));
	ASSERT_EQ(0, session_filter(fd, 0, 1, &(pid_t){ getpid() }));
	ASSERT_EQ(0, ioctl(fd, MMAP3_IOC_ENABLE));
	/*
	 * Nothing read: the buffer (about 450 records of 144 bytes) fills up,
	 * and the rest is lost.  One open file, mapped again and again: the
	 * debug kernel under TCG takes its time over each path walk.
	 */
	for (i = 0; i < 1000; i++)
		munmap(mmap(NULL, 4096, PROT_READ | PROT_EXEC, MAP_PRIVATE, q3, 0), 4096);
	ASSERT_EQ(0, ioctl(fd, MMAP3_IOC_DISABLE));
	EXPECT_EQ(-1, ioctl(fd, MMAP3_IOC_SET_BUFFER_SIZE, &(uint64_t){ 128 << 10 }));
	for (i = 0; i < 1000; i++) {
		pfd.revents = 0;
		ASSERT_EQ(1, poll(&pfd, 1, 0));
		if (pfd.revents & POLLHUP) {
			hup = 1;
			break;
		}
		ASSERT_TRUE(pfd.revents & POLLIN);
		n = read(fd, buf, sizeof(buf));
		ASSERT_LT(0, n);
		for (ssize_t off = 0; off < n;) {
			struct mmap3_record_header *h = (void *)(buf + off);

			if (h->type == MMAP3_RECORD_LOST)
				lost += ((struct mmap3_record_lost *)h)->lost;
			off += h->size;
		}
	}
	EXPECT_TRUE(hup);
	EXPECT_LT(0, lost) {
		TH_LOG("POLLHUP came before the last LOST record was read");
	}
	EXPECT_EQ(0, read(fd, buf, sizeof(buf)));
	EXPECT_EQ(0, ioctl(fd, MMAP3_IOC_SET_BUFFER_SIZE, &(uint64_t){ 128 << 10 }));
	close(fd);
	close(q3);
}

/*
 * MMAP3_FILTER_INHERIT: the process given and its descendants, as perf
 * record -p follows children: a grandchild made after ENABLE, a child
 * already running (dumped), the process itself; not its sibling.  A
 * session without the flag beside it has the process alone.
 */
TEST(filter_inherit_follows_descendants)
{
	struct records ri = { }, rp = { };
	int go[2], inherit, plain, i;
	pid_t root, sibling, pre = 0;
	char byte = 0;

	mkdir(DIR, 0755);
	ASSERT_EQ(0, write_elf(DIR "/inh_a", 1, 0, 0x2a, 20, 256, NULL));
	ASSERT_EQ(0, write_elf(DIR "/inh_b", 1, 0, 0x2b, 20, 256, NULL));
	ASSERT_EQ(0, write_elf(DIR "/inh_c", 1, 0, 0x2c, 20, 256, NULL));
	ASSERT_EQ(0, write_elf(DIR "/inh_pre", 1, 0, 0x2d, 20, 256, NULL));
	ASSERT_EQ(0, pipe(go));
	root = fork_child();
	if (root == 0) {
		pid_t kid, grandkid;

		/* Already there when the session starts: dumped. */
		pre = fork_child();
		if (pre == 0) {
			map_exec(DIR "/inh_pre");
			pause();
			_exit(0);
		}
		if (read(go[0], &byte, 1) != 1)
			_exit(1);
		kid = fork();
		if (kid == 0) {
			grandkid = fork();
			if (grandkid == 0) {
				munmap(map_exec(DIR "/inh_a"), 4096);
				_exit(0);
			}
			waitpid(grandkid, NULL, 0);
			_exit(0);
		}
		waitpid(kid, NULL, 0);
		munmap(map_exec(DIR "/inh_c"), 4096);
		kill(pre, SIGKILL);
		waitpid(pre, NULL, 0);
		_exit(0);
	}
	ASSERT_LT(0, root);
	sibling = fork_child();
	if (sibling == 0) {
		if (read(go[0], &byte, 1) != 1)
			_exit(1);
		munmap(map_exec(DIR "/inh_b"), 4096);
		_exit(0);
	}
	ASSERT_LT(0, sibling);
	/* The child that maps inh_pre has mapped it before the sessions start. */
	usleep(300000);

	inherit = session_open();
	plain = session_open();
	ASSERT_LE(0, inherit);
	ASSERT_LE(0, plain);
	ASSERT_EQ(0, session_filter(inherit, MMAP3_FILTER_INHERIT, 1, &root));
	ASSERT_EQ(0, session_filter(plain, 0, 1, &root));
	ASSERT_EQ(0, ioctl(inherit, MMAP3_IOC_ENABLE));
	ASSERT_EQ(0, ioctl(plain, MMAP3_IOC_ENABLE));
	ASSERT_EQ(0, read_dump(inherit, &ri));
	ASSERT_EQ(0, read_dump(plain, &rp));
	for (i = 0; i < 2; i++)
		ASSERT_EQ(1, write(go[1], &byte, 1));
	waitpid(root, NULL, 0);
	waitpid(sibling, NULL, 0);
	ASSERT_EQ(0, ioctl(inherit, MMAP3_IOC_FLUSH));
	ASSERT_EQ(0, ioctl(plain, MMAP3_IOC_FLUSH));
	ASSERT_EQ(0, read_available(inherit, &ri));
	ASSERT_EQ(0, read_available(plain, &rp));

	EXPECT_NE(NULL, find_mmap(&ri, 0, DIR "/inh_pre", 1)) {
		TH_LOG("a child running before ENABLE was not dumped");
	}
	EXPECT_NE(NULL, find_mmap(&ri, 0, DIR "/inh_a", 0)) {
		TH_LOG("a grandchild's mapping is missing");
	}
	EXPECT_NE(NULL, find_mmap(&ri, root, DIR "/inh_c", 0));
	EXPECT_EQ(NULL, find_mmap(&ri, 0, DIR "/inh_b", 0)) {
		TH_LOG("a sibling, no descendant, was recorded");
	}
	EXPECT_NE(NULL, find_mmap(&rp, root, DIR "/inh_c", 0));
	EXPECT_EQ(NULL, find_mmap(&rp, 0, DIR "/inh_a", 0));
	EXPECT_EQ(NULL, find_mmap(&rp, 0, DIR "/inh_pre", 1));
	EXPECT_EQ(NULL, find_mmap(&rp, 0, DIR "/inh_b", 0));
	close(inherit);
	close(plain);
	close(go[0]);
	close(go[1]);
	records_free(&ri);
	records_free(&rp);
}

#ifndef __NR_clone3
#define __NR_clone3	435
#endif

/* clone3()'s arguments up to set_tid (CLONE_ARGS_SIZE_VER1). */
struct reuse_clone_args {
	__u64 flags, pidfd, child_tid, parent_tid, exit_signal;
	__u64 stack, stack_size, tls, set_tid, set_tid_size;
};

/*
 * Map @path once, and with @kid_path fork a child that maps that; each
 * says 'm' on @done once mapped, and waits to be killed.
 */
static void mapper_run(const char *path, const char *kid_path, int done)
{
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (kid_path && fork_child() == 0) {
		if (map_exec(kid_path) == MAP_FAILED || write(done, "m", 1) != 1)
			_exit(1);
		pause();
		_exit(0);
	}
	if (map_exec(path) == MAP_FAILED || write(done, "m", 1) != 1)
		_exit(1);
	pause();
	_exit(0);
}

/* mapper_run() in a child of pid @pid (clone3()'s set_tid): its pid, or -1. */
static pid_t mapper_start_as(pid_t pid, const char *path, const char *kid_path, int done)
{
	struct reuse_clone_args args = {
		.exit_signal = SIGCHLD,
		.set_tid = (uintptr_t)&pid,
		.set_tid_size = 1,
	};
	pid_t child = syscall(__NR_clone3, &args, sizeof(args));

	if (child == 0)
		mapper_run(path, kid_path, done);
	return child;
}

/*
 * A filter names processes, not numbers: once a filtered process is
 * reaped, a new process given its pid (clone3()'s set_tid), and with
 * MMAP3_FILTER_INHERIT its child, are neither recorded live nor dumped
 * at a later ENABLE of the session.  A filtered process still running
 * (and its child) is, both ways: the session does record.
 */
/*
 * In @r, live records or (@dump) the dump's: the filtered process @ctl's
 * mapping, and its child's (@kid_ctl) if followed; nothing of the new
 * process given a filtered pid, nor of its child (@kid_new).
 */
static void expect_filtered(struct __test_metadata *_metadata, struct records *r, int dump,
			    pid_t ctl, const char *kid_ctl, const char *kid_new)
{
	const char *seen = dump ? "dumped" : "recorded";

	EXPECT_NE(NULL, find_mmap(r, ctl, DIR "/reuse_ctl", dump)) {
		TH_LOG("a filtered process's mapping was not %s", seen);
	}
	if (kid_ctl)
		EXPECT_NE(NULL, find_mmap(r, 0, kid_ctl, dump)) {
			TH_LOG("a followed process's child's mapping was not %s", seen);
		}
	EXPECT_EQ(NULL, find_mmap(r, 0, DIR "/reuse_new", dump)) {
		TH_LOG("a new process given a filtered process's pid was %s", seen);
	}
	if (kid_new)
		EXPECT_EQ(NULL, find_mmap(r, 0, kid_new, dump)) {
			TH_LOG("the child of a new process given a followed pid was %s", seen);
		}
}

static void pid_reuse(struct __test_metadata *_metadata, uint32_t flags)
{
	const char *kid_new = flags & MMAP3_FILTER_INHERIT ? DIR "/reuse_new_kid" : NULL;
	const char *kid_ctl = flags & MMAP3_FILTER_INHERIT ? DIR "/reuse_ctl_kid" : NULL;
	int go[2], done[2], fd, i, mappers = kid_new ? 4 : 2;
	struct records r = { }, d = { };
	pid_t gone, ctl, impostor;
	char byte;

	mkdir(DIR, 0755);
	ASSERT_EQ(0, write_elf(DIR "/reuse_new", 1, 0, 0x61, 20, 256, NULL));
	ASSERT_EQ(0, write_elf(DIR "/reuse_new_kid", 1, 0, 0x62, 20, 256, NULL));
	ASSERT_EQ(0, write_elf(DIR "/reuse_ctl", 1, 0, 0x63, 20, 256, NULL));
	ASSERT_EQ(0, write_elf(DIR "/reuse_ctl_kid", 1, 0, 0x64, 20, 256, NULL));
	ASSERT_EQ(0, pipe(go));
	ASSERT_EQ(0, pipe(done));
	gone = fork_child();
	if (gone == 0) {
		pause();
		_exit(0);
	}
	ASSERT_LT(0, gone);
	/* The control: filtered too, it maps once the session is enabled. */
	ctl = fork_child();
	if (ctl == 0) {
		if (read(go[0], &byte, 1) != 1)
			_exit(1);
		mapper_run(DIR "/reuse_ctl", kid_ctl, done[1]);
	}
	ASSERT_LT(0, ctl);

	fd = session_open();
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, session_filter(fd, flags, 2, (pid_t[]){ gone, ctl }));
	ASSERT_EQ(0, ioctl(fd, MMAP3_IOC_ENABLE));
	ASSERT_EQ(0, read_dump(fd, &r));
	records_free(&r);

	/* Its number is freed at the reap, its pid still held by the session. */
	ASSERT_EQ(0, kill(gone, SIGKILL));
	ASSERT_EQ(gone, waitpid(gone, NULL, 0));
	impostor = mapper_start_as(gone, DIR "/reuse_new", kid_new, done[1]);
	if (impostor < 0) {
		int err = errno;

		kill(ctl, SIGKILL);
		waitpid(ctl, NULL, 0);
		close(fd);
		SKIP(return, "clone3() with set_tid %d: %s", gone, strerror(err));
	}
	ASSERT_EQ(gone, impostor);
	ASSERT_EQ(1, write(go[1], "g", 1));
	for (i = 0; i < mappers; i++) {
		ASSERT_EQ(1, read(done[0], &byte, 1));
		ASSERT_EQ('m', byte);
	}
	ASSERT_EQ(0, flush_and_read(fd, &r));
	expect_filtered(_metadata, &r, 0, ctl, kid_ctl, kid_new);

	/* Enabled again, the session dumps the processes it filters: not the new one. */
	ASSERT_EQ(0, ioctl(fd, MMAP3_IOC_DISABLE));
	ASSERT_EQ(0, read_available(fd, &r));
	ASSERT_EQ(0, ioctl(fd, MMAP3_IOC_ENABLE));
	ASSERT_EQ(0, read_dump(fd, &d));
	expect_filtered(_metadata, &d, 1, ctl, kid_ctl, kid_new);
	close(fd);
	kill(impostor, SIGKILL);
	kill(ctl, SIGKILL);
	waitpid(impostor, NULL, 0);
	waitpid(ctl, NULL, 0);
	close(go[0]);
	close(go[1]);
	close(done[0]);
	close(done[1]);
	records_free(&r);
	records_free(&d);
}

TEST(filter_pid_reused_is_not_followed)
{
	pid_reuse(_metadata, 0);
}

TEST(filter_pid_reused_is_not_followed_inherit)
{
	pid_reuse(_metadata, MMAP3_FILTER_INHERIT);
}

/* As a container's pid 1: the filter's pids, and the dump, are its namespace's. */
TEST(filter_pid_reused_is_not_followed_in_a_pid_namespace)
{
	int status;
	pid_t init;

	ASSERT_EQ(0, unshare(CLONE_NEWPID));
	init = fork_child();
	ASSERT_LE(0, init);
	if (init == 0) {
		ASSERT_EQ(1, getpid());
		pid_reuse(_metadata, MMAP3_FILTER_INHERIT);
		_exit(_metadata->exit_code);
	}
	ASSERT_EQ(init, waitpid(init, &status, 0));
	ASSERT_TRUE(WIFEXITED(status));
	if (WEXITSTATUS(status) == KSFT_SKIP)
		SKIP(return, "in the namespace: see above");
	EXPECT_EQ(0, WEXITSTATUS(status));
}

/*
 * Nothing is patched into perf_event_mmap while no session is enabled:
 * the probe goes in at a session's ENABLE and out probe_grace_ms after
 * the last one ends (a session begun within the grace keeps it), and a
 * session after that patches it in again and records.
 */
TEST(probe_is_patched_in_only_while_recording)
{
	int fd;

	ASSERT_EQ(0, write_file(PROBE_GRACE, "100"));
	ASSERT_TRUE(probe_becomes(0)) {
		TH_LOG("perf_event_mmap is patched with no session enabled");
	}
	for (int round = 0; round < 2; round++) {
		fd = session_open();
		ASSERT_LE(0, fd);
		ASSERT_EQ(0, ioctl(fd, MMAP3_IOC_ENABLE));
		ASSERT_EQ(1, probe_patched());
		EXPECT_TRUE(session_records_a_mapping(fd, "/selftests/spin_v1")) {
			TH_LOG("round %d: the probe patched in again records nothing", round);
		}
		close(fd);
		EXPECT_TRUE(probe_becomes(0)) {
			TH_LOG("round %d: still patched 10 s after the last session", round);
		}
	}
	/* Within the grace, a new session finds the probe in and keeps it. */
	ASSERT_EQ(0, write_file(PROBE_GRACE, "3600000"));
	fd = session_open();
	ASSERT_EQ(0, ioctl(fd, MMAP3_IOC_ENABLE));
	close(fd);
	EXPECT_EQ(1, probe_patched());
	fd = session_open();
	ASSERT_EQ(0, ioctl(fd, MMAP3_IOC_ENABLE));
	EXPECT_EQ(1, probe_patched());
	EXPECT_TRUE(session_records_a_mapping(fd, "/selftests/spin_v1"));
	/* The removal was put off by an hour: this session's end puts it at 100 ms. */
	ASSERT_EQ(0, write_file(PROBE_GRACE, "100"));
	close(fd);
	EXPECT_TRUE(probe_becomes(0));
	write_file(PROBE_GRACE, "2000");
}

/* Does a line of the listing @path name perf_event_mmap and @what? */
static int lists_hook_with(const char *path, const char *what)
{
	FILE *f = fopen(path, "re");
	char line[512];
	int found = 0;

	if (!f)
		return 0;
	while (!found && fgets(line, sizeof(line), f))
		found = strstr(line, "perf_event_mmap") && strstr(line, what);
	fclose(f);
	return found;
}

/*
 * The module's own ftrace_ops where x86-64's ftrace gives it the
 * arguments and kernel/events has ftrace sites (6.1 on); a kprobe
 * elsewhere (5.10, arm64).  Not the other way round, nor both.
 */
TEST(hook_is_attached_the_cheaper_way)
{
	int ftrace_expected = 0, fd, major = 0, minor = 0;
	struct utsname u;

	ASSERT_EQ(0, uname(&u));
	ASSERT_EQ(2, sscanf(u.release, "%d.%d", &major, &minor));
#ifdef __x86_64__
	ftrace_expected = major > 6 || (major == 6 && minor >= 1);
#endif
	fd = session_open();
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, ioctl(fd, MMAP3_IOC_ENABLE));
	EXPECT_EQ(ftrace_expected, lists_hook_with("/sys/kernel/tracing/enabled_functions",
						   "mmap3_ftrace_handler")) {
		TH_LOG("kernel %s: the module's ftrace_ops %s", u.release,
		       ftrace_expected ? "expected, not attached" : "attached, not expected");
	}
	EXPECT_EQ(!ftrace_expected, lists_perf_event_mmap("/sys/kernel/debug/kprobes/list")) {
		TH_LOG("kernel %s: a kprobe on perf_event_mmap %s", u.release,
		       ftrace_expected ? "beside or instead of the ftrace_ops" : "expected, not there");
	}
	EXPECT_TRUE(session_records_a_mapping(fd, "/selftests/spin_v1"));
	close(fd);
}

TEST_HARNESS_MAIN
