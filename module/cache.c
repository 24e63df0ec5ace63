// SPDX-License-Identifier: GPL-2.0
/*
 * Per-inode build-id cache.
 *
 * The kernel tells a module nothing when an inode goes away, so entries
 * are keyed by (superblock, inode number, generation), validated on every
 * lookup against the inode's size, mtime, ctime and i_version (where the
 * filesystem keeps one), and bounded in number (module parameter
 * cache_entries) with CLOCK eviction.  A file rewritten in place is
 * noticed by its changed metadata and read again.
 *
 * Lookups walk an RCU hash chain: no lock, no allocation.  Inserts and
 * removals take cache_lock, a spinlock, which also protects the CLOCK
 * list and the count; entries are freed after a grace period.
 * Everything here runs in process context.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/fs.h>
#include <linux/hash.h>
#include <linux/hashtable.h>
#include <linux/iversion.h>
#include <linux/kprobes.h>
#include <linux/list.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/rculist.h>
#include <linux/slab.h>
#include <linux/spinlock.h>

#include "compat.h"
#include "elf_buildid.h"
#include "mmap3.h"

static unsigned int cache_entries = 16384;
module_param(cache_entries, uint, 0444);
MODULE_PARM_DESC(cache_entries, "Files whose build-id is kept (0: read every time; default 16384)");

/* The hash table: a bucket per entry, from 2^8 up to 2^20 buckets. */
#define MMAP3_CACHE_BITS_MIN	8
#define MMAP3_CACHE_BITS_MAX	20

struct mmap3_cache_entry {
	struct hlist_node hnode;	/* RCU hash chain */
	struct list_head clock;		/* CLOCK order, under cache_lock */
	struct rcu_head rcu;
	const struct super_block *sb;
	u64 ino;
	u32 generation;
	bool referenced;		/* used since the hand last passed */
	struct mmap3_inode_state state;
	struct mmap3_build_id build_id;
};

static struct kmem_cache *cache_slab;
/* Sized by cache_entries at load; chains under RCU, changed under cache_lock. */
static struct hlist_head *cache_hash;
static unsigned int cache_bits;
static LIST_HEAD(cache_clock);
static DEFINE_SPINLOCK(cache_lock);
static unsigned int cache_count;

static atomic64_t stat_hits, stat_misses, stat_evictions, stat_invalidations;
static atomic64_t stat_parse[MMAP3_BUILDID_NR_STATUS];

/* The hash key; the hashtable helpers hash it into a bucket. */
static u64 cache_key(const struct inode *inode)
{
	return (u64)inode->i_ino ^ (unsigned long)inode->i_sb ^ ((u64)inode->i_generation << 32);
}

static struct hlist_head *cache_bucket(u64 key)
{
	return &cache_hash[hash_min(key, cache_bits)];
}

static bool entry_is(const struct mmap3_cache_entry *e, const struct inode *inode)
{
	return e->sb == inode->i_sb && e->ino == (u64)inode->i_ino &&
	       e->generation == inode->i_generation;
}

/*
 * Plain loads only: the hook calls this with in_nmi() true.  A torn read
 * of a timestamp being updated only makes a lookup miss.
 */
void mmap3_inode_state(struct inode *inode, struct mmap3_inode_state *st)
{
	st->size = i_size_read(inode);
	st->mtime = mmap3_inode_mtime(inode);
	st->ctime = mmap3_inode_ctime(inode);
	st->has_iversion = IS_I_VERSION(inode);
	st->iversion = st->has_iversion ? inode_peek_iversion(inode) : 0;
}

/* Called from the kprobe handler: a probe here would recurse. */
NOKPROBE_SYMBOL(mmap3_inode_state);

static bool state_equal(const struct mmap3_inode_state *a, const struct mmap3_inode_state *b)
{
	return a->size == b->size && timespec64_equal(&a->mtime, &b->mtime) &&
	       timespec64_equal(&a->ctime, &b->ctime) &&
	       a->has_iversion == b->has_iversion && a->iversion == b->iversion;
}

/* Under cache_lock. */
static void entry_remove(struct mmap3_cache_entry *e)
{
	hlist_del_init_rcu(&e->hnode);
	list_del(&e->clock);
	cache_count--;
	kfree_rcu(e, rcu);
}

/* Drop an entry whose inode changed; called under rcu_read_lock(). */
static void entry_invalidate(struct mmap3_cache_entry *stale)
{
	spin_lock(&cache_lock);
	/* Unless another thread removed or replaced it meanwhile. */
	if (!hlist_unhashed(&stale->hnode)) {
		entry_remove(stale);
		atomic64_inc(&stat_invalidations);
	}
	spin_unlock(&cache_lock);
}

/*
 * Returns true and fills @bid if an entry exists for the inode in state
 * @st.  An entry for another state of the inode is stale only if @st is
 * the inode's state now: one taken at mmap time may just be older.
 */
static bool cache_lookup(struct inode *inode, const struct mmap3_inode_state *st,
			 struct mmap3_build_id *bid)
{
	struct mmap3_cache_entry *e, *stale = NULL;
	bool hit = false;

	rcu_read_lock();
	hlist_for_each_entry_rcu(e, cache_bucket(cache_key(inode)), hnode) {
		if (!entry_is(e, inode))
			continue;
		if (state_equal(&e->state, st)) {
			*bid = e->build_id;
			WRITE_ONCE(e->referenced, true);
			hit = true;
		} else {
			stale = e;
		}
		break;
	}
	if (stale)
		entry_invalidate(stale);
	rcu_read_unlock();
	return hit;
}

