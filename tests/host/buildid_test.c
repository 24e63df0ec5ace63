// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of lib/elf_buildid.c on crafted ELF files: both classes and
 * byte orders, notes anywhere, several notes and alignments, section
 * fallback, every size of build-id, and broken files of every kind.
 *
 *   buildid_test [CORPUS_DIR]   also write each crafted file there, as
 *                               seeds for the fuzzer
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "elf_buildid.h"
#include "elf_builder.h"
#include "tap.h"

static const char *corpus_dir;

struct mem {
	const uint8_t *buf;
	size_t size;
	int fail_errno;		/* make reads fail */
	size_t shrink_to;	/* make reads see a shorter file */
	int budget;		/* reads allowed before ELF_BUILDID_READ_LIMIT, if > 0 */
	int fail_after;		/* reads that succeed before fail_errno, if > 0 */
	int reads;
};

static long mem_read(void *ctx, void *buf, size_t len, __u64 off)
{
	struct mem *m = ctx;
	size_t size = m->shrink_to ? m->shrink_to : m->size;

	m->reads++;
	if (m->budget && m->reads > m->budget)
		return ELF_BUILDID_READ_LIMIT;
	if (m->fail_errno && m->reads > m->fail_after)
		return -m->fail_errno;
	if (off >= size)
		return 0;
	if (len > size - off)
		len = size - off;
	memcpy(buf, m->buf + off, len);
	return (long)len;
}

static int parse(const struct elf *e, size_t size, struct elf_buildid *bid)
{
	static int seq;
	struct mem m = { .buf = e->buf, .size = size };

	if (corpus_dir) {
		char path[4096];
		FILE *f;

		snprintf(path, sizeof(path), "%s/crafted-%03d", corpus_dir, seq++);
		f = fopen(path, "wb");
		if (f) {
			fwrite(e->buf, 1, size, f);
			fclose(f);
		}
	}
	return elf_buildid_parse(mem_read, &m, size, bid);
}

static uint8_t ID[256];

static int has_id(const struct elf_buildid *bid, uint32_t size)
{
	return bid->status == MMAP3_BUILDID_FOUND && bid->size == size &&
	       !memcmp(bid->id, ID, size);
}

static void test_classes_and_byte_orders(void)
{
	int is64, msb;

	for (is64 = 0; is64 <= 1; is64++) {
		for (msb = 0; msb <= 1; msb++) {
			struct elf e = new_elf(is64, msb, 1, 0);
			struct elf_buildid bid;
			uint64_t end = add_buildid(&e, 512, ID, 20, 4);

			add_ph(&e, 0, 4, 512, end - 512, 4);
			parse(&e, e.size, &bid);
			CHECK(has_id(&bid, 20), "ELF%d %s: build-id in PT_NOTE",
			      is64 ? 64 : 32, msb ? "big-endian" : "little-endian");
			CHECK(bid.offset == 512 + 16, "ELF%d %s: offset of the id",
			      is64 ? 64 : 32, msb ? "big-endian" : "little-endian");
			free(e.buf);
		}
	}
}

static void test_note_past_first_page(void)
{
	struct elf e = new_elf(1, 0, 2, 0);
	struct elf_buildid bid;
	uint64_t end = add_buildid(&e, 3 * 4096 + 100, ID, 20, 4);

	add_ph(&e, 0, 1, 0, 4096, 4096);		/* PT_LOAD */
	add_ph(&e, 1, 4, 3 * 4096 + 100, end - (3 * 4096 + 100), 4);
	parse(&e, e.size, &bid);
	CHECK(has_id(&bid, 20), "note past the first page (at 12 KiB)");
	free(e.buf);
}

