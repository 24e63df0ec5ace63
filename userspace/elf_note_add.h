/* SPDX-License-Identifier: GPL-2.0 */
/*
 * userspace/elf_note_add.h - give a stored copy of a file without a GNU
 * build-id note (a Go program: MMAP3_BUILDID_GO) the id mmap3 derived
 * for it, so perf accepts the copy: perf reads a cached file only if its
 * own ".note.gnu.build-id" section holds the build-id perf.data names
 * (tools/perf/util/symbol-elf.c, elf_read_build_id() and symsrc__init()),
 * and reads that section by name, allocated or not.
 *
 * The note, a new section name table and a new section header table are
 * appended after the file's bytes; only the ELF header's e_shoff,
 * e_shentsize (of a file without section headers), e_shnum and
 * e_shstrndx change.  Every segment's bytes stay as they
 * were mapped, so the copy symbolizes exactly what ran.
 */
#ifndef MMAP3_ELF_NOTE_ADD_H
#define MMAP3_ELF_NOTE_ADD_H

#include <stddef.h>
#include <stdint.h>

/*
 * Append to the ELF file @fd of @size bytes a non-allocated SHT_NOTE
 * section ".note.gnu.build-id" holding the GNU build-id @id (@len bytes).
 * Returns its new size, or -1 with *@why saying what in the file stood
 * in the way (or the write's errno in errno, *@why NULL).
 */
long long elf_note_add(int fd, uint64_t size, const uint8_t *id, size_t len, const char **why);

#endif /* MMAP3_ELF_NOTE_ADD_H */
