// SPDX-License-Identifier: GPL-2.0
/*
 * userspace/hashmap.c, the tool's one hash table: its SipHash-1-3 against
 * a reference SipHash-c-d written here from the paper (checked first
 * against SipHash-2-4's published answer), fed whole and in pieces; its
 * table against a plain array under random adds, finds and removes,
 * with the full hash and with one of 3 bits (every value in one run);
 * and what keys chosen against an unkeyed hash cost it.  Prints TAP.
 */
#include <stdlib.h>
#include <string.h>

#include "hashmap.h"
#include "tap.h"

#define ROTL(x, b)	((x) << (b) | (x) >> (64 - (b)))

/* SipHash-c-d of @n bytes, as Aumasson and Bernstein give it. */
static uint64_t siphash_ref(int c, int d, uint64_t k0, uint64_t k1, const uint8_t *p, size_t n)
{
	uint64_t v0 = k0 ^ 0x736f6d6570736575ULL, v1 = k1 ^ 0x646f72616e646f6dULL;
	uint64_t v2 = k0 ^ 0x6c7967656e657261ULL, v3 = k1 ^ 0x7465646279746573ULL;
	uint64_t m;
	size_t i, left = n;
	int r;

#define ROUND() do {							\
	v0 += v1; v1 = ROTL(v1, 13); v1 ^= v0; v0 = ROTL(v0, 32);	\
	v2 += v3; v3 = ROTL(v3, 16); v3 ^= v2;				\
	v0 += v3; v3 = ROTL(v3, 21); v3 ^= v0;				\
	v2 += v1; v1 = ROTL(v1, 17); v1 ^= v2; v2 = ROTL(v2, 32);	\
} while (0)
	for (; left >= 8; left -= 8, p += 8) {
		for (m = 0, i = 0; i < 8; i++)
			m |= (uint64_t)p[i] << (8 * i);
		v3 ^= m;
		for (r = 0; r < c; r++)
			ROUND();
		v0 ^= m;
	}
	for (m = (uint64_t)n << 56, i = 0; i < left; i++)
		m |= (uint64_t)p[i] << (8 * i);
	v3 ^= m;
	for (r = 0; r < c; r++)
		ROUND();
	v0 ^= m;
	v2 ^= 0xff;
	for (r = 0; r < d; r++)
		ROUND();
#undef ROUND
	return v0 ^ v1 ^ v2 ^ v3;
}

static int same_value(uintptr_t value, const void *key)
{
	return value == *(const uintptr_t *)key;
}

/* Random adds, finds and removes against an array of what is in. */
static int table_agrees(int rounds, uint64_t (*hash)(uintptr_t v))
{
	static uint8_t in[4096];
	struct hashmap m = { 0 };
	int i, ok = 1;

	memset(in, 0, sizeof(in));
	srand(7);
	for (i = 0; i < rounds && ok; i++) {
		uintptr_t v = 1 + (uintptr_t)(rand() % 4095);
		uintptr_t got = hashmap_find(&m, hash(v), same_value, &v);

		if ((got == v) != in[v])
			ok = 0;
		else if (in[v] && rand() % 2)
			ok = hashmap_remove(&m, hash(v), v) == 1 && !(in[v] = 0);
		else if (!in[v])
			ok = !hashmap_add(&m, hash(v), v) && (in[v] = 1);
	}
	for (i = 1; i < 4096 && ok; i++) {
		uintptr_t v = (uintptr_t)i;

		ok = (hashmap_find(&m, hash(v), same_value, &v) == v) == in[i];
	}
	hashmap_free(&m);
	return ok;
}

static uint64_t full_hash(uintptr_t v)
{
	return hashmap_hash(&v, sizeof(v));
}

/* Three bits: every value meets the others in one run of slots. */
static uint64_t weak_hash(uintptr_t v)
{
	return 1 + (hashmap_hash(&v, sizeof(v)) & 7);
}

