// SPDX-License-Identifier: GPL-2.0
/*
 * The capture engine: records of executable mappings, modules and the
 * kernel, each build-id checked against what libelf reads from the file;
 * files replaced, deleted or rewritten after mmap; filters, concurrent
 * sessions, lost records, the state dump, namespaces and unloading.
 *
 * Runs as root inside a test VM with the module loaded ($MMAP3_KO).
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/mmap3.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "libelf_buildid.h"
#include "session.h"
#include "faults.h"

#define DIR "/tmp/capture_test"
#define PAGE ((size_t)sysconf(_SC_PAGESIZE))

/* Does @bid equal what libelf reads from @path? */
static int build_id_matches_file(const struct mmap3_build_id *bid, const char *path)
{
	struct libelf_id id;

	if (libelf_buildid_path(path, &id) || !id.found)
		return 0;
	return build_id_is(bid, id.bytes, id.size);
}

FIXTURE(capture) {
	int fd;
	struct records r;
};

FIXTURE_SETUP(capture)
{
	mkdir(DIR, 0755);
	elf_version(EV_CURRENT);
	self->r.buf = NULL;
	self->r.len = 0;
	self->fd = session_open();
	ASSERT_LE(0, self->fd);
}

FIXTURE_TEARDOWN(capture)
{
	close(self->fd);
	records_free(&self->r);
}

static void enable_and_skip_dump(struct __test_metadata *_metadata, int fd,
				 struct records *r)
{
	ASSERT_EQ(0, ioctl(fd, MMAP3_IOC_ENABLE));
	ASSERT_EQ(0, read_dump(fd, r));
	ASSERT_EQ(1, count_type(r, MMAP3_RECORD_DUMP_DONE));
	records_free(r);
}

TEST_F(capture, kernel_record_first)
{
	struct mmap3_record_kernel *k;
	char cmd[] = "perf buildid-list -k 2>/dev/null", line[256] = "", hex[129];
	FILE *p;
	int i;

	ASSERT_EQ(0, ioctl(self->fd, MMAP3_IOC_ENABLE));
	ASSERT_EQ(0, read_dump(self->fd, &self->r));
	ASSERT_LT(0, self->r.len);
	k = (void *)self->r.buf;
	ASSERT_EQ(MMAP3_RECORD_KERNEL, k->header.type);
	ASSERT_EQ(MMAP3_BUILDID_FOUND, k->build_id.status);
	/* perf reads the same notes: its answer is the oracle. */
	p = popen(cmd, "r");
	ASSERT_NE(NULL, p);
	ASSERT_NE(NULL, fgets(line, sizeof(line), p));
	pclose(p);
	for (i = 0; i < k->build_id.size; i++)
		sprintf(hex + 2 * i, "%02x", k->build_id.data[i]);
	EXPECT_EQ(0, strncmp(line, hex, 2 * k->build_id.size)) {
		TH_LOG("module %s, perf %s", hex, line);
	}
}

TEST_F(capture, dynamic_program_and_libraries)
{
	struct mmap3_record_header *h;
	int status, checked = 0, exe = 0;
	pid_t pid;

	enable_and_skip_dump(_metadata, self->fd, &self->r);
	pid = fork_child();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		int null = open("/dev/null", O_WRONLY);

		dup2(null, 1);
		execl("/usr/bin/perf", "perf", "--version", NULL);
		_exit(127);
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_EQ(0, WEXITSTATUS(status));
	ASSERT_EQ(0, flush_and_read(self->fd, &self->r));
	for_each_record(&self->r, h) {
		struct mmap3_record_mmap *m = (void *)h;

		if (h->type != MMAP3_RECORD_MMAP || (pid_t)m->pid != pid ||
		    !(m->prot & PROT_EXEC))
			continue;
		EXPECT_TRUE(build_id_matches_file(&m->build_id, m->path)) {
			TH_LOG("%s: status %u", m->path, m->build_id.status);
		}
		exe += !strcmp(m->path, "/usr/bin/perf");
		checked++;
	}
	EXPECT_LE(1, exe);
	/* perf, ld.so, libc and more. */
	EXPECT_LE(4, checked);
}

TEST_F(capture, renamed_over_while_mapped)
{
	uint8_t a[20], b[20];
	struct mmap3_record_mmap *m;
	void *p;

	ASSERT_EQ(0, write_elf(DIR "/renamed", 1, 0, 0xaa, 20, 256, a));
	ASSERT_EQ(0, write_elf(DIR "/renamed.new", 1, 0, 0xbb, 20, 256, b));
	enable_and_skip_dump(_metadata, self->fd, &self->r);
	p = map_exec(DIR "/renamed");
	ASSERT_NE(MAP_FAILED, p);
	/* Before the worker reads it, probably: the old inode is what counts. */
	ASSERT_EQ(0, rename(DIR "/renamed.new", DIR "/renamed"));
	ASSERT_EQ(0, flush_and_read(self->fd, &self->r));
	m = find_mmap(&self->r, getpid(), DIR "/renamed", 0);
	ASSERT_NE(NULL, m);
	EXPECT_TRUE(build_id_is(&m->build_id, a, 20));
	munmap(p, 4096);
}

TEST_F(capture, deleted_right_after_mmap)
{
	struct mmap3_record_mmap *m;
	uint8_t a[20];
	void *p;

	ASSERT_EQ(0, write_elf(DIR "/deleted", 1, 0, 0xcc, 20, 256, a));
	enable_and_skip_dump(_metadata, self->fd, &self->r);
	p = map_exec(DIR "/deleted");
	ASSERT_NE(MAP_FAILED, p);
	ASSERT_EQ(0, unlink(DIR "/deleted"));
	ASSERT_EQ(0, flush_and_read(self->fd, &self->r));
	/*
	 * The path without " (deleted)", whether the worker read the file
	 * before or after the unlink (then MMAP3_MMAP_DELETED says so).
	 */
	m = find_mmap(&self->r, getpid(), DIR "/deleted", 0);
	ASSERT_NE(NULL, m);
	EXPECT_TRUE(build_id_is(&m->build_id, a, 20));
	munmap(p, 4096);
}

TEST_F(capture, rewritten_in_place)
{
	struct mmap3_record_mmap *m;
	uint8_t a[20], b[20];
	struct stat st1, st2;
	void *p;

	ASSERT_EQ(0, write_elf(DIR "/rewritten", 1, 0, 0x11, 20, 256, a));
	ASSERT_EQ(0, stat(DIR "/rewritten", &st1));
	enable_and_skip_dump(_metadata, self->fd, &self->r);
	p = map_exec(DIR "/rewritten");
	ASSERT_NE(MAP_FAILED, p);
	ASSERT_EQ(0, flush_and_read(self->fd, &self->r));
	m = find_mmap(&self->r, getpid(), DIR "/rewritten", 0);
	ASSERT_NE(NULL, m);
	EXPECT_TRUE(build_id_is(&m->build_id, a, 20));
	munmap(p, 4096);
	records_free(&self->r);

	/*
	 * Same inode, same size, new content.  The cache notices by the
	 * inode's timestamps, which the filesystem keeps at its own
	 * granularity (a jiffy on tmpfs before multigrain timestamps): wait
	 * past it, as any real rewrite is.
	 */
	usleep(20000);
	ASSERT_EQ(0, write_elf(DIR "/rewritten", 1, 0, 0x22, 20, 256, b));
	ASSERT_EQ(0, stat(DIR "/rewritten", &st2));
	ASSERT_EQ(st1.st_ino, st2.st_ino);
	p = map_exec(DIR "/rewritten");
	ASSERT_NE(MAP_FAILED, p);
	ASSERT_EQ(0, flush_and_read(self->fd, &self->r));
	m = find_mmap(&self->r, getpid(), DIR "/rewritten", 0);
	ASSERT_NE(NULL, m);
	EXPECT_TRUE(build_id_is(&m->build_id, b, 20));
	munmap(p, 4096);
}

/*
 * Files changed while their mappings are still queued (the worker held
 * back by the test build's delay).  A file seen before keeps the id of
 * what was mapped; a file never seen is read as it is, flagged changed.
 */
