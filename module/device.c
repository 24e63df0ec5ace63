// SPDX-License-Identifier: GPL-2.0
/*
 * The /dev/mmap3 character device: who may open it, and the ioctls.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/capability.h>
#include <linux/fs.h>
#include <linux/miscdevice.h>
#include <linux/module.h>
#include <linux/uaccess.h>
#include <linux/mmap3.h>

#include "mmap3.h"

/*
 * Copy an extensible struct (see include/uapi/linux/mmap3.h) whose first
 * member is its __u32 size.  copy_struct_from_user() checks that bytes we
 * do not know are zero, but answers E2BIG where our ABI promises EINVAL.
 */
static int mmap3_copy_struct_from_user(void *dst, size_t ksize,
				       const void __user *src, size_t min_size,
				       u32 *usize)
{
	int ret;

	if (get_user(*usize, (const u32 __user *)src))
		return -EFAULT;
	if (*usize < min_size || *usize > MMAP3_STRUCT_SIZE_MAX)
		return -EINVAL;
	ret = copy_struct_from_user(dst, ksize, src, *usize);
	return ret == -E2BIG ? -EINVAL : ret;
}

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

	switch (cmd) {
	case MMAP3_IOC_ABI_VERSION:
		return mmap3_ioctl_abi_version(uarg);
	default:
		return -ENOTTY;
	}
}

static int mmap3_open(struct inode *inode, struct file *file)
{
	/* Records expose other processes' mappings and kernel addresses. */
	if (!perfmon_capable())
		return -EPERM;
	return stream_open(inode, file);
}

/* .owner pins the module while the device is open: rmmod gets EBUSY. */
static const struct file_operations mmap3_fops = {
	.owner		= THIS_MODULE,
	.open		= mmap3_open,
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
