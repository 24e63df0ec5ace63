/* SPDX-License-Identifier: GPL-2.0 */
/*
 * userspace/mapping.h - when one of perf's mapping records and one of
 * mmap3's are the same mapping, and perf's record given mmap3's
 * build-id (match.h finds which of mmap3's records perf's is).
 *
 *  - user mappings: same pid, tid, range, file offset and name (as the
 *    process sees the file: perf names a container's files so, and so
 *    does the side file);
 *  - kernel maps: same start and module, perf's names and mmap3's taken
 *    as one ("[mmap3]" and ".../mmap3.ko"; '-' and '_').
 *
 * Records given here have been checked by the perf reader (sizes, a NUL
 * in the name).
 */
#ifndef MMAP3_MAPPING_H
#define MMAP3_MAPPING_H

#include <stddef.h>
#include <stdint.h>

#include "perf/format.h"

/* Room for any record: perf's header.size is 16 bits. */
#define MAPPING_REC_MAX		65535

int mapping_is_mmap(const struct perf_event_header *h);
int mapping_is_kernel(const struct perf_event_header *h);
int mapping_is_user(const struct perf_event_header *h);
/*
 * Does mmap3 record mapping @h at all: the kernel's, or an executable
 * file's (not a data mapping, nor anonymous memory, [vdso] or the like)?
 */
int mapping_mmap3_records(const struct perf_event_header *h);

/* The process a COMM, EXIT, FORK (the child), MMAP or MMAP2 is about: 1 and *@pid, or 0. */
int mapping_record_pid(const struct perf_event_header *h, uint32_t *pid);

/* Same pid, tid, range, offset and name. */
int mapping_same(const struct perf_event_header *a, const struct perf_event_header *b);

/* Same start and module (@a and @b kernel maps). */
int kernel_map_same(const struct perf_event_header *a, const struct perf_event_header *b);

/*
 * The module a kernel map is of, as perf names it, into @out: "[mmap3]"
 * and "/lib/modules/.../mmap3.ko" are both mmap3, "[kernel.kallsyms]_text"
 * is kernel.kallsyms; '-' and '_' are one.
 */
void kernel_map_name(const struct perf_event_header *h, char *out, size_t len);

/*
 * perf's user mapping @h as an MMAP2 carrying the build-id of mmap3's
 * record @s (its pid..pgoff and time perf's, prot and flags mmap3's),
 * into @out (MAPPING_REC_MAX + 1 bytes).  Returns its size; 0 if @s has
 * no build-id to give (perf's record stays as it is); -1 if perf's MMAP
 * is too long to become an MMAP2 (stays as it is too).
 */
int mapping_give_build_id(uint8_t *out, const struct perf_event_header *h,
			  const struct perf_event_header *s);

/*
 * perf's kernel map @h of a module, cut to the length of the text mmap3
 * saw (@s), into @out: its size, or 0 when perf's is kept as it is (the
 * kernel itself, or nothing to cut).  perf takes a module's size from
 * /proc/modules, which on 6.4 and later adds up its text, data and
 * read-only data: its map could cover other modules' text.
 */
size_t kernel_map_cut(uint8_t *out, const struct perf_event_header *h,
		      const struct perf_event_header *s);

#endif /* MMAP3_MAPPING_H */
