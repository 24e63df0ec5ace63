// SPDX-License-Identifier: GPL-2.0
/*
 * The sink: the outputs of the enabled sessions, and what every record
 * goes through on its way into one: the session's filter, its pid
 * namespace (pids as it sees them), its clock, the kernel-address rule,
 * its captured files, its buffer and the count of what it lost.
 *
 * Records are shared by the outputs: a mapping's is found once (struct
 * mmap3_record_mmap_src) and written into each output's buffer in
 * place, a module's is copied in; the session's fields are written into
 * that copy.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/cred.h>
#include <linux/fs.h>
#include <linux/kdev_t.h>
#include <linux/kprobes.h>
#include <linux/mman.h>
#include <linux/mutex.h>
#include <linux/pid_namespace.h>
#include <linux/rculist.h>
#include <linux/slab.h>
#include <linux/timekeeping.h>

#include "lineage.h"
#include "sink.h"

/*
 * The attached outputs.  sink_lock (a mutex: delivering may allocate a
 * capture handle) serializes attach, detach and delivery; the list is
 * also walked under RCU by mmap3_sink_wants().
 */
static LIST_HEAD(sink_outputs);
static DEFINE_MUTEX(sink_lock);
/*
 * An attached output takes every executable mapping (no pid filter, the
 * initial pid namespace): mmap3_sink_wants() need not walk the outputs
 * for one, as it would for each mapping of a machine-wide session.  Set
 * under sink_lock after the output is listed, recomputed after one is
 * unlisted; a stale answer costs a walk, or the work on an event no
 * output then takes.
 */
static bool sink_takes_all_exec;

/* Mappings the hook could not queue, ever; folded into outputs as they emit. */
static atomic64_t sink_queue_lost = ATOMIC64_INIT(0);

void mmap3_output_init(struct mmap3_output *out, struct pid_namespace *pid_ns,
		       const struct cred *cred, bool show_kaddr)
{
	memset(out, 0, sizeof(*out));
	INIT_LIST_HEAD(&out->node);
	mmap3_ring_init(&out->ring);
	mmap3_capture_init(&out->capture, cred);
	init_waitqueue_head(&out->wait);
	init_waitqueue_head(&out->room_wait);
	out->pid_ns = get_pid_ns(pid_ns);
	out->show_kaddr = show_kaddr;
	out->queue_lost_seen = atomic64_read(&sink_queue_lost);
	out->clock = MMAP3_CLOCK_LOCAL;
	out->filter.size = sizeof(out->filter);
}

static void output_put_pids(struct mmap3_output *out)
{
	u32 i;

	for (i = 0; i < MMAP3_FILTER_MAX_PIDS; i++) {
		put_pid(out->pids[i]);
		out->pids[i] = NULL;
	}
}

void mmap3_output_destroy(struct mmap3_output *out)
{
	output_put_pids(out);
	mmap3_capture_destroy(&out->capture);
	put_pid_ns(out->pid_ns);
	mmap3_ring_free(&out->ring);
}

u64 mmap3_output_time(const struct mmap3_output *out, const struct mmap3_time *t)
{
	enum tk_offsets offs;

	switch (out->clock) {
	case CLOCK_MONOTONIC:
		return t->mono;
	case CLOCK_MONOTONIC_RAW:
		return t->raw;
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
		return t->local;
	}
	/* Offsets now, not at the mmap: a clock step in between shows. */
	return ktime_to_ns(ktime_mono_to_any(ns_to_ktime(t->mono), offs));
}

/*
 * Under ->ring.lock: count the hook's queue losses since the last look,
 * if attached: losses while a session is not enabled are not its own.
 */
static void fold_queue_lost(struct mmap3_output *out)
{
	u64 n = atomic64_read(&sink_queue_lost) - out->queue_lost_seen;

	if (n && out->attached) {
		out->queue_lost_seen += n;
		out->lost[MMAP3_LOST_QUEUE] += n;
		mmap3_ring_lost(&out->ring, n);
	}
}

