/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ELF build-id parser shared by the module, the tool, the host tests and
 * the fuzzer.  Freestanding: it reads the file only through a callback.
 */
#ifndef MMAP3_ELF_BUILDID_H
#define MMAP3_ELF_BUILDID_H

#include <linux/types.h>
#ifndef __KERNEL__
#include <stddef.h>
#endif
#include <linux/mmap3.h>

/* The note type of a GNU build-id, with the name "GNU". */
#define ELF_BUILDID_NOTE_TYPE	3
/* The note type of a Go build id, with the name "Go\0\0" (.note.go.buildid). */
#define ELF_BUILDID_GO_NOTE_TYPE 4
/* The size of a build-id derived from a Go build id, as Go's linker makes it. */
#define ELF_BUILDID_GO_SIZE	20

/*
 * Read up to @len bytes at @off into @buf.  Return the number of bytes
 * read, short only at the end of the file, or a negative errno; or
 * ELF_BUILDID_READ_LIMIT to stop the parse because the caller's work
 * budget for the file is spent (the result is then MMAP3_BUILDID_LIMIT).
 */
typedef long (*elf_buildid_read_t)(void *ctx, void *buf, size_t len, __u64 off);

/* Not an errno: those end at 4095. */
#define ELF_BUILDID_READ_LIMIT	(-4096L)

struct elf_buildid {
	/* enum mmap3_buildid_status */
	__u32 status;
	/* Build-id length; 0 unless status is MMAP3_BUILDID_FOUND. */
	__u32 size;
	/* enum mmap3_buildid_kind: where a found id comes from. */
	__u32 kind;
	/* File offset of the build-id, or where the problem was found. */
	__u64 offset;
	/* The errno of a failed read, for MMAP3_BUILDID_IO_ERROR. */
	int error;
	__u8 id[MMAP3_BUILD_ID_SIZE_MAX];
};

/*
 * Find the GNU build-id note of the ELF file of @file_size bytes read by
 * @read, in PT_NOTE segments first, then in SHT_NOTE sections; a file
 * with none but a Go build id note gets the id derived from it
 * (MMAP3_BUILDID_GO).  Return and store in @bid->status an enum
 * mmap3_buildid_status.
 */
int elf_buildid_parse(elf_buildid_read_t read, void *ctx, __u64 file_size,
		      struct elf_buildid *bid);

/*
 * The same, reading through the caller's window @buf of @buf_size bytes
 * (at least ELF_BUILDID_WIN_MIN) instead of a small one on the stack: a
 * window of a page or more finds most ids in one read and reads section
 * header tables in few.  The result does not depend on the window.
 */
#define ELF_BUILDID_WIN_MIN	256

/*
 * The module's per-file budget, through a window of 4 KiB: a real file
 * needs 1 to 3 reads of a page or less.  Beyond, status LIMIT.  The tool
 * reading a file without the module (mmap3 buildid --no-module) keeps
 * it too, so both say the same of one file.
 */
#define ELF_BUILDID_MAX_READS	16
#define ELF_BUILDID_MAX_BYTES	(64U << 10)
/* Largest file given an id of its bytes, by default (MiB). */
#define ELF_BUILDID_CONTENT_MAX_MB	16
int elf_buildid_parse_buf(elf_buildid_read_t read, void *ctx, __u64 file_size,
			  struct elf_buildid *bid, void *buf, size_t buf_size);

/*
 * Find the GNU build-id in a bare sequence of notes in this machine's
 * byte order (such as /sys/kernel/notes) of @size bytes, padded to
 * @align (4 or 8).
 */
int elf_buildid_parse_notes(elf_buildid_read_t read, void *ctx, __u64 size, __u32 align,
			    struct elf_buildid *bid);

/*
 * The identity of a file with no build-id note (MMAP3_BUILDID_CONTENT):
 * the first ELF_BUILDID_CONTENT_SIZE bytes of SHA-256 of
 * ELF_BUILDID_CONTENT_TAG (its NUL included), the file's size as 8
 * little-endian bytes, and its @file_size bytes, read through @read in
 * pieces of @buf_size at @buf.  Return and store in @bid->status FOUND,
 * or why not: IO_ERROR, LIMIT (the caller's budget), TRUNCATED (the
 * file ended early).  Two files get one id only if they are the same
 * bytes, short of a SHA-256 collision in 160 bits.
 */
#define ELF_BUILDID_CONTENT_TAG		"mmap3 content identity 1"
#define ELF_BUILDID_CONTENT_SIZE	20
int elf_buildid_content(elf_buildid_read_t read, void *ctx, __u64 file_size,
			struct elf_buildid *bid, void *buf, size_t buf_size);

/* A file in memory, for elf_buildid_mem_read(). */
struct elf_buildid_mem {
	const void *buf;
	size_t size;
};

long elf_buildid_mem_read(void *ctx, void *buf, size_t len, __u64 off);

/* A short description of a status, e.g. "not an ELF file". */
const char *elf_buildid_status_str(unsigned int status);

#endif /* MMAP3_ELF_BUILDID_H */
