/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * The interface between the mmap3 kernel module and its users, through the
 * character device /dev/mmap3.  Shared by the module, the mmap3 tool and the
 * selftests.
 *
 * Versioning: MMAP3_ABI_MAJOR changes when an existing layout or meaning
 * changes, so a tool must refuse a module whose major differs from its own.
 * MMAP3_ABI_MINOR grows when something is added in a compatible way (a new
 * ioctl, a new record type, a build-id status, a field appended to an
 * extensible struct); a tool built against 2.N works with a module of
 * 2.M: what the older side does not know is zero, absent or skipped.
 *
 *	2.6	struct mmap3_ring_control says its own size (@control_size),
 *		so fields can be appended to it as to the ioctls' structs;
 *		a filter's pids are the processes that have them at
 *		SET_FILTER, not numbers a later process may be given
 *	2.4	captures offered and read as another user
 *		(MMAP3_IOC_SET_CAPTURE_USER, MMAP3_FEATURE_CAPTURE_USER): under
 *		sudo, the user the copies are for; MMAP3_IOC_CAPTURE_FORGET:
 *		a handle given back and its build-id offered again
 *	2.3	the buffer mapped (mmap(), MMAP3_FEATURE_MAPPED_BUFFER): a
 *		control page and the records, read without a copy
 *	2.2	MMAP3_FILTER_INHERIT: the filter's processes and their
 *		descendants, as perf record -p follows children
 *	2.1	a mapping record's container identity after its path
 *		(MMAP3_MMAP_NS: mount namespace, cgroup, the path as the
 *		process sees it); statistics: mappings lost unresolved at
 *		DISABLE, captures
 *		denied (the opener may not read the mapper's files), probe
 *		misses; CAPTURE_READ may fail with ETIMEDOUT and EAGAIN;
 *		before the first ENABLE, read() waits (EAGAIN if
 *		O_NONBLOCK) and poll() reports nothing, instead of the end;
 *		after DISABLE, poll() says POLLIN until the last LOST record
 *		is read
 *	2.0	ioctls dispatched by type and number alone, the size taken
 *		from the struct (so structs can grow); magic 0xBD;
 *		CAPTURE_READ may refuse (EACCES) what the opener may not
 *		read; build-id status TIMEOUT; MMAP3_MMAP_PATH_TRUNCATED;
 *		DUMP_DONE counts; statistics by cause and memory use,
 *		slow reads and mappings parked for them
 *	1.x	(never released)
 *
 * Extensible structs start with a __u32 size that the caller sets to the
 * sizeof() it was compiled with.  The module accepts any size from the
 * first published one (*_SIZE_VER0) up to MMAP3_STRUCT_SIZE_MAX: bytes it
 * does not know, and fields documented as output, must be zero on input;
 * it writes back at most the caller's size.  The size encoded in the ioctl
 * command number is ignored.
 */
#ifndef _UAPI_LINUX_MMAP3_H
#define _UAPI_LINUX_MMAP3_H

#include <linux/ioctl.h>
#include <linux/types.h>

#define MMAP3_DEVICE_PATH	"/dev/mmap3"

#define MMAP3_ABI_MAJOR		2
#define MMAP3_ABI_MINOR		6

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
 * @MMAP3_BUILDID_LIMIT:	finding it would take more work than the parser
 *				spends on one file: more headers or notes than it
 *				examines, or (in the module) more reads or bytes
 *				than its per-file budget.  Kept until the file
 *				changes.
 * @MMAP3_BUILDID_IO_ERROR:	reading the file failed
 * @MMAP3_BUILDID_UNREADABLE:	not a regular file, a file of a pseudo
 *				filesystem (proc, sysfs), or one the kernel cannot
 *				read (no read_iter, secret memory): the module
 *				does not try
 * @MMAP3_BUILDID_TIMEOUT:	the file was not in the page cache and could not
 *				be read within the module's read_timeout_ms (a
 *				slow or hung filesystem, or too many slow files
 *				at once); the read goes on, and later mappings of
 *				the file get its build-id (ABI 2.0)
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
	MMAP3_BUILDID_TIMEOUT	= 9,
	MMAP3_BUILDID_NR_STATUS,
};

/*
 * struct mmap3_abi_version - argument of MMAP3_IOC_ABI_VERSION
 * @size:	in: sizeof(struct mmap3_abi_version) as known by the caller, at
 *		least MMAP3_ABI_VERSION_SIZE_VER0; out: the number of bytes the
 *		module wrote
 * @major:	out: MMAP3_ABI_MAJOR of the module; zero on input
 * @minor:	out: MMAP3_ABI_MINOR of the module; zero on input
 * @features:	out: MMAP3_FEATURE_* bits the module implements; zero on
 *		input
 */
