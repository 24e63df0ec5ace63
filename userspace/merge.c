// SPDX-License-Identifier: GPL-2.0
/*
 * userspace/merge.c - mmap3's records folded into perf's perf.data:
 *
 *  - perf's own user-space MMAP/MMAP2 records that mmap3 also saw (same
 *    pid, range, offset and name) become MMAP2 records carrying mmap3's
 *    build-id, keeping perf's time.  When a range was mapped more than
 *    once (dlopen, dlclose, upgrade, dlopen), each of perf's records takes
 *    mmap3's record nearest to it in time;
 *  - the kernel and the modules perf found loaded when it started keep
 *    perf's records: mmap3's own for them would be a second kernel map
 *    (which perf takes as the kernel starting over) and modules mapped
 *    twice.  A module's map takes the length of its text from mmap3,
 *    though: perf takes it from /proc/modules, whose size on 6.4 and later
 *    kernels adds up the module's separately allocated text, data and
 *    read-only data, so perf's map can cover other modules' text;
 *  - mmap3's records perf did not have (modules loaded mid-session,
 *    mappings perf did not see, lost records) are added, with the
 *    sample_id trailer of the file's attrs, each just before the first
 *    of perf's records that is not older (see place_due()); but of
 *    processes perf did not record (perf record -p, -- CMD: none of its
 *    COMM, FORK, EXIT or MMAP records names them), none unless asked:
 *    people attach perf.data to bug reports;
 *  - the HEADER_BUILD_ID table takes mmap3's build-ids; AUXTRACE records
 *    keep their trace data and the HEADER_AUXTRACE index follows them to
 *    their new offsets.
 * Inputs recorded on other hosts or kernels, or with another clock, or
 * whose times do not overlap, are refused: their times and pids do not
 * match.
 */
#include <errno.h>
#include <stdint.h>
#include <fcntl.h>
#include <linux/mmap3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "clocks.h"
#include "count.h"
#include "escape.h"
#include "hashmap.h"
#include "mapping.h"
#include "match.h"
#include "merge.h"
#include "msg.h"
#include "perf/reader.h"
#include "pidset.h"
#include "perf/writer.h"
#include "side.h"

#define REC_MAX			MAPPING_REC_MAX

struct side_rec {
	uint8_t *body;		/* the record without its trailer */
	uint16_t body_size;
	struct sample_id id;
	struct match_rec match;	/* a mapping's: matched if perf has it too */
	uint64_t insert_at;	/* unless matched, written before perf's record here */
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
	uint64_t out;		/* where pass 2 wrote it */
	struct side_rec *r;
	int kernel;
	/* Of a mapping pass 2 reads again: its header as pass 1 read it. */
	struct perf_event_header h;
	/* Its records (not AUX payloads) as pass 1 read them, hashed (keyed). */
	uint64_t sum;
};

struct merge {
	struct perf_reader in, side;
	struct span *spans;
	size_t nr_spans, spans_cap;
	struct side_rec *recs;
	size_t nr;
	struct match match;	/* the side file's mappings, for perf's to find */
	/* The records to add (not matched), oldest first, and the next one due. */
	size_t *order, nr_order, due;
	struct pidset pids;		/* the processes perf recorded */
	/* The times of each file's timed records: first and last. */
	uint64_t in_first, in_last, side_first, side_last;
	/*
	 * The sum of the span pass 1 reads (span @summed - 1): SipHash-1-3
	 * under the process's random key, so the input's owner cannot write
	 * other records that sum the same.
	 */
	struct hashmap_hasher sum;
	size_t summed;
	int sums;		/* pass 1 sums the spans: pass 2 copies them */
	const struct merge_opts *opts;
	struct merge_stats *stats;
};

static int err_mem(const char *path)
{
	msg_err("%s: out of memory", path);
	return -1;
}

/* The output's trailer after @body: mmap3's pid, tid, time, cpu; id 0. */
static int write_with_trailer(struct merge *m, struct perf_writer *w, const uint8_t *body,
			      size_t body_size, const struct sample_id *id)
{
	uint8_t buf[REC_MAX + 1];
	struct perf_event_header h;

	memcpy(buf, body, body_size);
	memset(buf + body_size, 0, m->in.id.size);
	sample_id_write(&m->in.id, buf + body_size, id);
	memcpy(&h, buf, sizeof(h));
	h.size = (uint16_t)(body_size + m->in.id.size);
	memcpy(buf, &h, sizeof(h));
	return perf_writer_record(w, buf);
}

