// SPDX-License-Identifier: GPL-2.0
/*
 * The /dev/mmap3 character device: who may open it; each open file is a
 * session (session.c).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/capability.h>
#include <linux/fs.h>
#include <linux/miscdevice.h>
#include <linux/module.h>
#include <linux/uaccess.h>
#include <linux/mmap3.h>

#include "mmap3.h"

static long mmap3_ioctl_abi_version(void __user *uarg)
{
	struct mmap3_abi_version ver;
	u32 usize;
	int ret;

	ret = mmap3_copy_struct_from_user(&ver, sizeof(ver), uarg,
					  MMAP3_ABI_VERSION_SIZE_VER0, &usize);
	if (ret)
		return ret;
	/* Output fields must be zero, so they can become inputs one day. */
	if (ver.major || ver.minor || ver.features)
		return -EINVAL;

	ver.size = min_t(u32, usize, sizeof(ver));
	ver.major = MMAP3_ABI_MAJOR;
	ver.minor = MMAP3_ABI_MINOR;
	ver.features = 0;
	if (copy_to_user(uarg, &ver, ver.size))
		return -EFAULT;
	return 0;
}

static long mmap3_ioctl(struct file *file, unsigned int cmd, unsigned long arg)
{
	void __user *uarg = (void __user *)arg;

	if (cmd == MMAP3_IOC_ABI_VERSION)
		return mmap3_ioctl_abi_version(uarg);
	return mmap3_session_ioctl(file->private_data, cmd, uarg);
}

static int mmap3_open(struct inode *inode, struct file *file)
{
	struct mmap3_session *s;

	/* Records expose other processes' mappings and kernel addresses. */
	if (!perfmon_capable())
		return -EPERM;
	s = mmap3_session_create();
	if (!s)
		return -ENOMEM;
	file->private_data = s;
	return stream_open(inode, file);
}

static int mmap3_release(struct inode *inode, struct file *file)
{
	mmap3_session_destroy(file->private_data);
	return 0;
}

static ssize_t mmap3_read(struct file *file, char __user *buf, size_t count, loff_t *ppos)
{
	return mmap3_session_read(file->private_data, buf, count,
				  file->f_flags & O_NONBLOCK);
}

static __poll_t mmap3_poll(struct file *file, struct poll_table_struct *wait)
{
	return mmap3_session_poll(file->private_data, file, wait);
}

/* .owner pins the module while the device is open: rmmod gets EBUSY. */
static const struct file_operations mmap3_fops = {
	.owner		= THIS_MODULE,
	.open		= mmap3_open,
	.release	= mmap3_release,
	.read		= mmap3_read,
	.poll		= mmap3_poll,
	.unlocked_ioctl	= mmap3_ioctl,
	.compat_ioctl	= compat_ptr_ioctl,
};

static struct miscdevice mmap3_miscdev = {
	.minor	= MISC_DYNAMIC_MINOR,
	.name	= "mmap3",
	.fops	= &mmap3_fops,
	.mode	= 0600,
};

int mmap3_device_register(void)
{
	int ret;

	ret = misc_register(&mmap3_miscdev);
	if (ret)
		pr_err("cannot register /dev/%s: %d\n", mmap3_miscdev.name, ret);
	return ret;
}

void mmap3_device_unregister(void)
{
	misc_deregister(&mmap3_miscdev);
}
