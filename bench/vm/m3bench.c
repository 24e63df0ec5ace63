// SPDX-License-Identifier: GPL-2.0
/*
 * bench/vm/m3bench.c - the in-VM benchmarks of mmap3 (bench/vm/run).
 *
 *   m3bench hot FILE N              mmap(PROT_EXEC)+munmap of FILE, N times
 *   m3bench hotpolled FILE N        the same in a session read every 100 ms
 *   m3bench exec PROG N             fork+exec+wait of PROG, N times
 *   m3bench mkelf DIR PREFIX N      N tiny ELF files DIR/PREFIXnnnnnn, each
 *                                   with its own build-id
 *   m3bench cold DIR N INTERVAL_US  cache misses: parse cost and latency
 *   m3bench rates FILE SECS BUFSZ THREADS RATE...  paced generators + reader
 *   m3bench burst FILE OPS THREADS BUFSZ... unpaced burst + reader
 *   m3bench drain FILE N BUFSZ      N records queued with no reader, then
 *                                   read: what the read() path carries
 *   m3bench mem DIR PREFIX N        cache memory after N distinct inodes
 *   m3bench hashload DIR PREFIX N   N distinct inodes mapped twice: the
 *                                   cache's inserts, then its lookups
 *   m3bench crafted DIR N           N files of each costly kind (s, p, t)
 *   m3bench costs DIR N             miss cost of normal (n, from mkelf) and
 *                                   costly files, interleaved
 *   m3bench hotsplit FILE N         the hot loop under a session read only
 *                                   after it: hook and worker, then read();
 *                                   the loop alone too (the hook alone when
 *                                   the worker is held back)
 *   m3bench hotfloor FILE N OUT     the hot loop under a session read by a
 *                                   reader that only writes the side file's
 *                                   bytes to OUT (the floor of any reader)
 *   m3bench dump FILE PROCS MAPS    PROCS processes mapping FILE MAPS times:
 *                                   time from ENABLE to DUMP_DONE, losses
 *   m3bench workload build PROG N   a shell script running PROG N times
 *   m3bench workload dlopen LIB N   dlopen and dlclose of LIB, N times
 *
 * Each prints "RESULT key=value ..." lines (and "SAMPLES key v v v ..."
 * for distributions); bench/vm/guest runs them and bench/vm/run turns
 * them into markdown.  Timings are CLOCK_MONOTONIC.
 */
#include <dlfcn.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <linux/mmap3.h>

static void get_stats(int fd, struct mmap3_stats *st);

