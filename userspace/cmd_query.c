// SPDX-License-Identifier: GPL-2.0
/*
 * userspace/cmd_query.c - questions to the module: mmap3 stat (its
 * statistics) and mmap3 buildid (build-ids as the module sees them).
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "commands.h"
#include "device.h"
#include "openfile.h"
#include "escape.h"

static int is_help(int argc, char **argv)
{
	return argc == 2 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"));
}

int cmd_stat(int argc, char **argv)
{
	struct mmap3_abi_version ver;
	struct mmap3_stats st;
	char buf[32];
	unsigned int i;
	int fd;

	if (is_help(argc, argv)) {
		printf("usage: mmap3 stat\n\nPrint the module's queue and cache statistics and "
		       "the files it read, by outcome.\n");
		return 0;
	}
	if (argc != 1) {
		fprintf(stderr, "usage: mmap3 stat\n");
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

static void print_id(const struct mmap3_build_id *bid, const char *name)
{
	int i;

	for (i = 0; i < bid->size; i++)
		printf("%02x", bid->data[i]);
	putchar(' ');
	escape_text(stdout, name, 4096);
	putchar('\n');
}

/* A session's records: the dump, then what follows. */
struct session {
	int fd;
	struct mmap3_records records;
};

static int session_start(struct session *s, const struct mmap3_filter *filter)
{
	struct mmap3_abi_version ver;

	memset(s, 0, sizeof(*s));
	s->fd = mmap3_device_open(&ver);
	if (s->fd < 0)
		return -1;
	if (mmap3_records_init(&s->records, s->fd) ||
	    mmap3_device_setup(s->fd, filter, MMAP3_CLOCK_LOCAL, 0) || mmap3_device_enable(s->fd))
		return -1;
	return 0;
}

/* The next record, checked, waiting for it; NULL on error (printed). */
static const struct mmap3_record_header *session_next(struct session *s)
{
	const struct mmap3_record_header *h;
	int ret = mmap3_records_next(&s->records, &h);

	if (ret > 0)
		return h;
	if (!ret)
		fprintf(stderr, "mmap3: reading %s: end of records\n", mmap3_device_path());
	return NULL;
}

static void session_end(struct session *s)
{
	if (s->fd >= 0)
		close(s->fd);
	mmap3_records_free(&s->records);
}

static int buildid_of_dump(const char *module, pid_t pid)
{
	struct mmap3_filter filter = { .size = sizeof(filter) };
	const struct mmap3_record_header *h;
	struct session s;
	char buf[32];
	int found = 0;

	if (pid) {
		filter.nr_pids = 1;
		filter.pids[0] = pid;
	}
	if (session_start(&s, &filter)) {
		session_end(&s);
		return 1;
	}
	while ((h = session_next(&s)) && h->type != MMAP3_RECORD_DUMP_DONE) {
		if (!module && !pid && h->type == MMAP3_RECORD_KERNEL) {
			const struct mmap3_record_kernel *k = (const void *)h;

			print_id(&k->build_id, "[kernel.kallsyms]");
			found = k->build_id.status == MMAP3_BUILDID_FOUND;
			break;
		}
		if (module && h->type == MMAP3_RECORD_MODULE_LOAD) {
			const struct mmap3_record_module *m = (const void *)h;
			char name[MMAP3_MODULE_NAME_LEN + 3];

			if (strncmp(m->name, module, MMAP3_MODULE_NAME_LEN))
				continue;
			snprintf(name, sizeof(name), "[%s]", m->name);
			if (m->build_id.status == MMAP3_BUILDID_FOUND)
				print_id(&m->build_id, name);
			else
				fprintf(stderr, "mmap3: module %s: no build-id: %s\n", m->name,
					mmap3_status_str(m->build_id.status, buf, sizeof(buf)));
			found = m->build_id.status == MMAP3_BUILDID_FOUND;
			break;
		}
		if (pid && h->type == MMAP3_RECORD_MMAP) {
			const struct mmap3_record_mmap *m = (const void *)h;

			if (m->build_id.status == MMAP3_BUILDID_FOUND) {
				print_id(&m->build_id, m->path);
			} else {
				printf("- ");
				escape_text(stdout, m->path, 4096);
				printf(" (%s)\n", mmap3_status_str(m->build_id.status, buf, sizeof(buf)));
			}
			found = 1;
		}
	}
	session_end(&s);
	if (!h)
		return 1;
	if (!found) {
		if (module)
			fprintf(stderr, "mmap3: module %s is not loaded\n", module);
		else if (pid)
			fprintf(stderr, "mmap3: process %d does not exist or maps no "
				"executable file\n", pid);
		else
			fprintf(stderr, "mmap3: the module found no build-id for the kernel\n");
		return 1;
	}
	return 0;
}