struct mmap3_abi_version {
	__u32 size;
	__u16 major;
	__u16 minor;
	__u64 features;
};

#define MMAP3_ABI_VERSION_SIZE_VER0	16

/* 2.3: the buffer can be mapped (struct mmap3_ring_control). */
#define MMAP3_FEATURE_MAPPED_BUFFER	(1ULL << 0)
#define MMAP3_FEATURE_CAPTURE_USER	(1ULL << 1)
/* 2.5: captures offered once per file, not per build-id; MMAP3_MMAP_ROOT_OWNED. */
#define MMAP3_FEATURE_CAPTURE_BY_FILE	(1ULL << 2)
/* 2.5: MMAP3_FILTER_DERIVED, enum mmap3_buildid_kind. */
#define MMAP3_FEATURE_DERIVED_IDS	(1ULL << 3)

/*
 * Records.  read() on /dev/mmap3 returns whole records, each starting with
 * struct mmap3_record_header and MMAP3_RECORD_ALIGN-aligned; a buffer too
 * small for the next record gets EINVAL.  @size covers the header and is a
 * multiple of MMAP3_RECORD_ALIGN; a reader skips types it does not know.
 *
 * @time is in the session's clock (MMAP3_IOC_SET_CLOCK), by default
 * local_clock(), perf's default clock, so records interleave with perf
 * samples.  For mappings it is the time of the mmap, even when the
 * build-id was read later; for what the state dump reports, the time the
 * dump looked.  Records come in time order, except that a mapping whose
 * file had to be read from disk comes when it was read (at most
 * read_timeout_ms late): sort by @time.
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
 * enum mmap3_buildid_kind - where a found build-id comes from (2.5)
 * @MMAP3_BUILDID_GNU:	the file's GNU build-id note
 * @MMAP3_BUILDID_GO:	derived from its Go build id note
 *			(.note.go.buildid), for a file with no GNU note: the
 *			20 bytes Go 1.22-1.23's linker writes as the GNU
 *			build-id with -B gobuildid (docs/identity.md)
 * @MMAP3_BUILDID_CONTENT: derived from the bytes of an ELF file with no
 *			build-id note of either kind, of at most the module's
 *			content_id_max_mb: SHA-256 of a tag, its size and its
 *			bytes, 20 bytes of it (docs/identity.md)
 *
 * Only sessions that ask (MMAP3_FILTER_DERIVED) get any but GNU ids;
 * others get MMAP3_BUILDID_NO_NOTE for those files, as before 2.5.
 */
enum mmap3_buildid_kind {
	MMAP3_BUILDID_GNU	= 0,
	MMAP3_BUILDID_GO	= 1,
	MMAP3_BUILDID_CONTENT	= 2,
	MMAP3_BUILDID_NR_KIND,
};

/*
 * struct mmap3_build_id - a build-id, or why there is none
 * @status:	enum mmap3_buildid_status
 * @size:	bytes of @data in use (0 unless @status is FOUND)
 * @kind:	enum mmap3_buildid_kind, with @status FOUND (2.5; 0 before)
 * @data:	the build-id, zero-padded
 */
