// SPDX-License-Identifier: GPL-2.0
/*
 * userspace/outfile.c - output files created safely (see outfile.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

#include "msg.h"
#include "outfile.h"

#define MODE		0600
#define TMP_SUFFIX	".mmap3-XXXXXXXXXXXX"

/*
 * Named temporary files to remove if a signal kills the tool (the
 * O_TMPFILE ones vanish by themselves).  Updated with signals blocked.
 */
#define MAX_TEMPS	8
static struct {
	int dirfd;
	char name[NAME_MAX + 1];
} temps[MAX_TEMPS];
static volatile sig_atomic_t temp_used[MAX_TEMPS];
static const int cleanup_signals[] = { SIGINT, SIGTERM, SIGHUP, SIGPIPE, SIGQUIT };

static void cleanup_and_die(int sig)
{
	unsigned int i;

	for (i = 0; i < MAX_TEMPS; i++)
		if (temp_used[i])
			unlinkat(temps[i].dirfd, temps[i].name, 0);
	signal(sig, SIG_DFL);
	raise(sig);
}

static void block_signals(sigset_t *old)
{
	sigset_t all;

	sigfillset(&all);
	sigprocmask(SIG_BLOCK, &all, old);
}

/* Catch the signals that would kill us, unless the caller handles them. */
static void install_cleanup(void)
{
	static int installed;
	unsigned int i;

	if (installed)
		return;
	installed = 1;
	for (i = 0; i < sizeof(cleanup_signals) / sizeof(cleanup_signals[0]); i++) {
		struct sigaction sa;

		if (sigaction(cleanup_signals[i], NULL, &sa) || sa.sa_handler != SIG_DFL)
			continue;
		memset(&sa, 0, sizeof(sa));
		sa.sa_handler = cleanup_and_die;
		sigaction(cleanup_signals[i], &sa, NULL);
	}
}

static void forget_temp(const struct outfile *o)
{
	unsigned int i;

	for (i = 0; i < MAX_TEMPS; i++)
		if (temp_used[i] && temps[i].dirfd == o->dirfd &&
		    !strcmp(temps[i].name, o->tmp))
			temp_used[i] = 0;
}

/* A fresh random name for a temporary file beside @name. */
static void temp_name(const char *name, char *out)
{
	static const char hex[] = "0123456789abcdef";
	uint64_t x;
	char *p;
	size_t n = strlen(name);

	if (getrandom(&x, sizeof(x), GRND_NONBLOCK) != sizeof(x))
		x = (uint64_t)time(NULL) * 0x9e3779b97f4a7c15ULL ^ (uint64_t)getpid() ^
		    (uintptr_t)&x;
	/* Hidden and short enough, however long @name is. */
	if (n > NAME_MAX - sizeof(TMP_SUFFIX))
		n = NAME_MAX - sizeof(TMP_SUFFIX);
	out[0] = '.';
	memcpy(out + 1, name, n);
	memcpy(out + 1 + n, TMP_SUFFIX, sizeof(TMP_SUFFIX));
	for (p = strchr(out + 1 + n, 'X'); p && *p == 'X'; p++, x >>= 4)
		*p = hex[x & 15];
}

static const char *file_type(mode_t mode)
{
	if (S_ISLNK(mode))
		return "a symbolic link";
	if (S_ISFIFO(mode))
		return "a FIFO";
	if (S_ISCHR(mode) || S_ISBLK(mode))
		return "a device node";
	if (S_ISSOCK(mode))
		return "a socket";
	if (S_ISDIR(mode))
		return "a directory";
	return "not a regular file";
}

/*
 * May the output take the place of what is at its name now?  Nothing or a
 * regular file that is no input; for outfile_open_at(), nothing.
 */
static const struct outfile_input *replaced_input(const struct outfile *o)
{
	unsigned int i;

	for (i = 0; i < o->nr_inputs; i++)
		if (o->inputs[i].replaced)
			return &o->inputs[i];
	return NULL;
}

