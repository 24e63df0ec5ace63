// SPDX-License-Identifier: GPL-2.0
/*
 * userspace/side.c - mmap3 records as perf records.
 *
 *	MMAP3_RECORD_MMAP	PERF_RECORD_MMAP2, with the build-id
 *				(PERF_RECORD_MISC_MMAP_BUILD_ID) when it has at
 *				most 20 bytes, else device and inode
 *	MMAP3_RECORD_KERNEL	PERF_RECORD_MMAP of [kernel.kallsyms]_text
 *				(if its address is visible) and the kernel's
 *				build-id in the HEADER_BUILD_ID table
 *	MMAP3_RECORD_MODULE_LOAD PERF_RECORD_MMAP of the module's .ko file if
 *				one with its build-id is found (see kmod.c), as
 *				perf names modules it finds, else of [name];
 *				and its build-id
 *	MMAP3_RECORD_LOST	PERF_RECORD_LOST_SAMPLES: perf report counts it
 *				apart from its own PERF_RECORD_LOST ("Total Lost
 *				Samples", where perf's own losses are "lost
 *				chunks"), and merge keeps it that way
 *
 * A mapping's build-id status, when not FOUND, and its flags go in the
 * file's HEADER_MMAP3_STATUS section (side.h).
 *
 * Every record gets the sample_id trailer of the file's one attr (pid,
 * tid, time, cpu), so perf orders it by time.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "count.h"
#include "device.h"
#include "hashmap.h"
#include "msg.h"
#include "side.h"

#define KERNEL_MMAP_NAME	"[kernel.kallsyms]_text"
#define KERNEL_DSO_NAME		"[kernel.kallsyms]"

/*
 * The sample_id trailer of the side file's one attr: SIDE_SAMPLE_TYPE's
 * fields in perf's order, written whole as every record has one.
 */
struct side_trailer {
	uint32_t pid, tid;	/* PERF_SAMPLE_TID */
	uint64_t time;		/* PERF_SAMPLE_TIME */
	uint32_t cpu, res;	/* PERF_SAMPLE_CPU */
};

_Static_assert(SIDE_SAMPLE_TYPE == (PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CPU),
	       "struct side_trailer holds SIDE_SAMPLE_TYPE's fields");

#define ALIGN8(x)	(((x) + 7) & ~(size_t)7)

/* Room for a record of @size bytes: in the file's write buffer, or the sink's. */
static void *reserve(struct side_writer *s, size_t size)
{
	return s->sink ? s->scratch : perf_writer_reserve(&s->pf, size);
}

static int commit(struct side_writer *s, size_t size)
{
	if (s->sink)
		return s->sink(s->sink_arg, s->scratch);
	perf_writer_commit(&s->pf, size);
	return 0;
}

static int emit(struct side_writer *s, const void *rec)
{
	return s->sink ? s->sink(s->sink_arg, rec) : perf_writer_record(&s->pf, rec);
}

/*
 * An entry's key: its cpumode, name and build-id, each with its length,
 * so no name and id run into each other ("/a.outAB" and id CD...) nor
 * one user's name and id hash as another's; keyed (hashmap.h), since
 * every user chooses the names and ids of the files they map.
 */
static uint64_t entry_hash(uint16_t cpumode, const char *name, size_t len,
			   const struct mmap3_build_id *bid)
{
	struct hashmap_hasher h;
	uint64_t lens = (uint64_t)cpumode << 48 | (uint64_t)bid->size << 32 | len;

	hashmap_hasher_init(&h);
	hashmap_hasher_add(&h, &lens, sizeof(lens));
	hashmap_hasher_add(&h, name, len);
	hashmap_hasher_add(&h, bid->data, bid->size);
	return hashmap_hasher_end(&h);
}

/*
 * Is the table entry at @off this one, byte for byte?  The ids' first
 * words turn most others away before memcmp() is called (for ids of
 * eight bytes or more: past a shorter one, the record's bytes are not
 * the id's).
 */
