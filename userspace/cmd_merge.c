// SPDX-License-Identifier: GPL-2.0
/*
 * userspace/cmd_merge.c - mmap3 merge PERF_DATA SIDE -o OUT: a perf.data
 * in which stock perf resolves mappings by the build-ids mmap3 recorded.
 *
 *  - perf's own user-space MMAP/MMAP2 records that mmap3 also saw (same
 *    pid, range, offset and name) become MMAP2 records carrying mmap3's
 *    build-id, keeping perf's time;
 *  - the kernel and the modules perf found loaded when it started keep
 *    perf's records: mmap3's own for them would be a second kernel map
 *    (which perf takes as the kernel starting over) and modules mapped
 *    twice.  A module's map takes the length of its text from mmap3,
 *    though: perf takes it from /proc/modules, whose size on 6.4 and later
 *    kernels adds up the module's separately allocated text, data and
 *    read-only data, so perf's map can cover other modules' text;
 *  - mmap3's records perf did not have (modules loaded mid-session,
 *    mappings of processes perf did not follow, lost records) are added,
 *    with the sample_id trailer of the file's first attr, each just before
 *    the first of perf's records that is not older (see write_due());
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
#define PERF_RECORD_USER_TYPE_START	64

struct side_rec {
	uint8_t *body;		/* the record without its trailer */
	uint16_t body_size;
	uint32_t pid, tid, cpu;
	uint64_t time;
	int matched;		/* perf has the same mapping */
	/* Unless matched, written before perf's record at this offset. */
	uint64_t insert_at;
};

/*
 * What pass 2 writes of the input's data section, in order: a run of
 * records kept as they are, copied by the kernel; one of perf's user
 * mappings to give mmap3's build-id (@r); or one of perf's kernel maps,
 * cut to the text mmap3 saw (@kernel, @r if mmap3 has it).  As many as
 * perf's mappings and mmap3's records, whatever the number of samples.
 */
struct span {
	uint64_t off, len;
	struct side_rec *r;
	int kernel;
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
	int sample_time_uniform;	/* every attr's samples have time at one offset */
	/* The records to add (not matched), oldest first, and the next one due. */
	size_t *order, nr_order, due;
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

static int is_kernel(const struct perf_event_header *h)
{
	return (h->misc & PERF_RECORD_MISC_CPUMODE_MASK) == PERF_RECORD_MISC_KERNEL;
}

static int is_user_mmap(const struct perf_event_header *h)
{
	return is_mmap(h) && !is_kernel(h);
}

/*
 * The module a kernel map is of, as perf names it: "[mmap3]" and
 * "/lib/modules/.../mmap3.ko" are both mmap3, "[kernel.kallsyms]_text"
 * is kernel.kallsyms; '-' and '_' are one.
 */
static void kernel_map_name(const struct perf_event_header *h, char *out, size_t len)
{
	size_t max, i = 0;
	const char *name = mmap_name(h, &max), *end = name + strnlen(name, max), *p;

	if (name < end && name[0] == '[') {
		name++;
		p = memchr(name, ']', end - name);
		end = p ? p : end;
	} else {
		for (p = name; p < end; p++)
			if (*p == '/')
				name = p + 1;
		p = memchr(name, '.', end - name);
		end = p ? p : end;
	}
	for (; name < end && i + 1 < len; name++)
		out[i++] = *name == '-' ? '_' : *name;
	out[i] = 0;
}

/* Same start and module: perf's kernel map @h is the side record @r's. */
static int same_kernel_map(const struct side_rec *r, const struct perf_event_header *h)
{
	const struct perf_event_header *s = (const void *)r->body;
	char a[256], b[256];
	uint64_t sa, sb;

	if (!is_mmap(s) || !is_kernel(s))
		return 0;
	memcpy(&sa, (const uint8_t *)(s + 1) + 8, 8);
	memcpy(&sb, (const uint8_t *)(h + 1) + 8, 8);
	if (sa != sb)
		return 0;
	kernel_map_name(s, a, sizeof(a));
	kernel_map_name(h, b, sizeof(b));
	return !strcmp(a, b);
}

/*
 * Mark mmap3's record of the kernel map perf has in @h.  Only the first
 * unmatched one: a module unloaded and loaded again at the same address
 * has a second record, which must be added.
 */
static struct side_rec *match_kernel_map(struct merge *m, const struct perf_event_header *h)
{
	size_t k;

