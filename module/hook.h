/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The mmap hook, its per-CPU queues and worker (hook.c): a producer.
 */
#ifndef MMAP3_HOOK_H
#define MMAP3_HOOK_H

#include <linux/types.h>

struct mmap3_stats;

/*
 * The hook is registered, and its queues allocated, while at least one
 * session is enabled; @data: the session wants non-executable mappings.
 */
int mmap3_hook_get(bool data);
void mmap3_hook_put(bool data);
/*
 * Return once every mapping queued before the call is emitted, or its
 * file's read past the deadline (mmap3_resolve_flush(), whose mark it
 * returns).
 */
u64 mmap3_hook_flush(void);
void mmap3_hook_stats(struct mmap3_stats *st);

int mmap3_hook_init(void);
void mmap3_hook_exit(void);

#endif /* MMAP3_HOOK_H */
