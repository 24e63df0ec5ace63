// SPDX-License-Identifier: GPL-2.0
/*
 * From a mapped file to its build-id, and the mapping's record out.
 *
 * No file read may hold up other mappings or sessions, whatever its
 * filesystem does (a FUSE daemon that never answers, a dead NFS server).
 * So a producer resolves in three steps, the first two without I/O:
 *
 *   1. the per-inode cache;
 *   2. the page cache alone: the parser reads through the file's page
 *      cache pages, with no filesystem callback; an executable just
 *      mapped almost always has its headers and notes there (the ELF
 *      loader or the dynamic linker read them);
 *   3. otherwise the event is parked and the file handed to a slow
 *      reader: one of at most slow_readers work items that opens the
 *      file anew and reads it.  The parked records go out when the read
 *      ends, or with MMAP3_BUILDID_TIMEOUT at its deadline
 *      (read_timeout_ms), whichever comes first: live ones from the
 *      reader or the deadline's work, which never wait for room in a
 *      buffer; a dump's ones from the dump itself (mmap3_resolve_drain()),
 *      which may wait for its reader.  A read that never ends
 *      blocks one reader, as it would any process reading that file, and
 *      keeps the module loaded (rmmod fails with EBUSY until the
 *      filesystem lets go); mappings of that file meanwhile get TIMEOUT
 *      at once, and every other file keeps flowing.
 *
 * Every read of a file counts against a per-file budget (reads and
 * bytes); a file that needs more is MMAP3_BUILDID_LIMIT, cached until the
 * file changes.  Files are read through an open of the module's own
 * (wrapper/fs.h), never through the mapper's struct file.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/file.h>
#include <linux/fs.h>
#include <linux/iversion.h>
#include <linux/list.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/wait.h>
#include <linux/workqueue.h>

#include "cache.h"
#include "elf_buildid.h"
#include "record.h"
#include "resolve.h"
#include "sink.h"
#include "wrapper/fs.h"
#include "wrapper/mm.h"
#include "wrapper/slab.h"

static unsigned int read_timeout_ms = 1000;
module_param(read_timeout_ms, uint, 0444);
MODULE_PARM_DESC(read_timeout_ms,
		 "Longest wait for a file not in the page cache before its record goes out without a build-id (default 1000)");

static unsigned int slow_readers = 4;
module_param(slow_readers, uint, 0444);
MODULE_PARM_DESC(slow_readers, "Files read from their filesystem at once (default 4)");

/* Per-file budget: a real file needs 1 to 3 reads of a page or less. */
#define PARSE_MAX_READS		16
#define PARSE_MAX_BYTES		(64U << 10)
/* Slow reads running or waiting for a reader, and events waiting for them. */
#define MAX_SLOW_READS		64
#define MAX_PARKED		4096

/* A file being read by a slow reader. */
struct slow_read {
	struct list_head node;		/* in slow_reads */
	struct list_head waiters;	/* struct parked, oldest first */
	struct file *file;		/* the mapper's: its path and inode */
	struct mmap3_inode_state state;	/* the inode's when the read was asked */
	bool expired;			/* the deadline passed: waiters are served */
	struct work_struct work;	/* the read, on slow_wq */
	struct delayed_work expire;	/* the deadline, on system_unbound_wq */
};

/* An event waiting for a slow read. */
struct parked {
	struct list_head node;		/* in its slow_read's waiters, then in parked_served */
	struct list_head all;		/* in parked_all while waiting */
	u64 seq;
	struct mmap3_event ev;
	bool changed;			/* the file changed since the mmap */
	struct mmap3_output *out;	/* NULL: live, to every output; else a dump's */
	/* A dump's, once served: what its record says. */
	struct mmap3_build_id bid;
	struct mmap3_inode_state st;
};

/*
 * slow_lock protects the slow reads, their waiters and the parked lists
 * and counts.  It is never held around a read, an allocation or a record.
 */
static DEFINE_SPINLOCK(slow_lock);
static LIST_HEAD(slow_reads);
static LIST_HEAD(parked_all);		/* every parked event, oldest first */
static LIST_HEAD(parked_served);	/* dumps' events served, for their dump to emit */
static u64 parked_seq;
static unsigned int nr_slow, nr_parked;
/* Live events taken off parked_all and not yet emitted: flushes wait. */
static unsigned int nr_serving;
static DECLARE_WAIT_QUEUE_HEAD(parked_wait);

