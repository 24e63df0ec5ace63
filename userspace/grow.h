/* SPDX-License-Identifier: GPL-2.0 */
/*
 * userspace/grow.h - a buffer that grows: room for more bytes, doubling.
 */
#ifndef MMAP3_GROW_H
#define MMAP3_GROW_H

#include <stdint.h>
#include <stdlib.h>

/*
 * Room for @need more bytes after @len in *@buf of *@cap bytes, doubling
 * from @first: 0, or -1 out of memory (*@buf unchanged).
 */
static inline int grow(uint8_t **buf, size_t *cap, size_t len, size_t need, size_t first)
{
	size_t c = *cap ? *cap : first;
	uint8_t *n;

	if (*cap - len >= need)
		return 0;
	while (c - len < need) {
		if (c > SIZE_MAX / 2)
			return -1;
		c *= 2;
	}
	n = realloc(*buf, c);
	if (!n)
		return -1;
	*buf = n;
	*cap = c;
	return 0;
}

#endif /* MMAP3_GROW_H */
