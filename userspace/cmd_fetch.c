// SPDX-License-Identifier: GPL-2.0
/*
 * userspace/cmd_fetch.c - mmap3 fetch: the binaries a perf.data names,
 * fetched by build-id from the debuginfod servers of DEBUGINFOD_URLS
 * into perf's build-id cache, where perf report looks.
 *
 * perf report reads binaries from its build-id cache, the path, and
 * /usr/lib/debug, never from debuginfod (perf 7.2: only perf record and
 * perf buildid-cache --debuginfod fetch, and only files that exist at
 * their path).  A profile read on a workstation, long after its hosts'
 * binaries were replaced, needs them there first: each build-id of the
 * file (its HEADER_BUILD_ID table and its MMAP2 records) not in the
 * cache is asked of debuginfod (debuginfod-find, which has its client's
 * cache and DEBUGINFOD_* settings), and what comes back is stored as
 * capture.c stores any file: only if its own build-id is the one asked
 * for, under the name perf.data gives it.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "capture.h"
#include "command_output.h"
#include "commands.h"
#include "hashmap.h"
#include "msg.h"
#include "perf/reader.h"
#include "perf_command.h"

struct wanted {
	struct mmap3_build_id bid;
	char *name;			/* as perf.data names the file */
};

struct fetch {
	struct hashmap map;		/* build-id -> struct wanted * */
	struct wanted **all;
	size_t nr, cap;
};

static int same_id(uintptr_t value, const void *key)
{
	const struct wanted *w = (const void *)value;
	const struct mmap3_build_id *bid = key;

	return w->bid.size == bid->size && !memcmp(w->bid.data, bid->data, bid->size);
}

/* Ask for @id of @name, once; names in brackets are the kernel's, and perf's own. */
static int want(struct fetch *f, const uint8_t *id, unsigned int size, const char *name)
{
	struct mmap3_build_id bid = { .status = MMAP3_BUILDID_FOUND };
	uint64_t hash;
	struct wanted *w;

	if (size < 2 || size > sizeof(bid.data) || !name[0] || name[0] == '[')
		return 0;
	bid.size = (uint8_t)size;
	memcpy(bid.data, id, size);
	hash = hashmap_hash(bid.data, bid.size);
	if (hashmap_find(&f->map, hash, same_id, &bid))
		return 0;
	if (f->nr == f->cap) {
		size_t cap = f->cap ? 2 * f->cap : 64;
		struct wanted **n = realloc(f->all, cap * sizeof(*n));

		if (!n)
			return -1;
		f->all = n;
		f->cap = cap;
	}
	w = calloc(1, sizeof(*w));
	if (!w || !(w->name = strdup(name)) || hashmap_add(&f->map, hash, (uintptr_t)w)) {
		if (w)
			free(w->name);
		free(w);
		return -1;
	}
	w->bid = bid;
	f->all[f->nr++] = w;
	return 0;
}

/* Every build-id @path names, with its file's name. */
static int collect(struct fetch *f, const char *path)
{
	struct perf_reader r;
	struct perf_rec rec;
	struct perf_build_id_entry e;
	void *table = NULL;
	size_t len = 0, off = 0;
	const char *why;
	int ret = -1, n;

	if (perf_reader_open(&r, path)) {
		msg_err("%s", perf_reader_error(&r));
		return -1;
	}
	if (perf_reader_build_ids(&r, &table, &len)) {
		msg_err("%s", perf_reader_error(&r));
		goto out;
	}
	while (table && perf_build_id_next(table, len, &off, &e, &why) > 0)
		if (want(f, e.id, e.size, e.name))
			goto oom;
	while ((n = perf_reader_next(&r, &rec)) > 0) {
		const struct perf_event_header *h = rec.h;
		struct perf_record_mmap2 m;
		char name[PATH_MAX];
		size_t room;

		if (h->type != PERF_RECORD_MMAP2 || !(h->misc & PERF_RECORD_MISC_MMAP_BUILD_ID) ||
		    h->size <= PERF_MMAP2_FIXED)
			continue;
		memcpy(&m, h, sizeof(m));
		room = h->size - PERF_MMAP2_FIXED;
		if (room >= sizeof(name))
			room = sizeof(name) - 1;
		memcpy(name, (const char *)h + PERF_MMAP2_FIXED, room);
		name[room] = 0;
		if (want(f, m.build_id, m.build_id_size < PERF_BUILD_ID_SIZE ?
			 m.build_id_size : PERF_BUILD_ID_SIZE, name))
			goto oom;
	}
	if (n < 0) {
		msg_err("%s", perf_reader_error(&r));
		goto out;
	}
	ret = 0;
	goto out;
oom:
	msg_err("out of memory");
out:
	free(table);
	perf_reader_close(&r);
	return ret;
}

