/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * The interface between the mmap3 kernel module and its users, through the
 * character device /dev/mmap3.  Shared by the module, the mmap3 tool and the
 * selftests.
 *
 * Versioning: MMAP3_ABI_MAJOR changes when an existing layout or meaning
 * changes, so a tool must refuse a module whose major differs from its own.
 * MMAP3_ABI_MINOR grows when something is added in a compatible way (a new
 * ioctl, a new record type, a field appended to an extensible struct).
 *
 * Extensible structs start with a __u32 size that the caller sets to the
 * sizeof() it was compiled with.  The module accepts any size from the
 * first published one (*_SIZE_VER0) up to 4096: bytes it does not know
 * must be zero on input, and it writes back at most the caller's size, so
 * old tools work with new modules and new tools with old modules.
 */
#ifndef _UAPI_LINUX_MMAP3_H
#define _UAPI_LINUX_MMAP3_H

#include <linux/ioctl.h>
#include <linux/types.h>

#define MMAP3_DEVICE_PATH	"/dev/mmap3"

#define MMAP3_ABI_MAJOR		1
#define MMAP3_ABI_MINOR		2

#define MMAP3_STRUCT_SIZE_MAX	4096

/*
 * Build-ids are GNU build-id notes of up to this many bytes: 20 (SHA-1)
 * is what linkers make by default and all perf can carry; longer ones
 * (ld --build-id=0xHEX) are kept whole up to this size.
 */
#define MMAP3_BUILD_ID_SIZE_MAX	64

/*
 * enum mmap3_buildid_status - what became of looking for a file's build-id
 * @MMAP3_BUILDID_FOUND:	found
 * @MMAP3_BUILDID_NOT_ELF:	no ELF magic (a script, a data file)
 * @MMAP3_BUILDID_NO_NOTE:	a valid ELF file without a GNU build-id note
 * @MMAP3_BUILDID_TRUNCATED:	the file ends before a header, table or note
 *				that the file itself declares
 * @MMAP3_BUILDID_CORRUPT:	inconsistent ELF: unknown class, byte order or
 *				version, bad entry sizes, offsets that overflow,
 *				notes that overrun their segment, an empty id
 * @MMAP3_BUILDID_TOO_LONG:	a build-id longer than MMAP3_BUILD_ID_SIZE_MAX
 * @MMAP3_BUILDID_LIMIT:	more headers or notes than the parser examines
 *				(bounded work on hostile files)
 * @MMAP3_BUILDID_IO_ERROR:	reading the file failed
 * @MMAP3_BUILDID_UNREADABLE:	not a regular file, or one the kernel cannot
 *				read (no read_iter, secret memory): the module
 *				does not try
 */
enum mmap3_buildid_status {
	MMAP3_BUILDID_FOUND	= 0,
	MMAP3_BUILDID_NOT_ELF	= 1,
	MMAP3_BUILDID_NO_NOTE	= 2,
	MMAP3_BUILDID_TRUNCATED	= 3,
	MMAP3_BUILDID_CORRUPT	= 4,
	MMAP3_BUILDID_TOO_LONG	= 5,
	MMAP3_BUILDID_LIMIT	= 6,
	MMAP3_BUILDID_IO_ERROR	= 7,
	MMAP3_BUILDID_UNREADABLE = 8,
	MMAP3_BUILDID_NR_STATUS,
};

/*
 * struct mmap3_abi_version - argument of MMAP3_IOC_ABI_VERSION
 * @size:	in: sizeof(struct mmap3_abi_version) as known by the caller, at
 *		least MMAP3_ABI_VERSION_SIZE_VER0; out: the number of bytes the
 *		module wrote
 * @major:	out: MMAP3_ABI_MAJOR of the module; zero on input
 * @minor:	out: MMAP3_ABI_MINOR of the module; zero on input
 * @features:	out: MMAP3_FEATURE_* bits the module implements (none are
 *		defined in ABI 1.0); zero on input
 */
struct mmap3_abi_version {
	__u32 size;
	__u16 major;
	__u16 minor;
	__u64 features;
};

