// SPDX-License-Identifier: GPL-2.0
/*
 * ELF build-id parser shared by the module, the tool, the host tests and
 * the fuzzer.
 *
 * Everything read from the file is untrusted: each offset and size is
 * checked against the file size in 64-bit arithmetic that cannot wrap
 * (offsets are at most 2^64 - 1 only when the file is, so any offset
 * compared to the file size first), and the number of headers and notes
 * examined is bounded, so a hostile file costs a bounded number of reads.
 */
#ifdef __KERNEL__
#include <linux/string.h>
#else
#include <stdbool.h>
#include <stddef.h>
#include <string.h>
#endif

#include "elf_buildid.h"
#include "sha256.h"

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
#define IS_BIG_ENDIAN	true
#else
#define IS_BIG_ENDIAN	false
#endif

#define EI_NIDENT	16
#define ELFCLASS32	1
#define ELFCLASS64	2
#define ELFDATA2LSB	1
#define ELFDATA2MSB	2
#define EV_CURRENT	1
#define PT_NOTE		4
#define SHT_NOTE	7
#define PN_XNUM		0xffff

/*
 * Work limits: far above any real file, low enough to bound a hostile one.
 * Real files carry a handful of notes before the build-id; 1024 keeps a
 * segment of empty notes (5461 in the 64 KiB the module reads) from
 * costing the worker more than headers crafted to the read budget do.
 */
#define MAX_PHDRS	65536u
/* A Go build id longer than this is not one Go's tools made (83 bytes). */
#define GO_ID_MAX	256u
/* What go build writes: four fields of 20 base64url characters, "A/B/C/D". */
#define GO_ID_FIELDS	83u
#define MAX_SHDRS	1048576u
#define MAX_NOTES	1024u

/*
 * The window elf_buildid_parse() keeps on the stack (the module's), and
 * how far the first read looks ahead: the ELF header, the program
 * headers and the notes after them are in the first 2 KB of nearly
 * every file (of 4410 ELF files under a Debian /usr, all but 3% of those
 * with program headers), so a window that large finds the id in one read.
 */
#define WINDOW		ELF_BUILDID_WIN_MIN
#define FIRST_READ	2048u

struct reader {
	elf_buildid_read_t read;
	void *ctx;
	__u64 size;		/* of the file */
	__u64 win_off;		/* file offset of win[0] */
	__u32 win_len;		/* valid bytes in win */
	__u32 win_cap;		/* size of win, at least WINDOW */
	__u8 *win;
	bool is64;
	bool msb;
	unsigned int notes;	/* examined so far, against MAX_NOTES */
	bool stop;		/* a read failed or the caller's budget ran out */
	bool go_found;		/* @go_id holds a Go build id's derived id */
	__u8 go_id[ELF_BUILDID_GO_SIZE];
	__u64 go_off;		/* of that Go build id */
	struct elf_buildid *bid;
};

/* The first problem found is the one reported, unless a build-id is. */
static int fail(struct reader *r, unsigned int status, __u64 offset)
{
	if (r->bid->status == MMAP3_BUILDID_NO_NOTE) {
		r->bid->status = status;
		r->bid->offset = offset;
	}
	return -1;
}

/*
 * Copy @len bytes at file offset @off to @dst.  The caller has checked
 * that [off, off + len) lies within the file.  When the window must be
 * refilled, it reads up to @ahead bytes from @off (what the caller will
 * want next: the rest of a table or of the notes), as many as fit:
 * fewer, larger reads, and none of bytes nobody asked for.
 */
static int get_ahead(struct reader *r, __u64 off, void *dst, __u32 len, __u64 ahead)
{
	long n;

	if (off < r->win_off || off + len > r->win_off + r->win_len) {
		__u32 want = r->win_cap;

		if (len > r->win_cap)
			return fail(r, MMAP3_BUILDID_CORRUPT, off);
		if (ahead < want)
			want = ahead < len ? len : (__u32)ahead;
		if (r->size - off < want)
			want = r->size - off;
		n = r->read(r->ctx, r->win, want, off);
		if (n < 0) {
			/*
			 * Nothing more can be read: stop.  What the rest of
			 * the file holds is unknown, so this is the outcome
			 * whatever problem was seen before.
			 */
			r->stop = true;
			r->bid->status = n == ELF_BUILDID_READ_LIMIT ? MMAP3_BUILDID_LIMIT :
				MMAP3_BUILDID_IO_ERROR;
			r->bid->offset = off;
			r->bid->error = n == ELF_BUILDID_READ_LIMIT ? 0 : (int)-n;
			return -1;
		}
		r->win_off = off;
		r->win_len = n;
		/* The file shrank under us. */
		if (n < len)
			return fail(r, MMAP3_BUILDID_TRUNCATED, off + n);
	}
	memcpy(dst, r->win + (off - r->win_off), len);
	return 0;
}

