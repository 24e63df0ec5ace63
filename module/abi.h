/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The /dev/mmap3 device and its ioctls (abi.c): control.
 */
#ifndef MMAP3_ABI_H
#define MMAP3_ABI_H

int mmap3_abi_register(void);
void mmap3_abi_unregister(void);

#endif /* MMAP3_ABI_H */
