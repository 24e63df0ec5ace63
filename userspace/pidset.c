// SPDX-License-Identifier: GPL-2.0
/*
 * userspace/pidset.c - a set of pids.
 */
#include <stdlib.h>

#include "hash.h"
#include "pidset.h"

static size_t slot(const struct pidset *s, uint32_t key)
{
	return fnv1a(&key, sizeof(key), FNV1A_INIT) & (s->cap - 1);
}

int pidset_add(struct pidset *s, uint32_t pid)
{
	uint32_t key = pid + 1;
	size_t j;

	if (2 * (s->nr + 1) > s->cap) {
		struct pidset n = { .cap = s->cap ? 2 * s->cap : 1024 };
		size_t i;

		n.slots = calloc(n.cap, sizeof(*n.slots));
		if (!n.slots)
			return -1;
		for (i = 0; i < s->cap; i++) {
			if (!s->slots[i])
				continue;
			for (j = slot(&n, s->slots[i]); n.slots[j]; j = (j + 1) & (n.cap - 1))
				;
			n.slots[j] = s->slots[i];
		}
		n.nr = s->nr;
		free(s->slots);
		*s = n;
	}
	for (j = slot(s, key); s->slots[j]; j = (j + 1) & (s->cap - 1))
		if (s->slots[j] == key)
			return 0;
	s->slots[j] = key;
	s->nr++;
	return 0;
}

int pidset_has(const struct pidset *s, uint32_t pid)
{
	uint32_t key = pid + 1;
	size_t j;

	if (!s->cap)
		return 0;
	for (j = slot(s, key); s->slots[j]; j = (j + 1) & (s->cap - 1))
		if (s->slots[j] == key)
			return 1;
	return 0;
}

void pidset_free(struct pidset *s)
{
	free(s->slots);
	s->slots = NULL;
	s->cap = s->nr = 0;
}
