/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Sessions (session.c): control.  Each open file of /dev/mmap3 is one.
 */
#ifndef MMAP3_SESSION_H
#define MMAP3_SESSION_H

#include <linux/mutex.h>

#include "dump.h"
#include "sink.h"

struct mmap3_session {
	/*
	 * config_lock serializes the ioctls of one session; the output's
	 * configuration and buffer change only under it and only while the
	 * session is disabled.
	 */
	struct mutex config_lock;
	bool enabled;			/* under config_lock; read unlocked */
	bool ended;			/* disabled since its last enable: readers see the end */
	struct mmap3_output out;
	struct mmap3_dump dump;
	struct mutex read_lock;		/* one reader at a time (abi.c) */
};

/* The current task opens a session: its pid namespace and credentials. */
struct mmap3_session *mmap3_session_create(void);
void mmap3_session_destroy(struct mmap3_session *s);

/* Configuration, only while disabled: -EBUSY otherwise. */
int mmap3_session_set_buffer_size(struct mmap3_session *s, u64 size);
int mmap3_session_set_filter(struct mmap3_session *s, const struct mmap3_filter *f);
int mmap3_session_set_clock(struct mmap3_session *s, int clock);

int mmap3_session_enable(struct mmap3_session *s);
int mmap3_session_disable(struct mmap3_session *s);
void mmap3_session_flush(struct mmap3_session *s);
void mmap3_session_stats(struct mmap3_session *s, struct mmap3_stats *st);

int mmap3_session_init(void);

#endif /* MMAP3_SESSION_H */