static void die(const char *what)
{
	fprintf(stderr, "m3bench: %s: %s\n", what, strerror(errno));
	exit(1);
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

static void map_once(const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	void *p;

	if (fd < 0)
		die(path);
	p = mmap(NULL, 4096, PROT_READ | PROT_EXEC, MAP_PRIVATE, fd, 0);
	if (p == MAP_FAILED)
		die("mmap");
	munmap(p, 4096);
	close(fd);
}

/*
 * The loops below are timed in chunks: a VM on a shared host loses whole
 * milliseconds to the host now and then, so the figure is the median
 * chunk (ns_per_op), with the plain mean beside it (mean_ns_per_op).
 */
static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static void print_chunks(uint64_t *chunk, long nchunks, long per_chunk, uint64_t total, long n)
{
	qsort(chunk, nchunks, sizeof(*chunk), cmp_u64);
	printf("RESULT ns_per_op=%.1f mean_ns_per_op=%.1f ops=%ld chunks=%ld "
	       "min_chunk_ns_per_op=%.1f max_chunk_ns_per_op=%.1f\n",
	       (double)chunk[nchunks / 2] / per_chunk, (double)total / n, n, nchunks,
	       (double)chunk[0] / per_chunk, (double)chunk[nchunks - 1] / per_chunk);
}

/* ---- hot: one file, mapped again and again (cache hits) ---- */

#define HOT_CHUNK	250

/* One operation of the hot path: an executable mapping of @fd, and its unmapping. */
static void hot_one(int fd)
{
	void *p = mmap(NULL, 4096, PROT_READ | PROT_EXEC, MAP_PRIVATE, fd, 0);

	if (p == MAP_FAILED)
		die("mmap");
	munmap(p, 4096);
}

static int cmd_hot(const char *file, long n)
{
	int fd = open(file, O_RDONLY | O_CLOEXEC);
	long i, nchunks = (n + HOT_CHUNK - 1) / HOT_CHUNK;
	uint64_t *chunk = calloc(nchunks, sizeof(uint64_t)), t0 = 0, tc = 0;

	if (fd < 0)
		die(file);
	if (!chunk)
		die("calloc");
	n = nchunks * HOT_CHUNK;
	for (i = -n / 10; i < n; i++) {
		if (i >= 0 && i % HOT_CHUNK == 0) {
			uint64_t t = now_ns();

			if (i)
				chunk[i / HOT_CHUNK - 1] = t - tc;
			else
				t0 = t;
			tc = t;
		}
		hot_one(fd);
	}
	chunk[nchunks - 1] = now_ns() - tc;
	print_chunks(chunk, nchunks, HOT_CHUNK, now_ns() - t0, n);
	free(chunk);
	close(fd);
	return 0;
}

/*
 * Diagnostic: the hot loop under a session whose reader never sleeps in
 * read()/poll(), but reads without blocking every @ms milliseconds: no
 * reader wake-ups, the rest of the session's cost stays.
 */
static atomic_int polled_stop;

static void *polled_fn(void *arg)
{
	int fd = *(int *)arg;
	size_t size = 1 << 20;
	char *buf = malloc(size);
	struct timespec ts = { 0, 100 * 1000000L };

	if (!buf)
		die("malloc");
	while (!atomic_load(&polled_stop)) {
		nanosleep(&ts, NULL);
		while (read(fd, buf, size) > 0)
			;
	}
	free(buf);
	return NULL;
}

static int cmd_hot_polled(const char *file, long n)
{
	struct mmap3_stats st;
	pthread_t t;
	int fd = open(MMAP3_DEVICE_PATH, O_RDONLY | O_CLOEXEC | O_NONBLOCK), ret;

	if (fd < 0)
		die(MMAP3_DEVICE_PATH);
	if (ioctl(fd, MMAP3_IOC_ENABLE))
		die("MMAP3_IOC_ENABLE");
	if (pthread_create(&t, NULL, polled_fn, &fd))
		die("pthread_create");
	ret = cmd_hot(file, n);
	if (ioctl(fd, MMAP3_IOC_DISABLE))
		die("MMAP3_IOC_DISABLE");
	atomic_store(&polled_stop, 1);
	pthread_join(t, NULL);
	get_stats(fd, &st);
	printf("RESULT polled_records=%llu polled_lost=%llu\n", (unsigned long long)st.records,
	       (unsigned long long)st.lost);
	close(fd);
	return ret;
}

/*
 * The session's cost in parts (icount): the hot loop under a session no
 * one reads meanwhile, its records piling up in a buffer that holds them
 * all (the hook and the worker, FLUSH included so that the worker's last
 * run counts), then the buffer read out with read() (the kernel's share
 * of the reader: the syscalls and the copy).  What `mmap3 record` adds
 * beyond both is the tool's own share.
 */
static uint64_t read_out(int dev, char *buf, size_t size, uint64_t *records, bool *dump_done)
{
	struct mmap3_record_header *h;
	uint64_t bytes = 0;
	ssize_t n;

	while ((n = read(dev, buf, size)) > 0) {
		bytes += n;
		for (h = (void *)buf; (char *)h < buf + n; h = (void *)((char *)h + h->size)) {
			if (h->size < sizeof(*h) || h->size > buf + n - (char *)h)
				die("a record's size outside the read");
			(*records)++;
			if (h->type == MMAP3_RECORD_DUMP_DONE)
				*dump_done = true;
		}
	}
	if (n < 0 && errno != EAGAIN)
		die("read");
	return bytes;
}

static int cmd_hot_split(const char *file, long n)
{
	int dev = open(MMAP3_DEVICE_PATH, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	int fd = open(file, O_RDONLY | O_CLOEXEC);
	uint64_t bufsize = 64 << 20, records = 0, t0, tl, t1, t2;
	struct pollfd pfd = { .fd = dev, .events = POLLIN };
	size_t size = 1 << 20;
	char *buf = malloc(size);
	bool dump_done = false;
	struct mmap3_stats st;
	long i;

	if (dev < 0)
		die(MMAP3_DEVICE_PATH);
	if (fd < 0)
		die(file);
	if (!buf)
		die("malloc");
	if (ioctl(dev, MMAP3_IOC_SET_BUFFER_SIZE, &bufsize) || ioctl(dev, MMAP3_IOC_ENABLE))
		die("MMAP3_IOC_SET_BUFFER_SIZE, MMAP3_IOC_ENABLE");
	/* The state dump is read out first, and a warm-up's records. */
	while (!dump_done) {
		if (poll(&pfd, 1, -1) < 0)
			die("poll");
		read_out(dev, buf, size, &records, &dump_done);
	}
	for (i = 0; i < n / 10; i++)
		hot_one(fd);
	if (ioctl(dev, MMAP3_IOC_FLUSH))
		die("MMAP3_IOC_FLUSH");
	read_out(dev, buf, size, &records, &dump_done);

	t0 = now_ns();
	for (i = 0; i < n; i++)
		hot_one(fd);
	tl = now_ns();
	if (ioctl(dev, MMAP3_IOC_FLUSH))
		die("MMAP3_IOC_FLUSH");
	t1 = now_ns();
	records = 0;
	read_out(dev, buf, size, &records, &dump_done);
	t2 = now_ns();
	get_stats(dev, &st);
	printf("RESULT what=hotsplit n=%ld mean_ns_per_op=%.1f loop_ns_per_op=%.1f "
	       "read_ns_per_record=%.1f records=%llu lost=%llu\n", n, (double)(t1 - t0) / n,
	       (double)(tl - t0) / n, records ? (double)(t2 - t1) / records : 0.0,
	       (unsigned long long)records, (unsigned long long)st.lost);
	close(fd);
	close(dev);
	free(buf);
	return 0;
}

/*
 * The floor of any reader that writes a side file (icount): the hot loop
 * under a session read by a process of its own, as `mmap3 record` is,
 * that takes the records in place from the mapped buffer and writes for
 * each mapping as many bytes as the tool's perf record of it
 * (PERF_RECORD_MMAP2 with the name and the sample_id trailer) in 64 KiB
 * writes, without building it: the page cache's copies and clears, the
 * poll()s and the wake-ups, and none of the tool's own work.
 */
#define FLOOR_BUF		(64U << 10)
#define PERF_MMAP2_BYTES(len)	(72 + (((len) + 1 + 7) & ~(size_t)7) + 24)

static void floor_flush(int out, const char *buf, size_t *len, off_t *off)
{
	if (*len && pwrite(out, buf, *len, *off) != (ssize_t)*len)
		die("pwrite");
	*off += (off_t)*len;
	*len = 0;
}

static void floor_read(int dev, int out, int ready, int stop)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE), len = 0;
	struct pollfd pfd[2] = { { .fd = dev, .events = POLLIN }, { .fd = stop, .events = POLLIN } };
	struct mmap3_ring_control *ctl;
	char *buf = malloc(FLOOR_BUF);
	const char *data;
	uint64_t size, tail;
	bool stopping = false;
	off_t off = 0;

	ctl = mmap(NULL, page, PROT_READ | PROT_WRITE, MAP_SHARED, dev, 0);
	if (ctl == MAP_FAILED)
		die("mmap of the control page");
	size = ctl->size;
	/* Records are found at tail & (size - 1). */
	if (size < MMAP3_BUFFER_SIZE_MIN || (size & (size - 1)))
		die("the control page's size");
	data = mmap(NULL, size, PROT_READ, MAP_SHARED, dev, (off_t)page);
	if (data == MAP_FAILED || !buf)
		die("mmap of the buffer");
	tail = ctl->tail;
	if (write(ready, "r", 1) != 1)
		die("write");
	for (;;) {
		uint64_t head = __atomic_load_n(&ctl->head, __ATOMIC_ACQUIRE);

		while (tail != head) {
			const struct mmap3_record_header *h = (const void *)(data + (tail & (size - 1)));

			/* A pad may be 8 bytes (struct mmap3_record_pad). */
			if (h->size < (h->type == MMAP3_RECORD_PAD ? sizeof(struct mmap3_record_pad) :
					      sizeof(*h)) ||
			    h->size > head - tail)
				die("a record's size outside the buffer");
			if (h->type == MMAP3_RECORD_MMAP) {
				const struct mmap3_record_mmap *m = (const void *)h;
				size_t n = PERF_MMAP2_BYTES(strnlen(m->path, h->size - sizeof(*m)));

				if (n > h->size)
					die("an MMAP record shorter than its perf record");
				if (len + n > FLOOR_BUF)
					floor_flush(out, buf, &len, &off);
				memcpy(buf + len, h, n);
				len += n;
			}
			tail += h->size;
		}
		__atomic_store_n(&ctl->tail, tail, __ATOMIC_RELEASE);
		if (stopping)
			break;
		if (poll(pfd, 2, -1) < 0 && errno != EINTR)
			die("poll");
		/* One more pass after the stop: what came before it. */
		stopping = pfd[1].revents || (pfd[0].revents & POLLHUP);
	}
	floor_flush(out, buf, &len, &off);
	free(buf);
}