static struct workqueue_struct *slow_wq;
/* The deadline's work writes records: one record buffer, under expire_lock. */
static DEFINE_MUTEX(expire_lock);
static struct mmap3_resolver expire_resolver;

static atomic64_t stat_hits, stat_misses, stat_cached, stat_slow, stat_timeout;
static atomic64_t stat_parse[MMAP3_BUILDID_NR_STATUS];

int mmap3_resolver_init(struct mmap3_resolver *r)
{
	r->win = kmalloc(PAGE_SIZE, GFP_KERNEL);
	r->rec = mmap3_record_mmap_alloc();
	if (r->win && r->rec)
		return 0;
	mmap3_resolver_destroy(r);
	return -ENOMEM;
}

void mmap3_resolver_destroy(struct mmap3_resolver *r)
{
	kfree(r->win);
	kfree(r->rec);
	r->win = NULL;
	r->rec = NULL;
}

/* How the parser reads a file: its page cache alone, or our own open. */
struct file_reader {
	struct address_space *mapping;	/* page cache only, if no @file */
	struct file *file;
	unsigned int reads;
	u32 bytes;
};

/* May fail; lets fail_function test what a failed read becomes. */
static noinline long file_reader_read(struct file_reader *fr, void *buf, size_t len, u64 off)
{
	size_t done = 0;

	if (!fr->file)
		return mmap3_page_cache_copy(fr->mapping, buf, len, off);
	while (done < len) {
		loff_t pos = off + done;
		ssize_t n = kernel_read(fr->file, buf + done, len - done, &pos);

		if (n < 0)
			return n;
		if (!n)
			break;
		done += n;
	}
	return done;
}
ALLOW_ERROR_INJECTION(file_reader_read, ERRNO);

static long parser_read(void *ctx, void *buf, size_t len, __u64 off)
{
	struct file_reader *fr = ctx;

	if (++fr->reads > PARSE_MAX_READS || len > PARSE_MAX_BYTES - fr->bytes)
		return ELF_BUILDID_READ_LIMIT;
	fr->bytes += len;
	return file_reader_read(fr, buf, len, off);
}

/*
 * Parse the file read by @fr, of @size bytes.  Returns false if the page
 * cache lacked a page (then nothing is known).
 */
static bool parse(struct mmap3_resolver *r, struct file_reader *fr, loff_t size,
		  struct mmap3_build_id *bid)
{
	struct elf_buildid parsed;

	elf_buildid_parse_buf(parser_read, fr, size, &parsed, r->win, PAGE_SIZE);
	if (parsed.status == MMAP3_BUILDID_IO_ERROR && parsed.error == EAGAIN && !fr->file)
		return false;
	memset(bid, 0, sizeof(*bid));
	bid->status = parsed.status;
	bid->size = parsed.size;
	memcpy(bid->data, parsed.id, parsed.size);
	atomic64_inc(&stat_parse[parsed.status]);
	return true;
}

/*
 * Remember what was read of @inode in state @st, unless it changed while
 * we read (then the bytes may be of the new state) or the read failed.
 */
static void remember(struct inode *inode, const struct mmap3_inode_state *st,
		     const struct mmap3_build_id *bid)
{
	struct mmap3_inode_state after;

	mmap3_inode_state(inode, &after);
	if (bid->status != MMAP3_BUILDID_IO_ERROR && mmap3_inode_state_equal(st, &after))
		mmap3_cache_insert(inode, st, bid);
}

/*
 * Can the module read it?  A regular file with read_iter (not secret
 * memory), not of a pseudo filesystem: a sysfs resource file is mapped by
 * X servers and DPDK, and reading it reads device registers.
 */
static bool file_readable(struct file *file)
{
	struct inode *inode = file_inode(file);

	return S_ISREG(inode->i_mode) && file->f_op->read_iter &&
	       !(inode->i_sb->s_iflags & SB_I_NOEXEC);
}

/* A dump's record waits for room in its buffer; a live one never waits. */
static void emit(struct mmap3_resolver *r, struct mmap3_event *ev,
		 const struct mmap3_build_id *bid, const struct mmap3_inode_state *st,
		 bool changed, struct mmap3_output *out)
{
	mmap3_record_mmap_fill(r->rec, ev, bid, st, changed);
	if (out)
		mmap3_output_mmap(out, ev, r->rec, true);
	else
		mmap3_sink_mmap(ev, r->rec);
	mmap3_event_release(ev);
}

