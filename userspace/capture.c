// SPDX-License-Identifier: GPL-2.0
/*
 * userspace/capture.c - store captured files in perf's build-id cache
 * layout, beneath the capture directory only, verifying each stored
 * file's build-id.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "capture.h"
#include "elf_note_add.h"
#include "device.h"
#include "escape.h"
#include "hash.h"
#include "msg.h"
#include "openfile.h"
#include "elf_buildid.h"
#include "elf_buildid_fd.h"
#include "outfile.h"

#define MEMFD_PREFIX	"/memfd:"
/* A component cut to fit NAME_MAX keeps this much, then "~" and a hash. */
#define CUT_AT		200

/* The parser's window: most ids in one read. */
static unsigned char win[65536];

/* Append @c to @out as itself or %XX; 0, or -1 when full. */
static int put(char *out, size_t len, size_t *n, unsigned char c, int escape)
{
	if (escape) {
		if (*n + 3 >= len)
			return -1;
		snprintf(out + *n, 4, "%%%02X", c);
		*n += 3;
		return 0;
	}
	if (*n + 1 >= len)
		return -1;
	out[(*n)++] = (char)c;
	out[*n] = 0;
	return 0;
}

static int escaped(unsigned char c, int dots, int slash_too)
{
	return dots || c < 0x20 || c == 0x7f || c == '%' || (slash_too && c == '/');
}

/*
 * One component of @len bytes at @s, escaped, appended to @out; one that
 * would pass NAME_MAX is cut, with a hash of all of it to tell it apart.
 */
static int put_component(char *out, size_t size, size_t *n, const char *s, size_t len,
			 int slash_too)
{
	int dots = (len == 1 && s[0] == '.') || (len == 2 && s[0] == '.' && s[1] == '.');
	size_t i, full = 0, keep;
	uint64_t h = fnv1a(s, len, FNV1A_INIT);

	for (i = 0; i < len; i++)
		full += escaped((unsigned char)s[i], dots, slash_too) ? 3 : 1;
	keep = full > NAME_MAX ? CUT_AT : full;
	for (i = 0, full = 0; i < len; i++) {
		unsigned char c = (unsigned char)s[i];
		int e = escaped(c, dots, slash_too);

		if (full + (e ? 3 : 1) > keep)
			break;
		if (put(out, size, n, c, e))
			return -1;
		full += e ? 3 : 1;
	}
	if (i < len) {
		if (*n + 18 >= size)
			return -1;
		snprintf(out + *n, 18, "~%016llx", (unsigned long long)h);
		*n += 17;
	}
	return 0;
}

int capture_relpath(const char *path, char *out, size_t len)
{
	const char *p = path, *end;
	size_t n = 0;

	if (!len)
		return -1;
	out[0] = 0;
	/* memfd_create() takes any name, "/" and ".." too: keep it one component. */
	if (!strncmp(path, MEMFD_PREFIX, strlen(MEMFD_PREFIX)))
		return put_component(out, len, &n, path + 1, strlen(path + 1), 1);
	while (*p) {
		end = strchrnul(p, '/');
		if (end > p && !(end - p == 1 && p[0] == '.')) {
			if ((n && put(out, len, &n, '/', 0)) ||
			    put_component(out, len, &n, p, (size_t)(end - p), 0))
				return -1;
		}
		p = *end ? end + 1 : end;
	}
	if (!n)
		return put_component(out, len, &n, "%", 1, 0);	/* "/" or "": "%25" */
	return 0;
}

/*
 * DIR is where root writes copies of other users' files: no one but the
 * user running mmap3 may choose what is in it or where it is.
 */
static int check_mode(const char *name, const struct stat *st)
{
	msg_err("%s: mode %04o, expected writable by its owner alone: "
		"others could plant names in the capture directory; chmod go-w it or "
		"give another", name, (unsigned int)(st->st_mode & 07777));
	return -1;
}

static int check_dir(const struct capture *c, const char *name)
{
	struct stat st;
	uid_t euid = geteuid();

	if (fstat(c->dirfd, &st)) {
		msg_err("%s: %s", c->dir, strerror(errno));
		return -1;
	}
	if (c->owner_uid != (uid_t)-1 && st.st_uid == c->owner_uid)
		return st.st_mode & (S_IWGRP | S_IWOTH) ? check_mode(name, &st) : 0;
	if (st.st_uid != euid) {
		msg_err("%s: owned by uid %u, expected the user running mmap3 "
			"(uid %u): its owner could plant names in the capture directory; give "
			"a directory of your own", name, (unsigned int)st.st_uid,
			(unsigned int)euid);
		return -1;
	}
	if (st.st_mode & (S_IWGRP | S_IWOTH))
		return check_mode(name, &st);
	return 0;
}

