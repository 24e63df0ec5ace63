// SPDX-License-Identifier: GPL-2.0
/*
 * userspace/inject.c - mmap3 inject: mmap3's records merged into perf's
 * pipe-mode stream as it comes.
 *
 * Two threads and the capture worker.  The feed thread reads the session
 * and nothing else, so the module's buffer is emptied whatever perf and
 * the reader at the end of the pipe do; it turns each record into perf's
 * terms (side.c) and queues it, up to INJECT_QUEUE_MAX bytes.  The main
 * thread reads perf's stream a round at a time (perf record writes a
 * FINISHED_ROUND after each pass over its buffers), gives the round's
 * mappings mmap3's build-ids and writes it out.
 *
 * Where mmap3's own records go.  perf report sorts records by time only
 * within a window: at each FINISHED_ROUND it delivers what is not newer
 * than the newest record it had read at the round before.  So a record
 * of mmap3's with time T is written before the FINISHED_ROUND that
 * delivers T, and no sooner: until then one of perf's records of the same
 * mapping may still come, which takes mmap3's build-id instead.  A record
 * stays matchable for one more round after it is written, then is freed:
 * what is held is what a couple of rounds hold, however long the session.
 *
 * Waiting.  perf's record of a mapping is made at the same moment as
 * mmap3's, but mmap3's may still be in the module (its build-id being
 * read).  A round with a mapping not seen yet asks the module to FLUSH
 * (bounded by the module's read timeout) and takes what the feed thread
 * then reads; perf's records from /proc at its start (time 0) wait for the
 * session's state dump instead.  Mappings mmap3 never records (anonymous
 * memory, data mappings) wait for nothing.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "capture_worker.h"
#include "count.h"
#include "device.h"
#include "inject.h"
#include "mapping.h"
#include "match.h"
#include "msg.h"
#include "outfile.h"
#include "perf/writer.h"
#include "perf/reader.h"
#include "pidset.h"
#include "session.h"
#include "side.h"
#include "stream_input.h"

/* What the feed thread may queue for the main thread: past it, dropped and counted. */
#define INJECT_QUEUE_MAX	(256U << 20)
/* A round of perf's held before it is written, at most (perf rounds are its buffers' size). */
#define ROUND_MAX		(64U << 20)
/* The payload one record may carry (AUXTRACE data): what one AUX buffer holds. */
#define PAYLOAD_MAX		(256U << 20)
/* How long a round waits for the state dump, and for a FLUSH to be read. */
#define DUMP_WAIT_SECONDS	60
#define SYNC_WAIT_SECONDS	10

#define ALIGN8(x)		(((x) + 7) & ~(size_t)7)

/* Room for @need more bytes after @len in *@buf of *@cap, doubling from @first. */
static int room(uint8_t **buf, size_t *cap, size_t len, size_t need, size_t first)
{
	size_t c = *cap ? *cap : first;
	uint8_t *n;

	if (*cap - len >= need)
		return 0;
	while (c - len < need)
		c *= 2;
	n = realloc(*buf, c);
	if (!n)
		return -1;
	*buf = n;
	*cap = c;
	return 0;
}

/* ---- the feed thread: the session's records, in perf's terms ---- */

struct feed {
	struct session s;		/* its records to the sink below */
	struct session_opts so;
	int wake;			/* eventfd: a sync asked for, or stop */
	pthread_t thread;
	int started;
	/* The thread's own: what it converted since it last handed over. */
	uint8_t *batch;
	size_t batch_len, batch_cap, batch_nr;
	int batch_dump_done;
	/*
	 * @lock guards what follows; @cond tells the main thread a hand-over
	 * happened.  Records are 8-aligned in @buf, perf records with the
	 * side file's trailer, and HEADER_BUILD_ID entries of the kernel and
	 * modules.
	 */
	pthread_mutex_t lock;
	pthread_cond_t cond;
	uint8_t *buf;
	size_t len, cap;
	uint64_t dropped;
	int dump_done;
	int failed, ended;
	int stop;
	uint64_t done;			/* the last sync generation handed over */
	atomic_uint_least64_t want;	/* the sync generation asked for */
};

