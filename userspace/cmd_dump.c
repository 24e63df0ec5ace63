// SPDX-License-Identifier: GPL-2.0
/*
 * userspace/cmd_dump.c - mmap3 dump: what a perf.data file (a side file
 * or perf's own) holds, as text or JSON.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "perf_file.h"
#include "perf_reader.h"

struct dumper {
	int json;
	int first;		/* no record printed yet (JSON commas) */
	uint64_t sample_type;
	int sample_id_all;
};

static const char *type_name(uint32_t type)
{
	static const char * const names[] = {
		[PERF_RECORD_MMAP] = "MMAP", [PERF_RECORD_LOST] = "LOST",
		[PERF_RECORD_COMM] = "COMM", [PERF_RECORD_EXIT] = "EXIT",
		[PERF_RECORD_THROTTLE] = "THROTTLE", [PERF_RECORD_UNTHROTTLE] = "UNTHROTTLE",
		[PERF_RECORD_FORK] = "FORK", [PERF_RECORD_READ] = "READ",
		[PERF_RECORD_SAMPLE] = "SAMPLE", [PERF_RECORD_MMAP2] = "MMAP2",
	};

	if (type < sizeof(names) / sizeof(names[0]) && names[type])
		return names[type];
	if (type == PERF_RECORD_HEADER_BUILD_ID)
		return "HEADER_BUILD_ID";
	if (type == 68)
		return "FINISHED_ROUND";
	return NULL;
}

static void json_string(const char *s, size_t max)
{
	size_t i;

	putchar('"');
	for (i = 0; i < max && s[i]; i++) {
		unsigned char c = (unsigned char)s[i];

		if (c == '"' || c == '\\')
			printf("\\%c", c);
		else if (c < 0x20)
			printf("\\u%04x", c);
		else
			putchar(c);
	}
	putchar('"');
}

static void hex(const uint8_t *p, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		printf("%02x", p[i]);
}

/* The time in a non-sample record's sample_id trailer, if it has one. */
static int trailer_time(const struct dumper *d, const struct perf_event_header *h,
			uint64_t *time)
{
	unsigned int after = 0;

	if (!d->sample_id_all || !(d->sample_type & PERF_SAMPLE_TIME) ||
	    h->type == PERF_RECORD_SAMPLE || h->type >= 64)
		return 0;
	after += !!(d->sample_type & PERF_SAMPLE_ID);
	after += !!(d->sample_type & PERF_SAMPLE_STREAM_ID);
	after += !!(d->sample_type & PERF_SAMPLE_CPU);
	after += !!(d->sample_type & PERF_SAMPLE_IDENTIFIER);
	if (h->size < sizeof(*h) + 8 * (after + 1))
		return 0;
	memcpy(time, (const uint8_t *)h + h->size - 8 * (after + 1), 8);
	return 1;
}

static void dump_record(struct dumper *d, const struct perf_event_header *h, uint64_t off)
{
	const char *name = type_name(h->type);
	const uint8_t *p = (const uint8_t *)(h + 1);
	uint64_t time;
	int has_time = trailer_time(d, h, &time);

	if (d->json) {
		printf("%s\n    {\"offset\": %" PRIu64 ", \"type\": ", d->first ? "" : ",", off);
		if (name)
			json_string(name, 64);
		else
			printf("%u", h->type);
		printf(", \"misc\": %u, \"size\": %u", h->misc, h->size);
		if (has_time)
			printf(", \"time\": %" PRIu64, time);
	} else {
		printf("%10" PRIu64 " ", off);
		if (has_time)
			printf("%10" PRIu64 ".%09" PRIu64 " ", time / 1000000000, time % 1000000000);
		if (name)
			printf("%-10s", name);
		else
			printf("type %-5u", h->type);
	}
	d->first = 0;

	if ((h->type == PERF_RECORD_MMAP || h->type == PERF_RECORD_MMAP2) && h->size >= 40) {
		uint32_t pid, tid;
		uint64_t addr, len, pgoff;
		size_t fixed = h->type == PERF_RECORD_MMAP ? 40 : 72;
		const char *file = (const char *)h + fixed;
		size_t max = h->size > fixed ? h->size - fixed : 0;

		memcpy(&pid, p, 4);
		memcpy(&tid, p + 4, 4);
		memcpy(&addr, p + 8, 8);
		memcpy(&len, p + 16, 8);
		memcpy(&pgoff, p + 24, 8);
		if (d->json)
			printf(", \"pid\": %d, \"tid\": %d, \"addr\": %" PRIu64 ", \"len\": %" PRIu64
			       ", \"pgoff\": %" PRIu64, (int32_t)pid, (int32_t)tid, addr, len, pgoff);
		else
			printf(" %d/%d [0x%" PRIx64 "(0x%" PRIx64 ") @ 0x%" PRIx64 "]", (int32_t)pid,
			       (int32_t)tid, addr, len, pgoff);
		if (h->type == PERF_RECORD_MMAP2 && h->size >= 72 &&
		    (h->misc & PERF_RECORD_MISC_MMAP_BUILD_ID)) {
			uint8_t size = p[32] <= 20 ? p[32] : 20;

			printf(d->json ? ", \"build_id\": \"" : " ");
			hex(p + 36, size);
			printf(d->json ? "\"" : "");
		}
		if (d->json) {
			printf(", \"filename\": ");
			json_string(max ? file : "", max);
		} else {
			printf(" %.*s", (int)max, max ? file : "");
		}
	} else if (h->type == PERF_RECORD_LOST && h->size >= 24) {
		uint64_t lost;

		memcpy(&lost, p + 8, 8);
		printf(d->json ? ", \"lost\": %" PRIu64 : " %" PRIu64 " lost", lost);
	}
	if (d->json)
		printf("}");
	else
		putchar('\n');
}

