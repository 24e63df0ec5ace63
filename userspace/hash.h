/* SPDX-License-Identifier: GPL-2.0 */
/*
 * userspace/hash.h - the tool's hashes.  64-bit FNV-1a for its tables:
 * not keyed, the tables that hash names from elsewhere bound their
 * probes (side.c) or their chains' cost (merge.c) instead.  hash_words(),
 * the same kind of hash eight bytes a step, where a table is asked once
 * per record (side.c's build-id table: FNV-1a's byte a step was half of
 * the tool's instructions per record).  SipHash-2-4, keyed, where whoever
 * wrote the bytes must not be able to make two inputs hash alike
 * (merge's check of what it reads twice).
 */
#ifndef MMAP3_HASH_H
#define MMAP3_HASH_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#define FNV1A_INIT	0xcbf29ce484222325ULL

static inline uint64_t hash_mix(uint64_t h, uint64_t w)
{
	h = (h ^ w) * 0xbf58476d1ce4e5b9ULL;
	return h ^ h >> 31;
}

/*
 * @n bytes at @p into the running hash @h (FNV1A_INIT to start), eight
 * at a time, each mixed by a multiply and a shift (SplitMix64's first
 * step), then @n: past the first eight, the last word read is the last
 * eight bytes (overlapping the one before); fewer, zero-extended.  Not
 * FNV-1a's values: for in-memory tables only.
 */
static inline uint64_t hash_words(const void *p, size_t n, uint64_t h)
{
	const uint8_t *b = p;
	uint64_t w = 0;
	size_t i;

	if (n < 8) {
		for (i = 0; i < n; i++)
			w |= (uint64_t)b[i] << (8 * i);
		return hash_mix(hash_mix(h, w), n);
	}
	for (i = 0; i + 8 < n; i += 8) {
		memcpy(&w, b + i, 8);
		h = hash_mix(h, w);
	}
	memcpy(&w, b + n - 8, 8);
	return hash_mix(hash_mix(h, w), n);
}

/* @n bytes at @p into the running hash @h (FNV1A_INIT to start). */
static inline uint64_t fnv1a(const void *p, size_t n, uint64_t h)
{
	const uint8_t *b = p;

	while (n--)
		h = (h ^ *b++) * 0x100000001b3ULL;
	return h;
}

#define SIPROUND(v0, v1, v2, v3) do {				\
	v0 += v1; v1 = v1 << 13 | v1 >> 51; v1 ^= v0; v0 = v0 << 32 | v0 >> 32; \
	v2 += v3; v3 = v3 << 16 | v3 >> 48; v3 ^= v2;			\
	v0 += v3; v3 = v3 << 21 | v3 >> 43; v3 ^= v0;			\
	v2 += v1; v1 = v1 << 17 | v1 >> 47; v1 ^= v2; v2 = v2 << 32 | v2 >> 32; \
} while (0)

/* SipHash-2-4 of @n bytes at @p under the key (@k0, @k1), little-endian words. */
static inline uint64_t siphash24(uint64_t k0, uint64_t k1, const void *p, size_t n)
{
	uint64_t v0 = k0 ^ 0x736f6d6570736575ULL, v1 = k1 ^ 0x646f72616e646f6dULL;
	uint64_t v2 = k0 ^ 0x6c7967656e657261ULL, v3 = k1 ^ 0x7465646279746573ULL;
	const uint8_t *b = p;
	uint64_t m, last = (uint64_t)n << 56;
	size_t i;

	for (; n >= 8; n -= 8, b += 8) {
		for (m = 0, i = 0; i < 8; i++)
			m |= (uint64_t)b[i] << (8 * i);
		v3 ^= m;
		SIPROUND(v0, v1, v2, v3);
		SIPROUND(v0, v1, v2, v3);
		v0 ^= m;
	}
	for (i = 0; i < n; i++)
		last |= (uint64_t)b[i] << (8 * i);
	v3 ^= last;
	SIPROUND(v0, v1, v2, v3);
	SIPROUND(v0, v1, v2, v3);
	v0 ^= last;
	v2 ^= 0xff;
	for (i = 0; i < 4; i++)
		SIPROUND(v0, v1, v2, v3);
	return v0 ^ v1 ^ v2 ^ v3;
}

#undef SIPROUND

#endif /* MMAP3_HASH_H */
