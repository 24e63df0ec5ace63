// SPDX-License-Identifier: GPL-2.0
/*
 * userspace/cmd_dump.c - mmap3 dump: what a perf.data file (a side file
 * or perf's own) holds, as text or JSON.  Names come from other processes
 * and are escaped (escape.c); a damaged file ends the dump with one line
 * naming the offset and what was expected, and exit status 1.
 */
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "device.h"
#include "escape.h"
#include "msg.h"
#include "perf/reader.h"
#include "side.h"

struct dumper {
	FILE *f;
	int json;
	int first;		/* no element of the list printed yet (JSON commas) */
	/* A side file's HEADER_MMAP3_STATUS entries, sorted; NULL: none. */
	struct side_status_entry *status;
	uint64_t nr_status;
};

static int status_cmp(const void *a, const void *b)
{
	const struct side_status_entry *x = a, *y = b;

	if (x->time != y->time)
		return x->time < y->time ? -1 : 1;
	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	return 0;
}

/*
 * The file's HEADER_MMAP3_STATUS section, checked and sorted: 0 (also
 * when there is none), or -1 after saying what was expected.
 */
static int load_status(struct dumper *d, struct perf_reader *r)
{
	struct side_status_header hdr;
	size_t len, i;
	uint8_t *buf;
	void *p;

	if (!perf_reader_has_feature(r, HEADER_MMAP3_STATUS))
		return 0;
	if (perf_reader_feature(r, HEADER_MMAP3_STATUS, &p, &len))
		return -1;
	buf = p;
	if (len < sizeof(hdr)) {
		msg_err("%s: feature mmap3_status: %zu bytes, expected at least "
			"a %zu-byte header", r->path, len, sizeof(hdr));
		goto bad;
	}
	memcpy(&hdr, buf, sizeof(hdr));
	if (hdr.version != SIDE_STATUS_VERSION || hdr.entry_size < sizeof(*d->status) ||
	    hdr.nr > (len - sizeof(hdr)) / hdr.entry_size ||
	    hdr.nr * hdr.entry_size != len - sizeof(hdr)) {
		msg_err("%s: feature mmap3_status: version %u, entries of %u "
			"bytes, %" PRIu64 " of them in %zu bytes; expected version %u, entries "
			"of at least %zu bytes filling the section", r->path, hdr.version,
			hdr.entry_size, hdr.nr, len - sizeof(hdr), SIDE_STATUS_VERSION,
			sizeof(*d->status));
		goto bad;
	}
	d->status = calloc(hdr.nr ? hdr.nr : 1, sizeof(*d->status));
	if (!d->status) {
		msg_err("%s: no memory for %" PRIu64 " statuses", r->path, hdr.nr);
		goto bad;
	}
	for (i = 0; i < hdr.nr; i++)
		memcpy(&d->status[i], buf + sizeof(hdr) + i * hdr.entry_size, sizeof(*d->status));
	d->nr_status = hdr.nr;
	qsort(d->status, d->nr_status, sizeof(*d->status), status_cmp);
	free(buf);
	return 0;
bad:
	free(buf);
	return -1;
}

static const char *status_name(unsigned int status)
{
	static const char * const names[] = {
		"found", "not_elf", "no_note", "truncated", "corrupt", "too_long", "limit",
		"io_error", "unreadable", "timeout",
	};

	return status < sizeof(names) / sizeof(names[0]) ? names[status] : NULL;
}


static void hex(FILE *f, const uint8_t *p, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		fprintf(f, "%02x", p[i]);
}

static void string(const struct dumper *d, const char *s, size_t max)
{
	if (d->json)
		escape_json(d->f, s, max);
	else
		escape_text(d->f, s, max);
}

/* ", "key": " in JSON, " " in text. */
static void key(const struct dumper *d, const char *name)
{
	if (d->json)
		fprintf(d->f, ", \"%s\": ", name);
	else
		fputc(' ', d->f);
}