/* side_add()'s records, gathered by the feed thread. */
static int feed_sink(void *arg, const void *rec)
{
	struct feed *f = arg;
	struct perf_event_header h;
	size_t size;

	memcpy(&h, rec, sizeof(h));
	size = ALIGN8(h.size);
	if (room(&f->batch, &f->batch_cap, f->batch_len, size, 1 << 16))
		return -1;
	memset(f->batch + f->batch_len, 0, size);
	memcpy(f->batch + f->batch_len, rec, h.size);
	f->batch_len += size;
	f->batch_nr++;
	return 0;
}

/* Hand the batch over: the main thread's from now on. */
static void feed_hand_over(struct feed *f, uint64_t gen)
{
	pthread_mutex_lock(&f->lock);
	if (f->batch_len && f->len + f->batch_len > INJECT_QUEUE_MAX) {
		count_add(&f->dropped, f->batch_nr);
	} else if (f->batch_len && !room(&f->buf, &f->cap, f->len, f->batch_len, 1 << 16)) {
		memcpy(f->buf + f->len, f->batch, f->batch_len);
		f->len += f->batch_len;
	} else if (f->batch_len) {
		count_add(&f->dropped, f->batch_nr);
	}
	f->batch_len = f->batch_nr = 0;
	if (f->batch_dump_done)
		f->dump_done = 1;
	if (gen > f->done)
		f->done = gen;
	pthread_cond_broadcast(&f->cond);
	pthread_mutex_unlock(&f->lock);
}

/* Every record there is now. */
static int feed_drain(struct feed *f)
{
	const struct mmap3_record_header *h;
	int ret;

	while ((ret = session_next(&f->s, &h)) > 0) {
		if (h->type == MMAP3_RECORD_DUMP_DONE)
			f->batch_dump_done = 1;
		if (session_handle(&f->s, h))
			return -1;
	}
	return ret;
}

static void *feed_main(void *arg)
{
	struct feed *f = arg;
	int stop = 0, failed = 0;

	while (!stop && !failed) {
		struct pollfd pfd[2] = {
			{ .fd = f->s.dev, .events = POLLIN },
			{ .fd = f->wake, .events = POLLIN },
		};
		uint64_t gen, v;

		if (poll(pfd, 2, -1) < 0 && errno != EINTR) {
			failed = 1;
			break;
		}
		if (pfd[1].revents && read(f->wake, &v, sizeof(v)) < 0 && errno != EAGAIN)
			failed = 1;
		/* Asked before the drain: what was flushed before the ask is in it. */
		gen = atomic_load(&f->want);
		if (feed_drain(f) < 0)
			failed = 1;
		feed_hand_over(f, gen);
		pthread_mutex_lock(&f->lock);
		stop = f->stop;
		pthread_mutex_unlock(&f->lock);
	}
	if (failed || session_finish(&f->s, session_now(&f->s)))
		failed = 1;
	feed_hand_over(f, UINT64_MAX);
	pthread_mutex_lock(&f->lock);
	f->failed = failed;
	f->ended = 1;
	pthread_cond_broadcast(&f->cond);
	pthread_mutex_unlock(&f->lock);
	return NULL;
}

static void feed_poke(struct feed *f)
{
	uint64_t one = 1;

	if (write(f->wake, &one, sizeof(one)) < 0 && errno != EAGAIN)
		return;
}

/*
 * Wait until @pred holds or @seconds pass; with f->lock held.  Returns
 * whether it holds.
 */
static int feed_wait(struct feed *f, int (*pred)(const struct feed *f, uint64_t arg),
		     uint64_t arg, int seconds)
{
	struct timespec until;

	clock_gettime(CLOCK_REALTIME, &until);
	until.tv_sec += seconds;
	while (!pred(f, arg) && !f->ended)
		if (pthread_cond_timedwait(&f->cond, &f->lock, &until) == ETIMEDOUT)
			break;
	return pred(f, arg);
}

static int synced(const struct feed *f, uint64_t gen)
{
	return f->done >= gen;
}

static int dumped(const struct feed *f, uint64_t unused)
{
	(void)unused;
	return f->dump_done;
}

/* ---- the main thread: mmap3's records, matched against perf's ---- */

