// SPDX-License-Identifier: GPL-2.0
/*
 * userspace/elf_note_add.c - a GNU build-id note appended to a stored
 * copy (elf_note_add.h).  The file is one mmap3 just copied: it is read
 * again as untrusted, every offset checked against its size.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "elf_note_add.h"

#define SHT_STRTAB	3
#define SHT_NOTE	7
#define SHN_LORESERVE	0xff00u
/* A section name table larger than this is not one to copy. */
#define STRTAB_MAX	(16u << 20)

static const char NOTE_NAME[] = ".note.gnu.build-id";
static const char STRTAB_NAME[] = ".shstrtab";

struct elf_file {
	int fd;
	int is64, msb;
	unsigned int entsize;	/* of a section header */
};

static uint64_t get(const struct elf_file *f, const uint8_t *p, int n)
{
	uint64_t v = 0;
	int i;

	for (i = 0; i < n; i++)
		v |= (uint64_t)p[f->msb ? n - 1 - i : i] << (8 * i);
	return v;
}

static void set(const struct elf_file *f, uint8_t *p, uint64_t v, int n)
{
	int i;

	for (i = 0; i < n; i++)
		p[f->msb ? n - 1 - i : i] = (uint8_t)(v >> (8 * i));
}

/* Section header fields: offsets and widths in ELF32, ELF64. */
enum { SH_NAME, SH_TYPE, SH_OFFSET, SH_SIZE, SH_ALIGN };
static const uint8_t field_off[][2] = { { 0, 0 }, { 4, 4 }, { 16, 24 }, { 20, 32 }, { 32, 48 } };
static const uint8_t field_len[][2] = { { 4, 4 }, { 4, 4 }, { 4, 8 }, { 4, 8 }, { 4, 8 } };

static uint64_t sh_get(const struct elf_file *f, const uint8_t *sh, int field)
{
	return get(f, sh + field_off[field][f->is64], field_len[field][f->is64]);
}

static void sh_set(const struct elf_file *f, uint8_t *sh, int field, uint64_t v)
{
	set(f, sh + field_off[field][f->is64], v, field_len[field][f->is64]);
}

static int read_at(int fd, void *buf, size_t len, uint64_t off)
{
	ssize_t n = pread(fd, buf, len, (off_t)off);

	return n == (ssize_t)len ? 0 : -1;
}

static int write_at(int fd, const void *buf, size_t len, uint64_t off)
{
	const uint8_t *p = buf;

	while (len) {
		ssize_t n = pwrite(fd, p, len, (off_t)off);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			if (!n)
				errno = EIO;
			return -1;
		}
		p += n;
		off += (uint64_t)n;
		len -= (size_t)n;
	}
	return 0;
}

static uint64_t align_up(uint64_t x, uint64_t a)
{
	return (x + a - 1) & ~(a - 1);
}

