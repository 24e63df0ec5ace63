// SPDX-License-Identifier: GPL-2.0
/*
 * userspace/inject.c - mmap3 inject: mmap3's records merged into perf's
 * pipe-mode stream as it comes.
 *
 * Two threads and the capture worker.  The feed thread (feed.c) reads
 * the session and hands its records over in perf's terms.  The main
 * thread reads perf's stream (stream_input.c) a round at a time (perf
 * record writes a FINISHED_ROUND after each pass over its buffers), gives
 * the round's mappings mmap3's build-ids (match.c) and writes it out
 * (perf/writer.c).
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
 * Copies.  perf report at the pipe's end looks for a mapping's binary
 * (in $HOME/.debug, by build-id) when it first resolves one of its
 * samples, and looks only once: each FINISHED_ROUND written to a pipe
 * therefore waits until the copies offered before it are kept, which is
 * a copy at disk speed once per new build-id.  perf's stream waits
 * meanwhile, in the pipe and perf's buffers, as it does for perf inject
 * -b reading build-ids; a copy slower than COPY_WAIT_MS is not waited for
 * again until it is done, and counted.
 *
 * Waiting.  perf's record of a mapping is made at the same moment as
 * mmap3's, but mmap3's may still be in the module (its build-id being
 * read).  A round with a mapping not seen yet asks the module to FLUSH
 * (bounded by the module's read timeout) and takes what the feed thread
 * then reads; perf's records from /proc at its start (time 0) wait for the
 * session's state dump instead.  Mappings mmap3 never records (anonymous
 * memory, data mappings) wait for nothing.
 */
#include <limits.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "count.h"
#include "feed.h"
#include "grow.h"
#include "inject.h"
#include "mapping.h"
#include "match.h"
#include "msg.h"
#include "perf/reader.h"
#include "perf/writer.h"
#include "pidset.h"
#include "round.h"
#include "stream_input.h"

/* A round of perf's held before it is written, at most (perf rounds are its buffers' size). */
#define ROUND_MAX		(64U << 20)
/* The payload one record may carry (AUXTRACE data): what one AUX buffer holds. */
#define PAYLOAD_MAX		(256U << 20)
/* How long a round waits for the state dump, and for a FLUSH to be read. */
#define DUMP_WAIT_SECONDS	60
#define SYNC_WAIT_SECONDS	10
#define COPY_WAIT_MS		(INJECT_COPY_WAIT_SECONDS * 1000)

#define ALIGN8(x)		(((x) + 7) & ~(size_t)7)

/* ---- the main thread: mmap3's records, matched against perf's ---- */

/* One of mmap3's records, waiting to be matched or written. */
struct pend {
	uint8_t *body;			/* without its trailer */
	uint16_t body_size;
	struct sample_id id;
	uint64_t key;			/* its place in ->all: its time, or when it came late */
	struct match_rec match;		/* a mapping's, indexed while perf may still have it */
	struct mmap3_record_mmap *capture;	/* offered for it, decided when it is written */
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
	struct round round;		/* perf's, until written */
	/*
	 * Times: perf's newest; what perf report delivers at the next
	 * FINISHED_ROUND (the newest at the last one); what it delivered.
	 */
	uint64_t max_time, next_flush, delivered;
	int rounds;			/* FINISHED_ROUNDs seen */
	uint64_t session_start;		/* the session's first record */
	int dump_done;
	int to_pipe;			/* out is a pipe: someone may read it live */
	uint64_t copies_behind;		/* a copy ticket waited for in vain */
	int session_up;
	int session_failed;		/* perf's data passed on unchanged */
};

static int err_mem(void)
{
	msg_err("out of memory");
	return -1;
}

/* ---- mmap3's records, taken from the feed ---- */

