// SPDX-License-Identifier: GPL-2.0
/*
 * A stand-in for /dev/mmap3, linked into mmap3-fake instead of
 * userspace/device.c, so that the host tests can run mmap3 record
 * (its loop, signals, captures and checks of the records) where no
 * module may be loaded.  The "device" is a pipe of one page that a
 * thread fills with records as the module would: the kernel, then
 * mappings, a LOST record after records that did not fit.
 *
 * MMAP3_FAKE="key=value,...":
 *	rate=N		N mappings a second from ENABLE until DISABLE
 *	again=MS	the records of files= sent again every MS ms, without
 *			capture handles, as the module offers a file once a
 *			session
 *	files=PATH	a file of NUL-separated pairs: an ELF file whose bytes
 *			the capture handle gives, the path the record names
 *	bad=KIND	send a malformed record after the kernel's: short
 *			(size 8), odd (size 20), big (past the read), nonul
 *			(a path without NUL), longid (a 200-byte build-id),
 *			ns (a container identity past the record's end), pad
 *			(with ring=1: a pad of 16 bytes short of the end)
 *	flush_ms=N	DISABLE ends the records N ms later, as the module's
 *			worker may take that long
 *	changed=1	the records of files= carry a build-id one bit off the
 *			file's, as if each was rewritten after it was mapped
 *	stats=PATH	at exit, write to PATH the bytes the capture handles
 *			gave ("capture_bytes N"), then the handles released
 *			("released N") and forgotten ("forgotten N")
 *	refused=N	GET_STATS says the session was refused N capture
 *			handles (captures_refused)
 *	ns=1		the records of files= come from a container: each
 *			with a struct mmap3_mmap_ns (mount namespace
 *			4026532000 + N, cgroup 100 + N) naming the path
 *			without its first directory, as the container sees it
 *	status=N:S:F	the record of the Nth pair of files= has build-id
 *			status S (with no id, unless 0: FOUND) and flags F
 *			(MMAP3_MMAP_*), as a file not read in time, changed
 *			or deleted
 *	readerr=H:E	reads of capture handle H fail with errno E (EACCES
 *			as for a file the opener may not read, ETIMEDOUT as
 *			for one whose filesystem does not answer)
 *	filter=PATH	at setup, write to PATH the filter asked for:
 *			"flags F pids P,P,..." (F in hex)
 *	slowread=H:MS	each read of capture handle H gives one byte, MS
 *			milliseconds late, as a FUSE file system may: each
 *			read in time, the whole file never
 *	ring=1		the records come through a mapped buffer (ABI 2.3)
 *			of the size the tool asks for (default 4 MiB), laid
 *			out by module/ring.c's rules: a record that would
 *			cross the end follows a pad to it, of 8 bytes or more
 *			(its bytes past the 8 poisoned), and poll() says
 *			POLLIN while records are unread, POLLHUP at the end
 *	user=PATH	SET_CAPTURE_USER writes to PATH "uid U gid G groups
 *			G,G,..." (the user captures are read as, under sudo)
 *	old=1		the module is of ABI 2.3: no SET_CAPTURE_USER, no
 *			CAPTURE_FORGET (ENOTTY)
 *	ctlsize=N	with ring=1: the control page says it is N bytes
 *			(0 as a module before 2.6 does)
 *	walk=PATH	with ring=1: after files=, mappings of two path
 *			lengths whose records differ by 8 bytes, chosen to
 *			end the buffer at every gap a record can leave
 *			before it, from 0 to the smaller record's size less 8;
 *			then PATH gets "records N" and "pads" with the pad
 *			sizes made
 *	pid=PATH	the records of files= wait (up to 10 s) until PATH
 *			holds a pid: the first pair's is that process's
 *			mapping, the others process 4242's, as a workload's
 *			beside another program
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "device.h"
#include "elf_buildid.h"
#include "elf_buildid_fd.h"

#define MAX_FILES	64

static struct {
	int rate;
	int again;
	const char *files;
	const char *bad;
	int flush_ms;
	int changed;
	const char *stats;
	int refused;
	unsigned int readerr_handle;
	int readerr;
	const char *filter;
	unsigned int slow_handle;
	int slow_ms;
	unsigned int status_file, status, status_flags;
	int ns;
	int ring;
	const char *walk;
	const char *user;
	const char *pid;
	int old;
	int ctlsize;
} cfg = { .ctlsize = -1 };

static struct {
	char *elf, *path;
	struct mmap3_build_id bid;
	uint32_t flags;
} files[MAX_FILES];
static unsigned int nr_files;

static int wfd = -1, rfd = -1;

/* ring=1: the buffer, as the module's ring (module/ring.c) lays it out. */
static struct {
	int memfd;			/* page 0 the control page, then the buffer */
	struct mmap3_ring_control *ctl;
	uint8_t *data;
	uint64_t size, head;
	int signalled;			/* a byte waits in the socket: POLLIN */
	uint64_t pads[32];		/* bit N of word N / 64: a pad of N * 8 bytes made */
} ring = { .memfd = -1 };
static pthread_t thread;
static atomic_int stopping;
static atomic_int produced;		/* the producer wrote its last record */
static int producing;		/* the producer started: DISABLE stops it */
static uint64_t lost, seq, capture_bytes;
static uint8_t content_buf[4096];
/* The session asked for derived build-ids (MMAP3_FILTER_DERIVED), as the module takes it. */
static int derived;
static atomic_uint_least64_t released, forgotten;