void mmap3_output_lost(struct mmap3_output *out, enum mmap3_loss cause, u64 n)
{
	spin_lock(&out->ring.lock);
	out->lost[cause] += n;
	mmap3_ring_lost(&out->ring, n);
	spin_unlock(&out->ring.lock);
}

/*
 * Is there room for @size bytes, with a quarter of the buffer left to
 * live records?  For the dump's wait: unlocked, a hint.
 */
static bool room_for_dump(struct mmap3_output *out, u32 size)
{
	u64 used = READ_ONCE(out->ring.head) - mmap3_ring_tail_hint(&out->ring);

	return used + 2 * size <= out->ring.size - out->ring.size / 4;
}

/*
 * How long the dump waits for room while its reader reads nothing: past
 * that the reader is taken as stalled, and the rest of the dump goes in
 * only where there is room, the rest counted lost (MMAP3_LOST_BUFFER).
 * The dump holds the files it took of a process until their records are
 * written: their openers' locks and write counts must not wait on a
 * reader that sleeps.
 */
#define DUMP_STALL_MS		10000

/* Wait for room for the dump's @size bytes, while the reader reads. */
static void wait_room_for_dump(struct mmap3_output *out, u32 size)
{
	unsigned long deadline = jiffies + msecs_to_jiffies(DUMP_STALL_MS);
	u64 tail = mmap3_ring_tail_hint(&out->ring), now;

	/* The reader makes room: it must be awake to. */
	mmap3_output_wake(out);
	/*
	 * A mapped reader says it made room at its next poll(); one that
	 * never polls is looked at now and then.
	 */
	while (!wait_event_idle_timeout(out->room_wait, READ_ONCE(out->closing) ||
					room_for_dump(out, size), HZ / 10)) {
		now = mmap3_ring_tail_hint(&out->ring);
		if (now != tail) {
			tail = now;
			deadline = jiffies + msecs_to_jiffies(DUMP_STALL_MS);
		} else if (time_after(jiffies, deadline)) {
			WRITE_ONCE(out->reader_stalled, true);
			return;
		}
	}
}

/*
 * Room for @size bytes in the output's buffer, for the caller to write a
 * record stamped @time into; NULL if it was lost.  Returns with
 * ->ring.lock held either way: the caller commits (or not) and unlocks
 * with output_commit().
 */
static void *output_room(struct mmap3_output *out, u32 size, u64 time, bool wait)
	__acquires(&out->ring.lock)
{
	void *room;

	if (wait && !READ_ONCE(out->reader_stalled) && !room_for_dump(out, size))
		wait_room_for_dump(out, size);
	spin_lock(&out->ring.lock);
	room = mmap3_ring_reserve(&out->ring, size, time);
	if (!room)
		out->lost[MMAP3_LOST_BUFFER]++;
	return room;
}

/* output_room(), with @size bytes of @rec copied in, stamped @time. */
static void *output_reserve(struct mmap3_output *out, const void *rec, u32 size, u64 time,
			    bool wait)
	__acquires(&out->ring.lock)
{
	struct mmap3_record_header *copy = output_room(out, size, time, wait);

	if (copy) {
		memcpy(copy, rec, size);
		copy->time = time;
	}
	return copy;
}

static bool output_commit(struct mmap3_output *out, void *copy, u32 size)
	__releases(&out->ring.lock)
{
	if (copy) {
		mmap3_ring_commit(&out->ring, size);
		out->records++;
		out->bytes += size;
		out->wake_pending = true;
	}
	spin_unlock(&out->ring.lock);
	return copy;
}

/*
 * Is @pid (held by the caller, so not freed and reused meanwhile) one of
 * the processes @out's filter names?  By address: a number, even of a
 * pid still held, may name another process once its own is released.
 */
static bool output_names(const struct mmap3_output *out, const struct pid *pid)
{
	u32 i;

	for (i = 0; i < out->filter.nr_pids; i++)
		if (out->pids[i] == pid)
			return true;
	return false;
}