struct mmap3_build_id {
	__u8 status;
	__u8 size;
	__u8 kind;
	__u8 __reserved[5];
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
/* The path was longer than PATH_MAX: @path holds the file's name alone. */
#define MMAP3_MMAP_PATH_TRUNCATED (1U << 4)
/* A struct mmap3_mmap_ns follows @path (since 2.1; always set by 2.1). */
#define MMAP3_MMAP_NS		(1U << 5)
/*
 * Set with a capture handle (2.5): the file and the directory it was
 * mapped from are owned by root of the initial user namespace and
 * writable by no one else, as a distribution's files are; a file a user
 * made is not.  Only root could have put these bytes there.
 */
#define MMAP3_MMAP_ROOT_OWNED	(1U << 6)

/*
 * MMAP3_RECORD_MMAP: a file-backed mapping that is executable (or, with
 * MMAP3_FILTER_DATA, any file-backed mapping).
 * @pid, @tid:	process and thread, as seen from the session's pid namespace
 * @cpu:	CPU the mapping was made on
 * @prot:	PROT_READ | PROT_WRITE | PROT_EXEC of the mapping
 * @flags:	MMAP3_MMAP_*
 * @addr, @len, @pgoff: the mapping, @pgoff in pages
 * @dev_major, @dev_minor, @ino, @generation: the mapped inode
 * @mtime_sec, @mtime_nsec: the file's modification time in the state its
 *		@build_id was read in
 * @capture:	with MMAP3_FILTER_CAPTURE, on the session's first record of a
 *		build-id (since 2.5: of a build-id in a file, so two files
 *		claiming one id are both offered): a handle for
 *		MMAP3_IOC_CAPTURE_READ of the mapped file; 0 otherwise
 * @build_id:	of the mapped file itself, not of what its path names now
 * @path:	NUL-terminated path (without " (deleted)"), padded to the
 *		record size; paths are resolved from the initial root (a
 *		file of a mount namespace that root does not reach, such as
 *		a container's after pivot_root, is named from that
 *		namespace's root)
 *
 * With MMAP3_MMAP_NS, @path's NUL is followed, at the next multiple of
 * 8 bytes from the record's start, by struct mmap3_mmap_ns; a tool that
 * does not know it reads @path and stops at its NUL.
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

/*
 * struct mmap3_mmap_ns - who mapped the file, as containers tell
 * @size:	of this struct with @root_path and its NUL, padded to 8
 * @mnt_ns:	the mapping process's mount namespace: the inode number of
 *		/proc/PID/ns/mnt ("mnt:[N]"); 0 if the process was gone
 * @cgroup:	its cgroup v2 id (what perf's PERF_SAMPLE_CGROUP and
 *		PERF_RECORD_CGROUP carry), at the mmap; 0 without cgroup v2
 * @root_path:	the path as the process sees it, from its own root (what
 *		perf's own records of it name); "" if it is @path, or the
 *		file is not under that root, or the process was gone
 */
struct mmap3_mmap_ns {
	__u32 size;
	__u32 __reserved;
	__u64 mnt_ns;
	__u64 cgroup;
	char root_path[];
};

#define MMAP3_MODULE_NAME_LEN	64

/*
 * MMAP3_RECORD_MODULE_LOAD, MMAP3_RECORD_MODULE_UNLOAD: a kernel module
 * loaded (or already loaded when the session started, with
 * MMAP3_MODULE_DUMP) or unloaded.
 * @text_addr, @text_size: its core text; zero for openers that may not
 *		see kernel addresses (the rule of /proc/kallsyms)
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
 * MMAP3_RECORD_LOST: @lost records were dropped before this one: the
 * session's buffer was full, the module's queue of pending mappings was,
 * memory ran out, or the state dump could not read a process (counted
 * by cause in struct mmap3_stats).  A disabled session ends with one if
 * anything was lost since the last.
 */
struct mmap3_record_lost {
	struct mmap3_record_header header;
	__u64 lost;
};

/*
 * MMAP3_RECORD_DUMP_DONE: the state dump of MMAP3_IOC_ENABLE is complete;
 * every record it made comes before this one.
 * @tasks:		processes whose mappings were dumped (those the session's
 *			filter wants: no other is looked at)
 * @tasks_skipped:	processes whose memory map could not be read in time
 *			(their mappings are counted in a LOST record)
 * @mappings:		mapping records the dump made
 */
struct mmap3_record_dump_done {
	struct mmap3_record_header header;
	__u32 tasks;
	__u32 tasks_skipped;
	__u64 mappings;
};

/*
 * Ioctls.  The command's type and number select it; the size bits are
 * ignored, the size of a struct argument is its first __u32.  Each open
 * file is a session; it sees nothing until MMAP3_IOC_ENABLE, after which
 * the state dump (kernel, modules, executable mappings of every process
 * visible in the opener's pid namespace that its filter wants) streams
 * into the buffer while live records do, then MMAP3_RECORD_DUMP_DONE.
 *
 * Errors common to all: ENOTTY (unknown command), EFAULT (bad pointer),
 * EINVAL (bad size or value, non-zero reserved or output bytes).
 */
#define MMAP3_IOC_MAGIC		0xBD

/*
 * MMAP3_IOC_ABI_VERSION: fill in struct mmap3_abi_version.  Answered the
 * same way by every version of the module, before any other check.
 */
#define MMAP3_IOC_ABI_VERSION	_IOWR(MMAP3_IOC_MAGIC, 0x00, struct mmap3_abi_version)

/* Buffer size in bytes, a power of two from 64 KiB to the module's
 * max_buffer_size (at most 1 GiB); only while disabled.  Default 4 MiB.
 * Charged to the opener's memory cgroup.  Errors: EINVAL, EBUSY (enabled),
 * ENOMEM.
 */
#define MMAP3_BUFFER_SIZE_MIN	(64U << 10)
#define MMAP3_BUFFER_SIZE_MAX	(1U << 30)
#define MMAP3_IOC_SET_BUFFER_SIZE	_IOW(MMAP3_IOC_MAGIC, 0x01, __u64)

/*
 * struct mmap3_filter - argument of MMAP3_IOC_SET_FILTER
 * @size:	sizeof(struct mmap3_filter) of the caller
 * @flags:	MMAP3_FILTER_DATA: also non-executable file mappings;
 *		MMAP3_FILTER_CAPTURE: keep the file of each build-id seen for the
 *		first time, for MMAP3_IOC_CAPTURE_READ;
 *		MMAP3_FILTER_INHERIT (2.2): @pids and their descendants: a
 *		process whose parents, as they are at each of its mappings,
 *		include one of @pids (up to 64 generations up; a process
 *		whose parent exited before it mapped anything is reparented,
 *		and no longer descends from it);
 *		MMAP3_FILTER_DERIVED (2.5): a file without a GNU build-id
 *		note gets one derived from what it has (enum
 *		mmap3_buildid_kind), captures included
 * @nr_pids:	number of @pids in use; 0 means every process
 * @pids:	process ids (tgids) in the opener's pid namespace: the
 *		processes that have them at SET_FILTER (2.6), not the
 *		numbers, which a later process may be given; one that names
 *		no process then matches none
 */
#define MMAP3_FILTER_DATA	(1U << 0)
#define MMAP3_FILTER_CAPTURE	(1U << 1)
#define MMAP3_FILTER_INHERIT	(1U << 2)
#define MMAP3_FILTER_DERIVED	(1U << 3)
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

/* Start: the KERNEL record, then the state dump streams in beside live
 * records, then DUMP_DONE.  Returns at once.  EBUSY if already enabled,
 * ENOMEM.
 */
#define MMAP3_IOC_ENABLE	_IO(MMAP3_IOC_MAGIC, 0x04)
/* Stop recording, after a flush; what is in the buffer stays readable. */
#define MMAP3_IOC_DISABLE	_IO(MMAP3_IOC_MAGIC, 0x05)
/* Return once every mapping made before the call is in the buffer (or
 * counted lost).  Waits at most about read_timeout_ms for files being
 * read from disk, whatever the filesystem does.
 */
#define MMAP3_IOC_FLUSH		_IO(MMAP3_IOC_MAGIC, 0x06)

/*
 * struct mmap3_stats - argument of MMAP3_IOC_GET_STATS; every field but
 * @size is output (zero on input).
 * @size:		sizeof(struct mmap3_stats) of the caller
 *
 * This session:
 * @records:		records written to its buffer
 * @lost:		records it lost, the sum of its LOST records' counts
 *			(and of the one pending), by cause:
 * @lost_buffer:	... its buffer was full
 * @lost_queue:		... the module's queue of pending mappings was full
 *			(these are counted to every enabled session)
 * @lost_nomem:		... memory for a record or the dump ran out
 * @lost_dump:		... mappings of processes the dump could not read (a
 *			process whose memory map stayed locked counts as many
 *			as it has memory areas, an upper bound)
 * @bytes:		bytes written to the buffer
 * @buffer_size:	the buffer's size
 * @buffer_used:	bytes waiting to be read
 * @captures_held:	capture handles it holds
 * @captures_refused:	first-seen build-ids given no handle (limits, memory)
 * @memory:		bytes it holds: buffer and capture bookkeeping
 *
 * The module, all sessions:
 * @pending:		mappings seen by the hook, not yet resolved
 * @queue_lost:		mappings the hook could not queue
 * @queue_memory:	bytes of the hook's queues
 * @cache_entries:	per-inode build-id cache: entries in use
 * @cache_capacity:	... its bound (module parameter cache_entries)
 * @cache_hits, @cache_misses, @cache_evictions, @cache_invalidations:
 *			... lookups served, lookups that read the file, entries
 *			dropped for room, entries dropped for a newer state of
 *			their inode
 * @cache_memory:	... bytes it holds
 * @reads_cached:	files whose build-id was found in the page cache alone
 * @reads_slow:		files read from their filesystem (slow readers)
 * @reads_timeout:	mappings given MMAP3_BUILDID_TIMEOUT
 * @reads_in_flight:	slow reads running or waiting for a reader now
 * @reads_parked:	mappings waiting for a slow read now (bounded: past
 *			the bound they get MMAP3_BUILDID_TIMEOUT at once)
 * @parse:		files parsed, by enum mmap3_buildid_status
 *
 * Since 2.1:
 * @lost_unresolved:	this session: mappings still waiting for their file's
 *			read when DISABLE's flush gave up (also in @lost)
 * @captures_denied:	this session: first-seen build-ids given no handle
 *			because the opener may not read the mapping process's
 *			files (as /proc/PID/map_files requires)
 * @probe_missed:	the module: hits of the mmap probe the kprobes core
 *			missed (another probe running on that CPU); counted
 *			in @queue_lost and every enabled session's @lost_queue
 */
struct mmap3_stats {
	__u32 size;
	__u32 __reserved;
	__u64 records;
	__u64 lost;
	__u64 lost_buffer;
	__u64 lost_queue;
	__u64 lost_nomem;
	__u64 lost_dump;
	__u64 bytes;
	__u64 buffer_size;
	__u64 buffer_used;
	__u64 captures_held;
	__u64 captures_refused;
	__u64 memory;
	__u64 pending;
	__u64 queue_lost;
	__u64 queue_memory;
	__u64 cache_entries;
	__u64 cache_capacity;
	__u64 cache_hits;
	__u64 cache_misses;
	__u64 cache_evictions;
	__u64 cache_invalidations;
	__u64 cache_memory;
	__u64 reads_cached;
	__u64 reads_slow;
	__u64 reads_timeout;
	__u64 reads_in_flight;
	__u64 reads_parked;
	__u64 parse[16];
	__u64 lost_unresolved;
	__u64 captures_denied;
	__u64 probe_missed;
};

#define MMAP3_STATS_SIZE_VER0	352
#define MMAP3_STATS_SIZE_VER1	376
#define MMAP3_IOC_GET_STATS	_IOWR(MMAP3_IOC_MAGIC, 0x07, struct mmap3_stats)

/*
 * Capture: the exact bytes of a mapped file, even once it is replaced or
 * deleted, through the handle in its first record.  The session holds the
 * file until MMAP3_IOC_CAPTURE_RELEASE or close; at most MMAP3_CAPTURE_MAX
 * handles are held at once, and the module's capture_ids bounds how many
 * build-ids (since 2.5: build-ids of files, by device, inode and
 * generation) a session remembers as offered (records beyond either carry
 * none; the file is offered again at a later mapping).  Only bytes the
 * opener could read itself are handed out: a handle is offered only if
 * the opener may read the mapping process's files, as /proc/PID/map_files
 * requires (ptrace access; not another user's memfd, nor a file under
 * another user's private directory), and the file is read with the
 * credentials the device was opened with, after the kernel's permission
 * check for reading (an execute-only binary gets EACCES).  A read waits
 * for the file's filesystem at most the module's read_timeout_ms.
 *
 * struct mmap3_capture_read - argument of MMAP3_IOC_CAPTURE_READ
 * @size:	sizeof(struct mmap3_capture_read) of the caller
 * @handle:	from mmap3_record_mmap.capture
 * @offset:	file offset to read from
 * @buf:	user buffer address
 * @len:	its length; at most MMAP3_CAPTURE_READ_MAX is read per call
 * Returns the number of bytes read, 0 at the end of the file.  Errors:
 * ENOENT (no such handle), EACCES (the opener may not read the file),
 * ETIMEDOUT (its filesystem did not answer in time; again at once while
 * that read is still stuck), EAGAIN (too many of the session's reads are
 * stuck so), EINVAL, EFAULT, ENOMEM, and the file's read errors.
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
#define MMAP3_IOC_CAPTURE_READ	_IOWR(MMAP3_IOC_MAGIC, 0x08, struct mmap3_capture_read)
/* Drop a handle (and the session's reference to the file).  ENOENT. */
#define MMAP3_IOC_CAPTURE_RELEASE	_IOW(MMAP3_IOC_MAGIC, 0x09, __u32)

/*
 * struct mmap3_capture_user - argument of MMAP3_IOC_SET_CAPTURE_USER (2.4)
 * @size:	sizeof(struct mmap3_capture_user) of the caller
 * @uid:	the user captures are for, in the caller's user namespace
 * @gid:	their group
 * @nr_groups:	their supplementary groups at @groups, at most
 *		MMAP3_CAPTURE_USER_GROUPS_MAX
 * @groups:	user address of @nr_groups __u32 group ids
 *
 * From then on, captures are offered and read as that user would,
 * without any privilege: a handle only for a file the user could reach
 * themselves, by its path from the caller's root (every directory on
 * the way searchable by them) or through /proc/PID/map_files (ptrace
 * access to the mapping process: their own processes' memfds and
 * deleted files), each read after the kernel's check for reading by the
 * user.  mmap3 record under sudo sets the invoking user, who will own the
 * copies.  Before the first ENABLE (EBUSY after), by a caller and an
 * opener with CAP_SETUID and CAP_SETGID, who could become that user
 * anyway (EPERM); EINVAL for an id with no mapping in the namespace.
 */
struct mmap3_capture_user {
	__u32 size;
	__u32 uid;
	__u32 gid;
	__u32 nr_groups;
	__u64 groups;
};

#define MMAP3_CAPTURE_USER_SIZE_VER0	24
#define MMAP3_CAPTURE_USER_GROUPS_MAX	65536
#define MMAP3_IOC_SET_CAPTURE_USER	_IOW(MMAP3_IOC_MAGIC, 0x0a, struct mmap3_capture_user)
/*
 * Drop a handle, and forget its build-id: the next mapping of that id is
 * offered a handle again (2.4), as when a tool takes only some processes'
 * files.  ENOENT.
 */
#define MMAP3_IOC_CAPTURE_FORGET	_IOW(MMAP3_IOC_MAGIC, 0x0b, __u32)

/*
 * The buffer mapped (2.3, MMAP3_FEATURE_MAPPED_BUFFER): records read in
 * place, without read()'s copy.  Page 0 of the device is a struct
 * mmap3_ring_control; pages 1 on are the buffer, @size bytes (the buffer
 * must exist: MMAP3_IOC_SET_BUFFER_SIZE or ENABLE first).  Mappings are
 * MAP_SHARED; only page 0, mapped alone, may be writable (EPERM).  Once
 * mapped, the buffer's size is fixed and read() fails with EBUSY; while a
 * read() is copying records out, mmap() fails with EBUSY.
 *
 * Records lie whole in [@tail, @head), in the same format as read()
 * gives, at @pos & (@size - 1).  One that would cross the buffer's end
 * starts at its beginning, after a struct mmap3_record_pad covering the
 * rest, which readers skip.  The reader loads @head with
 * acquire semantics, reads the records before it, then stores the new
 * @tail with release semantics: the module writes nothing before @tail
 * meanwhile, and takes a @tail outside [its last tail, @head] for no
 * change.  poll() says POLLIN while @head != @tail, and POLLHUP once the
 * session is disabled and read to its end, its last LOST record
 * included; a producer waiting for room (the state dump) learns of the
 * new @tail at the reader's next poll().
 */
#define MMAP3_RECORD_PAD	0

/*
 * struct mmap3_record_pad - the rest of the mapped buffer, unused
 * @type:	MMAP3_RECORD_PAD
 * @size:	the bytes from here to the buffer's end: a multiple of
 *		MMAP3_RECORD_ALIGN, 8 or more
 *
 * Only in the mapped buffer (read() never returns one), and unlike every
 * other record not a struct mmap3_record_header: when 8 bytes are left
 * before the end, the pad is these 8 alone.  A reader loads the first 8
 * bytes of each record, skips to the buffer's end if @type is
 * MMAP3_RECORD_PAD, and only otherwise reads a whole header.
 */
struct mmap3_record_pad {
	__u32 type;
	__u32 size;
};

/*
 * struct mmap3_ring_control - page 0 of the mapped device
 * @head:	written by the module: the bytes ever written
 * @tail:	written by the reader: the bytes it is done with
 * @size:	the buffer's size in bytes, a power of two
 * @control_size: (2.6) the bytes of this struct the module fills in, at
 *		least MMAP3_RING_CONTROL_SIZE_VER1: a field a reader knows
 *		but that lies past it is not the module's.  Zero from a module
 *		before 2.6, whose control is the first
 *		MMAP3_RING_CONTROL_SIZE_VER0 bytes.  The rest of the page is
 *		zero.
 */
struct mmap3_ring_control {
	__u64 head;
	__u64 tail;
	__u64 size;
	__u64 control_size;
};

#define MMAP3_RING_CONTROL_SIZE_VER0	24
#define MMAP3_RING_CONTROL_SIZE_VER1	32

#endif /* _UAPI_LINUX_MMAP3_H */
