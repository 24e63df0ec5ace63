// SPDX-License-Identifier: GPL-2.0
/*
 * Sessions: each open file of /dev/mmap3 has its own buffer, filter and
 * clock, and gets every record that passes them.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/cred.h>
#include <linux/capability.h>
#include <linux/kernel.h>
#include <linux/list.h>
#include <linux/mman.h>
#include <linux/mutex.h>
#include <linux/pid_namespace.h>
#include <linux/poll.h>
#include <linux/sched.h>
#include <linux/sched/clock.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/timekeeping.h>
#include <linux/uaccess.h>
#include <linux/vmalloc.h>
#include <linux/wait.h>

#include "mmap3.h"

#define MMAP3_BUFFER_SIZE_DEFAULT	(4U << 20)

/*
 * The enabled sessions.  mmap3_sessions_lock protects the list and each
 * session's ->enabled; it is held while records are delivered to the
 * list (by the worker and the module notifier, both process context) and
 * nests inside a session's config_lock.
 */
static LIST_HEAD(mmap3_sessions);
static DEFINE_MUTEX(mmap3_sessions_lock);

struct mmap3_session {
	struct list_head node;		/* in mmap3_sessions while enabled */
	struct pid_namespace *pid_ns;	/* of the opener, for pids and filters */
	bool show_kaddr;		/* may the opener see kernel addresses? */

	/*
	 * config_lock serializes the ioctls of one session; ->clock,
	 * ->filter and the buffer's allocation change only under it and only
	 * while the session is disabled, so producers read them unlocked.
	 */
	struct mutex config_lock;
	bool enabled;			/* also under mmap3_sessions_lock */
	int clock;
	struct mmap3_filter filter;

	/* One reader at a time; it copies out without holding ->lock. */
	struct mutex read_lock;

	/*
	 * The buffer: ->lock protects the indexes and counters, and writes
	 * into the buffer.  Bytes in [tail, head) belong to the reader, which
	 * copies them out unlocked and then advances ->tail under ->lock;
	 * producers only write into [head, tail + size).
	 */
	spinlock_t lock;
	void *buf;
	u64 size;			/* a power of two */
	u64 head;			/* bytes ever written */
	u64 tail;			/* bytes ever read */
	u64 lost_pending;		/* lost since the last LOST record */
	u64 queue_lost_seen;		/* mmap3_hook_lost() already counted */
	u64 records;
	u64 lost;
	u64 bytes;
	wait_queue_head_t wait;

	struct mmap3_keep keep;		/* with MMAP3_FILTER_CAPTURE */
};

static u64 session_time(const struct mmap3_session *s, const struct mmap3_event *ev)
{
	enum tk_offsets offs;

	switch (s->clock) {
	case CLOCK_MONOTONIC:
		return ev->time_mono;
	case CLOCK_MONOTONIC_RAW:
		return ev->time_raw;
	case CLOCK_REALTIME:
		offs = TK_OFFS_REAL;
		break;
	case CLOCK_BOOTTIME:
		offs = TK_OFFS_BOOT;
		break;
	case CLOCK_TAI:
		offs = TK_OFFS_TAI;
		break;
	default:
		return ev->time_local;
	}
	/* Offsets now, not at the mmap: a clock step in between shows. */
	return ktime_to_ns(ktime_mono_to_any(ns_to_ktime(ev->time_mono), offs));
}

void mmap3_now(struct mmap3_event *ev)
{
	ev->time_local = local_clock();
	ev->time_mono = ktime_get_mono_fast_ns();
	ev->time_raw = ktime_get_raw_fast_ns();
}

/* Copy @len bytes into the ring at byte position @pos, wrapping. */
static void ring_copy_in(struct mmap3_session *s, u64 pos, const void *src, u32 len)
{
	u64 off = pos & (s->size - 1);
	u32 first = min_t(u64, len, s->size - off);

	memcpy(s->buf + off, src, first);
	memcpy(s->buf, src + first, len - first);
}

static void ring_copy_out(const struct mmap3_session *s, u64 pos, void *dst, u32 len)
{
	u64 off = pos & (s->size - 1);
	u32 first = min_t(u64, len, s->size - off);

	memcpy(dst, s->buf + off, first);
	memcpy(dst + first, s->buf, len - first);
}

