// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target for userspace/perf/reader.c, what mmap3 dump and mmap3
 * merge parse: any input is a perf.data or side file.  The reader must
 * either refuse it with one line naming the file and an offset, or hand
 * out only what it promised: records inside the data section, in order,
 * 8-byte aligned, with their type's fields, names that end in a NUL, a
 * build-id table whose every entry reads; then mmap3 dump must print it
 * all (escaped, as text or JSON).  The same bytes read as a stream (as
 * mmap3 inject reads perf's pipe) must give records back to back, each
 * with its payload whole, up to the input's end, or the one-line error.
 * ASan and UBSan catch the rest.  Run
 * by tests/fuzz/run, with -close_fd_mask=2 for the tool's error lines.
 */
#include <fcntl.h>
#include <getopt.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "commands.h"
#include "perf/reader.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerInitialize(int *argc, char ***argv);

static int memfd = -1;
static char path[64];

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc, (void)argv;
	memfd = memfd_create("perf.data", MFD_CLOEXEC);
	snprintf(path, sizeof(path), "/proc/self/fd/%d", memfd);
	/* dump prints to stdout and errors to stderr: not to the fuzzer's. */
	if (!freopen("/dev/null", "w", stdout))
		abort();
	return 0;
}

static void check_records(struct perf_reader *r)
{
	uint64_t end = r->data_offset + r->data_size, last = 0, n = 0;
	struct perf_rec rec;
	int ret;

	while ((ret = perf_reader_next(r, &rec)) > 0) {
		const struct perf_event_header *h = rec.h;

		if ((uintptr_t)h % 8 || h->size < sizeof(*h) || rec.offset < r->data_offset ||
		    rec.offset + h->size + rec.payload > end || (n++ && rec.offset <= last))
			abort();
		if (h->size % 8 && h->type != PERF_RECORD_HEADER_BUILD_ID &&
		    h->type != PERF_RECORD_HEADER_FEATURE)
			abort();
		if ((h->type == PERF_RECORD_MMAP2 && h->size < PERF_MMAP2_FIXED + 1 + r->id.size) ||
		    (h->type == PERF_RECORD_MMAP && h->size < PERF_MMAP_FIXED + 1 + r->id.size))
			abort();
		if (h->type == PERF_RECORD_MMAP || h->type == PERF_RECORD_MMAP2) {
			size_t fixed = h->type == PERF_RECORD_MMAP ? PERF_MMAP_FIXED : PERF_MMAP2_FIXED;

			if (!memchr((const char *)h + fixed, 0, h->size - fixed - r->id.size))
				abort();
		}
		last = rec.offset;
	}
	if (ret < 0 && !strstr(perf_reader_error(r), "fuzz: offset "))
		abort();
}

static void check_header(struct perf_reader *r)
{
	struct perf_build_id_entry e;
	const char *why;
	char s[256];
	size_t len, off = 0;
	unsigned int bit;
	void *buf;

	if (!r->nr_attrs || r->data_offset + r->data_size > r->file_size)
		abort();
	if (!perf_reader_build_ids(r, &buf, &len) && buf) {
		while (perf_build_id_next(buf, len, &off, &e, &why) > 0)
			if (e.size > PERF_BUILD_ID_SIZE || !memchr(e.name, 0, len))
				abort();
		if (off != len)
			abort();
	}
	free(buf);
	for (bit = 0; bit < HEADER_FEAT_BITS; bit++) {
		if (perf_reader_feature(r, bit, &buf, &len))
			continue;
		if (!!buf != perf_reader_has_feature(r, bit))
			abort();
		free(buf);
	}
	perf_reader_string_feature(r, HEADER_HOSTNAME, s, sizeof(s));
	if (strnlen(s, sizeof(s)) == sizeof(s))
		abort();
}

static int count_payload(void *arg, const void *buf, size_t len)
{
	(void)buf;
	*(uint64_t *)arg += len;
	return 0;
}

/* The input as a stream: perf_reader_open_stream() on a file read once. */
static void check_stream(size_t size)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);	/* its own offset */
	uint64_t end = sizeof(struct perf_pipe_file_header);
	struct perf_reader r;
	struct perf_rec rec;
	int ret;

	if (fd < 0)
		abort();
	if (perf_reader_open_stream(&r, fd, "fuzz", NULL, NULL)) {
		if (strncmp(perf_reader_error(&r), "fuzz: offset ", 13))
			abort();
		return;
	}
	while ((ret = perf_reader_next(&r, &rec)) > 0) {
		const struct perf_event_header *h = rec.h;
		uint64_t got = 0;

		if ((uintptr_t)h % 8 || h->size < sizeof(*h) || rec.offset != end ||
		    rec.offset + h->size > size)
			abort();
		if (r.attrs_ready && h->type < PERF_RECORD_USER_TYPE_START &&
		    h->type != PERF_RECORD_SAMPLE && h->size < sizeof(*h) + r.id.size)
			abort();
		end = rec.offset + h->size + rec.payload;
		/* Odd records: the payload read; even ones: skipped by the next call. */
		if (rec.payload && h->size % 16 == 8) {
			if (perf_reader_payload(&r, count_payload, &got)) {
				ret = -1;
				break;
			}
			if (got != rec.payload)
				abort();
		}
	}
	if (ret < 0 && strncmp(perf_reader_error(&r), "fuzz: offset ", 13))
		abort();
	if (!ret && end != size)
		abort();
	perf_reader_close(&r);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *argv[] = { "dump", "--json", path, NULL };
	struct perf_reader r;

	if (ftruncate(memfd, 0) || pwrite(memfd, data, size, 0) != (ssize_t)size)
		abort();
	check_stream(size);
	if (perf_reader_open_fd(&r, fcntl(memfd, F_DUPFD_CLOEXEC, 0), "fuzz")) {
		if (strncmp(perf_reader_error(&r), "fuzz: offset ", 13))
			abort();
		return 0;
	}
	check_header(&r);
	check_records(&r);
	perf_reader_close(&r);

	/* What mmap3 dump prints of it, as text or JSON (its errors: -close_fd_mask=2). */
	optind = 0;	/* getopt starts over */
	if (size % 2)
		cmd_dump(3, argv);
	else
		cmd_dump(2, (char *[]){ "dump", path, NULL });
	fflush(stdout);
	return 0;
}