static int cmd_hot_floor(const char *file, long n, const char *outpath)
{
	int dev = open(MMAP3_DEVICE_PATH, O_RDWR | O_CLOEXEC);
	int out = open(outpath, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	int ready[2], stop[2], status, ret;
	pid_t pid;
	char c;

	if (dev < 0)
		die(MMAP3_DEVICE_PATH);
	if (out < 0)
		die(outpath);
	if (pipe(ready) || pipe(stop))
		die("pipe");
	if (ioctl(dev, MMAP3_IOC_ENABLE))
		die("MMAP3_IOC_ENABLE");
	pid = fork();
	if (pid < 0)
		die("fork");
	if (!pid) {
		close(ready[0]);
		close(stop[1]);
		floor_read(dev, out, ready[1], stop[0]);
		_exit(0);
	}
	close(ready[1]);
	close(stop[0]);
	if (read(ready[0], &c, 1) != 1)
		die("the floor reader did not start");
	ret = cmd_hot(file, n);
	if (write(stop[1], "s", 1) != 1)
		die("write");
	if (waitpid(pid, &status, 0) < 0 || !WIFEXITED(status) || WEXITSTATUS(status))
		die("the floor reader failed");
	printf("RESULT what=hotfloor side_bytes=%lld\n", (long long)lseek(out, 0, SEEK_END));
	close(out);
	close(dev);
	return ret;
}

/* ---- exec: fork+exec of a small dynamically linked program ---- */

static int cmd_exec(const char *prog, long n)
{
	uint64_t *each = calloc(n, sizeof(uint64_t)), t0 = 0, total;
	long i;

	if (!each)
		die("calloc");
	for (i = -n / 10; i < n; i++) {
		uint64_t t = now_ns();
		int status;
		pid_t pid;

		if (i == 0)
			t0 = t;
		pid = fork();
		if (pid < 0)
			die("fork");
		if (!pid) {
			execl(prog, prog, (char *)NULL);
			_exit(127);
		}
		if (waitpid(pid, &status, 0) < 0)
			die("waitpid");
		if (!WIFEXITED(status) || WEXITSTATUS(status)) {
			fprintf(stderr, "m3bench: %s failed\n", prog);
			return 1;
		}
		if (i >= 0)
			each[i] = now_ns() - t;
	}
	total = now_ns() - t0;
	print_chunks(each, n, 1, total, n);
	free(each);
	return 0;
}

/* ---- mkelf: tiny ELF files, each with its own build-id ---- */

struct tiny_elf {
	Elf64_Ehdr eh;
	Elf64_Phdr ph;
	Elf64_Nhdr nh;
	char name[4];
	uint8_t id[20];
};

static int cmd_mkelf(const char *dir, const char *prefix, long n)
{
	struct tiny_elf e;
	uint64_t seed = now_ns();
	char path[4096];
	long i;

	memset(&e, 0, sizeof(e));
	memcpy(e.eh.e_ident, ELFMAG, SELFMAG);
	e.eh.e_ident[EI_CLASS] = ELFCLASS64;
	e.eh.e_ident[EI_DATA] = ELFDATA2LSB;
	e.eh.e_ident[EI_VERSION] = EV_CURRENT;
	e.eh.e_type = ET_DYN;
	e.eh.e_machine = EM_X86_64;
	e.eh.e_version = EV_CURRENT;
	e.eh.e_phoff = offsetof(struct tiny_elf, ph);
	e.eh.e_ehsize = sizeof(e.eh);
	e.eh.e_phentsize = sizeof(e.ph);
	e.eh.e_phnum = 1;
	e.eh.e_shentsize = sizeof(Elf64_Shdr);
	e.ph.p_type = PT_NOTE;
	e.ph.p_flags = PF_R;
	e.ph.p_offset = e.ph.p_vaddr = e.ph.p_paddr = offsetof(struct tiny_elf, nh);
	e.ph.p_filesz = e.ph.p_memsz = sizeof(e) - offsetof(struct tiny_elf, nh);
	e.ph.p_align = 4;
	e.nh.n_namesz = 4;
	e.nh.n_descsz = sizeof(e.id);
	e.nh.n_type = NT_GNU_BUILD_ID;
	memcpy(e.name, "GNU", 4);
	mkdir(dir, 0755);
	for (i = 0; i < n; i++) {
		uint64_t a = seed ^ (uint64_t)i * 0x9e3779b97f4a7c15ull;
		int fd;

		memcpy(e.id, &a, 8);
		memcpy(e.id + 8, &i, sizeof(i) < 8 ? sizeof(i) : 8);
		memcpy(e.id + 16, prefix, strlen(prefix) < 4 ? strlen(prefix) : 4);
		snprintf(path, sizeof(path), "%s/%s%06ld", dir, prefix, i);
		fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0755);
		if (fd < 0)
			die(path);
		if (write(fd, &e, sizeof(e)) != (ssize_t)sizeof(e))
			die("write");
		close(fd);
	}
	return 0;
}

/* ---- a session on /dev/mmap3 with a reader thread draining it ---- */

struct reader {
	int fd;
	pthread_t thread;
	const char *prefix;		/* paths to collect latencies of */
	size_t prefix_len;
	long nfiles;			/* files PREFIXnnnnnn, 0..nfiles-1 */
	uint8_t *seen;			/* times each file was seen */
	uint64_t *lat[2];		/* [first, second] sighting: latency */
	size_t nlat[2];
	atomic_ulong mmaps;		/* MMAP records of @match */
	const char *match;		/* count MMAP records of this path */
	uint64_t lost;			/* sum of LOST records */
};

/* Count what @r looks for in the @n bytes of records read into @buf. */
static void reader_scan(struct reader *r, const char *buf, ssize_t n)
{
	uint64_t now = now_ns();
	ssize_t off;

	for (off = 0; off < n;) {
		const struct mmap3_record_header *h = (const void *)(buf + off);

		if (h->type == MMAP3_RECORD_MMAP) {
			const struct mmap3_record_mmap *m = (const void *)h;

			if (r->match && !strcmp(m->path, r->match))
				atomic_fetch_add(&r->mmaps, 1);
			if (r->prefix && !strncmp(m->path, r->prefix, r->prefix_len)) {
				long i = strtol(m->path + r->prefix_len, NULL, 10);

				if (i >= 0 && i < r->nfiles && r->seen[i] < 2) {
					int k = r->seen[i]++;

					r->lat[k][r->nlat[k]++] = now - h->time;
				}
			}
		} else if (h->type == MMAP3_RECORD_LOST) {
			r->lost += ((const struct mmap3_record_lost *)h)->lost;
		}
		off += h->size;
	}
}