static int ring_copy_to_user(const struct mmap3_session *s, u64 pos, char __user *dst,
			     u32 len)
{
	u64 off = pos & (s->size - 1);
	u32 first = min_t(u64, len, s->size - off);

	if (copy_to_user(dst, s->buf + off, first) ||
	    copy_to_user(dst + first, s->buf, len - first))
		return -EFAULT;
	return 0;
}

static u64 ring_free(const struct mmap3_session *s)
{
	return s->size - (s->head - s->tail);
}

/* Under ->lock: write a LOST record if there is one to write and room. */
static bool flush_lost_locked(struct mmap3_session *s, u64 time, u32 room_after)
{
	struct mmap3_record_lost lr = {
		.header = {
			.type = MMAP3_RECORD_LOST,
			.size = sizeof(lr),
			.time = time,
		},
	};

	if (!s->lost_pending)
		return true;
	if (ring_free(s) < sizeof(lr) + room_after)
		return false;
	lr.lost = s->lost_pending;
	ring_copy_in(s, s->head, &lr, sizeof(lr));
	s->head += sizeof(lr);
	s->bytes += sizeof(lr);
	s->lost_pending = 0;
	return true;
}

/*
 * Append a record (header.size set, MMAP3_RECORD_ALIGN-aligned) to the
 * session's buffer, after a LOST record if records were lost before it,
 * and wake the reader unless @defer_wake (the worker wakes readers once
 * per run).  Process context.  Returns false if it was lost for want of
 * room.
 */
static bool session_emit(struct mmap3_session *s, struct mmap3_record_header *rec,
			 bool defer_wake)
{
	u64 queue_lost = mmap3_hook_lost();
	bool written = false;

	spin_lock(&s->lock);
	if (queue_lost != s->queue_lost_seen) {
		s->lost_pending += queue_lost - s->queue_lost_seen;
		s->lost += queue_lost - s->queue_lost_seen;
		s->queue_lost_seen = queue_lost;
	}
	if (flush_lost_locked(s, rec->time, rec->size) && ring_free(s) >= rec->size) {
		ring_copy_in(s, s->head, rec, rec->size);
		s->head += rec->size;
		s->bytes += rec->size;
		s->records++;
		written = true;
	} else {
		s->lost_pending++;
		s->lost++;
	}
	spin_unlock(&s->lock);
	if (written && !defer_wake)
		wake_up_interruptible(&s->wait);
	return written;
}

bool mmap3_session_emit(struct mmap3_session *s, struct mmap3_record_header *rec)
{
	return session_emit(s, rec, false);
}

/* Emit a record stamped with the current time in the session's clock. */
bool mmap3_session_emit_now(struct mmap3_session *s, struct mmap3_record_header *rec)
{
	struct mmap3_event now;

	mmap3_now(&now);
	rec->time = session_time(s, &now);
	return mmap3_session_emit(s, rec);
}

bool mmap3_session_wants_data(const struct mmap3_session *s)
{
	return s->filter.flags & MMAP3_FILTER_DATA;
}

static bool session_wants_pid(const struct mmap3_session *s, pid_t tgid)
{
	u32 i;

	if (!s->filter.nr_pids)
		return true;
	for (i = 0; i < s->filter.nr_pids; i++)
		if (s->filter.pids[i] == tgid)
			return true;
	return false;
}

/*
 * Emit a mapping record with the pids and time as this session sees
 * them; a process outside its pid namespace or filter is skipped (and
 * counts as written).  The worker's: the reader is woken by
 * mmap3_sessions_wake() at the end of the worker's run.
 */
bool mmap3_session_emit_mmap(struct mmap3_session *s, const struct mmap3_event *ev,
			     struct mmap3_record_mmap *rec)
{
	pid_t tgid = pid_nr_ns(ev->tgid, s->pid_ns);
	bool written;

	if (!tgid || !session_wants_pid(s, tgid))
		return true;
	if (!(rec->prot & PROT_EXEC) && !mmap3_session_wants_data(s))
		return true;
	rec->pid = tgid;
	rec->tid = pid_nr_ns(ev->pid, s->pid_ns);
	rec->header.time = session_time(s, ev);
	if (!(s->filter.flags & MMAP3_FILTER_CAPTURE))
		return session_emit(s, &rec->header, true);