	for (k = 0; k < m->nr; k++)
		if (!m->recs[k].matched && same_kernel_map(&m->recs[k], h)) {
			m->recs[k].matched = 1;
			return &m->recs[k];
		}
	return NULL;
}

/* perf's kernel map @h, a module's cut to the length of the text @r saw. */
static int write_kernel_map(struct perf_file_writer *w, const struct perf_event_header *h,
			    const struct side_rec *r)
{
	uint64_t len, text_len;
	uint8_t buf[65536];
	char name[256];

	kernel_map_name(h, name, sizeof(name));
	if (!r || !strcmp(name, "kernel.kallsyms"))
		return perf_file_write_record(w, h);
	memcpy(&len, (const uint8_t *)(h + 1) + 16, 8);
	memcpy(&text_len, r->body + sizeof(*h) + 16, 8);
	if (!text_len || text_len >= len)
		return perf_file_write_record(w, h);
	memcpy(buf, h, h->size);
	memcpy(buf + sizeof(*h) + 16, &text_len, 8);
	return perf_file_write_record(w, buf);
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

		if (!is_user_mmap(b))
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

/* Where a sample of @a has its time: after IDENTIFIER, IP and TID. */
static unsigned int sample_time_offset(const struct perf_event_attr *a)
{
	return 8 * (!!(a->sample_type & PERF_SAMPLE_IDENTIFIER) +
		    !!(a->sample_type & PERF_SAMPLE_IP) + !!(a->sample_type & PERF_SAMPLE_TID));
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
	m->sample_time_uniform = 1;
	for (i = 1; i < m->in.nr_attrs; i++)
		if (sample_time_offset(&m->in.attrs[i].attr) !=
		    sample_time_offset(&m->in.attrs[0].attr) ||
		    (m->in.attrs[i].attr.sample_type & PERF_SAMPLE_TIME) !=
		    (m->in.attrs[0].attr.sample_type & PERF_SAMPLE_TIME))
			m->sample_time_uniform = 0;
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

/* The attr of sample @h, by its PERF_SAMPLE_IDENTIFIER; NULL if unknown. */
static const struct perf_event_attr *sample_attr(const struct merge *m,
						 const struct perf_file_attr_in *attrs,
						 const struct perf_event_header *h)
{
	uint64_t id;
	unsigned int i;
	size_t j;

	if (m->sample_time_uniform)
		return &m->in.attrs[0].attr;
	if (!(m->id_fields & PERF_SAMPLE_IDENTIFIER) || h->size < sizeof(*h) + 8)
		return NULL;
	memcpy(&id, h + 1, 8);
	for (i = 0; i < m->in.nr_attrs; i++)
		for (j = 0; j < attrs[i].nr_ids; j++)
			if (attrs[i].ids[j] == id)
				return &m->in.attrs[i].attr;
	return NULL;
}

/* The time of perf's record @h: 1 and *@time, or 0 if it has none. */
static int record_time(const struct merge *m, const struct perf_file_attr_in *attrs,
		       const struct perf_event_header *h, uint64_t *time)
{
	const struct perf_event_attr *a;
	size_t off;

	if (h->type >= PERF_RECORD_USER_TYPE_START)
		return 0;
	if (h->type == PERF_RECORD_SAMPLE) {
		a = sample_attr(m, attrs, h);
		if (!a || !(a->sample_type & PERF_SAMPLE_TIME))
			return 0;
		off = sizeof(*h) + sample_time_offset(a);
	} else {
		if (h->size < sizeof(*h) + m->trailer)
			return 0;
		off = h->size - m->trailer + 8 * !!(m->id_fields & PERF_SAMPLE_TID);
	}
	if (off + 8 > h->size)
		return 0;
	memcpy(time, (const uint8_t *)h + off, 8);
	return 1;
}

/*
 * Where mmap3's records go among perf's.  perf's reader sorts records by
 * time only within a window: at each FINISHED_ROUND it delivers what is
 * older than the newest record read before the previous one.  A record
 * placed just before the first of perf's that is not older than it stays
 * inside that window and moves no window edge; anywhere earlier it would
 * push the edge forward and make perf deliver its own later records out
 * of order, after the samples they must precede.
 *
 * Pass 1 gives the records not newer than @time, perf's record at @offset,
 * that offset; returns whether it gave any.
 */
static int place_due(struct merge *m, uint64_t time, uint64_t offset)
{
	int placed = 0;

	while (m->due < m->nr_order && m->recs[m->order[m->due]].time <= time) {
		m->recs[m->order[m->due++]].insert_at = offset;
		placed = 1;
	}
	return placed;
}

/* Pass 2: write the unmatched records placed before @offset. */
static int write_due(struct merge *m, struct perf_file_writer *w, uint64_t offset)
{
	while (m->due < m->nr_order && m->recs[m->order[m->due]].insert_at <= offset) {
		const struct side_rec *r = &m->recs[m->order[m->due++]];

		if (!r->matched && write_added(m, w, r))
			return -1;
	}
	return 0;
}

static const struct side_rec *sort_recs;

static int by_time(const void *a, const void *b)
{
	const struct side_rec *ra = &sort_recs[*(const size_t *)a];
	const struct side_rec *rb = &sort_recs[*(const size_t *)b];

	if (ra->time != rb->time)
		return ra->time < rb->time ? -1 : 1;
	return *(const size_t *)a < *(const size_t *)b ? -1 : 1;
}

/* mmap3's records oldest first (in side-file order within a time). */
static int order_side(struct merge *m)
{
	size_t k;

	m->order = malloc((m->nr + 1) * sizeof(*m->order));
	if (!m->order)
		return -1;
	for (k = 0; k < m->nr; k++) {
		m->order[m->nr_order++] = k;
		m->recs[k].insert_at = UINT64_MAX;	/* after all of perf's */
	}
	sort_recs = m->recs;
	qsort(m->order, m->nr_order, sizeof(*m->order), by_time);
	return 0;
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

/* @own: a span of its own (rewritten, or mmap3's records go before it). */
static int add_span(struct merge *m, uint64_t off, uint64_t len, struct side_rec *r,
		    int kernel, int own)
{
	struct span *s;

	/* Extend the run of kept records it follows. */
	if (!own && !r && !kernel && m->nr_spans) {
		s = &m->spans[m->nr_spans - 1];
		if (!s->r && !s->kernel && s->off + s->len == off) {
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
	m->spans[m->nr_spans++] = (struct span){ off, len, r, kernel };
	return 0;
}

/* Pass 2 for the input's records, from the spans of pass 1. */
static int write_spans(struct merge *m, struct perf_file_writer *w)
{
	uint8_t rec[65536];
	size_t k;

	for (k = 0; k < m->nr_spans; k++) {
		const struct span *s = &m->spans[k];

		if (write_due(m, w, s->off))
			return -1;
		if (!s->r && !s->kernel) {
			if (perf_file_copy_records(w, m->in.fd, s->off, s->len))
				return -1;
			continue;
		}
		if (perf_reader_read(&m->in, rec, s->len, s->off))
			return -1;
		if (s->kernel ? write_kernel_map(w, (const void *)rec, s->r) :
		    write_rewritten(m, w, (const void *)rec, s->r))
			return -1;
	}
	return write_due(m, w, UINT64_MAX);
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
	if (order_side(&m))
		goto out;

	/*
	 * Pass 1: which of mmap3's records perf has too, where perf's
	 * mappings are, and where mmap3's other records go.  Pass 2 then
	 * reads only perf's mappings; the rest is copied by the kernel.
	 */
	while ((ret = perf_reader_next(&m.in, &h, &off)) > 0) {
		struct side_rec *r = NULL;
		int kernel = is_mmap(h) && is_kernel(h), own = 0;
		uint64_t time;

		if (is_user_mmap(h) && (r = find_side(&m, h)))
			r->matched = 1;
		else if (kernel)
			r = match_kernel_map(&m, h);
		if (record_time(&m, attrs, h, &time))
			own = place_due(&m, time, off);
		if (add_span(&m, off, h->size, r, kernel, own)) {
			ret = -1;
			goto out;
		}
	}
	if (ret < 0)
		goto out;
	ret = 1;

	if (perf_file_open_attrs(&w, out, attrs, m.in.nr_attrs, m.in.attrs[0].raw_size))
		goto out;
	opened = 1;

	/* Pass 2: perf's records, with mmap3's other records in time order. */
	m.due = 0;
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
	free(m.order);
	free(m.index);
	free(m.spans);
	perf_reader_close(&m.in);
	perf_reader_close(&m.side);
	return ret;
}
