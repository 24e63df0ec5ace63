// SPDX-License-Identifier: GPL-2.0
/*
 * userspace/pidset.c - a set of pids, in the tool's one keyed table: the
 * pids come from a perf.data of anyone's making.
 */
#include "hashmap.h"
#include "pidset.h"

static int is_pid(uintptr_t value, const void *key)
{
	return value - 1 == *(const uint32_t *)key;
}

static uint64_t pid_hash(uint32_t pid)
{
	return hashmap_hash(&pid, sizeof(pid));
}

int pidset_add(struct pidset *s, uint32_t pid)
{
	uint64_t h = pid_hash(pid);

	if (hashmap_find(&s->map, h, is_pid, &pid))
		return 0;
	return hashmap_add(&s->map, h, (uintptr_t)pid + 1);
}

int pidset_has(struct pidset *s, uint32_t pid)
{
	return !!hashmap_find(&s->map, pid_hash(pid), is_pid, &pid);
}

void pidset_free(struct pidset *s)
{
	hashmap_free(&s->map);
}