static int check_target(const struct outfile *o)
{
	const struct outfile_input *r = replaced_input(o);
	struct stat st;
	unsigned int i;

	if (fstatat(o->dirfd, o->name, &st, AT_SYMLINK_NOFOLLOW)) {
		if (errno == ENOENT && !r)
			return 0;
		msg_err("%s: %s", o->path, r && errno == ENOENT ?
			"removed while it was read: not replaced" : strerror(errno));
		return -1;
	}
	if (r) {
		if (st.st_dev == r->st.st_dev && st.st_ino == r->st.st_ino)
			return 0;
		msg_err("%s: another file under that name since it was read: "
			"not replaced", o->path);
		return -1;
	}
	if (!S_ISREG(st.st_mode)) {
		msg_err("%s: %s, not replaced: give the path of a regular "
			"file or a new one", o->path, file_type(st.st_mode));
		return -1;
	}
	for (i = 0; i < o->nr_inputs; i++)
		if (st.st_dev == o->inputs[i].st.st_dev && st.st_ino == o->inputs[i].st.st_ino) {
			msg_err("%s: the same file as the input %s: the output "
				"must not be an input", o->path, o->inputs[i].path);
			return -1;
		}
	return 0;
}

/* Create the file: unnamed, else under a fresh name nobody planted. */
static int create(struct outfile *o)
{
	sigset_t old;
	unsigned int i, tries;
	int err = EEXIST;

	o->tmp[0] = 0;
	/* The host tests build the fallback alone too (-DOUTFILE_NO_TMPFILE). */
#ifndef OUTFILE_NO_TMPFILE
	o->fd = openat(o->dirfd, ".", O_TMPFILE | O_RDWR | O_CLOEXEC, MODE);
	if (o->fd >= 0)
		return 0;
	/* EOPNOTSUPP: not on this file system; EISDIR: not in this kernel. */
	if (errno != EOPNOTSUPP && errno != EISDIR && errno != EINVAL) {
		msg_err("%s: cannot create: %s", o->path, strerror(errno));
		return -1;
	}
#endif
	install_cleanup();
	for (tries = 0; tries < 100; tries++) {
		temp_name(o->name, o->tmp);
		block_signals(&old);
		o->fd = openat(o->dirfd, o->tmp, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
			       MODE);
		if (o->fd >= 0) {
			for (i = 0; i < MAX_TEMPS && temp_used[i]; i++)
				;
			if (i < MAX_TEMPS) {
				temps[i].dirfd = o->dirfd;
				memcpy(temps[i].name, o->tmp, sizeof(temps[i].name));
				temp_used[i] = 1;
			}
		}
		err = errno;
		sigprocmask(SIG_SETMASK, &old, NULL);
		if (o->fd >= 0)
			return 0;
		if (err != EEXIST)
			break;
	}
	errno = err;
	msg_err("%s: cannot create: %s", o->path, strerror(errno));
	o->tmp[0] = 0;
	return -1;
}

static void finish(struct outfile *o)
{
	if (o->fd >= 0)
		close(o->fd);
	o->fd = -1;
	if (o->own_dirfd && o->dirfd >= 0)
		close(o->dirfd);
	o->dirfd = -1;
}

