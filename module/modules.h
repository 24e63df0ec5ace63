/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Kernel modules (modules.c): a producer.
 */
#ifndef MMAP3_MODULES_H
#define MMAP3_MODULES_H

struct mmap3_output;

/* A LOAD record, flagged MMAP3_MODULE_DUMP, of every loaded module. */
void mmap3_modules_dump(struct mmap3_output *out);

int mmap3_modules_init(void);
void mmap3_modules_exit(void);

#endif /* MMAP3_MODULES_H */
