// SPDX-License-Identifier: GPL-2.0
/*
 * Per-inode build-id cache.
 *
 * The kernel tells a module nothing when an inode goes away, so entries
 * are keyed by what identifies an inode of a mounted filesystem
 * (superblock, its device, UUID and backing device, inode number,
 * generation: a new mount at a recycled superblock address does not
 * match), and each is valid for
 * one state of the inode (size, mtime, ctime, i_version where the
 * filesystem keeps one).  Entries are bounded in number (module parameter
 * cache_entries) with CLOCK eviction.
 *
 * An inode may have entries for two states: a mapping queued before a
 * rewrite still finds the build-id of what it mapped after a mapping made
 * since has read the new one.  A third state drops the oldest.  Lookups
 * never remove anything: the state an old event looks up with is not
 * evidence that a newer entry is stale.
 *
 * Lookups walk an RCU hash chain: no lock, no allocation.  Inserts and
 * removals take cache_lock, which also protects the CLOCK list and the
 * count; entries are freed after a grace period by call_rcu(), which
 * rcu_barrier() waits for on every kernel (kfree_rcu() batches it does
 * not wait for before 6.12).  Everything here but mmap3_inode_state()
 * runs in process context.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/backing-dev-defs.h>
#include <linux/fs.h>
#include <linux/hash.h>
#include <linux/hashtable.h>
#include <linux/iversion.h>
#include <linux/kprobes.h>
#include <linux/list.h>
#include <linux/module.h>
#include <linux/random.h>
#include <linux/rculist.h>
#include <linux/siphash.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/sysfs.h>
#include <linux/uuid.h>

#include "cache.h"
#include "wrapper/fs.h"

static unsigned int cache_entries = 16384;
module_param(cache_entries, uint, 0444);
MODULE_PARM_DESC(cache_entries, "Files whose build-id is kept (0: read every time; default 16384)");

/* The hash table: a bucket per entry, from 2^8 up to 2^20 buckets. */
#define MMAP3_CACHE_BITS_MIN	8
#define MMAP3_CACHE_BITS_MAX	20
/* States of one inode kept at once. */
#define MMAP3_CACHE_STATES	2

struct mmap3_cache_entry {
	struct hlist_node hnode;	/* RCU hash chain, newest first */
	struct list_head clock;		/* CLOCK order, under cache_lock */
	struct rcu_head rcu;
	const struct super_block *sb;
	dev_t dev;
	/*
	 * The superblock's own backing device's, if it has one (FUSE, NFS,
	 * ...: never reused).  A FUSE daemon chooses its files' numbers and
	 * times, and a mount made again finds the freed superblock's address
	 * and anonymous device: only this tells its files from the last's.
	 */
	u64 bdi_id;
	uuid_t uuid;
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

static atomic64_t stat_evictions, stat_invalidations;

/*
 * A FUSE daemon chooses its inode numbers and generations: chains are
 * keyed by a secret, so no one can choose files that share a bucket.
 * hsiphash is the kernel's keyed hash for hash tables (SipHash-1-3 on
 * 64-bit), half the rounds of siphash: this runs for every mapping.  The
 * superblock, a kernel address no user chooses, goes in folded.
 */
static hsiphash_key_t cache_key;

#ifdef MMAP3_TEST_HOOKS
/*
 * Test builds only: the hash of one fixed input under the key, so a
 * selftest can tell the key is drawn at each load (a key never drawn
 * would hash the same on every load, and any user could aim at chains).
 */
static int test_cache_key_probe_get(char *buf, const struct kernel_param *kp)
{
	return sysfs_emit(buf, "%08x\n", hsiphash_1u32(0, &cache_key));
}

static const struct kernel_param_ops test_cache_key_probe_ops = {
	.get = test_cache_key_probe_get,
};
module_param_cb(test_cache_key_probe, &test_cache_key_probe_ops, NULL, 0400);
MODULE_PARM_DESC(test_cache_key_probe, "Test builds: the cache's hash of 0 under its key");
#endif

static struct hlist_head *cache_bucket(const struct inode *inode)
{
	u64 ino = inode->i_ino;
	u32 h = hsiphash_4u32(lower_32_bits(ino), upper_32_bits(ino), inode->i_generation,
			      hash_ptr(inode->i_sb, 32), &cache_key);