int outfile_open(struct outfile *o, const char *path, const struct outfile_input *inputs,
		 unsigned int nr)
{
	const char *slash = strrchr(path, '/'), *base = slash ? slash + 1 : path;
	char *dir;

	memset(o, 0, sizeof(*o));
	o->path = path;
	o->fd = o->dirfd = -1;
	o->replace = 1;
	o->inputs = inputs;
	o->nr_inputs = nr;
	if (!*base || !strcmp(base, ".") || !strcmp(base, "..") || strlen(base) > NAME_MAX) {
		msg_err("%s: not a file name", path);
		return -1;
	}
	dir = slash ? strndup(path, slash == path ? 1 : (size_t)(slash - path)) : strdup(".");
	if (!dir) {
		msg_err("%s: out of memory", path);
		return -1;
	}
	o->dirfd = open(dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (o->dirfd < 0) {
		msg_err("%s: cannot create: %s: %s", path, dir, strerror(errno));
		free(dir);
		return -1;
	}
	free(dir);
	o->own_dirfd = 1;
	strcpy(o->name, base);
	if (check_target(o) || create(o)) {
		finish(o);
		return -1;
	}
	return 0;
}

int outfile_open_at(struct outfile *o, int dirfd, const char *name, const char *path)
{
	memset(o, 0, sizeof(*o));
	o->path = path;
	o->dirfd = dirfd;
	o->fd = -1;
	if (strlen(name) > NAME_MAX || strchr(name, '/')) {
		msg_err("%s: not a file name", path);
		return -1;
	}
	strcpy(o->name, name);
	return create(o);
}

/* Link the unnamed file at @name in the directory. */
static int link_unnamed(struct outfile *o, const char *name)
{
	char proc[64];

	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", o->fd);
	if (!linkat(AT_FDCWD, proc, o->dirfd, name, AT_SYMLINK_FOLLOW))
		return 0;
	/* Without /proc: this needs CAP_DAC_READ_SEARCH, which root has. */
	if (errno == ENOENT && !linkat(o->fd, "", o->dirfd, name, AT_EMPTY_PATH))
		return 0;
	return -1;
}

/*
 * The file being replaced, if there is one, is kept as NAME.old, as perf
 * record keeps perf.data: nothing of the user's is lost to a name given
 * twice.  A rename, which never follows what NAME.old is.
 */
static int keep_old(struct outfile *o)
{
	char old[NAME_MAX + 1];
	struct stat st;
	unsigned int i;

	if (fstatat(o->dirfd, o->name, &st, AT_SYMLINK_NOFOLLOW) || !S_ISREG(st.st_mode))
		return 0;
	if (snprintf(old, sizeof(old), "%s.old", o->name) >= (int)sizeof(old)) {
		msg_err("%s: replaced; its name is too long to keep it as .old",
			o->path);
		return 0;
	}
	/* An input named NAME.old would be lost: nothing is replaced. */
	if (!fstatat(o->dirfd, old, &st, AT_SYMLINK_NOFOLLOW))
		for (i = 0; i < o->nr_inputs; i++)
			if (st.st_dev == o->inputs[i].st.st_dev &&
			    st.st_ino == o->inputs[i].st.st_ino) {
				msg_err("%s exists, and keeping it as %s.old would "
					"lose the input %s: give another output", o->path,
					o->path, o->inputs[i].path);
				return -1;
			}
	if (renameat(o->dirfd, o->name, o->dirfd, old))
		msg_err("%s: cannot keep the previous file as %s: %s; replaced",
			o->path, old, strerror(errno));
	else
		msg_err("kept the previous %s as %s.old", o->path, o->path);
	return 0;
}

int outfile_commit(struct outfile *o)
{
	char tmp[NAME_MAX + 1];
	int ret = -1;

	if (fsync(o->fd)) {
		msg_err("%s: cannot write: %s", o->path, strerror(errno));
		goto out;
	}
	if (!o->replace) {
		/* A link never replaces: an existing name (a file or a plant) stays. */
		if (o->tmp[0] ? !linkat(o->dirfd, o->tmp, o->dirfd, o->name, 0) :
		    !link_unnamed(o, o->name))
			ret = 0;
		else if (errno == EEXIST)
			ret = OUTFILE_EXISTED;
		else
			msg_err("%s: cannot create: %s", o->path, strerror(errno));
		goto out;
	}
	if (check_target(o))
		goto out;
	if (!o->tmp[0]) {
		if (!link_unnamed(o, o->name)) {
			ret = 0;
			goto out;
		}
		if (errno != EEXIST) {
			msg_err("%s: cannot create: %s", o->path, strerror(errno));
			goto out;
		}
		/* Replacing a file: link under a fresh name, then rename over it. */
		temp_name(o->name, tmp);
		if (link_unnamed(o, tmp)) {
			msg_err("%s: cannot create: %s", o->path, strerror(errno));
			goto out;
		}
		memcpy(o->tmp, tmp, sizeof(tmp));
	}
	if (!replaced_input(o) && keep_old(o))
		goto out;
	if (renameat(o->dirfd, o->tmp, o->dirfd, o->name))
		msg_err("%s: cannot rename the complete file into place: %s",
			o->path, strerror(errno));
	else
		ret = 0;
out:
	if (o->tmp[0]) {
		/* Renamed into place, or still there: failed, or linked under its name. */
		if (ret || !o->replace)
			unlinkat(o->dirfd, o->tmp, 0);
		forget_temp(o);
		o->tmp[0] = 0;
	}
	finish(o);
	return ret;
}

void outfile_abort(struct outfile *o)
{
	if (o->tmp[0]) {
		unlinkat(o->dirfd, o->tmp, 0);
		forget_temp(o);
		o->tmp[0] = 0;
	}
	finish(o);
}
