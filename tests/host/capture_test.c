// SPDX-License-Identifier: GPL-2.0
/*
 * Captures stay inside DIR (issue #12, 1): DIR itself is no symbolic
 * link, ours and writable by us alone; the relative path a mapped file's
 * path becomes, and beneath_mkdirs() with openat2() and with the
 * O_NOFOLLOW walk, against names and links planted in DIR.  Prints TAP.
 *
 *   capture_test SCRATCH-DIR
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "beneath.h"
#include "capture.h"
#include "tap.h"

static const struct {
	const char *path, *rel;
} relpaths[] = {
	{ "/usr/lib/libc.so.6", "usr/lib/libc.so.6" },
	{ "/memfd:runc", "memfd:runc" },
	{ "/memfd:../../../x", "memfd:..%2F..%2F..%2Fx" },
	{ "/memfd:a/b", "memfd:a%2Fb" },
	{ "/memfd:", "memfd:" },
	{ "/tmp/../etc/passwd", "tmp/%2E%2E/etc/passwd" },
	{ "/./a//b/.", "a/b" },
	{ "/a/%2E%2E", "a/%252E%252E" },
	{ "/a\nb/c\x1b", "a%0Ab/c%1B" },
	{ "/a\x7f", "a%7F" },
	{ "relative/..", "relative/%2E%2E" },
	{ "/", "%25" },
	{ "", "%25" },
	{ "..", "%2E%2E" },
};

/* Is there anything in @dir but what @keep names? */
static int only(const char *dir, const char *keep)
{
	char cmd[PATH_MAX + 64];

	snprintf(cmd, sizeof(cmd), "test -z \"$(ls -A '%s' | grep -vx '%s')\"", dir, keep);
	return !system(cmd);
}

static void mkdirs_tests(const char *scratch, enum beneath_mode mode, const char *how)
{
	char dir[1024], outside[1024], path[2 * 1024 + 64];
	struct stat st;
	uint64_t made = 0;
	int dirfd, fd;

	snprintf(dir, sizeof(dir), "%s/%s/DIR", scratch, how);
	snprintf(outside, sizeof(outside), "%s/%s/outside", scratch, how);
	snprintf(path, sizeof(path), "mkdir -p '%s' '%s'", dir, outside);
	if (system(path))
		return;
	dirfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	fd = beneath_mkdirs(dirfd, "usr/lib/x", mode, &made);
	snprintf(path, sizeof(path), "%s/usr/lib/x", dir);
	CHECK(fd >= 0 && !stat(path, &st) && S_ISDIR(st.st_mode) && (st.st_mode & 0777) == 0700,
	      "%s: creates usr/lib/x, mode 0700", how);
	CHECK(made == 3, "%s: ... counting the 3 directories made (%llu)", how,
	      (unsigned long long)made);
	if (fd >= 0)
		close(fd);
	fd = beneath_mkdirs(dirfd, "usr/lib/x", mode, &made);
	CHECK(fd >= 0 && made == 3, "%s: opens it again, making none (%llu in all)", how,
	      (unsigned long long)made);
	if (fd >= 0)
		close(fd);

	/* Planted: DIR/link -> outside, DIR/usr/evil -> ../.., DIR/file. */
	snprintf(path, sizeof(path), "%s/link", dir);
	symlink(outside, path);
	snprintf(path, sizeof(path), "%s/usr/evil", dir);
	symlink("../..", path);
	snprintf(path, sizeof(path), "%s/file", dir);
	close(open(path, O_CREAT | O_WRONLY, 0600));

	errno = 0;
	fd = beneath_mkdirs(dirfd, "link/x", mode, NULL);
	/* openat2() says ELOOP; O_DIRECTORY | O_NOFOLLOW on a link says ENOTDIR. */
	CHECK(fd < 0 && (errno == ELOOP || errno == ENOTDIR),
	      "%s: a symbolic link to outside is not followed (%s)", how,
	      strerror(errno));
	CHECK(only(outside, ""), "%s: ... and nothing is created outside", how);
	errno = 0;
	fd = beneath_mkdirs(dirfd, "usr/evil/y", mode, NULL);
	CHECK(fd < 0 && (errno == ELOOP || errno == ENOTDIR),
	      "%s: a symbolic link up and out is not followed (%s)", how,
	      strerror(errno));
	snprintf(path, sizeof(path), "%s/%s", scratch, how);
	CHECK(only(path, "DIR\\|outside"), "%s: ... and nothing is created beside DIR", how);
	errno = 0;
	fd = beneath_mkdirs(dirfd, "file/z", mode, NULL);
	CHECK(fd < 0 && errno == ENOTDIR, "%s: a file where a directory goes fails (%s)", how,
	      strerror(errno));
	errno = 0;
	fd = beneath_mkdirs(dirfd, "a/../b", mode, NULL);
	CHECK(fd < 0 && errno == EINVAL, "%s: \"..\" is refused", how);
	errno = 0;
	fd = beneath_mkdirs(dirfd, "/etc", mode, NULL);
	CHECK(fd < 0 && errno == EINVAL, "%s: an absolute path is refused", how);
	errno = 0;
	fd = beneath_mkdirs(dirfd, "a//b", mode, NULL);
	CHECK(fd < 0 && errno == EINVAL, "%s: an empty component is refused", how);
	CHECK(only(dir, "usr\\|link\\|file"), "%s: refused paths create nothing", how);
	close(dirfd);
}

