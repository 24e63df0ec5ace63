/* SPDX-License-Identifier: GPL-2.0 */
/*
 * userspace/count.h - counts of what files say: they stop at the
 * largest value instead of wrapping (two LOST records of 2^63 are not 0).
 */
#ifndef MMAP3_COUNT_H
#define MMAP3_COUNT_H

#include <stdint.h>

static inline void count_add(uint64_t *count, uint64_t n)
{
	*count = *count > UINT64_MAX - n ? UINT64_MAX : *count + n;
}

#endif /* MMAP3_COUNT_H */