	return &cache_hash[h & ((1U << cache_bits) - 1)];
}

static bool entry_is(const struct mmap3_cache_entry *e, const struct inode *inode)
{
	const struct super_block *sb = inode->i_sb;

	return e->sb == sb && e->ino == (u64)inode->i_ino &&
	       e->generation == inode->i_generation && e->dev == sb->s_dev &&
	       e->bdi_id == sb->s_bdi->id && uuid_equal(&e->uuid, &sb->s_uuid);
}

/*
 * Plain loads only: the hook calls this from int3 or a BRK exception,
 * NMI-like.  A torn read
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

bool mmap3_cache_lookup(struct inode *inode, const struct mmap3_inode_state *st,
			struct mmap3_build_id *bid)
{
	struct mmap3_cache_entry *e;
	bool hit = false;

	rcu_read_lock();
	hlist_for_each_entry_rcu(e, cache_bucket(inode), hnode) {
		if (entry_is(e, inode) && mmap3_inode_state_equal(&e->state, st)) {
			*bid = e->build_id;
			WRITE_ONCE(e->referenced, true);
			hit = true;
			break;
		}
	}
	rcu_read_unlock();
	return hit;
}

static void entry_free_rcu(struct rcu_head *head)
{
	kmem_cache_free(cache_slab, container_of(head, struct mmap3_cache_entry, rcu));
}

/* Under cache_lock. */
static void entry_remove(struct mmap3_cache_entry *e)
{
	hlist_del_rcu(&e->hnode);
	list_del(&e->clock);
	cache_count--;
	call_rcu(&e->rcu, entry_free_rcu);
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

void mmap3_cache_insert(struct inode *inode, const struct mmap3_inode_state *st,
			const struct mmap3_build_id *bid)
{
	struct mmap3_cache_entry *e, *old, *oldest = NULL;
	struct hlist_head *bucket = cache_bucket(inode);
	unsigned int states = 0;

	if (!cache_entries)
		return;
	e = kmem_cache_alloc(cache_slab, GFP_KERNEL);
	if (!e)
		return;		/* the next mapping reads the file again */
	e->sb = inode->i_sb;
	e->dev = inode->i_sb->s_dev;
	e->bdi_id = inode->i_sb->s_bdi->id;
	uuid_copy(&e->uuid, &inode->i_sb->s_uuid);
	e->ino = inode->i_ino;
	e->generation = inode->i_generation;
	e->referenced = false;
	e->state = *st;
	e->build_id = *bid;

	spin_lock(&cache_lock);
	hlist_for_each_entry(old, bucket, hnode) {
		if (!entry_is(old, inode))
			continue;
		if (mmap3_inode_state_equal(&old->state, st)) {
			/* Read twice at once: the first insert stands. */
			spin_unlock(&cache_lock);
			kmem_cache_free(cache_slab, e);
			return;
		}
		states++;
		oldest = old;	/* chains are newest first */
	}
	if (states >= MMAP3_CACHE_STATES) {
		entry_remove(oldest);
		atomic64_inc(&stat_invalidations);
	}
	if (cache_count >= cache_entries)
		cache_evict_one();
	hlist_add_head_rcu(&e->hnode, bucket);
	list_add_tail(&e->clock, &cache_clock);
	cache_count++;
	spin_unlock(&cache_lock);
}

void mmap3_cache_stats(struct mmap3_stats *st)
{
	st->cache_entries = READ_ONCE(cache_count);
	st->cache_capacity = cache_entries;
	st->cache_evictions = atomic64_read(&stat_evictions);
	st->cache_invalidations = atomic64_read(&stat_invalidations);
	st->cache_memory = st->cache_entries * sizeof(struct mmap3_cache_entry) +
			   (sizeof(*cache_hash) << cache_bits);
}

int mmap3_cache_init(void)
{
	unsigned int i;

	get_random_bytes(&cache_key, sizeof(cache_key));
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
	/* Waits for entry_free_rcu() of every entry: then the slab is empty. */
	rcu_barrier();
	kmem_cache_destroy(cache_slab);
	kvfree(cache_hash);
}
