// SPDX-License-Identifier: GPL-2.0
/*
 * The merge benchmark's side file: what mmap3 record would have written
 * beside a perf record session on a host without /dev/mmap3 (the module
 * is never loaded on the host).  Every user-space file mapping of
 * PERF_DATA becomes an mmap3 mapping record with the same pid, tid,
 * range, offset, name and time, and the build-id the mmap3 parser reads
 * from the file now, so mmap3 merge has every mapping to match and
 * rewrite, as in a real session.
 *
 *   side_from_perf PERF_DATA SIDE
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "elf_buildid.h"
#include "elf_buildid_fd.h"
#include "perf/reader.h"
#include "side.h"

#define CACHE_SIZE	4096	/* distinct paths: a few hundred in practice */

struct cached {
	char *path;
	struct mmap3_build_id id;
};

static struct cached cache[CACHE_SIZE];

/* The parser's window: one read finds most ids, few read a section table. */
static unsigned char win[WIN_SIZE];

/* The file's build-id, read once per path. */
static const struct mmap3_build_id *build_id(const char *path)
{
	uint64_t h = 0xcbf29ce484222325ULL;
	const char *p;
	size_t i;

	for (p = path; *p; p++)
		h = (h ^ (uint8_t)*p) * 0x100000001b3ULL;
	for (i = h % CACHE_SIZE; cache[i].path; i = (i + 1) % CACHE_SIZE)
		if (!strcmp(cache[i].path, path))
			return &cache[i].id;
	cache[i].path = strdup(path);
	if (!cache[i].path)
		exit(1);
	{
		struct elf_buildid bid;
		struct stat st;
		int fd = open(path, O_RDONLY | O_CLOEXEC);

		cache[i].id.status = MMAP3_BUILDID_IO_ERROR;
		if (fd >= 0 && !fstat(fd, &st)) {
			elf_buildid_parse_buf(elf_buildid_fd_read, &fd, (__u64)st.st_size, &bid,
					      win, sizeof(win));
			cache[i].id.status = (uint8_t)bid.status;
			cache[i].id.size = (uint8_t)bid.size;
			memcpy(cache[i].id.data, bid.id, bid.size);
		}
		if (fd >= 0)
			close(fd);
	}
	return &cache[i].id;
}

int main(int argc, char **argv)
{
	uint64_t page = (uint64_t)sysconf(_SC_PAGESIZE), n = 0;
	struct perf_reader r;
	struct side_writer s;
	struct perf_rec rec;
	int ret;

	if (argc != 3) {
		fprintf(stderr, "usage: side_from_perf PERF_DATA SIDE\n");
		return 2;
	}
	if (perf_reader_open(&r, argv[1])) {
		fprintf(stderr, "side_from_perf: %s\n", perf_reader_error(&r));
		return 1;
	}
	if (!(r.id.fields & PERF_SAMPLE_TIME)) {
		fprintf(stderr, "side_from_perf: %s has no timestamps on its records\n", argv[1]);
		return 1;
	}
	if (side_open(&s, argv[2], MMAP3_CLOCK_LOCAL))
		return 1;
	while ((ret = perf_reader_next(&r, &rec)) > 0) {
		const struct perf_event_header *h = rec.h;
		size_t fixed = h->type == PERF_RECORD_MMAP ? PERF_MMAP_FIXED : PERF_MMAP2_FIXED;
		const uint8_t *p = (const uint8_t *)h;
		const char *name = (const char *)p + fixed;
		struct perf_record_mmap pm;
		struct mmap3_record_mmap *m;
		uint32_t prot = PROT_READ | PROT_EXEC;
		struct sample_id id;
		size_t name_len, size;

		if ((h->type != PERF_RECORD_MMAP && h->type != PERF_RECORD_MMAP2) || name[0] != '/')
			continue;
		if (h->type == PERF_RECORD_MMAP2)
			memcpy(&prot, p + offsetof(struct perf_record_mmap2, prot), 4);
		name_len = strnlen(name, h->size - fixed - r.id.size);
		size = sizeof(*m) + ((name_len + 8) & ~7UL);
		m = calloc(1, size);
		if (!m)
			return 1;
		memcpy(&pm, h, sizeof(pm));
		sample_id_parse(&r.id, h, &id);
		m->header.type = MMAP3_RECORD_MMAP;
		m->header.size = (uint32_t)size;
		m->header.time = id.time;
		m->cpu = id.cpu;
		m->pid = pm.pid;
		m->tid = pm.tid;
		m->addr = pm.start;
		m->len = pm.len;
		m->pgoff = pm.pgoff / page;
		m->prot = prot;
		m->build_id = *build_id(name);
		memcpy(m->path, name, name_len);
		if (side_add(&s, &m->header))
			return 1;
		free(m);
		n++;
	}
	if (ret < 0) {
		fprintf(stderr, "side_from_perf: %s\n", perf_reader_error(&r));
		return 1;
	}
	if (side_close(&s))
		return 1;
	perf_reader_close(&r);
	printf("%llu mappings, %llu without a build-id\n", (unsigned long long)n,
	       (unsigned long long)s.stats.no_build_id);
	return 0;
}
