/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Minimal TAP output for the host unit tests: one "ok"/"not ok" line per
 * CHECK, a plan at the end, exit status 1 if anything failed.
 */
#ifndef MMAP3_TAP_H
#define MMAP3_TAP_H

#include <stdio.h>

static int tap_n, tap_failed;

/* @cond is evaluated once: it may create files or read them. */
#define CHECK(cond, ...) do {							\
	int tap_ok_ = !!(cond);							\
									\
	tap_n++;								\
	if (tap_ok_) {								\
		printf("ok %d ", tap_n);					\
	} else {								\
		tap_failed++;							\
		printf("not ok %d ", tap_n);					\
	}									\
	printf(__VA_ARGS__);							\
	printf("\n");								\
	if (!tap_ok_)								\
		printf("# %s:%d: failed: %s\n", __FILE__, __LINE__, #cond);	\
} while (0)

static inline int tap_done(void)
{
	printf("1..%d\n", tap_n);
	return tap_failed ? 1 : 0;
}

#endif /* MMAP3_TAP_H */