static inline bool same_entry(const struct side_writer *s, size_t off, uint16_t cpumode,
			      const char *name, size_t len, const struct mmap3_build_id *bid)
{
	const struct perf_record_header_build_id *e = (const void *)(s->table + off);
	uint64_t ours, theirs;

	memcpy(&ours, e->build_id, sizeof(ours));
	memcpy(&theirs, bid->data, sizeof(theirs));
	return (e->header.misc & PERF_RECORD_MISC_CPUMODE_MASK) == cpumode &&
	       e->size == bid->size && (bid->size < sizeof(ours) || ours == theirs) &&
	       e->header.size >= PERF_BUILD_ID_FIXED + len + 1 &&
	       !memcmp(e->build_id, bid->data, bid->size) &&
	       !memcmp(e->filename, name, len) && !e->filename[len];
}

/* What the table is asked: an entry's cpumode, name and build-id. */
struct entry_key {
	const struct side_writer *s;
	uint16_t cpumode;
	const char *name;
	size_t len;
	const struct mmap3_build_id *bid;
};

static int entry_is(uintptr_t off1, const void *key)
{
	const struct entry_key *k = key;

	return same_entry(k->s, off1 - 1, k->cpumode, k->name, k->len, k->bid);
}

/*
 * Add a HEADER_BUILD_ID entry unless this (cpumode, name of @len bytes,
 * id) is there already.
 */
static int table_add_len(struct side_writer *s, uint16_t cpumode, const char *name, size_t len,
			 const struct mmap3_build_id *bid)
{
	size_t size = PERF_BUILD_ID_FIXED + ALIGN8(len + 1);
	struct perf_record_header_build_id *e;
	size_t *recent;
	uint64_t h;

	if (bid->status != MMAP3_BUILDID_FOUND || bid->size > PERF_BUILD_ID_SIZE)
		return 0;
	/*
	 * A file mapped lately is found without a hash: its slot in ->recent,
	 * by its id's first byte and its name's length, compared in full.
	 * Others' entries can only take the slot, not make a lookup cost
	 * more than the keyed one below.
	 */
	recent = &s->recent[(bid->data[0] ^ len) % SIDE_RECENT];
	if (*recent && same_entry(s, *recent - 1, cpumode, name, len, bid))
		return 0;
	h = entry_hash(cpumode, name, len, bid);
	*recent = hashmap_find(&s->seen, h, entry_is,
			       &(struct entry_key){ s, cpumode, name, len, bid });
	if (*recent)
		return 0;
	if (s->table_len + size > s->table_cap) {
		size_t cap = s->table_cap ? 2 * s->table_cap : 4096;
		uint8_t *n;

		while (cap < s->table_len + size)
			cap *= 2;
		n = realloc(s->table, cap);
		if (!n)
			return -1;
		s->table = n;
		s->table_cap = cap;
	}
	if (hashmap_add(&s->seen, h, s->table_len + 1))
		return -1;
	e = (void *)(s->table + s->table_len);
	memset(e, 0, size);
	e->header.type = PERF_RECORD_HEADER_BUILD_ID;
	e->header.misc = cpumode | PERF_RECORD_MISC_BUILD_ID_SIZE;
	e->header.size = (uint16_t)size;
	e->pid = -1;			/* the host machine */
	memcpy(e->build_id, bid->data, bid->size);
	e->size = bid->size;
	memcpy(e->filename, name, len);
	*recent = s->table_len + 1;
	s->table_len += size;
	/* A sink gets the entry as perf's pipe mode has it: a record. */
	return s->sink ? s->sink(s->sink_arg, e) : 0;
}

static int table_add(struct side_writer *s, uint16_t cpumode, const char *name,
		     const struct mmap3_build_id *bid)
{
	return table_add_len(s, cpumode, name, strlen(name), bid);
}

static void put_trailer(void *rec, size_t size, uint32_t pid, uint32_t tid, uint64_t time,
			uint32_t cpu)
{
	struct side_trailer id = { .pid = pid, .tid = tid, .time = time, .cpu = cpu };

	memcpy((uint8_t *)rec + size - sizeof(id), &id, sizeof(id));
}

/* Flags perf has no room for. */
#define SIDE_STATUS_FLAGS	(MMAP3_MMAP_DUMP | MMAP3_MMAP_DELETED | MMAP3_MMAP_CHANGED | \
				 MMAP3_MMAP_PATH_TRUNCATED)

