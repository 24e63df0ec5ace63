// SPDX-License-Identifier: GPL-2.0
/*
 * userspace/cmd_query.c - questions to the module: mmap3 stat (its
 * statistics) and mmap3 buildid (build-ids as the module sees them).
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "commands.h"
#include "device.h"
#include "msg.h"
#include "session.h"
#include "openfile.h"
#include "escape.h"
#include "elf_buildid.h"
#include "elf_buildid_fd.h"

static int is_help(int argc, char **argv)
{
	return argc == 2 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"));
}

/* JSON output: stat's object, buildid's list of {"build_id", "name", "status"}. */
static int json;
static int json_items;

/* JSON of the statistics: counts as strings, which no reader rounds. */
static int stat_json(const struct mmap3_abi_version *ver, const struct mmap3_stats *st)
{
	static const struct {
		const char *name;
		size_t off;
	} fields[] = {
#define F(x) { #x, offsetof(struct mmap3_stats, x) }
		F(pending), F(queue_lost), F(queue_memory), F(probe_missed),
		F(cache_entries), F(cache_capacity), F(cache_hits), F(cache_misses),
		F(cache_evictions), F(cache_invalidations), F(cache_memory),
		F(reads_cached), F(reads_slow), F(reads_timeout), F(reads_in_flight),
		F(reads_parked),
#undef F
	};
	char buf[32];
	uint64_t v;
	size_t i;

	printf("{\"abi\": \"%u.%u\"", ver->major, ver->minor);
	for (i = 0; i < sizeof(fields) / sizeof(fields[0]); i++) {
		memcpy(&v, (const char *)st + fields[i].off, sizeof(v));
		printf(", \"%s\": \"%" PRIu64 "\"", fields[i].name, v);
	}
	printf(", \"parsed\": {");
	for (i = 0; i < MMAP3_BUILDID_NR_STATUS && i < sizeof(st->parse) / sizeof(st->parse[0]); i++) {
		printf("%s", i ? ", " : "");
		escape_json(stdout, mmap3_status_str(i, buf, sizeof(buf)), 64);
		printf(": \"%" PRIu64 "\"", (uint64_t)st->parse[i]);
	}
	printf("}}\n");
	return 0;
}

int cmd_stat(int argc, char **argv)
{
	struct mmap3_abi_version ver;
	struct mmap3_stats st;
	char buf[32];
	unsigned int i;
	int fd;

	if (is_help(argc, argv)) {
		printf("usage: mmap3 stat [--json]\n\nPrint the module's queue and cache "
		       "statistics and the files it read, by outcome.\n\n"
		       "  --json   as a JSON object, every count a string of its decimal digits\n");
		return 0;
	}
	if (argc == 2 && !strcmp(argv[1], "--json")) {
		json = 1;
	} else if (argc != 1) {
		fprintf(stderr, "usage: mmap3 stat [--json]\n");
		return 2;
	}
	fd = mmap3_device_open(&ver);
	if (fd < 0)
		return 1;
	if (mmap3_device_stats(fd, &st)) {
		close(fd);
		return 1;
	}
	close(fd);
	if (json)
		return stat_json(&ver, &st);
	printf("module ABI %u.%u\n", ver.major, ver.minor);
	printf("queue: %" PRIu64 " mappings pending, %" PRIu64 " lost (queue full)\n",
	       (uint64_t)st.pending, (uint64_t)st.queue_lost);
	printf("cache: %" PRIu64 " of %" PRIu64 " entries; %" PRIu64 " hits, %" PRIu64
	       " misses, %" PRIu64 " evictions, %" PRIu64 " invalidations\n",
	       (uint64_t)st.cache_entries, (uint64_t)st.cache_capacity, (uint64_t)st.cache_hits,
	       (uint64_t)st.cache_misses, (uint64_t)st.cache_evictions,
	       (uint64_t)st.cache_invalidations);
	printf("files read:\n");
	for (i = 0; i < MMAP3_BUILDID_NR_STATUS && i < sizeof(st.parse) / sizeof(st.parse[0]); i++)
		printf("  %-55s %" PRIu64 "\n", mmap3_status_str(i, buf, sizeof(buf)),
		       (uint64_t)st.parse[i]);
	return 0;
}


