// SPDX-License-Identifier: GPL-2.0
/*
 * Map files executable, for the selftests and the stress test.
 *
 *   mapexec [-n COUNT] [-w] FILE...
 *
 * Maps the first page of each FILE PROT_READ|PROT_EXEC, COUNT times
 * (default 1), keeping the mappings; with -w, then waits to be killed.
 * Exits 0 if every mapping was made, 1 otherwise.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	int count = 1, wait = 0, c, i, j, status = 0;

	while ((c = getopt(argc, argv, "n:w")) != -1) {
		if (c == 'n')
			count = atoi(optarg);
		else if (c == 'w')
			wait = 1;
		else
			return 2;
	}
	for (i = optind; i < argc; i++) {
		int fd = open(argv[i], O_RDONLY | O_CLOEXEC);

		if (fd < 0) {
			perror(argv[i]);
			status = 1;
			continue;
		}
		for (j = 0; j < count; j++)
			if (mmap(NULL, 4096, PROT_READ | PROT_EXEC, MAP_PRIVATE, fd, 0) == MAP_FAILED)
				status = 1;
		close(fd);
	}
	if (wait)
		pause();
	return status;
}