static void hex(const struct mmap3_build_id *bid, char *out)
{
	unsigned int i;

	for (i = 0; i < bid->size; i++)
		sprintf(out + 2 * i, "%02x", bid->data[i]);
}

/* In @c's directory already (perf's .build-id/XX/REST)? */
static int cached(const struct capture *c, const char *id)
{
	char link[16 + 2 * MMAP3_BUILD_ID_SIZE_MAX];
	struct stat st;

	snprintf(link, sizeof(link), ".build-id/%.2s/%s", id, id + 2);
	return !fstatat(c->dirfd, link, &st, AT_SYMLINK_NOFOLLOW);
}

/*
 * debuginfod-find executable @id: the path of the file its client
 * cache holds, in @out; 0, 1 if no server has it, -1 if it could not run.
 */
static int find_executable(const char *id, char *out, size_t len)
{
	char *argv[] = { "debuginfod-find", "executable", (char *)id, NULL };
	int status = command_output(argv, out, len);

	if (status < 0 || status == 127)
		return -1;
	return !status && out[0] == '/' ? 0 : 1;
}

static void usage(FILE *f)
{
	fprintf(f,
		"usage: mmap3 fetch [-i FILE] [--buildid-dir DIR] [--quiet]\n"
		"\n"
		"Fetch the binaries FILE (default perf.data) names by build-id, from the\n"
		"debuginfod servers of DEBUGINFOD_URLS (debuginfod-find), into perf's\n"
		"build-id cache, where perf report reads them: for a profile read far\n"
		"from the hosts it was recorded on (docs/fleet.md).  Each file is kept\n"
		"only if its own build-id is the one asked for.\n"
		"\n"
		"  -i, --input FILE      the perf.data (default perf.data)\n"
		"      --buildid-dir DIR  the cache (default: where the perf in PATH looks,\n"
		"                        its buildid.dir, else ~/.debug)\n"
		"  -q, --quiet           warnings and errors only\n");
}

int cmd_fetch(int argc, char **argv)
{
	enum { OPT_BUILDID_DIR = 256 };
	static const struct option opts[] = {
		{ "input", required_argument, NULL, 'i' },
		{ "buildid-dir", required_argument, NULL, OPT_BUILDID_DIR },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *input = "perf.data", *dir = NULL;
	uint64_t there = 0, fetched = 0, missing = 0, refused = 0;
	struct fetch f = { 0 };
	struct capture cap;
	char *own_dir = NULL;
	int c, ret = 1;
	size_t i;

	while ((c = getopt_long(argc, argv, "i:qh", opts, NULL)) != -1) {
		switch (c) {
		case 'i':
			input = optarg;
			break;
		case OPT_BUILDID_DIR:
			dir = optarg;
			break;
		case 'q':
			msg_set_quiet(1);
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (optind != argc) {
		usage(stderr);
		return 2;
	}
	if (!getenv("DEBUGINFOD_URLS") || !getenv("DEBUGINFOD_URLS")[0]) {
		msg_err("DEBUGINFOD_URLS is not set: name the debuginfod servers to fetch from");
		return 2;
	}
	if (collect(&f, input))
		goto out;
	if (!dir) {
		own_dir = perf_buildid_dir();
		if (!own_dir)
			goto out;
		dir = own_dir;
	}
	if (capture_open(&cap, dir))
		goto out;
	cap.limits.max_total = 0;
	cap.fetched = 1;
	for (i = 0; i < f.nr; i++) {
		struct wanted *w = f.all[i];
		char id[2 * MMAP3_BUILD_ID_SIZE_MAX + 1], path[PATH_MAX];
		uint64_t stored = cap.stats.stored;
		int r;

		hex(&w->bid, id);
		if (cached(&cap, id)) {
			there++;
			continue;
		}
		r = find_executable(id, path, sizeof(path));
		if (r < 0) {
			msg_err("cannot run debuginfod-find: %s (install debuginfod)", strerror(errno));
			capture_close(&cap);
			goto out;
		}
		if (r) {
			msg_warn("%s (%s): no server has it", w->name, id);
			missing++;
			continue;
		}
		if (capture_store_file_as(&cap, path, w->name, &w->bid) ||
		    cap.stats.stored == stored) {
			refused++;
			continue;
		}
		fetched++;
	}
	capture_close(&cap);
	msg_info("%s: %zu build-ids: %llu in %s already, %llu fetched, %llu no server has, "
		 "%llu not kept (said above)", input, f.nr, (unsigned long long)there, dir,
		 (unsigned long long)fetched, (unsigned long long)missing,
		 (unsigned long long)refused);
	/* What no server has is said and counted; a file not its id's is an error. */
	ret = refused ? 1 : 0;
out:
	for (i = 0; i < f.nr; i++) {
		free(f.all[i]->name);
		free(f.all[i]);
	}
	free(f.all);
	hashmap_free(&f.map);
	free(own_dir);
	return ret;
}