/* A BUILD-ID NAME line, as perf buildid-list; without an id, "- NAME (why)". */
static void print_id(const struct mmap3_build_id *bid, const char *name)
{
	char buf[32];
	int i;

	if (json) {
		printf("%s\n  {\"build_id\": ", json_items++ ? "," : "");
		if (bid->status == MMAP3_BUILDID_FOUND) {
			putchar('"');
			for (i = 0; i < bid->size; i++)
				printf("%02x", bid->data[i]);
			putchar('"');
		} else {
			printf("null");
		}
		printf(", \"name\": ");
		escape_json(stdout, name, 4096);
		printf(", \"status\": ");
		escape_json(stdout, mmap3_status_str(bid->status, buf, sizeof(buf)), 64);
		if (bid->status == MMAP3_BUILDID_FOUND)
			printf(", \"kind\": \"%s\"", mmap3_kind_name(bid->kind));
		putchar('}');
		return;
	}
	if (bid->status != MMAP3_BUILDID_FOUND) {
		printf("- ");
		escape_text(stdout, name, 4096);
		printf(" (%s)\n", mmap3_status_str(bid->status, buf, sizeof(buf)));
		return;
	}
	for (i = 0; i < bid->size; i++)
		printf("%02x", bid->data[i]);
	putchar(' ');
	escape_text(stdout, name, 4096);
	/* Not the file's own note: said, after what perf buildid-list would print. */
	if (bid->kind == MMAP3_BUILDID_GO)
		printf(" (derived from its Go build id)");
	else if (bid->kind == MMAP3_BUILDID_CONTENT)
		printf(" (derived from its contents)");
	else if (bid->kind != MMAP3_BUILDID_GNU)
		printf(" (derived, kind %u)", bid->kind);
	putchar('\n');
}

/* Module names as modprobe has them: '-' and '_' are one. */
static int same_module(const char *a, const char *b)
{
	size_t i;

	for (i = 0; i < MMAP3_MODULE_NAME_LEN; i++) {
		char x = a[i] == '-' ? '_' : a[i], y = b[i] == '-' ? '_' : b[i];

		if (x != y)
			return 0;
		if (!x)
			return 1;
	}
	return 1;
}

/* A session of @so's filter, its records waited for: the dump, then what follows. */
static int query_start(struct session *s, const struct session_opts *so)
{
	if (session_open(s, so) || session_enable(s))
		return -1;
	mmap3_records_set_wait(&s->records, 1);
	return 0;
}

/* The next record, checked, waiting for it; NULL on error (printed). */
static const struct mmap3_record_header *query_next(struct session *s)
{
	const struct mmap3_record_header *h;
	int ret = session_next(s, &h);

	if (ret > 0)
		return h;
	if (!ret)
		msg_err("reading %s: end of records", mmap3_device_path());
	return NULL;
}

static int buildid_of_dump(const char *module, pid_t pid)
{
	struct session_opts so = {
		.filter = { .size = sizeof(so.filter), .flags = MMAP3_FILTER_DERIVED },
		.clock = MMAP3_CLOCK_LOCAL,
	};
	const struct mmap3_record_header *h;
	struct session s;
	char buf[32];
	int found = 0;

	if (pid) {
		so.filter.nr_pids = 1;
		so.filter.pids[0] = pid;
	}
	if (query_start(&s, &so)) {
		session_close(&s);
		return 1;
	}
	while ((h = query_next(&s)) && h->type != MMAP3_RECORD_DUMP_DONE) {
		if (!module && !pid && h->type == MMAP3_RECORD_KERNEL) {
			const struct mmap3_record_kernel *k = (const void *)h;

			print_id(&k->build_id, "[kernel.kallsyms]");
			found = k->build_id.status == MMAP3_BUILDID_FOUND;
			break;
		}
		if (module && h->type == MMAP3_RECORD_MODULE_LOAD) {
			const struct mmap3_record_module *m = (const void *)h;
			char name[MMAP3_MODULE_NAME_LEN + 3];

			if (!same_module(m->name, module))
				continue;
			snprintf(name, sizeof(name), "[%s]", m->name);
			if (m->build_id.status == MMAP3_BUILDID_FOUND || json)
				print_id(&m->build_id, name);
			else
				msg_err("module %s: no build-id: %s", m->name,
					mmap3_status_str(m->build_id.status, buf, sizeof(buf)));
			found = m->build_id.status == MMAP3_BUILDID_FOUND;
			break;
		}
		if (pid && h->type == MMAP3_RECORD_MMAP) {
			const struct mmap3_record_mmap *m = (const void *)h;

			print_id(&m->build_id, m->path);
			found = 1;
		}
	}
	session_close(&s);
	if (!h)
		return 1;
	if (!found) {
		if (module)
			msg_err("module %s is not loaded", module);
		else if (pid)
			msg_err("process %d does not exist or maps no "
				"executable file", pid);
		else
			msg_err("the module found no build-id for the kernel");
		return 1;
	}
	return 0;
}