/* Keep @m's status and flags for HEADER_MMAP3_STATUS, if it has any to keep. */
static int keep_status(struct side_writer *s, const struct mmap3_record_mmap *m,
		       const struct mmap3_mmap_parts *parts)
{
	const struct mmap3_mmap_ns *ns = parts->ns;
	struct side_status_entry e;

	if (m->build_id.status == MMAP3_BUILDID_FOUND && m->build_id.kind == MMAP3_BUILDID_GNU &&
	    !(m->flags & SIDE_STATUS_FLAGS & ~MMAP3_MMAP_DUMP) &&
	    (!ns || ((!ns->mnt_ns || ns->mnt_ns == s->own_mnt_ns) && !parts->root_len)))
		return 0;
	e = (struct side_status_entry){
		.time = m->header.time,
		.addr = m->addr,
		.pid = m->pid,
		.tid = m->tid,
		.flags = m->flags & SIDE_STATUS_FLAGS,
		.status = m->build_id.status,
		.kind = m->build_id.status == MMAP3_BUILDID_FOUND ? m->build_id.kind : 0,
		.mnt_ns = ns ? ns->mnt_ns : 0,
		.cgroup = ns ? ns->cgroup : 0,
	};
	if (s->status_cap - s->status_len < sizeof(e) + (s->status_len ? 0 :
							  sizeof(struct side_status_header))) {
		size_t cap = s->status_cap ? 2 * s->status_cap : 4096;
		uint8_t *p = realloc(s->status, cap);

		if (!p) {
			msg_err("no memory for the side file's build-id statuses");
			return -1;
		}
		s->status = p;
		s->status_cap = cap;
	}
	if (!s->status_len)
		s->status_len = sizeof(struct side_status_header);
	memcpy(s->status + s->status_len, &e, sizeof(e));
	s->status_len += sizeof(e);
	return 0;
}

/*
 * A mapping: named as its process sees the file (perf's own record of it
 * does, and merge matches the two by name), its status kept apart.
 * Every byte of the record is written once, no clearing first: this
 * runs for every mapping of a session.
 */
static int add_mmap(struct side_writer *s, const struct mmap3_record_mmap *m,
		    const struct mmap3_mmap_parts *parts)
{
	const struct mmap3_mmap_ns *ns = parts->ns;
	const char *name = m->path;
	size_t len = parts->path_len, name_size, size;
	struct perf_record_mmap2 *r;
	uint64_t zero = 0;

	if (ns && parts->root_len) {
		name = ns->root_path;
		len = parts->root_len;
	}
	name_size = ALIGN8(len + 1);
	size = PERF_MMAP2_FIXED + name_size + sizeof(struct side_trailer);
	if (size > UINT16_MAX)
		return 0;
	/* Written in place in the file's write buffer. */
	r = reserve(s, size);
	if (!r)
		return -1;
	r->header.type = PERF_RECORD_MMAP2;
	r->header.misc = PERF_RECORD_MISC_USER;
	if (!(m->prot & PROT_EXEC))
		r->header.misc |= PERF_RECORD_MISC_MMAP_DATA;
	r->header.size = (uint16_t)size;
	r->pid = m->pid;
	r->tid = m->tid;
	r->start = m->addr;
	r->len = m->len;
	r->pgoff = m->pgoff * s->page_size;
	if (m->build_id.status == MMAP3_BUILDID_FOUND && m->build_id.size <= PERF_BUILD_ID_SIZE) {
		r->header.misc |= PERF_RECORD_MISC_MMAP_BUILD_ID;
		r->build_id_size = m->build_id.size;
		r->__reserved_1 = 0;
		r->__reserved_2 = 0;
		/* The whole field from the record's larger one, zeros past the id. */
		memcpy(r->build_id, m->build_id.data, PERF_BUILD_ID_SIZE);
		if (m->build_id.size < PERF_BUILD_ID_SIZE)
			memset(r->build_id + m->build_id.size, 0,
			       PERF_BUILD_ID_SIZE - m->build_id.size);
	} else {
		r->maj = m->dev_major;
		r->min = m->dev_minor;
		r->ino = m->ino;
		r->ino_generation = m->generation;
		if (m->build_id.status == MMAP3_BUILDID_FOUND)
			s->stats.long_build_id++;
		else
			s->stats.no_build_id++;
	}
	r->prot = m->prot;
	r->flags = m->flags & MMAP3_MMAP_SHARED ? MAP_SHARED : MAP_PRIVATE;
	/* The name's last word zeroed first: its NUL and padding. */
	memcpy(r->filename + name_size - sizeof(zero), &zero, sizeof(zero));
	memcpy(r->filename, name, len);
	put_trailer(r, size, m->pid, m->tid, m->header.time, m->cpu);
	if (commit(s, size))
		return -1;
	s->stats.mmaps++;
	if (keep_status(s, m, parts))
		return -1;
	return table_add_len(s, PERF_RECORD_MISC_USER, name, len, &m->build_id);
}