/* A build-id entry of the session's, written at the next round (perf_writer_build_ids()). */
static int ids_add(struct inject *j, const struct perf_event_header *h)
{
	if (grow(&j->ids, &j->ids_cap, j->ids_len, h->size, 4096))
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

static void pend_free(struct inject *j, struct pend *p)
{
	match_remove(&j->match, &p->match);
	free(p->capture);
	free(p->body);
	free(p);
}

/* Is process @pid perf's, as far as perf's stream has said? */
static int perfs(struct inject *j, uint32_t pid)
{
	return j->o->all_processes || pidset_has(&j->pids, pid);
}

/* The capture waiting with @p decided: copied if @take, else dropped. */
static void decide_capture(struct inject *j, struct pend *p, int take)
{
	if (!p->capture)
		return;
	session_capture(&j->feed.s, p->capture, take);
	free(p->capture);
	p->capture = NULL;
}

/*
 * The capture offered for @last's mapping: copied at once if its process
 * is perf's already (the file is then likelier the one mapped); else it
 * waits with the mapping until perf's stream has passed its time
 * (write_pend()): perf writes what it saw later than the module does.
 */
static int take_capture(struct inject *j, struct pend *last, const struct feed_capture *c)
{
	if (perfs(j, c->m.pid)) {
		session_capture(&j->feed.s, &c->m, 1);
		return 0;
	}
	if (!last || last->capture || last->id.pid != c->m.pid) {
		/* Its record did not come through (side.c left it out): not perf's. */
		session_capture(&j->feed.s, &c->m, 0);
		return 0;
	}
	last->capture = malloc(c->m.header.size);
	if (!last->capture) {
		session_capture(&j->feed.s, &c->m, 0);
		return -1;
	}
	memcpy(last->capture, &c->m, c->m.header.size);
	return 0;
}

static int take_one(struct inject *j, const struct perf_event_header *h, struct pend **last)
{
	struct pend *p;

	if (h->type == FEED_CAPTURE)
		return take_capture(j, *last, (const void *)h);
	/* A new build-id's entry comes between a mapping and its capture. */
	if (h->type == PERF_RECORD_HEADER_BUILD_ID)
		return ids_add(j, h);
	*last = NULL;
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
	if ((mapping_is_mmap(p->match.body) && match_add(&j->match, &p->match)) ||
	    all_add(j, p)) {
		pend_free(j, p);
		return -1;
	}
	*last = p;
	return 0;
}

/* What the feed thread handed over, into the main thread's tables. */
static int take(struct inject *j)
{
	size_t len, at;
	uint8_t *buf = feed_take(&j->feed, &len, &j->dump_done);
	struct pend *last = NULL;
	int ret = 0;

	for (at = 0; at < len; ) {
		struct perf_event_header h;

		memcpy(&h, buf + at, sizeof(h));
		/* After a failure, the captures still here are given back. */
		if (!ret)
			ret = take_one(j, (const void *)(buf + at), &last);
		else if (h.type == FEED_CAPTURE)
			session_capture(&j->feed.s, &((const struct feed_capture *)(buf + at))->m, 0);
		at += ALIGN8(h.size);
	}
	free(buf);
	return ret ? err_mem() : 0;
}

/* Ask the module for every mapping made until now, and take it. */
static int sync_feed(struct inject *j)
{
	if (feed_sync(&j->feed, SYNC_WAIT_SECONDS))
		return -1;
	j->st->flushes++;
	return take(j);
}

static int wait_dump(struct inject *j)
{
	feed_wait_dump(&j->feed, DUMP_WAIT_SECONDS);
	return take(j);
}

/* ---- perf's round ---- */

/* Keep one of perf's records (and its payload) for the round. */
static int keep(struct inject *j, const struct perf_rec *rec)
{
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
	if (rec->in_header && !rec->payload && !j->round.nr) {
		j->st->records++;
		/* Before -o FILE is open, only attrs come: its header takes them. */
		return j->out_open ? perf_writer_header_record(&j->out, rec->h, NULL, 0) : 0;
	}
	return round_add(&j->round, &j->in, rec);
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
	for (k = 0; k < j->round.nr; k++) {
		struct round_rec *r = &j->round.recs[k];
		const struct perf_event_header *h = round_header(&j->round, k);
		struct match_rec *m;

		if (r->match || !mapping_is_mmap(h))
			continue;
		m = match_find(&j->match, h, r->has_time, r->time);
		r->match = m ? (void *)((uint8_t *)m - offsetof(struct pend, match)) : NULL;
		if (r->match)
			continue;
		if (!mapping_mmap3_records(h))
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
	decide_capture(j, p, p->match.matched || perfs(j, p->id.pid));
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

/*
 * Before a FINISHED_ROUND goes into a pipe: the binaries offered until
 * now kept, so that perf report finds them when it resolves the samples
 * that round delivers.  A file written (-o) is read once they all are.
 */
static void wait_copies(struct inject *j)
{
	struct capture_worker *w = &j->feed.s.worker;
	uint64_t ticket;

	if (!j->to_pipe || !j->session_up || !w->started)
		return;
	ticket = capture_worker_ticket(w);
	if (atomic_load(&w->finished) >= ticket)
		return;
	/* A copy that took too long: not waited for again until it is done. */
	if (atomic_load(&w->finished) < j->copies_behind)
		return;
	/* A signal is read by stream_input; the round goes on meanwhile. */
	if (capture_worker_wait_ticket(w, ticket, j->input.sigfd, COPY_WAIT_MS) == 2) {
		j->copies_behind = ticket;
		j->st->copies_late++;
	}
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

		pend_free(j, p);
	}
}

/* What perf's stream never reached: newer than its end, not perf's session's. */
static void drop_captures(struct inject *j)
{
	size_t k;

	for (k = j->cursor; k < j->len; k++)
		decide_capture(j, j->all[k], 0);
}

static int write_perf_record(struct inject *j, size_t k)
{
	const struct round_rec *r = &j->round.recs[k];
	const struct perf_event_header *h = round_header(&j->round, k);
	const struct pend *p = r->match;
	uint8_t buf[MAPPING_REC_MAX + 1];
	const void *rec = h;

	if (p && mapping_is_kernel(h)) {
		if (kernel_map_cut(buf, h, (const void *)p->body))
			rec = buf;
	} else if (p) {
		int size = mapping_give_build_id(buf, h, (const void *)p->body);

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
	for (k = 0; k < j->round.nr; k++) {
		const struct perf_event_header *h = round_header(&j->round, k);

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
			wait_copies(j);
			retire(j, j->delivered);
			j->delivered = j->next_flush;
			j->next_flush = j->max_time;
			j->rounds++;
		}
		if (write_perf_record(j, k))
			return -1;
	}
	round_clear(&j->round);
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
	const struct session_opts so = {
		.filter = { .size = sizeof(so.filter) },
		/* The session takes perf's clock. */
		.clock = a->use_clockid ? a->clockid : MMAP3_CLOCK_LOCAL,
		.buffer_size = o->buffer_size,
		.load_module = 1,
		.capture_dir = o->capture_dir,
		.capture_limits = o->capture_limits,
		.kmods = o->kmods,
	};

	if (feed_start(&j->feed, &so))
		return -1;
	j->session_up = 1;
	return 0;
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
	int ret;

	if (!j->o->output || !strcmp(j->o->output, "-")) {
		if (isatty(1)) {
			msg_err("standard output is a terminal: pipe it into perf report -i -, or "
				"give -o FILE");
			return -1;
		}
		ret = perf_writer_open_pipe(&j->out, 1, "standard output");
		j->out_open = !ret;
		j->to_pipe = 1;
		return ret;
	}
	input->path = j->o->input;
	if (!input->path || !strcmp(input->path, "-") || stat(input->path, &input->st))
		input->path = NULL;
	ret = perf_writer_open_like(&j->out, j->o->output, &j->in, input, input->path ? 1 : 0);
	j->out_open = !ret;
	return ret;
}

/*
 * Was the stream recorded on this machine?  Its pids and times are this
 * kernel's only if so (ssh host perf record -o - | mmap3 inject is not).
 */
static int recorded_here(struct inject *j)
{
	char host[HOST_NAME_MAX + 1], release[65];
	struct utsname u;

	perf_reader_string_feature(&j->in, HEADER_HOSTNAME, host, sizeof(host));
	perf_reader_string_feature(&j->in, HEADER_OSRELEASE, release, sizeof(release));
	if (uname(&u) || ((!host[0] || !strcmp(host, u.nodename)) &&
			  (!release[0] || !strcmp(release, u.release))))
		return 1;
	msg_warn("%s was recorded on host %s, kernel %s; this is %s, kernel %s: its pids and "
		 "times are not this machine's, so it is passed on unchanged, without mmap3's "
		 "records", j->input.name, host[0] ? host : "?", release[0] ? release : "?",
		 u.nodename, u.release);
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
	/* A perf.data with no data is one perf takes for a recording that failed. */
	if (whole && j->o->output && (!j->out_open || !j->out.data_size)) {
		msg_err("%s: perf's stream ended before its first event: no file written",
			j->o->output);
		whole = 0;
		j->st->no_event = 1;
	}
	if (!j->out_open)
		return j->st->no_event ? -1 : 0;
	j->out_open = 0;
	if (whole && !perf_writer_close(&j->out))
		return 0;
	perf_writer_abort(&j->out);
	return whole || j->st->no_event ? -1 : 0;
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
	feed_init(&j.feed);
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
		if (keep(&j, &rec))
			goto out;
		if ((rec.h->type == PERF_RECORD_FINISHED_ROUND || j.round.len > ROUND_MAX) &&
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
	/* What was mapped before perf's end, though the thread has not read it yet. */
	if (j.session_up && (feed_sync(&j.feed, SYNC_WAIT_SECONDS) || take(&j)))
		goto out;
	if (j.out_open && write_round(&j, 1))
		goto out;
	st->nothing_live = j.session_up && (!j.max_time || j.max_time < j.session_start);
	/* What was mapped after perf's last record is not perf's session's. */
	st->after_end = j.len - j.cursor;
	whole = 1;
	ret = j.session_failed && !st->not_here ? -1 : 0;
out:
	/* The feed thread stopped: the session disabled, read to its end. */
	if (feed_stop(&j.feed)) {
		msg_err("the session failed (above): mmap3's records end there, perf's data went "
			"on without them");
		ret = -1;
	}
	/* Every capture decided, then copied (waited for). */
	drop_captures(&j);
	session_finish_captures(&j.feed.s);
	count_add(&st->dropped, j.feed.dropped);
	st->session_lost = j.feed.s.side.stats.lost;
	st->capture_failed = atomic_load(&j.feed.s.worker.failed);
	feed_free(&j.feed);
	st->capture = j.feed.s.cap.stats;
	/* perf's data went through whole: the file is kept, whatever mmap3's part. */
	if (close_output(&j, whole))
		ret = -1;
	for (k = j.head; k < j.len; k++)
		pend_free(&j, j.all[k]);
	match_free(&j.match);
	free(j.all);
	free(j.ids);
	round_free(&j.round);
	pidset_free(&j.pids);
	perf_reader_close(&j.in);
	st->signal = j.input.signal;
	stream_input_close(&j.input);
	return ret;
}