static void *reader_fn(void *arg)
{
	struct reader *r = arg;
	size_t size = 1 << 20;
	char *buf = malloc(size);

	if (!buf)
		die("malloc");
	for (;;) {
		ssize_t n = read(r->fd, buf, size);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			die("read /dev/mmap3");
		if (!n)
			break;
		reader_scan(r, buf, n);
	}
	free(buf);
	return NULL;
}

static void session_start(struct reader *r, uint64_t bufsz)
{
	int clk = CLOCK_MONOTONIC;

	r->fd = open(MMAP3_DEVICE_PATH, O_RDONLY | O_CLOEXEC);
	if (r->fd < 0)
		die(MMAP3_DEVICE_PATH);
	if (bufsz && ioctl(r->fd, MMAP3_IOC_SET_BUFFER_SIZE, &bufsz))
		die("MMAP3_IOC_SET_BUFFER_SIZE");
	if (ioctl(r->fd, MMAP3_IOC_SET_CLOCK, &clk))
		die("MMAP3_IOC_SET_CLOCK");
	if (ioctl(r->fd, MMAP3_IOC_ENABLE))
		die("MMAP3_IOC_ENABLE");
	if (pthread_create(&r->thread, NULL, reader_fn, r))
		die("pthread_create");
}

/* The module's hash buckets for @capacity entries (module/cache.c). */
static int cache_buckets(unsigned long long capacity)
{
	int bits = 8;

	while (bits < 20 && (1ULL << bits) < capacity)
		bits++;
	return 1 << bits;
}

static void get_stats(int fd, struct mmap3_stats *st)
{
	memset(st, 0, sizeof(*st));
	st->size = sizeof(*st);
	if (ioctl(fd, MMAP3_IOC_GET_STATS, st))
		die("MMAP3_IOC_GET_STATS");
}

/* Disable (which flushes), wait for the reader to drain, stats, close. */
static void session_stop(struct reader *r, struct mmap3_stats *st)
{
	if (ioctl(r->fd, MMAP3_IOC_DISABLE))
		die("MMAP3_IOC_DISABLE");
	pthread_join(r->thread, NULL);
	get_stats(r->fd, st);
	close(r->fd);
}

static void print_samples(const char *key, uint64_t *v, size_t n)
{
	size_t i;

	printf("SAMPLES %s", key);
	for (i = 0; i < n; i++)
		printf(" %llu", (unsigned long long)v[i]);
	printf("\n");
}

/* ---- cold: first mappings of distinct ELF files ---- */

/*
 * Per file: mmap+munmap then MMAP3_IOC_FLUSH, which returns once the
 * worker has delivered the record.  For each file of DIR/b*, its first
 * mapping (cache miss: the worker reads and parses the file) is paired
 * with a mapping of the file before it (cache hit), in alternating order,
 * so that both see the same moment of a noisy host: the per-pair
 * difference is the worker's cost of a miss.  Then DIR/a*, one mapping
 * every INTERVAL_US, each new file (miss) followed by the one before it
 * (hit), without flushing: the reader's clock at read() minus the
 * record's mmap time is the latency from mmap to the record reaching the
 * reader.  DIR/c* in bulk: mapped as fast as possible then one flush,
 * cold then warm.
 */
static void map_flush(int fd, const char *dir, char prefix, long i, uint64_t *ns)
{
	char path[4096];
	uint64_t t0;

	snprintf(path, sizeof(path), "%s/%c%06ld", dir, prefix, i);
	t0 = now_ns();
	map_once(path);
	if (ioctl(fd, MMAP3_IOC_FLUSH))
		die("MMAP3_IOC_FLUSH");
	*ns = now_ns() - t0;
}

static void sleep_until(struct timespec *next, long interval_us)
{
	next->tv_nsec += interval_us * 1000;
	while (next->tv_nsec >= 1000000000) {
		next->tv_nsec -= 1000000000;
		next->tv_sec++;
	}
	clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, next, NULL);
}

static int cmd_cold(const char *dir, long n, long interval_us)
{
	uint64_t *cold = calloc(n, sizeof(uint64_t)), *warm = calloc(n, sizeof(uint64_t));
	struct mmap3_stats st0, st1;
	struct reader r = { 0 };
	char path[4096], prefix[4096];
	struct timespec next;
	uint64_t first;
	long i, pass;

	snprintf(prefix, sizeof(prefix), "%s/a", dir);
	r.prefix = prefix;
	r.prefix_len = strlen(prefix);
	r.nfiles = n;
	r.seen = calloc(n, 1);
	r.lat[0] = calloc(n, sizeof(uint64_t));
	r.lat[1] = calloc(n, sizeof(uint64_t));
	if (!cold || !warm || !r.seen || !r.lat[0] || !r.lat[1])
		die("calloc");
	session_start(&r, 0);
	/* b000000 is the first hit partner: make it one. */
	map_flush(r.fd, dir, 'b', 0, &first);
	get_stats(r.fd, &st0);
	for (i = 1; i < n; i++) {
		if (i & 1) {
			map_flush(r.fd, dir, 'b', i, &cold[i - 1]);
			map_flush(r.fd, dir, 'b', i - 1, &warm[i - 1]);
		} else {
			map_flush(r.fd, dir, 'b', i - 1, &warm[i - 1]);
			map_flush(r.fd, dir, 'b', i, &cold[i - 1]);
		}
	}
	get_stats(r.fd, &st1);
	printf("RESULT what=parse files=%ld misses=%llu hits=%llu found=%llu\n", n - 1,
	       (unsigned long long)(st1.cache_misses - st0.cache_misses),
	       (unsigned long long)(st1.cache_hits - st0.cache_hits),
	       (unsigned long long)(st1.parse[MMAP3_BUILDID_FOUND] - st0.parse[MMAP3_BUILDID_FOUND]));
	n--;
	print_samples("parse_cold_ns", cold, n);
	print_samples("parse_warm_ns", warm, n);

	/*
	 * The same in bulk, so wake-ups are amortized: DIR/c* mapped as fast
	 * as possible, then one flush; first sight, then again.
	 */
	for (pass = 0; pass < 2; pass++) {
		uint64_t t0 = now_ns(), t1;

		get_stats(r.fd, &st0);
		for (i = 0; i < n; i++) {
			snprintf(path, sizeof(path), "%s/c%06ld", dir, i);
			map_once(path);
		}
		t1 = now_ns();
		if (ioctl(r.fd, MMAP3_IOC_FLUSH))
			die("MMAP3_IOC_FLUSH");
		get_stats(r.fd, &st1);
		printf("RESULT what=bulk pass=%s files=%ld gen_ns=%llu total_ns=%llu misses=%llu\n",
		       pass ? "warm" : "cold", n, (unsigned long long)(t1 - t0),
		       (unsigned long long)(now_ns() - t0),
		       (unsigned long long)(st1.cache_misses - st0.cache_misses));
	}

	n++;
	clock_gettime(CLOCK_MONOTONIC, &next);
	for (i = 0; i <= n; i++) {
		if (i < n) {
			sleep_until(&next, interval_us);
			snprintf(path, sizeof(path), "%s/a%06ld", dir, i);
			map_once(path);
		}
		if (i > 0) {
			sleep_until(&next, interval_us);
			snprintf(path, sizeof(path), "%s/a%06ld", dir, i - 1);
			map_once(path);
		}
	}
	session_stop(&r, &st1);
	printf("RESULT what=latency files=%ld interval_us=%ld cold_seen=%zu warm_seen=%zu lost=%llu\n",
	       n, interval_us, r.nlat[0], r.nlat[1], (unsigned long long)st1.lost);
	print_samples("latency_cold_ns", r.lat[0], r.nlat[0]);
	print_samples("latency_warm_ns", r.lat[1], r.nlat[1]);
	return 0;
}

