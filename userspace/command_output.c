// SPDX-License-Identifier: GPL-2.0
/*
 * userspace/command_output.c - run a program, take its first line.
 */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "command_output.h"

int command_output(char *const argv[], char *out, size_t len)
{
	int fds[2], status = -1, devnull, err;
	size_t got = 0;
	ssize_t n;
	pid_t pid;

	if (pipe2(fds, O_CLOEXEC))
		return -1;
	pid = fork();
	if (pid < 0) {
		err = errno;
		close(fds[0]);
		close(fds[1]);
		errno = err;
		return -1;
	}
	if (!pid) {
		devnull = open("/dev/null", O_RDWR | O_CLOEXEC);
		dup2(devnull, 0);
		dup2(fds[1], 1);
		dup2(devnull, 2);
		execvp(argv[0], argv);
		_exit(127);
	}
	close(fds[1]);
	while (got + 1 < len && (n = read(fds[0], out + got, len - 1 - got)) != 0) {
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			break;
		got += (size_t)n;
	}
	close(fds[0]);
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return -1;
	if (len) {
		out[got] = 0;
		out[strcspn(out, "\n")] = 0;
	}
	if (!WIFEXITED(status))
		return -1;
	/* exec failed in the child: said as the shell says it, 127. */
	if (WEXITSTATUS(status) == 127)
		errno = ENOENT;
	return WEXITSTATUS(status);
}