/* Does one of @roots, a process's followed parents, belong to @out? */
static bool output_follows(const struct mmap3_output *out, struct pid *const *roots)
{
	u32 i;

	if (!(out->filter.flags & MMAP3_FILTER_INHERIT))
		return false;
	for (i = 0; i < MMAP3_EVENT_ROOTS && roots[i]; i++)
		if (output_names(out, roots[i]))
			return true;
	return false;
}

static bool output_wants(const struct mmap3_output *out, const struct mmap3_event *ev,
			 pid_t *tgid)
{
	const struct mmap3_filter *f = &out->filter;
	pid_t nr = pid_nr_ns(ev->tgid, out->pid_ns);

	if (!nr)
		return false;		/* not in the session's pid namespace */
	if (!(ev->prot & PROT_EXEC) && !(f->flags & MMAP3_FILTER_DATA))
		return false;
	if (f->nr_pids && !output_names(out, ev->tgid) && !output_follows(out, ev->roots))
		return false;
	*tgid = nr;
	return true;
}

bool mmap3_output_wants_process(const struct mmap3_output *out, struct pid *tgid,
				struct pid *const *roots)
{
	const struct mmap3_filter *f = &out->filter;

	if (!pid_nr_ns(tgid, out->pid_ns))
		return false;
	return !f->nr_pids || output_names(out, tgid) || output_follows(out, roots);
}

bool mmap3_output_wants(const struct mmap3_output *out, const struct mmap3_event *ev)
{
	pid_t tgid;

	return output_wants(out, ev, &tgid);
}

/*
 * Written in place in an output's buffer, which a mapped reader sees
 * once committed: every byte of it, padding too.  A string's last word
 * (its NUL and padding: it starts at most at the NUL) is zeroed first,
 * then the string is copied over its start.
 */
static void write_mmap(struct mmap3_record_mmap *rec, const struct mmap3_record_mmap_src *src)
{
	const struct mmap3_event *ev = src->ev;
	struct inode *inode = file_inode(ev->file);
	u32 at = ALIGN(sizeof(*rec) + src->path_len + 1, MMAP3_RECORD_ALIGN);
	struct mmap3_mmap_ns *ns = (void *)rec + at;
	u32 ns_size = src->size - at;

	memset(rec, 0, sizeof(*rec));
	rec->header.type = MMAP3_RECORD_MMAP;
	rec->header.size = src->size;
	rec->cpu = ev->cpu;
	rec->prot = ev->prot;
	rec->flags = src->flags;
	rec->addr = ev->start;
	rec->len = ev->len;
	rec->pgoff = ev->pgoff;
	rec->dev_major = MAJOR(inode->i_sb->s_dev);
	rec->dev_minor = MINOR(inode->i_sb->s_dev);
	rec->ino = inode->i_ino;
	rec->generation = inode->i_generation;
	rec->mtime_sec = src->st->mtime.tv_sec;
	rec->mtime_nsec = src->st->mtime.tv_nsec;
	rec->build_id = *src->bid;
	memset((void *)rec + at - MMAP3_RECORD_ALIGN, 0, MMAP3_RECORD_ALIGN);
	memcpy(rec->path, src->path, src->path_len);

	/* Who mapped it: after the path, where older tools stop reading. */
	memset(ns, 0, sizeof(*ns));
	memset((void *)ns + ns_size - MMAP3_RECORD_ALIGN, 0, MMAP3_RECORD_ALIGN);
	memcpy(ns->root_path, src->root_path, src->root_len);
	ns->size = ns_size;
	ns->mnt_ns = ev->mnt_ns;
	ns->cgroup = ev->cgroup;
}

/*
 * A session that did not ask for derived build-ids (MMAP3_FILTER_DERIVED)
 * is told what tools before 2.5 were: the file has no GNU note.
 */