/* Small reads close to each other: a note's name, then its descriptor. */
static int get(struct reader *r, __u64 off, void *dst, __u32 len)
{
	return get_ahead(r, off, dst, len, WINDOW);
}

static __u16 rd16(const struct reader *r, const __u8 *p)
{
	return r->msb ? (__u16)(p[0] << 8 | p[1]) : (__u16)(p[1] << 8 | p[0]);
}

static __u32 rd32(const struct reader *r, const __u8 *p)
{
	return r->msb ? (__u32)p[0] << 24 | (__u32)p[1] << 16 | (__u32)p[2] << 8 | p[3] :
			(__u32)p[3] << 24 | (__u32)p[2] << 16 | (__u32)p[1] << 8 | p[0];
}

static __u64 rd64(const struct reader *r, const __u8 *p)
{
	__u64 hi = rd32(r, r->msb ? p : p + 4), lo = rd32(r, r->msb ? p + 4 : p);

	return hi << 32 | lo;
}

/* An address-sized field: 4 bytes in ELF32, 8 in ELF64. */
static __u64 rdaddr(const struct reader *r, const __u8 *p)
{
	return r->is64 ? rd64(r, p) : rd32(r, p);
}

/* @a is a power of two; @x is at most a file size plus 2^32. */
static __u64 align_up(__u64 x, __u64 a)
{
	return (x + a - 1) & ~(a - 1);
}

/* Is [off, off + len) within the file? */
static bool in_file(const struct reader *r, __u64 off, __u64 len)
{
	return off <= r->size && len <= r->size - off;
}

/* What Go's build ids are made of: base64url, no padding. */
static bool go_id_char(__u8 c)
{
	return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
	       c == '-' || c == '_';
}

/*
 * The GNU build-id Go 1.22-1.23's linker writes with -B gobuildid
 * (cmd/link/internal/ld/elf.go, addbuildinfo()): the first 20 bytes of
 * notsha256 (SHA-256, every byte complemented: cmd/internal/notsha256)
 * of the -buildid it was given.  go build links with "A/B/C/A" (the
 * content id a placeholder, cmd/go/internal/work/buildid.go) and then
 * writes the real one, "A/B/C/D", into the note: so four fields of 20
 * characters are hashed with the first in place of the last.  Any other
 * id (-ldflags=-buildid=X) is hashed as it is.  An id Go never writes
 * (empty, longer than GO_ID_MAX, with a NUL) derives nothing.
 */
static int go_note(struct reader *r, __u64 desc_off, __u32 descsz)
{
	/* Room for go build's id whole: four fields it is only then. */
	__u8 buf[GO_ID_FIELDS + 1], digest[SHA256_DIGEST_BYTES];
	bool fields = descsz == GO_ID_FIELDS;
	struct sha256 s;
	__u32 at, n, i;

	if (!descsz || descsz > GO_ID_MAX)
		return 0;
	sha256_init(&s);
	for (at = 0; at < descsz; at += n) {
		n = descsz - at < sizeof(buf) ? descsz - at : sizeof(buf);
		if (get(r, desc_off + at, buf, n))
			return -1;
		if (memchr(buf, 0, n))
			return 0;
		for (i = 0; fields && i < n; i++)
			if (i % 21 == 20 ? buf[i] != '/' : !go_id_char(buf[i]))
				fields = false;
		/* A/B/C/D hashed as the A/B/C/A the linker was given. */
		if (fields)
			memcpy(buf + GO_ID_FIELDS - 20, buf, 20);
		sha256_update(&s, buf, n);
	}
	sha256_final(&s, digest);
	for (i = 0; i < ELF_BUILDID_GO_SIZE; i++)
		r->go_id[i] = ~digest[i];
	r->go_found = true;
	r->go_off = desc_off;
	return 0;
}

/*
 * Look for the GNU build-id among the notes in [off, off + len), laid out
 * with @align (4 or 8) byte padding.  Return 1 if found, 0 if not, -1 if
 * the notes are broken (status recorded).
 */