/* perf's kernel map @h, a module's cut to the length of the text @r saw. */
static int write_kernel_map(struct perf_writer *w, const struct perf_event_header *h,
			    const struct side_rec *r)
{
	uint8_t buf[REC_MAX + 1];

	if (!r || !kernel_map_cut(buf, h, (const void *)r->body))
		return perf_writer_record(w, h);
	return perf_writer_record(w, buf);
}

/* The side file: mmap3's attr, its mappings, kernel maps and losses. */
static int load_side(struct merge *m)
{
	const struct perf_event_attr *a = &m->side.attrs[0].attr;
	struct perf_rec rec;
	int ret;

	if (m->side.nr_attrs != 1 || a->sample_type != SIDE_SAMPLE_TYPE || !a->sample_id_all) {
		msg_err("%s: not an mmap3 side file (its attr is not mmap3's)",
			m->side.path);
		return -1;
	}
	while ((ret = perf_reader_next(&m->side, &rec)) > 0) {
		const struct perf_event_header *h = rec.h;
		struct side_rec *r;

		if (!mapping_is_mmap(h) && h->type != PERF_RECORD_LOST_SAMPLES &&
		    h->type != PERF_RECORD_LOST)
			continue;
		if (m->nr % 256 == 0) {
			struct side_rec *n = realloc(m->recs, (m->nr + 256) * sizeof(*n));

			if (!n)
				return err_mem(m->side.path);
			m->recs = n;
		}
		r = &m->recs[m->nr];
		memset(r, 0, sizeof(*r));
		sample_id_parse(&m->side.id, h, &r->id);
		if (r->id.time && (!m->side_first || r->id.time < m->side_first))
			m->side_first = r->id.time;
		if (r->id.time > m->side_last)
			m->side_last = r->id.time;
		if (mapping_is_mmap(h)) {
			r->body_size = h->size - m->side.id.size;
			r->body = malloc(r->body_size);
			if (!r->body)
				return err_mem(m->side.path);
			memcpy(r->body, h, r->body_size);
		} else {
			/* Lost records (PERF_RECORD_LOST in older side files): apart from perf's. */
			struct perf_record_lost_samples l = {
				.header = { .type = PERF_RECORD_LOST_SAMPLES, .size = sizeof(l) },
			};

			memcpy(&l.lost, (const uint8_t *)h + (h->type == PERF_RECORD_LOST ?
			       offsetof(struct perf_record_lost, lost) :
			       offsetof(struct perf_record_lost_samples, lost)), 8);
			count_add(&m->stats->side_lost, l.lost);
			r->body_size = sizeof(l);
			r->body = malloc(sizeof(l));
			if (!r->body)
				return err_mem(m->side.path);
			memcpy(r->body, &l, sizeof(l));
		}
		m->nr++;
	}
	if (ret < 0)
		msg_err("%s", perf_reader_error(&m->side));
	return ret;
}

static const struct side_rec *sort_recs;

static int by_time(const void *a, const void *b)
{
	const struct side_rec *ra = &sort_recs[*(const size_t *)a];
	const struct side_rec *rb = &sort_recs[*(const size_t *)b];

	if (ra->id.time != rb->id.time)
		return ra->id.time < rb->id.time ? -1 : 1;
	return *(const size_t *)a < *(const size_t *)b ? -1 : 1;
}

/* mmap3's records oldest first (in side-file order within a time). */
static int order_side(struct merge *m)
{
	size_t k;

	m->order = malloc((m->nr + 1) * sizeof(*m->order));
	if (!m->order)
		return err_mem(m->side.path);
	for (k = 0; k < m->nr; k++) {
		m->order[m->nr_order++] = k;
		m->recs[k].insert_at = UINT64_MAX;	/* after all of perf's */
	}
	sort_recs = m->recs;
	qsort(m->order, m->nr_order, sizeof(*m->order), by_time);
	return 0;
}

/* The side file's mappings indexed, oldest first, for perf's to be looked up. */
static int index_side(struct merge *m)
{
	size_t i;

	for (i = 0; i < m->nr; i++) {
		struct side_rec *r = &m->recs[m->order[i]];

		if (!mapping_is_mmap((const void *)r->body))
			continue;
		r->match.body = (const void *)r->body;
		r->match.time = r->id.time;
		if (match_add(&m->match, &r->match))
			return err_mem(m->side.path);
	}
	return 0;
}

/* The side record of perf's mapping @h, or NULL. */
static struct side_rec *find_side(struct merge *m, const struct perf_event_header *h,
				  int has_time, uint64_t time)
{
	struct match_rec *r = match_find(&m->match, h, has_time, time);

	return r ? (void *)((uint8_t *)r - offsetof(struct side_rec, match)) : NULL;
}