static void emit_status(struct mmap3_resolver *r, struct mmap3_event *ev, u8 status,
			struct mmap3_output *out)
{
	struct mmap3_build_id bid = { .status = status };

	if (status == MMAP3_BUILDID_TIMEOUT)
		atomic64_inc(&stat_timeout);
	emit(r, ev, &bid, &ev->state, false, out);
}

/* Under slow_lock: a read of @inode in state @st asked for already. */
static struct slow_read *find_slow_read(struct inode *inode, const struct mmap3_inode_state *st)
{
	struct slow_read *sr;

	list_for_each_entry(sr, &slow_reads, node)
		if (file_inode(sr->file) == inode && mmap3_inode_state_equal(&sr->state, st))
			return sr;
	return NULL;
}

/*
 * Under slow_lock: take @sr's waiters off every list, with @bid
 * (TIMEOUT: with their own state).  A dump's go to parked_served at once,
 * so its drain always finds them on one list or the other; the live
 * ones to @live, for serve_live().
 */
static void take_waiters(struct slow_read *sr, const struct mmap3_build_id *bid,
			 const struct mmap3_inode_state *st, struct list_head *live)
{
	bool timeout = bid->status == MMAP3_BUILDID_TIMEOUT;
	struct parked *p, *tmp;

	list_for_each_entry_safe(p, tmp, &sr->waiters, node) {
		list_del(&p->all);
		nr_parked--;
		if (!p->out) {
			nr_serving++;
			continue;
		}
		p->bid = *bid;
		p->st = timeout ? p->ev.state : *st;
		p->changed = !timeout && p->changed;
		list_move_tail(&p->node, &parked_served);
	}
	list_splice_init(&sr->waiters, live);
}

/* Emit the live waiters taken with @bid; wake their readers, flushes and drains. */
static void serve_live(struct mmap3_resolver *r, struct list_head *live,
		       const struct mmap3_build_id *bid, const struct mmap3_inode_state *st)
{
	struct parked *p, *tmp;
	unsigned int n = 0;

	list_for_each_entry_safe(p, tmp, live, node) {
		if (bid->status == MMAP3_BUILDID_TIMEOUT)
			emit_status(r, &p->ev, MMAP3_BUILDID_TIMEOUT, NULL);
		else
			emit(r, &p->ev, bid, st, p->changed, NULL);
		kfree(p);
		n++;
	}
	if (n)
		mmap3_sink_wake_readers();
	spin_lock(&slow_lock);
	nr_serving -= n;
	spin_unlock(&slow_lock);
	wake_up_all(&parked_wait);
}

static void slow_expire(struct work_struct *work)
{
	struct slow_read *sr = container_of(to_delayed_work(work), struct slow_read, expire);
	const struct mmap3_build_id timeout = { .status = MMAP3_BUILDID_TIMEOUT };
	LIST_HEAD(waiters);

	spin_lock(&slow_lock);
	sr->expired = true;
	take_waiters(sr, &timeout, NULL, &waiters);
	spin_unlock(&slow_lock);

	mutex_lock(&expire_lock);
	serve_live(&expire_resolver, &waiters, &timeout, NULL);
	mutex_unlock(&expire_lock);
}

static void slow_read_done(struct slow_read *sr)
{
	fput(sr->file);
	kfree(sr);
	/* Last: module exit waits for this function to return (destroy_workqueue()). */
	module_put(THIS_MODULE);
}