#define MMAP3_ABI_VERSION_SIZE_VER0	16

/*
 * Records.  read() on /dev/mmap3 returns whole records, each starting with
 * struct mmap3_record_header and MMAP3_RECORD_ALIGN-aligned; a buffer too
 * small for the next record gets EINVAL.  @size covers the header and is a
 * multiple of MMAP3_RECORD_ALIGN; a reader skips types it does not know.
 *
 * @time is in the session's clock (MMAP3_IOC_SET_CLOCK), by default
 * local_clock(), perf's default clock, so records interleave with perf
 * samples.  For mappings it is the time of the mmap, even when the
 * build-id was read later.
 */
#define MMAP3_RECORD_ALIGN	8

enum mmap3_record_type {
	MMAP3_RECORD_MMAP		= 1,
	MMAP3_RECORD_MODULE_LOAD	= 2,
	MMAP3_RECORD_MODULE_UNLOAD	= 3,
	MMAP3_RECORD_KERNEL		= 4,
	MMAP3_RECORD_LOST		= 5,
	MMAP3_RECORD_DUMP_DONE		= 6,
};

struct mmap3_record_header {
	__u32 type;
	__u32 size;
	__u64 time;
};

/*
 * struct mmap3_build_id - a build-id, or why there is none
 * @status:	enum mmap3_buildid_status
 * @size:	bytes of @data in use (0 unless @status is FOUND)
 * @data:	the build-id, zero-padded
 */
struct mmap3_build_id {
	__u8 status;
	__u8 size;
	__u8 __reserved[6];
	__u8 data[MMAP3_BUILD_ID_SIZE_MAX];
};

/* struct mmap3_record_mmap flags */
#define MMAP3_MMAP_SHARED	(1U << 0)	/* MAP_SHARED, else private */
#define MMAP3_MMAP_DUMP		(1U << 1)	/* from the state dump */
#define MMAP3_MMAP_DELETED	(1U << 2)	/* file unlinked when resolved */
/* The file changed between the mmap and the first reading of its build-id
 * (not seen before, then rewritten or truncated at once): the build-id is
 * of the file as it was read.
 */
#define MMAP3_MMAP_CHANGED	(1U << 3)

/*
 * MMAP3_RECORD_MMAP: a file-backed mapping that is executable (or, with
 * MMAP3_FILTER_DATA, any file-backed mapping).
 * @pid, @tid:	process and thread, as seen from the session's pid namespace
 * @cpu:	CPU the mapping was made on
 * @prot:	PROT_READ | PROT_WRITE | PROT_EXEC of the mapping
 * @flags:	MMAP3_MMAP_*
 * @addr, @len, @pgoff: the mapping, @pgoff in pages
 * @dev_major, @dev_minor, @ino, @generation: the mapped inode
 * @mtime_sec, @mtime_nsec: its modification time when the build-id was read
 * @capture:	with MMAP3_FILTER_CAPTURE, on the session's first record of a
 *		build-id: a handle for MMAP3_IOC_CAPTURE_READ of the mapped file;
 *		0 otherwise (ABI 1.2; zero before)
 * @build_id:	of the mapped file itself, not of what its path names now
 * @path:	NUL-terminated path (without " (deleted)"), padded to the
 *		record size
 */
struct mmap3_record_mmap {
	struct mmap3_record_header header;
	__u32 pid;
	__u32 tid;
	__u32 cpu;
	__u32 prot;
	__u32 flags;
	__u32 generation;
	__u64 addr;
	__u64 len;
	__u64 pgoff;
	__u32 dev_major;
	__u32 dev_minor;
	__u64 ino;
	__s64 mtime_sec;
	__u32 mtime_nsec;
	__u32 capture;
	struct mmap3_build_id build_id;
	char path[];
};

#define MMAP3_MODULE_NAME_LEN	64

/*
 * MMAP3_RECORD_MODULE_LOAD, MMAP3_RECORD_MODULE_UNLOAD: a kernel module
 * loaded (or already loaded when the session started, with
 * MMAP3_MODULE_DUMP) or unloaded.
 * @text_addr, @text_size: its core text; zero for openers that may not
 *		see kernel addresses (kptr_restrict)
 */
