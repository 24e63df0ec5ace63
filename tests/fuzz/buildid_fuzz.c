// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target for lib/elf_buildid.c: any input is a file; the parser
 * must return a known status, and a build-id it reports must be bytes of
 * the input at the offset it reports (a Go-derived one, 20 bytes of a
 * note in it); a large caller-supplied window
 * (elf_buildid_parse_buf) must give the very same result as the small
 * one.  ASan and UBSan catch the rest.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "elf_buildid.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct elf_buildid_mem m = { .buf = data, .size = size };
	static uint8_t win[65536];
	struct elf_buildid bid, big;
	int status = elf_buildid_parse(elf_buildid_mem_read, &m, size, &bid);

	if (elf_buildid_parse_buf(elf_buildid_mem_read, &m, size, &big, win, sizeof(win)) !=
	    status || memcmp(&big, &bid, sizeof(bid)))
		abort();

	if (status != (int)bid.status || status < 0 || status >= MMAP3_BUILDID_NR_STATUS)
		abort();
	/* A GNU id is bytes of the file; a derived one is 20 bytes, of a note in it. */
	if (status == MMAP3_BUILDID_FOUND && bid.kind == MMAP3_BUILDID_GNU &&
	    (!bid.size || bid.size > MMAP3_BUILD_ID_SIZE_MAX || bid.offset > size ||
	     bid.size > size - bid.offset || memcmp(bid.id, data + bid.offset, bid.size)))
		abort();
	if (status == MMAP3_BUILDID_FOUND && bid.kind == MMAP3_BUILDID_GO &&
	    (bid.size != ELF_BUILDID_GO_SIZE || bid.offset >= size))
		abort();
	if (bid.kind >= MMAP3_BUILDID_NR_KIND || (status != MMAP3_BUILDID_FOUND && bid.kind))
		abort();
	if (status != MMAP3_BUILDID_FOUND && bid.size)
		abort();
	return 0;
}
