/* SPDX-License-Identifier: GPL-2.0 */
/*
 * userspace/perf/format.h - the perf.data file format: the file header,
 * the feature bits, perf's own record types and a typed struct per record
 * the tool reads or writes.  One definition for the reader, the writer,
 * dump and merge.
 *
 * From tools/perf/util/header.h, tools/lib/perf/include/perf/event.h and
 * tools/perf/Documentation/perf.data-file-format.txt.  Every field is in
 * the byte order of the machine that recorded (only ours is read).
 */
#ifndef MMAP3_PERF_FORMAT_H
#define MMAP3_PERF_FORMAT_H

#include <linux/perf_event.h>
#include <stddef.h>
#include <stdint.h>

#define PERF_MAGIC2		0x32454c4946524550ULL	/* "PERFILE2" */
#define PERF_MAGIC2_SWAPPED	0x50455246494c4532ULL	/* written on the other byte order */
#define PERF_MAGIC1		0x454c494646524550ULL	/* "PERFFILE", version 1 */

struct perf_file_section {
	uint64_t offset;
	uint64_t size;
};

/* Feature bits (enum in tools/perf/util/header.h; numbers are ABI). */
enum perf_feature {
	HEADER_RESERVED		= 0,
	HEADER_TRACING_DATA	= 1,
	HEADER_BUILD_ID		= 2,
	HEADER_HOSTNAME		= 3,
	HEADER_OSRELEASE	= 4,
	HEADER_VERSION		= 5,
	HEADER_ARCH		= 6,
	HEADER_NRCPUS		= 7,
	HEADER_CPUDESC		= 8,
	HEADER_CPUID		= 9,
	HEADER_TOTAL_MEM	= 10,
	HEADER_CMDLINE		= 11,
	HEADER_EVENT_DESC	= 12,
	HEADER_CPU_TOPOLOGY	= 13,
	HEADER_NUMA_TOPOLOGY	= 14,
	HEADER_BRANCH_STACK	= 15,
	HEADER_PMU_MAPPINGS	= 16,
	HEADER_GROUP_DESC	= 17,
	HEADER_AUXTRACE		= 18,
	HEADER_STAT		= 19,
	HEADER_CACHE		= 20,
	HEADER_SAMPLE_TIME	= 21,
	HEADER_MEM_TOPOLOGY	= 22,
	HEADER_CLOCKID		= 23,
	HEADER_DIR_FORMAT	= 24,
	HEADER_BPF_PROG_INFO	= 25,
	HEADER_BPF_BTF		= 26,
	HEADER_COMPRESSED	= 27,
	HEADER_CPU_PMU_CAPS	= 28,
	HEADER_CLOCK_DATA	= 29,
	HEADER_HYBRID_TOPOLOGY	= 30,
	HEADER_PMU_CAPS		= 31,
	HEADER_CPU_DOMAIN_INFO	= 32,
	/*
	 * mmap3's own (side.h), far past perf's: perf reads the bits it
	 * knows and skips the sections of the others.
	 */
	HEADER_MMAP3_STATUS	= 250,
	HEADER_FEAT_BITS	= 256,
};

/* The file-mode header: sizeof == 104. */
struct perf_file_header {
	uint64_t magic;
	uint64_t size;			/* sizeof(struct perf_file_header) */
	uint64_t attr_size;		/* attr.size + sizeof(struct perf_file_section) */
	struct perf_file_section attrs;
	struct perf_file_section data;
	struct perf_file_section event_types;	/* unused, zero */
	uint64_t adds_features[HEADER_FEAT_BITS / 64];
};

/* The pipe-mode header (perf record -o -): the records follow. */
struct perf_pipe_file_header {
	uint64_t magic;
	uint64_t size;			/* 16 */
};

/*
 * perf's own record types, after the kernel's (linux/perf_event.h).
 * These are processed in file order, outside perf's time ordering.
 */