/* One of mmap3's records, waiting to be matched or written. */
struct pend {
	uint8_t *body;			/* without its trailer */
	uint16_t body_size;
	struct sample_id id;
	uint64_t key;			/* its place in ->all: its time, or when it came late */
	struct match_rec match;		/* a mapping's, indexed while perf may still have it */
	int written;
};

struct inject {
	const struct inject_opts *o;
	struct inject_stats *st;
	struct stream_input input;
	struct perf_reader in;
	struct perf_writer out;		/* pipe mode at once; file mode once the attrs are in */
	int out_open;
	struct outfile_input out_input;	/* what -o must not be, until it is committed */
	struct feed feed;
	struct sample_id_layout side_id;	/* of the feed's records */
	struct pidset pids;
	/* mmap3's records by ->key; [head, cursor) written, [cursor, len) not yet. */
	struct pend **all;
	size_t head, cursor, len, cap;
	struct match match;
	/* The feed's HEADER_BUILD_ID entries, written at the next round. */
	uint8_t *ids;
	size_t ids_len, ids_cap;
	/* perf's round: its records, 8-aligned, each followed by its payload. */
	struct round_rec {
		size_t off;
		uint64_t payload;
		uint64_t time;
		int has_time;
		int in_header;
		struct pend *match;
	} *recs;
	size_t nr_recs, recs_cap;
	uint8_t *rbuf;
	size_t rlen, rcap;
	/*
	 * Times: perf's newest; what perf report delivers at the next
	 * FINISHED_ROUND (the newest at the last one); what it delivered.
	 */
	uint64_t max_time, next_flush, delivered;
	int rounds;			/* FINISHED_ROUNDs seen */
	uint64_t session_start;		/* the session's first record */
	int dump_done;
	uint64_t sync_gen;
	int session_up;
	int session_failed;		/* perf's data passed on unchanged */
	/* Where perf's stream was recorded, from its features: local unless they say not. */
	char host[HOST_NAME_MAX + 1], release[65];
};

static int err_mem(void)
{
	msg_err("out of memory");
	return -1;
}

/* The pending record of perf's mapping @h, or NULL. */
static struct pend *find_pend(struct inject *j, const struct perf_event_header *h, int has_time,
			      uint64_t time)
{
	struct match_rec *r = match_find(&j->match, h, has_time, time);

	return r ? (void *)((uint8_t *)r - offsetof(struct pend, match)) : NULL;
}

/* ---- mmap3's records, taken from the feed ---- */

/* A build-id entry of the session's, written at the next round (perf_writer_build_ids()). */
static int ids_add(struct inject *j, const struct perf_event_header *h)
{
	if (room(&j->ids, &j->ids_cap, j->ids_len, h->size, 4096))
		return -1;
	memcpy(j->ids + j->ids_len, h, h->size);
	j->ids_len += h->size;
	return 0;
}

/* Place @p in ->all by its key, among those not yet written. */
static int all_add(struct inject *j, struct pend *p)
{
	size_t i;

	if (j->len == j->cap) {
		if (j->head) {
			memmove(j->all, j->all + j->head, (j->len - j->head) * sizeof(*j->all));
			j->cursor -= j->head;
			j->len -= j->head;
			j->head = 0;
		} else {
			size_t cap = j->cap ? 2 * j->cap : 4096;
			struct pend **n = realloc(j->all, cap * sizeof(*n));

			if (!n)
				return -1;
			j->all = n;
			j->cap = cap;
		}
	}
	for (i = j->len; i > j->cursor && j->all[i - 1]->key > p->key; i--)
		j->all[i] = j->all[i - 1];
	j->all[i] = p;
	j->len++;
	return 0;
}

static int take_one(struct inject *j, const struct perf_event_header *h)
{
	struct pend *p;

	if (h->type == PERF_RECORD_HEADER_BUILD_ID)
		return ids_add(j, h);
	p = calloc(1, sizeof(*p));
	if (!p)
		return -1;
	sample_id_parse(&j->side_id, h, &p->id);
	p->body_size = (uint16_t)(h->size - j->side_id.size);
	p->body = malloc(p->body_size);
	if (!p->body) {
		free(p);
		return -1;
	}
	memcpy(p->body, h, p->body_size);
	if (!j->session_start || (p->id.time && p->id.time < j->session_start))
		j->session_start = p->id.time;
	/* perf report has delivered up to there: this one comes late, written next. */
	p->key = p->id.time;
	if (j->delivered && p->key <= j->delivered) {
		p->key = j->delivered + 1;
		j->st->late++;
	}
	p->match.body = (const void *)p->body;
	p->match.time = p->id.time;
	if (mapping_is_mmap(p->match.body) && match_add(&j->match, &p->match)) {
		free(p->body);
		free(p);
		return -1;
	}
	if (all_add(j, p))
		return -1;
	return 0;
}