int capture_sudo_user(uid_t *uid, gid_t *gid)
{
	const char *u = getenv("SUDO_UID"), *g = getenv("SUDO_GID");
	char *end;
	unsigned long n, m;

	if (geteuid() || !u || !g || !*u || !*g)
		return -1;
	n = strtoul(u, &end, 10);
	if (*end)
		return -1;
	m = strtoul(g, &end, 10);
	if (*end || !n || n > UINT32_MAX - 1 || m > UINT32_MAX - 1)
		return -1;
	*uid = (uid_t)n;
	*gid = (gid_t)m;
	return 0;
}

/*
 * Who may own what DIR is reached through: root, the user running mmap3,
 * or under sudo the user who ran it.
 */
static int trusted_owner(uid_t uid)
{
	uid_t su;
	gid_t sg;

	return uid == 0 || uid == geteuid() || (!capture_sudo_user(&su, &sg) && uid == su);
}

/*
 * Under sudo, give what was just made at @name in @dirfd (of @type:
 * S_IFDIR, S_IFLNK) to the invoking user, by descriptor: its directory
 * may be theirs, so they may have put something else at the name since,
 * and what is given must be what was made (ours, of that type).  0; 1
 * when the name was replaced meanwhile (counted as planted, said); -1
 * after saying why it could not be given.  @shown names it.
 */
static int give_made(struct capture *c, int dirfd, const char *name, mode_t type,
		     const char *shown)
{
	struct stat st;
	int fd, ret = 0;

	if (c->owner_uid == (uid_t)-1)
		return 0;
	fd = openat(dirfd, name, O_PATH | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &st)) {
		ret = -1;
	} else if ((st.st_mode & S_IFMT) != type || st.st_uid != geteuid()) {
		msg_err("%s: replaced while it was made; not given to uid %u", shown,
			(unsigned int)c->owner_uid);
		c->stats.planted++;
		ret = 1;
	} else if (fchownat(fd, "", c->owner_uid, c->owner_gid,
			    AT_EMPTY_PATH | AT_SYMLINK_NOFOLLOW)) {
		ret = -1;
	}
	if (ret < 0)
		msg_err("%s: cannot give it to uid %u: %s", shown, (unsigned int)c->owner_uid,
			strerror(errno));
	if (fd >= 0)
		close(fd);
	return ret;
}

/*
 * The directory that holds @path's last component, made as mkdir -p
 * would (mode 0755), one component at a time: a symbolic link on the way
 * is followed only if root or the user running mmap3 owns it (as
 * fs.protected_symlinks has it), and a directory on the way must be
 * theirs or sticky (/tmp): another owner could move what is beneath it
 * and have root create the capture directory where they like.  Sets
 * *@last to the last component of @path (which it cuts).  Returns an
 * O_PATH descriptor, or -1 after printing one line naming @dir.
 */
static int open_parent(struct capture *c, const char *dir, char *path, char **last)
{
	char *comp = path, *slash;
	struct stat st;
	int fd, nfd;

	fd = open(*path == '/' ? "/" : ".", O_PATH | O_DIRECTORY | O_CLOEXEC);
	while (fd >= 0) {
		while (*comp == '/')
			comp++;
		slash = strchr(comp, '/');
		if (!slash) {
			*last = comp;
			return fd;
		}
		*slash = 0;
		if (fstatat(fd, comp, &st, AT_SYMLINK_NOFOLLOW) && errno == ENOENT) {
			/* Made for the user mmap3 works for, as mkdir -p by them. */
			if (!mkdirat(fd, comp, 0755) && give_made(c, fd, comp, S_IFDIR, path)) {
				close(fd);
				return -1;
			}
			fstatat(fd, comp, &st, AT_SYMLINK_NOFOLLOW);
		}
		if (S_ISLNK(st.st_mode) && !trusted_owner(st.st_uid)) {
			msg_err("%s: %s is a symbolic link of uid %u: nothing is "
				"created through it (its owner would choose where)", dir, path,
				(unsigned int)st.st_uid);
			close(fd);
			return -1;
		}
		nfd = openat(fd, comp, O_PATH | O_DIRECTORY | O_CLOEXEC |
			     (S_ISLNK(st.st_mode) ? 0 : O_NOFOLLOW));
		close(fd);
		fd = nfd;
		if (fd >= 0 && !fstat(fd, &st) && !trusted_owner(st.st_uid) &&
		    !(st.st_mode & S_ISVTX)) {
			msg_err("%s: %s is a directory of uid %u: its owner could "
				"move what is beneath it; give a path of root's or yours", dir,
				path, (unsigned int)st.st_uid);
			close(fd);
			return -1;
		}
		*slash = '/';
		comp = slash + 1;
	}
	msg_err("cannot create %s: %s", dir, strerror(errno));
	return -1;
}

