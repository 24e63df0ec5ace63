// SPDX-License-Identifier: GPL-2.0
/*
 * Compare lib/elf_buildid.c with libelf on real files.
 *
 *   buildid_libelf [--bench] < LIST     one path per line
 *
 * For every ELF file in LIST, the build-id found by libelf (PT_NOTE
 * segments first, then SHT_NOTE sections, as the parser does) must equal
 * the parser's, and a file libelf finds none in must get none; the
 * parser with a 64 KB window (elf_buildid_parse_buf) must give exactly
 * the result it gives with its own small one.  Prints
 * each disagreement and a summary; exits 1 if any.  --bench also prints
 * the time each took.
 */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "elf_buildid.h"
#include "elf_buildid_fd.h"
#include "libelf_buildid.h"

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void hex(const unsigned char *p, size_t n, char *out)
{
	size_t i;

	for (i = 0; i < n; i++)
		sprintf(out + 2 * i, "%02x", p[i]);
	out[2 * n] = 0;
}

int main(int argc, char **argv)
{
	unsigned long files = 0, elf_files = 0, with_id = 0, differ = 0;
	unsigned long by_status[MMAP3_BUILDID_NR_STATUS] = { 0 }, go_derived = 0;
	int bench = argc > 1 && !strcmp(argv[1], "--bench");
	double t_ours = 0, t_libelf = 0;
	char *line = NULL;
	size_t cap = 0;
	ssize_t len;

	elf_version(EV_CURRENT);
	while ((len = getline(&line, &cap, stdin)) > 0) {
		static unsigned char win[65536];
		struct elf_buildid bid, big;
		unsigned char magic[4];
		struct stat st;
		struct libelf_id id;
		double t0, t1, t2;
		int fd;

		if (line[len - 1] == '\n')
			line[len - 1] = 0;
		fd = open(line, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
		if (fd < 0)
			continue;
		if (fstat(fd, &st) || !S_ISREG(st.st_mode) ||
		    pread(fd, magic, 4, 0) != 4 || memcmp(magic, "\177ELF", 4)) {
			close(fd);
			continue;
		}
		files++;
		t0 = now();
		elf_buildid_parse(elf_buildid_fd_read, &fd, st.st_size, &bid);
		t1 = now();
		libelf_buildid(fd, &id);
		t2 = now();
		/* The large window must see exactly what the small one does. */
		elf_buildid_parse_buf(elf_buildid_fd_read, &fd, st.st_size, &big, win, sizeof(win));
		if (memcmp(&big, &bid, sizeof(bid))) {
			printf("DIFFER %s: the parser's result depends on its window\n", line);
			differ++;
		}
		t_ours += t1 - t0;
		t_libelf += t2 - t1;
		close(fd);

		elf_files++;
		by_status[bid.status < MMAP3_BUILDID_NR_STATUS ? bid.status : 0]++;
		with_id += id.found;
		/* libelf knows GNU notes only: a Go build id's derived one is buildid_test's. */
		if (!id.found && bid.status == MMAP3_BUILDID_FOUND && bid.kind == MMAP3_BUILDID_GO) {
			go_derived++;
			continue;
		}
		if (id.found != (bid.status == MMAP3_BUILDID_FOUND) ||
		    (id.found && (id.size != bid.size || memcmp(id.bytes, bid.id, id.size)))) {
			char a[2 * MMAP3_BUILD_ID_SIZE_MAX + 1] = "none", b[sizeof(a)] = "none";

			if (id.found)
				hex(id.bytes, id.size, a);
			if (bid.status == MMAP3_BUILDID_FOUND)
				hex(bid.id, bid.size, b);
			printf("DIFFER %s: libelf %s, mmap3 %s (%s at offset %llu)\n", line, a, b,
			       elf_buildid_status_str(bid.status), (unsigned long long)bid.offset);
			differ++;
		}
	}
	free(line);
	printf("%lu ELF files: %lu agree, %lu differ; %lu with a build-id, %lu derived from a Go "
	       "build id\n", elf_files, elf_files - differ, differ, with_id, go_derived);
	for (size_t i = 0; i < MMAP3_BUILDID_NR_STATUS; i++)
		if (by_status[i])
			printf("  %-55s %lu\n", elf_buildid_status_str(i), by_status[i]);
	if (bench)
		printf("mmap3 parser %.3f s, libelf %.3f s: %.2fx\n", t_ours, t_libelf,
		       t_ours > 0 ? t_libelf / t_ours : 0);
	return differ ? 1 : 0;
}