static const char *attr_clock(const struct perf_event_attr *a, char *buf, size_t len)
{
	return clock_name(a->use_clockid ? a->clockid : MMAP3_CLOCK_LOCAL, buf, len);
}

/* Are the two files of one session: same host, kernel and clock? */
static int check_session(struct merge *m)
{
	const struct perf_event_attr *p = &m->in.attrs[0].attr, *s = &m->side.attrs[0].attr;
	char a[256], b[256], c1[32], c2[32];
	static const struct {
		unsigned int bit;
		const char *what;
	} same[] = {
		{ HEADER_HOSTNAME, "host" },
		{ HEADER_OSRELEASE, "kernel" },
	};
	unsigned int i;

	if (p->use_clockid != s->use_clockid || (p->use_clockid && p->clockid != s->clockid)) {
		msg_err("%s was recorded with the clock %s, %s with %s: their "
			"times cannot be compared; record mmap3 with --clock as perf record -k",
			m->in.path, attr_clock(p, c1, sizeof(c1)), m->side.path,
			attr_clock(s, c2, sizeof(c2)));
		return -1;
	}
	for (i = 0; i < sizeof(same) / sizeof(same[0]); i++) {
		if (!perf_reader_string_feature(&m->in, same[i].bit, a, sizeof(a)) ||
		    !perf_reader_string_feature(&m->side, same[i].bit, b, sizeof(b)))
			continue;
		if (strcmp(a, b)) {
			msg_err("%s was recorded on %s %s, %s on %s %s: not one session, so their "
				"times and pids do not match", m->in.path, same[i].what, a,
				m->side.path, same[i].what, b);
			return -1;
		}
	}
	return 0;
}

/*
 * One session's files overlap in time: a side file recorded beside
 * another perf record would add mappings of other processes at other
 * times, and merge without a word.
 */
static int check_overlap(struct merge *m)
{
	uint64_t *span;
	size_t len;

	/* The session's span, which its records alone may not reach the end of. */
	if (perf_reader_feature(&m->side, HEADER_SAMPLE_TIME, (void **)&span, &len)) {
		msg_err("%s", perf_reader_error(&m->side));
		return -1;
	}
	if (span && (len != 2 * sizeof(*span) || !span[0] || span[0] > span[1])) {
		msg_err("%s: offset %llu: a SAMPLE_TIME section of %zu bytes, "
			"expected the session's first and last time (16 bytes, in order)",
			m->side.path, (unsigned long long)m->side.feat[HEADER_SAMPLE_TIME].offset,
			len);
		free(span);
		return -1;
	}
	if (span) {
		if (!m->side_first || span[0] < m->side_first)
			m->side_first = span[0];
		if (span[1] > m->side_last)
			m->side_last = span[1];
		free(span);
	}
	if (!m->in_last || !m->side_last)
		return 0;
	if (m->side_first <= m->in_last && m->in_first <= m->side_last)
		return 0;
	msg_err("%s spans the times %llu.%09llu to %llu.%09llu, %s %llu.%09llu "
		"to %llu.%09llu: they do not overlap, so they are not of one session; record "
		"mmap3 beside that perf record", m->in.path,
		(unsigned long long)(m->in_first / 1000000000),
		(unsigned long long)(m->in_first % 1000000000),
		(unsigned long long)(m->in_last / 1000000000),
		(unsigned long long)(m->in_last % 1000000000), m->side.path,
		(unsigned long long)(m->side_first / 1000000000),
		(unsigned long long)(m->side_first % 1000000000),
		(unsigned long long)(m->side_last / 1000000000),
		(unsigned long long)(m->side_last % 1000000000));
	return -1;
}

/* The input must have times on every record, to merge in order. */
static int check_attrs(struct merge *m)
{
	unsigned int i;

	for (i = 0; i < m->in.nr_attrs; i++)
		if (!m->in.attrs[i].attr.sample_id_all) {
			msg_err("%s: attr %u was recorded without sample_id_all: its "
				"records have no time, so nothing can be merged in order",
				m->in.path, i);
			return -1;
		}
	if (!(m->in.id.fields & PERF_SAMPLE_TIME)) {
		msg_err("%s: recorded without timestamps (no PERF_SAMPLE_TIME)",
			m->in.path);
		return -1;
	}
	return 0;
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

	while (m->due < m->nr_order && m->recs[m->order[m->due]].id.time <= time) {
		m->recs[m->order[m->due++]].insert_at = offset;
		placed = 1;
	}
	return placed;
}

