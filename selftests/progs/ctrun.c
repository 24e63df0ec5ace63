// SPDX-License-Identifier: GPL-2.0
/*
 * A container as runtimes make one, for the selftests:
 *
 *   ctrun ROOT CGROUP INFO PROG [ARGS...]
 *
 * joins the cgroup v2 directory CGROUP ("-": stays), unshares the mount,
 * pid and cgroup namespaces, and in a child (pid 1 of the new pid
 * namespace) makes ROOT (a mount point, e.g. an overlay) its root with
 * pivot_root(2), the old root detached (or chroot(2) where the old root
 * is the initramfs, which cannot be pivoted away before 7.x), then runs
 * PROG from there.
 * Appends to the file INFO, before the pivot: "mnt N" (the inode number
 * of its mount namespace, as /proc/PID/ns/mnt shows it), then, from the
 * parent, "pid N" (the child's pid as the host sees it).  Exits with
 * PROG's status.
 */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

static void die(const char *what)
{
	perror(what);
	exit(125);
}

static void join_cgroup(const char *dir)
{
	char path[4096];
	int fd;

	if (!strcmp(dir, "-"))
		return;
	snprintf(path, sizeof(path), "%s/cgroup.procs", dir);
	fd = open(path, O_WRONLY);
	if (fd < 0 || write(fd, "0", 1) != 1)
		die(path);
	close(fd);
}

int main(int argc, char **argv)
{
	struct stat st;
	FILE *info;
	int status;
	pid_t pid;

	if (argc < 5) {
		fprintf(stderr, "usage: ctrun ROOT CGROUP INFO PROG [ARGS...]\n");
		return 2;
	}
	info = fopen(argv[3], "a");
	if (!info)
		die(argv[3]);
	setvbuf(info, NULL, _IONBF, 0);
	join_cgroup(argv[2]);
	if (unshare(CLONE_NEWNS | CLONE_NEWPID | CLONE_NEWCGROUP))
		die("unshare");
	pid = fork();
	if (pid < 0)
		die("fork");
	if (pid == 0) {
		if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL))
			die("mount --make-rprivate /");
		if (stat("/proc/self/ns/mnt", &st))
			die("/proc/self/ns/mnt");
		fprintf(info, "mnt %llu\n", (unsigned long long)st.st_ino);
		if (chdir(argv[1]))
			die(argv[1]);
		if (!syscall(SYS_pivot_root, ".", ".")) {
			if (umount2(".", MNT_DETACH))
				die("detaching the old root");
		} else if (errno != EINVAL || chroot(".")) {
			/* EINVAL: the old root is the initramfs (before 7.x's nullfs). */
			die("pivot_root and chroot");
		}
		if (chdir("/"))
			die("/");
		execv(argv[4], argv + 4);
		die(argv[4]);
	}
	fprintf(info, "pid %d\n", pid);
	if (waitpid(pid, &status, 0) != pid)
		die("waitpid");
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}
