// SPDX-License-Identifier: GPL-2.0
/*
 * userspace/cmd_merge.c - mmap3 merge PERF_DATA SIDE -o OUT: a perf.data
 * in which stock perf resolves mappings by the build-ids mmap3 recorded.
 *
 *  - perf's own user-space MMAP/MMAP2 records that mmap3 also saw (same
 *    pid, range, offset and name) become MMAP2 records carrying mmap3's
 *    build-id, keeping perf's time;
 *  - mmap3's records perf did not have (modules loaded mid-session,
 *    mappings of processes perf did not follow, lost records) are added,
 *    with the sample_id trailer of the file's first attr, so perf's
 *    ordered-events queue puts them in time order;
 *  - the HEADER_BUILD_ID table takes mmap3's build-ids.
 * PERF_DATA may be in file or pipe mode (perf record -o -); OUT is in file
 * mode.  The inputs are only read; OUT appears only when complete.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "perf_file.h"
#include "perf_reader.h"

#define ID_FIELDS	(PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_ID | \
			 PERF_SAMPLE_STREAM_ID | PERF_SAMPLE_CPU | PERF_SAMPLE_IDENTIFIER)
#define SIDE_TRAILER	24	/* the side file's TID | TIME | CPU */
#define MMAP_FIXED	40	/* header + pid, tid, addr, len, pgoff */
#define MMAP2_FIXED	72

struct side_rec {
	uint8_t *body;		/* the record without its trailer */
	uint16_t body_size;
	uint32_t pid, tid, cpu;
	uint64_t time;
	int matched;		/* perf has the same mapping */
};

/*
 * What pass 2 writes of the input's data section, in order: a run of
 * records kept as they are (@r NULL), copied by the kernel, or one of
 * perf's mappings to give mmap3's build-id.  As many as perf's mappings,
 * whatever the number of samples.
 */
struct span {
	uint64_t off, len;
	struct side_rec *r;
};

struct merge {
	struct perf_reader in, side;
	struct span *spans;
	size_t nr_spans, spans_cap;
	struct side_rec *recs;
	size_t nr;
	/* Side mappings by (pid, tid, range, offset, name): indexes + 1, 0 free. */
	size_t *index;
	size_t index_size;		/* a power of two, over twice nr */
	uint64_t id_fields;	/* of the output's attrs */
	unsigned int trailer;	/* bytes */
	uint64_t rewritten, added;
};

static const char *mmap_name(const struct perf_event_header *h, size_t *max)
{
	size_t fixed = h->type == PERF_RECORD_MMAP ? MMAP_FIXED : MMAP2_FIXED;

	*max = h->size > fixed ? h->size - fixed : 0;
	return (const char *)h + fixed;
}

/* Same pid, range, offset and name; @a is a side record body. */
static int same_mapping(const struct perf_event_header *a, const struct perf_event_header *b,
			size_t b_size)
{
	const uint8_t *pa = (const uint8_t *)(a + 1), *pb = (const uint8_t *)(b + 1);
	size_t ma, mb;
	const char *na = mmap_name(a, &ma), *nb;

	if (b_size < MMAP_FIXED || memcmp(pa, pb, 32))
		return 0;
	nb = mmap_name(b, &mb);
	return !strncmp(na, nb, ma < mb ? ma : mb);
}

static int is_mmap(const struct perf_event_header *h)
{
	return (h->type == PERF_RECORD_MMAP && h->size > MMAP_FIXED) ||
	       (h->type == PERF_RECORD_MMAP2 && h->size > MMAP2_FIXED);
}

static int load_side(struct merge *m)
{
	const struct perf_event_header *h;
	uint64_t off;
	int ret;

	if (m->side.nr_attrs != 1 || m->side.attrs[0].attr.sample_type !=
	    (PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CPU)) {
		fprintf(stderr, "mmap3: %s: not an mmap3 side file (its attr is not mmap3's)\n",
			m->side.path);
		return -1;
	}
	while ((ret = perf_reader_next(&m->side, &h, &off)) > 0) {
		struct side_rec *r;
		const uint8_t *t;

		if (h->size < sizeof(*h) + SIDE_TRAILER)
			continue;
		if (m->nr % 256 == 0) {
			struct side_rec *n = realloc(m->recs, (m->nr + 256) * sizeof(*n));

			if (!n)
				return -1;
			m->recs = n;
		}
		r = &m->recs[m->nr];
		memset(r, 0, sizeof(*r));
		r->body_size = h->size - SIDE_TRAILER;
		r->body = malloc(r->body_size);
		if (!r->body)
			return -1;
		memcpy(r->body, h, r->body_size);
		t = (const uint8_t *)h + r->body_size;
		memcpy(&r->pid, t, 4);
		memcpy(&r->tid, t + 4, 4);
		memcpy(&r->time, t + 8, 8);
		memcpy(&r->cpu, t + 16, 4);
		m->nr++;
	}
	return ret;
}