static int scan_notes(struct reader *r, __u64 off, __u64 len, __u64 align)
{
	__u64 end, pos;

	if (!len)
		return 0;
	if (!in_file(r, off, len))
		return fail(r, off > r->size ? MMAP3_BUILDID_CORRUPT :
			       MMAP3_BUILDID_TRUNCATED, off);
	end = off + len;
	align = align == 8 ? 8 : 4;

	for (pos = off; end - pos >= 12; ) {
		__u8 nhdr[12], name[4];
		__u64 name_off, desc_off, next;
		__u32 namesz, descsz, type;

		if (++r->notes > MAX_NOTES)
			return fail(r, MMAP3_BUILDID_LIMIT, pos);
		if (get_ahead(r, pos, nhdr, sizeof(nhdr), end - pos))
			return -1;
		namesz = rd32(r, nhdr);
		descsz = rd32(r, nhdr + 4);
		type = rd32(r, nhdr + 8);
		/*
		 * Name and descriptor start aligned relative to the start of
		 * the notes, as libelf reads them.  u32 sizes in u64
		 * arithmetic bounded by the file size: nothing can wrap.
		 */
		name_off = pos + 12;
		desc_off = off + align_up(name_off - off + namesz, align);
		next = off + align_up(desc_off - off + descsz, align);
		if (desc_off + descsz > end)
			return fail(r, MMAP3_BUILDID_CORRUPT, pos);

		if (type == ELF_BUILDID_GO_NOTE_TYPE && namesz == 4 && !r->go_found) {
			if (get(r, name_off, name, sizeof(name)))
				return -1;
			if (!memcmp(name, "Go\0\0", 4) && go_note(r, desc_off, descsz))
				return -1;
		}
		if (type == ELF_BUILDID_NOTE_TYPE && namesz == 4) {
			if (get(r, name_off, name, sizeof(name)))
				return -1;
			if (!memcmp(name, "GNU", 4)) {
				if (!descsz)
					return fail(r, MMAP3_BUILDID_CORRUPT, pos);
				if (descsz > MMAP3_BUILD_ID_SIZE_MAX)
					return fail(r, MMAP3_BUILDID_TOO_LONG, desc_off);
				if (get(r, desc_off, r->bid->id, descsz))
					return -1;
				r->bid->size = descsz;
				r->bid->offset = desc_off;
				return 1;
			}
		}
		/* The last note's padding may run past the end. */
		if (next >= end)
			break;
		pos = next;
	}
	return 0;
}

struct table {
	__u64 off;		/* of the first entry */
	__u32 entsize;
	__u32 num;
};

/* Check that a header table lies within the file and is not too large. */
static int check_table(struct reader *r, const struct table *t, __u32 min_entsize,
		       __u32 max_num)
{
	if (!t->num)
		return 0;
	if (t->entsize < min_entsize)
		return fail(r, MMAP3_BUILDID_CORRUPT, t->off);
	if (t->num > max_num)
		return fail(r, MMAP3_BUILDID_LIMIT, t->off);
	if (!in_file(r, t->off, (__u64)t->entsize * t->num))
		return fail(r, t->off > r->size ? MMAP3_BUILDID_CORRUPT : MMAP3_BUILDID_TRUNCATED,
			    t->off);
	return 0;
}

/*
 * Where notes are listed: program headers (PT_NOTE segments) or section
 * headers (SHT_NOTE sections).  Field offsets are [ELF32, ELF64].
 */
struct note_table {
	__u32 entsize[2];
	__u32 type_off;
	__u32 note_type;
	__u32 off[2], size[2], align[2];
	__u32 first;		/* section 0 is reserved */
	__u32 max;
};

static const struct note_table phdr_notes = {
	.entsize = { 32, 56 }, .type_off = 0, .note_type = PT_NOTE,
	.off = { 4, 8 }, .size = { 16, 32 }, .align = { 28, 48 },
	.first = 0, .max = MAX_PHDRS,
};

static const struct note_table shdr_notes = {
	.entsize = { 40, 64 }, .type_off = 4, .note_type = SHT_NOTE,
	.off = { 16, 24 }, .size = { 20, 32 }, .align = { 32, 48 },
	.first = 1, .max = MAX_SHDRS,
};

static int scan_table(struct reader *r, const struct table *t, const struct note_table *nt)
{
	__u32 i, c = r->is64, entsize = nt->entsize[c];
	int ret;

	if (check_table(r, t, entsize, nt->max))
		return -1;
	for (i = nt->first; i < t->num; i++) {
		__u64 pos = t->off + (__u64)i * t->entsize;
		__u8 e[64];

		/* Read ahead to the end of the table, checked to be in the file. */
		if (get_ahead(r, pos, e, entsize, (__u64)(t->num - i) * t->entsize))
			return -1;
		if (rd32(r, e + nt->type_off) != nt->note_type)
			continue;
		ret = scan_notes(r, rdaddr(r, e + nt->off[c]), rdaddr(r, e + nt->size[c]),
				 rdaddr(r, e + nt->align[c]));
		/* A broken segment does not hide a good one after it. */
		if (ret > 0)
			return ret;
		if (r->stop)
			return -1;
	}
	return 0;
}