int capture_open(struct capture *c, const char *dir)
{
	char *copy = strdup(dir), *last;
	struct stat st;
	int parent, made;
	size_t n;

	memset(c, 0, sizeof(*c));
	capture_claims_init(&c->claims);
	c->dir = dir;
	c->dirfd = -1;
	if (capture_sudo_user(&c->owner_uid, &c->owner_gid)) {
		c->owner_uid = (uid_t)-1;
		c->owner_gid = (gid_t)-1;
	}
	beneath_set_owner(c->owner_uid, c->owner_gid);
	if (!copy || !*dir) {
		msg_err("'%s': %s", dir, copy ? "not a directory name" :
			"out of memory");
		free(copy);
		return -1;
	}
	/* "link/" would resolve the link: DIR itself is what is checked. */
	for (n = strlen(copy); n > 1 && copy[n - 1] == '/'; n--)
		copy[n - 1] = 0;
	parent = open_parent(c, dir, copy, &last);
	if (parent < 0) {
		free(copy);
		return -1;
	}
	made = !mkdirat(parent, last, 0700);
	if (!made && errno != EEXIST) {
		msg_err("cannot create %s: %s", dir, strerror(errno));
		goto fail;
	}
	c->dirfd = openat(parent, last, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (made && c->dirfd >= 0 && c->owner_uid != (uid_t)-1 &&
	    fchown(c->dirfd, c->owner_uid, c->owner_gid)) {
		msg_err("%s: cannot give it to uid %u: %s", dir,
			(unsigned int)c->owner_uid, strerror(errno));
		goto fail;
	}
	if (c->dirfd < 0) {
		if (!fstatat(parent, last, &st, AT_SYMLINK_NOFOLLOW) && S_ISLNK(st.st_mode))
			msg_err("%s: a symbolic link, expected the capture "
				"directory itself: whoever can change the link would choose where "
				"files are written", dir);
		else
			msg_err("%s: %s", dir, strerror(errno));
		goto fail;
	}
	close(parent);
	free(copy);
	if (check_dir(c, dir)) {
		capture_close(c);
		return -1;
	}
	c->limits = (struct capture_limits)CAPTURE_LIMITS_DEFAULT;
	return 0;
fail:
	close(parent);
	free(copy);
	return -1;
}

void capture_close(struct capture *c)
{
	if (c->dirfd >= 0)
		close(c->dirfd);
	c->dirfd = -1;
	capture_claims_free(&c->claims);
}

/* Where the stored file is read from: a capture handle or a file. */
struct source {
	int fd;			/* the device, or the file */
	uint32_t handle;	/* 0: read the file @fd with pread(), or @mem */
	const void *mem;	/* bytes in our memory (the vdso), @mem_len of them */
	size_t mem_len;
	const char *path;	/* for messages */
	uint64_t deadline;	/* CLOCK_MONOTONIC ns; 0: none */
	atomic_int *cancel;	/* the capture's: -ECANCELED once set */
};

static uint64_t now_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000000000 + (uint64_t)t.tv_nsec;
}

/* When reading a file that starts now must be done: --capture-max-seconds. */
static uint64_t deadline(const struct capture *c)
{
	return c->limits.max_seconds ? now_ns() + c->limits.max_seconds * 1000000000ULL : 0;
}

/*
 * Each read is bounded (the module's read_timeout_ms, or the local file
 * system); a file that answers a little at a time is bounded as a whole,
 * -ETIME once its time is up.
 */
static long source_read(const struct source *src, void *buf, size_t len, uint64_t off)
{
	long n;

	if (src->deadline && now_ns() > src->deadline)
		return -ETIME;
	if (src->cancel && atomic_load(src->cancel))
		return -ECANCELED;

	if (src->handle)
		return mmap3_device_capture_read(src->fd, src->handle, buf, len, off);
	if (src->mem) {
		if (off >= src->mem_len)
			return 0;
		n = (long)(len < src->mem_len - off ? len : src->mem_len - off);
		memcpy(buf, (const char *)src->mem + off, (size_t)n);
		return n;
	}
	n = pread(src->fd, buf, len, (off_t)off);
	return n < 0 ? -errno : n;
}

/*
 * Reading @src at @off failed with @err: that file is not captured,
 * counted by cause, said in one line.  Capturing goes on.
 */