const char *mmap3_device_path(void)
{
	return "fake-mmap3";
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

static void parse_config(void)
{
	static char spec[4096];
	char *kv, *save;

	snprintf(spec, sizeof(spec), "%s", getenv("MMAP3_FAKE") ? getenv("MMAP3_FAKE") : "");
	for (kv = strtok_r(spec, ",", &save); kv; kv = strtok_r(NULL, ",", &save)) {
		if (!strncmp(kv, "rate=", 5))
			cfg.rate = atoi(kv + 5);
		else if (!strncmp(kv, "again=", 6))
			cfg.again = atoi(kv + 6);
		else if (!strncmp(kv, "files=", 6))
			cfg.files = kv + 6;
		else if (!strncmp(kv, "bad=", 4))
			cfg.bad = kv + 4;
		else if (!strncmp(kv, "flush_ms=", 9))
			cfg.flush_ms = atoi(kv + 9);
		else if (!strncmp(kv, "changed=", 8))
			cfg.changed = atoi(kv + 8);
		else if (!strncmp(kv, "stats=", 6))
			cfg.stats = kv + 6;
		else if (!strncmp(kv, "refused=", 8))
			cfg.refused = atoi(kv + 8);
		else if (!strncmp(kv, "ns=", 3))
			cfg.ns = atoi(kv + 3);
		else if (!strncmp(kv, "status=", 7))
			sscanf(kv + 7, "%u:%u:%u", &cfg.status_file, &cfg.status, &cfg.status_flags);
		else if (!strncmp(kv, "readerr=", 8))
			sscanf(kv + 8, "%u:%d", &cfg.readerr_handle, &cfg.readerr);
		else if (!strncmp(kv, "filter=", 7))
			cfg.filter = kv + 7;
		else if (!strncmp(kv, "slowread=", 9))
			sscanf(kv + 9, "%u:%d", &cfg.slow_handle, &cfg.slow_ms);
		else if (!strncmp(kv, "ring=", 5))
			cfg.ring = atoi(kv + 5);
		else if (!strncmp(kv, "walk=", 5))
			cfg.walk = kv + 5;
		else if (!strncmp(kv, "user=", 5))
			cfg.user = kv + 5;
		else if (!strncmp(kv, "old=", 4))
			cfg.old = atoi(kv + 4);
		else if (!strncmp(kv, "pid=", 4))
			cfg.pid = kv + 4;
		else if (!strncmp(kv, "ctlsize=", 8))
			cfg.ctlsize = atoi(kv + 8);
	}
}

/* The pairs of files=, with each ELF file's build-id. */
static void load_files(void)
{
	static char buf[1 << 16];
	size_t len, off = 0;
	int fd;

	if (!cfg.files)
		return;
	fd = open(cfg.files, O_RDONLY | O_CLOEXEC);
	len = fd < 0 ? 0 : (size_t)read(fd, buf, sizeof(buf) - 1);
	if (fd >= 0)
		close(fd);
	while (off < len && nr_files < MAX_FILES) {
		struct elf_buildid bid;
		struct stat st;
		int efd;

		files[nr_files].elf = buf + off;
		off += strlen(buf + off) + 1;
		if (off >= len)
			break;
		files[nr_files].path = buf + off;
		off += strlen(buf + off) + 1;
		efd = open(files[nr_files].elf, O_RDONLY | O_CLOEXEC);
		if (efd < 0 || fstat(efd, &st))
			continue;
		elf_buildid_parse(elf_buildid_fd_read, &efd, (__u64)st.st_size, &bid);
		/* As the module identifies an ELF file without a note. */
		if (bid.status == MMAP3_BUILDID_NO_NOTE)
			elf_buildid_content(elf_buildid_fd_read, &efd, (__u64)st.st_size, &bid,
					    content_buf, sizeof(content_buf));
		close(efd);
		files[nr_files].bid.status = (__u8)bid.status;
		files[nr_files].bid.size = (__u8)bid.size;
		files[nr_files].bid.kind = (__u8)bid.kind;
		memcpy(files[nr_files].bid.data, bid.id, bid.size);
		if (cfg.changed)
			files[nr_files].bid.data[0] ^= 1;
		if (cfg.status_file == nr_files + 1) {
			files[nr_files].bid.status = (__u8)cfg.status;
			if (cfg.status != MMAP3_BUILDID_FOUND) {
				files[nr_files].bid.size = 0;
				memset(files[nr_files].bid.data, 0, sizeof(files[nr_files].bid.data));
			}
			files[nr_files].flags = cfg.status_flags;
		}
		nr_files++;
	}
}

/* At exit: records are read, and files captured, after DISABLE too. */
static void write_stats(void)
{
	FILE *f = fopen(cfg.stats, "we");

	if (f) {
		fprintf(f, "capture_bytes %llu\nreleased %llu\nforgotten %llu\n",
			(unsigned long long)capture_bytes,
			(unsigned long long)atomic_load(&released),
			(unsigned long long)atomic_load(&forgotten));
		fclose(f);
	}
}

int mmap3_device_open(struct mmap3_abi_version *ver)
{
	static int configured;
	int fds[2], i;

	if (!configured) {
		parse_config();
		load_files();
		if (cfg.stats)
			atexit(write_stats);
		configured = 1;
	}
	/* Opened again (mmap3 capture's next session): the last one's producer ended first. */
	for (i = 0; producing && !atomic_load(&produced) && i < 10000; i++)
		usleep(1000);
	producing = 0;
	atomic_store(&produced, 0);
	atomic_store(&stopping, 0);
	/* ring=1: poll() only, its readiness set by the producer. */
	if (cfg.ring ? socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds) :
		       pipe2(fds, O_CLOEXEC)) {
		fprintf(stderr, "mmap3: fake device: %s\n", strerror(errno));
		return -1;
	}
	/* One page: what is not read soon is lost, as in a full buffer. */
	if (!cfg.ring)
		fcntl(fds[1], F_SETPIPE_SZ, 4096);
	fcntl(fds[1], F_SETFL, O_NONBLOCK);
	wfd = fds[1];
	rfd = fds[0];
	memset(ver, 0, sizeof(*ver));
	ver->size = sizeof(*ver);
	ver->major = MMAP3_ABI_MAJOR;
	ver->minor = cfg.old ? 3 : MMAP3_ABI_MINOR;
	ver->features = MMAP3_FEATURE_MAPPED_BUFFER |
			(cfg.old ? 0 : MMAP3_FEATURE_CAPTURE_USER | MMAP3_FEATURE_CAPTURE_BY_FILE |
				      MMAP3_FEATURE_DERIVED_IDS);
	return fds[0];
}

