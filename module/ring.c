// SPDX-License-Identifier: GPL-2.0
/*
 * A session's record buffer: one per session, written by every producer
 * under its lock, read by one reader at a time.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/kernel.h>
#include <linux/gfp.h>
#include <linux/log2.h>
#include <linux/mm.h>
#include <linux/string.h>
#include <linux/vmalloc.h>

#include "ring.h"
#include "wrapper/mm.h"

void mmap3_ring_init(struct mmap3_ring *ring)
{
	memset(ring, 0, sizeof(*ring));
	spin_lock_init(&ring->lock);
	mutex_init(&ring->map_lock);
}

int mmap3_ring_alloc(struct mmap3_ring *ring, u64 size)
{
	void *buf = mmap3_vzalloc_account(size);

	if (!buf)
		return -ENOMEM;
	spin_lock(&ring->lock);
	/* A mapped buffer is the reader's to the end. */
	if (ring->ctl) {
		spin_unlock(&ring->lock);
		vfree(buf);
		return -EBUSY;
	}
	swap(ring->buf, buf);
	ring->size = size;
	ring->head = 0;
	ring->tail = 0;
	spin_unlock(&ring->lock);
	vfree(buf);
	return 0;
}

/* Mappings hold the file, so the session and its ring outlive them. */
void mmap3_ring_free(struct mmap3_ring *ring)
{
	vfree(ring->buf);
	ring->buf = NULL;
	ring->size = 0;
	free_page((unsigned long)ring->ctl_page);
	ring->ctl_page = NULL;
	ring->ctl = NULL;
}

u64 mmap3_ring_used(struct mmap3_ring *ring)
{
	return READ_ONCE(ring->head) - mmap3_ring_tail_hint(ring);
}

int mmap3_ring_map(struct mmap3_ring *ring, unsigned long pgoff, unsigned long pages,
		   bool *turned)
{
	struct mmap3_ring_control *ctl;
	unsigned long limit;
	int ret = 0;

	lockdep_assert_held(&ring->map_lock);
	*turned = false;
	if (!ring->ctl_page) {
		ring->ctl_page = (void *)get_zeroed_page(GFP_KERNEL_ACCOUNT);
		if (!ring->ctl_page)
			return -ENOMEM;
	}
	ctl = ring->ctl_page;
	spin_lock(&ring->lock);
	/* The control page and the buffer's pages. */
	limit = ring->size ? 1 + (ring->size >> PAGE_SHIFT) : 0;
	if (pgoff >= limit || pages > limit - pgoff) {
		ret = -EINVAL;
	} else if (ring->reading) {
		/* A read() walks the records: no tail of the reader's meanwhile. */
		ret = -EBUSY;
	} else if (!ring->ctl) {
		ctl->head = ring->head;
		ctl->tail = ring->tail;
		ctl->size = ring->size;
		ctl->control_size = sizeof(*ctl);
		/* Filled before seen: mmap3_ring_tail_hint() reads it unlocked. */
		smp_store_release(&ring->ctl, ctl);
		*turned = true;
	}
	spin_unlock(&ring->lock);
	return ret;
}

void mmap3_ring_unmap(struct mmap3_ring *ring)
{
	lockdep_assert_held(&ring->map_lock);
	spin_lock(&ring->lock);
	/*
	 * The reader never had the pages, so never moved its tail: @tail is
	 * still ours.  The page stays, for any unlocked reader of @ctl.
	 */
	WRITE_ONCE(ring->ctl, NULL);
	spin_unlock(&ring->lock);
}

struct page *mmap3_ring_page(struct mmap3_ring *ring, unsigned long pgoff)
{
	if (!pgoff)
		return virt_to_page(ring->ctl_page);
	if (pgoff - 1 >= ring->size >> PAGE_SHIFT)
		return NULL;
	return vmalloc_to_page(ring->buf + ((pgoff - 1) << PAGE_SHIFT));
}

static void publish_head(struct mmap3_ring *ring)
{
	if (!ring->ctl)
		return;
	/* The records before @head are written: pairs with the reader's acquire. */
	smp_store_release(&ring->ctl->head, ring->head);
}

bool mmap3_ring_sync_tail(struct mmap3_ring *ring)
{
	u64 tail;

	lockdep_assert_held(&ring->lock);
	if (!ring->ctl)
		return false;
	/* The reader's loads of the records come before our stores over them. */
	tail = smp_load_acquire(&ring->ctl->tail);
	if (tail == ring->tail || tail - ring->tail > ring->head - ring->tail)
		return false;
	ring->tail = tail;
	return true;
}

u64 mmap3_ring_tail_hint(const struct mmap3_ring *ring)
{
	const struct mmap3_ring_control *ctl = READ_ONCE(ring->ctl);
	u64 tail = READ_ONCE(ring->tail), head = READ_ONCE(ring->head), t;

	if (!ctl)
		return tail;
	t = READ_ONCE(ctl->tail);
	return t - tail <= head - tail ? t : tail;
}