TEST_F(capture, changed_right_after_mmap)
{
	struct mmap3_record_mmap *m;
	uint8_t a[20], b[20], t[20], u[20];
	int fd;
	void *p;

	ASSERT_EQ(0, write_elf(DIR "/truncated", 1, 0, 0x17, 20, 256, t));
	ASSERT_EQ(0, write_elf(DIR "/replaced", 1, 0, 0x18, 20, 256, a));
	ASSERT_EQ(0, write_elf(DIR "/unseen", 1, 0, 0x1a, 20, 256, u));
	enable_and_skip_dump(_metadata, self->fd, &self->r);
	/* Seen once: the cache knows these two. */
	munmap(map_exec(DIR "/truncated"), 4096);
	munmap(map_exec(DIR "/replaced"), 4096);
	ASSERT_EQ(0, flush_and_read(self->fd, &self->r));
	records_free(&self->r);
	usleep(20000);

	/*
	 * Held back long enough for the changes below in the slowest VM: in
	 * the debug kernel, under CI's two lanes, 300 ms once ran out before
	 * the last truncation.
	 */
	ASSERT_EQ(0, set_worker_delay("2000"));
	p = map_exec(DIR "/truncated");
	ASSERT_NE(MAP_FAILED, p);
	munmap(p, 4096);
	p = map_exec(DIR "/replaced");
	ASSERT_NE(MAP_FAILED, p);
	munmap(p, 4096);
	p = map_exec(DIR "/unseen");
	ASSERT_NE(MAP_FAILED, p);
	munmap(p, 4096);
	fd = open(DIR "/truncated", O_WRONLY | O_TRUNC);
	ASSERT_LE(0, fd);
	close(fd);
	ASSERT_EQ(0, write_elf(DIR "/replaced", 1, 0, 0x19, 20, 256, b));
	fd = open(DIR "/unseen", O_WRONLY | O_TRUNC);
	ASSERT_LE(0, fd);
	close(fd);
	ASSERT_EQ(0, flush_and_read(self->fd, &self->r));
	ASSERT_EQ(0, set_worker_delay("0"));

	m = find_mmap(&self->r, getpid(), DIR "/truncated", 0);
	ASSERT_NE(NULL, m);
	EXPECT_TRUE(build_id_is(&m->build_id, t, 20)) {
		TH_LOG("truncated: status %u", m->build_id.status);
	}
	EXPECT_FALSE(m->flags & MMAP3_MMAP_CHANGED);
	m = find_mmap(&self->r, getpid(), DIR "/replaced", 0);
	ASSERT_NE(NULL, m);
	EXPECT_TRUE(build_id_is(&m->build_id, a, 20));
	EXPECT_FALSE(m->flags & MMAP3_MMAP_CHANGED);
	m = find_mmap(&self->r, getpid(), DIR "/unseen", 0);
	ASSERT_NE(NULL, m);
	EXPECT_TRUE(m->flags & MMAP3_MMAP_CHANGED);
	EXPECT_NE(MMAP3_BUILDID_FOUND, m->build_id.status);
}

/* The exact bytes of a deleted file, through the first record's handle. */
TEST_F(capture, capture_keeps_deleted_file)
{
	struct mmap3_capture_read rd = { .size = sizeof(rd) };
	struct mmap3_record_mmap *m, *m2;
	struct records r2 = { };
	char want[8192], got[8192];
	int fd, fd2 = session_open(), n;
	uint8_t a[20];
	uint32_t handle;
	void *p;

	ASSERT_LE(0, fd2);
	ASSERT_EQ(0, write_elf(DIR "/kept", 1, 0, 0x1b, 20, 256, a));
	fd = open(DIR "/kept", O_RDONLY);
	ASSERT_LE(0, fd);
	n = read(fd, want, sizeof(want));
	close(fd);
	ASSERT_LT(0, n);
	ASSERT_EQ(0, session_filter(self->fd, MMAP3_FILTER_CAPTURE, 1, &(pid_t){ getpid() }));
	enable_and_skip_dump(_metadata, self->fd, &self->r);
	enable_and_skip_dump(_metadata, fd2, &r2);
	p = map_exec(DIR "/kept");
	ASSERT_NE(MAP_FAILED, p);
	munmap(map_exec(DIR "/kept"), 4096);
	ASSERT_EQ(0, unlink(DIR "/kept"));
	ASSERT_EQ(0, flush_and_read(self->fd, &self->r));
	ASSERT_EQ(0, flush_and_read(fd2, &r2));

	m = find_mmap(&self->r, getpid(), DIR "/kept", 0);
	ASSERT_NE(NULL, m);
	handle = m->capture;
	EXPECT_NE(0, handle);
	/* Only the first record of a build-id has a handle. */
	for (m2 = (void *)((char *)m + m->header.size);
	     (char *)m2 < self->r.buf + self->r.len && strcmp(m2->path, DIR "/kept");
	     m2 = (void *)((char *)m2 + m2->header.size))
		;
	ASSERT_LT((char *)m2, self->r.buf + self->r.len);
	EXPECT_EQ(0, m2->capture);
	/* A session without MMAP3_FILTER_CAPTURE gets no handles. */
	m2 = find_mmap(&r2, getpid(), DIR "/kept", 0);
	ASSERT_NE(NULL, m2);
	EXPECT_EQ(0, m2->capture);

	rd.handle = handle;
	rd.buf = (uintptr_t)got;
	rd.len = sizeof(got);
	EXPECT_EQ(n, ioctl(self->fd, MMAP3_IOC_CAPTURE_READ, &rd));
	EXPECT_EQ(0, memcmp(want, got, n));
	rd.offset = n;
	EXPECT_EQ(0, ioctl(self->fd, MMAP3_IOC_CAPTURE_READ, &rd));
	/* Handles are per session. */
	rd.offset = 0;
	EXPECT_EQ(-1, ioctl(fd2, MMAP3_IOC_CAPTURE_READ, &rd));
	EXPECT_EQ(ENOENT, errno);
	rd.buf = 8;
	EXPECT_EQ(-1, ioctl(self->fd, MMAP3_IOC_CAPTURE_READ, &rd));
	EXPECT_EQ(EFAULT, errno);
	EXPECT_EQ(0, ioctl(self->fd, MMAP3_IOC_CAPTURE_RELEASE, &handle));
	EXPECT_EQ(-1, ioctl(self->fd, MMAP3_IOC_CAPTURE_RELEASE, &handle));
	EXPECT_EQ(ENOENT, errno);
	rd.buf = (uintptr_t)got;
	EXPECT_EQ(-1, ioctl(self->fd, MMAP3_IOC_CAPTURE_READ, &rd));
	EXPECT_EQ(ENOENT, errno);
	munmap(p, 4096);
	close(fd2);
	records_free(&r2);
}

/*
 * A build-id is a file's own claim: each file claiming one is offered,
 * once, and only a file that root alone could have written is marked
 * so; not one of another owner, nor one in a directory others may
 * write to.
 */
TEST_F(capture, every_file_claiming_a_build_id_offered)
{
	static const char *const files[] = {
		DIR "/claim_root", DIR "/claim_user", DIR "/open/claim_tmp",
	};
	static const int root_owned[] = { 1, 0, 0 };
	struct mmap3_record_mmap *m;
	struct mmap3_record_header *h;
	int i, offers = 0;

	mkdir(DIR "/open", 0755);
	ASSERT_EQ(0, chmod(DIR "/open", 01777));
	for (i = 0; i < 3; i++) {
		ASSERT_EQ(0, write_elf(files[i], 1, 0, 0x2c, 20, 256, NULL));
		ASSERT_EQ(0, chmod(files[i], 0755));
	}
	ASSERT_EQ(0, chown(files[1], 1000, 1000));
	ASSERT_EQ(0, session_filter(self->fd, MMAP3_FILTER_CAPTURE, 1, &(pid_t){ getpid() }));
	enable_and_skip_dump(_metadata, self->fd, &self->r);
	for (i = 0; i < 3; i++)
		ASSERT_NE(MAP_FAILED, map_exec(files[i]));
	ASSERT_NE(MAP_FAILED, map_exec(files[0]));
	ASSERT_EQ(0, flush_and_read(self->fd, &self->r));

	for (i = 0; i < 3; i++) {
		m = find_mmap(&self->r, getpid(), files[i], 0);
		ASSERT_NE(NULL, m);
		EXPECT_NE(0, m->capture) {
			TH_LOG("%s: not offered", files[i]);
		}
		EXPECT_EQ(root_owned[i], !!(m->flags & MMAP3_MMAP_ROOT_OWNED)) {
			TH_LOG("%s: flags %#x", files[i], m->flags);
		}
	}
	/* Four mappings, three files: three offers. */
	for (h = (void *)self->r.buf; (char *)h < self->r.buf + self->r.len;
	     h = (void *)((char *)h + h->size)) {
		m = (void *)h;
		if (h->type == MMAP3_RECORD_MMAP && strstr(m->path, "claim_") && m->capture)
			offers++;
	}
	EXPECT_EQ(3, offers);
	for (i = 0; i < 3; i++)
		unlink(files[i]);
}

/*
 * A file with a Go build id and no GNU one (Go's linker before 1.24, by
 * default) gets the id Go 1.22's linker writes with -B gobuildid for
 * that Go build id, marked MMAP3_BUILDID_GO, and a capture handle; only
 * for a session that asked (MMAP3_FILTER_DERIVED): to others it has no
 * build-id, as before 2.5.
 */
TEST_F(capture, go_build_id_derived_when_asked)
{
	static const char desc[] =
		"6R_pxBuKg5vk3kvZwQVd/ukQA5nNnHTfSGpfN2UP4/HzaOZOEgyhmnkGcEnDgd/BLr8tBvlOl-jYey4eUb8";
	static const uint8_t want[20] = {
		0x64, 0xcd, 0x3e, 0x98, 0x78, 0x20, 0x98, 0xc1, 0x31, 0x6c,
		0x00, 0xa6, 0x30, 0x10, 0xe6, 0xf4, 0x5b, 0xc6, 0x34, 0x82,
	};
	struct mmap3_record_mmap *m;
	struct records r2 = { };
	int fd2 = session_open();

	ASSERT_LE(0, fd2);
	ASSERT_EQ(0, write_go_elf(DIR "/go_only", desc));
	ASSERT_EQ(0, session_filter(self->fd, MMAP3_FILTER_DERIVED | MMAP3_FILTER_CAPTURE, 1,
				    &(pid_t){ getpid() }));
	ASSERT_EQ(0, session_filter(fd2, MMAP3_FILTER_CAPTURE, 1, &(pid_t){ getpid() }));
	enable_and_skip_dump(_metadata, self->fd, &self->r);
	enable_and_skip_dump(_metadata, fd2, &r2);
	ASSERT_NE(MAP_FAILED, map_exec(DIR "/go_only"));
	ASSERT_EQ(0, flush_and_read(self->fd, &self->r));
	ASSERT_EQ(0, flush_and_read(fd2, &r2));

	m = find_mmap(&self->r, getpid(), DIR "/go_only", 0);
	ASSERT_NE(NULL, m);
	EXPECT_TRUE(build_id_is(&m->build_id, want, sizeof(want)));
	EXPECT_EQ(MMAP3_BUILDID_GO, m->build_id.kind);
	EXPECT_NE(0, m->capture);
	m = find_mmap(&r2, getpid(), DIR "/go_only", 0);
	ASSERT_NE(NULL, m);
	EXPECT_EQ(MMAP3_BUILDID_NO_NOTE, m->build_id.status);
	EXPECT_EQ(0, m->build_id.size);
	EXPECT_EQ(0, m->build_id.kind);
	EXPECT_EQ(0, m->capture);
	close(fd2);
	records_free(&r2);
	unlink(DIR "/go_only");
}