/* Never missing: nothing to load. */
int mmap3_device_open_loading(struct mmap3_abi_version *ver)
{
	return mmap3_device_open(ver);
}

static int ring_alloc(uint64_t size)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	void *p;

	if (ring.memfd >= 0)
		return 0;
	ring.memfd = memfd_create("fake-mmap3-ring", MFD_CLOEXEC);
	if (ring.memfd < 0 || ftruncate(ring.memfd, (off_t)(page + size)))
		goto fail;
	p = mmap(NULL, page + size, PROT_READ | PROT_WRITE, MAP_SHARED, ring.memfd, 0);
	if (p == MAP_FAILED)
		goto fail;
	ring.ctl = p;
	ring.data = (uint8_t *)p + page;
	ring.size = size;
	ring.ctl->size = size;
	/* ctlsize=N: a control page that says N bytes (0: a module before 2.6). */
	ring.ctl->control_size = cfg.ctlsize >= 0 ? (uint64_t)cfg.ctlsize : sizeof(*ring.ctl);
	return 0;
fail:
	fprintf(stderr, "mmap3: fake device: the ring: %s\n", strerror(errno));
	return -1;
}

/* The device's pages: the control page at offset 0, the buffer after it. */
void *mmap3_device_map(int fd, size_t len, int prot, off_t offset)
{
	(void)fd;
	if (!cfg.ring) {
		errno = ENODEV;
		return MAP_FAILED;
	}
	return mmap(NULL, len, prot, MAP_SHARED, ring.memfd, offset);
}