/* Pass 2: write the unmatched records placed before @offset. */
/*
 * Is side record @r added to the output?  Not if perf has it, nor if it
 * is a user mapping of a process perf did not record, nor if it is too
 * long with the input's trailer (counted, said at the end, if @count).
 */
static int to_add(struct merge *m, const struct side_rec *r, int count)
{
	if (r->match.matched)
		return 0;
	if (!m->opts->all_processes && mapping_is_user((const void *)r->body) &&
	    !pidset_has(&m->pids, r->id.pid)) {
		m->stats->other_processes += count;
		return 0;
	}
	if (r->body_size + m->in.id.size > REC_MAX) {
		m->stats->too_long_added += count;
		return 0;
	}
	return 1;
}

static int write_due(struct merge *m, struct perf_writer *w, uint64_t offset)
{
	while (m->due < m->nr_order && m->recs[m->order[m->due]].insert_at <= offset) {
		const struct side_rec *r = &m->recs[m->order[m->due++]];
		struct sample_id id = r->id;

		if (!to_add(m, r, 1))
			continue;
		id.id = 0;	/* perf's first event: "synthesized events have an id of zero" */
		if (write_with_trailer(m, w, r->body, r->body_size, &id))
			return -1;
		m->stats->added++;
	}
	return 0;
}

/* perf's mapping @h as MMAP2 with the side record's build-id. */
static int write_rewritten(struct merge *m, struct perf_writer *w,
			   const struct perf_event_header *h, const struct side_rec *r)
{
	uint8_t buf[REC_MAX + 1];
	int size = mapping_give_build_id(buf, h, (const void *)r->body);

	/* An MMAP too long to become MMAP2 keeps perf's record: counted. */
	if (size < 0)
		m->stats->too_long_rewritten++;
	if (size <= 0)
		return perf_writer_record(w, h);
	m->stats->rewritten++;
	return perf_writer_record(w, buf);
}

/* A user mapping's file and build-id, as the side file's table names them. */
static uint64_t file_id_hash(const char *name, const uint8_t *id, size_t size)
{
	struct hashmap_hasher h;

	hashmap_hasher_init(&h);
	hashmap_hasher_add(&h, name, strlen(name) + 1);
	hashmap_hasher_add(&h, id, size);
	return hashmap_hasher_end(&h);
}

static int is_entry_of(uintptr_t value, const void *key)
{
	const struct perf_event_header *h = (const void *)value;
	const struct perf_build_id_entry *e = key;
	const uint8_t *mid = (const uint8_t *)h + PERF_MMAP_FIXED;

	return mid[0] == e->size && !memcmp(mid + 4, e->id, e->size) &&
	       !strcmp((const char *)h + PERF_MMAP2_FIXED, e->name);
}

/*
 * The side file's table entries of what the output holds: the kernel's and
 * modules', and of each user mapping perf has or that is added; not those
 * of processes left out (their file names are theirs).  Appended to @out:
 * their length, or SIZE_MAX out of memory (printed).
 */
static size_t side_entries(struct merge *m, const uint8_t *table, size_t len, uint8_t *out)
{
	struct hashmap used = { 0 };
	struct perf_build_id_entry e;
	size_t k, off = 0, at = 0, n = 0;
	const char *why;

	for (k = 0; k < m->nr; k++) {
		const struct perf_event_header *h = (const void *)m->recs[k].body;
		const uint8_t *mid = (const uint8_t *)h + PERF_MMAP_FIXED;

		if (!mapping_is_user(h) || h->type != PERF_RECORD_MMAP2 ||
		    !(h->misc & PERF_RECORD_MISC_MMAP_BUILD_ID) || mid[0] > PERF_BUILD_ID_SIZE ||
		    (!m->recs[k].match.matched && !to_add(m, &m->recs[k], 0)))
			continue;
		if (hashmap_add(&used, file_id_hash((const char *)h + PERF_MMAP2_FIXED, mid + 4,
						    mid[0]), (uintptr_t)h)) {
			hashmap_free(&used);
			err_mem(m->side.path);
			return SIZE_MAX;
		}
	}
	while (perf_build_id_next(table, len, &off, &e, &why) > 0) {
		if ((e.misc & PERF_RECORD_MISC_CPUMODE_MASK) == PERF_RECORD_MISC_KERNEL ||
		    hashmap_find(&used, file_id_hash(e.name, e.id, e.size), is_entry_of, &e)) {
			memcpy(out + n, table + at, off - at);
			n += off - at;
		}
		at = off;
	}
	hashmap_free(&used);
	return n;
}

