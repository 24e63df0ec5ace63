/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Build ELF files in memory for tests: headers, program and section
 * header tables, notes.  Used by the host parser tests and the selftests.
 */
#ifndef MMAP3_ELF_BUILDER_H
#define MMAP3_ELF_BUILDER_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* An ELF file under construction, in memory. */
struct elf {
	uint8_t *buf;
	size_t size;
	int is64, msb;
	int nph, nsh;
	uint64_t phoff, shoff;
};

static inline void put(struct elf *e, uint64_t off, uint64_t v, int bytes)
{
	int i;

	if (off + bytes > e->size) {
		e->buf = realloc(e->buf, off + bytes);
		memset(e->buf + e->size, 0, off + bytes - e->size);
		e->size = off + bytes;
	}
	for (i = 0; i < bytes; i++)
		e->buf[off + (e->msb ? bytes - 1 - i : i)] = i < 8 ? (uint8_t)(v >> (8 * i)) : 0;
}

static inline void put_bytes(struct elf *e, uint64_t off, const void *p, size_t len)
{
	if (!len)
		return;
	if (off + len > e->size)
		put(e, off + len - 1, 0, 1);
	memcpy(e->buf + off, p, len);
}

/* An ELF header with room for @nph program headers at 64 and @nsh section
 * headers after them; the tables are filled in by add_ph()/add_sh().
 */
static inline struct elf new_elf(int is64, int msb, int nph, int nsh)
{
	struct elf e = { .is64 = is64, .msb = msb };
	int ehsize = is64 ? 64 : 52, phsize = is64 ? 56 : 32, shsize = is64 ? 64 : 40;

	e.phoff = nph ? 64 : 0;
	e.shoff = nsh ? 64 + (uint64_t)nph * phsize : 0;
	put(&e, 0, 0, ehsize);
	memcpy(e.buf, "\177ELF", 4);
	e.buf[4] = is64 ? 2 : 1;
	e.buf[5] = msb ? 2 : 1;
	e.buf[6] = 1;
	put(&e, 16, 3, 2);			/* ET_DYN */
	put(&e, 18, is64 ? 62 : 3, 2);		/* x86-64 or i386 */
	put(&e, 20, 1, 4);
	put(&e, is64 ? 0x20 : 0x1c, e.phoff, is64 ? 8 : 4);
	put(&e, is64 ? 0x28 : 0x20, e.shoff, is64 ? 8 : 4);
	put(&e, ehsize - 12, ehsize, 2);
	put(&e, ehsize - 10, phsize, 2);
	put(&e, ehsize - 8, nph, 2);
	put(&e, ehsize - 6, shsize, 2);
	put(&e, ehsize - 4, nsh, 2);
	if (nph || nsh)
		put(&e, 64 + (uint64_t)nph * phsize + (uint64_t)nsh * shsize - 1, 0, 1);
	return e;
}

static inline void add_ph(struct elf *e, int i, uint32_t type, uint64_t off, uint64_t filesz,
		   uint64_t align)
{
	uint64_t p = e->phoff + (uint64_t)i * (e->is64 ? 56 : 32);

	put(e, p, type, 4);
	if (e->is64) {
		put(e, p + 8, off, 8);
		put(e, p + 32, filesz, 8);
		put(e, p + 40, filesz, 8);
		put(e, p + 48, align, 8);
	} else {
		put(e, p + 4, off, 4);
		put(e, p + 16, filesz, 4);
		put(e, p + 20, filesz, 4);
		put(e, p + 28, align, 4);
	}
}

static inline void add_sh(struct elf *e, int i, uint32_t type, uint64_t off, uint64_t size,
		   uint64_t align)
{
	uint64_t s = e->shoff + (uint64_t)i * (e->is64 ? 64 : 40);

	put(e, s + 4, type, 4);
	if (e->is64) {
		put(e, s + 24, off, 8);
		put(e, s + 32, size, 8);
		put(e, s + 48, align, 8);
	} else {
		put(e, s + 16, off, 4);
		put(e, s + 20, size, 4);
		put(e, s + 32, align, 4);
	}
}

/* Write a note at @off; return the offset after it. */
static inline uint64_t add_note(struct elf *e, uint64_t off, const char *name, uint32_t namesz,
			 uint32_t type, const uint8_t *desc, uint32_t descsz, int align)
{
	uint64_t name_off = off + 12, desc_off, next;

	put(e, off, namesz, 4);
	put(e, off + 4, descsz, 4);
	put(e, off + 8, type, 4);
	put_bytes(e, name_off, name, namesz);
	/* Aligned as in a segment starting at an aligned offset. */
	desc_off = (name_off + namesz + align - 1) & ~(uint64_t)(align - 1);
	put_bytes(e, desc_off, desc, descsz);
	next = (desc_off + descsz + align - 1) & ~(uint64_t)(align - 1);
	if (next > e->size)
		put(e, next - 1, 0, 1);
	return next;
}

static inline uint64_t add_buildid(struct elf *e, uint64_t off, const uint8_t *id, uint32_t size,
			    int align)
{
	return add_note(e, off, "GNU", 4, 3, id, size, align);
}

#endif /* MMAP3_ELF_BUILDER_H */
