/* SPDX-License-Identifier: GPL-2.0 */
/*
 * userspace/hash.h - the one hash of the tool's tables: 64-bit FNV-1a.
 * Not keyed: the tables that hash names from elsewhere bound their
 * probes (side.c) or their chains' cost (merge.c) instead.
 */
#ifndef MMAP3_HASH_H
#define MMAP3_HASH_H

#include <stddef.h>
#include <stdint.h>

#define FNV1A_INIT	0xcbf29ce484222325ULL

/* @n bytes at @p into the running hash @h (FNV1A_INIT to start). */
static inline uint64_t fnv1a(const void *p, size_t n, uint64_t h)
{
	const uint8_t *b = p;

	while (n--)
		h = (h ^ *b++) * 0x100000001b3ULL;
	return h;
}

#endif /* MMAP3_HASH_H */