/*
 * The HEADER_BUILD_ID table: perf's, then mmap3's entries (perf keeps the
 * last entry of a name).  Malloc'd, its length in *@len; NULL on failure
 * (printed).
 */
static uint8_t *build_id_table(struct merge *m, size_t *len)
{
	void *a = NULL, *b = NULL;
	uint8_t *out = NULL;
	size_t la, lb;

	if (perf_reader_build_ids(&m->in, &a, &la)) {
		msg_err("%s", perf_reader_error(&m->in));
		goto out;
	}
	if (perf_reader_build_ids(&m->side, &b, &lb)) {
		msg_err("%s", perf_reader_error(&m->side));
		goto out;
	}
	out = malloc(la + lb + 1);
	if (!out) {
		err_mem(m->in.path);
		goto out;
	}
	if (a)
		memcpy(out, a, la);
	*len = b ? side_entries(m, b, lb, out + la) : 0;
	if (*len == SIZE_MAX) {
		free(out);
		out = NULL;
	}
	*len += la;
out:
	free(a);
	free(b);
	return out;
}

static int merge_build_ids(struct merge *m, struct perf_writer *w)
{
	size_t len;
	uint8_t *table = build_id_table(m, &len);
	int ret;

	if (!table)
		return -1;
	ret = len ? perf_writer_feature(w, HEADER_BUILD_ID, table, len) : 0;
	free(table);
	return ret;
}

/*
 * The HEADER_AUXTRACE index: the offsets of perf's AUXTRACE records,
 * which moved with the records added before them.
 */
static int rewrite_auxtrace_index(struct merge *m, struct perf_writer *w)
{
	struct perf_auxtrace_index_entry e;
	uint64_t nr, i;
	uint8_t *buf;
	size_t len, lo, hi;
	int ret = -1;

	if (perf_reader_feature(&m->in, HEADER_AUXTRACE, (void **)&buf, &len)) {
		msg_err("%s", perf_reader_error(&m->in));
		return -1;
	}
	if (!buf)
		return 0;
	if (len < 8 || (memcpy(&nr, buf, 8), nr > (len - 8) / sizeof(e))) {
		msg_err("%s: the AUXTRACE index of %zu bytes, expected a count "
			"and that many entries of %zu", m->in.path, len, sizeof(e));
		goto out;
	}
	for (i = 0; i < nr; i++) {
		memcpy(&e, buf + 8 + i * sizeof(e), sizeof(e));
		/* The kept span that holds the record. */
		for (lo = 0, hi = m->nr_spans; lo < hi; ) {
			size_t mid = lo + (hi - lo) / 2;

			if (m->spans[mid].off + m->spans[mid].len <= e.file_offset)
				lo = mid + 1;
			else
				hi = mid;
		}
		if (lo == m->nr_spans || m->spans[lo].off > e.file_offset || m->spans[lo].r ||
		    m->spans[lo].kernel) {
			msg_err("%s: AUXTRACE index entry %llu points at offset %llu, "
				"expected an AUXTRACE record there", m->in.path,
				(unsigned long long)i, (unsigned long long)e.file_offset);
			goto out;
		}
		e.file_offset = m->spans[lo].out + (e.file_offset - m->spans[lo].off);
		memcpy(buf + 8 + i * sizeof(e), &e, sizeof(e));
	}
	ret = perf_writer_feature(w, HEADER_AUXTRACE, buf, len);
out:
	free(buf);
	return ret;
}

/*
 * @own: a span of its own (rewritten, or mmap3's records go before it).
 * @h: the record, if it is one pass 2 reads again.
 */
static int add_span(struct merge *m, uint64_t off, uint64_t len, struct side_rec *r,
		    int kernel, int own, const struct perf_event_header *h)
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
			return err_mem(m->in.path);
		m->spans = s;
		m->spans_cap = cap;
	}
	m->spans[m->nr_spans++] = (struct span){ off, len, 0, r, kernel, *h, 0 };
	return 0;
}

/* The span a record is about to be summed into starts anew if it is @k. */
static void span_sum_next(struct merge *m, size_t k)
{
	if (k == m->summed)
		return;
	if (m->summed)
		m->spans[m->summed - 1].sum = hashmap_hasher_end(&m->sum);
	hashmap_hasher_init(&m->sum);
	m->summed = k;
}

/*
 * Pass 1: which of mmap3's records perf has too, where perf's mappings
 * are, and where mmap3's other records go.  Pass 2 then reads only perf's
 * mappings; the rest is copied by the kernel.
 */
