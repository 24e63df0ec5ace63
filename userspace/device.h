/* SPDX-License-Identifier: GPL-2.0 */
/*
 * userspace/device.h - opening /dev/mmap3 and checking its ABI.
 */
#ifndef MMAP3_DEVICE_H
#define MMAP3_DEVICE_H

#include <linux/mmap3.h>

/* The device to open: $MMAP3_DEVICE, else MMAP3_DEVICE_PATH. */
const char *mmap3_device_path(void);

/*
 * Open the device and check that the module speaks our ABI major.  On
 * failure print one line saying what went wrong and how to fix it, and
 * return -1.
 */
int mmap3_device_open(struct mmap3_abi_version *ver);

#endif /* MMAP3_DEVICE_H */
