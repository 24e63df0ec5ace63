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
 *      read: a work item that opens the file anew, as its mapper could
 *      (the mapper's credentials), and reads it.  At most slow_readers
 *      run at once, one per filesystem (see struct slow_read).  The
 *      parked records go out when the read ends, or with
 *      MMAP3_BUILDID_TIMEOUT at its deadline (read_timeout_ms),
 *      whichever comes first: live ones from the reader or the
 *      deadline's work, which never wait for room in a buffer; a dump's
 *      ones from the dump itself (mmap3_resolve_drain()), which may wait
 *      for its reader.  A read that never ends holds one work item, as
 *      it would any process reading that file, and keeps the module
 *      loaded (rmmod fails with EBUSY until the filesystem lets go); past
 *      its deadline it no longer counts against slow_readers, mappings
 *      of its filesystem get TIMEOUT at once, and every other
 *      filesystem keeps flowing.
 *
 * Every read of a file counts against a per-file budget (parser reads,
 * calls to the filesystem, bytes); a file that needs more is
 * MMAP3_BUILDID_LIMIT, cached until the file changes.  A record's
 * build-id is of the state its mtime and flags name: a file that changed
 * while it was read is read again (parse_file()).  Files are read
 * through an open of the module's own (wrapper/fs.h), never through the
 * mapper's struct file, whose leases, locks and write count are the
 * user's.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/cred.h>
#include <linux/file.h>
#include <linux/fs.h>
#include <linux/iversion.h>
#include <linux/list.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/user_namespace.h>
#include <linux/wait.h>
#include <linux/workqueue.h>

#include "cache.h"
#include "container.h"
#include "elf_buildid.h"
#include "record.h"
#include "resolve.h"
#include "sink.h"
#include "wrapper/fs.h"
#include "wrapper/mm.h"
#include "wrapper/slab.h"

static unsigned int slow_readers = 4;
module_param(slow_readers, uint, 0444);
MODULE_PARM_DESC(slow_readers, "Files read from their filesystem at once (default 4)");

/*
 * Per-file budget: a real file needs 1 to 3 reads of a page or less, each
 * one call to its filesystem, or a few where the filesystem returns short
 * reads (a FUSE daemon answering a byte at a time would else cost a
 * round trip per byte).
 */
#define PARSE_MAX_READS		ELF_BUILDID_MAX_READS
#define PARSE_MAX_BYTES		ELF_BUILDID_MAX_BYTES
#define PARSE_MAX_CALLS		64

/*
 * An ELF file with no build-id note gets one from its bytes
 * (MMAP3_BUILDID_CONTENT), read whole, a page at a time, once per state
 * of the file like any parse: files up to this size.  Reading it may
 * take the filesystem calls of its pages, twice over for short reads.
 */
static unsigned int content_id_max_mb = ELF_BUILDID_CONTENT_MAX_MB;
module_param(content_id_max_mb, uint, 0444);
MODULE_PARM_DESC(content_id_max_mb,
		 "Largest ELF file without a build-id note given one from its bytes, in MiB (0: none; default 16)");
/* Parses of a file that changed while it was read, before giving up. */
#define PARSE_TRIES		3
/*
 * Slow reads waiting to start, in all and for one user; running (those
 * past their deadline, stuck in their filesystem, included) in all; and
 * events waiting for them.
 */
#define MAX_SLOW_WAITING	256
#define MAX_SLOW_WAITING_USER	64
#define MAX_SLOW_RUNNING	64
#define MAX_PARKED		4096
/*
 * Events one accountable user may have waiting, and the users who may
 * have some at once: a user mapping one hung file over and over takes a
 * quarter of MAX_PARKED at most, and others' cold files still wait for
 * their reads.
 */
#define MAX_PARKED_USER		(MAX_PARKED / 4)
#define PARKED_USERS		64

/*
 * A file being read by a slow reader, or waiting to be.  A read starts,
 * oldest first, when a reader is free, no other read of its filesystem
 * (superblock) is running, and its user has fewer than slow_readers
 * running.  So a filesystem that never answers holds one reader, and
 * only until the deadline: then the read stops counting against
 * slow_readers and its user's share of them (it still counts against
 * MAX_SLOW_RUNNING), and later reads of that filesystem get TIMEOUT at
 * once, while it is stuck.  A read that has not started by its deadline never does.
 *
 * The user is whoever is accountable for the mapper's credentials: their
 * fsuid, or in a user namespace the owner of its outermost ancestor
 * below the initial one (the uids a user maps into a namespace are one
 * user).
 */
struct slow_read {
	struct list_head node;		/* in slow_reads until done */
	struct list_head running;	/* in slow_running while SLOW_RUNNING */
	struct list_head waiters;	/* struct parked, oldest first */
	struct mmap3_file_id id;	/* the file, never the mapper's struct file */
	const struct cred *cred;	/* the first mapper's: read as it could */
	kuid_t user;			/* accountable for it */
	struct mmap3_inode_state state;	/* the inode's when the read was asked */
	enum { SLOW_WAITING, SLOW_RUNNING, SLOW_DONE } phase;
	bool expired;			/* the deadline passed: waiters are served */
	unsigned long deadline;		/* jiffies */
	struct work_struct work;	/* the read, on slow_wq */
	struct delayed_work expire;	/* the deadline, on expire_wq */
};

/* An event waiting for a slow read. */
struct parked {
	struct list_head node;		/* in its slow_read's waiters, then in parked_served */
	struct list_head all;		/* in parked_all while waiting */
	unsigned int *user_count;	/* its user's in parked_users, while waiting */
	u64 seq;
	struct mmap3_event ev;
	struct mmap3_output *out;	/* NULL: live, to every output; else a dump's */
	/* A dump's, once served: what its record says. */
	struct mmap3_build_id bid;
	struct mmap3_inode_state st;
};

/*
 * slow_lock protects the slow reads, their counts and phases, their
 * waiters and the parked lists and counts.  It is never held around a
 * read, an allocation or a record.
 */
static DEFINE_SPINLOCK(slow_lock);
static LIST_HEAD(slow_reads);		/* oldest first */
/* The running ones, at most MAX_SLOW_RUNNING: what a read to start is checked against. */
static LIST_HEAD(slow_running);
static LIST_HEAD(parked_all);		/* every parked event, oldest first */
static LIST_HEAD(parked_served);	/* dumps' events served, for their dump to emit */
static u64 parked_seq;
static unsigned int nr_waiting, nr_running, nr_running_live, nr_parked;
/* Users with events waiting, and how many each (a free slot: count 0). */
static struct {
	kuid_t user;
	unsigned int count;
} parked_users[PARKED_USERS];
/* Live events taken off parked_all and not yet emitted: flushes wait. */
static unsigned int nr_serving;
static DECLARE_WAIT_QUEUE_HEAD(parked_wait);

/* Up to MAX_SLOW_RUNNING reads; the scheduling is dispatch()'s. */
static struct workqueue_struct *slow_wq;
/* Deadlines: never held up by a read. */
static struct workqueue_struct *expire_wq;
/* The deadline's work writes records: one record buffer, under expire_lock. */
static DEFINE_MUTEX(expire_lock);
static struct mmap3_resolver expire_resolver;

static atomic64_t stat_hits, stat_misses, stat_cached, stat_slow, stat_timeout;
static atomic64_t stat_parse[MMAP3_BUILDID_NR_STATUS];

int mmap3_resolver_init(struct mmap3_resolver *r)
{
	r->last = (struct mmap3_container_last){ };
	r->path = (struct mmap3_record_path_memo){ };
	r->id = (struct mmap3_resolver_last_id){ };
	r->batch = false;
	r->win = kmalloc(PAGE_SIZE, GFP_KERNEL);
	r->scratch = mmap3_record_scratch_alloc();
	if (r->win && r->scratch)
		return 0;
	mmap3_resolver_destroy(r);
	return -ENOMEM;
}

static void last_id_forget(struct mmap3_resolver_last_id *id)
{
	if (id->file)
		fput(id->file);
	id->file = NULL;
}

void mmap3_resolver_batch(struct mmap3_resolver *r)
{
	mmap3_record_path_memo_forget(&r->path);
	last_id_forget(&r->id);
	r->batch = true;
}

void mmap3_resolver_idle(struct mmap3_resolver *r)
{
	mmap3_container_let_go(&r->last);
	mmap3_record_path_memo_forget(&r->path);
	last_id_forget(&r->id);
	r->batch = false;
}

/* In a batch: the id the cache gave for @ev's inode in its state, if kept. */
static const struct mmap3_build_id *last_id_find(struct mmap3_resolver *r,
						 const struct mmap3_event *ev)
{
	const struct mmap3_resolver_last_id *id = &r->id;

	if (!id->file || file_inode(id->file) != file_inode(ev->file) ||
	    !mmap3_inode_state_equal(&id->state, &ev->state))
		return NULL;
	return &id->bid;
}

/* In a batch: keep the id the cache gave for @ev's inode in its state. */
static void last_id_keep(struct mmap3_resolver *r, const struct mmap3_event *ev,
			 const struct mmap3_build_id *bid)
{
	struct mmap3_resolver_last_id *id = &r->id;

	if (!r->batch)
		return;
	if (!id->file || file_inode(id->file) != file_inode(ev->file)) {
		last_id_forget(id);
		id->file = get_file(ev->file);
	}
	id->state = ev->state;
	id->bid = *bid;
}

void mmap3_resolver_destroy(struct mmap3_resolver *r)
{
	mmap3_resolver_idle(r);
	kfree(r->win);
	kfree(r->scratch);
	r->win = NULL;
	r->scratch = NULL;
}

/* How the parser reads a file: its page cache alone, or our own open. */
struct file_reader {
	struct address_space *mapping;	/* page cache only, if no @file */
	struct file *file;
	unsigned long deadline;		/* jiffies: with @file, give up after */
	unsigned int reads;		/* the parser's */
	unsigned int calls;		/* to the filesystem */
	unsigned int max_calls;		/* 0: PARSE_MAX_CALLS */
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
		ssize_t n;

		if (++fr->calls > (fr->max_calls ?: PARSE_MAX_CALLS))
			return ELF_BUILDID_READ_LIMIT;
		/* Its records went out with TIMEOUT: no one waits for more. */
		if (time_after(jiffies, fr->deadline))
			return -ETIMEDOUT;
		n = kernel_read(fr->file, buf + done, len - done, &pos);
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

static long content_read(void *ctx, void *buf, size_t len, __u64 off)
{
	/* A page at a time, up to content_id_max_mb of them. */
	cond_resched();
	return file_reader_read(ctx, buf, len, off);
}

/*
 * An ELF file without a note: its identity from its bytes, if it is small
 * enough.  Read by a slow reader only, even from the page cache: the
 * whole file is the work of many parses, which the worker must not do
 * for every user's files, and slow readers are bounded per user and per
 * filesystem.  False if the worker should leave it to one; *@parsed
 * unchanged if the file could not be read whole (it stays NO_NOTE).
 */
static bool parse_content(struct mmap3_resolver *r, struct file_reader *fr, loff_t size,
			  struct elf_buildid *parsed)
{
	struct elf_buildid content;

	if (!size || size > (loff_t)content_id_max_mb << 20)
		return true;
	if (!fr->file)
		return false;
	fr->calls = 0;
	fr->max_calls = PARSE_MAX_CALLS + 2 * (DIV_ROUND_UP(size, PAGE_SIZE));
	elf_buildid_content(content_read, fr, size, &content, r->win, PAGE_SIZE);
	fr->max_calls = 0;
	if (content.status == MMAP3_BUILDID_FOUND)
		*parsed = content;
	return true;
}

/*
 * Parse the file read by @fr, of @size bytes.  Returns false if the page
 * cache lacked a page, or the file is a slow reader's to read whole
 * (then nothing is known).
 */
static bool parse(struct mmap3_resolver *r, struct file_reader *fr, loff_t size,
		  struct mmap3_build_id *bid)
{
	struct elf_buildid parsed;

	elf_buildid_parse_buf(parser_read, fr, size, &parsed, r->win, PAGE_SIZE);
	if (parsed.status == MMAP3_BUILDID_IO_ERROR && parsed.error == EAGAIN && !fr->file)
		return false;
	if (parsed.status == MMAP3_BUILDID_NO_NOTE && !parse_content(r, fr, size, &parsed))
		return false;
	memset(bid, 0, sizeof(*bid));
	bid->status = parsed.status;
	bid->size = parsed.size;
	bid->kind = parsed.kind;
	memcpy(bid->data, parsed.id, parsed.size);
	return true;
}

/* The state of @inode now; its next change bumps i_version, where it is kept. */
static void state_now(struct inode *inode, struct mmap3_inode_state *st)
{
	mmap3_inode_state(inode, st);
	if (st->has_iversion)
		st->iversion = inode_query_iversion(inode);
}

/*
 * The build-id of @inode, read by @fr, in the state *@st it is in.  A
 * file that changed while it was read (its state after is not *@st) is
 * read again in its new state, which *@st then says, at most PARSE_TRIES
 * times: the answer is never of bytes of two states, or of a state it
 * does not name.  One that keeps changing is IO_ERROR.  What was read of
 * a state is cached, failed reads excepted.  Returns false if the page
 * cache lacked a page, or the file is a slow reader's (then nothing is
 * known).
 */
static bool parse_file(struct mmap3_resolver *r, struct file_reader *fr, struct inode *inode,
		       struct mmap3_inode_state *st, struct mmap3_build_id *bid)
{
	struct mmap3_inode_state after;
	unsigned int tries = 0;

	for (;;) {
		if (!parse(r, fr, st->size, bid))
			return false;
		state_now(inode, &after);
		if (mmap3_inode_state_equal(st, &after))
			break;
		*st = after;
		if (++tries == PARSE_TRIES) {
			memset(bid, 0, sizeof(*bid));
			bid->status = MMAP3_BUILDID_IO_ERROR;
			break;
		}
		fr->reads = 0;
		fr->calls = 0;
		fr->bytes = 0;
	}
	atomic64_inc(&stat_parse[bid->status]);
	if (bid->status != MMAP3_BUILDID_IO_ERROR)
		mmap3_cache_insert(inode, st, bid);
	return true;
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

/*
 * A dump's record waits for room in its buffer; a live one never waits.
 * The record says the file changed if @st is not the state it was mapped in.
 */
static void emit(struct mmap3_resolver *r, struct mmap3_event *ev,
		 const struct mmap3_build_id *bid, const struct mmap3_inode_state *st,
		 struct mmap3_output *out)
{
	/* Most records are of the state mapped: nothing to compare. */
	bool changed = st != &ev->state && !mmap3_inode_state_equal(&ev->state, st);
	struct mmap3_record_mmap_src src;

	mmap3_record_mmap_find(&src, r->scratch, r->batch ? &r->path : NULL, ev, bid, st, changed);
	if (out)
		mmap3_output_mmap(out, &src, true);
	else
		mmap3_sink_mmap(&src);
	mmap3_event_release(ev);
}

static void emit_status(struct mmap3_resolver *r, struct mmap3_event *ev, u8 status,
			struct mmap3_output *out)
{
	struct mmap3_build_id bid = { .status = status };

	if (status == MMAP3_BUILDID_TIMEOUT)
		atomic64_inc(&stat_timeout);
	emit(r, ev, &bid, &ev->state, out);
}

/* Under slow_lock: a read of @inode in state @st asked for, not past its deadline. */
static struct slow_read *find_slow_read(struct inode *inode, const struct mmap3_inode_state *st)
{
	struct slow_read *sr;

	list_for_each_entry(sr, &slow_reads, node)
		if (sr->id.inode == inode && mmap3_inode_state_equal(&sr->state, st))
			return sr;
	return NULL;
}

static kuid_t accountable_user(const struct cred *cred)
{
	const struct user_namespace *ns = cred->user_ns;

	if (ns == &init_user_ns)
		return cred->fsuid;
	while (ns->parent != &init_user_ns)
		ns = ns->parent;
	return ns->owner;
}

/* Under slow_lock: may @sr start, beside the reads running? */
static bool may_start(const struct slow_read *sr)
{
	const struct slow_read *other;
	unsigned int users = 0;

	list_for_each_entry(other, &slow_running, running) {
		if (other->id.inode->i_sb == sr->id.inode->i_sb)
			return false;
		/* Stuck past its deadline, it no longer holds its user's readers. */
		if (!other->expired && uid_eq(other->user, sr->user) && ++users >= slow_readers)
			return false;
	}
	return true;
}

/*
 * Under slow_lock: may a read of @inode for @user wait?  Not if its
 * filesystem is stuck in a read past its deadline, nor beyond the bounds.
 */
static bool may_wait(const struct inode *inode, kuid_t user)
{
	const struct slow_read *other;
	unsigned int users = 0;

	if (nr_waiting >= MAX_SLOW_WAITING)
		return false;
	list_for_each_entry(other, &slow_running, running)
		if (other->expired && other->id.inode->i_sb == inode->i_sb)
			return false;
	list_for_each_entry(other, &slow_reads, node)
		if (other->phase == SLOW_WAITING && uid_eq(other->user, user) &&
		    ++users >= MAX_SLOW_WAITING_USER)
			return false;
	return true;
}

/*
 * Under slow_lock: start the oldest reads that may start.  Each waiting
 * read is checked against the running ones only: at most MAX_SLOW_WAITING
 * times MAX_SLOW_RUNNING steps under the lock, not the square of all.
 */
static void dispatch(void)
{
	struct slow_read *sr;

	list_for_each_entry(sr, &slow_reads, node) {
		if (nr_running_live >= slow_readers || nr_running >= MAX_SLOW_RUNNING)
			return;
		if (sr->phase != SLOW_WAITING || !may_start(sr))
			continue;
		sr->phase = SLOW_RUNNING;
		list_add_tail(&sr->running, &slow_running);
		nr_waiting--;
		nr_running++;
		nr_running_live++;
		queue_work(slow_wq, &sr->work);
	}
}

/*
 * Under slow_lock: take @sr's waiters off every list, with @bid read in
 * state @st (TIMEOUT: with their own state).  A dump's go to
 * parked_served at once, so its drain always finds them on one list or
 * the other; the live ones to @live, for serve_live().
 */
static void take_waiters(struct slow_read *sr, const struct mmap3_build_id *bid,
			 const struct mmap3_inode_state *st, struct list_head *live)
{
	bool timeout = bid->status == MMAP3_BUILDID_TIMEOUT;
	struct parked *p, *tmp;

	list_for_each_entry_safe(p, tmp, &sr->waiters, node) {
		list_del(&p->all);
		nr_parked--;
		--*p->user_count;
		if (!p->out) {
			nr_serving++;
			continue;
		}
		p->bid = *bid;
		p->st = timeout ? p->ev.state : *st;
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
			emit(r, &p->ev, bid, st, NULL);
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

static void slow_read_free(struct slow_read *sr)
{
	mmap3_file_id_put(&sr->id);
	put_cred(sr->cred);
	kfree(sr);
	/*
	 * Last: module exit waits for this function to return
	 * (destroy_workqueue() of the queue it runs on).
	 */
	module_put(THIS_MODULE);
}

static void slow_expire(struct work_struct *work)
{
	struct slow_read *sr = container_of(to_delayed_work(work), struct slow_read, expire);
	const struct mmap3_build_id timeout = { .status = MMAP3_BUILDID_TIMEOUT };
	LIST_HEAD(waiters);
	bool never_started;

	spin_lock(&slow_lock);
	if (sr->phase == SLOW_DONE) {
		/* Its read serves the waiters; it waits for us to return. */
		spin_unlock(&slow_lock);
		return;
	}
	sr->expired = true;
	take_waiters(sr, &timeout, NULL, &waiters);
	never_started = sr->phase == SLOW_WAITING;
	if (never_started) {
		list_del(&sr->node);
		nr_waiting--;
	} else {
		/* Stuck in its filesystem, perhaps for good: a reader is free. */
		nr_running_live--;
	}
	dispatch();
	spin_unlock(&slow_lock);

	mutex_lock(&expire_lock);
	serve_live(&expire_resolver, &waiters, &timeout, NULL);
	mutex_unlock(&expire_lock);
	if (never_started)
		slow_read_free(sr);
}

/* Read @sr's file in state *@st, as its mapper could. */
static void read_slowly(struct mmap3_resolver *r, struct slow_read *sr,
			struct mmap3_inode_state *st, struct mmap3_build_id *bid)
{
	struct file_reader fr = { .deadline = sr->deadline };
	const struct cred *old;

	old = override_creds(sr->cred);
	fr.file = mmap3_file_id_open(&sr->id, sr->cred);
	if (!IS_ERR(fr.file)) {
		parse_file(r, &fr, sr->id.inode, st, bid);
		fput(fr.file);
	}
	revert_creds(old);
	atomic64_inc(&stat_slow);
}

static void slow_read(struct work_struct *work)
{
	struct slow_read *sr = container_of(work, struct slow_read, work);
	struct mmap3_build_id bid = { .status = MMAP3_BUILDID_IO_ERROR };
	struct mmap3_inode_state st = sr->state;
	struct mmap3_resolver r;
	LIST_HEAD(waiters);

	if (!mmap3_resolver_init(&r))
		read_slowly(&r, sr, &st, &bid);

	spin_lock(&slow_lock);
	list_del(&sr->node);
	list_del(&sr->running);
	nr_running--;
	if (!sr->expired)
		nr_running_live--;
	sr->phase = SLOW_DONE;
	take_waiters(sr, &bid, &st, &waiters);
	dispatch();
	spin_unlock(&slow_lock);
	/* The deadline's work may be serving waiters: it found none to take. */
	cancel_delayed_work_sync(&sr->expire);

	if (r.scratch) {
		serve_live(&r, &waiters, &bid, &st);
	} else {
		mutex_lock(&expire_lock);
		serve_live(&expire_resolver, &waiters, &bid, &st);
		mutex_unlock(&expire_lock);
	}
	mmap3_resolver_destroy(&r);
	slow_read_free(sr);
}

/*
 * Under slow_lock: @user's count of events waiting, with room for one
 * more; NULL if they have MAX_PARKED_USER, or PARKED_USERS others have
 * some.
 */
static unsigned int *parked_user_room(kuid_t user)
{
	unsigned int i, *free = NULL;

	for (i = 0; i < PARKED_USERS; i++) {
		if (parked_users[i].count && uid_eq(parked_users[i].user, user))
			return parked_users[i].count < MAX_PARKED_USER ?
			       &parked_users[i].count : NULL;
		if (!parked_users[i].count && !free) {
			free = &parked_users[i].count;
			parked_users[i].user = user;
		}
	}
	return free;
}

/*
 * Hand @ev to a slow read of its file (in state @now).  Returns false if
 * it cannot wait (the file's read is past its deadline, or too much is
 * waiting already): the caller emits it with TIMEOUT.
 */
static bool park(struct mmap3_event *ev, const struct mmap3_inode_state *now,
		 struct mmap3_output *out)
{
	struct inode *inode = file_inode(ev->file);
	kuid_t user = accountable_user(ev->cred);
	struct slow_read *sr, *new;
	struct parked *p;

	p = kmalloc_obj(*p, GFP_KERNEL_ACCOUNT);
	new = kmalloc_obj(*new, GFP_KERNEL_ACCOUNT);
	if (!p || !new)
		goto fail;
	p->ev = *ev;
	p->out = out;
	/* Outside slow_lock: iput() and path_put() may sleep. */
	mmap3_file_id_get(&new->id, ev->file);

	spin_lock(&slow_lock);
	p->user_count = parked_user_room(user);
	if (nr_parked >= MAX_PARKED || !p->user_count)
		goto fail_unlock;
	sr = find_slow_read(inode, now);
	if (!sr) {
		if (!may_wait(inode, user) || !try_module_get(THIS_MODULE))
			goto fail_unlock;
		sr = new;
		new = NULL;
		INIT_LIST_HEAD(&sr->waiters);
		sr->cred = get_cred(ev->cred);
		sr->user = user;
		sr->state = *now;
		sr->phase = SLOW_WAITING;
		sr->expired = false;
		sr->deadline = jiffies + msecs_to_jiffies(mmap3_read_timeout_ms);
		INIT_WORK(&sr->work, slow_read);
		INIT_DELAYED_WORK(&sr->expire, slow_expire);
		list_add_tail(&sr->node, &slow_reads);
		nr_waiting++;
		queue_delayed_work(expire_wq, &sr->expire, msecs_to_jiffies(mmap3_read_timeout_ms));
		dispatch();
	} else if (sr->expired) {
		goto fail_unlock;	/* it did not answer in time: don't pile up */
	}
	p->seq = ++parked_seq;
	list_add_tail(&p->node, &sr->waiters);
	list_add_tail(&p->all, &parked_all);
	nr_parked++;
	++*p->user_count;
	spin_unlock(&slow_lock);
	if (new) {
		mmap3_file_id_put(&new->id);
		kfree(new);
	}
	return true;

fail_unlock:
	spin_unlock(&slow_lock);
	if (new)
		mmap3_file_id_put(&new->id);
fail:
	kfree(p);
	kfree(new);
	return false;
}

void mmap3_resolve(struct mmap3_resolver *r, struct mmap3_event *ev, struct mmap3_output *out)
{
	struct inode *inode = file_inode(ev->file);
	struct file_reader fr = { .mapping = ev->file->f_mapping };
	const struct mmap3_build_id *kept;
	struct mmap3_inode_state now;
	struct mmap3_build_id bid;

	mmap3_container_take(&r->last, ev);
	if (!file_readable(ev->file)) {
		atomic64_inc(&stat_parse[MMAP3_BUILDID_UNREADABLE]);
		emit_status(r, ev, MMAP3_BUILDID_UNREADABLE, out);
		return;
	}
	/* The build-id of what was mapped, read before the file changed. */
	kept = last_id_find(r, ev);
	if (kept) {
		atomic64_inc(&stat_hits);
		emit(r, ev, kept, &ev->state, out);
		return;
	}
	if (mmap3_cache_lookup(inode, &ev->state, &bid)) {
		atomic64_inc(&stat_hits);
		last_id_keep(r, ev, &bid);
		emit(r, ev, &bid, &ev->state, out);
		return;
	}
	atomic64_inc(&stat_misses);
	/* Else the file as it is now, which is what was mapped unless changed. */
	state_now(inode, &now);
	if (!mmap3_inode_state_equal(&ev->state, &now) && mmap3_cache_lookup(inode, &now, &bid)) {
		emit(r, ev, &bid, &now, out);
		return;
	}
	if (parse_file(r, &fr, inode, &now, &bid)) {
		atomic64_inc(&stat_cached);
		emit(r, ev, &bid, &now, out);
		return;
	}
	if (!park(ev, &now, out))
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

u64 mmap3_resolve_unserved(const struct mmap3_output *out, u64 seq)
{
	struct parked *p;
	u64 n = 0;

	spin_lock(&slow_lock);
	list_for_each_entry(p, &parked_all, all) {
		if (p->seq > seq)
			break;
		if (!p->out && mmap3_output_wants(out, &p->ev))
			n++;
	}
	spin_unlock(&slow_lock);
	return n;
}

u64 mmap3_resolve_flush(void)
{
	u64 seq;

	spin_lock(&slow_lock);
	seq = parked_seq;
	spin_unlock(&slow_lock);
	/* Each is served by its deadline; the margin covers writing them. */
	wait_event_timeout(parked_wait, !live_parked_before(seq),
			   msecs_to_jiffies(mmap3_read_timeout_ms) + HZ);
	return seq;
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
			emit(r, &p->ev, &p->bid, &p->st, out);
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
	st->reads_in_flight = READ_ONCE(nr_waiting) + READ_ONCE(nr_running);
	st->reads_parked = READ_ONCE(nr_parked);
	for (i = 0; i < MMAP3_BUILDID_NR_STATUS && i < ARRAY_SIZE(st->parse); i++)
		st->parse[i] = atomic64_read(&stat_parse[i]);
}

int mmap3_resolve_init(void)
{
	int ret;

	if (!slow_readers || !mmap3_read_timeout_ms) {
		pr_err("slow_readers and read_timeout_ms must not be 0\n");
		return -EINVAL;
	}
	ret = mmap3_resolver_init(&expire_resolver);
	if (ret)
		return ret;
	slow_wq = alloc_workqueue("mmap3_slow", WQ_UNBOUND, MAX_SLOW_RUNNING);
	expire_wq = alloc_workqueue("mmap3_expire", WQ_UNBOUND, 0);
	if (!slow_wq || !expire_wq) {
		if (slow_wq)
			destroy_workqueue(slow_wq);
		if (expire_wq)
			destroy_workqueue(expire_wq);
		mmap3_resolver_destroy(&expire_resolver);
		return -ENOMEM;
	}
	return 0;
}

/*
 * Every slow read held a module reference: none is left, but the last
 * may still be returning from slow_read_free().
 */
void mmap3_resolve_exit(void)
{
	destroy_workqueue(slow_wq);
	destroy_workqueue(expire_wq);
	mmap3_resolver_destroy(&expire_resolver);
}