long long elf_note_add(int fd, uint64_t size, const uint8_t *id, size_t len, const char **why)
{
	struct elf_file f = { .fd = fd };
	uint8_t eh[64], note[16 + 64 + 4] = { 0 }, *tab = NULL, *sh;
	uint64_t shoff, strsize = 0, note_at, str_at, tab_at, note_size;
	unsigned int ehsize, shnum, shstrndx, nr, name_at;
	char *strtab = NULL;
	long long ret = -1;

	*why = NULL;
	if (!len || len > 64) {
		*why = "a build-id of that size";
		return -1;
	}
	if (size < 52 || read_at(fd, eh, size < 64 ? 52 : 64, 0) || memcmp(eh, "\177ELF", 4) ||
	    (eh[4] != 1 && eh[4] != 2) || (eh[5] != 1 && eh[5] != 2)) {
		*why = "not an ELF file";
		return -1;
	}
	f.is64 = eh[4] == 2;
	f.msb = eh[5] == 2;
	f.entsize = f.is64 ? 64 : 40;
	ehsize = f.is64 ? 64 : 52;
	if (size < ehsize) {
		*why = "an ELF header cut short";
		return -1;
	}
	shoff = get(&f, eh + (f.is64 ? 0x28 : 0x20), f.is64 ? 8 : 4);
	shnum = (unsigned int)get(&f, eh + ehsize - 4, 2);
	shstrndx = (unsigned int)get(&f, eh + ehsize - 2, 2);
	if (!shoff) {
		shnum = 0;
	} else if (get(&f, eh + ehsize - 6, 2) != f.entsize || !shnum || shnum >= SHN_LORESERVE ||
		   !shstrndx || shstrndx >= shnum) {
		/* Extended numbering, no name table: rare enough to refuse. */
		*why = "section headers mmap3 does not extend";
		return -1;
	} else if (shoff > size || (uint64_t)shnum * f.entsize > size - shoff) {
		*why = "a section header table past the end of the file";
		return -1;
	}
	/* The old table, room for a name table's and the note's entries. */
	tab = calloc(shnum + 3, f.entsize);
	if (!tab)
		goto nomem;
	if (shnum && read_at(fd, tab, (size_t)shnum * f.entsize, shoff)) {
		*why = "a section header table that cannot be read";
		goto out;
	}
	if (shnum) {
		uint64_t off;

		sh = tab + (size_t)shstrndx * f.entsize;
		off = sh_get(&f, sh, SH_OFFSET);
		strsize = sh_get(&f, sh, SH_SIZE);
		if (strsize > STRTAB_MAX || off > size || strsize > size - off) {
			*why = "a section name table past the end of the file, or too large";
			goto out;
		}
		strtab = malloc(strsize + sizeof(NOTE_NAME));
		if (!strtab)
			goto nomem;
		if (strsize && read_at(fd, strtab, strsize, off)) {
			*why = "a section name table that cannot be read";
			goto out;
		}
		nr = shnum;
	} else {
		/* No table: a null section, the name table, then the note. */
		strtab = malloc(1 + sizeof(STRTAB_NAME) + sizeof(NOTE_NAME));
		if (!strtab)
			goto nomem;
		strtab[0] = '\0';
		memcpy(strtab + 1, STRTAB_NAME, sizeof(STRTAB_NAME));
		strsize = 1 + sizeof(STRTAB_NAME);
		shstrndx = 1;
		sh = tab + f.entsize;
		sh_set(&f, sh, SH_NAME, 1);
		sh_set(&f, sh, SH_TYPE, SHT_STRTAB);
		sh_set(&f, sh, SH_ALIGN, 1);
		nr = 2;
	}
	name_at = (unsigned int)strsize;
	memcpy(strtab + strsize, NOTE_NAME, sizeof(NOTE_NAME));
	strsize += sizeof(NOTE_NAME);

	/* namesz, descsz, NT_GNU_BUILD_ID, "GNU", the id padded to 4. */
	set(&f, note, 4, 4);
	set(&f, note + 4, len, 4);
	set(&f, note + 8, 3, 4);
	memcpy(note + 12, "GNU", 4);
	memcpy(note + 16, id, len);
	note_size = 16 + align_up(len, 4);
	note_at = align_up(size, 8);
	str_at = note_at + note_size;
	tab_at = align_up(str_at + strsize, 8);

	sh = tab + (size_t)shstrndx * f.entsize;
	sh_set(&f, sh, SH_OFFSET, str_at);
	sh_set(&f, sh, SH_SIZE, strsize);
	sh = tab + (size_t)nr * f.entsize;
	sh_set(&f, sh, SH_NAME, name_at);
	sh_set(&f, sh, SH_TYPE, SHT_NOTE);
	sh_set(&f, sh, SH_OFFSET, note_at);
	sh_set(&f, sh, SH_SIZE, note_size);
	sh_set(&f, sh, SH_ALIGN, 4);
	nr++;
	set(&f, eh + (f.is64 ? 0x28 : 0x20), tab_at, f.is64 ? 8 : 4);
	set(&f, eh + ehsize - 6, f.entsize, 2);
	set(&f, eh + ehsize - 4, nr, 2);
	set(&f, eh + ehsize - 2, shstrndx, 2);
	/* The additions first, the header last: a copy cut short is not a valid one. */
	if (write_at(fd, note, note_size, note_at) || write_at(fd, strtab, strsize, str_at) ||
	    write_at(fd, tab, (size_t)nr * f.entsize, tab_at) || write_at(fd, eh, ehsize, 0))
		goto out;
	ret = (long long)(tab_at + (uint64_t)nr * f.entsize);
	goto out;
nomem:
	errno = ENOMEM;
out:
	free(tab);
	free(strtab);
	return ret;
}