static int pass1(struct merge *m)
{
	struct perf_rec rec;
	int ret;

	while ((ret = perf_reader_next(&m->in, &rec)) > 0) {
		const struct perf_event_header *h = rec.h;
		struct side_rec *r = NULL;
		int kernel = mapping_is_mmap(h) && mapping_is_kernel(h), own = 0;
		uint32_t pid;

		/* A pipe's header records are in the output's header. */
		if (rec.in_header)
			continue;
		if (mapping_record_pid(h, &pid) && pidset_add(&m->pids, pid))
			return err_mem(m->in.path);
		/* perf's synthesized records (the processes already there) have time 0. */
		if (rec.has_time && rec.time) {
			if (!m->in_first || rec.time < m->in_first)
				m->in_first = rec.time;
			if (rec.time > m->in_last)
				m->in_last = rec.time;
		}
		if (mapping_is_mmap(h))
			r = find_side(m, h, rec.has_time, rec.time);
		if (h->type == PERF_RECORD_AUXTRACE)
			m->stats->aux_records++;
		if (rec.has_time)
			own = place_due(m, rec.time, rec.offset);
		if (add_span(m, rec.offset, h->size + rec.payload, r, kernel, own, h))
			return -1;
		if (m->sums) {
			span_sum_next(m, m->nr_spans);
			hashmap_hasher_add(&m->sum, h, h->size);
		}
	}
	if (m->sums)
		span_sum_next(m, m->nr_spans + 1);
	if (ret < 0)
		msg_err("%s", perf_reader_error(&m->in));
	return ret;
}

/*
 * Pass 1 again from the start, summing the spans: a merge in place
 * (which reads the data once, and sums nothing) found it cannot be one.
 */
static int pass1_again(struct merge *m)
{
	size_t k;

	match_free(&m->match);
	memset(&m->match, 0, sizeof(m->match));
	for (k = 0; k < m->nr; k++) {
		m->recs[k].match = (struct match_rec){ 0 };
		m->recs[k].insert_at = UINT64_MAX;
	}
	m->nr_spans = m->due = m->summed = 0;
	m->stats->aux_records = 0;
	m->sums = 1;
	perf_reader_forget(&m->in);
	perf_reader_seek(&m->in, m->in.data_offset);
	return index_side(m) || pass1(m);
}

/* The records of a span kept as they are, each checked, summed into @sum. */
static int copy_span(struct merge *m, struct perf_writer *w, const struct span *s,
		     struct hashmap_hasher *sum)
{
	struct perf_rec rec;
	int ret;

	while (m->in.pos < s->off + s->len) {
		ret = perf_reader_next(&m->in, &rec);
		if (ret < 0) {
			msg_err("%s", perf_reader_error(&m->in));
			return -1;
		}
		if (!ret || rec.in_header)
			break;	/* not what pass 1 read: the sums say so */
		hashmap_hasher_add(sum, rec.h, rec.h->size);
		if (perf_writer_record(w, rec.h) ||
		    (rec.payload && perf_writer_copy(w, m->in.fd, rec.offset + rec.h->size,
						     rec.payload)))
			return -1;
	}
	return 0;
}

/*
 * Pass 2 for the input's records, from the spans of pass 1.  The input
 * may have been written to since (by whoever owns it: merge runs as root
 * on others' files), even with no time moving (through a shared mapping
 * dirtied before merge opened it): each record is read and checked again
 * and written from what was checked, and each span's records must sum to
 * what pass 1 read.  AUX payloads, which no one checks, are copied by the
 * kernel.
 */
static int pass2(struct merge *m, struct perf_writer *w)
{
	struct perf_rec rec;
	size_t k;

	m->due = 0;
	perf_reader_forget(&m->in);
	for (k = 0; k < m->nr_spans; k++) {
		struct span *s = &m->spans[k];
		struct hashmap_hasher sum;

		if (write_due(m, w, s->off))
			return -1;
		s->out = perf_writer_offset(w);
		perf_reader_seek(&m->in, s->off);
		hashmap_hasher_init(&sum);
		if (s->r || s->kernel) {
			/* A mapping to rewrite: its header first, as pass 1 read it. */
			if (perf_reader_next_as(&m->in, &rec, &s->h)) {
				msg_err("%s", perf_reader_error(&m->in));
				return -1;
			}
			hashmap_hasher_add(&sum, rec.h, rec.h->size);
			if (s->kernel ? write_kernel_map(w, (const void *)rec.h, s->r) :
			    write_rewritten(m, w, (const void *)rec.h, s->r))
				return -1;
		} else if (copy_span(m, w, s, &sum)) {
			return -1;
		}
		if (m->in.pos != s->off + s->len || hashmap_hasher_end(&sum) != s->sum) {
			msg_err("%s: offset %llu: the %llu bytes of records there "
				"are not those the first pass read: expected the file unchanged "
				"while it is read (was it written to, if only through a shared "
				"mapping?)",
				m->in.path, (unsigned long long)s->off, (unsigned long long)s->len);
			return -1;
		}
	}
	return write_due(m, w, UINT64_MAX);
}

