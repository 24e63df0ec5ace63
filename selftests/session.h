/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the selftests of the module share: sessions, their records, ELF
 * files to map, module parameters.  For kselftest_harness.h tests run as
 * root inside a test VM.
 */
#ifndef MMAP3_SELFTEST_SESSION_H
#define MMAP3_SELFTEST_SESSION_H

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/mmap3.h>
#include <poll.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "elf_builder.h"

struct records {
	char *buf;
	size_t len;
};

#define for_each_record(r, h)							\
	for ((h) = (struct mmap3_record_header *)(r)->buf;			\
	     (char *)(h) < (r)->buf + (r)->len;					\
	     (h) = (struct mmap3_record_header *)((char *)(h) + (h)->size))

static inline int session_open(void)
{
	return open(MMAP3_DEVICE_PATH, O_RDONLY | O_CLOEXEC);
}

static inline int session_filter(int fd, uint32_t flags, int nr, const pid_t *pids)
{
	struct mmap3_filter f = { .size = sizeof(f), .flags = flags, .nr_pids = nr };
	int i;

	for (i = 0; i < nr; i++)
		f.pids[i] = pids[i];
	return ioctl(fd, MMAP3_IOC_SET_FILTER, &f);
}

/* Append what can be read now (after a flush) to @r. */
static inline int read_available(int fd, struct records *r)
{
	static char buf[1 << 16];
	ssize_t n;
	int flags = fcntl(fd, F_GETFL);

	fcntl(fd, F_SETFL, flags | O_NONBLOCK);
	while ((n = read(fd, buf, sizeof(buf))) > 0) {
		r->buf = realloc(r->buf, r->len + n);
		memcpy(r->buf + r->len, buf, n);
		r->len += n;
	}
	fcntl(fd, F_SETFL, flags);
	return n < 0 && errno != EAGAIN ? -1 : 0;
}

/* Has a record of @type arrived? */
static inline int has_type(struct records *r, uint32_t type)
{
	struct mmap3_record_header *h;

	for_each_record(r, h)
		if (h->type == type)
			return 1;
	return 0;
}

/*
 * Append records to @r until the state dump, which streams in after
 * MMAP3_IOC_ENABLE, is done (DUMP_DONE arrived); -1 after 20 s.
 */
static inline int read_dump(int fd, struct records *r)
{
	struct pollfd pfd = { .fd = fd, .events = POLLIN };
	int i;

	for (i = 0; i < 200 && !has_type(r, MMAP3_RECORD_DUMP_DONE); i++) {
		poll(&pfd, 1, 100);
		if (read_available(fd, r))
			return -1;
	}
	return has_type(r, MMAP3_RECORD_DUMP_DONE) ? 0 : -1;
}

/*
 * A session that may capture (MMAP3_FILTER_CAPTURE), enabled, its dump
 * read into @r: its descriptor, or -1.
 */
static inline int capture_session_open(struct records *r)
{
	int fd = session_open();

	if (fd < 0)
		return -1;
	if (session_filter(fd, MMAP3_FILTER_CAPTURE, 0, NULL) || ioctl(fd, MMAP3_IOC_ENABLE) ||
	    read_dump(fd, r)) {
		close(fd);
		return -1;
	}
	return fd;
}

static inline int flush_and_read(int fd, struct records *r)
{
	if (ioctl(fd, MMAP3_IOC_FLUSH))
		return -1;
	return read_available(fd, r);
}

static inline void records_free(struct records *r)
{
	free(r->buf);
	r->buf = NULL;
	r->len = 0;
}

/* A session of the caller's own mappings, enabled, past its dump: its fd, or -1. */
static inline int own_session_open(void)
{
	struct records r = { };
	int fd = session_open();

	if (fd < 0)
		return -1;
	if (session_filter(fd, 0, 1, &(pid_t){ getpid() }) || ioctl(fd, MMAP3_IOC_ENABLE) ||
	    read_dump(fd, &r)) {
		records_free(&r);
		close(fd);
		return -1;
	}
	records_free(&r);
	return fd;
}

/* The first live (not dumped) mapping record of @pid for @path. */
static inline struct mmap3_record_mmap *find_mmap(struct records *r, pid_t pid, const char *path,
					   int dump)
{
	struct mmap3_record_header *h;

	for_each_record(r, h) {
		struct mmap3_record_mmap *m = (void *)h;

		if (h->type != MMAP3_RECORD_MMAP || (pid && (pid_t)m->pid != pid))
			continue;
		if (!!(m->flags & MMAP3_MMAP_DUMP) != dump)
			continue;
		if (!path || !strcmp(m->path, path))
			return m;
	}
	return NULL;
}

static inline int count_type(struct records *r, uint32_t type)
{
	struct mmap3_record_header *h;
	int n = 0;

	for_each_record(r, h)
		n += h->type == type;
	return n;
}

static inline int build_id_is(const struct mmap3_build_id *bid, const uint8_t *id, size_t size)
{
	return bid->status == MMAP3_BUILDID_FOUND && bid->size == size &&
	       !memcmp(bid->data, id, size);
}

/* Write @e at @path (0755) and free it. */
static inline int write_elf_file(const char *path, struct elf *e)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0755), ret = -1;

	if (fd >= 0 && write(fd, e->buf, e->size) == (ssize_t)e->size)
		ret = 0;
	if (fd >= 0)
		close(fd);
	free(e->buf);
	return ret;
}