/* ---- rates: paced generator, reader draining; is anything lost? ---- */

struct gen {
	const char *file;
	long ops;
	double rate;		/* per second, 0: as fast as possible */
	uint64_t ns;
};

static void *gen_fn(void *arg)
{
	struct gen *g = arg;
	int fd = open(g->file, O_RDONLY | O_CLOEXEC);
	uint64_t t0 = now_ns();
	long i;

	if (fd < 0)
		die(g->file);
	for (i = 0; i < g->ops; i++) {
		void *p;

		if (g->rate > 0) {
			uint64_t due = t0 + (uint64_t)((double)i * 1e9 / g->rate);

			while (now_ns() < due)
				;
		}
		p = mmap(NULL, 4096, PROT_READ | PROT_EXEC, MAP_PRIVATE, fd, 0);
		if (p == MAP_FAILED)
			die("mmap");
		munmap(p, 4096);
	}
	g->ns = now_ns() - t0;
	close(fd);
	return NULL;
}

/* One session of @bufsz with a reader; @threads generators of @ops each. */
static void run_load(const char *what, const char *file, uint64_t bufsz, double rate,
		     long ops, int threads)
{
	struct gen g[2];
	pthread_t t[2];
	struct mmap3_stats st;
	struct reader r = { .match = file };
	uint64_t ns = 0;
	int i;

	session_start(&r, bufsz);
	for (i = 0; i < threads; i++) {
		g[i] = (struct gen){ .file = file, .ops = ops, .rate = rate / threads };
		if (pthread_create(&t[i], NULL, gen_fn, &g[i]))
			die("pthread_create");
	}
	for (i = 0; i < threads; i++) {
		pthread_join(t[i], NULL);
		if (g[i].ns > ns)
			ns = g[i].ns;
	}
	session_stop(&r, &st);
	printf("RESULT what=%s buffer=%llu threads=%d target_rate=%.0f ops=%ld achieved_rate=%.0f "
	       "received=%lu lost=%llu queue_lost=%llu lost_records=%llu\n", what,
	       (unsigned long long)st.buffer_size, threads, rate, ops * threads,
	       (double)ops * threads * 1e9 / (double)ns, (unsigned long)atomic_load(&r.mmaps),
	       (unsigned long long)st.lost, (unsigned long long)st.queue_lost,
	       (unsigned long long)r.lost);
	fflush(stdout);
}

/* RATE 0: as fast as the generators go, for 20000 * SECS mappings. */
static int cmd_rates(const char *file, double secs, uint64_t bufsz, int threads, int argc,
		     char **argv)
{
	int i;

	for (i = 0; i < argc; i++) {
		double rate = atof(argv[i]);
		long ops = (long)((rate > 0 ? rate : 20000) * secs) / threads;

		run_load("rate", file, bufsz, rate, ops, threads);
	}
	return 0;
}

static int cmd_burst(const char *file, long ops, int threads, int argc, char **argv)
{
	int i;

	for (i = 0; i < argc; i++)
		run_load("burst", file, strtoull(argv[i], NULL, 0), 0, ops / threads, threads);
	return 0;
}

/*
 * ---- drain: records per second the read() path carries ----
 *
 * Under TCG no generator maps fast enough to find the reader's limit, so
 * the two halves are timed apart: N mappings are made and flushed into
 * a buffer of BUFSZ with nobody reading (the worker's rate is what the
 * generator and MMAP3_IOC_FLUSH take), then one thread reads them all
 * with the tool's 1 MiB read()s and looks at every record
 * (reader_scan(), as reader_fn does): its wall and CPU time per record.
 */
static int cmd_drain(const char *file, long n, uint64_t bufsz)
{
	struct reader r = { .match = file };
	struct timespec c0, c1;
	struct mmap3_stats st;
	uint64_t t0, t1, t2;
	long i, reads = 0;
	size_t size = 1 << 20;
	char *buf = malloc(size);
	int clk = CLOCK_MONOTONIC, fd;

	if (!buf)
		die("malloc");
	r.fd = open(MMAP3_DEVICE_PATH, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (r.fd < 0)
		die(MMAP3_DEVICE_PATH);
	if (ioctl(r.fd, MMAP3_IOC_SET_BUFFER_SIZE, &bufsz) ||
	    ioctl(r.fd, MMAP3_IOC_SET_CLOCK, &clk) || ioctl(r.fd, MMAP3_IOC_ENABLE))
		die("session setup");
	fd = open(file, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		die(file);
	t0 = now_ns();
	for (i = 0; i < n; i++) {
		void *p = mmap(NULL, 4096, PROT_READ | PROT_EXEC, MAP_PRIVATE, fd, 0);

		if (p == MAP_FAILED)
			die("mmap");
		munmap(p, 4096);
	}
	close(fd);
	if (ioctl(r.fd, MMAP3_IOC_FLUSH))
		die("MMAP3_IOC_FLUSH");
	t1 = now_ns();
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &c0);
	/* Everything is in the buffer: EAGAIN means it is empty. */
	for (;;) {
		ssize_t got = read(r.fd, buf, size);

		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0 && errno == EAGAIN)
			break;
		if (got < 0)
			die("read /dev/mmap3");
		if (!got)
			break;
		reads++;
		reader_scan(&r, buf, got);
	}
	t2 = now_ns();
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &c1);
	if (ioctl(r.fd, MMAP3_IOC_DISABLE))
		die("MMAP3_IOC_DISABLE");
	get_stats(r.fd, &st);
	close(r.fd);
	free(buf);
	printf("RESULT what=drain buffer=%llu ops=%ld produce_ns=%llu received=%lu reads=%ld "
	       "read_ns=%llu read_cpu_ns=%llu lost=%llu queue_lost=%llu\n",
	       (unsigned long long)st.buffer_size, n, (unsigned long long)(t1 - t0),
	       (unsigned long)atomic_load(&r.mmaps), reads, (unsigned long long)(t2 - t1),
	       (unsigned long long)((c1.tv_sec - c0.tv_sec) * 1000000000LL +
				    (c1.tv_nsec - c0.tv_nsec)),
	       (unsigned long long)st.lost, (unsigned long long)st.queue_lost);
	return 0;
}

