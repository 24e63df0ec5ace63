/* SPDX-License-Identifier: GPL-2.0 */
/*
 * irq_work APIs that differ between the supported kernels.
 */
#ifndef MMAP3_WRAPPER_IRQ_WORK_H
#define MMAP3_WRAPPER_IRQ_WORK_H

#include <linux/irq_work.h>

#include "version.h"

/*
 * An irq_work run from the interrupt even on PREEMPT_RT, where a plain
 * one runs in a per-CPU kthread that a busy higher-priority task
 * starves (IRQ_WORK_INIT_HARD() since 5.11, the flag before).  Its
 * function must be safe in hard interrupt context on RT: raw locks only
 * (queueing a work item is).
 */
static inline void mmap3_init_irq_work_hard(struct irq_work *work,
					    void (*func)(struct irq_work *))
{
#if MMAP3_KERNEL_BEFORE(5, 11)
	init_irq_work(work, func);
	atomic_set(&work->flags, IRQ_WORK_HARD_IRQ);
#else
	*work = IRQ_WORK_INIT_HARD(func);
#endif
}

#endif /* MMAP3_WRAPPER_IRQ_WORK_H */