static int unreadable(struct capture *c, const struct source *src, uint64_t off, int err)
{
	const char *why;

	/* Stopped (a signal after perf had exited): counted, said once by the command. */
	if (err == ECANCELED) {
		c->stats.stopped++;
		return 0;
	}
	if (err == EACCES || err == EPERM) {
		c->stats.unreadable++;
		why = "reading it is not allowed";
	} else if (err == ETIMEDOUT || err == EAGAIN) {
		c->stats.timed_out++;
		why = "its filesystem did not answer in time";
	} else if (err == ETIME) {
		c->stats.too_slow++;
		why = "not read within --capture-max-seconds";
	} else {
		c->stats.read_failed++;
		why = strerror(err);
	}
	msg_err("%s: reading at offset %llu: %s; not captured", src->path, (unsigned long long)off,
		why);
	return 0;
}

/*
 * Copy @src into the new file @o, at most @limit bytes; returns its size,
 * -1 (printed), -2 if it has more than @limit, or -3 if reading @src
 * failed (*@err, at *@at).
 */
static long long copy_out(struct capture *c, const struct source *src, struct outfile *o,
			  uint64_t limit, int *err, uint64_t *at)
{
	static char buf[MMAP3_CAPTURE_READ_MAX];
	uint64_t off = 0;
	long n;

	while ((n = source_read(src, buf, sizeof(buf), off)) > 0) {
		const char *p = buf;
		size_t left = (size_t)n;

		/* It grew since capture_limit() looked. */
		if ((uint64_t)n > limit - off)
			return -2;
		while (left) {
			ssize_t w = write(o->fd, p, left);

			if (w < 0 && errno == EINTR)
				continue;
			if (w <= 0) {
				msg_err("%s: cannot write at offset %llu: %s",
					o->path, (unsigned long long)(off + (uint64_t)(p - buf)),
					strerror(w < 0 ? errno : EIO));
				return -1;
			}
			p += w;
			left -= (size_t)w;
		}
		off += (uint64_t)n;
		c->spent += (uint64_t)n;
	}
	if (n < 0) {
		*err = (int)-n;
		*at = off;
		return -3;
	}
	return (long long)off;
}

/* How many bytes the next file may have: its own limit, or what is left. */
static uint64_t capture_limit(const struct capture *c, int *by_total)
{
	const struct capture_limits *l = &c->limits;
	uint64_t limit = l->max_file ? l->max_file : UINT64_MAX, left;

	*by_total = 0;
	if (l->max_total) {
		left = c->spent < l->max_total ? l->max_total - c->spent : 0;
		if (left < limit) {
			limit = left;
			*by_total = 1;
		}
	}
	return limit;
}

/* A file not captured for its size: counted, and said (max_total once). */
static int over_limit(struct capture *c, const char *path, int by_total)
{
	if (!by_total) {
		c->stats.too_big++;
		msg_err("%s: larger than --capture-max-file (%llu bytes); not "
			"captured", path, (unsigned long long)c->limits.max_file);
		return 0;
	}
	c->stats.over_total++;
	if (!c->total_said)
		msg_err("%s: --capture-max-total (%llu bytes) reached: %s and the "
			"files that would pass it are not captured", c->dir,
			(unsigned long long)c->limits.max_total, path);
	c->total_said = 1;
	return 0;
}

/* Components of @rel ("a/b/c": 3). */
static uint64_t depth(const char *rel)
{
	uint64_t n = 1;

	for (; *rel; rel++)
		n += *rel == '/';
	return n;
}

/*
 * The directories of @rel below DIR not there yet (an upper bound: what
 * is planted meanwhile fails the capture later, not the count).
 */
static uint64_t missing(const struct capture *c, const char *rel)
{
	char prefix[PATH_MAX];
	const char *p = rel;
	struct stat st;
	uint64_t n = depth(rel);

	for (;;) {
		p = strchrnul(p, '/');
		snprintf(prefix, sizeof(prefix), "%.*s", (int)(p - rel), rel);
		if (fstatat(c->dirfd, prefix, &st, AT_SYMLINK_NOFOLLOW))
			return n;
		n--;
		if (!*p++)
			return n;
	}
}

/*
 * A file not captured for the files and directories it would make:
 * counted, and the limit said once.  One already there costs none.
 */
static int over_files(struct capture *c, const char *path, const char *xx, const char *rest)
{
	char link[16 + 2 * MMAP3_BUILD_ID_SIZE_MAX];
	struct stat st;

	/* Only counted differently if planted: nothing is made either way. */
	snprintf(link, sizeof(link), "%s/%s", xx, rest);
	if (!fstatat(c->dirfd, link, &st, AT_SYMLINK_NOFOLLOW)) {
		c->stats.cached++;
		return 0;
	}
	c->stats.over_files++;
	if (!c->files_said)
		msg_err("%s: --capture-max-files (%llu files, links and directories) "
			"reached: %s and the files that would pass it are not captured", c->dir,
			(unsigned long long)c->limits.max_files, path);
	c->files_said = 1;
	return 0;
}

