// SPDX-License-Identifier: GPL-2.0
/*
 * The side file's HEADER_BUILD_ID table holds one entry per distinct
 * (cpumode, name, build-id), whoever's records came first: an entry is a
 * duplicate only if its name, size and id are the same byte for byte,
 * never because its hash is (a name and id that run together as another
 * user's, "/tmp/a.out" + "ABCD" and the id's other 16 bytes, hid that
 * user's entry).  Built twice: as the tool has it, and with a 3-bit hash
 * (-DHASHMAP_HASH_BITS=3) so that every lookup meets other entries.  Prints
 * TAP.
 *
 *   side_table_test SCRATCH-DIR
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/utsname.h>

#include "device.h"
#include "perf/reader.h"
#include "side.h"
#include "tap.h"

/* With the weak hash every lookup walks them all: fewer. */
#ifdef HASHMAP_HASH_BITS
#define MANY	2000
#else
#define MANY	200000
#endif

static uint64_t now;

#define TAIL	4096	/* bytes past each record, for a record to be read past */

/* A mapping record of @path with an id of @n bytes, in a buffer TAIL bytes longer. */
static struct mmap3_record_mmap *mmap_record(const char *path, const uint8_t *id, int n)
{
	size_t size = (sizeof(struct mmap3_record_mmap) + strlen(path) + 1 + 7) & ~7UL;
	struct mmap3_record_mmap *m = calloc(1, size + TAIL);

	if (!m)
		abort();
	m->header.type = MMAP3_RECORD_MMAP;
	m->header.size = (uint32_t)size;
	m->header.time = ++now;
	m->pid = m->tid = 1;
	m->addr = 0x1000 * now;
	m->len = 0x1000;
	m->prot = PROT_EXEC;
	m->build_id.status = MMAP3_BUILDID_FOUND;
	m->build_id.size = (uint8_t)n;
	memcpy(m->build_id.data, id, n);
	strcpy(m->path, path);
	return m;
}

static int add_mmap(struct side_writer *s, const char *path, const uint8_t *id, int n)
{
	struct mmap3_record_mmap *m = mmap_record(path, id, n);
	int ret = side_add(s, &m->header);

	free(m);
	return ret;
}

/*
 * A mapping of @path checked (its parts as mmap3_record_check_parts()
 * finds them), then its bytes changed in the buffer before the side file
 * takes it, as a module sharing the buffer could: the path's NUL and
 * everything after it, up to well past the record, overwritten.
 */
static int add_mmap_changed_after_check(struct side_writer *s, const char *path,
					const uint8_t *id)
{
	struct mmap3_record_mmap *m = mmap_record(path, id, 20);
	struct mmap3_mmap_parts parts = { .path_len = strlen(path) };
	int ret;

	memset(m->path + parts.path_len, 'X',
	       m->header.size - sizeof(*m) - parts.path_len + TAIL);
	ret = side_add_checked(s, &m->header, &parts);
	free(m);
	return ret;
}

static int add_kernel(struct side_writer *s, const uint8_t *id)
{
	struct mmap3_record_kernel k = {
		.header = { MMAP3_RECORD_KERNEL, sizeof(k), ++now },
		.build_id = { .status = MMAP3_BUILDID_FOUND, .size = 20 },
	};
	struct utsname u;

	uname(&u);
	snprintf(k.release, sizeof(k.release), "%s", u.release);
	memcpy(k.build_id.data, id, 20);
	return side_add(s, &k.header);
}

/* The table's entries as perf reads them. */
static struct perf_build_id_entry *entries;
static size_t nr_entries;
static void *table;

static int load(const char *path)
{
	struct perf_reader r;
	size_t len, off = 0;
	const char *why;

	free(table);
	free(entries);
	table = NULL;
	entries = NULL;
	nr_entries = 0;
	if (perf_reader_open(&r, path) || perf_reader_build_ids(&r, &table, &len)) {
		fprintf(stderr, "%s\n", perf_reader_error(&r));
		return -1;
	}
	perf_reader_close(&r);
	entries = malloc((len / 37 + 1) * sizeof(*entries));
	while (perf_build_id_next(table, len, &off, &entries[nr_entries], &why) > 0)
		nr_entries++;
	return 0;
}

static size_t count(const char *name, const uint8_t *id, int n, int kernel)
{
	size_t i, c = 0;

	for (i = 0; i < nr_entries; i++)
		c += !strcmp(entries[i].name, name) && entries[i].size == n &&
		     !memcmp(entries[i].id, id, n) &&
		     ((entries[i].misc & PERF_RECORD_MISC_CPUMODE_MASK) == PERF_RECORD_MISC_KERNEL) ==
		     kernel;
	return c;
}