/* What the feed thread handed over, into the main thread's tables. */
static int take(struct inject *j)
{
	struct feed *f = &j->feed;
	uint8_t *buf;
	size_t len, at;
	int ret = 0;

	pthread_mutex_lock(&f->lock);
	buf = f->buf;
	len = f->len;
	f->buf = NULL;
	f->len = f->cap = 0;
	j->dump_done = f->dump_done;
	pthread_mutex_unlock(&f->lock);
	for (at = 0; at < len && !ret; ) {
		struct perf_event_header h;

		memcpy(&h, buf + at, sizeof(h));
		ret = take_one(j, (const void *)(buf + at));
		at += ALIGN8(h.size);
	}
	free(buf);
	return ret ? err_mem() : 0;
}

/* Ask the module for every mapping made until now, and take it. */
static int sync_feed(struct inject *j)
{
	struct feed *f = &j->feed;
	uint64_t gen;

	if (mmap3_device_flush(f->s.dev))
		return -1;
	gen = ++j->sync_gen;
	atomic_store(&f->want, gen);
	feed_poke(f);
	pthread_mutex_lock(&f->lock);
	feed_wait(f, synced, gen, SYNC_WAIT_SECONDS);
	pthread_mutex_unlock(&f->lock);
	j->st->flushes++;
	return take(j);
}

static int wait_dump(struct inject *j)
{
	struct feed *f = &j->feed;

	pthread_mutex_lock(&f->lock);
	feed_wait(f, dumped, 0, DUMP_WAIT_SECONDS);
	pthread_mutex_unlock(&f->lock);
	return take(j);
}

/* ---- perf's round ---- */

static const struct perf_event_header *round_header(const struct inject *j, size_t k)
{
	return (const void *)(j->rbuf + j->recs[k].off);
}

static int round_room(struct inject *j, size_t n)
{
	return room(&j->rbuf, &j->rcap, j->rlen, n, 1 << 20);
}

static int round_payload(void *arg, const void *buf, size_t len)
{
	struct inject *j = arg;

	if (round_room(j, len))
		return err_mem();
	memcpy(j->rbuf + j->rlen, buf, len);
	j->rlen += len;
	return 0;
}

/* Keep one of perf's records (and its payload) for the round. */
static int round_add(struct inject *j, const struct perf_rec *rec)
{
	struct round_rec *r;

	/* A round is held whole: a payload announced past that is refused, not trusted. */
	if (rec->payload > PAYLOAD_MAX) {
		msg_err("%s: offset %llu: a record announcing %llu bytes "
			"after it, expected at most %u (perf's AUX buffers are smaller)",
			j->in.path, (unsigned long long)rec->offset,
			(unsigned long long)rec->payload, PAYLOAD_MAX);
		return -1;
	}
	/*
	 * perf's header records (attrs, features, build-ids) take no part in
	 * matching or time: with nothing of the round before them, they go
	 * out at once, however many perf sends (one build-id each, at its end).
	 */
	if (rec->in_header && !rec->payload && !j->nr_recs) {
		j->st->records++;
		/* Before -o FILE is open, only attrs come: its header takes them. */
		return j->out_open ? perf_writer_header_record(&j->out, rec->h, NULL, 0) : 0;
	}
	if (j->nr_recs == j->recs_cap) {
		size_t cap = j->recs_cap ? 2 * j->recs_cap : 4096;

		r = realloc(j->recs, cap * sizeof(*r));
		if (!r)
			return err_mem();
		j->recs = r;
		j->recs_cap = cap;
	}
	j->rlen = ALIGN8(j->rlen);
	if (round_room(j, rec->h->size))
		return err_mem();
	r = &j->recs[j->nr_recs++];
	*r = (struct round_rec){ .off = j->rlen, .payload = rec->payload, .time = rec->time,
				 .has_time = rec->has_time, .in_header = rec->in_header };
	memcpy(j->rbuf + j->rlen, rec->h, rec->h->size);
	j->rlen += rec->h->size;
	if (rec->payload && perf_reader_payload(&j->in, round_payload, j)) {
		msg_err("%s", perf_reader_error(&j->in));
		return -1;
	}
	return 0;
}

