// SPDX-License-Identifier: GPL-2.0
/*
 * Sessions: each open file of /dev/mmap3 has its own output (buffer,
 * filter, clock, captured files) and gets every record that passes it.
 * This is control: it configures a session and starts and stops the
 * producers for it; records reach the session through the sink.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/cred.h>
#include <linux/log2.h>
#include <linux/module.h>
#include <linux/pid_namespace.h>
#include <linux/sched.h>
#include <linux/slab.h>

#include "cache.h"
#include "hook.h"
#include "kapi.h"
#include "resolve.h"
#include "session.h"

#define MMAP3_BUFFER_SIZE_DEFAULT	(4U << 20)

static unsigned int max_sessions = 64;
module_param(max_sessions, uint, 0444);
MODULE_PARM_DESC(max_sessions, "Sessions open at once (default 64)");

static unsigned long max_buffer_size = 256UL << 20;
module_param(max_buffer_size, ulong, 0444);
MODULE_PARM_DESC(max_buffer_size,
		 "Largest session buffer in bytes, up to 1 GiB (default 256 MiB)");

static atomic_t nr_sessions = ATOMIC_INIT(0);

struct mmap3_session *mmap3_session_create(void)
{
	struct mmap3_session *s;

	if (atomic_inc_return(&nr_sessions) > max_sessions) {
		atomic_dec(&nr_sessions);
		return ERR_PTR(-EMFILE);
	}
	s = kzalloc(sizeof(*s), GFP_KERNEL_ACCOUNT);
	if (!s) {
		atomic_dec(&nr_sessions);
		return ERR_PTR(-ENOMEM);
	}
	mutex_init(&s->config_lock);
	mutex_init(&s->read_lock);
	mmap3_output_init(&s->out, task_active_pid_ns(current), current_cred(),
			  mmap3_current_may_see_kaddr());
	return s;
}

void mmap3_session_destroy(struct mmap3_session *s)
{
	mutex_lock(&s->config_lock);
	mmap3_session_disable(s);
	mutex_unlock(&s->config_lock);
	mmap3_dump_free(&s->dump);
	mmap3_output_destroy(&s->out);
	kfree(s);
	atomic_dec(&nr_sessions);
}

int mmap3_session_set_buffer_size(struct mmap3_session *s, u64 size)
{
	lockdep_assert_held(&s->config_lock);
	if (size < MMAP3_BUFFER_SIZE_MIN || size > MMAP3_BUFFER_SIZE_MAX ||
	    size > max_buffer_size || !is_power_of_2(size))
		return -EINVAL;
	/* What its reader has not had yet, a pending loss included, stays. */
	if (s->enabled || mmap3_ring_used(&s->out.ring) || s->out.ring.lost_pending)
		return -EBUSY;
	return mmap3_ring_alloc(&s->out.ring, size);
}

int mmap3_session_set_filter(struct mmap3_session *s, const struct mmap3_filter *f)
{
	u32 i;

	lockdep_assert_held(&s->config_lock);
	if ((f->flags & ~(MMAP3_FILTER_DATA | MMAP3_FILTER_CAPTURE | MMAP3_FILTER_INHERIT |
			  MMAP3_FILTER_DERIVED)) ||
	    f->__reserved ||
	    f->nr_pids > MMAP3_FILTER_MAX_PIDS)
		return -EINVAL;
	for (i = 0; i < f->nr_pids; i++)
		if (f->pids[i] <= 0)
			return -EINVAL;
	if (s->enabled)
		return -EBUSY;
	mmap3_output_set_filter(&s->out, f);
	return 0;
}

int mmap3_session_set_clock(struct mmap3_session *s, int clock)
{
	lockdep_assert_held(&s->config_lock);
	switch (clock) {
	case MMAP3_CLOCK_LOCAL:
	case CLOCK_MONOTONIC:
	case CLOCK_MONOTONIC_RAW:
	case CLOCK_REALTIME:
	case CLOCK_BOOTTIME:
	case CLOCK_TAI:
		break;
	default:
		return -EINVAL;
	}
	if (s->enabled)
		return -EBUSY;
	s->out.clock = clock;
	return 0;
}

static bool wants_data(const struct mmap3_session *s)
{
	return s->out.filter.flags & MMAP3_FILTER_DATA;
}

/*
 * The KERNEL record goes in before the output is attached, so it is the
 * first; the hook is registered before the dump starts, so a mapping
 * made meanwhile is seen live if not dumped.
 */
int mmap3_session_enable(struct mmap3_session *s)
{
	struct mmap3_record_kernel krec;
	struct mmap3_time now;
	int ret;

	lockdep_assert_held(&s->config_lock);
	if (s->enabled)
		return -EBUSY;
	if (!s->out.ring.size) {
		ret = mmap3_session_set_buffer_size(s, min_t(unsigned long,
							     rounddown_pow_of_two(max_buffer_size),
							     MMAP3_BUFFER_SIZE_DEFAULT));
		if (ret)
			return ret;
	}
	ret = mmap3_dump_prepare(&s->dump);
	if (ret)
		return ret;
	ret = mmap3_hook_get(wants_data(s));
	if (ret)
		return ret;
	WRITE_ONCE(s->out.closing, false);
	mmap3_kernel_record(&krec);
	mmap3_time_now(&now);
	krec.header.time = mmap3_output_time(&s->out, &now);
	ret = mmap3_sink_attach(&s->out, &krec.header);
	if (ret) {
		mmap3_hook_put(wants_data(s));
		return ret;
	}
	WRITE_ONCE(s->ended, false);
	WRITE_ONCE(s->enabled, true);
	mmap3_dump_start(&s->dump, &s->out, wants_data(s));
	return 0;
}

int mmap3_session_disable(struct mmap3_session *s)
{
	u64 seq, unserved;

	lockdep_assert_held(&s->config_lock);
	if (!s->enabled)
		return 0;
	mmap3_dump_stop(&s->dump);
	/* Everything mapped before the call gets in, or is counted lost. */
	seq = mmap3_hook_flush();
	mmap3_sink_detach(&s->out);
	/* Still waiting for their files when the flush gave up: lost to it. */
	unserved = mmap3_resolve_unserved(&s->out, seq);
	if (unserved)
		mmap3_output_lost(&s->out, MMAP3_LOST_UNRESOLVED, unserved);
	mmap3_output_flush_lost(&s->out);
	mmap3_hook_put(wants_data(s));
	WRITE_ONCE(s->ended, true);
	WRITE_ONCE(s->enabled, false);
	/* A reader waiting for records sees the end. */
	mmap3_output_wake(&s->out);
	return 0;
}

void mmap3_session_flush(struct mmap3_session *s)
{
	mmap3_hook_flush();
	mmap3_output_wake(&s->out);
}

void mmap3_session_stats(struct mmap3_session *s, struct mmap3_stats *st)
{
	mmap3_output_stats(&s->out, st);
	mmap3_hook_stats(st);
	mmap3_cache_stats(st);
	mmap3_resolve_stats(st);
}

int mmap3_session_init(void)
{
	if (max_buffer_size < MMAP3_BUFFER_SIZE_MIN || max_buffer_size > MMAP3_BUFFER_SIZE_MAX) {
		pr_err("max_buffer_size must be 64 KiB to 1 GiB\n");
		return -EINVAL;
	}
	return 0;
}