/* ---- mem: slab use of the cache ---- */

static long long slab_attr(const char *attr)
{
	char path[256];
	long long v = -1;
	FILE *f;

	snprintf(path, sizeof(path), "/sys/kernel/slab/mmap3_cache_entry/%s", attr);
	f = fopen(path, "r");
	if (!f)
		return -1;
	if (fscanf(f, "%lld", &v) != 1)
		v = -1;
	fclose(f);
	return v;
}

static long long meminfo(const char *key)
{
	char line[256];
	long long v = -1;
	size_t len = strlen(key);
	FILE *f = fopen("/proc/meminfo", "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, key, len) && line[len] == ':')
			v = atoll(line + len + 1) * 1024;
	fclose(f);
	return v;
}

static int cmd_mem(const char *dir, const char *prefix, long n)
{
	long long objs0, slabs0, slab0, objs1, slabs1, slab1, order, page = sysconf(_SC_PAGESIZE);
	struct mmap3_stats st0, st1, st2;
	struct reader r = { 0 };
	uint64_t *warm;
	long i, sample = n < 1000 ? n : 1000;
	char path[4096];

	warm = calloc(sample, sizeof(*warm));
	if (!warm)
		die("calloc");
	session_start(&r, 0);
	if (ioctl(r.fd, MMAP3_IOC_FLUSH))
		die("MMAP3_IOC_FLUSH");
	get_stats(r.fd, &st0);
	objs0 = slab_attr("objects");
	slabs0 = slab_attr("slabs");
	slab0 = meminfo("Slab");
	for (i = 0; i < n; i++) {
		snprintf(path, sizeof(path), "%s/%s%06ld", dir, prefix, i);
		map_once(path);
	}
	if (ioctl(r.fd, MMAP3_IOC_FLUSH))
		die("MMAP3_IOC_FLUSH");
	get_stats(r.fd, &st1);
	objs1 = slab_attr("objects");
	slabs1 = slab_attr("slabs");
	slab1 = meminfo("Slab");
	order = slab_attr("order");
	printf("RESULT what=mem files=%ld entries=%llu capacity=%llu misses=%llu evictions=%llu "
	       "object_size=%lld slab_size=%lld objs_per_slab=%lld order=%lld page=%lld "
	       "objects_delta=%lld slabs_delta=%lld slab_bytes_delta=%lld meminfo_slab_delta=%lld "
	       "hash_buckets=%d\n",
	       n, (unsigned long long)st1.cache_entries, (unsigned long long)st1.cache_capacity,
	       (unsigned long long)(st1.cache_misses - st0.cache_misses),
	       (unsigned long long)(st1.cache_evictions - st0.cache_evictions),
	       slab_attr("object_size"), slab_attr("slab_size"), slab_attr("objs_per_slab"),
	       order, page, objs1 - objs0, slabs1 - slabs0, (slabs1 - slabs0) * (page << order),
	       slab1 - slab0, cache_buckets(st1.cache_capacity));
	/* Lookup cost with the cache this full: the hit path, per file. */
	for (i = 0; i < sample; i++) {
		uint64_t t0 = now_ns();

		snprintf(path, sizeof(path), "%s/%s%06ld", dir, prefix, i * (n / sample));
		map_once(path);
		if (ioctl(r.fd, MMAP3_IOC_FLUSH))
			die("MMAP3_IOC_FLUSH");
		warm[i] = now_ns() - t0;
	}
	get_stats(r.fd, &st2);
	printf("RESULT what=hits files=%ld hits=%llu misses=%llu\n", sample,
	       (unsigned long long)(st2.cache_hits - st1.cache_hits),
	       (unsigned long long)(st2.cache_misses - st1.cache_misses));
	print_samples("hit_flush_ns", warm, sample);
	session_stop(&r, &st2);
	return 0;
}

/* ---- hashload: the cache's table under inode numbers chosen by others ---- */

/*
 * Each of @n open files mapped once, as map_once() maps a path, and the
 * session flushed: the nanoseconds it took, worker included.
 */
static uint64_t map_fds_flushed(int session, const int *fds, long n)
{
	uint64_t t0 = now_ns();
	long i;

	for (i = 0; i < n; i++) {
		void *p = mmap(NULL, 4096, PROT_READ | PROT_EXEC, MAP_PRIVATE, fds[i], 0);

		if (p == MAP_FAILED)
			die("mmap");
		munmap(p, 4096);
	}
	if (ioctl(session, MMAP3_IOC_FLUSH))
		die("MMAP3_IOC_FLUSH");
	return now_ns() - t0;
}

/*
 * N files DIR/PREFIXnnnnnn, opened and read whole first (no daemon or
 * disk in what is timed: the module finds each build-id in the page
 * cache), mapped once each in a session (misses: parsed and inserted),
 * then again (hits: looked up).  bench/vm/guest runs it on a FUSE
 * daemon's files numbered as usual and numbered to collide, and compares.
 */
static int cmd_hashload(const char *dir, const char *prefix, long n)
{
	struct rlimit rl = { .rlim_cur = n + 64, .rlim_max = n + 64 };
	struct mmap3_stats st0, st1, st2;
	struct reader r = { 0 };
	uint64_t fill, hit;
	char path[4096], buf[65536];
	int *fds;
	long i;

	fds = calloc(n, sizeof(*fds));
	if (!fds || setrlimit(RLIMIT_NOFILE, &rl))
		die("hashload: room for the files");
	for (i = 0; i < n; i++) {
		snprintf(path, sizeof(path), "%s/%s%06ld", dir, prefix, i);
		fds[i] = open(path, O_RDONLY | O_CLOEXEC);
		if (fds[i] < 0)
			die(path);
		while (read(fds[i], buf, sizeof(buf)) > 0)
			;
	}
	session_start(&r, 0);
	if (ioctl(r.fd, MMAP3_IOC_FLUSH))
		die("MMAP3_IOC_FLUSH");
	get_stats(r.fd, &st0);
	fill = map_fds_flushed(r.fd, fds, n);
	get_stats(r.fd, &st1);
	hit = map_fds_flushed(r.fd, fds, n);
	get_stats(r.fd, &st2);
	printf("RESULT what=hashload files=%ld fill_ns_per_file=%.1f hit_ns_per_file=%.1f "
	       "misses=%llu hits=%llu evictions=%llu entries=%llu\n",
	       n, (double)fill / n, (double)hit / n,
	       (unsigned long long)(st1.cache_misses - st0.cache_misses),
	       (unsigned long long)(st2.cache_hits - st1.cache_hits),
	       (unsigned long long)(st2.cache_evictions - st0.cache_evictions),
	       (unsigned long long)st2.cache_entries);
	session_stop(&r, &st2);
	for (i = 0; i < n; i++)
		close(fds[i]);
	free(fds);
	return 0;
}

/* ---- crafted: the costliest files for the module's parser ---- */

/*
 * Files made to cost the parser as much as its per-file budget allows,
 * each with its own inode, beside a normal one (a tiny ELF file with a
 * build-id, as mkelf makes):
 *   s  1,200 section headers (about 75 KB), none a note, no program header
 *   p  1,200 program headers, none a note
 *   t  a PT_NOTE segment of 64 KiB of empty notes (5,461 of them)
 */
static void write_file(const char *path, const void *buf, size_t len)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0755);

	if (fd < 0)
		die(path);
	if (write(fd, buf, len) != (ssize_t)len)
		die("write");
	close(fd);
}