/* Map PATH executable here and let the module tell its build-id. */
static int buildid_of_path(const char *path)
{
	struct mmap3_filter filter = { .size = sizeof(filter), .nr_pids = 1 };
	const struct mmap3_record_header *h;
	struct session s = { .fd = -1 };
	struct stat st;
	void *p = MAP_FAILED;
	char buf[32];
	int fd, ret = 1;

	/* Looked at first: a device or a FIFO is not opened. */
	fd = open_checked(path, S_IFREG, &st);
	if (fd == -1) {
		fprintf(stderr, "mmap3: %s: %s\n", path, strerror(errno));
		goto out;
	}
	if (fd == -2 || !st.st_size) {
		fprintf(stderr, "mmap3: %s: not a regular, non-empty file\n", path);
		goto out;
	}
	filter.pids[0] = getpid();
	if (session_start(&s, &filter))
		goto out_session;
	while ((h = session_next(&s)) && h->type != MMAP3_RECORD_DUMP_DONE)
		;
	if (!h)
		goto out_session;
	p = mmap(NULL, 1, PROT_READ | PROT_EXEC, MAP_PRIVATE, fd, 0);
	if (p == MAP_FAILED) {
		fprintf(stderr, "mmap3: %s: cannot map it executable (%s): the module sees "
			"only executable mappings\n", path, strerror(errno));
		goto out_session;
	}
	if (mmap3_device_flush(s.fd))
		goto out_session;
	while ((h = session_next(&s))) {
		const struct mmap3_record_mmap *m = (const void *)h;

		if (h->type != MMAP3_RECORD_MMAP || m->addr != (uintptr_t)p)
			continue;
		if (m->build_id.status == MMAP3_BUILDID_FOUND) {
			print_id(&m->build_id, path);
			ret = 0;
		} else {
			fprintf(stderr, "mmap3: %s: no build-id: %s\n", path,
				mmap3_status_str(m->build_id.status, buf, sizeof(buf)));
		}
		break;
	}
out_session:
	if (p != MAP_FAILED)
		munmap(p, 1);
	session_end(&s);
out:
	if (fd >= 0)
		close(fd);
	return ret;
}

static void buildid_usage(FILE *f)
{
	fprintf(f, "usage: mmap3 buildid PATH | --pid PID | --kernel | --module NAME\n");
}

int cmd_buildid(int argc, char **argv)
{
	char *end;
	long pid;

	if (is_help(argc, argv)) {
		buildid_usage(stdout);
		printf("\nPrint BUILD-ID NAME lines, as perf buildid-list, from the module's "
		       "view:\n"
		       "  PATH           the file, mapped executable here and read by the module\n"
		       "  --pid PID      every executable file mapping of the process\n"
		       "  --kernel       the running kernel\n"
		       "  --module NAME  the loaded module NAME\n");
		return 0;
	}
	if (argc == 2 && !strcmp(argv[1], "--kernel"))
		return buildid_of_dump(NULL, 0);
	if (argc == 3 && !strcmp(argv[1], "--module"))
		return buildid_of_dump(argv[2], 0);
	if (argc == 3 && !strcmp(argv[1], "--pid")) {
		errno = 0;
		pid = strtol(argv[2], &end, 10);
		if (*end || errno || pid <= 0 || pid > INT32_MAX) {
			fprintf(stderr, "mmap3 buildid: --pid %s: not a process id\n", argv[2]);
			return 2;
		}
		return buildid_of_dump(NULL, (pid_t)pid);
	}
	if (argc == 2 && argv[1][0] != '-')
		return buildid_of_path(argv[1]);
	buildid_usage(stderr);
	return 2;
}
