// SPDX-License-Identifier: GPL-2.0
/*
 * The tool's own work per record, as `mmap3 record` does it: records
 * taken from a mapped buffer (mmap3_records_next(), which checks each)
 * and written to a side file (side_add()).  No module: the buffer is
 * filled here, as the module fills it, with N mapping records of
 * DISTINCT files (1: the hot loop's one file mapped again and again).
 * Run under callgrind, the instructions per record are the tool's part
 * of the session's reader; the kernel's part (poll(), the file's page
 * cache) is counted by bench/vm/icount.
 *
 *   reader_bench N DISTINCT SIDE
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "device.h"
#include "side.h"

#define RING_SIZE	(1ULL << 26)

static size_t put_mmap(uint8_t *at, unsigned int i, unsigned int distinct)
{
	struct mmap3_record_mmap *m = (void *)at;
	struct mmap3_mmap_ns *ns;
	size_t len, pathsz;
	unsigned int f = i % distinct;

	memset(m, 0, sizeof(*m));
	m->header.type = MMAP3_RECORD_MMAP;
	m->header.time = 1000000 + 1000ULL * i;
	m->pid = 4242;
	m->tid = 4242;
	m->prot = 5;		/* PROT_READ | PROT_EXEC */
	m->flags = MMAP3_MMAP_NS;
	m->addr = 0x7f0000000000ULL + 0x10000ULL * (i % 64);
	m->len = 0x3000;
	m->pgoff = 1;
	m->dev_major = 8;
	m->dev_minor = 1;
	m->ino = 100000 + f;
	m->build_id.status = MMAP3_BUILDID_FOUND;
	m->build_id.size = 20;
	memset(m->build_id.data, 0xa5, 20);
	memcpy(m->build_id.data, &f, sizeof(f));
	len = (size_t)sprintf(m->path, distinct == 1 ? "/bench/exectarget" :
			      "/usr/lib/x86_64-linux-gnu/lib%u.so.1", f);
	pathsz = (sizeof(*m) + len + 1 + 7) & ~(size_t)7;
	memset(m->path + len, 0, pathsz - sizeof(*m) - len);
	ns = (void *)(at + pathsz);
	memset(ns, 0, sizeof(*ns) + 8);
	ns->size = sizeof(*ns) + 8;
	m->header.size = (uint32_t)(pathsz + ns->size);
	return m->header.size;
}

/* Apart, for callgrind's --toggle-collect=read_all: this and no more. */
__attribute__((noinline)) static int read_all(struct mmap3_records *r, struct side_writer *side,
					      unsigned int n)
{
	const struct mmap3_record_header *h;
	unsigned int i;

	for (i = 0; i < n; i++)
		if (mmap3_records_next(r, &h) != 1 || side_add_checked(side, h, &r->mmap)) {
			fprintf(stderr, "reader_bench: record %u not taken\n", i);
			return -1;
		}
	return 0;
}

int main(int argc, char **argv)
{
	struct mmap3_ring_control ctl = { 0 };
	struct mmap3_records r;
	struct side_writer side;
	unsigned int n, distinct, i;
	uint8_t *data;
	uint64_t head = 0;

	if (argc != 4 || (n = (unsigned int)atoi(argv[1])) < 1 ||
	    (distinct = (unsigned int)atoi(argv[2])) < 1) {
		fprintf(stderr, "usage: reader_bench N DISTINCT SIDE\n");
		return 2;
	}
	data = mmap(NULL, RING_SIZE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (data == MAP_FAILED)
		return 1;
	for (i = 0; i < n && head + 512 < RING_SIZE; i++)
		head += put_mmap(data + head, i, distinct);
	n = i;
	ctl.size = RING_SIZE;
	ctl.head = head;
	/* As map_buffer() leaves it; read() is never tried. */
	memset(&r, 0, sizeof(r));
	r.fd = -1;
	r.map_state = 1;
	r.ctl = &ctl;
	r.data = data;
	r.size = RING_SIZE;
	if (side_open(&side, argv[3], MMAP3_CLOCK_LOCAL))
		return 1;
	if (read_all(&r, &side, n)) {
		side_abort(&side);
		return 1;
	}
	if (side_close(&side))
		return 1;
	printf("RESULT records=%u distinct=%u bytes=%llu\n", n, distinct,
	       (unsigned long long)head);
	return 0;
}