/*
 * The build-id from the mapped file itself, before a byte is copied: the
 * module's handle tells no size, so the parser is given the limit, past
 * the file's end (a file that has the id never makes it read there), and
 * a budget of reads, as the module has.
 */
#define PRECHECK_READS	64
#define PRECHECK_BYTES	(4U << 20)

struct precheck {
	const struct source *src;
	unsigned int reads;
	uint64_t bytes;
};

static long precheck_read(void *ctx, void *buf, size_t len, __u64 off)
{
	struct precheck *p = ctx;

	if (++p->reads > PRECHECK_READS || len > PRECHECK_BYTES - p->bytes)
		return ELF_BUILDID_READ_LIMIT;
	p->bytes += len;
	return source_read(p->src, buf, len, off);
}

/* Is the file @fd's build-id @want? */
static int has_build_id(int fd, uint64_t size, const struct mmap3_build_id *want,
			struct elf_buildid *bid)
{
	elf_buildid_parse_buf(elf_buildid_fd_read, &fd, size, bid, win, sizeof(win));
	return elf_buildid_is(bid, want);
}

/*
 * An "elf" that was there already: kept if it is this build's, else
 * something planted there, counted.
 */
static int check_existing(struct capture *c, int hexfd, const char *base, const char *elf,
			  const struct mmap3_build_id *want)
{
	struct elf_buildid bid;
	struct stat st;
	int fd = openat(hexfd, base, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC), ok;

	if (fd < 0 || fstat(fd, &st) || !S_ISREG(st.st_mode)) {
		if (fd >= 0)
			close(fd);
		msg_err("%s exists and is not a regular file; not captured", elf);
		c->stats.planted++;
		return 0;
	}
	ok = has_build_id(fd, (uint64_t)st.st_size, want, &bid);
	close(fd);
	if (!ok) {
		msg_err("%s exists with another build-id; not replaced", elf);
		c->stats.planted++;
	}
	return ok;
}

/*
 * A directory below DIR could not be made: a name planted there (a
 * symbolic link, a file) costs only this capture; anything else (a full
 * disk) stops capturing.
 */
static int mkdirs_failed(struct capture *c, const char *rel, const char *path)
{
	int err = errno;

	if (err == ELOOP || err == ENOTDIR || err == EXDEV) {
		msg_err("%s/%s: a symbolic link or no directory on the way (%s): "
			"nothing is created through it; %s not captured", c->dir, rel,
			strerror(err), path);
		c->stats.planted++;
		return 0;
	}
	msg_err("%s/%s: %s", c->dir, rel, strerror(err));
	return -1;
}

/* The mapped build-id is no longer @bid's: counted, said. */
static int changed(struct capture *c, const char *path, const struct elf_buildid *bid)
{
	char status[32];

	msg_err(c->fetched ? "%s: the file a server gave for it is not of its build-id (%s); "
		"not kept" : "%s changed after it was mapped (%s); not captured", path,
		bid->status == MMAP3_BUILDID_FOUND ? "another build-id" :
		mmap3_status_str(bid->status, status, sizeof(status)));
	c->stats.changed++;
	return 0;
}

/*
 * A copy already there for @want: kept (counted), unless this session
 * stored it from a file not root's alone and @root_owned is the file of
 * root's that replaces it (returns the claim).
 */
static struct capture_claim *existing_copy(struct capture *c, const struct mmap3_build_id *want,
					   int root_owned, const char *path)
{
	struct capture_claim *old = capture_claims_find(&c->claims, want);

	if (old && !old->root_owned && root_owned > 0)
		return old;
	if (old) {
		c->stats.claimed++;
	} else {
		c->stats.cached++;
		/* Kept as it was: later claims of the id do not replace it. */
		if (capture_claims_set(&c->claims, want, 1, NULL, path))
			msg_err("out of memory");
	}
	return NULL;
}

/*
 * Point the .build-id link at the new copy, atomically, and drop the
 * copy it named, stored by this session from a file not root's alone.
 */