/* What the side file says of the mapping record of @pid at @addr, at @time. */
static void dump_status(const struct dumper *d, uint64_t time, uint32_t pid, uint64_t addr)
{
	static const struct {
		uint32_t flag;
		const char *name;
	} flags[] = {
		{ MMAP3_MMAP_DUMP, "dump" },
		{ MMAP3_MMAP_DELETED, "deleted" },
		{ MMAP3_MMAP_CHANGED, "changed" },
		{ MMAP3_MMAP_PATH_TRUNCATED, "path_truncated" },
	};
	struct side_status_entry want = { .time = time, .pid = pid, .addr = addr }, *e;
	const char *name, *sep = "";
	unsigned int i;

	if (!d->nr_status)
		return;
	e = bsearch(&want, d->status, d->nr_status, sizeof(want), status_cmp);
	if (!e)
		return;
	name = status_name(e->status);
	key(d, "status");
	if (name)
		fprintf(d->f, d->json ? "\"%s\"" : "status=%s", name);
	else
		fprintf(d->f, d->json ? "%u" : "status=%u", e->status);
	if (e->kind) {
		key(d, "kind");
		fprintf(d->f, d->json ? "\"%s\"" : "kind=%s", mmap3_kind_name(e->kind));
	}
	key(d, "flags");
	fprintf(d->f, d->json ? "[" : "flags=");
	for (i = 0; i < sizeof(flags) / sizeof(flags[0]); i++) {
		if (!(e->flags & flags[i].flag))
			continue;
		fprintf(d->f, d->json ? "%s\"%s\"" : "%s%s", sep, flags[i].name);
		sep = d->json ? ", " : ",";
	}
	if (d->json)
		fputc(']', d->f);
	else if (!*sep)
		fprintf(d->f, "none");
	if (e->mnt_ns || e->cgroup) {
		key(d, "mnt_ns");
		fprintf(d->f, d->json ? "\"%" PRIu64 "\"" : "mnt_ns=%" PRIu64, e->mnt_ns);
		key(d, "cgroup");
		fprintf(d->f, d->json ? "\"%" PRIu64 "\"" : "cgroup=%" PRIu64, e->cgroup);
	}
}

static void dump_mmap(const struct dumper *d, const struct perf_rec *rec, size_t tail)
{
	const struct perf_event_header *h = rec->h;
	struct perf_record_mmap2 m2;
	struct perf_record_mmap m;
	size_t fixed = h->type == PERF_RECORD_MMAP ? PERF_MMAP_FIXED : PERF_MMAP2_FIXED;

	memcpy(&m, h, sizeof(m));
	if (d->json)
		/* 64-bit values as strings: a JSON reader's doubles would round them. */
		fprintf(d->f, ", \"pid\": %d, \"tid\": %d, \"addr\": \"0x%" PRIx64 "\", \"len\": "
			"\"0x%" PRIx64 "\", \"pgoff\": \"0x%" PRIx64 "\"", (int32_t)m.pid, (int32_t)m.tid,
			m.start, m.len, m.pgoff);
	else
		fprintf(d->f, " %d/%d [0x%" PRIx64 "(0x%" PRIx64 ") @ 0x%" PRIx64 "]",
			(int32_t)m.pid, (int32_t)m.tid, m.start, m.len, m.pgoff);
	if (h->type == PERF_RECORD_MMAP2 && (h->misc & PERF_RECORD_MISC_MMAP_BUILD_ID)) {
		memcpy(&m2, h, sizeof(m2));
		key(d, "build_id");
		if (d->json)
			fputc('"', d->f);
		hex(d->f, m2.build_id, m2.build_id_size < PERF_BUILD_ID_SIZE ?
		    m2.build_id_size : PERF_BUILD_ID_SIZE);
		if (d->json)
			fputc('"', d->f);
	}
	key(d, "filename");
	string(d, (const char *)h + fixed, h->size - tail - fixed);
	if (h->type == PERF_RECORD_MMAP2 && rec->has_time)
		dump_status(d, rec->time, m.pid, m.start);
}

