// SPDX-License-Identifier: GPL-2.0
/*
 * userspace/match.c - mmap3's mapping records grouped by mapping, and
 * perf's looked up among them.
 */
#include <stdlib.h>
#include <string.h>

#include "mapping.h"
#include "match.h"

/* mmap3's records of one mapping, oldest first, in m[start, start + len). */
struct match_group {
	int kernel;
	uint64_t hash;
	struct match_rec **m;
	size_t start, len, cap;
	/* Kernel maps: none before m[next] is left unmatched. */
	size_t next;
};

/* pid, tid, start, len, pgoff: the same place in MMAP and MMAP2. */
#define USER_KEY	(PERF_MMAP_FIXED - sizeof(struct perf_event_header))

static uint64_t user_hash(const struct perf_event_header *h)
{
	size_t fixed = h->type == PERF_RECORD_MMAP ? PERF_MMAP_FIXED : PERF_MMAP2_FIXED;
	const char *name = (const char *)h + fixed;
	struct hashmap_hasher k;

	hashmap_hasher_init(&k);
	hashmap_hasher_add(&k, "u", 1);
	hashmap_hasher_add(&k, h + 1, USER_KEY);
	hashmap_hasher_add(&k, name, strnlen(name, h->size > fixed ? h->size - fixed : 0));
	return hashmap_hasher_end(&k);
}

static uint64_t kernel_hash(const struct perf_event_header *h)
{
	struct hashmap_hasher k;
	uint64_t start;
	char name[256];

	memcpy(&start, (const uint8_t *)h + offsetof(struct perf_record_mmap, start), 8);
	kernel_map_name(h, name, sizeof(name));
	hashmap_hasher_init(&k);
	hashmap_hasher_add(&k, "k", 1);
	hashmap_hasher_add(&k, &start, sizeof(start));
	hashmap_hasher_add(&k, name, strlen(name));
	return hashmap_hasher_end(&k);
}

struct group_key {
	int kernel;
	const struct perf_event_header *h;
};

static int is_group(uintptr_t value, const void *key)
{
	const struct match_group *g = (const void *)value;
	const struct group_key *k = key;
	const struct perf_event_header *b = g->m[g->start]->body;

	return g->kernel == k->kernel &&
	       (k->kernel ? kernel_map_same(b, k->h) : mapping_same(b, k->h));
}

/* The group of @h's mapping, or NULL; its hash in *@hash. */
static struct match_group *group_of(struct match *m, const struct perf_event_header *h,
				    uint64_t *hash, int *kernel)
{
	struct group_key k = { mapping_is_kernel(h), h };

	*kernel = k.kernel;
	*hash = k.kernel ? kernel_hash(h) : user_hash(h);
	return (void *)hashmap_find(&m->groups, *hash, is_group, &k);
}

int match_add(struct match *m, struct match_rec *r)
{
	struct match_group *g;
	uint64_t hash;
	int kernel;
	size_t i;

	g = group_of(m, r->body, &hash, &kernel);
	if (!g) {
		g = calloc(1, sizeof(*g));
		if (!g)
			return -1;
		g->kernel = kernel;
		g->hash = hash;
	}
	if (g->start + g->len == g->cap) {
		if (g->start > g->len) {
			memmove(g->m, g->m + g->start, g->len * sizeof(*g->m));
			g->next -= g->start;
			g->start = 0;
		} else {
			size_t cap = g->cap ? 2 * g->cap : 4;
			struct match_rec **n = realloc(g->m, cap * sizeof(*n));

			if (!n)
				goto fail;
			g->m = n;
			g->cap = cap;
		}
	}
	/* Mostly in time order already: from the end. */
	for (i = g->start + g->len; i > g->start && g->m[i - 1]->time > r->time; i--)
		g->m[i] = g->m[i - 1];
	g->m[i] = r;
	if (!g->len++) {
		g->next = i;
		if (hashmap_add(&m->groups, hash, (uintptr_t)g))
			goto fail;
	} else if (i < g->next) {
		g->next = i;
	}
	r->group = g;
	return 0;
fail:
	if (!g->len) {
		free(g->m);
		free(g);
	}
	return -1;
}

void match_remove(struct match *m, struct match_rec *r)
{
	struct match_group *g = r->group;
	size_t i;

	if (!g)
		return;
	r->group = NULL;
	for (i = g->start; g->m[i] != r; i++)
		;
	if (i == g->start) {
		g->start++;
		if (g->next < g->start)
			g->next = g->start;
	} else {
		memmove(g->m + i, g->m + i + 1, (g->start + g->len - i - 1) * sizeof(*g->m));
		if (g->next > i)
			g->next--;
	}
	if (--g->len)
		return;
	hashmap_remove(&m->groups, g->hash, (uintptr_t)g);
	free(g->m);
	free(g);
}

static uint64_t distance(uint64_t a, uint64_t b)
{
	return a > b ? a - b : b - a;
}

/* The record of @g nearest to @time: the first not older, or the one before. */
static struct match_rec *nearest(struct match *m, struct match_group *g, uint64_t time)
{
	size_t lo = g->start, hi = g->start + g->len;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		m->probes++;
		if (g->m[mid]->time < time)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == g->start + g->len || (lo > g->start && distance(g->m[lo - 1]->time, time) <=
					  distance(g->m[lo]->time, time)))
		lo--;
	/* perf's same record twice takes mmap3's same record twice, in turn. */
	while (lo + 1 < g->start + g->len && g->m[lo]->matched && g->m[lo + 1]->time == g->m[lo]->time)
		lo++;
	return g->m[lo];
}

struct match_rec *match_find(struct match *m, const struct perf_event_header *h, int has_time,
			     uint64_t time)
{
	uint64_t probes = m->groups.probes, hash;
	struct match_group *g;
	struct match_rec *r = NULL;
	int kernel;

	m->lookups++;
	g = group_of(m, h, &hash, &kernel);
	m->probes += m->groups.probes - probes;
	if (g && kernel) {
		while (g->next < g->start + g->len && g->m[g->next]->matched) {
			m->probes++;
			g->next++;
		}
		r = g->next < g->start + g->len ? g->m[g->next] : NULL;
	} else if (g) {
		r = has_time && time ? nearest(m, g, time) : g->m[g->start];
	}
	if (r)
		r->matched = 1;
	return r;
}

void match_free(struct match *m)
{
	size_t i;

	for (i = 0; i < m->groups.cap; i++) {
		struct match_group *g = (void *)m->groups.slots[i].value;

		if (!m->groups.slots[i].hash)
			continue;
		free(g->m);
		free(g);
	}
	hashmap_free(&m->groups);
}
