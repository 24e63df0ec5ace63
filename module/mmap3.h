/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Declarations shared between the files of the mmap3 module.
 */
#ifndef MMAP3_MODULE_H
#define MMAP3_MODULE_H

int mmap3_device_register(void);
void mmap3_device_unregister(void);

#endif /* MMAP3_MODULE_H */