static void dump_build_ids(struct dumper *d, const uint8_t *buf, size_t len)
{
	size_t off = 0;
	int first = 1;

	printf(d->json ? ",\n  \"build_ids\": [" : "build-id table:\n");
	while (off + 36 <= len) {
		const struct perf_event_header *h = (const void *)(buf + off);
		uint8_t size = (h->misc & PERF_RECORD_MISC_BUILD_ID_SIZE) ? buf[off + 32] : 20;
		const char *name = (const char *)buf + off + 36;

		if (h->size < 36 || h->size > len - off)
			break;
		if (size > 20)
			size = 20;
		if (d->json) {
			printf("%s\n    {\"build_id\": \"", first ? "" : ",");
			hex(buf + off + 12, size);
			printf("\", \"kernel\": %s, \"filename\": ",
			       (h->misc & 7) == PERF_RECORD_MISC_KERNEL ? "true" : "false");
			json_string(name, h->size - 36);
			printf("}");
		} else {
			printf("  ");
			hex(buf + off + 12, size);
			printf(" %.*s\n", (int)(h->size - 36), name);
		}
		first = 0;
		off += h->size;
	}
	if (d->json)
		printf("\n  ]");
}

int cmd_dump(int argc, char **argv)
{
	const struct perf_event_header *h;
	struct dumper d = { .first = 1 };
	struct perf_reader r;
	const char *path = NULL;
	uint64_t off, n = 0;
	size_t len;
	void *buf;
	int i, ret;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--json"))
			d.json = 1;
		else if (!path && argv[i][0] != '-')
			path = argv[i];
		else
			path = NULL, i = argc + 1;
	}
	if (!path || i > argc) {
		fprintf(stderr, "usage: mmap3 dump FILE [--json]\n");
		return 2;
	}
	if (perf_reader_open(&r, path))
		return 1;
	d.sample_type = r.attrs[0].attr.sample_type;
	d.sample_id_all = r.attrs[0].attr.sample_id_all;
	if (d.json) {
		printf("{\n  \"file\": ");
		json_string(path, 4096);
		printf(",\n  \"attrs\": %u, \"data_offset\": %" PRIu64 ", \"data_size\": %" PRIu64,
		       r.nr_attrs, r.data_offset, r.data_size);
	} else {
		printf("%s: %u attr(s), data at %" PRIu64 ", %" PRIu64 " bytes\n", path,
		       r.nr_attrs, r.data_offset, r.data_size);
	}
	if (perf_reader_build_ids(&r, &buf, &len))
		goto fail;
	if (buf)
		dump_build_ids(&d, buf, len);
	free(buf);
	printf(d.json ? ",\n  \"records\": [" : "records:\n");
	while ((ret = perf_reader_next(&r, &h, &off)) > 0) {
		dump_record(&d, h, off);
		n++;
	}
	if (ret < 0)
		goto fail;
	if (d.json)
		printf("\n  ],\n  \"nr_records\": %" PRIu64 "\n}\n", n);
	else
		printf("%" PRIu64 " records\n", n);
	perf_reader_close(&r);
	return 0;
fail:
	fflush(stdout);
	perf_reader_close(&r);
	return 1;
}