static void test_many_program_headers(void)
{
	const int n = 2000;
	struct elf e = new_elf(1, 0, n, 0);
	struct elf_buildid bid;
	uint64_t at = e.size + 64, end;
	int i;

	for (i = 0; i < n - 1; i++)
		add_ph(&e, i, 1, 0, 64, 8);
	end = add_buildid(&e, at, ID, 20, 4);
	add_ph(&e, n - 1, 4, at, end - at, 4);
	parse(&e, e.size, &bid);
	CHECK(has_id(&bid, 20), "%d program headers, PT_NOTE last", n);
	free(e.buf);
}

static void test_several_notes_and_alignment(void)
{
	static const uint8_t junk[7] = "abcdef";
	int align;

	for (align = 4; align <= 8; align += 4) {
		struct elf e = new_elf(1, 0, 1, 0);
		struct elf_buildid bid;
		uint64_t off = 256;

		/* Odd sizes make 4- and 8-byte padding differ. */
		off = add_note(&e, off, "GNU", 4, 5, junk, 7, align);	/* GNU_PROPERTY-ish */
		off = add_note(&e, off, "stapsdt", 8, 3, junk, 5, align); /* type 3, other name */
		off = add_note(&e, off, "GN", 3, 3, junk, 3, align);	/* name prefix */
		off = add_buildid(&e, off, ID, 20, align);
		add_ph(&e, 0, 4, 256, off - 256, align);
		parse(&e, e.size, &bid);
		CHECK(has_id(&bid, 20), "build-id fourth of four notes, %d-byte alignment", align);
		free(e.buf);
	}
}

static void test_sizes(void)
{
	static const uint32_t sizes[] = { 1, 2, 8, 16, 20, 32, 64 };
	size_t i;

	for (i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		struct elf e = new_elf(1, 0, 1, 0);
		struct elf_buildid bid;
		uint64_t end = add_buildid(&e, 128, ID, sizes[i], 4);

		add_ph(&e, 0, 4, 128, end - 128, 4);
		parse(&e, e.size, &bid);
		CHECK(has_id(&bid, sizes[i]), "%u-byte build-id", sizes[i]);
		free(e.buf);
	}
	{
		struct elf e = new_elf(1, 0, 1, 0);
		struct elf_buildid bid;
		uint64_t end = add_buildid(&e, 128, ID, MMAP3_BUILD_ID_SIZE_MAX + 1, 4);

		add_ph(&e, 0, 4, 128, end - 128, 4);
		parse(&e, e.size, &bid);
		CHECK(bid.status == MMAP3_BUILDID_TOO_LONG && bid.size == 0,
		      "65-byte build-id: too long");
		free(e.buf);
	}
	{
		struct elf e = new_elf(1, 0, 1, 0);
		struct elf_buildid bid;
		uint64_t end = add_buildid(&e, 128, ID, 0, 4);

		add_ph(&e, 0, 4, 128, end - 128, 4);
		parse(&e, e.size, &bid);
		CHECK(bid.status == MMAP3_BUILDID_CORRUPT && bid.offset == 128,
		      "empty build-id: corrupt, at the note");
		free(e.buf);
	}
}

static void test_no_buildid(void)
{
	struct elf e = new_elf(1, 0, 1, 0);
	struct elf_buildid bid;
	uint64_t end = add_note(&e, 128, "GNU", 4, 1, ID, 16, 4);	/* ABI tag */

	add_ph(&e, 0, 4, 128, end - 128, 4);
	parse(&e, e.size, &bid);
	CHECK(bid.status == MMAP3_BUILDID_NO_NOTE, "only an ABI-tag note: no build-id");
	free(e.buf);

	e = new_elf(0, 1, 0, 0);
	parse(&e, e.size, &bid);
	CHECK(bid.status == MMAP3_BUILDID_NO_NOTE, "no headers at all: no build-id");
	free(e.buf);
}

