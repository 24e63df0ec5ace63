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
#include "perf_reader.h"
#include "side.h"

#define MMAP_FIXED	40
#define MMAP2_FIXED	72
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
	const struct perf_event_header *h;
	uint64_t st_type, page = (uint64_t)sysconf(_SC_PAGESIZE), off, n = 0;
	unsigned int time_at, cpu_at, fields = 0, bit;
	struct perf_reader r;
	struct side_writer s;
	int ret;

	if (argc != 3) {
		fprintf(stderr, "usage: side_from_perf PERF_DATA SIDE\n");
		return 2;
	}
	if (perf_reader_open(&r, argv[1]))
		return 1;
	/* The sample_id trailer of non-sample records, from the end. */
	st_type = r.attrs[0].attr.sample_type;
	for (bit = 0; bit < 64; bit++) {
		uint64_t b = 1ULL << bit;

		if (b & (PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_ID |
			 PERF_SAMPLE_STREAM_ID | PERF_SAMPLE_CPU | PERF_SAMPLE_IDENTIFIER) & st_type)
			fields++;
	}
	time_at = 8 * fields - 8 * !!(st_type & PERF_SAMPLE_TID);
	cpu_at = time_at - 8 - 8 * !!(st_type & PERF_SAMPLE_ID) -
		 8 * !!(st_type & PERF_SAMPLE_STREAM_ID);
	if (!(st_type & PERF_SAMPLE_TIME) || !r.attrs[0].attr.sample_id_all) {
		fprintf(stderr, "side_from_perf: %s has no timestamps on its records\n", argv[1]);
		return 1;
	}
	if (side_open(&s, argv[2], MMAP3_CLOCK_LOCAL))
		return 1;
	while ((ret = perf_reader_next(&r, &h, &off)) > 0) {
		size_t fixed = h->type == PERF_RECORD_MMAP ? MMAP_FIXED : MMAP2_FIXED;
		const uint8_t *p = (const uint8_t *)h;
		const char *name = (const char *)p + fixed;
		size_t name_len, size;
		struct mmap3_record_mmap *m;
		uint32_t prot = PROT_READ | PROT_EXEC;

		if ((h->type != PERF_RECORD_MMAP && h->type != PERF_RECORD_MMAP2) ||
		    h->size < fixed + 8 * fields + 2 || name[0] != '/')
			continue;
		if (h->type == PERF_RECORD_MMAP2)
			memcpy(&prot, p + 64, 4);
		name_len = strnlen(name, h->size - fixed - 8 * fields);
		size = sizeof(*m) + ((name_len + 8) & ~7UL);
		m = calloc(1, size);
		if (!m)
			return 1;
		m->header.type = MMAP3_RECORD_MMAP;
		m->header.size = (uint32_t)size;
		memcpy(&m->header.time, p + h->size - time_at, 8);
		memcpy(&m->cpu, p + h->size - cpu_at, 4);
		memcpy(&m->pid, p + 8, 4);
		memcpy(&m->tid, p + 12, 4);
		memcpy(&m->addr, p + 16, 8);
		memcpy(&m->len, p + 24, 8);
		memcpy(&m->pgoff, p + 32, 8);
		m->pgoff /= page;
		m->prot = prot;
		m->build_id = *build_id(name);
		memcpy(m->path, name, name_len);
		if (side_add(&s, &m->header))
			return 1;
		free(m);
		n++;
	}
	if (ret < 0 || side_close(&s))
		return 1;
	perf_reader_close(&r);
	printf("%llu mappings, %llu without a build-id\n", (unsigned long long)n,
	       (unsigned long long)s.stats.no_build_id);
	return 0;
}
