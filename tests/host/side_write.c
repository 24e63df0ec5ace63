// SPDX-License-Identifier: GPL-2.0
/*
 * Write a side file from made-up mmap3 records, as mmap3 record would:
 * the kernel, a module, mappings with a 20-byte, a 32-byte and no
 * build-id, and a lost record.  perf_file_test.sh then lets perf judge it.
 *
 *   side_write FILE [BASE]
 *
 * Times are BASE (default 0) plus a few microseconds: merge takes a side
 * file only if its times overlap perf.data's, so a test that merges it
 * with a perf record of its own gives that record's first time.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/utsname.h>

#include "side.h"

static void fill(uint8_t *p, size_t n, uint8_t v)
{
	size_t i;

	for (i = 0; i < n; i++)
		p[i] = (uint8_t)(v + i);
}

int main(int argc, char **argv)
{
	struct side_writer s;
	struct mmap3_record_kernel k = {
		.header = { MMAP3_RECORD_KERNEL, sizeof(k), 1000 },

		.build_id = { .status = MMAP3_BUILDID_FOUND, .size = 20 },
	};
	struct mmap3_record_module mod = {
		.header = { MMAP3_RECORD_MODULE_LOAD, sizeof(mod), 2000 },
		.text_addr = 0xffffffffc0000000ULL,
		.text_size = 0x4000,
		.name = "testmod",
		.build_id = { .status = MMAP3_BUILDID_FOUND, .size = 20 },
	};
	struct mmap3_record_lost lost = {
		.header = { MMAP3_RECORD_LOST, sizeof(lost), 5000 },
		.lost = 7,
	};
	static const struct {
		const char *path;
		uint8_t status, size, fill;
		uint64_t time;
	} maps[] = {
		{ "/usr/bin/prog", MMAP3_BUILDID_FOUND, 20, 0x10, 3000 },
		{ "/usr/lib/libwide.so", MMAP3_BUILDID_FOUND, 32, 0x20, 3100 },
		{ "/usr/bin/script.sh", MMAP3_BUILDID_NOT_ELF, 0, 0, 3200 },
		{ "/usr/bin/prog", MMAP3_BUILDID_FOUND, 20, 0x30, 4000 },
	};
	struct utsname u;
	uint64_t base = argc == 3 ? strtoull(argv[2], NULL, 0) : 0;
	size_t i;

	if (argc != 2 && argc != 3) {
		fprintf(stderr, "usage: side_write FILE [BASE]\n");
		return 2;
	}
	k.header.time += base;
	mod.header.time += base;
	lost.header.time += base;
	/* As mmap3 record would: the running kernel, so merge takes it as one session. */
	uname(&u);
	snprintf(k.release, sizeof(k.release), "%s", u.release);
	fill(k.build_id.data, 20, 0xa0);
	fill(mod.build_id.data, 20, 0xb0);
	if (side_open(&s, argv[1], MMAP3_CLOCK_LOCAL) || side_add(&s, &k.header) ||
	    side_add(&s, &mod.header))
		return 1;
	for (i = 0; i < sizeof(maps) / sizeof(maps[0]); i++) {
		size_t size = sizeof(struct mmap3_record_mmap) + 64;
		struct mmap3_record_mmap *m = calloc(1, size);

		m->header.type = MMAP3_RECORD_MMAP;
		m->header.size = (uint32_t)size;
		m->header.time = base + maps[i].time;
		m->pid = m->tid = 100 + (uint32_t)i;
		m->cpu = 1;
		m->prot = PROT_READ | PROT_EXEC;
		m->addr = 0x400000 + 0x100000 * i;
		m->len = 0x2000;
		m->pgoff = 1;
		m->dev_major = 8;
		m->dev_minor = 1;
		m->ino = 1234 + i;
		m->build_id.status = maps[i].status;
		m->build_id.size = maps[i].size;
		fill(m->build_id.data, maps[i].size, maps[i].fill);
		strcpy(m->path, maps[i].path);
		if (side_add(&s, &m->header))
			return 1;
		free(m);
	}
	if (side_add(&s, &lost.header) || side_close(&s))
		return 1;
	printf("mappings %llu, no build-id %llu, long build-id %llu, lost %llu\n",
	       (unsigned long long)s.stats.mmaps, (unsigned long long)s.stats.no_build_id,
	       (unsigned long long)s.stats.long_build_id, (unsigned long long)s.stats.lost);
	return 0;
}