/* Hash of what same_mapping() compares. */
static uint64_t mapping_hash(const struct perf_event_header *h)
{
	const uint8_t *p = (const uint8_t *)(h + 1);
	uint64_t x = 0xcbf29ce484222325ULL;
	size_t i, max;
	const char *name = mmap_name(h, &max);

	for (i = 0; i < 32; i++)
		x = (x ^ p[i]) * 0x100000001b3ULL;
	for (i = 0; i < max && name[i]; i++)
		x = (x ^ (uint8_t)name[i]) * 0x100000001b3ULL;
	return x;
}

/* Index the side mappings, so each of perf's is looked up at once. */
static int index_side(struct merge *m)
{
	size_t i, j;

	for (m->index_size = 16; m->index_size < 2 * m->nr; m->index_size *= 2)
		;
	m->index = calloc(m->index_size, sizeof(*m->index));
	if (!m->index)
		return -1;
	for (i = 0; i < m->nr; i++) {
		const struct perf_event_header *b = (const void *)m->recs[i].body;

		if (!is_mmap(b))
			continue;
		for (j = mapping_hash(b) & (m->index_size - 1); m->index[j];
		     j = (j + 1) & (m->index_size - 1))
			;
		m->index[j] = i + 1;
	}
	return 0;
}

/* The first side mapping perf's record @h is, or NULL. */
static struct side_rec *find_side(struct merge *m, const struct perf_event_header *h)
{
	size_t j;

	for (j = mapping_hash(h) & (m->index_size - 1); m->index[j];
	     j = (j + 1) & (m->index_size - 1)) {
		struct side_rec *r = &m->recs[m->index[j] - 1];

		if (same_mapping((const void *)r->body, h, h->size))
			return r;
	}
	return NULL;
}

/* Check the input's attrs and work out the trailer of added records. */
static int check_attrs(struct merge *m)
{
	unsigned int i, n;

	for (i = 0; i < m->in.nr_attrs; i++) {
		const struct perf_event_attr *a = &m->in.attrs[i].attr;

		if (!a->sample_id_all) {
			fprintf(stderr, "mmap3: %s: attr %u was recorded without sample_id_all: its "
				"records have no time, so nothing can be merged in order\n",
				m->in.path, i);
			return -1;
		}
		if ((a->sample_type & ID_FIELDS) != (m->in.attrs[0].attr.sample_type & ID_FIELDS)) {
			fprintf(stderr, "mmap3: %s: attrs 0 and %u have different sample_id "
				"layouts, which perf itself cannot read\n", m->in.path, i);
			return -1;
		}
	}
	m->id_fields = m->in.attrs[0].attr.sample_type & ID_FIELDS;
	if (!(m->id_fields & PERF_SAMPLE_TIME)) {
		fprintf(stderr, "mmap3: %s: recorded without timestamps (no PERF_SAMPLE_TIME)\n",
			m->in.path);
		return -1;
	}
	for (n = 0, i = 0; i < 64; i++)
		n += !!(m->id_fields & (1ULL << i));
	m->trailer = 8 * n;
	return 0;
}

/* A side record with the output's trailer; id 0 is perf's first evsel. */
static int write_added(struct merge *m, struct perf_file_writer *w, const struct side_rec *r)
{
	uint8_t buf[65536], *t;

	if ((size_t)r->body_size + m->trailer > 65535)
		return 0;
	memcpy(buf, r->body, r->body_size);
	t = buf + r->body_size;
	memset(t, 0, m->trailer);
	if (m->id_fields & PERF_SAMPLE_TID) {
		memcpy(t, &r->pid, 4);
		memcpy(t + 4, &r->tid, 4);
		t += 8;
	}
	memcpy(t, &r->time, 8);
	t += 8;
	t += 8 * !!(m->id_fields & PERF_SAMPLE_ID);
	t += 8 * !!(m->id_fields & PERF_SAMPLE_STREAM_ID);
	if (m->id_fields & PERF_SAMPLE_CPU)
		memcpy(t, &r->cpu, 4);
	((struct perf_event_header *)buf)->size = (uint16_t)(r->body_size + m->trailer);
	m->added++;
	return perf_file_write_record(w, buf);
}