/*
 * What pass 2 copied as it is now (records, features) must be what pass 1
 * read: the inputs are as they were opened.
 */
static int inputs_unchanged(struct merge *m)
{
	struct perf_reader *in[2] = { &m->in, &m->side };
	unsigned int i;

	for (i = 0; i < 2; i++)
		if (perf_reader_unchanged(in[i])) {
			msg_err("%s", perf_reader_error(in[i]));
			return -1;
		}
	return 0;
}

/*
 * Can perf's file take mmap3's build-ids where it is?  When nothing is
 * added (every record of mmap3's that would be is perf's already) and
 * every mapping to give a build-id is an MMAP2, whose build-id takes the
 * bytes of its device and inode: no byte of the data section moves.  And
 * the file has a build-id table to point elsewhere.
 */
static int can_merge_in_place(struct merge *m)
{
	size_t k;

	if (!m->opts->in_place || m->in.pipe || !perf_reader_has_feature(&m->in, HEADER_BUILD_ID))
		return 0;
	for (k = 0; k < m->nr; k++)
		if (to_add(m, &m->recs[k], 0))
			return 0;
	for (k = 0; k < m->nr_spans; k++)
		if (m->spans[k].r && !m->spans[k].kernel && m->spans[k].h.type != PERF_RECORD_MMAP2)
			return 0;
	return 1;
}

/* @len bytes at @off of @fd, all of them: 0, or -1 and errno. */
static int pwrite_full(int fd, const void *buf, size_t len, uint64_t off)
{
	while (len) {
		ssize_t n = pwrite(fd, buf, len, (off_t)off);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return n ? -1 : (errno = EIO, -1);
		buf = (const uint8_t *)buf + n;
		len -= (size_t)n;
		off += (uint64_t)n;
	}
	return 0;
}

/* The changed mapping of span @s, written over perf's: 1 if it changed. */
static int rewrite_span(struct merge *m, int fd, const struct span *s)
{
	uint8_t was[REC_MAX + 1], now[REC_MAX + 1];
	const struct perf_event_header *h = (const void *)was, *body = (const void *)s->r->body;
	size_t size;

	if (pread(fd, was, s->h.size, (off_t)s->off) != (ssize_t)s->h.size ||
	    memcmp(was, &s->h, sizeof(s->h)) ||
	    (s->kernel ? !kernel_map_same(h, body) : !mapping_same(h, body))) {
		msg_err("%s: offset %llu: a mapping record other than the one read before: "
			"expected the file unchanged while it is merged", m->in.path,
			(unsigned long long)s->off);
		return -1;
	}
	if (s->kernel) {
		size = kernel_map_cut(now, h, body);
	} else {
		int n = mapping_give_build_id(now, h, body);

		size = n > 0 ? (size_t)n : 0;
	}
	if (!size)
		return 0;
	/* One write: whatever stops the tool, the record is perf's or ours. */
	if (size != s->h.size || pwrite_full(fd, now, size, s->off)) {
		msg_err("%s: cannot write the record at offset %llu: %s", m->in.path,
			(unsigned long long)s->off, size != s->h.size ? "its size changed" :
			strerror(errno));
		return -1;
	}
	return !s->kernel;
}

/*
 * mmap3's build-ids into perf's file where it is (record --merge), when
 * can_merge_in_place(): each of perf's mappings rewritten by one
 * pwrite() of the same size, then the build-id table written past the
 * file's end, made durable, and only then its section pointed at it.
 * Whatever stops it (a signal, a crash, a full disk), the file is whole
 * at every moment: each mapping carries perf's record or mmap3's
 * build-id, the table is the old one or the new.  No copy, no fsync of
 * the data: a gigabyte costs one read of it.
 */