	/* The record is shared by the sessions: the handle is this one's. */
	rec->capture = mmap3_keep_offer(&s->keep, ev->file, &rec->build_id);
	written = session_emit(s, &rec->header, true);
	if (!written && rec->capture)
		mmap3_keep_withdraw(&s->keep, rec->capture);
	rec->capture = 0;
	return written;
}

/* Emit a module record; kernel addresses only to those who may see them. */
bool mmap3_session_emit_module(struct mmap3_session *s, struct mmap3_record_module *rec)
{
	u64 addr = rec->text_addr, size = rec->text_size;
	struct mmap3_event now;
	bool ret;

	mmap3_now(&now);
	rec->header.time = session_time(s, &now);
	if (!s->show_kaddr) {
		rec->text_addr = 0;
		rec->text_size = 0;
	}
	ret = mmap3_session_emit(s, &rec->header);
	rec->text_addr = addr;
	rec->text_size = size;
	return ret;
}

/* Is any session enabled?  Unlocked: a hint to skip work. */
bool mmap3_sessions_any(void)
{
	return !list_empty_careful(&mmap3_sessions);
}

void mmap3_sessions_deliver_mmap(const struct mmap3_event *ev, struct mmap3_record_mmap *rec)
{
	struct mmap3_session *s;

	mutex_lock(&mmap3_sessions_lock);
	list_for_each_entry(s, &mmap3_sessions, node)
		mmap3_session_emit_mmap(s, ev, rec);
	mutex_unlock(&mmap3_sessions_lock);
}

static bool session_readable(struct mmap3_session *s)
{
	bool ret;

	spin_lock(&s->lock);
	ret = s->head != s->tail;
	spin_unlock(&s->lock);
	return ret;
}

/* Wake the readers of the sessions that have records. */
void mmap3_sessions_wake(void)
{
	struct mmap3_session *s;

	mutex_lock(&mmap3_sessions_lock);
	list_for_each_entry(s, &mmap3_sessions, node)
		if (session_readable(s))
			wake_up_interruptible(&s->wait);
	mutex_unlock(&mmap3_sessions_lock);
}

void mmap3_sessions_deliver_module(struct mmap3_record_module *rec)
{
	struct mmap3_session *s;

	mutex_lock(&mmap3_sessions_lock);
	list_for_each_entry(s, &mmap3_sessions, node)
		mmap3_session_emit_module(s, rec);
	mutex_unlock(&mmap3_sessions_lock);
}

/*
 * Would kallsyms show this opener kernel addresses?  The same rule as
 * kallsyms_show_value(), which is not exported: kptr_restrict 0 shows
 * them, 1 only with CAP_SYSLOG, 2 never.
 */
static bool opener_may_see_kaddr(void)
{
	char buf[8] = "";
	struct file *f;
	loff_t pos = 0;
	int restrict_level;

	f = filp_open("/proc/sys/kernel/kptr_restrict", O_RDONLY, 0);
	if (IS_ERR(f))
		return false;
	if (kernel_read(f, buf, sizeof(buf) - 1, &pos) <= 0 ||
	    kstrtoint(strim(buf), 10, &restrict_level))
		restrict_level = 2;
	filp_close(f, NULL);
	if (restrict_level == 0)
		return true;
	return restrict_level == 1 && ns_capable_noaudit(&init_user_ns, CAP_SYSLOG);
}

struct mmap3_session *mmap3_session_create(void)
{
	struct mmap3_session *s = kzalloc(sizeof(*s), GFP_KERNEL);

	if (!s)
		return NULL;
	INIT_LIST_HEAD(&s->node);
	s->pid_ns = get_pid_ns(task_active_pid_ns(current));
	s->show_kaddr = opener_may_see_kaddr();
	mutex_init(&s->config_lock);
	mutex_init(&s->read_lock);
	spin_lock_init(&s->lock);
	init_waitqueue_head(&s->wait);
	s->clock = MMAP3_CLOCK_LOCAL;
	s->filter.size = sizeof(s->filter);
	mmap3_keep_init(&s->keep);
	return s;
}

