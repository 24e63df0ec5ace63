// SPDX-License-Identifier: GPL-2.0
/*
 * userspace/hashmap.c - open addressing, linear probing, keyed SipHash-1-3.
 */
#include <endian.h>
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

#include "hashmap.h"

static uint64_t process_key[2];
static pthread_once_t key_once = PTHREAD_ONCE_INIT;

/*
 * The process's key.  Without the kernel's random bytes (a seccomp
 * filter, a kernel before 3.17), the clock and the address space's
 * layout: known to no one else before the tool runs, if weaker.
 */
static void key_init(void)
{
	ssize_t n;

	do
		n = getrandom(process_key, sizeof(process_key), 0);
	while (n < 0 && errno == EINTR);
	if (n != sizeof(process_key)) {
		struct timespec ts;

		clock_gettime(CLOCK_MONOTONIC, &ts);
		process_key[0] = (uint64_t)ts.tv_nsec * 0x9e3779b97f4a7c15ULL ^ (uint64_t)(uintptr_t)&n;
		process_key[1] = (uint64_t)ts.tv_sec ^ (uint64_t)getpid() << 32 ^ (uint64_t)(uintptr_t)&process_key;
	}
}

void hashmap_set_key(uint64_t k0, uint64_t k1)
{
	pthread_once(&key_once, key_init);
	process_key[0] = k0;
	process_key[1] = k1;
}

#define ROTL(x, b)	((x) << (b) | (x) >> (64 - (b)))

static inline void sipround(struct hashmap_hasher *h)
{
	h->v0 += h->v1;
	h->v1 = ROTL(h->v1, 13);
	h->v1 ^= h->v0;
	h->v0 = ROTL(h->v0, 32);
	h->v2 += h->v3;
	h->v3 = ROTL(h->v3, 16);
	h->v3 ^= h->v2;
	h->v0 += h->v3;
	h->v3 = ROTL(h->v3, 21);
	h->v3 ^= h->v0;
	h->v2 += h->v1;
	h->v1 = ROTL(h->v1, 17);
	h->v1 ^= h->v2;
	h->v2 = ROTL(h->v2, 32);
}

/* One compression round a word: SipHash-1-3. */
static inline void compress(struct hashmap_hasher *h, uint64_t m)
{
	h->v3 ^= m;
	sipround(h);
	h->v0 ^= m;
}

void hashmap_hasher_init(struct hashmap_hasher *h)
{
	pthread_once(&key_once, key_init);
	h->v0 = process_key[0] ^ 0x736f6d6570736575ULL;
	h->v1 = process_key[1] ^ 0x646f72616e646f6dULL;
	h->v2 = process_key[0] ^ 0x6c7967656e657261ULL;
	h->v3 = process_key[1] ^ 0x7465646279746573ULL;
	h->tail = 0;
	h->len = 0;
}

/* The first @n (< 8) bytes at @b, little-endian. */
static inline uint64_t load_partial(const uint8_t *b, size_t n)
{
	uint64_t w = 0;

	switch (n) {
	case 7:
		w |= (uint64_t)b[6] << 48;
		/* fall through */
	case 6:
		w |= (uint64_t)b[5] << 40;
		/* fall through */
	case 5:
		w |= (uint64_t)b[4] << 32;
		/* fall through */
	case 4:
		w |= (uint64_t)b[3] << 24;
		/* fall through */
	case 3:
		w |= (uint64_t)b[2] << 16;
		/* fall through */
	case 2:
		w |= (uint64_t)b[1] << 8;
		/* fall through */
	case 1:
		w |= b[0];
	}
	return w;
}