/* A kernel-space PERF_RECORD_MMAP. */
static int add_kernel_mmap(struct side_writer *s, const char *name, uint64_t addr,
			   uint64_t len, uint64_t pgoff, uint64_t time)
{
	size_t size = PERF_MMAP_FIXED + ALIGN8(strlen(name) + 1) + sizeof(struct side_trailer);
	struct perf_record_mmap *r = calloc(1, size);
	int ret;

	if (!r)
		return -1;
	r->header.type = PERF_RECORD_MMAP;
	r->header.misc = PERF_RECORD_MISC_KERNEL;
	r->header.size = (uint16_t)size;
	r->pid = (uint32_t)-1;
	r->start = addr;
	r->len = len;
	r->pgoff = pgoff;
	memcpy(r->filename, name, strlen(name));
	put_trailer(r, size, (uint32_t)-1, 0, time, 0);
	ret = emit(s, r);
	free(r);
	return ret;
}

/* Where the kernel's text starts, as perf's reference symbol: _text. */
static uint64_t kernel_text_address(void)
{
	FILE *f = fopen("/proc/kallsyms", "re");
	char line[512], name[256], type;
	unsigned long long addr, found = 0;

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%llx %c %255s", &addr, &type, name) != 3)
			continue;
		if (!strcmp(name, "_text")) {
			found = addr;
			break;
		}
		if (!strcmp(name, "_stext") && !found)
			found = addr;
	}
	fclose(f);
	return found;
}

static int add_kernel(struct side_writer *s, const struct mmap3_record_kernel *k)
{
	uint64_t text = kernel_text_address();
	char release[sizeof(k->release) + 1] = { 0 };

	memcpy(release, k->release, sizeof(k->release));
	if (!s->sink && perf_writer_string_feature(&s->pf, HEADER_OSRELEASE, release))
		return -1;
	/* Hidden by kptr_restrict: the build-id still goes in the table. */
	if (text && add_kernel_mmap(s, KERNEL_MMAP_NAME, text, ~0ULL - text, text,
				    k->header.time))
		return -1;
	return table_add(s, PERF_RECORD_MISC_KERNEL, KERNEL_DSO_NAME, &k->build_id);
}

static int add_module(struct side_writer *s, const struct mmap3_record_module *m)
{
	char bracketed[MMAP3_MODULE_NAME_LEN + 3];
	const char *name = s->kmods ? kmod_find(s->kmods, m->name, &m->build_id) : NULL;

	if (!name) {
		snprintf(bracketed, sizeof(bracketed), "[%.*s]", MMAP3_MODULE_NAME_LEN, m->name);
		name = bracketed;
	}
	s->stats.modules++;
	if (m->text_addr && add_kernel_mmap(s, name, m->text_addr, m->text_size, 0,
					    m->header.time))
		return -1;
	return table_add(s, PERF_RECORD_MISC_KERNEL, name, &m->build_id);
}

static int add_lost(struct side_writer *s, const struct mmap3_record_lost *l)
{
	uint8_t buf[sizeof(struct perf_record_lost_samples) + 24];
	struct perf_record_lost_samples r = {
		.header = {
			.type = PERF_RECORD_LOST_SAMPLES,
			.size = sizeof(buf),
		},
		.lost = l->lost,
	};

	memcpy(buf, &r, sizeof(r));
	put_trailer(buf, sizeof(buf), (uint32_t)-1, (uint32_t)-1, l->header.time, 0);
	count_add(&s->stats.lost, l->lost);
	return emit(s, buf);
}

void side_session_end(struct side_writer *s, uint64_t time)
{
	if (time > s->last_time)
		s->last_time = time;
}

int side_add_checked(struct side_writer *s, const struct mmap3_record_header *h,
		     const struct mmap3_mmap_parts *parts)
{
	if (h->time && (!s->first_time || h->time < s->first_time))
		s->first_time = h->time;
	side_session_end(s, h->time);
	switch (h->type) {
	case MMAP3_RECORD_MMAP:
		return add_mmap(s, (const void *)h, parts);
	case MMAP3_RECORD_KERNEL:
		return add_kernel(s, (const void *)h);
	case MMAP3_RECORD_MODULE_LOAD:
		return add_module(s, (const void *)h);
	case MMAP3_RECORD_LOST:
		return add_lost(s, (const void *)h);
	default:
		/* Unloads and markers have no perf record; unknown types are skipped. */
		return 0;
	}
}