static void test_section_fallback(void)
{
	int is64;

	for (is64 = 0; is64 <= 1; is64++) {
		struct elf e = new_elf(is64, is64, 0, 3);
		struct elf_buildid bid;
		uint64_t at = e.size + 32, end = add_buildid(&e, at, ID, 20, 4);

		add_sh(&e, 1, 1, 0, 16, 1);		/* PROGBITS */
		add_sh(&e, 2, 7, at, end - at, 4);	/* NOTE */
		parse(&e, e.size, &bid);
		CHECK(has_id(&bid, 20), "ELF%d: build-id in a SHT_NOTE section only",
		      is64 ? 64 : 32);
		free(e.buf);
	}
}

static void test_extended_counts(void)
{
	/* PN_XNUM: the real program header count is section 0's sh_info. */
	struct elf e = new_elf(1, 0, 3, 1);
	struct elf_buildid bid;
	uint64_t at = e.size, end = add_buildid(&e, at, ID, 20, 4);

	add_ph(&e, 2, 4, at, end - at, 4);
	put(&e, 56, 0xffff, 2);				/* e_phnum = PN_XNUM */
	put(&e, e.shoff + 44, 3, 4);			/* sh_info */
	parse(&e, e.size, &bid);
	CHECK(has_id(&bid, 20), "PN_XNUM: program header count from section 0");

	put(&e, e.shoff + 44, 0xffffffff, 4);
	parse(&e, e.size, &bid);
	CHECK(bid.status == MMAP3_BUILDID_LIMIT, "PN_XNUM with 2^32-1 headers: limit");
	free(e.buf);
}

static void test_not_elf(void)
{
	static const char script[] = "#!/bin/sh\necho hello\n";
	struct elf e = { .buf = (uint8_t *)script, .size = sizeof(script) - 1 };
	struct elf_buildid bid;

	parse(&e, e.size, &bid);
	CHECK(bid.status == MMAP3_BUILDID_NOT_ELF, "a script: not ELF");
	parse(&e, 0, &bid);
	CHECK(bid.status == MMAP3_BUILDID_NOT_ELF, "an empty file: not ELF");
	e.buf = (uint8_t *)"\177ELF\2\1\1";
	parse(&e, 7, &bid);
	CHECK(bid.status == MMAP3_BUILDID_TRUNCATED, "7 bytes of ELF header: truncated");
}

static void test_bad_ident(void)
{
	static const struct { int byte, value; const char *what; } cases[] = {
		{ 4, 0, "class 0" }, { 4, 3, "class 3" }, { 5, 0, "byte order 0" },
		{ 5, 3, "byte order 3" }, { 6, 0, "version 0" }, { 6, 2, "version 2" },
	};
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct elf e = new_elf(1, 0, 0, 0);
		struct elf_buildid bid;

		e.buf[cases[i].byte] = cases[i].value;
		parse(&e, e.size, &bid);
		CHECK(bid.status == MMAP3_BUILDID_CORRUPT && bid.offset == 4,
		      "ident %s: corrupt", cases[i].what);
		free(e.buf);
	}
}

static void test_truncated(void)
{
	struct elf e = new_elf(1, 0, 4, 0);
	struct elf_buildid bid;
	uint64_t at = e.size + 8, end = add_buildid(&e, at, ID, 20, 4);

	add_ph(&e, 3, 4, at, end - at, 4);
	parse(&e, 40, &bid);
	CHECK(bid.status == MMAP3_BUILDID_TRUNCATED, "cut in the ELF header: truncated");
	parse(&e, 64 + 56 * 2, &bid);
	CHECK(bid.status == MMAP3_BUILDID_TRUNCATED && bid.offset == 64,
	      "cut in the program header table: truncated, at the table");
	parse(&e, end - 4, &bid);
	CHECK(bid.status == MMAP3_BUILDID_TRUNCATED && bid.offset == at,
	      "cut in the note: truncated, at the note");
	parse(&e, end, &bid);
	CHECK(has_id(&bid, 20), "not cut: found");

	/* The file shrinks between stat and read. */
	{
		struct mem m = { .buf = e.buf, .size = e.size, .shrink_to = at + 4 };

		elf_buildid_parse(mem_read, &m, e.size, &bid);
		CHECK(bid.status == MMAP3_BUILDID_TRUNCATED, "file shrinks while read: truncated");
	}
	free(e.buf);
}