/*
 * Bytes needed to place @size contiguous bytes at the head: @size, plus
 * the pad to the end of the buffer if they would cross it.
 */
static u64 room_needed(const struct mmap3_ring *ring, u64 head, u32 size)
{
	u64 to_end = ring->size - (head & (ring->size - 1));

	return size <= to_end ? size : to_end + size;
}

/* Place @size bytes at the head, padding to the end first if needed. */
static void *place(struct mmap3_ring *ring, u32 size)
{
	u64 off = ring->head & (ring->size - 1);
	struct mmap3_record_pad *pad;

	if (size > ring->size - off) {
		pad = ring->buf + off;
		pad->type = MMAP3_RECORD_PAD;
		pad->size = ring->size - off;
		ring->head += pad->size;
		off = 0;
	}
	return ring->buf + off;
}

void *mmap3_ring_reserve(struct mmap3_ring *ring, u32 size, u64 time)
{
	u64 free, need, head = ring->head;

	lockdep_assert_held(&ring->lock);
	if (!ring->size)
		goto lost;
	mmap3_ring_sync_tail(ring);
	free = ring->size - (head - ring->tail);
	need = 0;
	if (ring->lost_pending) {
		need = room_needed(ring, head, sizeof(struct mmap3_record_lost));
		head += need;
	}
	need += room_needed(ring, head, size);
	if (need > free)
		goto lost;
	if (ring->lost_pending) {
		struct mmap3_record_lost *lr = place(ring, sizeof(*lr));

		lr->header.type = MMAP3_RECORD_LOST;
		lr->header.size = sizeof(*lr);
		lr->header.time = time;
		lr->lost = ring->lost_pending;
		ring->head += sizeof(*lr);
		ring->lost_pending = 0;
		publish_head(ring);
	}
	return place(ring, size);
lost:
	ring->lost_pending++;
	return NULL;
}

void mmap3_ring_commit(struct mmap3_ring *ring, u32 size)
{
	lockdep_assert_held(&ring->lock);
	ring->head += size;
	publish_head(ring);
}

void mmap3_ring_lost(struct mmap3_ring *ring, u64 n)
{
	lockdep_assert_held(&ring->lock);
	ring->lost_pending += n;
}

void mmap3_ring_flush_lost(struct mmap3_ring *ring, u64 time)
{
	struct mmap3_record_lost *lr;
	u64 lost = ring->lost_pending;

	lockdep_assert_held(&ring->lock);
	if (!lost || !ring->size)
		return;
	mmap3_ring_sync_tail(ring);
	if (room_needed(ring, ring->head, sizeof(*lr)) > ring->size - (ring->head - ring->tail))
		return;
	lr = place(ring, sizeof(*lr));
	lr->header.type = MMAP3_RECORD_LOST;
	lr->header.size = sizeof(*lr);
	lr->header.time = time;
	lr->lost = lost;
	ring->head += sizeof(*lr);
	ring->lost_pending = 0;
	publish_head(ring);
}

int mmap3_ring_read_begin(struct mmap3_ring *ring, u64 *head, u64 *tail)
{
	int ret = -EBUSY;

	spin_lock(&ring->lock);
	if (!ring->ctl) {
		*head = ring->head;
		*tail = ring->tail;
		ring->reading = *head != *tail;
		ret = 0;
	}
	spin_unlock(&ring->lock);
	return ret;
}

void mmap3_ring_read_end(struct mmap3_ring *ring)
{
	spin_lock(&ring->lock);
	ring->reading = false;
	spin_unlock(&ring->lock);
}

static const struct mmap3_record_header *at(const struct mmap3_ring *ring, u64 pos)
{
	return ring->buf + (pos & (ring->size - 1));
}

const void *mmap3_ring_run(const struct mmap3_ring *ring, u64 *pos, u64 head, size_t max,
			   size_t *len)
{
	const struct mmap3_record_header *rec;
	u64 end;

	while (*pos != head && at(ring, *pos)->type == MMAP3_RECORD_PAD)
		*pos += at(ring, *pos)->size;
	/* Up to the head, a pad, or the end of the buffer, as much as fits. */
	for (end = *pos; end != head; end += rec->size) {
		rec = at(ring, end);
		if (rec->type == MMAP3_RECORD_PAD || rec->size > max - (end - *pos) ||
		    (end != *pos && !(end & (ring->size - 1))))
			break;
	}
	*len = end - *pos;
	return *len ? at(ring, *pos) : NULL;
}

void mmap3_ring_consume(struct mmap3_ring *ring, u64 pos)
{
	spin_lock(&ring->lock);
	ring->tail = pos;
	spin_unlock(&ring->lock);
}