int main(int argc, char **argv)
{
	char path[4096], evil[64], name[64];
	uint8_t victim[20], other[20], id[20];
	struct side_writer s;
	uint64_t lookups, probes;
	size_t i, missing = 0;
	int ok;

	if (argc != 2) {
		fprintf(stderr, "usage: side_table_test SCRATCH-DIR\n");
		return 2;
	}
	snprintf(path, sizeof(path), "%s/side-table.data", argv[1]);
	for (i = 0; i < 20; i++) {
		victim[i] = (uint8_t)(0x41 + i);
		other[i] = (uint8_t)(0x80 + i);
	}
	/* Another user's name that ends with the victim's first 4 id bytes. */
	snprintf(evil, sizeof(evil), "/tmp/a.out%.4s", (const char *)victim);

	ok = !side_open(&s, path, MMAP3_CLOCK_LOCAL) &&
	     !add_mmap(&s, evil, victim + 4, 16) &&
	     !add_mmap(&s, "/tmp/a.out", victim, 20) &&
	     !add_mmap(&s, "/tmp/a.out", victim, 20) &&
	     !add_mmap(&s, "/tmp/a.out", victim, 20) &&
	     !add_mmap(&s, "/tmp/a.out", other, 20) &&
	     !add_mmap(&s, "/tmp/b.out", victim, 20) &&
	     !add_mmap(&s, "/tmp/a.out", victim, 19) &&
	     /* A user's mapping named as the kernel, with its id, first. */
	     !add_mmap(&s, "[kernel.kallsyms]", other, 20) &&
	     !add_kernel(&s, other) &&
	     !side_close(&s) && !load(path);
	CHECK(ok, "a side file with colliding names and ids is written and read back");
	CHECK(count(evil, victim + 4, 16, 0) == 1,
	      "the entry whose name runs into its id (\"/tmp/a.outABCD\", 16 bytes) is there");
	CHECK(count("/tmp/a.out", victim, 20, 0) == 1,
	      "... and so is the one it used to hide (\"/tmp/a.out\", ABCD and 16 bytes), once "
	      "for three mappings");
	CHECK(count("/tmp/a.out", other, 20, 0) == 1, "the same name with another id is there");
	CHECK(count("/tmp/b.out", victim, 20, 0) == 1, "another name with the same id is there");
	CHECK(count("/tmp/a.out", victim, 19, 0) == 1, "the same name with the id cut short is there");
	CHECK(count("[kernel.kallsyms]", other, 20, 1) == 1,
	      "the kernel's entry is there although a user mapping took its name and id first");
	CHECK(count("[kernel.kallsyms]", other, 20, 0) == 1, "... and the user's, apart");
	CHECK(nr_entries == 7, "7 entries in all (got %zu)", nr_entries);

	/* A record whose path lost its NUL after the check: named as checked. */
	ok = !side_open(&s, path, MMAP3_CLOCK_LOCAL) &&
	     !add_mmap_changed_after_check(&s, "/tmp/c.out", victim) &&
	     !side_close(&s) && !load(path);
	CHECK(ok && nr_entries == 1 && count("/tmp/c.out", victim, 20, 0) == 1,
	      "a record changed after its check is named by the path it was checked with, "
	      "not read past (%zu entries)", nr_entries);

	/* Many distinct entries, each record looked up in a few slots, none lost. */
	ok = !side_open(&s, path, MMAP3_CLOCK_LOCAL);
	for (i = 0; ok && i < MANY; i++) {
		memset(id, 0, sizeof(id));
		memcpy(id, &i, sizeof(i));
		snprintf(name, sizeof(name), "/usr/lib/lib%zu.so", i % 1000);
		ok = !add_mmap(&s, name, id, 20) && !add_mmap(&s, name, id, 20);
	}
	lookups = s.seen.lookups;
	probes = s.seen.probes;
	ok = ok && !side_close(&s) && !load(path);
	CHECK(ok && nr_entries == MANY, "%d distinct entries of %d mappings: all there once "
	      "(got %zu)", MANY, 2 * MANY, nr_entries);
	for (i = 0; ok && i < MANY; i += 97) {
		memset(id, 0, sizeof(id));
		memcpy(id, &i, sizeof(i));
		snprintf(name, sizeof(name), "/usr/lib/lib%zu.so", i % 1000);
		missing += count(name, id, 20, 0) != 1;
	}
	CHECK(ok && !missing, "... each with its own name and id (%zu of a sample missing)", missing);
	/* The second of each pair is the last entry found: not looked up again. */
	CHECK(lookups == MANY, "... each of the %d distinct records looked up in the table once "
	      "(%llu)", MANY, (unsigned long long)lookups);
#ifdef HASHMAP_HASH_BITS
	CHECK(probes >= lookups, "... the weak hash has each lookup meet others' entries "
	      "(%llu slots for %llu lookups)", (unsigned long long)probes,
	      (unsigned long long)lookups);
#else
	/* At most half full, linear probing walks about 1.5 slots a lookup. */
	CHECK(probes <= 3 * lookups, "... in %.2f slots a lookup: O(1) a record (at most 3)",
	      (double)probes / (double)(lookups ? lookups : 1));
#endif
	free(table);
	free(entries);
	return tap_done();
}
