// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target for mmap3 merge (userspace/merge.c) on two inputs
 * from one: a perf.data and a side file, split where the input's first
 * two bytes say.  Each is checked by the reader (perf_reader_fuzz), so
 * this reaches what merge does with what passed: matching by time,
 * kernel maps, records added between perf's, the AUXTRACE index, the
 * build-id tables, the output.  A merge that succeeds must leave a
 * perf.data the reader takes, with every record of the input.  Run by
 * tests/fuzz/run, with -close_fd_mask=2 for the tool's error lines.
 */
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "merge.h"
#include "perf/reader.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerInitialize(int *argc, char ***argv);

static int fds[2];
static char paths[2][64], dir[] = "/tmp/mmap3-merge-fuzz.XXXXXX", out[64];

static void clean_up(void)
{
	unlink(out);
	rmdir(dir);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc, (void)argv;
	fds[0] = memfd_create("perf.data", MFD_CLOEXEC);
	fds[1] = memfd_create("side.data", MFD_CLOEXEC);
	snprintf(paths[0], sizeof(paths[0]), "/proc/self/fd/%d", fds[0]);
	snprintf(paths[1], sizeof(paths[1]), "/proc/self/fd/%d", fds[1]);
	if (!mkdtemp(dir))
		abort();
	snprintf(out, sizeof(out), "%s/out.data", dir);
	atexit(clean_up);
	return 0;
}

static void put(int fd, const uint8_t *data, size_t size)
{
	if (ftruncate(fd, 0) || pwrite(fd, data, size, 0) != (ssize_t)size)
		abort();
}

/* Records of the data section, not counting a pipe's header records. */
static long count(const char *path)
{
	struct perf_reader r;
	struct perf_rec rec;
	long n = 0;
	int ret;

	if (perf_reader_open(&r, path))
		return -1;
	while ((ret = perf_reader_next(&r, &rec)) > 0)
		n += !rec.in_header;
	perf_reader_close(&r);
	return ret < 0 ? -1 : n;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct merge_stats st;
	size_t split;
	long in;

	if (size < 2)
		return 0;
	split = (size_t)(data[0] | data[1] << 8);
	if (split > size - 2)
		split = size - 2;
	put(fds[0], data + 2, split);
	put(fds[1], data + 2 + split, size - 2 - split);
	unlink(out);
	if (merge_files(paths[0], paths[1], out, NULL, &st))
		return 0;
	/* Everything of perf's is there, and mmap3's additions. */
	in = count(paths[0]);
	if (in < 0 || count(out) != in + (long)st.added)
		abort();
	return 0;
}