static void slow_read(struct work_struct *work)
{
	struct slow_read *sr = container_of(work, struct slow_read, work);
	struct inode *inode = file_inode(sr->file);
	struct mmap3_build_id bid = { .status = MMAP3_BUILDID_IO_ERROR };
	struct file_reader fr = { };
	struct mmap3_resolver r;
	LIST_HEAD(waiters);

	if (!mmap3_resolver_init(&r)) {
		fr.file = mmap3_open_private(&sr->file->f_path, current_cred());
		if (!IS_ERR(fr.file)) {
			parse(&r, &fr, sr->state.size, &bid);
			fput(fr.file);
			remember(inode, &sr->state, &bid);
		}
		atomic64_inc(&stat_slow);
	}

	spin_lock(&slow_lock);
	list_del(&sr->node);
	nr_slow--;
	take_waiters(sr, &bid, &sr->state, &waiters);
	spin_unlock(&slow_lock);
	/* The deadline's work may be serving waiters: it found none to take. */
	cancel_delayed_work_sync(&sr->expire);

	if (r.rec) {
		serve_live(&r, &waiters, &bid, &sr->state);
	} else {
		mutex_lock(&expire_lock);
		serve_live(&expire_resolver, &waiters, &bid, &sr->state);
		mutex_unlock(&expire_lock);
	}
	mmap3_resolver_destroy(&r);
	slow_read_done(sr);
}

/*
 * Hand @ev to a slow reader of its file (in state @now).  Returns false
 * if it cannot wait (the file's read is past its deadline, or too much
 * is waiting already): the caller emits it with TIMEOUT.
 */
static bool park(struct mmap3_event *ev, const struct mmap3_inode_state *now, bool changed,
		 struct mmap3_output *out)
{
	struct inode *inode = file_inode(ev->file);
	struct slow_read *sr, *new;
	struct parked *p;

	p = kmalloc_obj(*p);
	new = kmalloc_obj(*new);
	if (!p || !new)
		goto fail;
	p->ev = *ev;
	p->changed = changed;
	p->out = out;

	spin_lock(&slow_lock);
	if (nr_parked >= MAX_PARKED)
		goto fail_unlock;
	sr = find_slow_read(inode, now);
	if (sr && sr->expired)
		goto fail_unlock;	/* it did not answer in time: don't pile up */
	if (!sr) {
		if (nr_slow >= MAX_SLOW_READS || !try_module_get(THIS_MODULE))
			goto fail_unlock;
		sr = new;
		new = NULL;
		INIT_LIST_HEAD(&sr->waiters);
		sr->file = get_file(ev->file);
		sr->state = *now;
		sr->expired = false;
		INIT_WORK(&sr->work, slow_read);
		INIT_DELAYED_WORK(&sr->expire, slow_expire);
		list_add_tail(&sr->node, &slow_reads);
		nr_slow++;
		queue_work(slow_wq, &sr->work);
		queue_delayed_work(system_unbound_wq, &sr->expire,
				   msecs_to_jiffies(read_timeout_ms));
	}
	p->seq = ++parked_seq;
	list_add_tail(&p->node, &sr->waiters);
	list_add_tail(&p->all, &parked_all);
	nr_parked++;
	spin_unlock(&slow_lock);
	kfree(new);
	return true;

fail_unlock:
	spin_unlock(&slow_lock);
fail:
	kfree(p);
	kfree(new);
	return false;
}

void mmap3_resolve(struct mmap3_resolver *r, struct mmap3_event *ev, struct mmap3_output *out)
{
	struct inode *inode = file_inode(ev->file);
	struct file_reader fr = { .mapping = ev->file->f_mapping };
	struct mmap3_inode_state now;
	struct mmap3_build_id bid;
	bool changed;

	if (!file_readable(ev->file)) {
		atomic64_inc(&stat_parse[MMAP3_BUILDID_UNREADABLE]);
		emit_status(r, ev, MMAP3_BUILDID_UNREADABLE, out);
		return;
	}
	/* The build-id of what was mapped, read before the file changed. */
	if (mmap3_cache_lookup(inode, &ev->state, &bid)) {
		atomic64_inc(&stat_hits);
		emit(r, ev, &bid, &ev->state, false, out);
		return;
	}
	atomic64_inc(&stat_misses);
	mmap3_inode_state(inode, &now);
	/* Make the next change bump i_version, where it is kept. */
	if (now.has_iversion)
		now.iversion = inode_query_iversion(inode);
	/* Else the file as it is now, which is what was mapped unless changed. */
	changed = !mmap3_inode_state_equal(&ev->state, &now);
	if (changed && mmap3_cache_lookup(inode, &now, &bid)) {
		emit(r, ev, &bid, &now, true, out);
		return;
	}
	if (parse(r, &fr, now.size, &bid)) {
		atomic64_inc(&stat_cached);
		remember(inode, &now, &bid);
		emit(r, ev, &bid, &now, changed, out);
		return;
	}
	if (!park(ev, &now, changed, out))
		emit_status(r, ev, MMAP3_BUILDID_TIMEOUT, out);
}