#define MMAP3_MODULE_DUMP	(1U << 0)

struct mmap3_record_module {
	struct mmap3_record_header header;
	__u32 flags;
	__u32 __reserved;
	__u64 text_addr;
	__u64 text_size;
	char name[MMAP3_MODULE_NAME_LEN];
	struct mmap3_build_id build_id;
};

/*
 * MMAP3_RECORD_KERNEL: the running kernel, first record of a session.
 * @release:	utsname()->release
 */
struct mmap3_record_kernel {
	struct mmap3_record_header header;
	char release[65];
	__u8 __reserved[7];
	struct mmap3_build_id build_id;
};

/*
 * MMAP3_RECORD_LOST: @lost records were dropped before this one because
 * the session's buffer was full (or, before the records were made, the
 * module's queue of pending mappings was).
 */
struct mmap3_record_lost {
	struct mmap3_record_header header;
	__u64 lost;
};

/* MMAP3_RECORD_DUMP_DONE: the state dump of MMAP3_IOC_ENABLE is complete. */
struct mmap3_record_dump_done {
	struct mmap3_record_header header;
};

/*
 * Session ioctls.  Each open file is a session; it sees nothing until
 * MMAP3_IOC_ENABLE, which first dumps the current state (kernel, modules,
 * executable mappings of every process visible in the opener's pid
 * namespace), then a MMAP3_RECORD_DUMP_DONE, then live records.
 */

/* Buffer size in bytes, a power of two from 64 KiB to 1 GiB; only while
 * disabled.  Default 4 MiB.  Errors: EINVAL, EBUSY (enabled), ENOMEM.
 */
#define MMAP3_BUFFER_SIZE_MIN	(64U << 10)
#define MMAP3_BUFFER_SIZE_MAX	(1U << 30)
#define MMAP3_IOC_SET_BUFFER_SIZE	_IOW(MMAP3_IOC_MAGIC, 0x01, __u64)

/*
 * struct mmap3_filter - argument of MMAP3_IOC_SET_FILTER
 * @size:	sizeof(struct mmap3_filter) of the caller
 * @flags:	MMAP3_FILTER_DATA: also non-executable file mappings;
 *		MMAP3_FILTER_CAPTURE: keep the file of each build-id seen for the
 *		first time, for MMAP3_IOC_CAPTURE_READ (ABI 1.2)
 * @nr_pids:	number of @pids in use; 0 means every process
 * @pids:	process ids (tgids) in the opener's pid namespace
 */
#define MMAP3_FILTER_DATA	(1U << 0)
#define MMAP3_FILTER_CAPTURE	(1U << 1)
#define MMAP3_FILTER_MAX_PIDS	64

struct mmap3_filter {
	__u32 size;
	__u32 flags;
	__u32 nr_pids;
	__u32 __reserved;
	__s32 pids[MMAP3_FILTER_MAX_PIDS];
};

#define MMAP3_FILTER_SIZE_VER0	272
#define MMAP3_IOC_SET_FILTER	_IOW(MMAP3_IOC_MAGIC, 0x02, struct mmap3_filter)

/* The clock of @time: MMAP3_CLOCK_LOCAL (default, perf's default clock)
 * or a clockid perf -k accepts: CLOCK_MONOTONIC, CLOCK_MONOTONIC_RAW,
 * CLOCK_REALTIME, CLOCK_BOOTTIME, CLOCK_TAI.  Only while disabled.
 */
#define MMAP3_CLOCK_LOCAL	(-1)
#define MMAP3_IOC_SET_CLOCK	_IOW(MMAP3_IOC_MAGIC, 0x03, __s32)

/* Start: dump the current state into the buffer, then record.  May
 * block for the dump.  EBUSY if already enabled.
 */
#define MMAP3_IOC_ENABLE	_IO(MMAP3_IOC_MAGIC, 0x04)
/* Stop recording; what is in the buffer stays readable. */
#define MMAP3_IOC_DISABLE	_IO(MMAP3_IOC_MAGIC, 0x05)
/* Return once every mapping made before the call is in the buffer (or
 * counted lost).
 */