static int merge_in_place(struct merge *m)
{
	uint64_t below = 0, off, entry;
	struct perf_file_section sec;
	char self[64];
	uint8_t *table = NULL;
	size_t k, len;
	struct stat st;
	int fd, ret = -1, n;
	unsigned int bit;

	snprintf(self, sizeof(self), "/proc/self/fd/%d", m->in.fd);
	fd = open(self, O_RDWR | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &st) || st.st_ino != m->in.st.st_ino ||
	    st.st_dev != m->in.st.st_dev) {
		msg_err("%s: cannot write it: %s", m->in.path, fd < 0 ? strerror(errno) :
			"it is another file than the one read");
		goto out;
	}
	for (k = 0; k < m->nr_spans; k++) {
		if (!m->spans[k].r)
			continue;
		n = rewrite_span(m, fd, &m->spans[k]);
		if (n < 0)
			goto out;
		m->stats->rewritten += (uint64_t)n;
	}
	table = build_id_table(m, &len);
	if (!table)
		goto out;
	/* The new table past the end, 8-aligned; its section after it is durable. */
	off = ((uint64_t)st.st_size + 7) & ~7ULL;
	for (bit = 0; bit < HEADER_BUILD_ID; bit++)
		below += perf_reader_has_feature(&m->in, bit);
	entry = m->in.data_offset + m->in.data_size + below * sizeof(sec);
	sec = (struct perf_file_section){ off, len };
	if (pwrite_full(fd, table, len, off) || fdatasync(fd) ||
	    pwrite_full(fd, &sec, sizeof(sec), entry) || fdatasync(fd)) {
		msg_err("%s: cannot write its build-id table at offset %llu: %s", m->in.path,
			(unsigned long long)off, strerror(errno));
		goto out;
	}
	ret = 0;
out:
	free(table);
	if (fd >= 0)
		close(fd);
	return ret;
}

/* The output's header: perf's attrs, features and merged build-ids. */
static int write_output(struct merge *m, const char *path)
{
	struct outfile_input inputs[2] = {
		{ .path = m->in.path, .replaced = m->opts->in_place },
		{ .path = m->side.path },
	};
	struct perf_writer w;
	unsigned int bit;

	if (fstat(m->in.fd, &inputs[0].st) || fstat(m->side.fd, &inputs[1].st)) {
		msg_err("%s: %s", m->in.path, strerror(errno));
		return -1;
	}
	if (perf_writer_open_like(&w, path, &m->in, inputs, 2))
		return -1;
	if (pass2(m, &w))
		goto abort;
	/* Copied from the input as the output is closed, one after another. */
	for (bit = 0; bit < HEADER_FEAT_BITS; bit++)
		if (bit != HEADER_BUILD_ID && bit != HEADER_AUXTRACE &&
		    perf_reader_has_feature(&m->in, bit) &&
		    perf_writer_feature_copy(&w, bit, m->in.fd, m->in.feat[bit].offset,
					     m->in.feat[bit].size))
			goto abort;
	if (merge_build_ids(m, &w) || rewrite_auxtrace_index(m, &w) || perf_writer_finish(&w))
		goto abort;
	if (inputs_unchanged(m))
		goto abort;
	return perf_writer_close(&w);
abort:
	perf_writer_abort(&w);
	return -1;
}

int merge_files(const char *perf_data, const char *side, const char *out,
		const struct merge_opts *opts, struct merge_stats *stats)
{
	static const struct merge_opts defaults;
	struct merge m = { .stats = stats, .opts = opts ? opts : &defaults };
	size_t k;
	int ret = -1;

	memset(stats, 0, sizeof(*stats));
	m.in.fd = m.side.fd = -1;
	m.sums = !m.opts->in_place;
	if (perf_reader_open(&m.in, perf_data)) {
		msg_err("%s", perf_reader_error(&m.in));
		return -1;
	}
	if (perf_reader_open(&m.side, side)) {
		msg_err("%s", perf_reader_error(&m.side));
		goto out;
	}
	if (check_attrs(&m) || load_side(&m) || check_session(&m) || order_side(&m) ||
	    index_side(&m) || pass1(&m) || check_overlap(&m))
		goto out;
	stats->lookups = m.match.lookups;
	stats->probes = m.match.probes;
	if (can_merge_in_place(&m))
		ret = merge_in_place(&m);
	else if (m.sums || !pass1_again(&m))
		ret = write_output(&m, out);
out:
	for (k = 0; k < m.nr; k++)
		free(m.recs[k].body);
	free(m.recs);
	free(m.order);
	match_free(&m.match);
	pidset_free(&m.pids);
	free(m.spans);
	perf_reader_close(&m.in);
	perf_reader_close(&m.side);
	return ret;
}