/* Map PATH executable here and let the module tell its build-id. */
static int buildid_of_path(const char *path)
{
	/* The id a file without a GNU note gets too (a module before 2.5 gives none). */
	struct session_opts so = {
		.filter = { .size = sizeof(so.filter), .flags = MMAP3_FILTER_DERIVED, .nr_pids = 1,
			    .pids = { getpid() } },
		.clock = MMAP3_CLOCK_LOCAL,
	};
	const struct mmap3_record_header *h;
	struct session s = { .dev = -1 };
	struct stat st;
	void *p = MAP_FAILED;
	char buf[32];
	int fd, ret = 1;

	/* Looked at first: a device or a FIFO is not opened. */
	fd = open_checked(path, S_IFREG, &st);
	if (fd == -1) {
		msg_err("%s: %s", path, strerror(errno));
		goto out;
	}
	if (fd == -2 || !st.st_size) {
		msg_err("%s: not a regular, non-empty file", path);
		goto out;
	}
	if (query_start(&s, &so))
		goto out_session;
	while ((h = query_next(&s)) && h->type != MMAP3_RECORD_DUMP_DONE)
		;
	if (!h)
		goto out_session;
	p = mmap(NULL, 1, PROT_READ | PROT_EXEC, MAP_PRIVATE, fd, 0);
	if (p == MAP_FAILED) {
		msg_err("%s: cannot map it executable (%s): the module sees "
			"only executable mappings", path, strerror(errno));
		goto out_session;
	}
	if (mmap3_device_flush(s.dev))
		goto out_session;
	while ((h = query_next(&s))) {
		const struct mmap3_record_mmap *m = (const void *)h;

		if (h->type != MMAP3_RECORD_MMAP || m->addr != (uintptr_t)p)
			continue;
		if (m->build_id.status == MMAP3_BUILDID_FOUND || json) {
			print_id(&m->build_id, path);
			ret = m->build_id.status != MMAP3_BUILDID_FOUND;
		} else {
			msg_err("%s: no build-id: %s", path,
				mmap3_status_str(m->build_id.status, buf, sizeof(buf)));
		}
		break;
	}
out_session:
	if (p != MAP_FAILED)
		munmap(p, 1);
	session_close(&s);
out:
	if (fd >= 0)
		close(fd);
	return ret;
}

/* The module's budget of reads and bytes for one file (lib/elf_buildid.h). */
struct budget_read {
	int fd;
	unsigned int reads;
	uint32_t bytes;
};

static long budget_read(void *ctx, void *buf, size_t len, __u64 off)
{
	struct budget_read *b = ctx;

	if (++b->reads > ELF_BUILDID_MAX_READS || len > ELF_BUILDID_MAX_BYTES - b->bytes)
		return ELF_BUILDID_READ_LIMIT;
	b->bytes += len;
	return elf_buildid_fd_read(&b->fd, buf, len, off);
}

/*
 * --no-module: PATH read here, by the module's parser (lib/) within its
 * default bounds: what a module would say of the file, on a machine
 * that has none (a workstation looking a Go program's derived id up in
 * a store, a build host naming what it ships).
 */