#define MMAP3_IOC_FLUSH		_IO(MMAP3_IOC_MAGIC, 0x06)

/*
 * struct mmap3_stats - argument of MMAP3_IOC_GET_STATS
 * @size:		sizeof(struct mmap3_stats) of the caller
 * @records:		records written to this session's buffer
 * @lost:		records this session lost (full buffer or queue)
 * @bytes:		bytes written to the buffer
 * @buffer_size:	the buffer's size
 * @buffer_used:	bytes waiting to be read
 * @pending:		mappings seen by the hook, not yet resolved (all
 *			sessions)
 * @queue_lost:		mappings the hook could not queue (all sessions)
 * @cache_entries:	per-inode build-id cache: entries in use
 * @cache_capacity:	... its bound (module parameter cache_entries)
 * @cache_hits, @cache_misses, @cache_evictions, @cache_invalidations:
 *			... lookups served, lookups that read the file, entries
 *			dropped for room, entries dropped because their inode
 *			changed
 * @parse:		files read, by enum mmap3_buildid_status
 */
struct mmap3_stats {
	__u32 size;
	__u32 __reserved;
	__u64 records;
	__u64 lost;
	__u64 bytes;
	__u64 buffer_size;
	__u64 buffer_used;
	__u64 pending;
	__u64 queue_lost;
	__u64 cache_entries;
	__u64 cache_capacity;
	__u64 cache_hits;
	__u64 cache_misses;
	__u64 cache_evictions;
	__u64 cache_invalidations;
	__u64 parse[16];
};

#define MMAP3_STATS_SIZE_VER0	240
#define MMAP3_IOC_GET_STATS	_IOWR(MMAP3_IOC_MAGIC, 0x07, struct mmap3_stats)

/*
 * Capture (ABI 1.2): the exact bytes of a mapped file, even once it is
 * replaced or deleted, through the handle in its first record.  The
 * session holds the file until MMAP3_IOC_CAPTURE_RELEASE or close; at
 * most MMAP3_CAPTURE_MAX handles are held at once (records beyond carry
 * none, and the file is offered again at its next mapping).
 *
 * struct mmap3_capture_read - argument of MMAP3_IOC_CAPTURE_READ
 * @size:	sizeof(struct mmap3_capture_read) of the caller
 * @handle:	from mmap3_record_mmap.capture
 * @offset:	file offset to read from
 * @buf:	user buffer address
 * @len:	its length; at most MMAP3_CAPTURE_READ_MAX is read per call
 * Returns the number of bytes read, 0 at the end of the file.  Errors:
 * ENOENT (no such handle), EINVAL, EFAULT, and the file's read errors.
 */
#define MMAP3_CAPTURE_MAX	4096
#define MMAP3_CAPTURE_READ_MAX	(1U << 20)

struct mmap3_capture_read {
	__u32 size;
	__u32 handle;
	__u64 offset;
	__u64 buf;
	__u64 len;
};

#define MMAP3_CAPTURE_READ_SIZE_VER0	32
#define MMAP3_IOC_CAPTURE_READ	_IOW(MMAP3_IOC_MAGIC, 0x08, struct mmap3_capture_read)
/* Drop a handle (and the session's reference to the file).  ENOENT. */
#define MMAP3_IOC_CAPTURE_RELEASE	_IOW(MMAP3_IOC_MAGIC, 0x09, __u32)

#define MMAP3_IOC_MAGIC		0xB3

/*
 * MMAP3_IOC_ABI_VERSION: fill in struct mmap3_abi_version.
 * Errors: EFAULT (bad pointer), EINVAL (size out of range, or non-zero
 * input in an output field or in bytes the module does not know).
 */
#define MMAP3_IOC_ABI_VERSION	_IOWR(MMAP3_IOC_MAGIC, 0x00, struct mmap3_abi_version)

#endif /* _UAPI_LINUX_MMAP3_H */