static const struct mmap3_record_mmap_src *
output_ids(const struct mmap3_output *out, const struct mmap3_record_mmap_src *src,
	   struct mmap3_record_mmap_src *copy, struct mmap3_build_id *none)
{
	if (src->bid->status != MMAP3_BUILDID_FOUND || src->bid->kind == MMAP3_BUILDID_GNU ||
	    (out->filter.flags & MMAP3_FILTER_DERIVED))
		return src;
	*none = (struct mmap3_build_id){ .status = MMAP3_BUILDID_NO_NOTE };
	*copy = *src;
	copy->bid = none;
	return copy;
}

bool mmap3_output_mmap(struct mmap3_output *out, const struct mmap3_record_mmap_src *asked,
		       bool wait)
{
	struct mmap3_record_mmap_src copy;
	struct mmap3_build_id none;
	const struct mmap3_record_mmap_src *src = output_ids(out, asked, &copy, &none);
	const struct mmap3_event *ev = src->ev;
	struct mmap3_record_mmap *rec;
	u32 handle = 0, root_owned = 0;
	u64 time;
	pid_t tgid;

	if (!output_wants(out, ev, &tgid))
		return true;
	if (out->filter.flags & MMAP3_FILTER_CAPTURE)
		handle = mmap3_capture_offer(&out->capture, ev->file, ev->tgid, src->bid);
	if (handle && mmap3_capture_root_owned(ev->file))
		root_owned = MMAP3_MMAP_ROOT_OWNED;
	time = mmap3_output_time(out, &ev->time);
	rec = output_room(out, src->size, time, wait);
	if (rec) {
		write_mmap(rec, src);
		rec->header.time = time;
		rec->pid = tgid;
		rec->tid = ev->pid ? pid_nr_ns(ev->pid, out->pid_ns) : tgid;
		rec->capture = handle;
		rec->flags |= root_owned;
	}
	if (output_commit(out, rec, src->size))
		return true;
	if (handle)
		mmap3_capture_withdraw(&out->capture, handle);
	return false;
}

bool mmap3_output_module(struct mmap3_output *out, struct mmap3_record_module *rec,
			 const struct mmap3_time *t, bool wait)
{
	struct mmap3_record_module *copy;

	copy = output_reserve(out, rec, sizeof(*rec), mmap3_output_time(out, t), wait);
	if (copy && !out->show_kaddr) {
		copy->text_addr = 0;
		copy->text_size = 0;
	}
	return output_commit(out, copy, sizeof(*rec));
}

bool mmap3_output_emit(struct mmap3_output *out, struct mmap3_record_header *rec, bool wait)
{
	return output_commit(out, output_reserve(out, rec, rec->size, rec->time, wait),
			     rec->size);
}

void mmap3_output_wake(struct mmap3_output *out)
{
	out->wake_pending = false;
	wake_up_interruptible(&out->wait);
}

void mmap3_output_consumed(struct mmap3_output *out)
{
	wake_up(&out->room_wait);
}

void mmap3_output_sync_reader(struct mmap3_output *out)
{
	bool moved;

	spin_lock(&out->ring.lock);
	moved = mmap3_ring_sync_tail(&out->ring);
	spin_unlock(&out->ring.lock);
	if (moved)
		mmap3_output_consumed(out);
}

void mmap3_output_close(struct mmap3_output *out)
{
	WRITE_ONCE(out->closing, true);
	wake_up(&out->room_wait);
}

void mmap3_output_flush_lost(struct mmap3_output *out)
{
	struct mmap3_time now;

	mmap3_time_now(&now);
	spin_lock(&out->ring.lock);
	fold_queue_lost(out);
	mmap3_ring_flush_lost(&out->ring, mmap3_output_time(out, &now));
	spin_unlock(&out->ring.lock);
}

/*
 * Under sink_lock: publish the roots of every attached output that
 * follows children, and @extra's (being attached; NULL if none).
 */