static int buildid_of_path_here(const char *path)
{
	static unsigned char win[4096];
	struct budget_read b = { .fd = -1 };
	struct mmap3_build_id out = { };
	struct elf_buildid bid, content;
	struct stat st;
	char buf[32];
	int ret = 1;

	b.fd = open_checked(path, S_IFREG, &st);
	if (b.fd == -1) {
		msg_err("%s: %s", path, strerror(errno));
		return 1;
	}
	if (b.fd == -2 || !st.st_size) {
		msg_err("%s: not a regular, non-empty file", path);
		goto out;
	}
	elf_buildid_parse_buf(budget_read, &b, (__u64)st.st_size, &bid, win, sizeof(win));
	/* Only a whole file has an id of its bytes: one that cannot be read whole stays NO_NOTE. */
	if (bid.status == MMAP3_BUILDID_NO_NOTE &&
	    (uint64_t)st.st_size <= (uint64_t)ELF_BUILDID_CONTENT_MAX_MB << 20) {
		elf_buildid_content(elf_buildid_fd_read, &b.fd, (__u64)st.st_size, &content, win,
				    sizeof(win));
		if (content.status == MMAP3_BUILDID_FOUND)
			bid = content;
	}
	out.status = (__u8)bid.status;
	out.size = (__u8)bid.size;
	out.kind = (__u8)bid.kind;
	memcpy(out.data, bid.id, bid.size);
	if (out.status == MMAP3_BUILDID_FOUND || json) {
		print_id(&out, path);
		ret = out.status != MMAP3_BUILDID_FOUND;
	} else {
		msg_err("%s: no build-id: %s", path, mmap3_status_str(out.status, buf, sizeof(buf)));
	}
out:
	if (b.fd >= 0)
		close(b.fd);
	return ret;
}

static void buildid_usage(FILE *f)
{
	fprintf(f, "usage: mmap3 buildid [--json] [--no-module] PATH | --pid PID | --kernel | "
		"--module NAME\n");
}

int cmd_buildid(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "pid", required_argument, NULL, 'p' },
		{ "kernel", no_argument, NULL, 'k' },
		{ "module", required_argument, NULL, 'm' },
		{ "json", no_argument, NULL, 'j' },
		{ "no-module", no_argument, NULL, 'n' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *module = NULL, *pid_arg = NULL;
	int c, what = 0, ret, here = 0;
	char *end;
	long pid = 0;

	while ((c = getopt_long(argc, argv, "p:km:jnh", opts, NULL)) != -1) {
		switch (c) {
		case 'p':
			pid_arg = optarg;
			what++;
			break;
		case 'k':
			what++;
			break;
		case 'm':
			module = optarg;
			what++;
			break;
		case 'j':
			json = 1;
			break;
		case 'n':
			here = 1;
			break;
		case 'h':
			buildid_usage(stdout);
			printf("\nPrint BUILD-ID NAME lines, as perf buildid-list, from the module's "
			       "view:\n"
			       "  PATH           the file, mapped executable here and read by the module\n"
			       "  --pid PID      every executable file mapping of the process\n"
			       "  --kernel       the running kernel\n"
			       "  --module NAME  the loaded module NAME ('-' and '_' alike)\n"
			       "  --json         as a JSON list of {build_id, name, status}\n"
			       "  --no-module    PATH read here by the module's parser, within its\n"
			       "                 default bounds: no module needed\n");
			return 0;
		default:
			buildid_usage(stderr);
			return 2;
		}
	}
	if (what + (argc - optind) != 1 || (argc > optind && argv[optind][0] == '-') ||
	    (here && argc == optind)) {
		buildid_usage(stderr);
		return 2;
	}
	if (pid_arg) {
		errno = 0;
		pid = strtol(pid_arg, &end, 10);
		if (end == pid_arg || *end || errno || pid <= 0 || pid > INT32_MAX) {
			msg_err("--pid %s: not a process id", pid_arg);
			return 2;
		}
	}
	if (json)
		printf("[");
	if (here)
		ret = buildid_of_path_here(argv[optind]);
	else if (argc > optind)
		ret = buildid_of_path(argv[optind]);
	else
		ret = buildid_of_dump(module, (pid_t)pid);
	if (json)
		printf("%s]\n", json_items ? "\n" : "");
	return ret;
}