/* Does mmap3 record this mapping at all (an executable file's)? */
static int mmap3_would_have(const struct perf_event_header *h)
{
	size_t fixed = h->type == PERF_RECORD_MMAP ? PERF_MMAP_FIXED : PERF_MMAP2_FIXED;
	const char *name = (const char *)h + fixed;

	if (mapping_is_kernel(h))
		return 1;
	if (h->misc & PERF_RECORD_MISC_MMAP_DATA)
		return 0;
	return name[0] == '/' && strncmp(name, "//anon", 6);
}

/*
 * Match the round's mappings; 1 if one that mmap3 should have is not
 * there yet: *@before_session if it is perf's from /proc or older than
 * the session (the state dump has it), else it may still be in the module.
 */
static int match_round(struct inject *j, int *before_session)
{
	size_t k;
	int missing = 0;

	*before_session = 0;
	for (k = 0; k < j->nr_recs; k++) {
		struct round_rec *r = &j->recs[k];
		const struct perf_event_header *h = round_header(j, k);

		if (r->match || !mapping_is_mmap(h))
			continue;
		r->match = find_pend(j, h, r->has_time, r->time);
		if (r->match)
			continue;
		if (!mmap3_would_have(h))
			continue;
		missing = 1;
		if (!r->has_time || !r->time || !j->session_start || r->time < j->session_start ||
		    mapping_is_kernel(h))
			*before_session = 1;
	}
	return missing;
}

/* One of mmap3's records, with perf's trailer: id 0, as perf's synthesized ones. */
static int write_pend(struct inject *j, struct pend *p)
{
	uint8_t buf[MAPPING_REC_MAX + 1];
	struct perf_event_header h;
	struct sample_id id = p->id;

	p->written = 1;
	if (p->match.matched)
		return 0;
	memcpy(&h, p->body, sizeof(h));
	if (!j->o->all_processes && mapping_is_user(&h) && !pidset_has(&j->pids, p->id.pid)) {
		j->st->other_processes++;
		return 0;
	}
	if (p->body_size + j->in.id.size > MAPPING_REC_MAX) {
		j->st->too_long++;
		return 0;
	}
	memcpy(buf, p->body, p->body_size);
	memset(buf + p->body_size, 0, j->in.id.size);
	id.id = 0;
	sample_id_write(&j->in.id, buf + p->body_size, &id);
	h.size = (uint16_t)(p->body_size + j->in.id.size);
	memcpy(buf, &h, sizeof(h));
	j->st->added++;
	return perf_writer_record(&j->out, buf);
}

/* Write mmap3's records not newer than @limit. */
static int write_due(struct inject *j, uint64_t limit)
{
	while (j->cursor < j->len && j->all[j->cursor]->key <= limit)
		if (write_pend(j, j->all[j->cursor++]))
			return -1;
	return 0;
}

/* Free mmap3's records written and not newer than @limit: perf is past them. */
static void retire(struct inject *j, uint64_t limit)
{
	while (j->head < j->cursor && j->all[j->head]->key <= limit) {
		struct pend *p = j->all[j->head++];

		match_remove(&j->match, &p->match);
		free(p->body);
		free(p);
	}
}

static int write_perf_record(struct inject *j, size_t k)
{
	const struct round_rec *r = &j->recs[k];
	const struct perf_event_header *h = round_header(j, k);
	uint8_t buf[MAPPING_REC_MAX + 1];
	const void *rec = h;

	if (r->match && mapping_is_kernel(h)) {
		if (kernel_map_cut(buf, h, (const void *)r->match->body))
			rec = buf;
	} else if (r->match) {
		int size = mapping_give_build_id(buf, h, (const void *)r->match->body);

		if (size < 0)
			j->st->too_long++;
		if (size > 0) {
			rec = buf;
			j->st->rewritten++;
		}
	}
	j->st->records++;
	if (r->in_header)
		return perf_writer_header_record(&j->out, rec, (const uint8_t *)h + h->size,
						 r->payload);
	return perf_writer_record(&j->out, rec) ||
	       (r->payload && perf_writer_data(&j->out, (const uint8_t *)h + h->size, r->payload)) ?
	       -1 : 0;
}