static int lineage_update(struct mmap3_output *extra)
{
	struct mmap3_output *out;
	unsigned int n = 0, i;
	struct pid **pids;
	int ret;

	list_for_each_entry(out, &sink_outputs, node)
		if (out->filter.flags & MMAP3_FILTER_INHERIT)
			n += out->filter.nr_pids;
	if (extra)
		n += extra->filter.nr_pids;
	if (!n)
		return mmap3_lineage_set(NULL, 0);
	pids = kmalloc_array(n, sizeof(*pids), GFP_KERNEL_ACCOUNT);
	if (!pids)
		return -ENOMEM;
	n = 0;
	/* Those that were gone at SET_FILTER (NULL) have no descendants to follow. */
	list_for_each_entry(out, &sink_outputs, node)
		if (out->filter.flags & MMAP3_FILTER_INHERIT)
			for (i = 0; i < out->filter.nr_pids; i++)
				if (out->pids[i])
					pids[n++] = out->pids[i];
	for (i = 0; extra && i < extra->filter.nr_pids; i++)
		if (extra->pids[i])
			pids[n++] = extra->pids[i];
	ret = mmap3_lineage_set(pids, n);
	kfree(pids);
	return ret;
}

void mmap3_output_set_filter(struct mmap3_output *out, const struct mmap3_filter *f)
{
	u32 i;

	output_put_pids(out);
	out->filter = *f;
	out->filter.size = sizeof(out->filter);
	/* The processes the numbers name now; a later one of the same number is another. */
	rcu_read_lock();
	for (i = 0; i < f->nr_pids; i++)
		out->pids[i] = get_pid(find_pid_ns(f->pids[i], out->pid_ns));
	rcu_read_unlock();
}

static bool output_takes_all_exec(const struct mmap3_output *out)
{
	return !out->filter.nr_pids && out->pid_ns == &init_pid_ns;
}

/* Under sink_lock. */
static void update_takes_all(void)
{
	struct mmap3_output *out;
	bool all = false;

	list_for_each_entry(out, &sink_outputs, node)
		all |= output_takes_all_exec(out);
	WRITE_ONCE(sink_takes_all_exec, all);
}

int mmap3_sink_attach(struct mmap3_output *out, struct mmap3_record_header *first)
{
	int ret;

	mutex_lock(&sink_lock);
	if (out->filter.flags & MMAP3_FILTER_INHERIT) {
		ret = lineage_update(out);
		if (ret) {
			mutex_unlock(&sink_lock);
			return ret;
		}
	}
	/* First in the buffer, before any live record can be. */
	if (first)
		mmap3_output_emit(out, first, false);
	/* Losses from before are not this session's. */
	spin_lock(&out->ring.lock);
	out->queue_lost_seen = atomic64_read(&sink_queue_lost);
	out->attached = true;
	spin_unlock(&out->ring.lock);
	list_add_tail_rcu(&out->node, &sink_outputs);
	update_takes_all();
	mutex_unlock(&sink_lock);
	return 0;
}

void mmap3_sink_detach(struct mmap3_output *out)
{
	mutex_lock(&sink_lock);
	/* The hook's losses while it was attached are its own; none after. */
	spin_lock(&out->ring.lock);
	fold_queue_lost(out);
	out->attached = false;
	spin_unlock(&out->ring.lock);
	list_del_rcu(&out->node);
	update_takes_all();
	/* Out of memory, the previous roots stay: more walked, nothing wrong. */
	if (out->filter.flags & MMAP3_FILTER_INHERIT)
		lineage_update(NULL);
	mutex_unlock(&sink_lock);
	/* No mmap3_sink_wants() walker is still looking at it. */
	synchronize_rcu();
	INIT_LIST_HEAD(&out->node);
}

bool mmap3_sink_any(void)
{
	return !list_empty(&sink_outputs);
}