/* The reader has read all there is: no POLLIN until there is more. */
static void ring_idle(void)
{
	char buf[64];

	if (ring.signalled &&
	    __atomic_load_n(&ring.ctl->tail, __ATOMIC_ACQUIRE) == ring.head) {
		while (recv(rfd, buf, sizeof(buf), MSG_DONTWAIT) > 0)
			;
		ring.signalled = 0;
	}
}

/* As mmap3_ring_reserve() and mmap3_ring_commit(): whole, or -1 (no room). */
static int ring_put(const void *rec, size_t size)
{
	uint64_t tail = __atomic_load_n(&ring.ctl->tail, __ATOMIC_ACQUIRE);
	uint64_t off = ring.head & (ring.size - 1), to_end = ring.size - off;

	if ((size <= to_end ? size : to_end + size) > ring.size - (ring.head - tail))
		return -1;
	if (size > to_end) {
		struct mmap3_record_pad pad = { MMAP3_RECORD_PAD, (uint32_t)to_end };

		/* A reader must look at the pad's 8 bytes alone. */
		memset(ring.data + off, 0xa5, to_end);
		memcpy(ring.data + off, &pad, sizeof(pad));
		if (to_end / 8 < 64 * 32)
			ring.pads[to_end / 8 / 64] |= 1ULL << (to_end / 8 % 64);
		ring.head += to_end;
		off = 0;
	}
	memcpy(ring.data + off, rec, size);
	ring.head += size;
	__atomic_store_n(&ring.ctl->head, ring.head, __ATOMIC_RELEASE);
	if (!ring.signalled && send(wfd, "r", 1, MSG_DONTWAIT) == 1)
		ring.signalled = 1;
	return 0;
}