/*
 * An event, or the end of a round or of perf's start: what perf's
 * pipe-mode header records (attrs, features, tracing data, its maps of
 * ids, threads and cpus) come before, and mmap3's build-ids too.
 */
static int round_event(const struct perf_event_header *h)
{
	return h->type < PERF_RECORD_USER_TYPE_START || h->type == PERF_RECORD_FINISHED_ROUND ||
	       h->type == PERF_RECORD_FINISHED_INIT;
}

static int write_ids(struct inject *j)
{
	size_t len = j->ids_len;

	j->ids_len = 0;
	return perf_writer_build_ids(&j->out, j->ids, len);
}

/*
 * Write the round: mmap3's build-ids for perf, perf's records (mappings
 * given mmap3's build-ids), and before its FINISHED_ROUND mmap3's records
 * that round delivers.  @end: perf's stream ended, nothing more comes.
 */
static int write_round(struct inject *j, int end)
{
	size_t k;
	int before_session;

	if (j->session_up && take(j))
		return -1;
	/* Not there yet: the state dump's first, then what the module still holds. */
	if (j->session_up && match_round(j, &before_session) && before_session &&
	    !j->dump_done) {
		if (wait_dump(j))
			return -1;
	}
	if (j->session_up && match_round(j, &before_session)) {
		if (sync_feed(j))
			return -1;
		match_round(j, &before_session);
	}
	for (k = 0; k < j->nr_recs; k++) {
		const struct perf_event_header *h = round_header(j, k);

		/* mmap3's build-ids after perf's header records, before any event. */
		if (j->ids_len && round_event(h) && write_ids(j))
			return -1;
		if (h->type == PERF_RECORD_FINISHED_ROUND) {
			/*
			 * perf report delivers up to next_flush here, and next
			 * time up to what it has now; what was written a round
			 * ago is done with.
			 */
			if (write_due(j, j->next_flush))
				return -1;
			retire(j, j->delivered);
			j->delivered = j->next_flush;
			j->next_flush = j->max_time;
			j->rounds++;
		}
		if (write_perf_record(j, k))
			return -1;
	}
	j->nr_recs = 0;
	j->rlen = 0;
	if (end && ((j->ids_len && write_ids(j)) || write_due(j, j->max_time)))
		return -1;
	/* No FINISHED_ROUND at all: perf sorts the whole stream at its end. */
	if (!j->rounds && write_due(j, j->max_time))
		return -1;
	return perf_writer_flush(&j->out);
}

/* ---- the session ---- */

static int session_start(struct inject *j)
{
	const struct inject_opts *o = j->o;
	const struct perf_event_attr *a = &j->in.attrs[0].attr;
	struct feed *f = &j->feed;

	f->so = (struct session_opts){
		.filter = { .size = sizeof(f->so.filter) },
		/* The session takes perf's clock. */
		.clock = a->use_clockid ? a->clockid : MMAP3_CLOCK_LOCAL,
		.buffer_size = o->buffer_size,
		.load_module = 1,
		.sink = feed_sink,
		.sink_arg = f,
		.capture_dir = o->capture_dir,
		.capture_max_file = o->capture_max_file,
		.capture_max_total = o->capture_max_total,
		.capture_max_seconds = o->capture_max_seconds,
		.kmods = o->kmods,
	};
	if (session_open(&f->s, &f->so))
		return -1;
	f->wake = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (f->wake < 0) {
		msg_err("eventfd: %s", strerror(errno));
		return -1;
	}
	if (session_enable(&f->s))
		return -1;
	if (pthread_create(&f->thread, NULL, feed_main, f)) {
		msg_err("cannot start a thread");
		return -1;
	}
	f->started = 1;
	j->session_up = 1;
	return 0;
}

