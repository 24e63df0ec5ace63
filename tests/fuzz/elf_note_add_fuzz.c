// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target for userspace/elf_note_add.c: any input is a stored
 * copy of a mapped file (any user's bytes).  A note is added or refused
 * with a reason; once added, the file keeps every input byte but the ELF
 * header's section-table fields, and lib/elf_buildid.c finds the added
 * id in it (a GNU note in a section, where no GNU note was before).
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "elf_buildid.h"
#include "elf_buildid_fd.h"
#include "elf_note_add.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The ELF header's e_shoff, e_shentsize, e_shnum, e_shstrndx, in either class. */
static int header_field(const uint8_t *data, size_t i)
{
	if (data[4] == 2)
		return (i >= 0x28 && i < 0x30) || (i >= 0x3a && i < 0x40);
	return (i >= 0x20 && i < 0x24) || (i >= 0x2e && i < 0x34);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const uint8_t id[20] = { 0xde, 0xad, 0xbe, 0xef, 1, 2, 3, 4, 5, 6, 7, 8, 9 };
	static uint8_t win[4096];
	struct elf_buildid before, after;
	struct elf_buildid_mem m = { .buf = data, .size = size };
	const char *why;
	long long n;
	uint8_t *out;
	size_t i;
	int fd = memfd_create("elf_note_add_fuzz", MFD_CLOEXEC);

	if (fd < 0 || write(fd, data, size) != (ssize_t)size)
		abort();
	elf_buildid_parse_buf(elf_buildid_mem_read, &m, size, &before, win, sizeof(win));
	n = elf_note_add(fd, size, id, sizeof(id), &why);
	if (n < 0) {
		/* Refused for what the file holds, never for a write. */
		if (!why)
			abort();
		close(fd);
		return 0;
	}
	if ((uint64_t)n <= size)
		abort();
	out = malloc((size_t)n);
	if (!out || pread(fd, out, (size_t)n, 0) != n)
		abort();
	for (i = 0; i < size; i++)
		if (out[i] != data[i] && !(i < 64 && header_field(data, i)))
			abort();
	elf_buildid_parse_buf(elf_buildid_fd_read, &fd, (uint64_t)n, &after, win, sizeof(win));
	/*
	 * No GNU note before, and the parser looked everywhere: the added one
	 * is the id now (or the one more note passed the parser's limit).
	 */
	if ((before.status == MMAP3_BUILDID_NO_NOTE ||
	     (before.status == MMAP3_BUILDID_FOUND && before.kind == MMAP3_BUILDID_GO)) &&
	    after.status != MMAP3_BUILDID_LIMIT &&
	    !(after.status == MMAP3_BUILDID_FOUND && after.kind == MMAP3_BUILDID_GNU &&
	      after.size == sizeof(id) && !memcmp(after.id, id, sizeof(id))))
		abort();
	free(out);
	close(fd);
	return 0;
}