static int session_set_buffer_size(struct mmap3_session *s, u64 size)
{
	void *buf;

	if (size < MMAP3_BUFFER_SIZE_MIN || size > MMAP3_BUFFER_SIZE_MAX ||
	    !is_power_of_2(size))
		return -EINVAL;
	if (s->enabled || s->head != s->tail)
		return -EBUSY;
	buf = vzalloc(size);
	if (!buf)
		return -ENOMEM;
	vfree(s->buf);
	spin_lock(&s->lock);
	s->buf = buf;
	s->size = size;
	s->head = 0;
	s->tail = 0;
	spin_unlock(&s->lock);
	return 0;
}

static int session_disable(struct mmap3_session *s)
{
	if (!s->enabled)
		return 0;
	/* Everything mapped before the call gets in. */
	mmap3_hook_flush();
	mutex_lock(&mmap3_sessions_lock);
	list_del_init(&s->node);
	s->enabled = false;
	mutex_unlock(&mmap3_sessions_lock);
	mmap3_hook_put(mmap3_session_wants_data(s));

	spin_lock(&s->lock);
	flush_lost_locked(s, local_clock(), 0);
	spin_unlock(&s->lock);
	wake_up_interruptible(&s->wait);
	return 0;
}

static int session_enable(struct mmap3_session *s)
{
	struct mmap3_record_dump_done done = {
		.header = {
			.type = MMAP3_RECORD_DUMP_DONE,
			.size = sizeof(done),
		},
	};
	int ret;

	if (s->enabled)
		return -EBUSY;
	if (!s->buf) {
		ret = session_set_buffer_size(s, MMAP3_BUFFER_SIZE_DEFAULT);
		if (ret)
			return ret;
	}
	/* Hook first, then the dump: nothing falls between them. */
	ret = mmap3_hook_get(mmap3_session_wants_data(s));
	if (ret)
		return ret;
	mutex_lock(&mmap3_sessions_lock);
	s->queue_lost_seen = mmap3_hook_lost();
	list_add_tail(&s->node, &mmap3_sessions);
	s->enabled = true;
	mutex_unlock(&mmap3_sessions_lock);

	ret = mmap3_kernel_dump(s);
	if (!ret)
		ret = mmap3_dump_processes(s, s->pid_ns, mmap3_session_wants_data(s));
	if (ret) {
		session_disable(s);
		return ret;
	}
	mmap3_session_emit_now(s, &done.header);
	return 0;
}

/*
 * Copy an extensible struct (see include/uapi/linux/mmap3.h) whose first
 * member is its __u32 size.  copy_struct_from_user() checks that bytes we
 * do not know are zero, but answers E2BIG where our ABI promises EINVAL.
 */
int mmap3_copy_struct_from_user(void *dst, size_t ksize, const void __user *src,
				size_t min_size, u32 *usize)
{
	int ret;

	if (get_user(*usize, (const u32 __user *)src))
		return -EFAULT;
	if (*usize < min_size || *usize > MMAP3_STRUCT_SIZE_MAX)
		return -EINVAL;
	ret = copy_struct_from_user(dst, ksize, src, *usize);
	return ret == -E2BIG ? -EINVAL : ret;
}

static int session_set_filter(struct mmap3_session *s, void __user *uarg)
{
	struct mmap3_filter f;
	u32 usize, i;
	int ret;

	ret = mmap3_copy_struct_from_user(&f, sizeof(f), uarg, MMAP3_FILTER_SIZE_VER0, &usize);
	if (ret)
		return ret;
	if ((f.flags & ~(MMAP3_FILTER_DATA | MMAP3_FILTER_CAPTURE)) || f.__reserved ||
	    f.nr_pids > MMAP3_FILTER_MAX_PIDS)
		return -EINVAL;
	for (i = 0; i < f.nr_pids; i++)
		if (f.pids[i] <= 0)
			return -EINVAL;
	if (s->enabled)
		return -EBUSY;
	f.size = sizeof(f);
	s->filter = f;
	return 0;
}

static int session_set_clock(struct mmap3_session *s, int __user *uarg)
{
	int clock;

	if (get_user(clock, uarg))
		return -EFAULT;
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
	s->clock = clock;
	return 0;
}