static void test_io_error(void)
{
	struct elf e = new_elf(1, 0, 1, 0);
	struct mem m = { .buf = e.buf, .size = e.size, .fail_errno = EIO };
	struct elf_buildid bid;

	elf_buildid_parse(mem_read, &m, e.size, &bid);
	CHECK(bid.status == MMAP3_BUILDID_IO_ERROR && bid.error == EIO,
	      "read error: reported with its errno");
	free(e.buf);
}

/*
 * A reader that stops the parse (its budget spent, or a failure) decides
 * the outcome, even after the parser saw another problem: what the rest
 * of the file holds is unknown.  And nothing more is read.
 */
static void test_stopped_reads(void)
{
	struct elf e = new_elf(1, 0, 2, 0);
	struct mem m = { 0 };
	struct elf_buildid bid;
	uint64_t end;

	/* A broken PT_NOTE first, the build-id in the second, 64 KiB on. */
	add_ph(&e, 0, 4, 200, 1ull << 40, 4);
	end = add_buildid(&e, 1 << 16, ID, 20, 4);
	add_ph(&e, 1, 4, 1 << 16, end - (1 << 16), 4);
	m.buf = e.buf;
	m.size = e.size;
	elf_buildid_parse(mem_read, &m, e.size, &bid);
	CHECK(has_id(&bid, 20), "the id after a broken segment: found");

	/* It takes two reads: the headers, then the note. */
	m.reads = 0;
	m.budget = 1;
	elf_buildid_parse(mem_read, &m, e.size, &bid);
	CHECK(bid.status == MMAP3_BUILDID_LIMIT && m.reads == 2,
	      "a budget of 1 read: LIMIT, and no read after the refused one");
	m.reads = 0;
	m.budget = 2;
	elf_buildid_parse(mem_read, &m, e.size, &bid);
	CHECK(has_id(&bid, 20) && m.reads == 2, "a budget of 2 reads: found");
	m.budget = 0;
	m.reads = 0;
	m.fail_errno = EIO;
	m.fail_after = 1;
	elf_buildid_parse(mem_read, &m, e.size, &bid);
	CHECK(bid.status == MMAP3_BUILDID_IO_ERROR && bid.error == EIO && m.reads == 2,
	      "read error after a corrupt segment: IO_ERROR, not CORRUPT");
	free(e.buf);
}

static void test_hostile_offsets(void)
{
	static const struct {
		uint64_t off, size;
		unsigned int status;
		const char *what;
	} cases[] = {
		{ ~0ull - 7, 16, MMAP3_BUILDID_CORRUPT, "note offset near 2^64" },
		{ 128, ~0ull - 64, MMAP3_BUILDID_TRUNCATED, "offset + size overflows" },
		{ 1ull << 40, 64, MMAP3_BUILDID_CORRUPT, "note offset past the end" },
		{ 128, 1ull << 40, MMAP3_BUILDID_TRUNCATED, "note size past the end" },
	};
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct elf e = new_elf(1, 0, 2, 0);
		struct elf_buildid bid;
		uint64_t end;

		add_ph(&e, 0, 4, cases[i].off, cases[i].size, 4);
		parse(&e, e.size, &bid);
		CHECK(bid.status == cases[i].status, "%s", cases[i].what);

		/* A broken segment does not hide a good one. */
		end = add_buildid(&e, 256, ID, 20, 4);
		add_ph(&e, 1, 4, 256, end - 256, 4);
		parse(&e, e.size, &bid);
		CHECK(has_id(&bid, 20), "%s, then a good segment: found", cases[i].what);
		free(e.buf);
	}
}