int mmap3_device_setup(int fd, const struct mmap3_filter *filter, int clock,
		       uint64_t buffer_size)
{
	FILE *f;
	uint32_t i;

	(void)fd, (void)clock;
	derived = filter && (filter->flags & MMAP3_FILTER_DERIVED);
	if (cfg.ring && ring_alloc(buffer_size ? buffer_size : 4U << 20))
		return -1;
	if (cfg.filter && filter) {
		f = fopen(cfg.filter, "we");
		if (!f)
			return -1;
		fprintf(f, "flags %x pids ", filter->flags);
		for (i = 0; i < filter->nr_pids; i++)
			fprintf(f, "%s%d", i ? "," : "", filter->pids[i]);
		fprintf(f, "\n");
		fclose(f);
	}
	return 0;
}

/* Write one record whole, or count it lost. */
static int put(const void *rec, size_t size)
{
	if (cfg.ring)
		return ring_put(rec, size);
	if (write(wfd, rec, size) == (ssize_t)size)
		return 0;
	return -1;
}

static void put_lost(void)
{
	struct mmap3_record_lost l = {
		.header = { MMAP3_RECORD_LOST, sizeof(l), now_ns() },
		.lost = lost,
	};

	if (lost && !put(&l, sizeof(l)))
		lost = 0;
}

static void put_mmap(const char *path, const struct mmap3_build_id *bid, uint32_t flags,
		     uint32_t capture, int must, uint32_t pid)
{
	const char *root = cfg.ns && capture && strchr(path + 1, '/') ? strchr(path + 1, '/') : NULL;
	size_t at = sizeof(struct mmap3_record_mmap) + ((strlen(path) + 8) & ~7UL);
	size_t size = at + (root ? sizeof(struct mmap3_mmap_ns) + ((strlen(root) + 8) & ~7UL) : 0);
	struct mmap3_record_mmap *m = calloc(1, size);

	m->header.type = MMAP3_RECORD_MMAP;
	m->header.size = (uint32_t)size;
	m->header.time = now_ns();
	m->pid = m->tid = pid;
	m->prot = PROT_READ | PROT_EXEC;
	m->addr = 0x400000 + 0x10000 * (seq++ % 4096);
	m->len = 0x1000;
	m->capture = capture;
	m->flags = flags;
	if (bid)
		m->build_id = *bid;
	else
		m->build_id.status = MMAP3_BUILDID_NOT_ELF;
	/* As the module tells a session that did not ask for derived ids. */
	if (m->build_id.kind != MMAP3_BUILDID_GNU && !derived)
		m->build_id = (struct mmap3_build_id){ .status = MMAP3_BUILDID_NO_NOTE };
	memcpy(m->path, path, strlen(path));
	if (root) {
		struct mmap3_mmap_ns *ns = (void *)((char *)m + at);

		m->flags |= MMAP3_MMAP_NS;
		ns->size = (uint32_t)(size - at);
		ns->mnt_ns = 4026532000ULL + capture;
		ns->cgroup = 100 + capture;
		memcpy(ns->root_path, root, strlen(root));
	}
	put_lost();
	while (put(m, size)) {
		if (!must) {
			lost++;
			break;
		}
		usleep(1000);	/* records with capture handles wait for room */
		if (cfg.ring)
			ring_idle();
	}
	free(m);
}

/* The size of a mapping record of a path of @len bytes (no container). */
static uint64_t mmap_record_size(size_t len)
{
	return sizeof(struct mmap3_record_mmap) + ((len + 8) & ~7UL);
}

/* Can @n eighths be made of @a-eighth and (@a + 1)-eighth records? */
static int split(uint64_t n, uint64_t a, uint64_t *x, uint64_t *y)
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
 * walk=: leave every gap g from 0 to a record's size less 8 before the
 * buffer's end, then put a record there, which goes to the start after
 * a pad of g bytes (none for 0).
 */
