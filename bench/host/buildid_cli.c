// SPDX-License-Identifier: GPL-2.0
/*
 * Benchmark 6, whole process: print the build-id of each file named on
 * the command line, as "HEX PATH" (or "- PATH" without one), with the
 * mmap3 parser or, with --libelf, libelf, so a run over a file list can
 * be timed beside readelf -n and eu-readelf -n and the two outputs
 * compared.
 *
 *   buildid_cli [--libelf] FILE...
 */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "elf_buildid.h"
#include "elf_buildid_fd.h"
#include "libelf_buildid.h"

/* The parser's window: one read finds most ids, few read a section table. */
static unsigned char win[WIN_SIZE];

static void print(const unsigned char *id, size_t size, const char *path)
{
	static const char digits[] = "0123456789abcdef";
	char hex[2 * MMAP3_BUILD_ID_SIZE_MAX + 1];
	size_t i;

	for (i = 0; i < size; i++) {
		hex[2 * i] = digits[id[i] >> 4];
		hex[2 * i + 1] = digits[id[i] & 15];
	}
	hex[2 * size] = 0;
	printf("%s %s\n", size ? hex : "-", path);
}

int main(int argc, char **argv)
{
	int use_libelf = argc > 1 && !strcmp(argv[1], "--libelf");
	int i;

	if (use_libelf)
		elf_version(EV_CURRENT);
	for (i = 1 + use_libelf; i < argc; i++) {
		int fd = open(argv[i], O_RDONLY | O_CLOEXEC);
		struct stat st;

		if (fd < 0 || fstat(fd, &st)) {
			fprintf(stderr, "buildid_cli: %s: %s\n", argv[i], strerror(errno));
			if (fd >= 0)
				close(fd);
			continue;
		}
		if (use_libelf) {
			struct libelf_id id;

			libelf_buildid_cmd(fd, ELF_C_READ_MMAP, &id);
			print(id.bytes, id.found ? id.size : 0, argv[i]);
		} else {
			struct elf_buildid bid;

			elf_buildid_parse_buf(elf_buildid_fd_read, &fd, (__u64)st.st_size, &bid,
					      win, sizeof(win));
			print(bid.id, bid.status == MMAP3_BUILDID_FOUND ? bid.size : 0, argv[i]);
		}
		close(fd);
	}
	return 0;
}
