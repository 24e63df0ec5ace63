/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the kernel knows but does not export to modules (kapi.c).
 */
#ifndef MMAP3_KAPI_H
#define MMAP3_KAPI_H

#include <linux/types.h>
#include <linux/mmap3.h>

/* The running kernel's record: release and build-id (read at load). */
void mmap3_kernel_record(struct mmap3_record_kernel *rec);

/*
 * May the current task see kernel addresses?  The rule /proc/kallsyms
 * applies (kallsyms_show_value(), not exported), with kptr_restrict and
 * perf_event_paranoid read from the initial namespace.
 */
bool mmap3_current_may_see_kaddr(void);

/*
 * May @cred read the files @tgid maps, as /proc/PID/map_files requires:
 * ptrace_may_access(PTRACE_MODE_READ_FSCREDS) of the process?  A process
 * gone since is judged by CAP_SYS_PTRACE alone.  May sleep (a /proc
 * lookup).
 */
struct cred;
struct pid;
bool mmap3_may_read_task(const struct cred *cred, struct pid *tgid);

int mmap3_kapi_init(void);

#endif /* MMAP3_KAPI_H */