/*
 * An ELF file with no build-id note of either kind gets an id of its
 * bytes (MMAP3_BUILDID_CONTENT), for sessions that ask: the same bytes
 * elsewhere the same id, the file rewritten in place (same size, one
 * byte changed) another.
 */
TEST_F(capture, content_id_for_a_file_without_notes)
{
	struct mmap3_record_mmap *m, *m2;
	struct records r2 = { };
	uint8_t first[MMAP3_BUILD_ID_SIZE_MAX];
	struct elf e;
	int fd2 = session_open(), i;

	ASSERT_LE(0, fd2);
	for (i = 0; i < 2; i++) {
		e = new_elf(1, 0, 1, 0);
		add_ph(&e, 0, 1, 0, 4096, 4096);	/* PT_LOAD, no note */
		put(&e, 4095, 0x5a, 1);
		ASSERT_EQ(0, write_elf_file(i ? DIR "/nonote_copy" : DIR "/nonote", &e));
	}
	ASSERT_EQ(0, session_filter(self->fd, MMAP3_FILTER_DERIVED, 1, &(pid_t){ getpid() }));
	ASSERT_EQ(0, session_filter(fd2, 0, 1, &(pid_t){ getpid() }));
	enable_and_skip_dump(_metadata, self->fd, &self->r);
	enable_and_skip_dump(_metadata, fd2, &r2);
	ASSERT_NE(MAP_FAILED, map_exec(DIR "/nonote"));
	ASSERT_NE(MAP_FAILED, map_exec(DIR "/nonote_copy"));
	ASSERT_EQ(0, flush_and_read(self->fd, &self->r));
	ASSERT_EQ(0, flush_and_read(fd2, &r2));

	m = find_mmap(&self->r, getpid(), DIR "/nonote", 0);
	ASSERT_NE(NULL, m);
	EXPECT_EQ(MMAP3_BUILDID_FOUND, m->build_id.status);
	EXPECT_EQ(MMAP3_BUILDID_CONTENT, m->build_id.kind);
	EXPECT_EQ(20, m->build_id.size);
	memcpy(first, m->build_id.data, sizeof(first));
	m2 = find_mmap(&self->r, getpid(), DIR "/nonote_copy", 0);
	ASSERT_NE(NULL, m2);
	EXPECT_TRUE(build_id_is(&m2->build_id, first, 20)) {
		TH_LOG("the same bytes at another path: another id");
	}
	m = find_mmap(&r2, getpid(), DIR "/nonote", 0);
	ASSERT_NE(NULL, m);
	EXPECT_EQ(MMAP3_BUILDID_NO_NOTE, m->build_id.status);
	EXPECT_EQ(0, m->build_id.kind);

	/* Rewritten in place, one byte in its middle: a new id. */
	e = new_elf(1, 0, 1, 0);
	add_ph(&e, 0, 1, 0, 4096, 4096);
	put(&e, 4095, 0x5a, 1);
	put(&e, 2048, 0x01, 1);
	ASSERT_EQ(0, write_elf_file(DIR "/nonote", &e));
	records_free(&self->r);
	ASSERT_NE(MAP_FAILED, map_exec(DIR "/nonote"));
	ASSERT_EQ(0, flush_and_read(self->fd, &self->r));
	m = find_mmap(&self->r, getpid(), DIR "/nonote", 0);
	ASSERT_NE(NULL, m);
	EXPECT_EQ(MMAP3_BUILDID_CONTENT, m->build_id.kind);
	EXPECT_FALSE(build_id_is(&m->build_id, first, 20)) {
		TH_LOG("rewritten in place: the old id");
	}
	close(fd2);
	records_free(&r2);
	unlink(DIR "/nonote");
	unlink(DIR "/nonote_copy");
}