static int session_get_stats(struct mmap3_session *s, void __user *uarg)
{
	struct mmap3_stats st;
	u32 usize;
	int ret;

	ret = mmap3_copy_struct_from_user(&st, sizeof(st), uarg, MMAP3_STATS_SIZE_VER0, &usize);
	if (ret)
		return ret;
	memset(&st, 0, sizeof(st));
	st.size = min_t(u32, usize, sizeof(st));
	spin_lock(&s->lock);
	st.records = s->records;
	st.lost = s->lost;
	st.bytes = s->bytes;
	st.buffer_size = s->size;
	st.buffer_used = s->head - s->tail;
	spin_unlock(&s->lock);
	st.pending = mmap3_hook_pending();
	st.queue_lost = mmap3_hook_lost();
	mmap3_cache_stats(&st);
	if (copy_to_user(uarg, &st, st.size))
		return -EFAULT;
	return 0;
}

long mmap3_session_ioctl(struct mmap3_session *s, unsigned int cmd, void __user *uarg)
{
	u64 size;
	long ret;

	mutex_lock(&s->config_lock);
	switch (cmd) {
	case MMAP3_IOC_SET_BUFFER_SIZE:
		ret = get_user(size, (u64 __user *)uarg) ? -EFAULT :
		      session_set_buffer_size(s, size);
		break;
	case MMAP3_IOC_SET_FILTER:
		ret = session_set_filter(s, uarg);
		break;
	case MMAP3_IOC_SET_CLOCK:
		ret = session_set_clock(s, uarg);
		break;
	case MMAP3_IOC_ENABLE:
		ret = session_enable(s);
		break;
	case MMAP3_IOC_DISABLE:
		ret = session_disable(s);
		break;
	case MMAP3_IOC_FLUSH:
		mmap3_hook_flush();
		ret = 0;
		break;
	case MMAP3_IOC_GET_STATS:
		ret = session_get_stats(s, uarg);
		break;
	case MMAP3_IOC_CAPTURE_READ:
		ret = mmap3_keep_read(&s->keep, uarg);
		break;
	case MMAP3_IOC_CAPTURE_RELEASE:
		ret = mmap3_keep_release(&s->keep, uarg);
		break;
	default:
		ret = -ENOTTY;
		break;
	}
	mutex_unlock(&s->config_lock);
	return ret;
}

/* Read whole records; 0 once the session is disabled and drained. */
ssize_t mmap3_session_read(struct mmap3_session *s, char __user *ubuf, size_t count,
			   bool nonblock)
{
	u64 tail, head, pos;
	ssize_t ret;

	if (mutex_lock_interruptible(&s->read_lock))
		return -ERESTARTSYS;
	for (;;) {
		spin_lock(&s->lock);
		tail = s->tail;
		head = s->head;
		spin_unlock(&s->lock);
		if (head != tail)
			break;
		ret = 0;
		if (!READ_ONCE(s->enabled))
			goto out;
		ret = -EAGAIN;
		if (nonblock)
			goto out;
		ret = -ERESTARTSYS;
		if (wait_event_interruptible(s->wait, session_readable(s) ||
					     !READ_ONCE(s->enabled)))
			goto out;
	}

	for (pos = tail; pos < head; ) {
		struct mmap3_record_header hdr;

		ring_copy_out(s, pos, &hdr, sizeof(hdr));
		if (pos - tail + hdr.size > count)
			break;
		if (ring_copy_to_user(s, pos, ubuf + (pos - tail), hdr.size)) {
			ret = -EFAULT;
			goto out;
		}
		pos += hdr.size;
	}
	ret = pos - tail;
	if (!ret) {
		ret = -EINVAL;		/* the next record does not fit */
		goto out;
	}
	spin_lock(&s->lock);
	s->tail = pos;
	spin_unlock(&s->lock);
out:
	mutex_unlock(&s->read_lock);
	return ret;
}

__poll_t mmap3_session_poll(struct mmap3_session *s, struct file *file,
			    struct poll_table_struct *wait)
{
	poll_wait(file, &s->wait, wait);
	if (session_readable(s))
		return EPOLLIN | EPOLLRDNORM;
	if (!READ_ONCE(s->enabled))
		return EPOLLHUP;
	return 0;
}

void mmap3_session_destroy(struct mmap3_session *s)
{
	mutex_lock(&s->config_lock);
	session_disable(s);
	mutex_unlock(&s->config_lock);
	mmap3_keep_destroy(&s->keep);
	put_pid_ns(s->pid_ns);
	vfree(s->buf);
	kfree(s);
}
