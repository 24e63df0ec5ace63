// SPDX-License-Identifier: GPL-2.0
/*
 * userspace/store.c - a capture directory within bounds, the least
 * recently mapped copies removed first.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "beneath.h"
#include "msg.h"
#include "store.h"

/* A link's time is written when the one in memory is this much newer. */
#define TOUCH_SECONDS	3600

struct store_entry {
	uint8_t size;
	uint8_t id[MMAP3_BUILD_ID_SIZE_MAX];
	char base[8];			/* "elf", or "vdso" */
	char *dirs;			/* PATH/BUILD-ID below the directory */
	uint64_t bytes;
	int root_owned;			/* the file copied was root's alone (capture_claims.h) */
	time_t mapped;			/* last mapped */
	uint64_t order;			/* ... in this run: among mappings of one second */
	time_t on_disk;			/* ... as its link's time says */
	size_t at;			/* its index in ->all */
};

static int same_entry(uintptr_t value, const void *key)
{
	const struct store_entry *e = (const void *)value;
	const struct mmap3_build_id *bid = key;

	return e->size == bid->size && !memcmp(e->id, bid->data, bid->size);
}

static uint64_t id_hash(const struct mmap3_build_id *bid)
{
	return hashmap_hash(bid->data, bid->size);
}

static struct store_entry *find(struct store *st, const struct mmap3_build_id *bid)
{
	return (void *)hashmap_find(&st->map, id_hash(bid), same_entry, bid);
}

/* The link's name below the directory: .build-id/XX/REST. */
static void link_name(const uint8_t *id, unsigned int size, char *out, size_t len)
{
	size_t at = (size_t)snprintf(out, len, ".build-id/%02x/", id[0]);
	unsigned int i;

	for (i = 1; i < size && at + 3 <= len; i++)
		at += (size_t)snprintf(out + at, len - at, "%02x", id[i]);
}

static int add(struct store *st, const struct mmap3_build_id *bid, const char *dirs,
	       const char *base, uint64_t bytes, int root_owned, time_t mapped)
{
	struct store_entry *e = calloc(1, sizeof(*e));

	if (!e || !(e->dirs = strdup(dirs)))
		goto fail;
	if (st->nr == st->cap) {
		size_t cap = st->cap ? 2 * st->cap : 1024;
		struct store_entry **n = realloc(st->all, cap * sizeof(*n));

		if (!n)
			goto fail;
		st->all = n;
		st->cap = cap;
	}
	e->size = bid->size;
	memcpy(e->id, bid->data, bid->size);
	snprintf(e->base, sizeof(e->base), "%s", base);
	e->bytes = bytes;
	e->root_owned = root_owned;
	e->mapped = e->on_disk = mapped;
	e->order = ++st->order;
	if (hashmap_add(&st->map, id_hash(bid), (uintptr_t)e))
		goto fail;
	e->at = st->nr;
	st->all[st->nr++] = e;
	st->stats.files++;
	st->stats.bytes += bytes;
	return 0;
fail:
	if (e)
		free(e->dirs);
	free(e);
	msg_err("out of memory");
	return -1;
}

static void drop(struct store *st, struct store_entry *e)
{
	struct mmap3_build_id bid = { .size = e->size };

	memcpy(bid.data, e->id, e->size);
	hashmap_remove(&st->map, id_hash(&bid), (uintptr_t)e);
	st->all[e->at] = st->all[--st->nr];
	st->all[e->at]->at = e->at;
	st->stats.files--;
	st->stats.bytes -= e->bytes;
	free(e->dirs);
	free(e);
}

/* "../../PATH/BUILD-ID", as capture.c makes links, into PATH/BUILD-ID; else -1. */
static int link_dirs(const char *target, char *dirs, size_t len)
{
	const char *p;

	if (strncmp(target, "../../", 6) || strlen(target + 6) >= len)
		return -1;
	/* Plain components only: nothing capture.c would not have made. */
	for (p = target + 6; *p; ) {
		size_t n = strcspn(p, "/");

		if (!n || (n == 1 && p[0] == '.') || (n == 2 && p[0] == '.' && p[1] == '.'))
			return -1;
		p += n;
		if (*p)
			p++;
	}
	strcpy(dirs, target + 6);
	return 0;
}

