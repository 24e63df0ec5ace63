// SPDX-License-Identifier: GPL-2.0
/*
 * memfd_exec NAME FILE [ARGS...]: run FILE from a memfd named NAME, as a
 * container runtime re-executes itself from a memfd.  A memfd's name is
 * free text, "/" and ".." included; record_test names it as an attacker
 * would, to see mmap3 record --capture keep the file inside its directory.
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <fcntl.h>
#include <unistd.h>

extern char **environ;

int main(int argc, char **argv)
{
	char buf[65536];
	ssize_t n;
	int in, fd;

	if (argc < 3) {
		fprintf(stderr, "usage: memfd_exec NAME FILE [ARGS...]\n");
		return 2;
	}
	fd = memfd_create(argv[1], 0);
	in = open(argv[2], O_RDONLY);
	if (fd < 0 || in < 0) {
		perror("memfd_exec");
		return 1;
	}
	while ((n = read(in, buf, sizeof(buf))) > 0)
		if (write(fd, buf, (size_t)n) != n) {
			perror("memfd_exec: write");
			return 1;
		}
	close(in);
	fexecve(fd, argv + 2, environ);
	perror("memfd_exec: fexecve");
	return 1;
}