void hashmap_hasher_add(struct hashmap_hasher *h, const void *p, size_t n)
{
	const uint8_t *b = p;
	size_t have = h->len & 7, take;
	uint64_t m;

	h->len += n;
	/* Complete the word begun before. */
	if (have) {
		take = 8 - have < n ? 8 - have : n;
		h->tail |= load_partial(b, take) << (8 * have);
		b += take;
		n -= take;
		if (have + take < 8)
			return;
		compress(h, h->tail);
		h->tail = 0;
	}
	for (; n >= 8; n -= 8, b += 8) {
		memcpy(&m, b, 8);
		compress(h, le64toh(m));
	}
	h->tail = load_partial(b, n);
}

uint64_t hashmap_hasher_end(struct hashmap_hasher *h)
{
	uint64_t v;

	compress(h, h->tail | (uint64_t)h->len << 56);
	h->v2 ^= 0xff;
	sipround(h);
	sipround(h);
	sipround(h);
	v = h->v0 ^ h->v1 ^ h->v2 ^ h->v3;
#ifdef HASHMAP_HASH_BITS
	/* The host tests' weak hash: every lookup meets others' values. */
	v &= (1ULL << HASHMAP_HASH_BITS) - 1;
#endif
	return v ? v : 1;
}

uint64_t hashmap_hash(const void *p, size_t n)
{
	struct hashmap_hasher h;

	hashmap_hasher_init(&h);
	hashmap_hasher_add(&h, p, n);
	return hashmap_hasher_end(&h);
}

uintptr_t hashmap_find(struct hashmap *m, uint64_t hash,
		       int (*same)(uintptr_t value, const void *key), const void *key)
{
	size_t i;

	m->lookups++;
	if (!m->cap)
		return 0;
	for (i = hash & (m->cap - 1); m->slots[i].hash; i = (i + 1) & (m->cap - 1)) {
		m->probes++;
		if (m->slots[i].hash == hash && same(m->slots[i].value, key))
			return m->slots[i].value;
	}
	return 0;
}

static void put(struct hashmap_slot *slots, size_t cap, uint64_t hash, uintptr_t value)
{
	size_t i;

	for (i = hash & (cap - 1); slots[i].hash; i = (i + 1) & (cap - 1))
		;
	slots[i].hash = hash;
	slots[i].value = value;
}

int hashmap_add(struct hashmap *m, uint64_t hash, uintptr_t value)
{
	if (2 * (m->nr + 1) > m->cap) {
		size_t cap = m->cap ? 2 * m->cap : 64, i;
		struct hashmap_slot *slots;

		if (cap < m->cap || cap > SIZE_MAX / sizeof(*slots))
			return -1;
		slots = calloc(cap, sizeof(*slots));
		if (!slots)
			return -1;
		for (i = 0; i < m->cap; i++)
			if (m->slots[i].hash)
				put(slots, cap, m->slots[i].hash, m->slots[i].value);
		free(m->slots);
		m->slots = slots;
		m->cap = cap;
	}
	put(m->slots, m->cap, hash, value);
	m->nr++;
	return 0;
}

int hashmap_remove(struct hashmap *m, uint64_t hash, uintptr_t value)
{
	size_t i, j, home;

	if (!m->cap)
		return 0;
	for (i = hash & (m->cap - 1); m->slots[i].hash; i = (i + 1) & (m->cap - 1))
		if (m->slots[i].hash == hash && m->slots[i].value == value)
			break;
	if (!m->slots[i].hash)
		return 0;
	/* Backward shift: what follows in the run moves up where it may. */
	for (j = (i + 1) & (m->cap - 1); m->slots[j].hash; j = (j + 1) & (m->cap - 1)) {
		home = m->slots[j].hash & (m->cap - 1);
		/* Stays if its home lies in (i, j], cyclically. */
		if (i <= j ? i < home && home <= j : i < home || home <= j)
			continue;
		m->slots[i] = m->slots[j];
		i = j;
	}
	m->slots[i].hash = 0;
	m->slots[i].value = 0;
	m->nr--;
	return 1;
}

void hashmap_free(struct hashmap *m)
{
	free(m->slots);
	m->slots = NULL;
	m->cap = m->nr = 0;
}