static void dump_record(struct dumper *d, const struct perf_reader *r, const struct perf_rec *rec)
{
	const struct perf_event_header *h = rec->h;
	const char *name = perf_record_name(h->type);
	const uint8_t *p = (const uint8_t *)h;
	size_t tail = h->type < PERF_RECORD_USER_TYPE_START && h->type != PERF_RECORD_SAMPLE ?
		      r->id.size : 0;
	uint64_t u64;

	if (d->json) {
		fprintf(d->f, "%s\n    {\"offset\": %" PRIu64 ", \"type\": ", d->first ? "" : ",",
			rec->offset);
		if (name)
			fprintf(d->f, "\"%s\"", name);
		else
			fprintf(d->f, "%u", h->type);
		fprintf(d->f, ", \"misc\": %u, \"size\": %u", h->misc, h->size);
		if (rec->has_time)
			fprintf(d->f, ", \"time\": \"%" PRIu64 "\"", rec->time);
	} else {
		fprintf(d->f, "%10" PRIu64 " ", rec->offset);
		if (rec->has_time)
			fprintf(d->f, "%10" PRIu64 ".%09" PRIu64 " ", rec->time / 1000000000,
				rec->time % 1000000000);
		if (name)
			fprintf(d->f, "%-10s", name);
		else
			fprintf(d->f, "type %-5u", h->type);
	}
	d->first = 0;

	switch (h->type) {
	case PERF_RECORD_MMAP:
	case PERF_RECORD_MMAP2:
		dump_mmap(d, rec, tail);
		break;
	case PERF_RECORD_COMM:
		key(d, "comm");
		string(d, (const char *)p + 16, h->size - tail - 16);
		break;
	case PERF_RECORD_LOST:
	case PERF_RECORD_LOST_SAMPLES:
		memcpy(&u64, p + (h->type == PERF_RECORD_LOST ? offsetof(struct perf_record_lost, lost) :
				  offsetof(struct perf_record_lost_samples, lost)), 8);
		fprintf(d->f, d->json ? ", \"lost\": \"%" PRIu64 "\"" : " %" PRIu64 " lost", u64);
		break;
	case PERF_RECORD_AUXTRACE:
	case PERF_RECORD_HEADER_TRACING_DATA:
		fprintf(d->f, d->json ? ", \"payload\": %" PRIu64 : " %" PRIu64 " bytes of data",
			rec->payload);
		break;
	case PERF_RECORD_HEADER_FEATURE: {
		const char *feat;

		memcpy(&u64, p + sizeof(*h), 8);
		feat = u64 < HEADER_FEAT_BITS ? perf_feature_name((unsigned int)u64) : NULL;
		if (d->json)
			fprintf(d->f, ", \"feature\": %" PRIu64, u64);
		else if (h->size == sizeof(struct perf_record_header_feature))
			fprintf(d->f, " end of features");
		else if (feat)
			fprintf(d->f, " %s", feat);
		else
			fprintf(d->f, " feature %" PRIu64, u64);
		break;
	}
	case PERF_RECORD_HEADER_BUILD_ID: {
		const struct perf_record_header_build_id *b = (const void *)h;
		uint8_t size = (h->misc & PERF_RECORD_MISC_BUILD_ID_SIZE) ? b->size : PERF_BUILD_ID_SIZE;

		key(d, "build_id");
		if (d->json)
			fputc('"', d->f);
		hex(d->f, b->build_id, size < PERF_BUILD_ID_SIZE ? size : PERF_BUILD_ID_SIZE);
		if (d->json)
			fputc('"', d->f);
		key(d, "filename");
		string(d, b->filename, h->size - PERF_BUILD_ID_FIXED);
		break;
	}
	}
	if (d->json)
		fputc('}', d->f);
	else
		fputc('\n', d->f);
}

static void dump_build_ids(struct dumper *d, const uint8_t *buf, size_t len)
{
	struct perf_build_id_entry e;
	const char *why;
	size_t off = 0, prev = 0;
	int first = 1;

	fprintf(d->f, d->json ? ",\n  \"build_ids\": [" : "build-id table:\n");
	/* perf_reader_build_ids() checked every entry. */
	while (perf_build_id_next(buf, len, &off, &e, &why) > 0) {
		if (d->json) {
			fprintf(d->f, "%s\n    {\"build_id\": \"", first ? "" : ",");
			hex(d->f, e.id, e.size);
			fprintf(d->f, "\", \"kernel\": %s, \"filename\": ",
				(e.misc & PERF_RECORD_MISC_CPUMODE_MASK) == PERF_RECORD_MISC_KERNEL ?
				"true" : "false");
			escape_json(d->f, e.name, off - prev);
			fputc('}', d->f);
		} else {
			fprintf(d->f, "  ");
			hex(d->f, e.id, e.size);
			fputc(' ', d->f);
			escape_text(d->f, e.name, off - prev);
			fputc('\n', d->f);
		}
		first = 0;
		prev = off;
	}
	if (d->json)
		fprintf(d->f, "\n  ]");
}

