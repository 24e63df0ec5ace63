// SPDX-License-Identifier: GPL-2.0
/*
 * userspace/round.c - perf's records of one round, held (round.h).
 */
#include <stdlib.h>
#include <string.h>

#include "grow.h"
#include "msg.h"
#include "round.h"

#define ALIGN8(x)	(((x) + 7) & ~(size_t)7)

static int room(struct round *r, size_t n)
{
	if (!grow(&r->buf, &r->buf_cap, r->len, n, 1 << 20))
		return 0;
	msg_err("out of memory");
	return -1;
}

static int payload(void *arg, const void *buf, size_t len)
{
	struct round *r = arg;

	if (room(r, len))
		return -1;
	memcpy(r->buf + r->len, buf, len);
	r->len += len;
	return 0;
}

int round_add(struct round *r, struct perf_reader *in, const struct perf_rec *rec)
{
	if (r->nr == r->cap) {
		size_t cap = r->cap ? 2 * r->cap : 4096;
		struct round_rec *n = realloc(r->recs, cap * sizeof(*n));

		if (!n) {
			msg_err("out of memory");
			return -1;
		}
		r->recs = n;
		r->cap = cap;
	}
	r->len = ALIGN8(r->len);
	if (room(r, rec->h->size))
		return -1;
	r->recs[r->nr++] = (struct round_rec){
		.off = r->len, .payload = rec->payload, .time = rec->time,
		.has_time = rec->has_time, .in_header = rec->in_header,
	};
	memcpy(r->buf + r->len, rec->h, rec->h->size);
	r->len += rec->h->size;
	if (rec->payload && perf_reader_payload(in, payload, r)) {
		msg_err("%s", perf_reader_error(in));
		return -1;
	}
	return 0;
}

void round_clear(struct round *r)
{
	r->nr = 0;
	r->len = 0;
}

void round_free(struct round *r)
{
	free(r->recs);
	free(r->buf);
	*r = (struct round){ 0 };
}