/* Stop the feed thread: the session disabled, drained and closed. */
static int session_stop(struct inject *j)
{
	struct feed *f = &j->feed;
	int failed;

	if (!f->started)
		return 0;
	pthread_mutex_lock(&f->lock);
	f->stop = 1;
	pthread_mutex_unlock(&f->lock);
	feed_poke(f);
	pthread_join(f->thread, NULL);
	f->started = 0;
	failed = f->failed;
	count_add(&j->st->dropped, f->dropped);
	j->st->session_lost = f->s.side.stats.lost;
	return failed ? -1 : 0;
}

/* ---- the input, the output and the stream's host ---- */

/*
 * -o FILE: perf's file mode, with the attrs perf's stream began with,
 * never over the input (when it is a file); else the pipe on standard
 * output, opened at once.
 */
static int open_output(struct inject *j)
{
	struct outfile_input *input = &j->out_input;
	struct perf_writer_attr *attrs;
	unsigned int i;
	int ret;

	if (!j->o->output || !strcmp(j->o->output, "-")) {
		if (isatty(1)) {
			msg_err("standard output is a terminal: pipe it into perf report -i -, or "
				"give -o FILE");
			return -1;
		}
		ret = perf_writer_open_pipe(&j->out, 1, "standard output");
		j->out_open = !ret;
		return ret;
	}
	input->path = j->o->input;
	if (!input->path || !strcmp(input->path, "-") || stat(input->path, &input->st))
		input->path = NULL;
	attrs = calloc(j->in.nr_attrs, sizeof(*attrs));
	if (!attrs)
		return err_mem();
	for (i = 0; i < j->in.nr_attrs; i++)
		attrs[i] = (struct perf_writer_attr){ j->in.attrs[i].raw, j->in.attrs[i].ids,
						      j->in.attrs[i].nr_ids };
	ret = perf_writer_open(&j->out, j->o->output, attrs, j->in.nr_attrs, j->in.attr_bytes,
			       input, input->path ? 1 : 0);
	free(attrs);
	j->out_open = !ret;
	return ret;
}

/* A string feature of perf's (HOSTNAME, OSRELEASE), as it passes, into @out. */
static void note_feature(const struct perf_event_header *h, unsigned int bit, char *out,
			 size_t size)
{
	const struct perf_record_header_feature *f = (const void *)h;
	size_t max = h->size > sizeof(*f) + 4 ? h->size - sizeof(*f) - 4 : 0;
	uint32_t len;

	if (h->type != PERF_RECORD_HEADER_FEATURE || f->feat_id != bit || !max)
		return;
	memcpy(&len, f + 1, 4);
	len = len < max ? len : (uint32_t)max;
	len = len < size - 1 ? len : (uint32_t)size - 1;
	memcpy(out, (const char *)(f + 1) + 4, len);
	out[strnlen(out, len)] = '\0';
}

/*
 * Was the stream recorded on this machine?  Its pids and times are this
 * kernel's only if so (ssh host perf record -o - | mmap3 inject is not).
 */
static int recorded_here(struct inject *j)
{
	struct utsname u;

	if (uname(&u) || (!j->host[0] && !j->release[0]))
		return 1;
	if ((!j->host[0] || !strcmp(j->host, u.nodename)) &&
	    (!j->release[0] || !strcmp(j->release, u.release)))
		return 1;
	msg_warn("%s was recorded on host %s, kernel %s; this is %s, kernel %s: its pids and "
		 "times are not this machine's, so it is passed on unchanged, without mmap3's "
		 "records", j->input.name, j->host[0] ? j->host : "?",
		 j->release[0] ? j->release : "?", u.nodename, u.release);
	return 0;
}

/*
 * The end of perf's stream, or what came of it: @whole if it went
 * through (a stream cut inside a record is whole up to there): standard
 * output flushed, or the file's build-id table written and the file put
 * in place; else dropped.
 */
static int close_output(struct inject *j, int whole)
{
	if (!j->out_open) {
		if (whole && j->o->output)
			msg_err("%s: perf's stream ended before its first event: no file written",
				j->o->output);
		return whole && j->o->output ? -1 : 0;
	}
	j->out_open = 0;
	if (whole && !perf_writer_close(&j->out))
		return 0;
	perf_writer_abort(&j->out);
	return -1;
}