static int cmd_crafted(const char *dir, long n)
{
	size_t size = sizeof(Elf64_Ehdr) + 1200 * sizeof(Elf64_Shdr) + (64 << 10);
	uint8_t *buf = calloc(1, size);
	Elf64_Ehdr *eh = (void *)buf;
	char path[4096];
	long i;
	int k;

	if (!buf)
		die("calloc");
	mkdir(dir, 0755);
	for (k = 0; k < 3; k++) {
		size_t len;

		memset(buf, 0, size);
		memcpy(eh->e_ident, ELFMAG, SELFMAG);
		eh->e_ident[EI_CLASS] = ELFCLASS64;
		eh->e_ident[EI_DATA] = ELFDATA2LSB;
		eh->e_ident[EI_VERSION] = EV_CURRENT;
		eh->e_type = ET_DYN;
		eh->e_machine = EM_X86_64;
		eh->e_version = EV_CURRENT;
		eh->e_ehsize = sizeof(*eh);
		if (k == 0) {		/* sections */
			Elf64_Shdr *sh = (void *)(buf + sizeof(*eh));

			eh->e_shoff = sizeof(*eh);
			eh->e_shentsize = sizeof(*sh);
			eh->e_shnum = 1200;
			for (i = 1; i < 1200; i++)
				sh[i].sh_type = SHT_PROGBITS;
			len = sizeof(*eh) + 1200 * sizeof(*sh);
		} else if (k == 1) {	/* program headers */
			Elf64_Phdr *ph = (void *)(buf + sizeof(*eh));

			eh->e_phoff = sizeof(*eh);
			eh->e_phentsize = sizeof(*ph);
			eh->e_phnum = 1200;
			for (i = 0; i < 1200; i++)
				ph[i].p_type = PT_LOAD;
			len = sizeof(*eh) + 1200 * sizeof(*ph);
		} else {		/* tiny notes */
			Elf64_Phdr *ph = (void *)(buf + sizeof(*eh));

			eh->e_phoff = sizeof(*eh);
			eh->e_phentsize = sizeof(*ph);
			eh->e_phnum = 1;
			ph->p_type = PT_NOTE;
			ph->p_offset = 4096;
			ph->p_filesz = 64 << 10;
			ph->p_align = 4;
			len = 4096 + (64 << 10);
		}
		for (i = 0; i < n; i++) {
			/* Its own bytes: its own inode and page cache. */
			memcpy(buf + 8, &i, sizeof(i));
			snprintf(path, sizeof(path), "%s/%c%06ld", dir, "spt"[k], i);
			write_file(path, buf, len);
		}
	}
	free(buf);
	return 0;
}

/*
 * costs: the worker's cost of a miss on each kind of file, interleaved
 * kind by kind so each sees the same moment of the host: mapped, then
 * flushed (map_flush), one new file of each kind per round.
 */
static int cmd_costs(const char *dir, long n)
{
	static const char kinds[] = "nspt";
	uint64_t *ns[4];
	struct mmap3_stats st0, st1;
	struct reader r = { 0 };
	long i;
	int k;

	for (k = 0; k < 4; k++)
		if (!(ns[k] = calloc(n, sizeof(uint64_t))))
			die("calloc");
	session_start(&r, 0);
	get_stats(r.fd, &st0);
	for (i = 0; i < n; i++)
		for (k = 0; k < 4; k++)
			map_flush(r.fd, dir, kinds[(k + i) % 4], i, &ns[(k + i) % 4][i]);
	get_stats(r.fd, &st1);
	printf("RESULT what=costs files=%ld limit=%llu found=%llu\n", n,
	       (unsigned long long)(st1.parse[MMAP3_BUILDID_LIMIT] - st0.parse[MMAP3_BUILDID_LIMIT]),
	       (unsigned long long)(st1.parse[MMAP3_BUILDID_FOUND] - st0.parse[MMAP3_BUILDID_FOUND]));
	for (k = 0; k < 4; k++) {
		char key[32];

		snprintf(key, sizeof(key), "miss_%c_ns", kinds[k]);
		print_samples(key, ns[k], n);
		free(ns[k]);
	}
	session_stop(&r, &st1);
	return 0;
}

/* ---- dump: the state dump of many processes, streamed to a reader ---- */

