// SPDX-License-Identifier: GPL-2.0
/*
 * The /dev/mmap3 character device: who may open it, and the ABI of
 * include/uapi/linux/mmap3.h.  This file holds the only code that touches
 * user memory: each ioctl copies its argument in, calls a session
 * function that never sees __user, and copies the result out.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/capability.h>
#include <linux/fs.h>
#include <linux/miscdevice.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/poll.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/uaccess.h>

#include "abi.h"
#include "ring.h"
#include "session.h"
#include "wrapper/mm.h"

/*
 * Copy an extensible struct whose first member is its __u32 size:
 * copy_struct_from_user() checks that bytes we do not know are zero, but
 * answers E2BIG where our ABI promises EINVAL.
 */
static int copy_struct_in(void *dst, size_t ksize, const void __user *src,
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

/* Copy out at most the caller's size, which goes in the first member. */
static int copy_struct_out(void __user *dst, void *src, size_t ksize, u32 usize)
{
	u32 size = min_t(u32, usize, ksize);

	memcpy(src, &size, sizeof(size));
	return copy_to_user(dst, src, size) ? -EFAULT : 0;
}

/* Output fields must be zero, so that they can become inputs one day. */
static bool outputs_zero(const void *s, size_t ksize, u32 usize)
{
	return !memchr_inv(s + sizeof(u32), 0, min_t(size_t, usize, ksize) - sizeof(u32));
}

static long ioctl_abi_version(void __user *uarg)
{
	struct mmap3_abi_version ver;
	u32 usize;
	int ret;

	ret = copy_struct_in(&ver, sizeof(ver), uarg, MMAP3_ABI_VERSION_SIZE_VER0, &usize);
	if (ret)
		return ret;
	if (!outputs_zero(&ver, sizeof(ver), usize))
		return -EINVAL;
	ver.major = MMAP3_ABI_MAJOR;
	ver.minor = MMAP3_ABI_MINOR;
	ver.features = MMAP3_FEATURE_MAPPED_BUFFER | MMAP3_FEATURE_CAPTURE_USER |
		       MMAP3_FEATURE_CAPTURE_BY_FILE | MMAP3_FEATURE_DERIVED_IDS;
	return copy_struct_out(uarg, &ver, sizeof(ver), usize);
}

static long ioctl_set_buffer_size(struct mmap3_session *s, void __user *uarg)
{
	u64 size;

	if (get_user(size, (u64 __user *)uarg))
		return -EFAULT;
	return mmap3_session_set_buffer_size(s, size);
}

static long ioctl_set_filter(struct mmap3_session *s, void __user *uarg)
{
	struct mmap3_filter f;
	u32 usize;
	int ret;

	ret = copy_struct_in(&f, sizeof(f), uarg, MMAP3_FILTER_SIZE_VER0, &usize);
	return ret ? ret : mmap3_session_set_filter(s, &f);
}

static long ioctl_set_clock(struct mmap3_session *s, void __user *uarg)
{
	int clock;

	if (get_user(clock, (int __user *)uarg))
		return -EFAULT;
	return mmap3_session_set_clock(s, clock);
}

static long ioctl_get_stats(struct mmap3_session *s, void __user *uarg)
{
	struct mmap3_stats st;
	u32 usize;
	int ret;

	ret = copy_struct_in(&st, sizeof(st), uarg, MMAP3_STATS_SIZE_VER0, &usize);
	if (ret)
		return ret;
	if (!outputs_zero(&st, sizeof(st), usize))
		return -EINVAL;
	mmap3_session_stats(s, &st);
	return copy_struct_out(uarg, &st, sizeof(st), usize);
}

static long ioctl_capture_read(struct mmap3_session *s, void __user *uarg)
{
	struct mmap3_capture_read rd;
	ssize_t n;
	void *buf;
	u32 usize;
	int ret;

	ret = copy_struct_in(&rd, sizeof(rd), uarg, MMAP3_CAPTURE_READ_SIZE_VER0, &usize);
	if (ret)
		return ret;
	if (!rd.handle || rd.offset > LLONG_MAX)
		return -EINVAL;
	rd.len = min_t(u64, rd.len, MMAP3_CAPTURE_READ_MAX);
	/* Sized by the caller, who gets ENOMEM: no warning in the log. */
	buf = kvmalloc(rd.len ? rd.len : 1, GFP_KERNEL_ACCOUNT | __GFP_NOWARN);
	if (!buf)
		return -ENOMEM;
	n = mmap3_capture_read(&s->out.capture, rd.handle, buf, rd.len, rd.offset);
	if (n > 0 && copy_to_user(u64_to_user_ptr(rd.buf), buf, n))
		n = -EFAULT;
	kvfree(buf);
	return n;
}

static long ioctl_capture_release(struct mmap3_session *s, void __user *uarg)
{
	u32 handle;

	if (get_user(handle, (u32 __user *)uarg))
		return -EFAULT;
	return mmap3_capture_release(&s->out.capture, handle);
}

static long ioctl_capture_forget(struct mmap3_session *s, void __user *uarg)
{
	u32 handle;

	if (get_user(handle, (u32 __user *)uarg))
		return -EFAULT;
	return mmap3_capture_withdraw(&s->out.capture, handle);
}

/*
 * Who could become the user anyway, now and when the device was opened
 * (a descriptor passed on does not lend its opener's privilege).
 */
static bool may_be_anyone(struct file *file)
{
	return capable(CAP_SETUID) && capable(CAP_SETGID) &&
	       file_ns_capable(file, &init_user_ns, CAP_SETUID) &&
	       file_ns_capable(file, &init_user_ns, CAP_SETGID);
}

static long ioctl_set_capture_user(struct mmap3_session *s, struct file *file,
				   void __user *uarg)
{
	struct mmap3_capture_user cu;
	u32 usize, *groups;
	int ret;

	ret = copy_struct_in(&cu, sizeof(cu), uarg, MMAP3_CAPTURE_USER_SIZE_VER0, &usize);
	if (ret)
		return ret;
	if (!may_be_anyone(file))
		return -EPERM;
	if (cu.nr_groups > MMAP3_CAPTURE_USER_GROUPS_MAX)
		return -EINVAL;
	if (s->enabled)
		return -EBUSY;
	groups = kvmalloc_array(max(cu.nr_groups, 1U), sizeof(*groups), GFP_KERNEL_ACCOUNT);
	if (!groups)
		return -ENOMEM;
	if (copy_from_user(groups, u64_to_user_ptr(cu.groups), cu.nr_groups * sizeof(*groups)))
		ret = -EFAULT;
	else
		ret = mmap3_capture_set_user(&s->out.capture, cu.uid, cu.gid, groups,
					     cu.nr_groups);
	kvfree(groups);
	return ret;
}

/*
 * mmap3_ioctl - dispatch on the command's type and number; the size
 * bits are ignored (the struct says its size).  ABI_VERSION needs no
 * session state; the capture ioctls take only the capture lock, as they
 * read files; the others are serialized by the session's config_lock.
 */
static long mmap3_ioctl(struct file *file, unsigned int cmd, unsigned long arg)
{
	struct mmap3_session *s = file->private_data;
	void __user *uarg = (void __user *)arg;
	long ret;

	if (_IOC_TYPE(cmd) != MMAP3_IOC_MAGIC)
		return -ENOTTY;
	switch (_IOC_NR(cmd)) {
	case _IOC_NR(MMAP3_IOC_ABI_VERSION):
		return ioctl_abi_version(uarg);
	case _IOC_NR(MMAP3_IOC_CAPTURE_READ):
		return ioctl_capture_read(s, uarg);
	case _IOC_NR(MMAP3_IOC_CAPTURE_RELEASE):
		return ioctl_capture_release(s, uarg);
	case _IOC_NR(MMAP3_IOC_CAPTURE_FORGET):
		return ioctl_capture_forget(s, uarg);
	}

	mutex_lock(&s->config_lock);
	switch (_IOC_NR(cmd)) {
	case _IOC_NR(MMAP3_IOC_SET_BUFFER_SIZE):
		ret = ioctl_set_buffer_size(s, uarg);
		break;
	case _IOC_NR(MMAP3_IOC_SET_FILTER):
		ret = ioctl_set_filter(s, uarg);
		break;
	case _IOC_NR(MMAP3_IOC_SET_CLOCK):
		ret = ioctl_set_clock(s, uarg);
		break;
	case _IOC_NR(MMAP3_IOC_ENABLE):
		ret = mmap3_session_enable(s);
		break;
	case _IOC_NR(MMAP3_IOC_DISABLE):
		ret = mmap3_session_disable(s);
		break;
	case _IOC_NR(MMAP3_IOC_FLUSH):
		mmap3_session_flush(s);
		ret = 0;
		break;
	case _IOC_NR(MMAP3_IOC_GET_STATS):
		ret = ioctl_get_stats(s, uarg);
		break;
	case _IOC_NR(MMAP3_IOC_SET_CAPTURE_USER):
		ret = ioctl_set_capture_user(s, file, uarg);
		break;
	default:
		ret = -ENOTTY;
		break;
	}
	mutex_unlock(&s->config_lock);
	return ret;
}

static bool session_readable(struct mmap3_session *s)
{
	return READ_ONCE(s->out.ring.head) != READ_ONCE(s->out.ring.tail);
}

/*
 * Whole records; EINVAL if the next one does not fit in @count; 0 once
 * the session is disabled and drained (a LOST record for what it lost
 * last comes before).  Before the first ENABLE it waits, as for records.
 */
static ssize_t mmap3_read(struct file *file, char __user *ubuf, size_t count, loff_t *ppos)
{
	struct mmap3_session *s = file->private_data;
	struct mmap3_ring *ring = &s->out.ring;
	size_t copied = 0, len;
	u64 head, tail, pos;
	const void *run;
	ssize_t ret;

	if (mutex_lock_interruptible(&s->read_lock))
		return -ERESTARTSYS;
	/* Mapped, its reader is in user space, its tail anywhere in the records. */
	for (;;) {
		ret = mmap3_ring_read_begin(ring, &head, &tail);
		if (ret)
			goto out;
		if (head != tail)
			break;
		if (READ_ONCE(s->ended) && !READ_ONCE(s->enabled)) {
			mmap3_output_flush_lost(&s->out);
			ret = mmap3_ring_read_begin(ring, &head, &tail);
			if (ret)
				goto out;
			if (head != tail)
				break;
			goto out;	/* the end: 0 */
		}
		ret = -EAGAIN;
		if (file->f_flags & O_NONBLOCK)
			goto out;
		ret = -ERESTARTSYS;
		if (wait_event_interruptible(s->out.wait, session_readable(s) ||
					     (READ_ONCE(s->ended) && !READ_ONCE(s->enabled))))
			goto out;
	}

	/* Each run of contiguous records goes out in one copy. */
	for (pos = tail; (run = mmap3_ring_run(ring, &pos, head, count - copied, &len));
	     pos += len) {
		if (copy_to_user(ubuf + copied, run, len)) {
			ret = -EFAULT;
			goto out;
		}
		copied += len;
	}
	ret = -EINVAL;		/* the next record does not fit */
	if (!copied)
		goto out;
	mmap3_ring_consume(ring, pos);
	mmap3_output_consumed(&s->out);
	ret = copied;
out:
	mmap3_ring_read_end(ring);
	mutex_unlock(&s->read_lock);
	return ret;
}

/*
 * The mapped reader polls when it has read what there was: its tail is
 * taken then, and at the end the last LOST record placed for it.
 */
static __poll_t mapped_poll(struct mmap3_session *s)
{
	bool ended = READ_ONCE(s->ended) && !READ_ONCE(s->enabled);

	mmap3_output_sync_reader(&s->out);
	if (ended)
		mmap3_output_flush_lost(&s->out);
	if (session_readable(s))
		return EPOLLIN | EPOLLRDNORM;
	return ended ? EPOLLHUP : 0;
}

static __poll_t mmap3_poll(struct file *file, struct poll_table_struct *wait)
{
	struct mmap3_session *s = file->private_data;

	poll_wait(file, &s->out.wait, wait);
	if (mmap3_ring_mapped(&s->out.ring))
		return mapped_poll(s);
	if (session_readable(s))
		return EPOLLIN | EPOLLRDNORM;
	/* Ended: a read has a last LOST record to give, then the end. */
	if (READ_ONCE(s->ended) && !READ_ONCE(s->enabled))
		return READ_ONCE(s->out.ring.lost_pending) ? EPOLLIN | EPOLLRDNORM : EPOLLHUP;
	return 0;
}

/*
 * Page 0 is the control page, the buffer follows (include/uapi/linux/
 * mmap3.h).  The reader may write its tail, never the records: the
 * module would not read them back, but nor may the reader change what
 * another thread of it is checking.
 */
static int mmap3_mmap(struct file *file, struct vm_area_struct *vma)
{
	struct mmap3_session *s = file->private_data;
	struct mmap3_ring *ring = &s->out.ring;
	unsigned long pages = vma_pages(vma), i;
	bool turned;
	int ret;

	/* MAP_SHARED (VM_SHARED goes where the file is not open for writing). */
	if (!(vma->vm_flags & VM_MAYSHARE))
		return -EINVAL;
	if (vma->vm_flags & VM_WRITE) {
		if (vma->vm_pgoff || pages != 1)
			return -EPERM;
	} else {
		mmap3_vm_flags_clear(vma, VM_MAYWRITE);
	}
	/* Checked before the ring turns mapped: a wrong range leaves read() working. */
	mutex_lock(&ring->map_lock);
	ret = mmap3_ring_map(ring, vma->vm_pgoff, pages, &turned);
	if (ret)
		goto out;
	mmap3_vm_flags_set(vma, VM_DONTCOPY | VM_DONTEXPAND | VM_DONTDUMP);
	for (i = 0; i < pages && !ret; i++)
		ret = vm_insert_page(vma, vma->vm_start + i * PAGE_SIZE,
				     mmap3_ring_page(ring, vma->vm_pgoff + i));
	/* The caller unmaps what was put in place: this mapping never was. */
	if (ret && turned)
		mmap3_ring_unmap(ring);
out:
	mutex_unlock(&ring->map_lock);
	return ret;
}

static int mmap3_open(struct inode *inode, struct file *file)
{
	struct mmap3_session *s;

	/* Records expose other processes' mappings and kernel addresses. */
	if (!perfmon_capable())
		return -EPERM;
	s = mmap3_session_create();
	if (IS_ERR(s))
		return PTR_ERR(s);
	file->private_data = s;
	return stream_open(inode, file);
}

static int mmap3_release(struct inode *inode, struct file *file)
{
	mmap3_session_destroy(file->private_data);
	return 0;
}

/* .owner pins the module while the device is open: rmmod gets EBUSY. */
static const struct file_operations mmap3_fops = {
	.owner		= THIS_MODULE,
	.open		= mmap3_open,
	.release	= mmap3_release,
	.read		= mmap3_read,
	.poll		= mmap3_poll,
	.mmap		= mmap3_mmap,
	.unlocked_ioctl	= mmap3_ioctl,
	.compat_ioctl	= compat_ptr_ioctl,
};

static struct miscdevice mmap3_miscdev = {
	.minor	= MISC_DYNAMIC_MINOR,
	.name	= "mmap3",
	.fops	= &mmap3_fops,
	.mode	= 0600,
};

int mmap3_abi_register(void)
{
	int ret = misc_register(&mmap3_miscdev);

	if (ret)
		pr_err("cannot register /dev/%s: %d\n", mmap3_miscdev.name, ret);
	return ret;
}

void mmap3_abi_unregister(void)
{
	misc_deregister(&mmap3_miscdev);
}