/* 64-bit FNV-1a, the tables' hash before: no key. */
static uint64_t fnv1a(const void *p, size_t n)
{
	const uint8_t *b = p;
	uint64_t h = 0xcbf29ce484222325ULL;

	while (n--)
		h = (h ^ *b++) * 0x100000001b3ULL;
	return h;
}

/* 2,000 names, and the table looked up by them. */
static char names[2000][32];

static int same_name(uintptr_t value, const void *key)
{
	return !strcmp(names[value - 1], key);
}

/* Slots a lookup of each name looks at, on average, with @hash. */
static uint64_t probes_per_lookup(size_t nr, uint64_t (*hash)(const char *name))
{
	struct hashmap m = { 0 };
	uint64_t per = UINT64_MAX;
	size_t i;

	for (i = 0; i < nr; i++)
		if (hashmap_add(&m, hash(names[i]), i + 1))
			goto out;
	m.lookups = m.probes = 0;
	for (i = 0; i < nr; i++)
		if (hashmap_find(&m, hash(names[i]), same_name, names[i]) != i + 1)
			goto out;
	per = m.probes / m.lookups;
out:
	hashmap_free(&m);
	return per;
}

static uint64_t keyed(const char *name)
{
	return hashmap_hash(name, strlen(name));
}

static uint64_t unkeyed(const char *name)
{
	return fnv1a(name, strlen(name)) | 1;
}

int main(void)
{
	static const uint64_t k0 = 0x0706050403020100ULL, k1 = 0x0f0e0d0c0b0a0908ULL;
	struct hashmap_hasher h;
	uint64_t want, fnv_cost, cost;
	uint8_t msg[64];
	size_t n, a, b, i, found = 0;
	int ok = 1;

	for (i = 0; i < sizeof(msg); i++)
		msg[i] = (uint8_t)i;
	CHECK(siphash_ref(2, 4, k0, k1, msg, 0) == 0x726fdb47dd0e0e31ULL &&
	      siphash_ref(2, 4, k0, k1, msg, 15) == 0xa129ca6149be45e5ULL,
	      "the reference is SipHash-2-4 with 2 and 4 rounds (the paper's answers)");
	hashmap_set_key(k0, k1);
	for (n = 0; n <= sizeof(msg) && ok; n++) {
		want = siphash_ref(1, 3, k0, k1, msg, n);
		want = want ? want : 1;
		ok = hashmap_hash(msg, n) == want;
		for (a = 0; a <= n && ok; a++)
			for (b = a; b <= n && ok; b++) {
				hashmap_hasher_init(&h);
				hashmap_hasher_add(&h, msg, a);
				hashmap_hasher_add(&h, msg + a, b - a);
				hashmap_hasher_add(&h, msg + b, n - b);
				ok = hashmap_hasher_end(&h) == want;
			}
	}
	CHECK(ok, "hashmap_hash() is SipHash-1-3 of 0 to 64 bytes, fed whole or in any three pieces");

	CHECK(table_agrees(200000, full_hash), "200,000 random adds, finds and removes agree");
	CHECK(table_agrees(20000, weak_hash),
	      "... and 20,000 with a 3-bit hash, every value in one run of slots");

	/*
	 * Names whose unkeyed FNV-1a hashes share their low 12 bits, as a
	 * user could choose the names of the files they map: in a table
	 * hashed so, every lookup walks the one run they make; keyed, they
	 * spread like any others.
	 */
	for (i = 0; found < 2000 && i < 100000000; i++) {
		snprintf(names[found], sizeof(names[found]), "/tmp/f%zu", i);
		if (!(fnv1a(names[found], strlen(names[found])) & 0xfff))
			found++;
	}
	CHECK(found == 2000, "2,000 names whose FNV-1a hashes end in the same 12 bits");
	fnv_cost = probes_per_lookup(found, unkeyed);
	cost = probes_per_lookup(found, keyed);
	CHECK(fnv_cost > 100, "... hashed by FNV-1a, a lookup looks at %llu slots on average",
	      (unsigned long long)fnv_cost);
	CHECK(cost <= 4, "... in the keyed table, at %llu", (unsigned long long)cost);
	return tap_done();
}