int side_add(struct side_writer *s, const struct mmap3_record_header *h)
{
	struct mmap3_mmap_parts parts = { 0 };

	/* Checked already (a path NUL-terminated within it): where its parts are. */
	if (h->type == MMAP3_RECORD_MMAP) {
		const struct mmap3_record_mmap *m = (const void *)h;

		parts.path_len = strnlen(m->path, h->size - sizeof(*m));
		parts.ns = mmap3_record_ns_root(m, parts.path_len, &parts.root_len);
	}
	return side_add_checked(s, h, &parts);
}

int side_open(struct side_writer *s, const char *path, int clock)
{
	struct perf_event_attr attr = {
		.type = PERF_TYPE_SOFTWARE,
		.config = PERF_COUNT_SW_DUMMY,
		.sample_type = SIDE_SAMPLE_TYPE,
		.sample_id_all = 1,
		.mmap = 1,
		.mmap2 = 1,
		.build_id = 1,
		.disabled = 1,
	};
	char host[256] = "";
	struct utsname u;
	struct stat st;

	memset(s, 0, sizeof(*s));
	s->page_size = (uint64_t)sysconf(_SC_PAGESIZE);
	if (clock != MMAP3_CLOCK_LOCAL) {
		attr.use_clockid = 1;
		attr.clockid = clock;
	}
	if (perf_writer_open_one(&s->pf, path, &attr))
		return -1;
	if (!stat("/proc/self/ns/mnt", &st))
		s->own_mnt_ns = (uint64_t)st.st_ino;
	gethostname(host, sizeof(host) - 1);
	uname(&u);
	if (perf_writer_string_feature(&s->pf, HEADER_HOSTNAME, host) ||
	    perf_writer_string_feature(&s->pf, HEADER_ARCH, u.machine) ||
	    perf_writer_string_feature(&s->pf, HEADER_OSRELEASE, u.release)) {
		side_abort(s);
		return -1;
	}
	return 0;
}

int side_open_sink(struct side_writer *s, int (*sink)(void *arg, const void *rec), void *arg)
{
	struct stat st;

	memset(s, 0, sizeof(*s));
	s->page_size = (uint64_t)sysconf(_SC_PAGESIZE);
	s->scratch = malloc(UINT16_MAX + 1);
	if (!s->scratch) {
		msg_err("out of memory");
		return -1;
	}
	s->sink = sink;
	s->sink_arg = arg;
	if (!stat("/proc/self/ns/mnt", &st))
		s->own_mnt_ns = (uint64_t)st.st_ino;
	return 0;
}

/* The writer's tables, whether the file was written or not. */
static void side_free(struct side_writer *s)
{
	free(s->scratch);
	s->scratch = NULL;
	free(s->table);
	hashmap_free(&s->seen);
	free(s->status);
	s->table = NULL;
	s->status = NULL;
}

int side_close(struct side_writer *s)
{
	int ret = 0;

	if (s->table_len)
		ret = perf_writer_feature(&s->pf, HEADER_BUILD_ID, s->table, s->table_len);
	if (!ret && s->first_time) {
		uint64_t span[2] = { s->first_time, s->last_time };

		ret = perf_writer_feature(&s->pf, HEADER_SAMPLE_TIME, span, sizeof(span));
	}
	if (!ret && s->status_len) {
		struct side_status_header hdr = {
			.version = SIDE_STATUS_VERSION,
			.entry_size = sizeof(struct side_status_entry),
			.nr = (s->status_len - sizeof(hdr)) / sizeof(struct side_status_entry),
		};

		memcpy(s->status, &hdr, sizeof(hdr));
		ret = perf_writer_feature(&s->pf, HEADER_MMAP3_STATUS, s->status, s->status_len);
	}
	if (!ret)
		ret = perf_writer_close(&s->pf);
	else
		perf_writer_abort(&s->pf);
	side_free(s);
	return ret;
}

void side_abort(struct side_writer *s)
{
	if (!s->sink)
		perf_writer_abort(&s->pf);
	side_free(s);
}
