/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ftrace APIs that differ between the supported kernels.
 */
#ifndef MMAP3_WRAPPER_FTRACE_H
#define MMAP3_WRAPPER_FTRACE_H

#include <linux/ftrace.h>

#include "version.h"

/*
 * An ftrace_ops of our own where its callback gets the traced
 * function's arguments without a pt_regs built for it: x86-64's
 * DYNAMIC_FTRACE_WITH_ARGS (5.11 on; kernel/events has an ftrace site
 * from 6.1 on, so 6.1 is the first matrix kernel it serves).  arm64 has
 * it from 6.2, but there its ftrace_regs accessors are inline functions
 * a module cannot test for, and 6.1-arm64 has only WITH_REGS: arm64
 * keeps the kprobe.
 */
#if defined(CONFIG_X86_64) && defined(CONFIG_DYNAMIC_FTRACE_WITH_ARGS)
#define MMAP3_HAVE_FTRACE_OPS 1

/* The traced function's first argument. */
static __always_inline unsigned long mmap3_ftrace_arg0(struct ftrace_regs *fregs)
{
#ifdef ftrace_regs_get_argument
	return ftrace_regs_get_argument(fregs, 0);
#else
	/* Before ftrace_regs_get_argument(): a pt_regs with the arguments set. */
	return regs_get_kernel_argument(&fregs->regs, 0);
#endif
}
#endif

#endif /* MMAP3_WRAPPER_FTRACE_H */