static void reader_init(struct reader *r, elf_buildid_read_t read, void *ctx, __u64 size,
			struct elf_buildid *bid, void *win, size_t win_cap)
{
	memset(r, 0, sizeof(*r));
	r->win = win;
	r->win_cap = win_cap > 0x40000000 ? 0x40000000 : (__u32)win_cap;
	r->read = read;
	r->ctx = ctx;
	r->size = size;
	r->bid = bid;
	memset(bid, 0, sizeof(*bid));
	bid->status = MMAP3_BUILDID_NO_NOTE;
}

int elf_buildid_parse_buf(elf_buildid_read_t read, void *ctx, __u64 file_size,
			  struct elf_buildid *bid, void *buf, size_t buf_size)
{
	struct table ph, sh;
	__u8 eh[64], s0[64];
	struct reader r;
	__u32 ehsize;

	if (buf_size < WINDOW)
		return elf_buildid_parse(read, ctx, file_size, bid);
	reader_init(&r, read, ctx, file_size, bid, buf, buf_size);

	if (file_size < EI_NIDENT) {
		bid->status = MMAP3_BUILDID_NOT_ELF;
		/* Unless it is the start of an ELF header. */
		if (file_size >= 4 && !get(&r, 0, eh, 4) && !memcmp(eh, "\177ELF", 4))
			bid->status = MMAP3_BUILDID_TRUNCATED;
		return bid->status;
	}
	if (get_ahead(&r, 0, eh, EI_NIDENT, FIRST_READ))
		return bid->status;
	if (memcmp(eh, "\177ELF", 4)) {
		bid->status = MMAP3_BUILDID_NOT_ELF;
		return bid->status;
	}
	if ((eh[4] != ELFCLASS32 && eh[4] != ELFCLASS64) ||
	    (eh[5] != ELFDATA2LSB && eh[5] != ELFDATA2MSB) || eh[6] != EV_CURRENT) {
		fail(&r, MMAP3_BUILDID_CORRUPT, 4);
		return bid->status;
	}
	r.is64 = eh[4] == ELFCLASS64;
	r.msb = eh[5] == ELFDATA2MSB;
	ehsize = r.is64 ? 64 : 52;
	if (!in_file(&r, 0, ehsize)) {
		fail(&r, MMAP3_BUILDID_TRUNCATED, file_size);
		return bid->status;
	}
	if (get(&r, 0, eh, ehsize))
		return bid->status;

	if (r.is64) {
		ph.off = rd64(&r, eh + 0x20);
		sh.off = rd64(&r, eh + 0x28);
	} else {
		ph.off = rd32(&r, eh + 0x1c);
		sh.off = rd32(&r, eh + 0x20);
	}
	/* e_phentsize, e_phnum, e_shentsize, e_shnum, e_shstrndx end both. */
	ph.entsize = rd16(&r, eh + ehsize - 10);
	ph.num = rd16(&r, eh + ehsize - 8);
	sh.entsize = rd16(&r, eh + ehsize - 6);
	sh.num = rd16(&r, eh + ehsize - 4);

	/* Counts too large for the header live in section 0. */
	if (sh.off && (ph.num == PN_XNUM || !sh.num)) {
		__u32 shsize = r.is64 ? 64 : 40;

		if (sh.entsize < shsize || !in_file(&r, sh.off, shsize)) {
			fail(&r, MMAP3_BUILDID_CORRUPT, sh.off);
			return bid->status;
		}
		if (get_ahead(&r, sh.off, s0, shsize, (__u64)sh.entsize * (sh.num ? sh.num : 1)))
			return bid->status;
		if (ph.num == PN_XNUM)
			ph.num = rd32(&r, s0 + (r.is64 ? 44 : 28));
		if (!sh.num) {
			__u64 n = rdaddr(&r, s0 + (r.is64 ? 32 : 20));

			sh.num = n > MAX_SHDRS ? MAX_SHDRS + 1 : (__u32)n;
		}
	}
	if (!sh.off)
		sh.num = 0;

