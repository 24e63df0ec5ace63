/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A session's record buffer (ring.c).
 */
#ifndef MMAP3_RING_H
#define MMAP3_RING_H

#include <linux/mutex.h>
#include <linux/spinlock.h>
#include <linux/types.h>
#include <linux/mmap3.h>

/*
 * Records are contiguous in the buffer: one that would cross its end is
 * placed at its start, after a struct mmap3_record_pad covering the rest
 * (8 bytes or more), which readers skip (never returned by read()).
 */

/*
 * Bytes in [tail, head) belong to the reader, which reads them without
 * the lock and then advances @tail under it; producers write only into
 * [head, tail + size), under the lock.  Losing a record bumps
 * @lost_pending; the next record that fits is preceded by a LOST record
 * carrying the count.
 *
 * Once mapped (@ctl set, under the lock, unset only by the mmap() that
 * set it and then failed: the buffer stays as it is), the reader is in
 * user space: each new @head is published to
 * @ctl->head, and @tail follows @ctl->tail, read under the lock and taken
 * only if within [tail, head].  The module then never reads the buffer's
 * bytes: the reader may have put its tail anywhere in them.
 */
struct mmap3_ring {
	spinlock_t lock;		/* see above */
	void *buf;
	u64 size;			/* a power of two, or 0 */
	u64 head;			/* bytes ever written */
	u64 tail;			/* bytes ever read */
	u64 lost_pending;		/* lost since the last LOST record */
	struct mmap3_ring_control *ctl;	/* the mapped control page, or NULL */
	/*
	 * The control page, kept until the ring is freed: an unlocked
	 * mmap3_ring_tail_hint() may still read it after a failed mmap()
	 * has unset @ctl.
	 */
	struct mmap3_ring_control *ctl_page;
	bool reading;			/* a read() walks [tail, head) */
	/*
	 * Serializes mmap() calls (taken under the caller's mmap_lock, and
	 * nothing is taken under it but ->lock), so that one that fails
	 * after turning the ring mapped undoes it before another maps it.
	 */
	struct mutex map_lock;
};

void mmap3_ring_init(struct mmap3_ring *ring);
/* Allocate (charged to the caller's memory cgroup), replacing an empty buffer. */
int mmap3_ring_alloc(struct mmap3_ring *ring, u64 size);
void mmap3_ring_free(struct mmap3_ring *ring);

/*
 * Under ->lock: room for a record of @size bytes (a multiple of
 * MMAP3_RECORD_ALIGN), after a LOST record stamped @time if records were
 * lost before it.  Returns where to write it, to be committed with
 * mmap3_ring_commit() before the lock is dropped; NULL if there is no
 * room, counted in ->lost_pending.
 */
void *mmap3_ring_reserve(struct mmap3_ring *ring, u32 size, u64 time);
void mmap3_ring_commit(struct mmap3_ring *ring, u32 size);
/* Under ->lock: count @n lost records. */
void mmap3_ring_lost(struct mmap3_ring *ring, u64 n);
/* Under ->lock: write the pending LOST record, if any and if it fits. */
void mmap3_ring_flush_lost(struct mmap3_ring *ring, u64 time);
u64 mmap3_ring_used(struct mmap3_ring *ring);

/*
 * Mapping the buffer, under ->map_lock: mmap3_ring_map() makes it
 * mappable, @pages of the device's pages from @pgoff (-EINVAL if there
 * is no buffer yet, or the pages run past it, and then the ring stays as
 * it was: read() goes on), and says in *@turned whether this call turned
 * the ring mapped.  mmap3_ring_page() then gives page @pgoff of the
 * device (0 the control page, then the buffer's), NULL past the end.
 * If the pages cannot be put in place, mmap3_ring_unmap() undoes what
 * mmap3_ring_map() turned: no reader ever saw it mapped, and read()
 * goes on.
 */
int mmap3_ring_map(struct mmap3_ring *ring, unsigned long pgoff, unsigned long pages,
		   bool *turned);
void mmap3_ring_unmap(struct mmap3_ring *ring);
struct page *mmap3_ring_page(struct mmap3_ring *ring, unsigned long pgoff);

static inline bool mmap3_ring_mapped(const struct mmap3_ring *ring)
{
	return READ_ONCE(ring->ctl);
}

/*
 * Take the mapped reader's tail, if it moved (and is sound): true if it
 * did.  mmap3_ring_tail_hint() is the same, unlocked and unchanging,
 * for a wait's condition.
 */
bool mmap3_ring_sync_tail(struct mmap3_ring *ring);
u64 mmap3_ring_tail_hint(const struct mmap3_ring *ring);

/*
 * The reader's side, read(): mmap3_ring_read_begin() gives the head and
 * tail, or -EBUSY once mapped, and while there is something to read
 * keeps the buffer from being mapped until mmap3_ring_read_end().
 * mmap3_ring_run() returns the records from *@pos
 * (after skipping pads, which moves *@pos) that lie contiguous in the
 * buffer before @head and fit in @max bytes, and their length in *@len;
 * NULL if there is none, or the first does not fit.
 * mmap3_ring_consume() hands the bytes up to a position back to
 * producers.
 */
int mmap3_ring_read_begin(struct mmap3_ring *ring, u64 *head, u64 *tail);
void mmap3_ring_read_end(struct mmap3_ring *ring);
const void *mmap3_ring_run(const struct mmap3_ring *ring, u64 *pos, u64 head, size_t max,
			   size_t *len);
void mmap3_ring_consume(struct mmap3_ring *ring, u64 pos);

#endif /* MMAP3_RING_H */