/* A PT_NOTE at 256 of @n empty 12-byte notes, then the build-id note. */
static void parse_after_empty_notes(unsigned int n, struct elf_buildid *bid)
{
	struct elf e = new_elf(1, 0, 1, 0);
	uint64_t end;

	put(&e, 256 + 12 * n - 1, 0, 1);
	end = add_buildid(&e, 256 + 12 * n, ID, 20, 4);
	add_ph(&e, 0, 4, 256, end - 256, 4);
	parse(&e, e.size, bid);
	free(e.buf);
}

static void test_hostile_notes(void)
{
	struct elf e = new_elf(1, 0, 1, 0);
	struct elf_buildid bid;

	/* descsz 2^32-1 inside a small segment. */
	add_note(&e, 128, "GNU", 4, 3, ID, 20, 4);
	put(&e, 132, 0xffffffff, 4);
	add_ph(&e, 0, 4, 128, 36, 4);
	parse(&e, e.size, &bid);
	CHECK(bid.status == MMAP3_BUILDID_CORRUPT && bid.offset == 128,
	      "note descsz 2^32-1: corrupt, at the note");
	/* namesz 2^32-1. */
	put(&e, 132, 20, 4);
	put(&e, 128, 0xffffffff, 4);
	parse(&e, e.size, &bid);
	CHECK(bid.status == MMAP3_BUILDID_CORRUPT, "note namesz 2^32-1: corrupt");
	free(e.buf);

	/* The PT_NOTE covers the ELF and program headers: parsed as notes. */
	e = new_elf(1, 0, 1, 0);
	add_ph(&e, 0, 4, 0, e.size, 4);
	parse(&e, e.size, &bid);
	CHECK(bid.status != MMAP3_BUILDID_FOUND, "PT_NOTE overlapping the headers: no id");
	free(e.buf);

	/* Two segments, one note. */
	e = new_elf(1, 0, 2, 0);
	{
		uint64_t end = add_buildid(&e, 256, ID, 20, 4);

		add_ph(&e, 0, 4, 256, end - 256, 4);
		add_ph(&e, 1, 4, 256, end - 256, 4);
	}
	parse(&e, e.size, &bid);
	CHECK(has_id(&bid, 20), "two PT_NOTEs over the same note: found");
	free(e.buf);

	/* 1 MiB of minimal notes: bounded. */
	e = new_elf(1, 0, 1, 0);
	put(&e, 256 + (1 << 20) - 1, 0, 1);
	add_ph(&e, 0, 4, 256, 1 << 20, 4);
	parse(&e, e.size, &bid);
	CHECK(bid.status == MMAP3_BUILDID_LIMIT, "87381 empty notes: stops at the limit");
	free(e.buf);

	/* The limit, 1024 notes: the build-id as the 1024th is found. */
	parse_after_empty_notes(1023, &bid);
	CHECK(has_id(&bid, 20), "the build-id after 1023 empty notes: found");
	parse_after_empty_notes(1024, &bid);
	CHECK(bid.status == MMAP3_BUILDID_LIMIT && bid.offset == 256 + 12 * 1024,
	      "after 1024: over the limit, at the 1025th note");

	/* Program header entry size too small. */
	e = new_elf(1, 0, 1, 0);
	put(&e, 54, 16, 2);
	parse(&e, e.size, &bid);
	CHECK(bid.status == MMAP3_BUILDID_CORRUPT && bid.offset == 64,
	      "e_phentsize 16: corrupt, at the table");
	free(e.buf);

	/* Program header table offset past the end. */
	e = new_elf(1, 0, 1, 0);
	put(&e, 0x20, 1ull << 50, 8);
	parse(&e, e.size, &bid);
	CHECK(bid.status == MMAP3_BUILDID_CORRUPT, "e_phoff past the end: corrupt");
	free(e.buf);
}

