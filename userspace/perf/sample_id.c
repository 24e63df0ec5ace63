// SPDX-License-Identifier: GPL-2.0
/*
 * userspace/perf/sample_id.c - the sample_id trailer (include/uapi/linux/
 * perf_event.h, "struct sample_id"):
 *
 *	{ u32 pid, tid; }	PERF_SAMPLE_TID
 *	{ u64 time; }		PERF_SAMPLE_TIME
 *	{ u64 id; }		PERF_SAMPLE_ID
 *	{ u64 stream_id; }	PERF_SAMPLE_STREAM_ID
 *	{ u32 cpu, res; }	PERF_SAMPLE_CPU
 *	{ u64 id; }		PERF_SAMPLE_IDENTIFIER
 *
 * Every field is 8 bytes; perf finds them from the record's end, as here.
 */
#include <string.h>

#include "sample_id.h"

static const uint64_t order[] = {
	PERF_SAMPLE_TID, PERF_SAMPLE_TIME, PERF_SAMPLE_ID, PERF_SAMPLE_STREAM_ID,
	PERF_SAMPLE_CPU, PERF_SAMPLE_IDENTIFIER,
};

void sample_id_layout_init(struct sample_id_layout *l, const struct perf_event_attr *attr)
{
	unsigned int i;

	l->fields = attr->sample_id_all ? attr->sample_type & SAMPLE_ID_FIELDS : 0;
	l->size = 0;
	for (i = 0; i < sizeof(order) / sizeof(order[0]); i++)
		l->size += 8 * !!(l->fields & order[i]);
}

int sample_id_parse(const struct sample_id_layout *l, const struct perf_event_header *h,
		    struct sample_id *s)
{
	const uint8_t *p;
	uint32_t u32[2];
	unsigned int i;

	memset(s, 0, sizeof(*s));
	if (h->size < sizeof(*h) + l->size)
		return -1;
	p = (const uint8_t *)h + h->size - l->size;
	for (i = 0; i < sizeof(order) / sizeof(order[0]); i++) {
		if (!(l->fields & order[i]))
			continue;
		switch (order[i]) {
		case PERF_SAMPLE_TID:
			memcpy(u32, p, 8);
			s->pid = u32[0];
			s->tid = u32[1];
			break;
		case PERF_SAMPLE_TIME:
			memcpy(&s->time, p, 8);
			break;
		case PERF_SAMPLE_ID:
		case PERF_SAMPLE_IDENTIFIER:
			memcpy(&s->id, p, 8);
			break;
		case PERF_SAMPLE_STREAM_ID:
			memcpy(&s->stream_id, p, 8);
			break;
		case PERF_SAMPLE_CPU:
			memcpy(u32, p, 8);
			s->cpu = u32[0];
			break;
		}
		p += 8;
	}
	return 0;
}

void sample_id_write(const struct sample_id_layout *l, void *trailer, const struct sample_id *s)
{
	uint32_t u32[2] = { s->pid, s->tid };
	uint64_t f = l->fields;
	uint8_t *p = trailer;

	/* In the trailer's order: straight through, for a record at a time. */
	if (f & PERF_SAMPLE_TID) {
		memcpy(p, u32, 8);
		p += 8;
	}
	if (f & PERF_SAMPLE_TIME) {
		memcpy(p, &s->time, 8);
		p += 8;
	}
	if (f & PERF_SAMPLE_ID) {
		memcpy(p, &s->id, 8);
		p += 8;
	}
	if (f & PERF_SAMPLE_STREAM_ID) {
		memcpy(p, &s->stream_id, 8);
		p += 8;
	}
	if (f & PERF_SAMPLE_CPU) {
		u32[0] = s->cpu;
		u32[1] = 0;
		memcpy(p, u32, 8);
		p += 8;
	}
	if (f & PERF_SAMPLE_IDENTIFIER)
		memcpy(p, &s->id, 8);
}

int sample_time_offset(const struct perf_event_attr *attr)
{
	if (!(attr->sample_type & PERF_SAMPLE_TIME))
		return -1;
	return (int)(sizeof(struct perf_event_header) +
		     8 * (!!(attr->sample_type & PERF_SAMPLE_IDENTIFIER) +
			  !!(attr->sample_type & PERF_SAMPLE_IP) +
			  !!(attr->sample_type & PERF_SAMPLE_TID)));
}
