// SPDX-License-Identifier: GPL-2.0
/*
 * userspace/feed.c - a session read on a thread of its own, its records
 * handed over in batches.
 */
#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <time.h>
#include <unistd.h>

#include "count.h"
#include "grow.h"
#include "feed.h"
#include "msg.h"

#define ALIGN8(x)		(((x) + 7) & ~(size_t)7)

/* side_add()'s records, gathered by the feed thread. */
static int feed_sink(void *arg, const void *rec)
{
	struct feed *f = arg;
	struct perf_event_header h;
	size_t size;

	memcpy(&h, rec, sizeof(h));
	size = ALIGN8(h.size);
	if (grow(&f->batch, &f->batch_cap, f->batch_len, size, 1 << 16))
		return -1;
	memset(f->batch + f->batch_len, 0, size);
	memcpy(f->batch + f->batch_len, rec, h.size);
	f->batch_len += size;
	f->batch_nr++;
	return 0;
}

/* The session's capture of a mapping, after its record: the main thread decides. */
static int feed_capture_sink(void *arg, const struct mmap3_record_mmap *m)
{
	struct feed *f = arg;
	size_t size = ALIGN8(offsetof(struct feed_capture, m) + m->header.size);
	struct feed_capture *c;

	if (size > UINT16_MAX ||
	    grow(&f->batch, &f->batch_cap, f->batch_len, size, 1 << 16))
		return -1;
	c = (void *)(f->batch + f->batch_len);
	memset(c, 0, size);
	c->header.type = FEED_CAPTURE;
	c->header.size = (uint16_t)size;
	memcpy(&c->m, m, m->header.size);
	f->batch_len += size;
	return 0;
}

/* Give back the handles of the captures in @buf: no one will take them. */
static void release_captures(struct feed *f, const uint8_t *buf, size_t len)
{
	size_t at;

	for (at = 0; at < len; ) {
		const struct feed_capture *c = (const void *)(buf + at);

		if (c->header.type == FEED_CAPTURE)
			mmap3_device_capture_release(f->s.dev, c->m.capture);
		at += ALIGN8(c->header.size);
	}
}

/* Hand the batch over: the main thread's from now on. */
static void feed_hand_over(struct feed *f, uint64_t gen)
{
	pthread_mutex_lock(&f->lock);
	if (f->batch_len && f->len + f->batch_len <= FEED_QUEUE_MAX &&
	    !grow(&f->buf, &f->cap, f->len, f->batch_len, 1 << 16)) {
		memcpy(f->buf + f->len, f->batch, f->batch_len);
		f->len += f->batch_len;
	} else if (f->batch_len) {
		count_add(&f->dropped, f->batch_nr);
		release_captures(f, f->batch, f->batch_len);
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
	/* Its captures are the main thread's to finish, after its last decisions. */
	if (failed || session_finish_records(&f->s, session_now(&f->s)))
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

void feed_init(struct feed *f)
{
	memset(f, 0, sizeof(*f));
	f->s.dev = f->wake = -1;
	pthread_mutex_init(&f->lock, NULL);
	pthread_cond_init(&f->cond, NULL);
}

int feed_start(struct feed *f, const struct session_opts *so)
{
	f->so = *so;
	f->so.sink = feed_sink;
	f->so.capture_sink = feed_capture_sink;
	f->so.sink_arg = f;
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
	return 0;
}

uint8_t *feed_take(struct feed *f, size_t *len, int *dump_done)
{
	uint8_t *buf;

	pthread_mutex_lock(&f->lock);
	buf = f->buf;
	*len = f->len;
	f->buf = NULL;
	f->len = f->cap = 0;
	*dump_done = f->dump_done;
	pthread_mutex_unlock(&f->lock);
	return buf;
}

int feed_sync(struct feed *f, int seconds)
{
	uint64_t gen = ++f->gen;

	if (mmap3_device_flush(f->s.dev))
		return -1;
	atomic_store(&f->want, gen);
	feed_poke(f);
	pthread_mutex_lock(&f->lock);
	feed_wait(f, synced, gen, seconds);
	pthread_mutex_unlock(&f->lock);
	return 0;
}

void feed_wait_dump(struct feed *f, int seconds)
{
	pthread_mutex_lock(&f->lock);
	feed_wait(f, dumped, 0, seconds);
	pthread_mutex_unlock(&f->lock);
}

int feed_stop(struct feed *f)
{
	if (!f->started)
		return 0;
	pthread_mutex_lock(&f->lock);
	f->stop = 1;
	pthread_mutex_unlock(&f->lock);
	feed_poke(f);
	pthread_join(f->thread, NULL);
	f->started = 0;
	return f->failed ? -1 : 0;
}

void feed_free(struct feed *f)
{
	if (f->s.dev >= 0) {
		release_captures(f, f->buf, f->len);
		release_captures(f, f->batch, f->batch_len);
	}
	session_close(&f->s);
	free(f->buf);
	free(f->batch);
	f->buf = f->batch = NULL;
	if (f->wake >= 0)
		close(f->wake);
	f->wake = -1;
}