/* An ELF file whose one PT_NOTE holds a Go build id note @desc, then @gnu if set. */
static struct elf go_elf(const char *desc, uint32_t descsz, const uint8_t *gnu)
{
	struct elf e = new_elf(1, 0, 1, 0);
	uint64_t at = 256, end;

	end = add_note(&e, at, "Go\0", 4, 4, (const uint8_t *)desc, descsz, 4);
	if (gnu)
		end = add_buildid(&e, end, gnu, 20, 4);
	add_ph(&e, 0, 4, at, end - at, 4);
	return e;
}

static int hex_is(const struct elf_buildid *bid, const char *hex)
{
	char got[2 * MMAP3_BUILD_ID_SIZE_MAX + 1];
	uint32_t i;

	for (i = 0; i < bid->size; i++)
		sprintf(got + 2 * i, "%02x", bid->id[i]);
	got[2 * bid->size] = '\0';
	return bid->status == MMAP3_BUILDID_FOUND && bid->kind == MMAP3_BUILDID_GO &&
	       !strcmp(got, hex);
}

/*
 * A file with a Go build id and no GNU one gets the id Go's linker
 * derives with -B gobuildid.  The oracles: what Go 1.22's and 1.23's
 * linkers wrote as the GNU build-id next to these Go build ids (go build
 * -ldflags=-B=gobuildid), and Python's hashlib for the crafted ones.
 */
