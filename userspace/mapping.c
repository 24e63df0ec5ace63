// SPDX-License-Identifier: GPL-2.0
/*
 * userspace/mapping.c - one of perf's mapping records and one of mmap3's:
 * the same mapping or not, and perf's given mmap3's build-id.
 */
#include <stdio.h>
#include <string.h>

#include "mapping.h"

int mapping_is_mmap(const struct perf_event_header *h)
{
	return h->type == PERF_RECORD_MMAP || h->type == PERF_RECORD_MMAP2;
}

int mapping_is_kernel(const struct perf_event_header *h)
{
	return (h->misc & PERF_RECORD_MISC_CPUMODE_MASK) == PERF_RECORD_MISC_KERNEL;
}

int mapping_is_user(const struct perf_event_header *h)
{
	return mapping_is_mmap(h) && !mapping_is_kernel(h);
}

int mapping_mmap3_records(const struct perf_event_header *h)
{
	size_t fixed = h->type == PERF_RECORD_MMAP ? PERF_MMAP_FIXED : PERF_MMAP2_FIXED;
	const char *name = (const char *)h + fixed;

	if (mapping_is_kernel(h))
		return 1;
	if (h->misc & PERF_RECORD_MISC_MMAP_DATA)
		return 0;
	return name[0] == '/' && strncmp(name, "//anon", 6);
}

int mapping_record_pid(const struct perf_event_header *h, uint32_t *pid)
{
	switch (h->type) {
	case PERF_RECORD_COMM:
	case PERF_RECORD_EXIT:
	case PERF_RECORD_FORK:
	case PERF_RECORD_MMAP:
	case PERF_RECORD_MMAP2:
		if (h->size < sizeof(*h) + 4)
			return 0;
		memcpy(pid, h + 1, 4);
		return *pid != (uint32_t)-1;
	default:
		return 0;
	}
}

static const char *mmap_name(const struct perf_event_header *h, size_t *max)
{
	size_t fixed = h->type == PERF_RECORD_MMAP ? PERF_MMAP_FIXED : PERF_MMAP2_FIXED;

	*max = h->size > fixed ? h->size - fixed : 0;
	return (const char *)h + fixed;
}

/* pid, tid, start, len, pgoff: the same place in MMAP and MMAP2. */
#define MAPPING_KEY	(PERF_MMAP_FIXED - sizeof(struct perf_event_header))

int mapping_same(const struct perf_event_header *a, const struct perf_event_header *b)
{
	size_t ma, mb;
	const char *na = mmap_name(a, &ma), *nb = mmap_name(b, &mb);

	if (memcmp(a + 1, b + 1, MAPPING_KEY))
		return 0;
	return !strncmp(na, nb, ma < mb ? ma : mb);
}

static uint64_t map_start(const struct perf_event_header *h)
{
	uint64_t v;

	memcpy(&v, (const uint8_t *)h + offsetof(struct perf_record_mmap, start), 8);
	return v;
}

static uint64_t map_len(const struct perf_event_header *h)
{
	uint64_t v;

	memcpy(&v, (const uint8_t *)h + offsetof(struct perf_record_mmap, len), 8);
	return v;
}

void kernel_map_name(const struct perf_event_header *h, char *out, size_t len)
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

int kernel_map_same(const struct perf_event_header *a, const struct perf_event_header *b)
{
	char na[256], nb[256];

	if (!mapping_is_mmap(a) || !mapping_is_kernel(a) || !mapping_is_mmap(b) ||
	    !mapping_is_kernel(b) || map_start(a) != map_start(b))
		return 0;
	kernel_map_name(a, na, sizeof(na));
	kernel_map_name(b, nb, sizeof(nb));
	return !strcmp(na, nb);
}

int mapping_give_build_id(uint8_t *out, const struct perf_event_header *h,
			  const struct perf_event_header *s)
{
	size_t grow = h->type == PERF_RECORD_MMAP ? PERF_MMAP2_FIXED - PERF_MMAP_FIXED : 0;
	struct perf_event_header o;

	if (s->type != PERF_RECORD_MMAP2 || !(s->misc & PERF_RECORD_MISC_MMAP_BUILD_ID))
		return 0;
	if (h->size + grow > MAPPING_REC_MAX)
		return -1;
	/* Header and pid..pgoff from perf, build-id and prot/flags from mmap3. */
	memcpy(out, h, PERF_MMAP_FIXED);
	memcpy(out + PERF_MMAP_FIXED, (const uint8_t *)s + PERF_MMAP_FIXED,
	       PERF_MMAP2_FIXED - PERF_MMAP_FIXED);
	memcpy(out + PERF_MMAP2_FIXED, (const uint8_t *)h + PERF_MMAP2_FIXED - grow,
	       h->size - (PERF_MMAP2_FIXED - grow));
	o.type = PERF_RECORD_MMAP2;
	o.misc = (h->misc & ~PERF_RECORD_MISC_MMAP_DATA) | PERF_RECORD_MISC_MMAP_BUILD_ID |
		 (s->misc & PERF_RECORD_MISC_MMAP_DATA);
	o.size = (uint16_t)(h->size + grow);
	memcpy(out, &o, sizeof(o));
	return o.size;
}

size_t kernel_map_cut(uint8_t *out, const struct perf_event_header *h,
		      const struct perf_event_header *s)
{
	uint64_t text_len;
	char name[256];

	kernel_map_name(h, name, sizeof(name));
	if (!s || !strcmp(name, "kernel.kallsyms"))
		return 0;
	text_len = map_len(s);
	if (!text_len || text_len >= map_len(h))
		return 0;
	memcpy(out, h, h->size);
	memcpy(out + offsetof(struct perf_record_mmap, len), &text_len, 8);
	return h->size;
}