/* capture_open() on @dir after @setup (a shell command) ran in SCRATCH. */
static int opens(const char *scratch, const char *setup, const char *dir)
{
	char cmd[2048], path[1024];
	struct capture c;
	int ret;

	snprintf(cmd, sizeof(cmd), "cd '%s' && %s", scratch, setup);
	if (system(cmd))
		return -2;
	snprintf(path, sizeof(path), "%s/%s", scratch, dir);
	ret = capture_open(&c, path);
	if (!ret)
		capture_close(&c);
	return ret;
}

/* DIR: a directory of the user running mmap3 that no one else may write to. */
static void open_tests(const char *scratch)
{
	char sub[1024], path[1100];
	struct stat st;

	snprintf(sub, sizeof(sub), "%s/open", scratch);
	mkdir(sub, 0755);
	CHECK(!opens(sub, "true", "new/a/b"), "capture_open makes a new DIR");
	snprintf(path, sizeof(path), "%s/new/a/b", sub);
	CHECK(!stat(path, &st) && (st.st_mode & 0777) == 0700, "... of mode 0700");
	CHECK(!opens(sub, "mkdir -m 0755 mine", "mine"), "an existing DIR of ours, 0755, opens");
	CHECK(!opens(sub, "true", "mine/"), "... also with a trailing slash");
	CHECK(opens(sub, "mkdir -p real && ln -s real link", "link") == -1,
	      "a DIR that is a symbolic link to a directory is refused");
	CHECK(opens(sub, "true", "link/") == -1, "... also with a trailing slash");
	CHECK(opens(sub, "mkdir -m 0770 grp", "grp") == -1, "a group-writable DIR is refused");
	CHECK(opens(sub, "mkdir -m 0702 oth", "oth") == -1, "a world-writable DIR is refused");
	CHECK(opens(sub, "mkdir -m 1777 tmp", "tmp") == -1, "... sticky too, as /tmp");
	CHECK(!opens(sub, "mkdir -p real2 && ln -s real2 ours", "ours/cap"),
	      "a symbolic link of ours on the way is followed");
	if (geteuid() == 0) {
		CHECK(opens(sub, "mkdir -m 0700 theirs && chown 65534 theirs", "theirs") == -1,
		      "a DIR owned by another user is refused");
		/* Planted on the way: nothing is created through them. */
		snprintf(path, sizeof(path), "%s/elsewhere/cap", sub);
		CHECK(opens(sub, "mkdir -p elsewhere && ln -s elsewhere planted && "
			    "chown -h 65534 planted", "planted/cap") == -1 && access(path, F_OK),
		      "a symbolic link of another user on the way is not followed");
		CHECK(opens(sub, "mkdir -m 0755 other && chown 65534 other", "other/cap") == -1,
		      "a directory of another user on the way is refused");
	} else {
		printf("ok %d # SKIP a DIR owned by another user (needs root)\n", ++tap_n);
		printf("ok %d # SKIP links and directories of others on the way (needs root)\n",
		       ++tap_n);
		printf("ok %d # SKIP a directory of another user on the way (needs root)\n",
		       ++tap_n);
	}
}

int main(int argc, char **argv)
{
	char out[PATH_MAX], longname[600];
	size_t i;
	int ok;

	if (argc != 2) {
		fprintf(stderr, "usage: capture_test SCRATCH-DIR\n");
		return 2;
	}
	for (i = 0; i < sizeof(relpaths) / sizeof(relpaths[0]); i++) {
		ok = !capture_relpath(relpaths[i].path, out, sizeof(out)) &&
		     !strcmp(out, relpaths[i].rel);
		CHECK(ok, "relpath %zu is \"%s\" (got \"%s\")", i, relpaths[i].rel, out);
	}
	/* A memfd name of 249 bytes of '/' escapes to 747: cut, with a hash. */
	memcpy(longname, "/memfd:", 7);
	memset(longname + 7, '/', 249);
	longname[256] = 0;
	ok = !capture_relpath(longname, out, sizeof(out));
	CHECK(ok && strlen(out) <= NAME_MAX && !strchr(out, '/'),
	      "a long memfd name stays one component of at most NAME_MAX bytes (%zu)", strlen(out));
	longname[200] = 'x';
	CHECK(!capture_relpath(longname, longname + 300, 300) && strcmp(out, longname + 300),
	      "... and differs from another one cut at the same length");
	CHECK(capture_relpath("/a/b", out, 3) == -1, "a path that does not fit fails");

	open_tests(argv[1]);
	mkdirs_tests(argv[1], BENEATH_OPENAT2, "openat2");
	mkdirs_tests(argv[1], BENEATH_WALK, "walk");
	return tap_done();
}