static void walk(void)
{
	char p1[96], p2[104];
	uint64_t a, g, x, y, records = 0, i;
	FILE *f;

	memset(p1, 0, sizeof(p1));
	memset(p2, 0, sizeof(p2));
	/* 64 and 72 bytes: records 8 bytes apart. */
	snprintf(p1, sizeof(p1), "/usr/lib/walk-%0*d", 64 - 14, 1);
	snprintf(p2, sizeof(p2), "/usr/lib/walk-%0*d", 72 - 14, 2);
	a = mmap_record_size(strlen(p1));
	for (g = 0; g < a; g += 8) {
		for (;;) {
			uint64_t to_end = ring.size - (ring.head & (ring.size - 1));

			if (to_end >= g && split((to_end - g) / 8, a / 8, &x, &y))
				break;
			put_mmap(p1, NULL, 0, 0, 1, 4242);
			records++;
		}
		for (i = 0; i < x + y; i++)
			put_mmap(i < x ? p1 : p2, NULL, 0, 0, 1, 4242);
		put_mmap(p1, NULL, 0, 0, 1, 4242);
		records += x + y + 1;
	}
	f = fopen(cfg.walk, "we");
	if (!f)
		return;
	fprintf(f, "records %llu\npads", (unsigned long long)records);
	for (g = 8; g < 64 * 32 * 8; g += 8)
		if (ring.pads[g / 8 / 64] & (1ULL << (g / 8 % 64)))
			fprintf(f, " %llu", (unsigned long long)g);
	fprintf(f, "\n");
	fclose(f);
}

static void put_bad(void)
{
	uint8_t buf[512] = { 0 };
	struct mmap3_record_mmap *m = (void *)buf;
	size_t size = sizeof(*m) + 16;

	m->header.type = MMAP3_RECORD_MMAP;
	m->header.size = (uint32_t)size;
	memcpy(m->path, "/bin/true", 9);
	if (!strcmp(cfg.bad, "short"))
		m->header.size = 8;
	else if (!strcmp(cfg.bad, "odd"))
		m->header.size = sizeof(*m) + 12;
	else if (!strcmp(cfg.bad, "big"))
		m->header.size = 4096;
	else if (!strcmp(cfg.bad, "nonul"))
		memset(m->path, 'x', 16);
	else if (!strcmp(cfg.bad, "longid"))
		m->build_id.size = 200;
	else if (!strcmp(cfg.bad, "pad"))
		m->header = (struct mmap3_record_header){ MMAP3_RECORD_PAD, 16, 0 };
	else if (!strcmp(cfg.bad, "ns")) {
		/* Flagged, but the container identity runs past the record. */
		m->flags = MMAP3_MMAP_NS;
		size = sizeof(*m) + 16 + sizeof(struct mmap3_mmap_ns);
		m->header.size = (uint32_t)size;
		((struct mmap3_mmap_ns *)(m->path + 16))->size = 4096;
	}
	put(buf, m->header.type == MMAP3_RECORD_PAD ? m->header.size : size);
}

/* pid=PATH: the pid written there, once it is (4242 without it). */
static uint32_t wait_pid(void)
{
	unsigned int pid = 0;
	int i;

	for (i = 0; cfg.pid && i < 1000 && !stopping; i++) {
		FILE *f = fopen(cfg.pid, "r");

		if (f && fscanf(f, "%u", &pid) == 1 && pid) {
			fclose(f);
			return pid;
		}
		if (f)
			fclose(f);
		usleep(10000);
	}
	return 4242;
}

static void *producer(void *arg)
{
	uint64_t next = now_ns(), next_again = now_ns() + (uint64_t)cfg.again * 1000000;
	unsigned int i;

	(void)arg;
	uint32_t pid = wait_pid();

	for (i = 0; i < nr_files; i++)
		put_mmap(files[i].path, &files[i].bid, files[i].flags, i + 1, 1, i ? 4242 : pid);
	if (cfg.ring && cfg.walk)
		walk();
	while (!stopping) {
		if (cfg.ring)
			ring_idle();
		if (cfg.again && now_ns() >= next_again) {
			for (i = 0; i < nr_files; i++)
				put_mmap(files[i].path, &files[i].bid, files[i].flags, 0, 0,
					 i ? 4242 : pid);
			next_again += (uint64_t)cfg.again * 1000000;
		}
		if (cfg.rate && now_ns() >= next) {
			put_mmap("/usr/bin/fake", NULL, 0, 0, 0, 4242);
			next += 1000000000ULL / (uint64_t)cfg.rate;
		}
		usleep(500);
	}
	/* DISABLE asked: the end of the records, once the last is written. */
	usleep((useconds_t)cfg.flush_ms * 1000);
	put_lost();
	close(wfd);
	atomic_store(&produced, 1);
	return NULL;
}