enum perf_user_event_type {
	PERF_RECORD_USER_TYPE_START		= 64,
	PERF_RECORD_HEADER_ATTR			= 64,
	PERF_RECORD_HEADER_EVENT_TYPE		= 65,	/* deprecated */
	PERF_RECORD_HEADER_TRACING_DATA		= 66,
	PERF_RECORD_HEADER_BUILD_ID		= 67,
	PERF_RECORD_FINISHED_ROUND		= 68,
	PERF_RECORD_ID_INDEX			= 69,
	PERF_RECORD_AUXTRACE_INFO		= 70,
	PERF_RECORD_AUXTRACE			= 71,
	PERF_RECORD_AUXTRACE_ERROR		= 72,
	PERF_RECORD_THREAD_MAP			= 73,
	PERF_RECORD_CPU_MAP			= 74,
	PERF_RECORD_STAT_CONFIG			= 75,
	PERF_RECORD_STAT			= 76,
	PERF_RECORD_STAT_ROUND			= 77,
	PERF_RECORD_EVENT_UPDATE		= 78,
	PERF_RECORD_TIME_CONV			= 79,
	PERF_RECORD_HEADER_FEATURE		= 80,
	PERF_RECORD_COMPRESSED			= 81,
	PERF_RECORD_FINISHED_INIT		= 82,
	PERF_RECORD_COMPRESSED2			= 83,
	PERF_RECORD_BPF_METADATA		= 84,
};

/* HEADER_BUILD_ID entries: @size is valid only with this misc bit. */
#define PERF_RECORD_MISC_BUILD_ID_SIZE	(1 << 15)

/* The 20 bytes perf carries of a build-id. */
#define PERF_BUILD_ID_SIZE	20

struct perf_record_mmap {
	struct perf_event_header header;
	uint32_t pid, tid;
	uint64_t start, len, pgoff;
	char filename[];
};

struct perf_record_mmap2 {
	struct perf_event_header header;
	uint32_t pid, tid;
	uint64_t start, len, pgoff;
	union {
		struct {
			uint32_t maj, min;
			uint64_t ino, ino_generation;
		};
		struct {	/* with PERF_RECORD_MISC_MMAP_BUILD_ID */
			uint8_t build_id_size;
			uint8_t __reserved_1;
			uint16_t __reserved_2;
			uint8_t build_id[PERF_BUILD_ID_SIZE];
		};
	};
	uint32_t prot, flags;
	char filename[];
};

struct perf_record_comm {
	struct perf_event_header header;
	uint32_t pid, tid;
	char comm[];
};

struct perf_record_lost {
	struct perf_event_header header;
	uint64_t id;
	uint64_t lost;
};

struct perf_record_lost_samples {
	struct perf_event_header header;
	uint64_t lost;
};

struct perf_record_header_build_id {
	struct perf_event_header header;
	int32_t pid;			/* the machine: -1 is the host */
	uint8_t build_id[PERF_BUILD_ID_SIZE];
	uint8_t size;			/* with PERF_RECORD_MISC_BUILD_ID_SIZE */
	uint8_t __reserved_1;
	uint16_t __reserved_2;
	char filename[];
};

/* The HEADER_ATTR record: an attr of attr.size bytes, then u64 ids. */
struct perf_record_header_attr {
	struct perf_event_header header;
	struct perf_event_attr attr;
};

/* Tracing data of @size bytes follows the record, outside header.size. */
struct perf_record_header_tracing_data {
	struct perf_event_header header;
	uint32_t size;
	uint32_t pad;
};

struct perf_record_header_feature {
	struct perf_event_header header;
	uint64_t feat_id;
	char data[];
};

/* Trace data of @size bytes follows the record, outside header.size. */
struct perf_record_auxtrace {
	struct perf_event_header header;
	uint64_t size;
	uint64_t offset;
	uint64_t reference;
	uint32_t idx, tid, cpu;
	uint32_t __reserved;
};

/* HEADER_AUXTRACE: u64 nr, then nr of these (offsets of AUXTRACE records). */
struct perf_auxtrace_index_entry {
	uint64_t file_offset;
	uint64_t sz;			/* the AUXTRACE record's header.size */
};

/* Fixed parts, for the records whose name follows them. */
#define PERF_MMAP_FIXED		offsetof(struct perf_record_mmap, filename)
#define PERF_MMAP2_FIXED	offsetof(struct perf_record_mmap2, filename)
#define PERF_BUILD_ID_FIXED	offsetof(struct perf_record_header_build_id, filename)

_Static_assert(sizeof(struct perf_file_header) == 104, "perf_file_header");
_Static_assert(PERF_MMAP_FIXED == 40 && PERF_MMAP2_FIXED == 72, "mmap records");
_Static_assert(PERF_BUILD_ID_FIXED == 36, "build-id record");
_Static_assert(sizeof(struct perf_record_auxtrace) == 48, "auxtrace record");

/* perf's name of a record type ("MMAP2", "FINISHED_ROUND"), or NULL. */
const char *perf_record_name(uint32_t type);

/* perf's name of a feature ("build_id", "dir_format"), or NULL. */
const char *perf_feature_name(unsigned int bit);

#endif /* MMAP3_PERF_FORMAT_H */