/* Under cache_lock: make room by the CLOCK algorithm. */
static void cache_evict_one(void)
{
	struct mmap3_cache_entry *e;

	while (!list_empty(&cache_clock)) {
		e = list_first_entry(&cache_clock, struct mmap3_cache_entry, clock);
		if (READ_ONCE(e->referenced)) {
			WRITE_ONCE(e->referenced, false);
			list_move_tail(&e->clock, &cache_clock);
			continue;
		}
		entry_remove(e);
		atomic64_inc(&stat_evictions);
		return;
	}
}

static void cache_insert(struct inode *inode, const struct mmap3_inode_state *st,
			 const struct mmap3_build_id *bid)
{
	struct mmap3_cache_entry *e, *old;
	u64 key = cache_key(inode);

	if (!cache_entries)
		return;
	e = kmem_cache_alloc(cache_slab, GFP_KERNEL);
	if (!e)
		return;
	e->sb = inode->i_sb;
	e->ino = inode->i_ino;
	e->generation = inode->i_generation;
	e->referenced = false;
	e->state = *st;
	e->build_id = *bid;

	spin_lock(&cache_lock);
	hlist_for_each_entry(old, cache_bucket(key), hnode) {
		if (entry_is(old, inode)) {
			entry_remove(old);
			break;
		}
	}
	if (cache_count >= cache_entries)
		cache_evict_one();
	hlist_add_head_rcu(&e->hnode, cache_bucket(key));
	list_add_tail(&e->clock, &cache_clock);
	cache_count++;
	spin_unlock(&cache_lock);
}

static long cache_read(void *ctx, void *buf, size_t len, __u64 off)
{
	size_t done = 0;

	while (done < len) {
		loff_t pos = off + done;
		ssize_t n = kernel_read(ctx, buf + done, len - done, &pos);

		if (n < 0)
			return n;
		if (!n)
			break;
		done += n;
	}
	return done;
}

/* Can kernel_read() read it?  Not a pipe, a socket or secret memory. */
static bool file_readable(const struct file *file)
{
	return S_ISREG(file_inode(file)->i_mode) && (file->f_mode & FMODE_READ) &&
	       (file->f_mode & FMODE_CAN_READ) && file->f_op->read_iter;
}

/*
 * The build-id of the file itself, as it was at mmap time (@at_mmap, or
 * now if NULL); may read it (process context).  An entry valid for the
 * inode as it was mapped is served even if the file has changed since,
 * e.g. truncated right after mmap.  On a miss the file is read as it is
 * now; *@changed says if that is no longer what was mapped.
 */
void mmap3_cache_build_id(struct file *file, const struct mmap3_inode_state *at_mmap,
			  struct mmap3_build_id *bid, bool *changed)
{
	struct inode *inode = file_inode(file);
	struct mmap3_inode_state now;
	struct elf_buildid parsed;

	*changed = false;
	memset(bid, 0, sizeof(*bid));
	if (!file_readable(file)) {
		bid->status = MMAP3_BUILDID_UNREADABLE;
		atomic64_inc(&stat_parse[MMAP3_BUILDID_UNREADABLE]);
		return;
	}
	mmap3_inode_state(inode, &now);
	if (cache_lookup(inode, at_mmap ? at_mmap : &now, bid)) {
		atomic64_inc(&stat_hits);
		return;
	}
	atomic64_inc(&stat_misses);
	/* Make the next change bump i_version, where it is kept. */
	if (now.has_iversion)
		now.iversion = inode_query_iversion(inode);
	*changed = at_mmap && !state_equal(at_mmap, &now);
	/* Taken before reading: a change while we read shows next time. */
	elf_buildid_parse(cache_read, file, now.size, &parsed);
	bid->status = parsed.status;
	bid->size = parsed.size;
	memcpy(bid->data, parsed.id, parsed.size);
	atomic64_inc(&stat_parse[parsed.status]);
	/* A read error may pass; do not remember it. */
	if (parsed.status != MMAP3_BUILDID_IO_ERROR)
		cache_insert(inode, &now, bid);
}

void mmap3_cache_stats(struct mmap3_stats *st)
{
	unsigned int i;

	st->cache_entries = READ_ONCE(cache_count);
	st->cache_capacity = cache_entries;
	st->cache_hits = atomic64_read(&stat_hits);
	st->cache_misses = atomic64_read(&stat_misses);
	st->cache_evictions = atomic64_read(&stat_evictions);
	st->cache_invalidations = atomic64_read(&stat_invalidations);
	for (i = 0; i < MMAP3_BUILDID_NR_STATUS && i < ARRAY_SIZE(st->parse); i++)
		st->parse[i] = atomic64_read(&stat_parse[i]);
}

int mmap3_cache_init(void)
{
	unsigned int i;

	cache_bits = MMAP3_CACHE_BITS_MIN;
	while (cache_bits < MMAP3_CACHE_BITS_MAX && (1U << cache_bits) < cache_entries)
		cache_bits++;
	cache_hash = kvmalloc_array(1U << cache_bits, sizeof(*cache_hash), GFP_KERNEL);
	if (!cache_hash)
		return -ENOMEM;
	for (i = 0; i < 1U << cache_bits; i++)
		INIT_HLIST_HEAD(&cache_hash[i]);
	cache_slab = KMEM_CACHE(mmap3_cache_entry, 0);
	if (!cache_slab) {
		kvfree(cache_hash);
		return -ENOMEM;
	}
	return 0;
}

void mmap3_cache_exit(void)
{
	struct mmap3_cache_entry *e, *tmp;

	spin_lock(&cache_lock);
	list_for_each_entry_safe(e, tmp, &cache_clock, clock)
		entry_remove(e);
	spin_unlock(&cache_lock);
	/* Entries freed by kfree_rcu() must be gone before the slab is. */
	rcu_barrier();
	kmem_cache_destroy(cache_slab);
	kvfree(cache_hash);
}