/*
 * Is a live event handed over up to @seq still parked, or being emitted?
 * (Those being emitted may be later ones: they are done in a moment.)
 */
static bool live_parked_before(u64 seq)
{
	struct parked *p;
	bool ret;

	spin_lock(&slow_lock);
	ret = nr_serving != 0;
	list_for_each_entry(p, &parked_all, all) {
		if (p->seq > seq)
			break;
		if (!p->out) {
			ret = true;
			break;
		}
	}
	spin_unlock(&slow_lock);
	return ret;
}

void mmap3_resolve_flush(void)
{
	u64 seq;

	spin_lock(&slow_lock);
	seq = parked_seq;
	spin_unlock(&slow_lock);
	/* Each is served by its deadline; the margin covers writing them. */
	wait_event_timeout(parked_wait, !live_parked_before(seq),
			   msecs_to_jiffies(read_timeout_ms) + HZ);
}

/* Under slow_lock: does one of @out's events still wait for its read? */
static bool parked_for(struct mmap3_output *out)
{
	struct parked *p;

	list_for_each_entry(p, &parked_all, all)
		if (p->out == out)
			return true;
	return false;
}

/* Under slow_lock: has one of @out's events been served, for the dump to emit? */
static bool served_for(struct mmap3_output *out)
{
	struct parked *p;

	list_for_each_entry(p, &parked_served, node)
		if (p->out == out)
			return true;
	return false;
}

static bool drain_ready(struct mmap3_output *out)
{
	bool ret;

	spin_lock(&slow_lock);
	ret = served_for(out) || !parked_for(out);
	spin_unlock(&slow_lock);
	return ret;
}

void mmap3_resolve_drain(struct mmap3_resolver *r, struct mmap3_output *out)
{
	struct parked *p, *tmp;
	bool waiting;

	for (;;) {
		LIST_HEAD(mine);

		spin_lock(&slow_lock);
		list_for_each_entry_safe(p, tmp, &parked_served, node)
			if (p->out == out)
				list_move_tail(&p->node, &mine);
		waiting = parked_for(out);
		spin_unlock(&slow_lock);
		list_for_each_entry_safe(p, tmp, &mine, node) {
			if (p->bid.status == MMAP3_BUILDID_TIMEOUT)
				atomic64_inc(&stat_timeout);
			emit(r, &p->ev, &p->bid, &p->st, p->changed, out);
			kfree(p);
		}
		if (!waiting)
			return;
		/*
		 * Every parked event is served by its read's deadline, and
		 * serving never waits: this ends within about read_timeout_ms.
		 */
		wait_event_idle(parked_wait, drain_ready(out));
	}
}

void mmap3_resolve_stats(struct mmap3_stats *st)
{
	unsigned int i;

	st->cache_hits = atomic64_read(&stat_hits);
	st->cache_misses = atomic64_read(&stat_misses);
	st->reads_cached = atomic64_read(&stat_cached);
	st->reads_slow = atomic64_read(&stat_slow);
	st->reads_timeout = atomic64_read(&stat_timeout);
	st->reads_in_flight = READ_ONCE(nr_slow);
	st->reads_parked = READ_ONCE(nr_parked);
	for (i = 0; i < MMAP3_BUILDID_NR_STATUS && i < ARRAY_SIZE(st->parse); i++)
		st->parse[i] = atomic64_read(&stat_parse[i]);
}

int mmap3_resolve_init(void)
{
	int ret;

	if (!slow_readers || !read_timeout_ms) {
		pr_err("slow_readers and read_timeout_ms must not be 0\n");
		return -EINVAL;
	}
	ret = mmap3_resolver_init(&expire_resolver);
	if (ret)
		return ret;
	slow_wq = alloc_workqueue("mmap3_slow", WQ_UNBOUND, slow_readers);
	if (!slow_wq) {
		mmap3_resolver_destroy(&expire_resolver);
		return -ENOMEM;
	}
	return 0;
}

/* Every slow read held a module reference: none is left. */
void mmap3_resolve_exit(void)
{
	destroy_workqueue(slow_wq);
	mmap3_resolver_destroy(&expire_resolver);
}