static int cmd_dump(const char *file, long procs, long maps)
{
	struct mmap3_record_header *h;
	int pipefd[2], readyfd[2], fd, done = 0;
	uint64_t t0, t_done = 0, records = 0, lost = 0, dumped = 0, skipped = 0;
	struct mmap3_stats st;
	size_t size = 1 << 20;
	char *buf = malloc(size), c;
	pid_t *kids = calloc(procs, sizeof(pid_t));
	long i, j;

	if (!buf || !kids || pipe(pipefd) || pipe(readyfd))
		die("setup");
	for (i = 0; i < procs; i++) {
		kids[i] = fork();
		if (kids[i] < 0)
			die("fork");
		if (!kids[i]) {
			int f = open(file, O_RDONLY | O_CLOEXEC);
			char ready = 'r';

			/* Mappings kept, for the dump to find. */
			for (j = 0; j < maps; j++)
				if (f < 0 || mmap(NULL, 4096, PROT_READ | PROT_EXEC, MAP_PRIVATE, f,
						  0) == MAP_FAILED)
					ready = 'f';
			close(pipefd[1]);
			close(readyfd[0]);
			if (write(readyfd[1], &ready, 1) != 1 || ready != 'r')
				_exit(1);
			if (read(pipefd[0], &c, 1) < 0)
				_exit(1);
			_exit(0);
		}
	}
	close(pipefd[0]);
	close(readyfd[1]);
	/* Every process has made its mappings: the dump measures only itself. */
	for (i = 0; i < procs; i++)
		if (read(readyfd[0], &c, 1) != 1 || c != 'r')
			die("a process failed to make its mappings");
	close(readyfd[0]);
	fd = open(MMAP3_DEVICE_PATH, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		die(MMAP3_DEVICE_PATH);
	t0 = now_ns();
	if (ioctl(fd, MMAP3_IOC_ENABLE))
		die("MMAP3_IOC_ENABLE");
	while (!done) {
		ssize_t n = read(fd, buf, size);

		if (n <= 0)
			die("read");
		for (h = (void *)buf; (char *)h < buf + n; h = (void *)((char *)h + h->size)) {
			records++;
			if (h->type == MMAP3_RECORD_LOST)
				lost += ((struct mmap3_record_lost *)h)->lost;
			if (h->type == MMAP3_RECORD_DUMP_DONE) {
				t_done = now_ns() - t0;
				dumped = ((struct mmap3_record_dump_done *)h)->mappings;
				skipped = ((struct mmap3_record_dump_done *)h)->tasks_skipped;
				done = 1;
			}
		}
	}
	get_stats(fd, &st);
	printf("RESULT what=dump procs=%ld maps=%ld dumped=%llu records=%llu lost=%llu ns=%llu "
	       "skipped=%llu lost_dump=%llu lost_buffer=%llu lost_queue=%llu\n",
	       procs, maps, (unsigned long long)dumped, (unsigned long long)records,
	       (unsigned long long)lost, (unsigned long long)t_done, (unsigned long long)skipped,
	       (unsigned long long)st.lost_dump, (unsigned long long)st.lost_buffer,
	       (unsigned long long)st.lost_queue);
	close(fd);
	close(pipefd[1]);
	for (i = 0; i < procs; i++)
		waitpid(kids[i], NULL, 0);
	free(kids);
	free(buf);
	return 0;
}

/* ---- workloads: what people profile, timed whole ---- */

/*
 * build: a shell script running N short dynamically linked processes, as
 * a build does (each exec maps the loader, libc and the program);
 * dlopen: a program opening and closing a shared library N times.
 * Prints the wall time of the whole.
 */
static int cmd_workload(const char *what, const char *arg, long n)
{
	uint64_t t0 = now_ns();
	char script[256];
	long i;

	if (!strcmp(what, "build")) {
		int status;
		pid_t pid = fork();

		if (pid < 0)
			die("fork");
		if (!pid) {
			snprintf(script, sizeof(script),
				 "i=0; while [ $i -lt %ld ]; do %s; i=$((i + 1)); done", n, arg);
			execl("/bin/sh", "sh", "-c", script, (char *)NULL);
			_exit(127);
		}
		if (waitpid(pid, &status, 0) < 0 || !WIFEXITED(status) || WEXITSTATUS(status))
			die("the build-like script failed");
	} else if (!strcmp(what, "dlopen")) {
		for (i = 0; i < n; i++) {
			void *h = dlopen(arg, RTLD_NOW | RTLD_LOCAL);

			if (!h) {
				fprintf(stderr, "m3bench: %s\n", dlerror());
				return 1;
			}
			dlclose(h);
		}
	} else {
		return 2;
	}
	printf("RESULT what=workload kind=%s ops=%ld total_ns=%llu\n", what, n,
	       (unsigned long long)(now_ns() - t0));
	return 0;
}

int main(int argc, char **argv)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc == 4 && !strcmp(argv[1], "hot"))
		return cmd_hot(argv[2], atol(argv[3]));
	if (argc == 4 && !strcmp(argv[1], "hotsplit"))
		return cmd_hot_split(argv[2], atol(argv[3]));
	if (argc == 5 && !strcmp(argv[1], "hotfloor"))
		return cmd_hot_floor(argv[2], atol(argv[3]), argv[4]);
	if (argc == 4 && !strcmp(argv[1], "hotpolled"))
		return cmd_hot_polled(argv[2], atol(argv[3]));
	if (argc == 4 && !strcmp(argv[1], "exec"))
		return cmd_exec(argv[2], atol(argv[3]));
	if (argc == 5 && !strcmp(argv[1], "mkelf"))
		return cmd_mkelf(argv[2], argv[3], atol(argv[4]));
	if (argc == 5 && !strcmp(argv[1], "cold"))
		return cmd_cold(argv[2], atol(argv[3]), atol(argv[4]));
	if (argc >= 7 && !strcmp(argv[1], "rates"))
		return cmd_rates(argv[2], atof(argv[3]), strtoull(argv[4], NULL, 0), atoi(argv[5]),
				 argc - 6, argv + 6);
	if (argc >= 6 && !strcmp(argv[1], "burst"))
		return cmd_burst(argv[2], atol(argv[3]), atoi(argv[4]), argc - 5, argv + 5);
	if (argc == 5 && !strcmp(argv[1], "drain"))
		return cmd_drain(argv[2], atol(argv[3]), strtoull(argv[4], NULL, 0));
	if (argc == 5 && !strcmp(argv[1], "mem"))
		return cmd_mem(argv[2], argv[3], atol(argv[4]));
	if (argc == 5 && !strcmp(argv[1], "hashload"))
		return cmd_hashload(argv[2], argv[3], atol(argv[4]));
	if (argc == 4 && !strcmp(argv[1], "crafted"))
		return cmd_crafted(argv[2], atol(argv[3]));
	if (argc == 4 && !strcmp(argv[1], "costs"))
		return cmd_costs(argv[2], atol(argv[3]));
	if (argc == 5 && !strcmp(argv[1], "workload"))
		return cmd_workload(argv[2], argv[3], atol(argv[4]));
	if (argc == 5 && !strcmp(argv[1], "dump"))
		return cmd_dump(argv[2], atol(argv[3]), atol(argv[4]));
	fprintf(stderr, "usage: see bench/vm/m3bench.c\n");
	return 2;
}