static int hexval(char c)
{
	return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

/* One .build-id/XX/REST link: its copy, its size, when last mapped. */
static void scan_link(struct store *st, int xxfd, const char *xx, const char *rest)
{
	struct mmap3_build_id bid = { .status = MMAP3_BUILDID_FOUND };
	char target[PATH_MAX], dirs[PATH_MAX], copy[PATH_MAX + 8];
	static const char *const bases[] = { "elf", "vdso" };
	struct stat lst, fst;
	size_t i, n = strlen(rest);
	ssize_t len;

	if (n % 2 || n / 2 + 1 > MMAP3_BUILD_ID_SIZE_MAX)
		return;
	bid.size = (uint8_t)(n / 2 + 1);
	bid.data[0] = (uint8_t)(hexval(xx[0]) << 4 | hexval(xx[1]));
	for (i = 0; i < n / 2; i++) {
		int hi = hexval(rest[2 * i]), lo = hexval(rest[2 * i + 1]);

		if (hi < 0 || lo < 0)
			return;
		bid.data[i + 1] = (uint8_t)(hi << 4 | lo);
	}
	len = readlinkat(xxfd, rest, target, sizeof(target) - 1);
	if (len <= 0 || fstatat(xxfd, rest, &lst, AT_SYMLINK_NOFOLLOW))
		return;
	target[len] = 0;
	if (link_dirs(target, dirs, sizeof(dirs)) || find(st, &bid))
		return;
	for (i = 0; i < 2; i++) {
		snprintf(copy, sizeof(copy), "%s/%s", dirs, bases[i]);
		if (!fstatat(st->dirfd, copy, &fst, AT_SYMLINK_NOFOLLOW) && S_ISREG(fst.st_mode)) {
			/* A copy of a file root did not own alone is kept read-only (below). */
			if (!add(st, &bid, dirs, bases[i], (uint64_t)fst.st_size,
				 !!(fst.st_mode & S_IWUSR), lst.st_mtime))
				st->stats.found++;
			return;
		}
	}
}

static int scan(struct store *st)
{
	int top = openat(st->dirfd, ".build-id", O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	DIR *d;
	struct dirent *de;

	if (top < 0)
		return errno == ENOENT ? 0 : -1;
	d = fdopendir(top);
	if (!d) {
		close(top);
		return -1;
	}
	while ((de = readdir(d))) {
		int xxfd;
		DIR *x;
		struct dirent *le;

		if (strlen(de->d_name) != 2 || hexval(de->d_name[0]) < 0 ||
		    hexval(de->d_name[1]) < 0)
			continue;
		xxfd = openat(top, de->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (xxfd < 0)
			continue;
		x = fdopendir(xxfd);
		if (!x) {
			close(xxfd);
			continue;
		}
		while ((le = readdir(x)))
			if (le->d_name[0] != '.')
				scan_link(st, dirfd(x), de->d_name, le->d_name);
		closedir(x);
	}
	closedir(d);
	return 0;
}

int store_open(struct store *st, struct capture *cap, uint64_t max_bytes, uint64_t max_files)
{
	memset(st, 0, sizeof(*st));
	st->dir = cap->dir;
	st->dirfd = fcntl(cap->dirfd, F_DUPFD_CLOEXEC, 0);
	st->mode = cap->mode;
	st->max_bytes = max_bytes;
	st->max_files = max_files;
	pthread_mutex_init(&st->lock, NULL);
	if (st->dirfd < 0 || scan(st)) {
		msg_err("%s/.build-id: cannot read it: %s", st->dir, strerror(errno));
		return -1;
	}
	return 0;
}

/* Write @e's last mapping time to its link (the lock dropped: a removal may race: ENOENT). */
static void touch(struct store *st, const uint8_t *id, unsigned int size, time_t when)
{
	struct timespec t[2] = { { .tv_nsec = UTIME_OMIT }, { .tv_sec = when } };
	char name[16 + 2 * MMAP3_BUILD_ID_SIZE_MAX];

	link_name(id, size, name, sizeof(name));
	utimensat(st->dirfd, name, t, AT_SYMLINK_NOFOLLOW);
}

void store_mapped(struct store *st, const struct mmap3_build_id *bid, time_t now)
{
	uint8_t id[MMAP3_BUILD_ID_SIZE_MAX];
	struct store_entry *e;
	int persist = 0;

	if (bid->status != MMAP3_BUILDID_FOUND || bid->size < 2)
		return;
	pthread_mutex_lock(&st->lock);
	e = find(st, bid);
	if (e && now >= e->mapped) {
		e->order = ++st->order;
		e->mapped = now;
		persist = now - e->on_disk >= TOUCH_SECONDS;
		if (persist)
			e->on_disk = now;
	}
	pthread_mutex_unlock(&st->lock);
	if (persist) {
		memcpy(id, bid->data, bid->size);
		touch(st, id, bid->size, now);
	}
}

/*
 * Remove @e's copy, its link (if it still names it) and the directories
 * left empty above it: 0, or -1 if the copy stays (said).
 */
static int remove_copy(struct store *st, const struct store_entry *e)
{
	char name[16 + 2 * MMAP3_BUILD_ID_SIZE_MAX], target[PATH_MAX], dirs[PATH_MAX];
	char parent[PATH_MAX];
	int fd, ok;
	ssize_t len;

	link_name(e->id, e->size, name, sizeof(name));
	len = readlinkat(st->dirfd, name, target, sizeof(target) - 1);
	if (len > 0) {
		target[len] = 0;
		if (!link_dirs(target, dirs, sizeof(dirs)) && !strcmp(dirs, e->dirs) &&
		    !unlinkat(st->dirfd, name, 0)) {
			/* .build-id/XX too, once it is empty. */
			fd = openat(st->dirfd, ".build-id", O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
				    O_CLOEXEC);
			name[12] = 0;
			if (fd >= 0) {
				unlinkat(fd, name + 10, AT_REMOVEDIR);
				close(fd);
			}
		}
	}
	fd = beneath_mkdirs(st->dirfd, e->dirs, st->mode, NULL);
	ok = fd >= 0 && (!unlinkat(fd, e->base, 0) || errno == ENOENT);
	if (!ok)
		msg_warn("%s/%s/%s: cannot remove it: %s", st->dir, e->dirs, e->base,
			 strerror(errno));
	if (fd >= 0)
		close(fd);
	/* Each directory left empty, deepest first; the first that is not ends it. */
	snprintf(parent, sizeof(parent), "%s", e->dirs);
	for (;;) {
		char *slash = strrchr(parent, '/');
		const char *last = slash ? slash + 1 : parent;
		int pfd;

		if (slash)
			*slash = 0;
		pfd = slash ? beneath_mkdirs(st->dirfd, parent, st->mode, NULL) : dup(st->dirfd);
		if (pfd < 0)
			break;
		len = unlinkat(pfd, last, AT_REMOVEDIR);
		close(pfd);
		if (len || !slash)
			break;
	}
	return ok ? 0 : -1;
}

static int older(const void *a, const void *b)
{
	const struct store_entry *x = *(struct store_entry *const *)a;
	const struct store_entry *y = *(struct store_entry *const *)b;

	if (x->mapped != y->mapped)
		return x->mapped < y->mapped ? -1 : 1;
	return x->order < y->order ? -1 : x->order > y->order;
}

static int over(const struct store *st, uint64_t bytes, uint64_t files)
{
	return (st->max_bytes && bytes > st->max_bytes) || (st->max_files && files > st->max_files);
}

static void fmt_time(time_t t, char *buf, size_t len)
{
	struct tm tm;

	if (!gmtime_r(&t, &tm) || !strftime(buf, len, "%Y-%m-%d %H:%M:%SZ", &tm))
		snprintf(buf, len, "%lld", (long long)t);
}

/*
 * Down to nine tenths of each bound, least recently mapped first; never
 * @keep, the copy just stored.  Called by the capture worker, which alone
 * adds and removes entries: those chosen stay valid with the lock dropped
 * (the reader's thread only updates their times).
 */
static void evict(struct store *st, struct capture *cap, const struct store_entry *keep)
{
	uint64_t low_bytes = st->max_bytes - st->max_bytes / 10;
	uint64_t low_files = st->max_files - st->max_files / 10;
	uint64_t n = 0, bytes = 0, left_bytes, left_files;
	char first[32] = "", last[32] = "";
	struct store_entry **victims;
	size_t i, nv = 0;

	pthread_mutex_lock(&st->lock);
	victims = malloc((st->nr ? st->nr : 1) * sizeof(*victims));
	if (!victims) {
		pthread_mutex_unlock(&st->lock);
		msg_err("out of memory");
		return;
	}
	qsort(st->all, st->nr, sizeof(*st->all), older);
	for (i = 0; i < st->nr; i++)
		st->all[i]->at = i;
	left_bytes = st->stats.bytes;
	left_files = st->stats.files;
	for (i = 0; i < st->nr && ((st->max_bytes && left_bytes > low_bytes) ||
				   (st->max_files && left_files > low_files)); i++) {
		if (st->all[i] == keep)
			continue;
		victims[nv++] = st->all[i];
		left_bytes -= st->all[i]->bytes;
		left_files--;
	}
	if (nv) {
		fmt_time(victims[0]->mapped, first, sizeof(first));
		fmt_time(victims[nv - 1]->mapped, last, sizeof(last));
	}
	st->stats.passes++;
	pthread_mutex_unlock(&st->lock);
	for (i = 0; i < nv; i++) {
		struct store_entry *e = victims[i];
		struct mmap3_build_id bid = { .status = MMAP3_BUILDID_FOUND, .size = e->size };
		int failed = remove_copy(st, e);

		memcpy(bid.data, e->id, e->size);
		if (!failed)
			capture_claims_forget(&cap->claims, &bid);
		pthread_mutex_lock(&st->lock);
		if (failed) {
			st->stats.evict_failed++;
		} else {
			n++;
			bytes += e->bytes;
			st->stats.evicted++;
			st->stats.evicted_bytes += e->bytes;
			st->evicted_in_session++;
			drop(st, e);
		}
		pthread_mutex_unlock(&st->lock);
	}
	free(victims);
	if (n)
		msg_info("%s: over its bound (%llu MB, %llu files): removed the %llu least "
			 "recently mapped copies (%llu MB), last mapped from %s to %s",
			 st->dir, (unsigned long long)(st->max_bytes >> 20),
			 (unsigned long long)st->max_files, (unsigned long long)n,
			 (unsigned long long)(bytes >> 20), first, last);
}

/* A copy of a file root did not own alone: read-only, which says so after a restart. */
static void mark_not_root(struct store *st, const char *dirs, const char *base)
{
	int fd = beneath_mkdirs(st->dirfd, dirs, st->mode, NULL);

	if (fd < 0 || fchmodat(fd, base, 0400, 0))
		msg_warn("%s/%s/%s: cannot mark it a user's copy: %s", st->dir, dirs, base,
			 strerror(errno));
	if (fd >= 0)
		close(fd);
}

void store_stored(struct store *st, struct capture *cap, const struct mmap3_build_id *bid,
		  const char *dirs, const char *base, uint64_t bytes, int root_owned)
{
	struct store_entry *e;
	time_t now = time(NULL);
	int full;

	if (!root_owned)
		mark_not_root(st, dirs, base);
	pthread_mutex_lock(&st->lock);
	e = find(st, bid);
	/* A copy replaced (capture_claims.h): the new one's place and size. */
	if (e)
		drop(st, e);
	if (!add(st, bid, dirs, base, bytes, root_owned, now))
		st->stats.stored++;
	e = find(st, bid);
	full = over(st, st->stats.bytes, st->stats.files);
	pthread_mutex_unlock(&st->lock);
	if (full)
		evict(st, cap, e);
}

int store_claims(struct store *st, struct capture *cap)
{
	size_t i;
	int ret = 0;

	pthread_mutex_lock(&st->lock);
	for (i = 0; i < st->nr && !ret; i++) {
		const struct store_entry *e = st->all[i];
		struct mmap3_build_id bid = { .status = MMAP3_BUILDID_FOUND, .size = e->size };

		memcpy(bid.data, e->id, e->size);
		ret = capture_claims_set(&cap->claims, &bid, e->root_owned, e->dirs, NULL);
	}
	pthread_mutex_unlock(&st->lock);
	if (ret)
		msg_err("out of memory");
	return ret;
}

int store_wants_new_session(struct store *st)
{
	int want;

	pthread_mutex_lock(&st->lock);
	want = st->evicted_in_session > 0;
	pthread_mutex_unlock(&st->lock);
	return want;
}

void store_new_session(struct store *st)
{
	pthread_mutex_lock(&st->lock);
	st->evicted_in_session = 0;
	pthread_mutex_unlock(&st->lock);
}

struct store_stats store_get_stats(struct store *st)
{
	struct store_stats s;

	pthread_mutex_lock(&st->lock);
	s = st->stats;
	pthread_mutex_unlock(&st->lock);
	return s;
}

void store_close(struct store *st)
{
	size_t i;

	for (i = 0; i < st->nr; i++) {
		struct store_entry *e = st->all[i];

		if (e->mapped != e->on_disk)
			touch(st, e->id, e->size, e->mapped);
		free(e->dirs);
		free(e);
	}
	free(st->all);
	hashmap_free(&st->map);
	if (st->dirfd >= 0)
		close(st->dirfd);
	pthread_mutex_destroy(&st->lock);
}