/* perf's mapping @h as MMAP2 with the side record's build-id. */
static int write_rewritten(struct merge *m, struct perf_file_writer *w,
			   const struct perf_event_header *h, const struct side_rec *r)
{
	const struct perf_event_header *s = (const void *)r->body;
	uint8_t buf[65536];
	size_t grow = h->type == PERF_RECORD_MMAP ? MMAP2_FIXED - MMAP_FIXED : 0;
	struct perf_event_header *o = (void *)buf;

	if (!(s->misc & PERF_RECORD_MISC_MMAP_BUILD_ID) || h->size + grow > 65535)
		return perf_file_write_record(w, h);
	/* Header and pid..pgoff from perf, build-id and prot/flags from mmap3. */
	memcpy(buf, h, MMAP_FIXED);
	memcpy(buf + MMAP_FIXED, (const uint8_t *)s + MMAP_FIXED, MMAP2_FIXED - MMAP_FIXED);
	memcpy(buf + MMAP2_FIXED, (const uint8_t *)h + MMAP2_FIXED - grow,
	       h->size - (MMAP2_FIXED - grow));
	o->type = PERF_RECORD_MMAP2;
	o->misc = (h->misc & ~PERF_RECORD_MISC_MMAP_DATA) | PERF_RECORD_MISC_MMAP_BUILD_ID |
		  (s->misc & PERF_RECORD_MISC_MMAP_DATA);
	o->size = (uint16_t)(h->size + grow);
	m->rewritten++;
	return perf_file_write_record(w, buf);
}

/*
 * perf's table, each name taking mmap3's (last) build-id, then mmap3's
 * entries for names perf did not have.  perf keeps the last entry of a
 * name, so mmap3's come after perf's.
 */
static int merge_build_ids(struct merge *m, struct perf_file_writer *w)
{
	void *a = NULL, *b = NULL;
	size_t la, lb, off, out_len = 0;
	uint8_t *out;
	int ret = -1;

	if (perf_reader_build_ids(&m->in, &a, &la) ||
	    perf_reader_feature(&m->side, PERF_FEAT_BUILD_ID, &b, &lb))
		goto out;
	out = malloc(la + lb + 1);
	if (!out)
		goto out;
	for (off = 0; a && off + 36 <= la; ) {
		const struct perf_event_header *h = (const void *)((uint8_t *)a + off);

		if (h->size < 36 || h->size > la - off)
			break;
		memcpy(out + out_len, h, h->size);
		out_len += h->size;
		off += h->size;
	}
	if (b && lb) {
		memcpy(out + out_len, b, lb);
		out_len += lb;
	}
	ret = out_len ? perf_file_set_feature(w, PERF_FEAT_BUILD_ID, out, out_len) : 0;
	free(out);
out:
	free(a);
	free(b);
	return ret;
}

static int add_span(struct merge *m, uint64_t off, uint64_t len, struct side_rec *r)
{
	struct span *s;

	/* Extend the run of kept records it follows. */
	if (!r && m->nr_spans) {
		s = &m->spans[m->nr_spans - 1];
		if (!s->r && s->off + s->len == off) {
			s->len += len;
			return 0;
		}
	}
	if (m->nr_spans == m->spans_cap) {
		size_t cap = m->spans_cap ? 2 * m->spans_cap : 256;

		s = realloc(m->spans, cap * sizeof(*s));
		if (!s)
			return -1;
		m->spans = s;
		m->spans_cap = cap;
	}
	m->spans[m->nr_spans++] = (struct span){ off, len, r };
	return 0;
}

/* Pass 2 for the input's records, from the spans of pass 1. */
static int write_spans(struct merge *m, struct perf_file_writer *w)
{
	uint8_t rec[65536];
	size_t k;

	for (k = 0; k < m->nr_spans; k++) {
		const struct span *s = &m->spans[k];

		if (!s->r) {
			if (perf_file_copy_records(w, m->in.fd, s->off, s->len))
				return -1;
			continue;
		}
		if (perf_reader_read(&m->in, rec, s->len, s->off) ||
		    write_rewritten(m, w, (const void *)rec, s->r))
			return -1;
	}
	return 0;
}