int mmap3_device_enable(int fd)
{
	struct mmap3_record_kernel k = {
		.header = { MMAP3_RECORD_KERNEL, sizeof(k), now_ns() },
		.build_id = { .status = MMAP3_BUILDID_NO_NOTE },
	};
	struct mmap3_record_dump_done d = {
		.header = { MMAP3_RECORD_DUMP_DONE, sizeof(d), now_ns() },
	};
	struct utsname u;

	(void)fd;
	uname(&u);
	snprintf(k.release, sizeof(k.release), "%s", u.release);
	put(&k, sizeof(k));
	if (cfg.bad)
		put_bad();
	put(&d, sizeof(d));
	if (pthread_create(&thread, NULL, producer, NULL))
		return -1;
	producing = 1;
	return 0;
}

int mmap3_device_disable(int fd)
{
	(void)fd;
	if (!producing)
		return 0;
	/*
	 * The producer ends the records itself: a record it must still
	 * write (one with a capture handle) waits for room, and the reader
	 * takes it after DISABLE, as it takes the module's buffer, until the
	 * end.  Joining it here, with the reader not reading, would wait for
	 * ever.
	 */
	if (!atomic_exchange(&stopping, 1))
		pthread_detach(thread);
	return 0;
}

int mmap3_device_flush(int fd)
{
	(void)fd;
	return 0;
}

int mmap3_device_stats(int fd, struct mmap3_stats *st)
{
	(void)fd;
	memset(st, 0, sizeof(*st));
	st->size = sizeof(*st);
	st->captures_refused = (uint64_t)cfg.refused;
	return 0;
}

long mmap3_device_capture_read(int fd, uint32_t handle, void *buf, size_t len, uint64_t off)
{
	ssize_t n;
	int efd;

	(void)fd;
	if (!handle || handle > nr_files)
		return -ENOENT;
	if (handle == cfg.readerr_handle)
		return -cfg.readerr;
	if (handle == cfg.slow_handle) {
		usleep((useconds_t)cfg.slow_ms * 1000);
		len = len ? 1 : 0;
	}
	efd = open(files[handle - 1].elf, O_RDONLY | O_CLOEXEC);
	if (efd < 0)
		return -errno;
	n = pread(efd, buf, len, (off_t)off);
	close(efd);
	if (n > 0)
		capture_bytes += (uint64_t)n;
	return n < 0 ? -errno : n;
}

void mmap3_device_capture_release(int fd, uint32_t handle)
{
	(void)fd, (void)handle;
	atomic_fetch_add(&released, 1);
}

int mmap3_device_capture_forget(int fd, uint32_t handle)
{
	(void)fd, (void)handle;
	if (cfg.old)
		return -ENOTTY;
	atomic_fetch_add(&forgotten, 1);
	return 0;
}

int mmap3_device_set_capture_user(int fd, uid_t uid, gid_t gid, const gid_t *groups, int n)
{
	FILE *f;
	int i;

	(void)fd;
	if (cfg.old) {
		fprintf(stderr, "mmap3: fake device: SET_CAPTURE_USER of ABI 2.3\n");
		return -1;
	}
	if (!cfg.user)
		return 0;
	f = fopen(cfg.user, "we");
	if (!f)
		return -1;
	fprintf(f, "uid %u gid %u groups ", (unsigned int)uid, (unsigned int)gid);
	for (i = 0; i < n; i++)
		fprintf(f, "%s%u", i ? "," : "", (unsigned int)groups[i]);
	fprintf(f, "\n");
	fclose(f);
	return 0;
}
