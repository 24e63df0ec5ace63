/* SPDX-License-Identifier: GPL-2.0 */
/*
 * userspace/hashmap.h - the tool's one hash table, for every table whose
 * keys come from elsewhere (paths and build-ids that any user maps, pids
 * and names in a perf.data from another machine): open addressing with
 * linear probing over values the caller owns, hashed by SipHash-1-3
 * under a key drawn at random once per process, so no input can be
 * crafted to make its lookups walk long (as libbpf's hashmap.h is one
 * table for all of libbpf, and the kernel's tables use siphash).
 *
 * A table stores (hash, value) pairs; the caller hashes its key with
 * struct hashmap_hasher and tells, with a callback, whether a value is
 * the one sought.  Values are nonzero (a pointer, an index + 1).  Not
 * thread-safe: one owner at a time.
 */
#ifndef MMAP3_HASHMAP_H
#define MMAP3_HASHMAP_H

#include <stddef.h>
#include <stdint.h>

struct hashmap_slot {
	uint64_t hash;			/* 0: free */
	uintptr_t value;
};

struct hashmap {
	struct hashmap_slot *slots;
	size_t cap, nr;			/* cap a power of two, at most half full */
	/* What lookups cost: how many, and the slots they looked at. */
	uint64_t lookups, probes;
};

/* SipHash-1-3, fed a key's parts in turn. */
struct hashmap_hasher {
	uint64_t v0, v1, v2, v3;
	uint64_t tail;			/* bytes not yet a whole word */
	size_t len;			/* bytes fed in all */
};

void hashmap_hasher_init(struct hashmap_hasher *h);
void hashmap_hasher_add(struct hashmap_hasher *h, const void *p, size_t n);
/* The hash of what was fed: never 0. */
uint64_t hashmap_hasher_end(struct hashmap_hasher *h);
/* The hash of @n bytes at @p. */
uint64_t hashmap_hash(const void *p, size_t n);

/*
 * The value stored under @hash for which @same(value, key) holds, or 0.
 * Counted in ->lookups and ->probes.
 */
uintptr_t hashmap_find(struct hashmap *m, uint64_t hash,
		       int (*same)(uintptr_t value, const void *key), const void *key);

/* Store @value under @hash (no check for one there already): 0, or -1 out of memory. */
int hashmap_add(struct hashmap *m, uint64_t hash, uintptr_t value);

/* Remove @value, stored under @hash: 1 if it was there. */
int hashmap_remove(struct hashmap *m, uint64_t hash, uintptr_t value);

void hashmap_free(struct hashmap *m);

/* The tests' fixed key, for known answers; before any table is used. */
void hashmap_set_key(uint64_t k0, uint64_t k1);

#endif /* MMAP3_HASHMAP_H */