TEST_F(capture, mprotect_to_exec)
{
	struct mmap3_record_mmap *m;
	uint8_t a[20];
	void *p;
	int fd;

	ASSERT_EQ(0, write_elf(DIR "/mprotect", 1, 0, 0x33, 20, 256, a));
	enable_and_skip_dump(_metadata, self->fd, &self->r);
	fd = open(DIR "/mprotect", O_RDONLY);
	ASSERT_LE(0, fd);
	p = mmap(NULL, 4096, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	ASSERT_NE(MAP_FAILED, p);
	ASSERT_EQ(0, flush_and_read(self->fd, &self->r));
	EXPECT_EQ(NULL, find_mmap(&self->r, getpid(), DIR "/mprotect", 0));
	ASSERT_EQ(0, mprotect(p, 4096, PROT_READ | PROT_EXEC));
	ASSERT_EQ(0, flush_and_read(self->fd, &self->r));
	m = find_mmap(&self->r, getpid(), DIR "/mprotect", 0);
	ASSERT_NE(NULL, m);
	EXPECT_EQ(PROT_READ | PROT_EXEC, m->prot);
	EXPECT_EQ((uint64_t)(uintptr_t)p, m->addr);
	EXPECT_TRUE(build_id_is(&m->build_id, a, 20));
	munmap(p, 4096);
}

TEST_F(capture, elf32_big_endian_and_note_past_first_page)
{
	struct mmap3_record_mmap *m;
	uint8_t a[20], b[32];
	void *p1, *p2;

	ASSERT_EQ(0, write_elf(DIR "/elf32be", 0, 1, 0x44, 20, 128, a));
	ASSERT_EQ(0, write_elf(DIR "/farnote", 1, 0, 0x55, 32, 5 * 4096 + 8, b));
	enable_and_skip_dump(_metadata, self->fd, &self->r);
	p1 = map_exec(DIR "/elf32be");
	p2 = map_exec(DIR "/farnote");
	ASSERT_NE(MAP_FAILED, p1);
	ASSERT_NE(MAP_FAILED, p2);
	ASSERT_EQ(0, flush_and_read(self->fd, &self->r));
	m = find_mmap(&self->r, getpid(), DIR "/elf32be", 0);
	ASSERT_NE(NULL, m);
	EXPECT_TRUE(build_id_is(&m->build_id, a, 20));
	EXPECT_TRUE(build_id_matches_file(&m->build_id, DIR "/elf32be"));
	m = find_mmap(&self->r, getpid(), DIR "/farnote", 0);
	ASSERT_NE(NULL, m);
	EXPECT_TRUE(build_id_is(&m->build_id, b, 32));
	EXPECT_TRUE(build_id_matches_file(&m->build_id, DIR "/farnote"));
	munmap(p1, 4096);
	munmap(p2, 4096);
}

TEST_F(capture, non_elf_file_still_recorded)
{
	struct mmap3_record_mmap *m;
	int fd;
	void *p;

	fd = open(DIR "/script", O_WRONLY | O_CREAT | O_TRUNC, 0755);
	ASSERT_LE(0, fd);
	ASSERT_EQ(22, write(fd, "#!/bin/sh\necho hello\n\n", 22));
	close(fd);
	enable_and_skip_dump(_metadata, self->fd, &self->r);
	p = map_exec(DIR "/script");
	ASSERT_NE(MAP_FAILED, p);
	ASSERT_EQ(0, flush_and_read(self->fd, &self->r));
	m = find_mmap(&self->r, getpid(), DIR "/script", 0);
	ASSERT_NE(NULL, m);
	EXPECT_EQ(MMAP3_BUILDID_NOT_ELF, m->build_id.status);
	EXPECT_EQ(0, m->build_id.size);
	munmap(p, 4096);
}

TEST_F(capture, module_load_and_unload)
{
	const char *ko = "/lib/mmap3/mmap3_test_module.ko";
	struct mmap3_record_header *h;
	int loads = 0, unloads = 0;

	enable_and_skip_dump(_metadata, self->fd, &self->r);
	ASSERT_EQ(0, load_ko(ko));
	ASSERT_EQ(0, syscall(SYS_delete_module, "mmap3_test_module", O_NONBLOCK));
	ASSERT_EQ(0, read_available(self->fd, &self->r));
	for_each_record(&self->r, h) {
		struct mmap3_record_module *m = (void *)h;

		if ((h->type != MMAP3_RECORD_MODULE_LOAD && h->type != MMAP3_RECORD_MODULE_UNLOAD) ||
		    strcmp(m->name, "mmap3_test_module"))
			continue;
		EXPECT_TRUE(build_id_matches_file(&m->build_id, ko));
		EXPECT_NE(0, m->text_addr);
		EXPECT_NE(0, m->text_size);
		loads += h->type == MMAP3_RECORD_MODULE_LOAD;
		unloads += h->type == MMAP3_RECORD_MODULE_UNLOAD;
	}
	EXPECT_EQ(1, loads);
	EXPECT_EQ(1, unloads);
}

/* @h as the dump's record of a loaded module, else NULL. */
static const struct mmap3_record_module *dumped_module(const struct mmap3_record_header *h)
{
	const struct mmap3_record_module *m = (const void *)h;

	return h->type == MMAP3_RECORD_MODULE_LOAD && (m->flags & MMAP3_MODULE_DUMP) ? m : NULL;
}

/*
 * The dump names every module /proc/modules lists, once each, and nothing
 * else: walking the list from our own entry, its head (in the kernel
 * image, inside the vmalloc range on arm64) is not a module.
 */
static void dump_is_proc_modules(struct __test_metadata *_metadata, struct records *r)
{
	char line[512], listed[512][MMAP3_MODULE_NAME_LEN];
	const struct mmap3_record_module *m;
	struct mmap3_record_header *h;
	int nr_listed = 0, dumped = 0, i;
	FILE *f;

	for_each_record(r, h) {
		m = dumped_module(h);
		if (!m)
			continue;
		dumped++;
		ASSERT_NE(NULL, memchr(m->name, 0, sizeof(m->name)));
	}
	f = fopen("/proc/modules", "r");
	ASSERT_NE(NULL, f);
	while (fgets(line, sizeof(line), f)) {
		ASSERT_LT(nr_listed, 512);
		if (sscanf(line, "%63s", listed[nr_listed]) == 1)
			nr_listed++;
	}
	fclose(f);
	for (i = 0; i < nr_listed; i++) {
		int times = 0;

		for_each_record(r, h) {
			m = dumped_module(h);
			times += m && !strcmp(m->name, listed[i]);
		}
		if (times != 1)
			TH_LOG("%s: dumped %d times", listed[i], times);
		EXPECT_EQ(1, times);
	}
	/* Each listed name dumped once: any record more is not a module. */
	if (dumped != nr_listed)
		TH_LOG("%d modules dumped, %d listed in /proc/modules", dumped, nr_listed);
	EXPECT_EQ(nr_listed, dumped);
}

TEST_F(capture, dump_lists_loaded_modules)
{
	const char *ko = "/lib/mmap3/mmap3_test_module.ko";
	struct mmap3_record_header *h;
	int found = 0, self_found = 0;

	ASSERT_EQ(0, load_ko(ko));
	ASSERT_EQ(0, ioctl(self->fd, MMAP3_IOC_ENABLE));
	ASSERT_EQ(0, read_dump(self->fd, &self->r));
	dump_is_proc_modules(_metadata, &self->r);
	for_each_record(&self->r, h) {
		const struct mmap3_record_module *m = dumped_module(h);

		if (!m)
			continue;
		if (!strcmp(m->name, "mmap3_test_module")) {
			found++;
			EXPECT_TRUE(build_id_matches_file(&m->build_id, ko));
		}
		if (!strcmp(m->name, "mmap3")) {
			self_found++;
			EXPECT_TRUE(build_id_matches_file(&m->build_id, getenv("MMAP3_KO")));
		}
	}
	EXPECT_EQ(1, found);
	EXPECT_EQ(1, self_found);
	syscall(SYS_delete_module, "mmap3_test_module", O_NONBLOCK);
}

/* A child that maps @path and waits for SIGKILL. */
static pid_t child_mapping(const char *path)
{
	pid_t pid = fork_child();

	if (pid == 0) {
		if (map_exec(path) == MAP_FAILED)
			_exit(1);
		pause();
		_exit(0);
	}
	return pid;
}

TEST_F(capture, pid_filter)
{
	uint8_t a[20];
	pid_t c1, c2;

	ASSERT_EQ(0, write_elf(DIR "/filtered", 1, 0, 0x66, 20, 256, a));
	ASSERT_EQ(0, session_filter(self->fd, 0, 1, &(pid_t){ getpid() }));
	enable_and_skip_dump(_metadata, self->fd, &self->r);
	c1 = child_mapping(DIR "/filtered");
	ASSERT_NE(MAP_FAILED, map_exec(DIR "/filtered"));
	c2 = child_mapping(DIR "/filtered");
	usleep(100000);
	ASSERT_EQ(0, flush_and_read(self->fd, &self->r));
	EXPECT_NE(NULL, find_mmap(&self->r, getpid(), DIR "/filtered", 0));
	EXPECT_EQ(NULL, find_mmap(&self->r, c1, DIR "/filtered", 0));
	EXPECT_EQ(NULL, find_mmap(&self->r, c2, DIR "/filtered", 0));
	kill(c1, SIGKILL);
	kill(c2, SIGKILL);
	waitpid(c1, NULL, 0);
	waitpid(c2, NULL, 0);
}

/*
 * The state dump of a filtered session looks at the processes it wants
 * alone: no other's files are read (as its user), and DUMP_DONE counts
 * the one process.
 */
TEST_F(capture, dump_reads_only_the_filtered_processes)
{
	struct mmap3_record_dump_done *done = NULL;
	struct mmap3_record_header *h;
	pid_t kids[8];
	uint8_t a[20];
	int i;

	ASSERT_EQ(0, write_elf(DIR "/dumpfilter", 1, 0, 0x67, 20, 256, a));
	for (i = 0; i < 8; i++)
		ASSERT_LT(0, kids[i] = child_mapping(DIR "/dumpfilter"));
	usleep(200000);
	ASSERT_EQ(0, session_filter(self->fd, 0, 1, &kids[3]));
	ASSERT_EQ(0, ioctl(self->fd, MMAP3_IOC_ENABLE));
	ASSERT_EQ(0, read_dump(self->fd, &self->r));
	for_each_record(&self->r, h)
		if (h->type == MMAP3_RECORD_DUMP_DONE)
			done = (void *)h;
	ASSERT_NE(NULL, done);
	EXPECT_EQ(1, done->tasks);
	EXPECT_EQ(0, done->tasks_skipped);
	EXPECT_NE(NULL, find_mmap(&self->r, kids[3], DIR "/dumpfilter", 1));
	EXPECT_EQ(NULL, find_mmap(&self->r, kids[2], DIR "/dumpfilter", 1));
	for (i = 0; i < 8; i++) {
		kill(kids[i], SIGKILL);
		waitpid(kids[i], NULL, 0);
	}
}

TEST_F(capture, two_sessions_see_every_record)
{
	struct records r2 = { };
	struct mmap3_record_mmap *m1, *m2;
	int fd2 = session_open();
	uint8_t a[20];

	ASSERT_LE(0, fd2);
	ASSERT_EQ(0, write_elf(DIR "/shared", 1, 0, 0x77, 20, 256, a));
	enable_and_skip_dump(_metadata, self->fd, &self->r);
	enable_and_skip_dump(_metadata, fd2, &r2);
	ASSERT_NE(MAP_FAILED, map_exec(DIR "/shared"));
	ASSERT_EQ(0, flush_and_read(self->fd, &self->r));
	ASSERT_EQ(0, flush_and_read(fd2, &r2));
	m1 = find_mmap(&self->r, getpid(), DIR "/shared", 0);
	m2 = find_mmap(&r2, getpid(), DIR "/shared", 0);
	ASSERT_NE(NULL, m1);
	ASSERT_NE(NULL, m2);
	EXPECT_EQ(m1->header.time, m2->header.time);
	EXPECT_TRUE(build_id_is(&m1->build_id, a, 20));
	EXPECT_TRUE(build_id_is(&m2->build_id, a, 20));
	close(fd2);
	records_free(&r2);
}

TEST_F(capture, full_buffer_gives_lost_record_with_count)
{
	/* A 64 KiB buffer holds about 400 of these records. */
	const int n = 1200;
	struct mmap3_record_header *h;
	struct mmap3_stats st = { .size = sizeof(st) };
	uint64_t lost = 0, live = 0;
	uint8_t a[20];
	int i;

	ASSERT_EQ(0, write_elf(DIR "/many", 1, 0, 0x88, 20, 256, a));
	ASSERT_EQ(0, ioctl(self->fd, MMAP3_IOC_SET_BUFFER_SIZE, &(uint64_t){ 64 << 10 }));
	ASSERT_EQ(0, session_filter(self->fd, 0, 1, &(pid_t){ getpid() }));
	enable_and_skip_dump(_metadata, self->fd, &self->r);
	for (i = 0; i < n; i++) {
		void *p = map_exec(DIR "/many");

		ASSERT_NE(MAP_FAILED, p);
		munmap(p, 4096);
	}
	ASSERT_EQ(0, ioctl(self->fd, MMAP3_IOC_FLUSH));
	ASSERT_EQ(0, ioctl(self->fd, MMAP3_IOC_GET_STATS, &st));
	ASSERT_EQ(0, read_available(self->fd, &self->r));
	/* A LOST record is written once there is room again. */
	ASSERT_EQ(0, ioctl(self->fd, MMAP3_IOC_DISABLE));
	ASSERT_EQ(0, read_available(self->fd, &self->r));
	for_each_record(&self->r, h) {
		if (h->type == MMAP3_RECORD_LOST)
			lost += ((struct mmap3_record_lost *)h)->lost;
		else if (h->type == MMAP3_RECORD_MMAP)
			live++;
	}
	EXPECT_LT(0, lost);
	EXPECT_EQ(st.lost, lost);
	EXPECT_EQ((uint64_t)n, live + lost);
}

TEST_F(capture, dump_covers_existing_process)
{
	struct mmap3_record_header *h;
	struct mmap3_record_mmap *m;
	int seen_done = 0, before_done = 0;
	uint8_t a[20];
	pid_t c;

	ASSERT_EQ(0, write_elf(DIR "/existing", 1, 0, 0x99, 20, 256, a));
	c = child_mapping(DIR "/existing");
	ASSERT_LT(0, c);
	usleep(100000);
	ASSERT_EQ(0, ioctl(self->fd, MMAP3_IOC_ENABLE));
	ASSERT_EQ(0, read_dump(self->fd, &self->r));
	for_each_record(&self->r, h) {
		m = (void *)h;
		if (h->type == MMAP3_RECORD_DUMP_DONE)
			seen_done = 1;
		if (h->type == MMAP3_RECORD_MMAP && (pid_t)m->pid == c &&
		    !strcmp(m->path, DIR "/existing") && (m->flags & MMAP3_MMAP_DUMP))
			before_done += !seen_done;
	}
	EXPECT_EQ(1, before_done);
	m = find_mmap(&self->r, c, DIR "/existing", 1);
	ASSERT_NE(NULL, m);
	EXPECT_TRUE(build_id_is(&m->build_id, a, 20));
	/* The child's executable too, with the right build-id. */
	m = find_mmap(&self->r, c, "/selftests/capture_test", 1);
	ASSERT_NE(NULL, m);
	EXPECT_TRUE(build_id_matches_file(&m->build_id, m->path));
	kill(c, SIGKILL);
	waitpid(c, NULL, 0);
}

TEST_F(capture, clock_monotonic)
{
	struct mmap3_record_mmap *m;
	struct timespec t0, t1;
	uint8_t a[20];
	void *p;

	ASSERT_EQ(0, write_elf(DIR "/clock", 1, 0, 0x12, 20, 256, a));
	ASSERT_EQ(0, ioctl(self->fd, MMAP3_IOC_SET_CLOCK, &(int){ CLOCK_MONOTONIC }));
	enable_and_skip_dump(_metadata, self->fd, &self->r);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	p = map_exec(DIR "/clock");
	clock_gettime(CLOCK_MONOTONIC, &t1);
	ASSERT_NE(MAP_FAILED, p);
	ASSERT_EQ(0, flush_and_read(self->fd, &self->r));
	m = find_mmap(&self->r, getpid(), DIR "/clock", 0);
	ASSERT_NE(NULL, m);
	EXPECT_LE(t0.tv_sec * 1000000000ull + t0.tv_nsec, m->header.time);
	EXPECT_GE(t1.tv_sec * 1000000000ull + t1.tv_nsec, m->header.time);
	munmap(p, 4096);
}

TEST_F(capture, read_poll_and_errors)
{
	struct pollfd pfd = { .fd = self->fd, .events = POLLIN };
	char small[8];

	EXPECT_EQ(-1, ioctl(self->fd, MMAP3_IOC_SET_BUFFER_SIZE, &(uint64_t){ 12345 }));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(-1, ioctl(self->fd, MMAP3_IOC_SET_CLOCK, &(int){ 12345 }));
	EXPECT_EQ(EINVAL, errno);
	/* Never enabled: nothing yet, but not the end either. */
	fcntl(self->fd, F_SETFL, O_NONBLOCK);
	EXPECT_EQ(-1, read(self->fd, small, sizeof(small)));
	EXPECT_EQ(EAGAIN, errno);
	EXPECT_EQ(0, poll(&pfd, 1, 0));
	fcntl(self->fd, F_SETFL, 0);
	ASSERT_EQ(0, ioctl(self->fd, MMAP3_IOC_ENABLE));
	EXPECT_EQ(-1, ioctl(self->fd, MMAP3_IOC_ENABLE));
	EXPECT_EQ(EBUSY, errno);
	EXPECT_EQ(-1, ioctl(self->fd, MMAP3_IOC_SET_CLOCK, &(int){ CLOCK_MONOTONIC }));
	EXPECT_EQ(EBUSY, errno);
	EXPECT_EQ(1, poll(&pfd, 1, 1000));
	EXPECT_TRUE(pfd.revents & POLLIN);
	/* Too small for the next record. */
	EXPECT_EQ(-1, read(self->fd, small, sizeof(small)));
	EXPECT_EQ(EINVAL, errno);
	ASSERT_EQ(0, read_dump(self->fd, &self->r));
	pfd.revents = 0;
	EXPECT_EQ(0, poll(&pfd, 1, 10));
	fcntl(self->fd, F_SETFL, O_NONBLOCK);
	EXPECT_EQ(-1, read(self->fd, small, sizeof(small)));
	EXPECT_EQ(EAGAIN, errno);
}

TEST_F(capture, pid_namespace)
{
	int pipefd[2], status;
	pid_t pid;

	ASSERT_EQ(0, pipe(pipefd));
	ASSERT_EQ(0, unshare(CLONE_NEWPID));
	pid = fork_child();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		/* pid 1 of a new namespace: sees itself only. */
		struct records r = { };
		struct mmap3_record_header *h;
		int fd = session_open(), others = 0, me = 0;

		if (fd < 0 || ioctl(fd, MMAP3_IOC_ENABLE) || read_dump(fd, &r))
			_exit(10);
		for_each_record(&r, h) {
			struct mmap3_record_mmap *m = (void *)h;

			if (h->type != MMAP3_RECORD_MMAP)
				continue;
			if (m->pid == 1)
				me++;
			else
				others++;
		}
		_exit(others ? 11 : !me ? 12 : 0);
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	EXPECT_TRUE(WIFEXITED(status));
	EXPECT_EQ(0, WEXITSTATUS(status));
}

static uint64_t first_module_addr(int fd)
{
	struct records r = { };
	struct mmap3_record_header *h;
	uint64_t addr = ~0ull;

	if (ioctl(fd, MMAP3_IOC_ENABLE) || read_dump(fd, &r))
		return ~0ull;
	for_each_record(&r, h)
		if (h->type == MMAP3_RECORD_MODULE_LOAD) {
			addr = ((struct mmap3_record_module *)h)->text_addr;
			break;
		}
	records_free(&r);
	return addr;
}

TEST_F(capture, kptr_restrict_hides_module_addresses)
{
	uint64_t addr;
	int fd;

	ASSERT_EQ(0, write_file("/proc/sys/kernel/kptr_restrict", "2"));
	fd = session_open();
	ASSERT_LE(0, fd);
	EXPECT_EQ(0, first_module_addr(fd));
	close(fd);
	ASSERT_EQ(0, write_file("/proc/sys/kernel/kptr_restrict", "0"));
	fd = session_open();
	ASSERT_LE(0, fd);
	addr = first_module_addr(fd);
	EXPECT_NE(0, addr);
	EXPECT_NE(~0ull, addr);
	close(fd);
	write_file("/proc/sys/kernel/kptr_restrict", "1");
}

TEST_F(capture, data_mappings_only_when_asked)
{
	struct mmap3_record_mmap *m;
	struct records r2 = { };
	int fd2 = session_open(), fd;
	uint8_t a[20];
	void *p;

	ASSERT_LE(0, fd2);
	ASSERT_EQ(0, write_elf(DIR "/data", 1, 0, 0x13, 20, 256, a));
	ASSERT_EQ(0, session_filter(self->fd, MMAP3_FILTER_DATA, 0, NULL));
	enable_and_skip_dump(_metadata, self->fd, &self->r);
	enable_and_skip_dump(_metadata, fd2, &r2);
	fd = open(DIR "/data", O_RDONLY);
	ASSERT_LE(0, fd);
	p = mmap(NULL, 4096, PROT_READ, MAP_SHARED, fd, 0);
	close(fd);
	ASSERT_NE(MAP_FAILED, p);
	ASSERT_EQ(0, flush_and_read(self->fd, &self->r));
	ASSERT_EQ(0, flush_and_read(fd2, &r2));
	m = find_mmap(&self->r, getpid(), DIR "/data", 0);
	ASSERT_NE(NULL, m);
	EXPECT_EQ(PROT_READ, m->prot);
	EXPECT_TRUE(m->flags & MMAP3_MMAP_SHARED);
	EXPECT_TRUE(build_id_is(&m->build_id, a, 20));
	EXPECT_EQ(NULL, find_mmap(&r2, getpid(), DIR "/data", 0));
	munmap(p, 4096);
	close(fd2);
	records_free(&r2);
}

TEST_F(capture, cache_hits_and_invalidations_counted)
{
	struct mmap3_stats s0 = { .size = sizeof(s0) }, s1 = { .size = sizeof(s1) };
	struct mmap3_stats s2 = { .size = sizeof(s2) };
	uint8_t a[20], b[20];
	void *p;
	int i;

	ASSERT_EQ(0, write_elf(DIR "/counted", 1, 0, 0x14, 20, 256, a));
	enable_and_skip_dump(_metadata, self->fd, &self->r);
	ASSERT_EQ(0, ioctl(self->fd, MMAP3_IOC_GET_STATS, &s0));
	p = map_exec(DIR "/counted");
	munmap(p, 4096);
	p = map_exec(DIR "/counted");
	munmap(p, 4096);
	ASSERT_EQ(0, ioctl(self->fd, MMAP3_IOC_FLUSH));
	ASSERT_EQ(0, ioctl(self->fd, MMAP3_IOC_GET_STATS, &s1));
	EXPECT_LE(s0.cache_misses + 1, s1.cache_misses);
	EXPECT_LE(s0.cache_hits + 1, s1.cache_hits);
	EXPECT_LE(s0.parse[MMAP3_BUILDID_FOUND] + 1, s1.parse[MMAP3_BUILDID_FOUND]);
	EXPECT_LE(1, s1.cache_entries);
	EXPECT_EQ(16384, s1.cache_capacity);

	/*
	 * Two states of an inode are kept (a mapping queued before a
	 * rewrite still finds its id); a third drops the oldest.
	 */
	for (i = 0; i < 2; i++) {
		usleep(20000);
		ASSERT_EQ(0, write_elf(DIR "/counted", 1, 0, 0x15 + i, 20, 256, b));
		p = map_exec(DIR "/counted");
		munmap(p, 4096);
		ASSERT_EQ(0, ioctl(self->fd, MMAP3_IOC_FLUSH));
		memset(&s2, 0, sizeof(s2));
		s2.size = sizeof(s2);
		ASSERT_EQ(0, ioctl(self->fd, MMAP3_IOC_GET_STATS, &s2));
		EXPECT_EQ(s1.cache_invalidations + i, s2.cache_invalidations);
	}
	EXPECT_EQ(0, s2.lost);
}

TEST_F(capture, read_blocks_until_a_record)
{
	struct mmap3_record_mmap *m;
	char buf[8192];
	uint8_t a[20];
	ssize_t n;
	pid_t c;

	ASSERT_EQ(0, write_elf(DIR "/later", 1, 0, 0x16, 20, 256, a));
	ASSERT_EQ(0, session_filter(self->fd, 0, 0, NULL));
	enable_and_skip_dump(_metadata, self->fd, &self->r);
	c = fork_child();
	ASSERT_LE(0, c);
	if (c == 0) {
		usleep(200000);
		_exit(map_exec(DIR "/later") == MAP_FAILED);
	}
	/* Blocks until the child maps (or anything else does). */
	for (;;) {
		n = read(self->fd, buf, sizeof(buf));
		ASSERT_LT(0, n);
		self->r.buf = realloc(self->r.buf, self->r.len + n);
		memcpy(self->r.buf + self->r.len, buf, n);
		self->r.len += n;
		m = find_mmap(&self->r, c, DIR "/later", 0);
		if (m)
			break;
	}
	EXPECT_TRUE(build_id_is(&m->build_id, a, 20));
	waitpid(c, NULL, 0);
}

/* cache_entries=2: distinct files evict each other, and still resolve. */
/* A session's buffer mapped: its control page writable, the records not. */
struct mapped {
	struct mmap3_ring_control *ctl;
	const char *data;
	uint64_t size;
	uint64_t pad_sizes[8];	/* bit N: a pad of N * 8 bytes seen */
	uint64_t drained;	/* the head the last drain read up to */
};

static int map_buffer(int fd, struct mapped *m, uint64_t size)
{
	memset(m, 0, sizeof(*m));
	m->size = size;
	m->ctl = mmap(NULL, PAGE, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (m->ctl == MAP_FAILED)
		return -1;
	m->data = mmap(NULL, size, PROT_READ, MAP_SHARED, fd, PAGE);
	return m->data == MAP_FAILED ? -1 : 0;
}

static void unmap_buffer(struct mapped *m)
{
	munmap(m->ctl, PAGE);
	munmap((void *)m->data, m->size);
}

/*
 * Append the records in [tail, head) to @r, skipping pads, and give
 * them back; -1 for a record that is not whole and sound in place, or
 * crosses the buffer's end.
 */
static int mapped_drain(struct mapped *m, struct records *r, int *pads)
{
	uint64_t head = __atomic_load_n(&m->ctl->head, __ATOMIC_ACQUIRE);
	uint64_t pos = m->ctl->tail;
	const struct mmap3_record_header *h;

	while (pos != head) {
		uint64_t at = pos & (m->size - 1);

		h = (const void *)(m->data + at);
		/* A pad may be 8 bytes: its type and size alone. */
		if (head - pos < sizeof(struct mmap3_record_pad) || h->size % 8 ||
		    h->size > head - pos || h->size > m->size - at)
			return -1;
		if (h->type == MMAP3_RECORD_PAD) {
			if (at + h->size != m->size)
				return -1;
			++*pads;
			if (h->size / 8 < 8 * 64)
				m->pad_sizes[h->size / 8 / 64] |= 1ULL << (h->size / 8 % 64);
		} else {
			if (h->size < sizeof(*h))
				return -1;
			r->buf = realloc(r->buf, r->len + h->size);
			memcpy(r->buf + r->len, h, h->size);
			r->len += h->size;
		}
		pos += h->size;
	}
	__atomic_store_n(&m->ctl->tail, pos, __ATOMIC_RELEASE);
	m->drained = head;
	return 0;
}

static void mapped_count(struct records *r, uint64_t *live, uint64_t *lost)
{
	struct mmap3_record_header *h;

	for_each_record(r, h) {
		if (h->type == MMAP3_RECORD_LOST)
			*lost += ((struct mmap3_record_lost *)h)->lost;
		else if (h->type == MMAP3_RECORD_MMAP)
			++*live;
	}
}

TEST(mapped_buffer_rules)
{
	int fd = open(MMAP3_DEVICE_PATH, O_RDWR | O_CLOEXEC), ro;
	struct mmap3_abi_version ver = { .size = sizeof(ver) };
	struct mapped m;
	char byte;
	void *p;

	ASSERT_LE(0, fd);
	ASSERT_EQ(0, ioctl(fd, MMAP3_IOC_ABI_VERSION, &ver));
	EXPECT_TRUE(ver.features & MMAP3_FEATURE_MAPPED_BUFFER);
	/* No buffer yet. */
	EXPECT_EQ(MAP_FAILED, mmap(NULL, PAGE, PROT_READ, MAP_SHARED, fd, 0));
	EXPECT_EQ(EINVAL, errno);
	ASSERT_EQ(0, ioctl(fd, MMAP3_IOC_SET_BUFFER_SIZE, &(uint64_t){ 64 << 10 }));
	EXPECT_EQ(MAP_FAILED, mmap(NULL, PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, 0));
	EXPECT_EQ(EINVAL, errno);
	/* The records are never writable, alone or with the control page. */
	EXPECT_EQ(MAP_FAILED, mmap(NULL, PAGE, PROT_READ | PROT_WRITE, MAP_SHARED, fd, PAGE));
	EXPECT_EQ(EPERM, errno);
	EXPECT_EQ(MAP_FAILED, mmap(NULL, 2 * PAGE, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0));
	EXPECT_EQ(EPERM, errno);
	/* Nothing past the buffer's end. */
	EXPECT_EQ(MAP_FAILED, mmap(NULL, (64 << 10) + PAGE, PROT_READ, MAP_SHARED, fd, PAGE));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(MAP_FAILED, mmap(NULL, PAGE, PROT_READ, MAP_SHARED, fd,
				   (off_t)(1 + (64 << 10) / PAGE) * PAGE));
	EXPECT_EQ(EINVAL, errno);
	/* A mapping refused leaves the buffer read()'s: no records yet, not EBUSY. */
	ASSERT_EQ(0, fcntl(fd, F_SETFL, O_NONBLOCK));
	EXPECT_EQ(-1, read(fd, &byte, 1));
	EXPECT_EQ(EAGAIN, errno);
	ASSERT_EQ(0, fcntl(fd, F_SETFL, 0));
	ASSERT_EQ(0, map_buffer(fd, &m, 64 << 10));
	EXPECT_EQ((uint64_t)64 << 10, m.ctl->size);
	EXPECT_EQ(0, m.ctl->head);
	EXPECT_EQ(0, m.ctl->tail);
	/* 2.6: the control says its own size. */
	EXPECT_EQ(sizeof(struct mmap3_ring_control), m.ctl->control_size);
	EXPECT_EQ(-1, mprotect((void *)m.data, PAGE, PROT_READ | PROT_WRITE));
	/* The whole device at once, read-only, shows the same control page. */
	p = mmap(NULL, PAGE + (64 << 10), PROT_READ, MAP_SHARED, fd, 0);
	ASSERT_NE(MAP_FAILED, p);
	EXPECT_EQ((uint64_t)64 << 10, ((struct mmap3_ring_control *)p)->size);
	munmap(p, PAGE + (64 << 10));
	/* Mapped, the buffer is its reader's: no resize, no read(). */
	EXPECT_EQ(-1, ioctl(fd, MMAP3_IOC_SET_BUFFER_SIZE, &(uint64_t){ 128 << 10 }));
	EXPECT_EQ(EBUSY, errno);
	EXPECT_EQ(-1, read(fd, &byte, 1));
	EXPECT_EQ(EBUSY, errno);
	unmap_buffer(&m);
	/* Opened read-only, the control page can be read, not written. */
	ro = open(MMAP3_DEVICE_PATH, O_RDONLY | O_CLOEXEC);
	ASSERT_LE(0, ro);
	ASSERT_EQ(0, ioctl(ro, MMAP3_IOC_SET_BUFFER_SIZE, &(uint64_t){ 64 << 10 }));
	EXPECT_EQ(MAP_FAILED, mmap(NULL, PAGE, PROT_READ | PROT_WRITE, MAP_SHARED, ro, 0));
	EXPECT_EQ(EACCES, errno);
	p = mmap(NULL, PAGE, PROT_READ, MAP_SHARED, ro, 0);
	ASSERT_NE(MAP_FAILED, p);
	EXPECT_EQ(-1, mprotect(p, PAGE, PROT_READ | PROT_WRITE));
	munmap(p, PAGE);
	close(ro);
	close(fd);
}

/*
 * An mmap() whose pages cannot be put in place (the debug kernel's
 * fail_page_alloc, filtered to the module's call chains, fails the page
 * tables vm_insert_page() allocates at an address no mapping was ever
 * near) leaves the buffer to read(), as if never tried; the next mmap()
 * works.  Before, the ring stayed mapped and read() gave EBUSY for the
 * session's life.
 */
TEST(failed_mmap_leaves_the_buffer_to_read)
{
	/* Its own top-level page table entry: every level below is allocated. */
	void *at = (void *)(64UL << 39);
	unsigned long start, end;
	int fd, err;
	long failed;
	char byte;
	void *p;

	if (access(FAIL_PAGE_ALLOC "/probability", W_OK))
		SKIP(return, "no fail_page_alloc: only the debug kernel can fail an mmap() there");
	ASSERT_EQ(0, module_range(&start, &end));
	fd = open(MMAP3_DEVICE_PATH, O_RDWR | O_CLOEXEC);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, ioctl(fd, MMAP3_IOC_SET_BUFFER_SIZE, &(uint64_t){ 64 << 10 }));
	/* The control page is allocated by a first mmap(), even one refused. */
	EXPECT_EQ(MAP_FAILED, mmap(NULL, PAGE, PROT_READ, MAP_SHARED, fd,
				   (off_t)(1 + (64 << 10) / PAGE) * PAGE));
	faults_set(FAIL_PAGE_ALLOC, "100", start, end);
	/* A page table is one page: the injector skips order 0 by default. */
	write_file(FAIL_PAGE_ALLOC "/min-order", "0");
	write_file(FAIL_PAGE_ALLOC "/task-filter", "Y");
	write_file("/proc/self/make-it-fail", "1");
	p = mmap(at, PAGE + (64 << 10), PROT_READ, MAP_SHARED | MAP_FIXED_NOREPLACE, fd, 0);
	err = errno;
	write_file("/proc/self/make-it-fail", "0");
	write_file(FAIL_PAGE_ALLOC "/probability", "0");
	write_file(FAIL_PAGE_ALLOC "/task-filter", "N");
	write_file(FAIL_PAGE_ALLOC "/min-order", "1");
	failed = faults_injected(FAIL_PAGE_ALLOC);
	ASSERT_LT(0, failed) {
		TH_LOG("no page table allocation under vm_insert_page() was made to fail");
	}
	ASSERT_EQ(MAP_FAILED, p);
	EXPECT_EQ(ENOMEM, err);
	/* read() still has the buffer: no records yet, not EBUSY. */
	ASSERT_EQ(0, fcntl(fd, F_SETFL, O_NONBLOCK));
	EXPECT_EQ(-1, read(fd, &byte, 1));
	EXPECT_EQ(EAGAIN, errno);
	p = mmap(NULL, PAGE + (64 << 10), PROT_READ, MAP_SHARED, fd, 0);
	ASSERT_NE(MAP_FAILED, p);
	EXPECT_EQ((uint64_t)64 << 10, ((struct mmap3_ring_control *)p)->size);
	EXPECT_EQ(sizeof(struct mmap3_ring_control),
		  ((struct mmap3_ring_control *)p)->control_size);
	EXPECT_EQ(-1, read(fd, &byte, 1));
	EXPECT_EQ(EBUSY, errno);
	munmap(p, PAGE + (64 << 10));
	close(fd);
}

/*
 * Read in place: every record, across the buffer's end many times; a
 * reader that stops reading loses records, counted, the last LOST
 * record placed at its poll() after DISABLE, then POLLHUP; a tail
 * outside [tail, head] is no change.
 */
TEST(mapped_buffer_gives_the_records)
{
	int fd = open(MMAP3_DEVICE_PATH, O_RDWR | O_CLOEXEC), i, pads = 0;
	struct pollfd pfd = { .fd = fd, .events = POLLIN };
	struct mmap3_record_mmap *m_rec;
	struct mmap3_stats st = { .size = sizeof(st) };
	uint64_t live = 0, lost = 0, tail;
	struct records r = { 0 };
	struct mapped m;
	uint8_t a[20];

	ASSERT_LE(0, fd);
	mkdir(DIR, 0755);
	ASSERT_EQ(0, write_elf(DIR "/inplace", 1, 0, 0x5a, 20, 256, a));
	ASSERT_EQ(0, ioctl(fd, MMAP3_IOC_SET_BUFFER_SIZE, &(uint64_t){ 64 << 10 }));
	ASSERT_EQ(0, session_filter(fd, 0, 1, &(pid_t){ getpid() }));
	ASSERT_EQ(0, map_buffer(fd, &m, 64 << 10));
	ASSERT_EQ(0, ioctl(fd, MMAP3_IOC_ENABLE));
	for (i = 0; i < 200 && !has_type(&r, MMAP3_RECORD_DUMP_DONE); i++) {
		poll(&pfd, 1, 100);
		ASSERT_EQ(0, mapped_drain(&m, &r, &pads));
	}
	ASSERT_TRUE(has_type(&r, MMAP3_RECORD_KERNEL));
	ASSERT_TRUE(has_type(&r, MMAP3_RECORD_DUMP_DONE));
	records_free(&r);

	/* About 400 records fill the buffer: 1,000 read as they come go round it. */
	for (i = 0; i < 1000; i++) {
		void *p = map_exec(DIR "/inplace");

		ASSERT_NE(MAP_FAILED, p);
		munmap(p, 4096);
		if (i % 50 == 49) {
			ASSERT_EQ(0, ioctl(fd, MMAP3_IOC_FLUSH));
			ASSERT_EQ(0, mapped_drain(&m, &r, &pads));
		}
	}
	mapped_count(&r, &live, &lost);
	EXPECT_EQ(1000, live);
	EXPECT_EQ(0, lost);
	EXPECT_LE(2, pads);
	m_rec = find_mmap(&r, getpid(), DIR "/inplace", 0);
	ASSERT_NE(NULL, m_rec);
	EXPECT_TRUE(build_id_is(&m_rec->build_id, a, 20));
	records_free(&r);

	/* A tail past the head, or behind the last one, is not taken. */
	EXPECT_EQ(0, poll(&pfd, 1, 0));
	tail = m.ctl->tail;
	m.ctl->tail = tail + 12345;
	EXPECT_EQ(0, poll(&pfd, 1, 0));
	m.ctl->tail = tail - 8;
	EXPECT_EQ(0, poll(&pfd, 1, 0));
	m.ctl->tail = tail;

	/* Not read meanwhile: 1,200 do not fit, and what was lost is counted. */
	live = 0;
	lost = 0;
	for (i = 0; i < 1200; i++) {
		void *p = map_exec(DIR "/inplace");

		ASSERT_NE(MAP_FAILED, p);
		munmap(p, 4096);
	}
	ASSERT_EQ(0, ioctl(fd, MMAP3_IOC_FLUSH));
	ASSERT_EQ(0, ioctl(fd, MMAP3_IOC_GET_STATS, &st));
	ASSERT_EQ(0, mapped_drain(&m, &r, &pads));
	ASSERT_EQ(0, ioctl(fd, MMAP3_IOC_DISABLE));
	/* Its poll() takes the tail and places the LOST record in the room made. */
	EXPECT_EQ(1, poll(&pfd, 1, 1000));
	EXPECT_TRUE(pfd.revents & POLLIN);
	ASSERT_EQ(0, mapped_drain(&m, &r, &pads));
	EXPECT_EQ(1, poll(&pfd, 1, 1000));
	EXPECT_TRUE(pfd.revents & POLLHUP);
	mapped_count(&r, &live, &lost);
	EXPECT_LT(0, lost);
	EXPECT_EQ(st.lost, lost);
	EXPECT_EQ(1200, live + lost);
	records_free(&r);
	unmap_buffer(&m);
	close(fd);
}

/*
 * The ring at every gap a record can leave before the buffer's end: the
 * records are placed as the uapi says (one that would cross the end
 * follows a pad to it, 8 bytes or more), and read whole, mapped or by
 * read().  Two files whose records differ by 8 bytes, mapped in numbers
 * chosen to leave each gap g from 0 to a record's size less 8, then one
 * more, which goes to the start after a pad of g bytes.
 */
FIXTURE(ring_gaps) {
	int fd;
	uint64_t size, pos;	/* the buffer, and where the next record goes */
	uint64_t pads[8];	/* bit N: a pad of N * 8 bytes made */
	uint64_t live, lost;
	struct mapped m;
	int mapped;
	char p1[64], p2[72];
};

FIXTURE_VARIANT(ring_gaps) {
	int mapped;
};

FIXTURE_VARIANT_ADD(ring_gaps, mapped) {
	.mapped = 1,
};

FIXTURE_VARIANT_ADD(ring_gaps, by_read) {
	.mapped = 0,
};

/*
 * Read what is there into @r, and follow the ring's head by the uapi's
 * rule; mapped, the module's own head must agree.
 */
static int ring_gaps_read(FIXTURE_DATA(ring_gaps) *self, struct records *r)
{
	struct mmap3_record_header *h;
	size_t from = r->len;
	int pads = 0;

	if (self->mapped ? mapped_drain(&self->m, r, &pads) : read_available(self->fd, r))
		return -1;
	for (h = (void *)(r->buf + from); (char *)h < r->buf + r->len; h = (void *)((char *)h + h->size)) {
		uint64_t to_end = self->size - (self->pos & (self->size - 1));

		if (h->size > to_end) {
			if (to_end / 8 < 8 * 64)
				self->pads[to_end / 8 / 64] |= 1ULL << (to_end / 8 % 64);
			self->pos += to_end;
		}
		self->pos += h->size;
		if (h->type == MMAP3_RECORD_LOST)
			self->lost += ((struct mmap3_record_lost *)h)->lost;
		else if (h->type == MMAP3_RECORD_MMAP && !(((struct mmap3_record_mmap *)h)->flags &
							   MMAP3_MMAP_DUMP))
			self->live++;
	}
	/* Against the head drained: the dump may write more meanwhile. */
	if (self->mapped && self->pos != self->m.drained) {
		fprintf(stderr, "# the module's head is %llu, the uapi's rule says %llu\n",
			(unsigned long long)self->m.drained, (unsigned long long)self->pos);
		return -1;
	}
	return 0;
}

/* Map @path @n times, reading every 64 (a 64 KiB buffer holds more). */
static int ring_gaps_map(FIXTURE_DATA(ring_gaps) *self, const char *path, uint64_t n)
{
	struct records r = { 0 };
	uint64_t i;
	int ret = 0;

	for (i = 0; i < n && !ret; i++) {
		void *p = map_exec(path);

		if (p == MAP_FAILED)
			return -1;
		munmap(p, 4096);
		if (i % 64 == 63 || i == n - 1)
			ret = ioctl(self->fd, MMAP3_IOC_FLUSH) || ring_gaps_read(self, &r);
	}
	records_free(&r);
	return ret;
}

FIXTURE_SETUP(ring_gaps)
{
	struct records r = { 0 };
	int i;

	mkdir(DIR, 0755);
	/* Paths of 40 and 48 bytes: records 8 bytes apart. */
	snprintf(self->p1, sizeof(self->p1), DIR "/gap-%0*d", 40 - (int)sizeof(DIR "/gap-") + 1, 1);
	snprintf(self->p2, sizeof(self->p2), DIR "/gap-%0*d", 48 - (int)sizeof(DIR "/gap-") + 1, 2);
	ASSERT_EQ(40, strlen(self->p1));
	ASSERT_EQ(48, strlen(self->p2));
	ASSERT_EQ(0, write_elf(self->p1, 1, 0, 0x61, 20, 256, NULL));
	ASSERT_EQ(0, write_elf(self->p2, 1, 0, 0x62, 20, 256, NULL));
	self->mapped = variant->mapped;
	self->size = 64 << 10;
	self->fd = open(MMAP3_DEVICE_PATH, O_RDWR | O_CLOEXEC);
	ASSERT_LE(0, self->fd);
	ASSERT_EQ(0, ioctl(self->fd, MMAP3_IOC_SET_BUFFER_SIZE, &self->size));
	ASSERT_EQ(0, session_filter(self->fd, 0, 1, &(pid_t){ getpid() }));
	if (self->mapped)
		ASSERT_EQ(0, map_buffer(self->fd, &self->m, self->size));
	ASSERT_EQ(0, ioctl(self->fd, MMAP3_IOC_ENABLE));
	for (i = 0; i < 200 && !has_type(&r, MMAP3_RECORD_DUMP_DONE); i++) {
		poll(&(struct pollfd){ .fd = self->fd, .events = POLLIN }, 1, 100);
		ASSERT_EQ(0, ring_gaps_read(self, &r));
	}
	ASSERT_TRUE(has_type(&r, MMAP3_RECORD_DUMP_DONE));
	records_free(&r);
}

FIXTURE_TEARDOWN(ring_gaps)
{
	if (self->mapped)
		unmap_buffer(&self->m);
	close(self->fd);
	unlink(self->p1);
	unlink(self->p2);
}

/* Can @n eighths be made of @a-eighth and (@a + 1)-eighth records? */
static int ring_gaps_split(uint64_t n, uint64_t a, uint64_t *x, uint64_t *y)
{
	for (*y = 0; *y <= a && *y * (a + 1) <= n; ++*y) {
		if ((n - *y * (a + 1)) % a == 0) {
			*x = (n - *y * (a + 1)) / a;
			return 1;
		}
	}
	return 0;
}

/*
 * Thousands of mappings: in the debug kernel under TCG, beside a second
 * guest, past the harness's default 30 s (CI, 2026-11-29).
 */
TEST_F_TIMEOUT(ring_gaps, records_whole_at_every_gap, 300)
{
	uint64_t a, b, g, x, y, n = 0, live0;
	struct records r = { 0 };
	struct mmap3_record_mmap *m;

	/* The two records' sizes, from the module. */
	munmap(map_exec(self->p1), 4096);
	munmap(map_exec(self->p2), 4096);
	ASSERT_EQ(0, ioctl(self->fd, MMAP3_IOC_FLUSH));
	ASSERT_EQ(0, ring_gaps_read(self, &r));
	m = find_mmap(&r, getpid(), self->p1, 0);
	ASSERT_NE(NULL, m);
	a = m->header.size;
	m = find_mmap(&r, getpid(), self->p2, 0);
	ASSERT_NE(NULL, m);
	b = m->header.size;
	records_free(&r);
	ASSERT_EQ(a + 8, b);
	live0 = self->live;

	for (g = 0; g < a; g += 8) {
		for (;;) {
			uint64_t to_end = self->size - (self->pos & (self->size - 1));

			if (to_end >= g && ring_gaps_split((to_end - g) / 8, a / 8, &x, &y))
				break;
			ASSERT_EQ(0, ring_gaps_map(self, self->p1, 1));
			n++;
		}
		ASSERT_EQ(0, ring_gaps_map(self, self->p1, x));
		ASSERT_EQ(0, ring_gaps_map(self, self->p2, y));
		ASSERT_EQ(g ? g : self->size, self->size - (self->pos & (self->size - 1)));
		ASSERT_EQ(0, ring_gaps_map(self, self->p1, 1));
		n += x + y + 1;
	}
	EXPECT_EQ(0, self->lost);
	EXPECT_EQ(n, self->live - live0);
	/* Every pad from 8 bytes to a record's less 8 was made (and, mapped, seen). */
	for (g = 8; g < a; g += 8) {
		EXPECT_TRUE(self->pads[g / 8 / 64] & (1ULL << (g / 8 % 64)));
		if (self->mapped)
			EXPECT_TRUE(self->m.pad_sizes[g / 8 / 64] & (1ULL << (g / 8 % 64)));
	}
	if (self->mapped)
		EXPECT_EQ(0, memcmp(self->pads, self->m.pad_sizes, sizeof(self->pads)));
}

TEST(cache_bounded_with_eviction)
{
	struct mmap3_stats st = { .size = sizeof(st) };
	const char *ko = getenv("MMAP3_KO");
	struct records r = { };
	char path[64];
	uint8_t id[8][20];
	int fd, i, kfd;

	ASSERT_NE(NULL, ko);
	mkdir(DIR, 0755);
	ASSERT_EQ(0, syscall(SYS_delete_module, "mmap3", O_NONBLOCK));
	kfd = open(ko, O_RDONLY | O_CLOEXEC);
	ASSERT_LE(0, kfd);
	ASSERT_EQ(0, syscall(SYS_finit_module, kfd, "cache_entries=2", 0));
	close(kfd);
	fd = session_open();
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, session_filter(fd, 0, 1, &(pid_t){ getpid() }));
	ASSERT_EQ(0, ioctl(fd, MMAP3_IOC_ENABLE));
	for (i = 0; i < 8; i++) {
		snprintf(path, sizeof(path), DIR "/evict%d", i);
		ASSERT_EQ(0, write_elf(path, 1, 0, 0x30 + i, 20, 256, id[i]));
		ASSERT_NE(MAP_FAILED, map_exec(path));
	}
	ASSERT_EQ(0, flush_and_read(fd, &r));
	ASSERT_EQ(0, ioctl(fd, MMAP3_IOC_GET_STATS, &st));
	EXPECT_EQ(2, st.cache_capacity);
	EXPECT_GE(2, st.cache_entries);
	EXPECT_LE(6, st.cache_evictions);
	for (i = 0; i < 8; i++) {
		struct mmap3_record_mmap *m;

		snprintf(path, sizeof(path), DIR "/evict%d", i);
		m = find_mmap(&r, getpid(), path, 0);
		ASSERT_NE(NULL, m);
		EXPECT_TRUE(build_id_is(&m->build_id, id[i], 20));
	}
	close(fd);
	free(r.buf);
	/* Back to the defaults for whatever runs next. */
	ASSERT_EQ(0, syscall(SYS_delete_module, "mmap3", O_NONBLOCK));
	kfd = open(ko, O_RDONLY | O_CLOEXEC);
	ASSERT_EQ(0, syscall(SYS_finit_module, kfd, "", 0));
	close(kfd);
}

TEST(unload_with_pending_work)
{
	int fd = session_open(), i;
	const char *ko = getenv("MMAP3_KO");
	uint8_t a[20];

	ASSERT_LE(0, fd);
	ASSERT_NE(NULL, ko);
	mkdir(DIR, 0755);
	ASSERT_EQ(0, write_elf(DIR "/pending", 1, 0, 0xab, 20, 256, a));
	ASSERT_EQ(0, ioctl(fd, MMAP3_IOC_ENABLE));
	for (i = 0; i < 500; i++) {
		void *p = map_exec(DIR "/pending");

		ASSERT_NE(MAP_FAILED, p);
		munmap(p, 4096);
	}
	/* Close and unload at once, with mappings still queued. */
	close(fd);
	ASSERT_EQ(0, syscall(SYS_delete_module, "mmap3", O_NONBLOCK));
	ASSERT_EQ(0, load_ko(ko));
}

TEST_HARNESS_MAIN