static void test_go_build_id(void)
{
	static const struct {
		const char *desc, *want, *what;
	} cases[] = {
		{ "6R_pxBuKg5vk3kvZwQVd/ukQA5nNnHTfSGpfN2UP4/HzaOZOEgyhmnkGcEnDgd/BLr8tBvlOl-jYey4eUb8",
		  "64cd3e98782098c1316c00a63010e6f45bc63482", "Go 1.22's linker" },
		{ "DXRMZgR7aUBLEdIbbgqh/Eicoihyu10HcNEdnLP-2/hdfkTCTXfqVAvYghT8IX/PCut_7VvkVLyJuARiFxe",
		  "5db377e3b9a607508409f14f088235438e6a4ce1", "Go 1.23's linker" },
		{ "AAAAAAAAAAAAAAAAAAAA/BBBBBBBBBBBBBBBBBBBB/CCCCCCCCCCCCCCCCCCCC/DDDDDDDDDDDDDDDDDDDD",
		  "351f4450f8c384146b71f8b10e63593951477a76", "four fields: the last hashed as the first" },
		{ "AAAAAAAAAAAAAAAAAAAA/BBBBBBBBBBBBBBBBBBBB/CCCCCCCCCCCCCCCCCCCC+DDDDDDDDDDDDDDDDDDDD",
		  "87462fb42e729f3dad86c4c510d0090d2ccb409f", "83 bytes, not four fields: hashed as it is" },
		{ "redacted", "4976e6500ffe27c99db6bfc5dabb045d27ccf7b0", "-buildid=redacted" },
	};
	static const uint8_t gnu[20] = { 0x11, 0x22, 0x33 };
	char big[300];
	struct elf_buildid bid;
	struct elf e;
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		e = go_elf(cases[i].desc, (uint32_t)strlen(cases[i].desc), NULL);
		parse(&e, e.size, &bid);
		CHECK(hex_is(&bid, cases[i].want), "Go build id, %s: derived id", cases[i].what);
		free(e.buf);
	}
	/* A GNU note wins, before or after the Go one. */
	e = go_elf(cases[0].desc, 83, gnu);
	parse(&e, e.size, &bid);
	CHECK(bid.status == MMAP3_BUILDID_FOUND && bid.kind == MMAP3_BUILDID_GNU &&
	      bid.size == 20 && !memcmp(bid.id, gnu, 20), "a GNU build-id beside a Go one is the id");
	free(e.buf);
	/* Ids Go never writes derive nothing. */
	memset(big, 'a', sizeof(big));
	e = go_elf(big, 257, NULL);
	parse(&e, e.size, &bid);
	CHECK(bid.status == MMAP3_BUILDID_NO_NOTE, "a Go build id of 257 bytes: no id (status %u)",
	      bid.status);
	free(e.buf);
	e = go_elf(big, 256, NULL);
	parse(&e, e.size, &bid);
	CHECK(bid.status == MMAP3_BUILDID_FOUND && bid.kind == MMAP3_BUILDID_GO,
	      "a Go build id of 256 bytes: derived");
	free(e.buf);
	e = go_elf("", 0, NULL);
	parse(&e, e.size, &bid);
	CHECK(bid.status == MMAP3_BUILDID_NO_NOTE, "an empty Go build id: no id");
	free(e.buf);
	e = go_elf("abc\0def", 7, NULL);
	parse(&e, e.size, &bid);
	CHECK(bid.status == MMAP3_BUILDID_NO_NOTE, "a Go build id with a NUL: no id");
	free(e.buf);
	/* Cut inside the note: corrupt, as any note. */
	e = go_elf(cases[0].desc, 83, NULL);
	add_ph(&e, 0, 4, 256, 12 + 4 + 40, 4);
	parse(&e, e.size, &bid);
	CHECK(bid.status == MMAP3_BUILDID_CORRUPT, "a Go note overrunning its segment: corrupt "
	      "(status %u)", bid.status);
	free(e.buf);
	e = go_elf(cases[0].desc, 83, NULL);
	parse(&e, 256 + 12 + 4 + 40, &bid);
	CHECK(bid.status == MMAP3_BUILDID_TRUNCATED, "a file ending in its Go note: truncated "
	      "(status %u)", bid.status);
	free(e.buf);
	/* Another owner's note of type 4, or Go's of another type: not a Go build id. */
	e = new_elf(1, 0, 1, 0);
	add_ph(&e, 0, 4, 256, add_note(&e, 256, "GNU", 4, 4, (const uint8_t *)"redacted", 8, 4) - 256, 4);
	parse(&e, e.size, &bid);
	CHECK(bid.status == MMAP3_BUILDID_NO_NOTE, "a GNU note of type 4: no id");
	free(e.buf);
	e = new_elf(1, 0, 1, 0);
	add_ph(&e, 0, 4, 256, add_note(&e, 256, "Go\0", 4, 3, (const uint8_t *)"redacted", 8, 4) - 256, 4);
	parse(&e, e.size, &bid);
	CHECK(bid.status == MMAP3_BUILDID_NO_NOTE, "a Go note of type 3: no id");
	free(e.buf);
	/* The parser's budget holds: the Go note costs reads like any. */
	e = go_elf(cases[0].desc, 83, NULL);
	{
		struct mem m = { .buf = e.buf, .size = e.size };
		static uint8_t win[4096];

		elf_buildid_parse_buf(mem_read, &m, e.size, &bid, win, sizeof(win));
		CHECK(m.reads == 1 && bid.status == MMAP3_BUILDID_FOUND,
		      "a Go build id in the first page costs one read (%d)", m.reads);
	}
	free(e.buf);
}

int main(int argc, char **argv)
{
	size_t i;

	if (argc > 1)
		corpus_dir = argv[1];
	for (i = 0; i < sizeof(ID); i++)
		ID[i] = (uint8_t)(0xa5 ^ (i * 7));

	test_classes_and_byte_orders();
	test_note_past_first_page();
	test_many_program_headers();
	test_several_notes_and_alignment();
	test_sizes();
	test_no_buildid();
	test_section_fallback();
	test_extended_counts();
	test_not_elf();
	test_bad_ident();
	test_truncated();
	test_io_error();
	test_stopped_reads();
	test_hostile_offsets();
	test_hostile_notes();
	test_go_build_id();
	return tap_done();
}