static void usage(FILE *f)
{
	fprintf(f, "usage: mmap3 merge PERF_DATA SIDE -o OUT\n\n"
		"Write OUT: PERF_DATA (from perf record, file mode) with the mappings,\n"
		"modules and build-ids of SIDE (from mmap3 record), so perf report,\n"
		"perf script and perf buildid-list use the build-ids really mapped.\n");
}

int cmd_merge(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct perf_file_attr_in *attrs = NULL;
	const struct perf_event_header *h;
	struct merge m = { 0 };
	struct perf_file_writer w;
	const char *out = NULL;
	uint64_t off;
	unsigned int i, bit;
	size_t k;
	int c, ret = 1, opened = 0;

	while ((c = getopt_long(argc, argv, "o:h", opts, NULL)) != -1) {
		if (c == 'o') {
			out = optarg;
		} else if (c == 'h') {
			usage(stdout);
			return 0;
		} else {
			usage(stderr);
			return 2;
		}
	}
	if (argc - optind != 2 || !out) {
		usage(stderr);
		return 2;
	}
	if (!strcmp(out, argv[optind]) || !strcmp(out, argv[optind + 1])) {
		fprintf(stderr, "mmap3 merge: %s: the output must not be an input\n", out);
		return 2;
	}
	m.in.fd = m.side.fd = -1;
	if (perf_reader_open(&m.in, argv[optind]) || perf_reader_open(&m.side, argv[optind + 1]) ||
	    check_attrs(&m) || load_side(&m) || index_side(&m))
		goto out;

	/*
	 * Pass 1: which of mmap3's mappings perf has too, and where they are.
	 * Pass 2 then reads only those; the rest is copied by the kernel.
	 */
	while ((ret = perf_reader_next(&m.in, &h, &off)) > 0) {
		struct side_rec *r = is_mmap(h) ? find_side(&m, h) : NULL;

		if (r)
			r->matched = 1;
		if (add_span(&m, off, h->size, r)) {
			ret = -1;
			goto out;
		}
	}
	if (ret < 0)
		goto out;
	ret = 1;

	attrs = calloc(m.in.nr_attrs, sizeof(*attrs));
	if (!attrs)
		goto out;
	for (i = 0; i < m.in.nr_attrs; i++) {
		uint64_t *ids;

		if (perf_reader_ids(&m.in, i, &ids))
			goto out;
		attrs[i].attr = m.in.attrs[i].raw;
		attrs[i].ids = ids;
		attrs[i].nr_ids = m.in.attrs[i].ids_size / 8;
	}
	if (perf_file_open_attrs(&w, out, attrs, m.in.nr_attrs, m.in.attrs[0].raw_size))
		goto out;
	opened = 1;

	/* Pass 2: mmap3's other records first (perf orders by time), then perf's. */
	for (k = 0; k < m.nr; k++)
		if (!m.recs[k].matched && write_added(&m, &w, &m.recs[k]))
			goto out;
	if (write_spans(&m, &w))
		goto out;

	/* Features: perf's, with the build-id table merged. */
	for (bit = 0; bit < PERF_FEAT_BITS; bit++) {
		void *buf;
		size_t len;

		if (bit == PERF_FEAT_BUILD_ID)
			continue;
		if (perf_reader_feature(&m.in, bit, &buf, &len))
			goto out;
		if (buf && perf_file_set_feature(&w, bit, buf, len)) {
			free(buf);
			goto out;
		}
		free(buf);
	}
	if (merge_build_ids(&m, &w))
		goto out;
	opened = 0;
	if (perf_file_close(&w))
		goto out;
	fprintf(stderr, "mmap3: wrote %s: %llu of perf's mappings given mmap3's build-id, "
		"%llu records added\n", out, (unsigned long long)m.rewritten,
		(unsigned long long)m.added);
	ret = 0;
out:
	if (opened)
		perf_file_abort(&w);
	for (i = 0; attrs && i < m.in.nr_attrs; i++)
		free((void *)attrs[i].ids);
	free(attrs);
	for (k = 0; k < m.nr; k++)
		free(m.recs[k].body);
	free(m.recs);
	free(m.index);
	free(m.spans);
	perf_reader_close(&m.in);
	perf_reader_close(&m.side);
	return ret;
}