bool mmap3_sink_wants(const struct mmap3_event *ev)
{
	struct mmap3_output *out;
	bool wants = false;
	pid_t tgid;

	if ((ev->prot & PROT_EXEC) && READ_ONCE(sink_takes_all_exec))
		return true;
	rcu_read_lock();
	list_for_each_entry_rcu(out, &sink_outputs, node) {
		if (output_wants(out, ev, &tgid)) {
			wants = true;
			break;
		}
	}
	rcu_read_unlock();
	return wants;
}

void mmap3_sink_mmap(const struct mmap3_record_mmap_src *src)
{
	struct mmap3_output *out;

	mutex_lock(&sink_lock);
	list_for_each_entry(out, &sink_outputs, node)
		mmap3_output_mmap(out, src, false);
	mutex_unlock(&sink_lock);
}

void mmap3_sink_module(struct mmap3_record_module *rec, const struct mmap3_time *t)
{
	struct mmap3_output *out;

	mutex_lock(&sink_lock);
	list_for_each_entry(out, &sink_outputs, node) {
		mmap3_output_module(out, rec, t, false);
		mmap3_output_wake(out);
	}
	mutex_unlock(&sink_lock);
}

/*
 * The end of a worker run: what the hook could not queue is counted now,
 * after the records of what it had queued, which came before the losses.
 */
void mmap3_sink_wake(void)
{
	struct mmap3_output *out;

	mutex_lock(&sink_lock);
	list_for_each_entry(out, &sink_outputs, node) {
		spin_lock(&out->ring.lock);
		fold_queue_lost(out);
		spin_unlock(&out->ring.lock);
		if (out->wake_pending)
			mmap3_output_wake(out);
	}
	mutex_unlock(&sink_lock);
}

/*
 * Records delivered outside the worker's batch: their readers are woken
 * now, or they would sleep until an unrelated mapping comes.  The hook's
 * losses are left to the batch, which counts them after the records of
 * what it had queued.
 */
void mmap3_sink_wake_readers(void)
{
	struct mmap3_output *out;

	mutex_lock(&sink_lock);
	list_for_each_entry(out, &sink_outputs, node)
		if (out->wake_pending)
			mmap3_output_wake(out);
	mutex_unlock(&sink_lock);
}

void mmap3_sink_queue_lost(void)
{
	atomic64_inc(&sink_queue_lost);
}

/* Called by the hook, in the probed function's path: a probe here would recurse. */
NOKPROBE_SYMBOL(mmap3_sink_queue_lost);

void mmap3_sink_queue_lost_add(u64 n)
{
	atomic64_add(n, &sink_queue_lost);
}

u64 mmap3_sink_queue_lost_count(void)
{
	return atomic64_read(&sink_queue_lost);
}

void mmap3_output_stats(struct mmap3_output *out, struct mmap3_stats *st)
{
	spin_lock(&out->ring.lock);
	fold_queue_lost(out);
	st->records = out->records;
	st->lost_buffer = out->lost[MMAP3_LOST_BUFFER];
	st->lost_queue = out->lost[MMAP3_LOST_QUEUE];
	st->lost_nomem = out->lost[MMAP3_LOST_NOMEM];
	st->lost_dump = out->lost[MMAP3_LOST_DUMP];
	st->lost_unresolved = out->lost[MMAP3_LOST_UNRESOLVED];
	st->lost = st->lost_buffer + st->lost_queue + st->lost_nomem + st->lost_dump +
		   st->lost_unresolved;
	st->bytes = out->bytes;
	st->buffer_size = out->ring.size;
	mmap3_ring_sync_tail(&out->ring);
	st->buffer_used = mmap3_ring_used(&out->ring);
	spin_unlock(&out->ring.lock);
	st->captures_held = READ_ONCE(out->capture.held);
	st->captures_refused = READ_ONCE(out->capture.refused);
	st->captures_denied = READ_ONCE(out->capture.denied);
	st->memory = st->buffer_size + (READ_ONCE(out->ring.ctl_page) ? PAGE_SIZE : 0) +
		     mmap3_capture_memory(&out->capture);
}