int inject_run(const struct inject_opts *o, struct inject_stats *st)
{
	struct inject j = { .o = o, .st = st };
	struct perf_event_attr side_attr = { .sample_type = SIDE_SAMPLE_TYPE, .sample_id_all = 1 };
	struct perf_rec rec;
	int ret = -1, r, whole = 0;
	size_t k;

	memset(st, 0, sizeof(*st));
	j.in.fd = -1;
	j.feed.s.dev = j.feed.wake = -1;
	pthread_mutex_init(&j.feed.lock, NULL);
	pthread_cond_init(&j.feed.cond, NULL);
	sample_id_layout_init(&j.side_id, &side_attr);
	/* A closed pipe is an error to say, not a signal to die of with the session open. */
	signal(SIGPIPE, SIG_IGN);
	/* Before any thread: they all keep the signals blocked, read here. */
	if (stream_input_open(&j.input, o->input))
		goto out;
	if (perf_reader_open_stream(&j.in, j.input.fd, j.input.name, stream_input_wait, &j.input)) {
		msg_err("%s", perf_reader_error(&j.in));
		goto out;
	}
	if ((!o->output || !strcmp(o->output, "-")) && open_output(&j))
		goto out;
	while ((r = perf_reader_next(&j.in, &rec)) > 0) {
		uint32_t pid;

		/* Every attr is in: the file can start. */
		if (!j.out_open && j.in.attrs_ready && open_output(&j))
			goto out;
		note_feature(rec.h, HEADER_HOSTNAME, j.host, sizeof(j.host));
		note_feature(rec.h, HEADER_OSRELEASE, j.release, sizeof(j.release));
		/*
		 * The first event: the session takes perf's clock, if the stream
		 * is this machine's.  Without a session, perf's data still goes
		 * on, unchanged: it is the user's.
		 */
		if (!j.session_up && !j.session_failed && round_event(rec.h)) {
			st->not_here = !recorded_here(&j);
			if (st->not_here || session_start(&j))
				j.session_failed = 1;
			if (j.session_failed && !st->not_here)
				msg_err("passing perf's data on unchanged");
		}
		if (mapping_record_pid(rec.h, &pid) && pidset_add(&j.pids, pid)) {
			err_mem();
			goto out;
		}
		if (rec.has_time && rec.time > j.max_time)
			j.max_time = rec.time;
		if (round_add(&j, &rec))
			goto out;
		if ((rec.h->type == PERF_RECORD_FINISHED_ROUND || j.rlen > ROUND_MAX) &&
		    write_round(&j, 0))
			goto out;
	}
	/* Cut inside a record (perf killed): what came before it is whole. */
	if (r < 0 && !j.in.truncated) {
		msg_err("%s", perf_reader_error(&j.in));
		goto out;
	}
	if (r < 0)
		msg_warn("%s: kept the records before it", perf_reader_error(&j.in));
	if (!j.out_open && j.in.nr_attrs && open_output(&j))
		goto out;
	if (j.out_open && write_round(&j, 1))
		goto out;
	st->nothing_live = j.session_up && (!j.max_time || j.max_time < j.session_start);
	/* What was mapped after perf's last record is not perf's session's. */
	st->after_end = j.len - j.cursor;
	whole = 1;
	ret = j.session_failed && !st->not_here ? -1 : 0;
out:
	if (session_stop(&j)) {
		msg_err("the session failed (above): mmap3's records end there, perf's data went "
			"on without them");
		ret = -1;
	}
	st->capture_failed = atomic_load(&j.feed.s.worker.failed);
	session_close(&j.feed.s);
	st->capture = j.feed.s.cap.stats;
	/* perf's data went through whole: the file is kept, whatever mmap3's part. */
	if (close_output(&j, whole))
		ret = -1;
	match_free(&j.match);
	for (k = j.head; k < j.len; k++) {
		free(j.all[k]->body);
		free(j.all[k]);
	}
	free(j.all);
	free(j.ids);
	free(j.recs);
	free(j.rbuf);
	free(j.feed.buf);
	free(j.feed.batch);
	if (j.feed.wake >= 0)
		close(j.feed.wake);
	pidset_free(&j.pids);
	perf_reader_close(&j.in);
	st->signal = j.input.signal;
	stream_input_close(&j.input);
	return ret;
}