static int repoint(struct capture *c, int xxfd, const char *xx, const char *name,
		   const char *target, const struct capture_claim *old, const char *base,
		   const char *path)
{
	char tmp[2 * MMAP3_BUILD_ID_SIZE_MAX + 32], gone[PATH_MAX + 256];
	int fd, given;

	snprintf(tmp, sizeof(tmp), ".%s.mmap3-%d", name, (int)getpid());
	unlinkat(xxfd, tmp, 0);
	if (symlinkat(target, xxfd, tmp)) {
		msg_err("%s/%s/%s: %s", c->dir, xx, tmp, strerror(errno));
		return -1;
	}
	given = give_made(c, xxfd, tmp, S_IFLNK, tmp);
	if (given) {
		unlinkat(xxfd, tmp, 0);
		return given < 0 ? -1 : 0;
	}
	if (renameat(xxfd, tmp, xxfd, name)) {
		msg_err("%s/%s/%s: cannot replace the link: %s", c->dir, xx, name,
			strerror(errno));
		unlinkat(xxfd, tmp, 0);
		return -1;
	}
	snprintf(gone, sizeof(gone), "%s/%s/%s", c->dir, old->dirs, base);
	fd = beneath_mkdirs(c->dirfd, old->dirs, c->mode, &c->made);
	if (fd < 0 || unlinkat(fd, base, 0))
		msg_warn("%s: cannot remove it: %s", gone, strerror(errno));
	if (fd >= 0)
		close(fd);
	msg_warn("%s: kept this root-owned file's copy of its build-id over the one stored "
		 "from %s, which root did not own alone (%s removed)", path,
		 old->path ? old->path : "another file", gone);
	c->stats.replaced++;
	return 0;
}

/*
 * Store @src, whose build-id must be @want, for @path, as @base ("elf",
 * or "vdso" as perf names the vdso's); @size is its size if known, else
 * 0; @root_owned 1 if only root could have written the file, 0 if not,
 * -1 unknown.  Neither a file over the limits nor one without the id
 * costs a copy.
 */