/* Write an ELF file whose build-id is @size bytes of @fill, noted at @note_off. */
static inline int write_elf(const char *path, int is64, int msb, uint8_t fill, uint32_t size,
		     uint64_t note_off, uint8_t *id_out)
{
	struct elf e = new_elf(is64, msb, 1, 0);
	uint8_t id[64];
	uint64_t end;

	memset(id, fill, sizeof(id));
	id[0] = (uint8_t)size;
	if (id_out)
		memcpy(id_out, id, size);
	end = add_buildid(&e, note_off, id, size, 4);
	add_ph(&e, 0, 4, note_off, end - note_off, 4);
	return write_elf_file(path, &e);
}

/* Write an ELF file whose one note is the Go build id @desc (as Go's linker before 1.24). */
static inline int write_go_elf(const char *path, const char *desc)
{
	struct elf e = new_elf(1, 0, 1, 0);
	uint64_t end;

	end = add_note(&e, 256, "Go\0", 4, 4, (const uint8_t *)desc, (uint32_t)strlen(desc), 4);
	add_ph(&e, 0, 4, 256, end - 256, 4);
	return write_elf_file(path, &e);
}

/* mmap @path PROT_READ|PROT_EXEC; the mapping stays. */
static inline void *map_exec(const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	void *p;

	if (fd < 0)
		return MAP_FAILED;
	p = mmap(NULL, 4096, PROT_READ | PROT_EXEC, MAP_PRIVATE, fd, 0);
	close(fd);
	return p;
}

/* fork(), for a child that must not outlive the test (killed with it). */
static inline pid_t fork_child(void)
{
	pid_t pid = fork();

	if (pid == 0)
		prctl(PR_SET_PDEATHSIG, SIGKILL);
	return pid;
}

static inline int pin_to_cpu(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	return sched_setaffinity(0, sizeof(set), &set);
}

/* Load the module at @path with @params ("" for none). */
static inline int load_ko_params(const char *path, const char *params)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC), ret;

	if (fd < 0)
		return -1;
	ret = syscall(SYS_finit_module, fd, params, 0);
	close(fd);
	return ret;
}

static inline int load_ko(const char *path)
{
	return load_ko_params(path, "");
}

/* Unload mmap3 and load it again ($MMAP3_KO) with @params. */
static inline int reload_mmap3(const char *params)
{
	const char *ko = getenv("MMAP3_KO");

	if (!ko || syscall(SYS_delete_module, "mmap3", O_NONBLOCK))
		return -1;
	return load_ko_params(ko, params);
}

/* Write @value to a file such as a sysctl or a module parameter. */
static inline int write_file(const char *path, const char *value)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC), ret;

	if (fd < 0)
		return -1;
	ret = write(fd, value, strlen(value)) == (ssize_t)strlen(value) ? 0 : -1;
	close(fd);
	return ret;
}

/* Test builds: hold the worker back for @ms at each run ("0": not). */
static inline int set_worker_delay(const char *ms)
{
	return write_file("/sys/module/mmap3/parameters/test_worker_delay_ms", ms);
}

/* The session's statistics; every field but size must be zero going in. */
/* Does the enabled session @fd record a mapping of @path made after its dump? */
static inline int session_records_a_mapping(int fd, const char *path)
{
	struct records r = { };
	int found;

	if (read_dump(fd, &r)) {
		fprintf(stderr, "# the session's dump did not end\n");
		return 0;
	}
	records_free(&r);
	if (map_exec(path) == MAP_FAILED || flush_and_read(fd, &r)) {
		fprintf(stderr, "# mapping %s or flushing the session failed\n", path);
		return 0;
	}
	found = !!find_mmap(&r, getpid(), path, 0);
	records_free(&r);
	return found;
}

#define PROBE_GRACE	"/sys/module/mmap3/parameters/probe_grace_ms"

/*
 * Does the listing @path (kprobes' or ftrace's) name perf_event_mmap
 * itself?  1, 0, or -1 if it cannot be read.
 */
static inline int lists_perf_event_mmap(const char *path)
{
	FILE *f = fopen(path, "re");
	char line[512], *p;
	int found = 0;

	if (!f)
		return -1;
	while (!found && fgets(line, sizeof(line), f))
		for (p = line; !found && (p = strstr(p, "perf_event_mmap")); p++)
			found = (p == line || !isalnum((unsigned char)p[-1])) &&
				!isalnum((unsigned char)p[15]) && p[15] != '_';
	fclose(f);
	return found;
}

/* perf_event_mmap patched (kprobes' list; ftrace's, where it has one). */
static inline int probe_patched(void)
{
	int k = lists_perf_event_mmap("/sys/kernel/debug/kprobes/list");
	int f = lists_perf_event_mmap("/sys/kernel/tracing/enabled_functions");

	return k < 0 ? -1 : k || f > 0;
}

/* Wait up to 10 s for the probe to be @want; whether it came. */
static inline int probe_becomes(int want)
{
	int i;

	for (i = 0; i < 100; i++) {
		if (probe_patched() == want)
			return 1;
		usleep(100000);
	}
	return 0;
}

static inline int get_stats(int fd, struct mmap3_stats *st)
{
	memset(st, 0, sizeof(*st));
	st->size = sizeof(*st);
	return ioctl(fd, MMAP3_IOC_GET_STATS, st);
}

#endif /* MMAP3_SELFTEST_SESSION_H */