static void dump_header(struct dumper *d, const struct perf_reader *r)
{
	unsigned int bit, n = 0;

	if (d->json) {
		fprintf(d->f, "{\n  \"file\": ");
		escape_json(d->f, r->path, 4096);
		fprintf(d->f, ",\n  \"mode\": \"%s\", \"attrs\": %u, \"data_offset\": %" PRIu64
			", \"data_size\": %" PRIu64 ",\n  \"features\": [", r->pipe ? "pipe" : "file",
			r->nr_attrs, r->data_offset, r->data_size);
	} else {
		escape_text(d->f, r->path, 4096);
		fprintf(d->f, ": %u attr(s), data at %" PRIu64 ", %" PRIu64 " bytes%s\nfeatures:",
			r->nr_attrs, r->data_offset, r->data_size, r->pipe ? " (pipe mode)" : "");
	}
	for (bit = 0; bit < HEADER_FEAT_BITS; bit++) {
		const char *name = perf_feature_name(bit);

		if (!perf_reader_has_feature(r, bit))
			continue;
		if (d->json && name)
			fprintf(d->f, "%s\"%s\"", n ? ", " : "", name);
		else if (d->json)
			fprintf(d->f, "%s%u", n ? ", " : "", bit);
		else if (name)
			fprintf(d->f, " %s", name);
		else
			fprintf(d->f, " %u", bit);
		n++;
	}
	fprintf(d->f, d->json ? "]" : "\n");
}

static void usage(FILE *f)
{
	fprintf(f, "usage: mmap3 dump [--json] FILE\n\n"
		"Print what a perf.data file (a side file or perf's own, in file or pipe\n"
		"mode) holds: the attrs, features, build-id table and every record with\n"
		"its offset and time; a side file's mapping records with the build-id\n"
		"status and flags mmap3 kept for them (status=timeout, flags=changed).\n\n"
		"  -j, --json   as JSON (names that are not UTF-8 escaped as \\udcXX;\n"
		"               addresses, times and counts as strings, which JSON\n"
		"               readers do not round)\n");
}

int cmd_dump(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct dumper d = { .f = stdout, .first = 1 };
	struct perf_reader r;
	struct perf_rec rec;
	uint64_t n = 0;
	size_t len;
	void *buf;
	int c, ret;

	while ((c = getopt_long(argc, argv, "jh", opts, NULL)) != -1) {
		if (c == 'j') {
			d.json = 1;
		} else if (c == 'h') {
			usage(stdout);
			return 0;
		} else {
			usage(stderr);
			return 2;
		}
	}
	if (argc - optind != 1) {
		usage(stderr);
		return 2;
	}
	if (perf_reader_open(&r, argv[optind])) {
		msg_err("%s", perf_reader_error(&r));
		return 1;
	}
	dump_header(&d, &r);
	if (perf_reader_build_ids(&r, &buf, &len))
		goto fail;
	if (buf)
		dump_build_ids(&d, buf, len);
	free(buf);
	if (load_status(&d, &r))
		goto fail_quiet;
	fprintf(d.f, d.json ? ",\n  \"records\": [" : "records:\n");
	while ((ret = perf_reader_next(&r, &rec)) > 0) {
		dump_record(&d, &r, &rec);
		/* Output gone (a full disk, a closed pipe): no use reading on. */
		if (++n % 4096 == 0 && ferror(d.f))
			break;
	}
	if (ret < 0)
		goto fail;
	if (d.json)
		fprintf(d.f, "\n  ],\n  \"nr_records\": %" PRIu64 "\n}\n", n);
	else
		fprintf(d.f, "%" PRIu64 " records\n", n);
	perf_reader_close(&r);
	free(d.status);
	return 0;
fail:
	fflush(d.f);
	msg_err("%s", perf_reader_error(&r));
fail_quiet:
	perf_reader_close(&r);
	free(d.status);
	return 1;
}