static int store(struct capture *c, const struct source *src, const char *path,
		 const struct mmap3_build_id *want, uint64_t size_known, const char *base,
		 int root_owned)
{
	struct capture_claim *old = NULL;
	char hex[2 * MMAP3_BUILD_ID_SIZE_MAX + 1], rel[PATH_MAX], dirs[PATH_MAX];
	char target[PATH_MAX], elf[PATH_MAX + 256], xx[16], link[PATH_MAX + 256];
	struct precheck pre = { .src = src };
	struct elf_buildid bid;
	struct outfile o;
	struct stat st;
	int i, hexfd = -1, xxfd = -1, ret = -1, linked, given, by_total, err = 0, new_link = 0;
	uint64_t limit, at = 0;
	long long size;
	char byte;
	long n;

	if (want->status != MMAP3_BUILDID_FOUND || !want->size)
		return 0;
	/* perf's cache names a file .build-id/XX/REST: one byte has no REST. */
	if (want->size < 2) {
		msg_err("%s: a build-id of %u byte, too short for perf's build-id cache; not captured",
			path, want->size);
		c->stats.short_id++;
		return 0;
	}
	for (i = 0; i < want->size; i++)
		sprintf(hex + 2 * i, "%02x", want->data[i]);
	snprintf(xx, sizeof(xx), ".build-id/%.2s", hex);
	if (capture_relpath(path, rel, sizeof(rel)) ||
	    snprintf(dirs, sizeof(dirs), "%s/%s", rel, hex) >= (int)sizeof(dirs) ||
	    snprintf(target, sizeof(target), "../../%s/%s", rel, hex) >= (int)sizeof(target)) {
		/* Escaped, a path can be thrice as long: the mapping process chose it. */
		msg_err("%s: path too long for the capture directory; not "
			"captured", path);
		c->stats.long_path++;
		return 0;
	}
	snprintf(elf, sizeof(elf), "%s/%s/%s", c->dir, dirs, base);
	/* Each component a directory: a path a thousand deep costs a thousand. */
	if (depth(rel) > CAPTURE_MAX_DEPTH) {
		msg_err("%s: a path of %llu components, more than %d; not captured", path,
			(unsigned long long)depth(rel), CAPTURE_MAX_DEPTH);
		c->stats.long_path++;
		return 0;
	}
	/* What it would make: directories not there yet, the file and its link. */
	if (c->limits.max_files &&
	    c->made + missing(c, xx) + missing(c, dirs) + 2 > c->limits.max_files)
		return over_files(c, path, xx, hex + 2);

	xxfd = beneath_mkdirs(c->dirfd, xx, c->mode, &c->made);
	if (xxfd < 0)
		return mkdirs_failed(c, xx, path);
	if (!fstatat(xxfd, hex + 2, &st, AT_SYMLINK_NOFOLLOW)) {
		old = existing_copy(c, want, root_owned, path);
		if (!old) {
			ret = 0;
			goto out;
		}
	}
	/* Larger than it may be?  One byte past the limit tells, whatever the size. */
	limit = capture_limit(c, &by_total);
	n = limit == UINT64_MAX ? 0 : size_known ? size_known > limit :
	    source_read(src, &byte, 1, limit);
	if (n < 0) {
		ret = unreadable(c, src, limit, (int)-n);
		goto out;
	}
	if (n > 0) {
		ret = over_limit(c, path, by_total);
		goto out;
	}
	/* The mapped build's, before anything is copied. */
	elf_buildid_parse_buf(precheck_read, &pre, size_known ? size_known : limit, &bid, win,
			      sizeof(win));
	if (bid.status == MMAP3_BUILDID_IO_ERROR) {
		ret = unreadable(c, src, bid.offset, bid.error);
		goto out;
	}
	/*
	 * Reads cut short by the file's end (its size unknown) or over the
	 * budget say nothing for sure: the copy is checked once stored.
	 */
	if (bid.status != MMAP3_BUILDID_TRUNCATED && bid.status != MMAP3_BUILDID_LIMIT &&
	    !(want->kind == MMAP3_BUILDID_CONTENT && bid.status == MMAP3_BUILDID_NO_NOTE) &&
	    !elf_buildid_is(&bid, want)) {
		ret = changed(c, path, &bid);
		goto out;
	}
	hexfd = beneath_mkdirs(c->dirfd, dirs, c->mode, &c->made);
	if (hexfd < 0) {
		ret = mkdirs_failed(c, dirs, path);
		goto out;
	}
	if (outfile_open_at(&o, hexfd, base, elf))
		goto out;
	/* 0600 and the invoking user's: their perf report reads it, no one else. */
	if (c->owner_uid != (uid_t)-1 && fchown(o.fd, c->owner_uid, c->owner_gid)) {
		msg_err("%s: cannot give it to uid %u: %s", elf,
			(unsigned int)c->owner_uid, strerror(errno));
		outfile_abort(&o);
		goto out;
	}
	size = copy_out(c, src, &o, limit, &err, &at);
	if (size < 0) {
		outfile_abort(&o);
		if (size == -2)
			ret = over_limit(c, path, by_total);
		else if (size == -3)
			ret = unreadable(c, src, at, err);
		goto out;
	}
	/* An id of its bytes: of the bytes copied, before the note is added. */
	if (want->kind == MMAP3_BUILDID_CONTENT) {
		elf_buildid_content(elf_buildid_fd_read, &o.fd, (uint64_t)size, &bid, win,
				    sizeof(win));
		if (!elf_buildid_is(&bid, want)) {
			outfile_abort(&o);
			ret = changed(c, path, &bid);
			goto out;
		}
	}
	/* Derived: perf reads the copy only with the id in its own GNU note. */
	if (want->kind != MMAP3_BUILDID_GNU) {
		const char *why;

		size = elf_note_add(o.fd, (uint64_t)size, want->data, want->size, &why);
		if (size < 0) {
			outfile_abort(&o);
			if (why) {
				msg_err("%s: %s: perf would not read a copy without its build-id; "
					"not captured", path, why);
				c->stats.no_note++;
				ret = 0;
			} else {
				msg_err("%s: cannot write: %s", elf, strerror(errno));
			}
			goto out;
		}
	}
	/* The stored bytes must be the mapped build's. */
	if (!has_build_id(o.fd, (uint64_t)size, want, &bid)) {
		outfile_abort(&o);
		ret = changed(c, path, &bid);
		goto out;
	}
	/*
	 * The copy it replaces, at the same name: gone only now that the new
	 * one is whole and checked, so a failed or interrupted copy leaves it.
	 */
	if (old && old->dirs && !strcmp(old->dirs, dirs) && unlinkat(hexfd, base, 0) &&
	    errno != ENOENT) {
		msg_err("%s: cannot replace it: %s", elf, strerror(errno));
		outfile_abort(&o);
		goto out;
	}
	linked = outfile_commit(&o);
	if (linked < 0)
		goto out;
	if (linked != OUTFILE_EXISTED)
		c->made++;
	if (linked == OUTFILE_EXISTED && !check_existing(c, hexfd, base, elf, want)) {
		ret = 0;
		goto out;
	}
	if (old && strcmp(old->dirs ? old->dirs : "", dirs)) {
		if (repoint(c, xxfd, xx, hex + 2, target, old, base, path))
			goto out;
	} else if (old) {
		msg_warn("%s: kept this root-owned file's copy of its build-id over the one "
			 "stored from %s, which root did not own alone", path,
			 old->path ? old->path : "another file");
		c->stats.replaced++;
	/* symlinkat() never follows: a name planted there stays as it is. */
	} else if (symlinkat(target, xxfd, hex + 2)) {
		if (errno != EEXIST) {
			msg_err("%s/%s/%s: %s", c->dir, xx, hex + 2,
				strerror(errno));
			goto out;
		}
	} else {
		c->made++;
		new_link = 1;
		snprintf(link, sizeof(link), "%s/%s/%s", c->dir, xx, hex + 2);
		given = give_made(c, xxfd, hex + 2, S_IFLNK, link);
		if (given < 0)
			goto out;
		if (given > 0) {
			ret = 0;
			goto out;
		}
	}
	if (linked == OUTFILE_EXISTED) {
		c->stats.cached++;
	} else {
		c->stats.stored++;
		c->stats.bytes += (uint64_t)size;
		if (!root_owned)
			c->stats.not_root++;
	}
	if (capture_claims_set(&c->claims, want, root_owned != 0, dirs, path))
		msg_err("out of memory");
	/* A copy left by a crash gets its link now: its keeper counts it too. */
	if ((linked != OUTFILE_EXISTED || new_link) && c->stored)
		c->stored(c->stored_arg, c, want, dirs, base, (uint64_t)size, root_owned != 0);
	ret = 0;
out:
	if (hexfd >= 0)
		close(hexfd);
	if (xxfd >= 0)
		close(xxfd);
	return ret;
}