	if (scan_table(&r, &ph, &phdr_notes) > 0 ||
	    (!r.stop && scan_table(&r, &sh, &shdr_notes) > 0))
		bid->status = MMAP3_BUILDID_FOUND;
	/*
	 * No GNU build-id anywhere (not "could not look"): Go's own id
	 * stands in.  Go 1.24 on writes both, the GNU one in a section only.
	 */
	if (bid->status == MMAP3_BUILDID_NO_NOTE && r.go_found) {
		bid->status = MMAP3_BUILDID_FOUND;
		bid->kind = MMAP3_BUILDID_GO;
		bid->size = ELF_BUILDID_GO_SIZE;
		bid->offset = r.go_off;
		memcpy(bid->id, r.go_id, ELF_BUILDID_GO_SIZE);
	}
	if (bid->status != MMAP3_BUILDID_FOUND)
		bid->size = 0;
	return bid->status;
}

int elf_buildid_parse(elf_buildid_read_t read, void *ctx, __u64 file_size,
		      struct elf_buildid *bid)
{
	__u8 win[WINDOW];

	return elf_buildid_parse_buf(read, ctx, file_size, bid, win, sizeof(win));
}

int elf_buildid_parse_notes(elf_buildid_read_t read, void *ctx, __u64 size, __u32 align,
			    struct elf_buildid *bid)
{
	__u8 win[WINDOW];
	struct reader r;

	reader_init(&r, read, ctx, size, bid, win, sizeof(win));
	r.msb = IS_BIG_ENDIAN;
	if (scan_notes(&r, 0, size, align) > 0)
		bid->status = MMAP3_BUILDID_FOUND;
	if (bid->status != MMAP3_BUILDID_FOUND)
		bid->size = 0;
	return bid->status;
}

int elf_buildid_content(elf_buildid_read_t read, void *ctx, __u64 file_size,
			struct elf_buildid *bid, void *buf, size_t buf_size)
{
	static const char tag[] = ELF_BUILDID_CONTENT_TAG;
	__u8 digest[SHA256_DIGEST_BYTES], len[8];
	struct sha256 s;
	__u64 off;
	long n;
	int i;

	memset(bid, 0, sizeof(*bid));
	sha256_init(&s);
	sha256_update(&s, tag, sizeof(tag));
	for (i = 0; i < 8; i++)
		len[i] = (__u8)(file_size >> (8 * i));
	sha256_update(&s, len, sizeof(len));
	for (off = 0; off < file_size; off += (__u64)n) {
		size_t want = file_size - off < buf_size ? (size_t)(file_size - off) : buf_size;

		n = read(ctx, buf, want, off);
		if (n <= 0) {
			bid->status = n == ELF_BUILDID_READ_LIMIT ? MMAP3_BUILDID_LIMIT :
				      n < 0 ? MMAP3_BUILDID_IO_ERROR : MMAP3_BUILDID_TRUNCATED;
			bid->error = n < 0 && n != ELF_BUILDID_READ_LIMIT ? (int)-n : 0;
			bid->offset = off;
			return bid->status;
		}
		sha256_update(&s, buf, (size_t)n);
	}
	sha256_final(&s, digest);
	bid->status = MMAP3_BUILDID_FOUND;
	bid->kind = MMAP3_BUILDID_CONTENT;
	bid->size = ELF_BUILDID_CONTENT_SIZE;
	memcpy(bid->id, digest, ELF_BUILDID_CONTENT_SIZE);
	return bid->status;
}

long elf_buildid_mem_read(void *ctx, void *buf, size_t len, __u64 off)
{
	const struct elf_buildid_mem *m = ctx;

	if (off >= m->size)
		return 0;
	if (len > m->size - off)
		len = m->size - off;
	memcpy(buf, (const __u8 *)m->buf + off, len);
	return (long)len;
}

const char *elf_buildid_status_str(unsigned int status)
{
	static const char * const str[MMAP3_BUILDID_NR_STATUS] = {
		[MMAP3_BUILDID_FOUND]		= "build-id found",
		[MMAP3_BUILDID_NOT_ELF]		= "not an ELF file",
		[MMAP3_BUILDID_NO_NOTE]		= "no GNU build-id note",
		[MMAP3_BUILDID_TRUNCATED]	=
			"file ends inside a header, table or note it declares",
		[MMAP3_BUILDID_CORRUPT]		= "corrupt ELF headers or notes",
		[MMAP3_BUILDID_TOO_LONG]	= "build-id longer than 64 bytes",
		[MMAP3_BUILDID_LIMIT]		= "more work than the parser spends on a file",
		[MMAP3_BUILDID_IO_ERROR]	= "read error",
		[MMAP3_BUILDID_UNREADABLE]	= "not a file the kernel reads",
		[MMAP3_BUILDID_TIMEOUT]		= "not read in time",
	};

	return status < MMAP3_BUILDID_NR_STATUS ? str[status] : "unknown status";
}
