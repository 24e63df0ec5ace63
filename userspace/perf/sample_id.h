/* SPDX-License-Identifier: GPL-2.0 */
/*
 * userspace/perf/sample_id.h - the sample_id trailer that attr.sample_id_all
 * appends to every record but samples, parsed and written in one place;
 * and where a sample keeps its time.
 */
#ifndef MMAP3_PERF_SAMPLE_ID_H
#define MMAP3_PERF_SAMPLE_ID_H

#include <linux/perf_event.h>
#include <stdint.h>

/* The sample_type bits that make up the trailer, in its order. */
#define SAMPLE_ID_FIELDS	(PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_ID | \
				 PERF_SAMPLE_STREAM_ID | PERF_SAMPLE_CPU | \
				 PERF_SAMPLE_IDENTIFIER)

struct sample_id {
	uint32_t pid, tid;		/* PERF_SAMPLE_TID */
	uint64_t time;			/* PERF_SAMPLE_TIME */
	uint64_t id;			/* PERF_SAMPLE_ID, PERF_SAMPLE_IDENTIFIER */
	uint64_t stream_id;		/* PERF_SAMPLE_STREAM_ID */
	uint32_t cpu;			/* PERF_SAMPLE_CPU */
};

struct sample_id_layout {
	uint64_t fields;		/* SAMPLE_ID_FIELDS of sample_type; 0: no trailer */
	unsigned int size;		/* bytes */
};

/* The trailer of records of @attr (none without sample_id_all). */
void sample_id_layout_init(struct sample_id_layout *l, const struct perf_event_attr *attr);

/*
 * Read the trailer at the end of the record @h.  Fields the layout lacks
 * are zero.  Returns -1 if the record is shorter than its header and the
 * trailer.
 */
int sample_id_parse(const struct sample_id_layout *l, const struct perf_event_header *h,
		    struct sample_id *s);

/* Write @s as the trailer at @trailer (l->size bytes). */
void sample_id_write(const struct sample_id_layout *l, void *trailer, const struct sample_id *s);

/*
 * The offset of the time in a PERF_RECORD_SAMPLE of @attr (after
 * IDENTIFIER, IP and TID), or -1 if its samples carry none.
 */
int sample_time_offset(const struct perf_event_attr *attr);

#endif /* MMAP3_PERF_SAMPLE_ID_H */
