/* SPDX-License-Identifier: GPL-2.0 */
/*
 * userspace/pidset.h - the processes perf recorded, as its COMM, FORK,
 * EXIT and MMAP records name them: mmap3's records of others are left
 * out (people attach perf.data to bug reports).
 */
#ifndef MMAP3_PIDSET_H
#define MMAP3_PIDSET_H

#include <stdint.h>

#include "hashmap.h"

struct pidset {
	struct hashmap map;		/* values: pid + 1 */
};

/* 0, or -1 out of memory. */
int pidset_add(struct pidset *s, uint32_t pid);
int pidset_has(struct pidset *s, uint32_t pid);
void pidset_free(struct pidset *s);

#endif /* MMAP3_PIDSET_H */