int capture_store(struct capture *c, int fd, const struct mmap3_record_mmap *m)
{
	const struct source src = { .fd = fd, .handle = m->capture, .path = m->path,
				    .deadline = deadline(c), .cancel = &c->cancel };
	int root_owned = !c->by_file ? -1 : !!(m->flags & MMAP3_MMAP_ROOT_OWNED);
	int ret = store(c, &src, m->path, &m->build_id, 0, "elf", root_owned);

	mmap3_device_capture_release(fd, m->capture);
	return ret;
}

int capture_store_file_as(struct capture *c, const char *path, const char *name,
			  const struct mmap3_build_id *bid)
{
	struct source src = { .path = path, .deadline = deadline(c),
				    .cancel = &c->cancel };
	struct stat st;
	int ret;

	src.fd = open_checked(path, S_IFREG, &st);
	if (src.fd < 0) {
		msg_err("cannot capture %s: %s", path,
			src.fd == -1 ? strerror(errno) : file_type_name(&st));
		return -1;
	}
	ret = store(c, &src, name, bid, (uint64_t)st.st_size, "elf", -1);
	close(src.fd);
	return ret;
}

int capture_store_file(struct capture *c, const char *path, const struct mmap3_build_id *bid)
{
	return capture_store_file_as(c, path, path, bid);
}

/* Our own [vdso]: where /proc/self/maps has it, and its ELF header there. */
static const void *own_vdso(size_t *len)
{
	unsigned long base = getauxval(AT_SYSINFO_EHDR), start, end;
	const void *ret = NULL;
	char line[512];
	FILE *f;

	if (!base)
		return NULL;
	f = fopen("/proc/self/maps", "re");
	if (!f)
		return NULL;
	while (fgets(line, sizeof(line), f))
		if (strstr(line, "[vdso]") && sscanf(line, "%lx-%lx", &start, &end) == 2 &&
		    start == base && end > start) {
			*len = end - start;
			ret = (const void *)base;
			break;
		}
	fclose(f);
	return ret;
}

int capture_store_vdso(struct capture *c)
{
	struct source src = { .fd = -1, .path = "[vdso]" };
	struct mmap3_build_id want = { 0 };
	struct precheck pre = { .src = &src };
	struct capture_stats stats;
	struct elf_buildid bid;
	uint64_t spent;
	char window[4096];
	int ret;

	src.mem = own_vdso(&src.mem_len);
	if (!src.mem)
		return 0;	/* none here: nothing perf could look for either */
	elf_buildid_parse_buf(precheck_read, &pre, src.mem_len, &bid, window, sizeof(window));
	if (bid.status != MMAP3_BUILDID_FOUND || bid.size > sizeof(want.data))
		return 0;
	want.status = MMAP3_BUILDID_FOUND;
	want.size = bid.size;
	memcpy(want.data, bid.id, bid.size);
	/* Two pages of ours, not a file mapped: apart from the counts and limits. */
	stats = c->stats;
	spent = c->spent;
	ret = store(c, &src, "[vdso]", &want, src.mem_len, "vdso", -1);
	c->stats = stats;
	c->spent = spent;
	return ret;
}
