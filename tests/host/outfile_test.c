// SPDX-License-Identifier: GPL-2.0
/*
 * Outputs that cannot be abused (issue #12, 2): userspace/outfile.c,
 * built as the tool has it (O_TMPFILE) and with only its fallback for
 * file systems without O_TMPFILE (-DOUTFILE_NO_TMPFILE), which names its
 * temporary file.  Prints TAP.
 *
 *   outfile_test SCRATCH-DIR
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <unistd.h>

#include "outfile.h"
#include "tap.h"

#ifdef OUTFILE_NO_TMPFILE
#define HOW "named temporary"
#else
#define HOW "O_TMPFILE"
#endif

static char dir[1024];

static const char *at(const char *name)
{
	static char path[2][1200];
	static int i;

	i ^= 1;
	snprintf(path[i], sizeof(path[i]), "%s/%s", dir, name);
	return path[i];
}

/* Write @text to a new output @name; the outfile's return. */
static int write_out(const char *name, const char *text, const struct outfile_input *in,
		     unsigned int nr)
{
	struct outfile o;

	if (outfile_open(&o, at(name), in, nr))
		return -1;
	if (write(o.fd, text, strlen(text)) != (ssize_t)strlen(text)) {
		outfile_abort(&o);
		return -1;
	}
	return outfile_commit(&o);
}

static int has(const char *name, const char *text)
{
	char buf[256] = "";
	int fd = open(at(name), O_RDONLY | O_NOFOLLOW | O_NONBLOCK);
	ssize_t n = fd < 0 ? -1 : read(fd, buf, sizeof(buf) - 1);

	if (fd >= 0)
		close(fd);
	return n >= 0 && !strcmp(buf, text);
}

/* Nothing in the directory but @n entries. */
static int entries(int n)
{
	char cmd[1200];

	snprintf(cmd, sizeof(cmd), "test $(ls -A '%s' | wc -l) -eq %d", dir, n);
	return !system(cmd);
}

int main(int argc, char **argv)
{
	struct outfile_input in = { .path = "input" };
	struct outfile o;
	struct stat st;
	pid_t pid;
	int status, dirfd;

	if (argc != 2) {
		fprintf(stderr, "usage: outfile_test SCRATCH-DIR\n");
		return 2;
	}
	snprintf(dir, sizeof(dir), "%s/%s", argv[1], HOW);
	mkdir(dir, 0755);
	umask(022);

	CHECK(!write_out("out", "one", NULL, 0) && has("out", "one"), HOW ": writes a new file");
	CHECK(!stat(at("out"), &st) && (st.st_mode & 0777) == 0600,
	      HOW ": 0600 under umask 022, as perf creates perf.data");
	link(at("out"), at("hardlink"));
	CHECK(!write_out("out", "two", NULL, 0) && has("out", "two") && has("hardlink", "one"),
	      HOW ": replaces a regular file by its name, never writing through its inode");
	CHECK(has("out.old", "one"), HOW ": and keeps it as out.old, as perf keeps perf.data");
	unlink(at("out.old"));
	CHECK(entries(2), HOW ": and leaves no temporary file");

	symlink(at("victim"), at("link"));
	close(open(at("victim"), O_CREAT | O_WRONLY, 0644));
	CHECK(write_out("link", "x", NULL, 0) == -1 && has("victim", ""),
	      HOW ": refuses a symbolic link, and leaves its target alone");
	mkfifo(at("fifo"), 0600);
	CHECK(write_out("fifo", "x", NULL, 0) == -1 && !lstat(at("fifo"), &st) &&
	      S_ISFIFO(st.st_mode), HOW ": refuses a FIFO, without blocking");
	if (!mknod(at("null"), S_IFCHR | 0666, makedev(1, 3)))
		CHECK(write_out("null", "x", NULL, 0) == -1 && !lstat(at("null"), &st) &&
		      S_ISCHR(st.st_mode), HOW ": refuses a device node, which stays");
	else
		printf("ok %d # SKIP mknod: %s\n", ++tap_n, strerror(errno));
	mkdir(at("subdir"), 0755);
	CHECK(write_out("subdir", "x", NULL, 0) == -1, HOW ": refuses a directory");
	stat(at("out"), &in.st);
	link(at("out"), at("another"));
	CHECK(write_out("another", "x", &in, 1) == -1 && has("out", "two"),
	      HOW ": refuses an input under another name (a hard link): same device and inode");
	CHECK(write_out("out", "x", &in, 1) == -1 && has("out", "two"),
	      HOW ": refuses the input itself");
	CHECK(entries(8), HOW ": refusals leave no file");

	/* outfile_open_at(): an existing name is never replaced. */
	dirfd = open(dir, O_RDONLY | O_DIRECTORY);
	CHECK(!outfile_open_at(&o, dirfd, "fifo", "fifo") && outfile_commit(&o) == OUTFILE_EXISTED &&
	      !lstat(at("fifo"), &st) && S_ISFIFO(st.st_mode),
	      HOW ": open_at leaves what exists at its name, a FIFO too");
	CHECK(!outfile_open_at(&o, dirfd, "fresh", "fresh") && write(o.fd, "3", 1) == 1 &&
	      !outfile_commit(&o) && has("fresh", "3"), HOW ": open_at makes a new name");
	close(dirfd);
	CHECK(entries(9), HOW ": and leaves no temporary file");

	/* A signal while the file is being written: nothing left. */
	pid = fork();
	if (!pid) {
		if (outfile_open(&o, at("killed"), NULL, 0))
			_exit(1);
		write(o.fd, "partial", 7);
		kill(getpid(), SIGSTOP);
		_exit(2);
	}
	waitpid(pid, &status, WUNTRACED);
	CHECK(WIFSTOPPED(status) && entries(HOW[0] == 'n' ? 10 : 9),
	      HOW ": while being written the file has %s", HOW[0] == 'n' ? "a hidden random name" :
	      "no name");
	kill(pid, SIGTERM);
	kill(pid, SIGCONT);
	waitpid(pid, &status, 0);
	CHECK(WIFSIGNALED(status) && WTERMSIG(status) == SIGTERM && entries(9),
	      HOW ": killed by SIGTERM, it dies of it and leaves no temporary file");
	return tap_done();
}
