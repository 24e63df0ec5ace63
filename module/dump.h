/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The state dump (dump.c): a producer.
 */
#ifndef MMAP3_DUMP_H
#define MMAP3_DUMP_H

#include <linux/completion.h>
#include <linux/workqueue.h>

#include "resolve.h"

struct mmap3_output;

/* One session's dump, streamed into its output by a work item. */
struct mmap3_dump {
	struct work_struct work;
	struct mmap3_output *out;
	bool data;			/* non-executable mappings too */
	bool stop;			/* the session is closing: give up */
	bool running;
	struct completion done;
	struct mmap3_resolver r;	/* the dump's, kept from one to the next */
};

/* What a dump needs, before its session starts: -ENOMEM if it cannot have it. */
int mmap3_dump_prepare(struct mmap3_dump *d);
void mmap3_dump_free(struct mmap3_dump *d);

/*
 * Start dumping into @out, which is attached: the loaded modules, then
 * the mappings of every process of its pid namespace, then DUMP_DONE.
 */
void mmap3_dump_start(struct mmap3_dump *d, struct mmap3_output *out, bool data);
/* Stop it, if it runs, and wait for it: at most about read_timeout_ms. */
void mmap3_dump_stop(struct mmap3_dump *d);
/* Wait for it to finish by itself. */
void mmap3_dump_wait(struct mmap3_dump *d);

int mmap3_dump_init(void);
void mmap3_dump_exit(void);

#endif /* MMAP3_DUMP_H */
