// SPDX-License-Identifier: GPL-2.0
/*
 * A FUSE filesystem for the selftests, speaking /dev/fuse directly (no
 * libfuse in the VM): it mounts MOUNTPOINT and shows the regular files of
 * SRCDIR in its root, read-only, with the inode numbers, generation and
 * timestamps the test asks for.  It can stop answering READ requests
 * (SIGUSR1; it reads them and never replies, as a hung or hostile daemon
 * does) and answer them again (SIGUSR2, for requests that come later).
 *
 *   fusefs MOUNTPOINT SRCDIR [--gen N] [--time SECONDS] [--hang]
 *          [--hang-after N] [--only-uid UID] [--clones N [--collide]]
 *
 *   --hang-after N   answer the first N READ requests, then hang
 *   --only-uid UID   refuse (EACCES) OPEN and READ requests made with
 *                    another fsuid, as a server that squashes root or
 *                    serves only its user does
 *   --clones N       serve N files c000000, c000001, ... instead, each
 *                    its own inode with the first source file's bytes
 *   --collide        ... with the inode numbers and generations a hostile
 *                    daemon would choose against a table keyed by
 *                    ino ^ generation << 32: the same key for every one
 *
 * Prints "ready" on stdout once mounted, then serves until the
 * filesystem is unmounted or the daemon is killed (which aborts the
 * requests it never answered).
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/fuse.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

#define MAX_FILES	64
#define REQ_MAX		(1 << 20)

struct file {
	char name[256];
	int fd;			/* of the source file */
	uint64_t size;
	uint32_t mode;
};

static struct file files[MAX_FILES];
static int nr_files;
static uint64_t generation = 1;
static uint64_t fixed_time;	/* 0: the source files' own */
static volatile sig_atomic_t hang;
static long hang_after = -1;	/* READs left to answer before hanging; -1: no limit */
static long only_uid = -1;
static uint64_t clones;		/* --clones: nodes of files[0] */
static int collide;

static void on_usr1(int sig)
{
	(void)sig;
	hang = 1;
}

static void on_usr2(int sig)
{
	(void)sig;
	hang = 0;
}

static uint64_t nr_nodes(void)
{
	return clones ? clones : (uint64_t)nr_files;
}

/* Node 1 is the root; file i is node i + 2, with that inode number. */
static struct file *node_file(uint64_t nodeid)
{
	if (nodeid < 2 || nodeid >= 2 + nr_nodes())
		return NULL;
	return clones ? &files[0] : &files[nodeid - 2];
}

static void node_name(uint64_t i, char *name, size_t size)
{
	if (clones)
		snprintf(name, size, "c%06llu", (unsigned long long)i);
	else
		snprintf(name, size, "%s", files[i].name);
}

/* --collide: ino ^ generation << 32 is 7 for every file. */
static uint64_t node_ino(uint64_t nodeid)
{
	return collide && node_file(nodeid) ? nodeid << 32 | 7 : nodeid;
}

static uint64_t node_generation(uint64_t nodeid)
{
	return collide ? nodeid : generation;
}

static void fill_attr(struct fuse_attr *a, uint64_t nodeid)
{
	struct file *f = node_file(nodeid);
	struct stat st;

	memset(a, 0, sizeof(*a));
	a->ino = node_ino(nodeid);
	a->nlink = 1;
	a->blksize = 4096;
	if (!f) {
		a->mode = S_IFDIR | 0755;
		a->nlink = 2;
		return;
	}
	a->mode = f->mode;
	a->size = f->size;
	a->blocks = (f->size + 511) / 512;
	if (fixed_time) {
		a->atime = a->mtime = a->ctime = fixed_time;
	} else if (!fstat(f->fd, &st)) {
		a->atime = st.st_atime;
		a->mtime = st.st_mtime;
		a->ctime = st.st_ctime;
		a->mtimensec = st.st_mtim.tv_nsec;
		a->ctimensec = st.st_ctim.tv_nsec;
	}
}

/* The index of the file named @name, or nr_nodes() if none. */
static uint64_t lookup(const char *name)
{
	char *end;
	uint64_t i;

	if (clones) {
		/* Parsed, not searched: there may be many. */
		if (name[0] != 'c' || !isdigit((unsigned char)name[1]))
			return clones;
		i = strtoull(name + 1, &end, 10);
		return *end || i >= clones ? clones : i;
	}
	for (i = 0; i < (uint64_t)nr_files; i++)
		if (!strcmp(files[i].name, name))
			break;
	return i;
}

static int reply(int dev, uint64_t unique, int error, const void *arg, size_t len)
{
	struct fuse_out_header out = {
		.len = sizeof(out) + (error ? 0 : len),
		.error = error,
		.unique = unique,
	};
	struct iovec iov[2] = {
		{ &out, sizeof(out) },
		{ (void *)arg, error ? 0 : len },
	};

	return writev(dev, iov, 2) < 0 && errno != ENOENT ? -1 : 0;
}

static void handle(int dev, const struct fuse_in_header *in, const void *arg, char *buf)
{
	struct file *f;

	switch (in->opcode) {
	case FUSE_INIT: {
		const struct fuse_init_in *ii = arg;
		struct fuse_init_out io = {
			.major = FUSE_KERNEL_VERSION,
			.minor = ii->minor < 31 ? ii->minor : 31,
			.max_readahead = ii->max_readahead,
			.max_write = 65536,
			.max_background = 16,
			.congestion_threshold = 12,
		};

		reply(dev, in->unique, 0, &io, sizeof(io));
		return;
	}
	case FUSE_LOOKUP: {
		struct fuse_entry_out eo = { 0 };
		uint64_t i = lookup(arg);

		if (in->nodeid != FUSE_ROOT_ID || i == nr_nodes()) {
			reply(dev, in->unique, -ENOENT, NULL, 0);
			return;
		}
		eo.nodeid = i + 2;
		eo.generation = node_generation(eo.nodeid);
		eo.entry_valid = eo.attr_valid = 3600;
		fill_attr(&eo.attr, eo.nodeid);
		reply(dev, in->unique, 0, &eo, sizeof(eo));
		return;
	}
	case FUSE_GETATTR: {
		struct fuse_attr_out ao = { .attr_valid = 3600 };

		fill_attr(&ao.attr, in->nodeid);
		reply(dev, in->unique, 0, &ao, sizeof(ao));
		return;
	}
	case FUSE_OPEN:
	case FUSE_OPENDIR: {
		struct fuse_open_out oo = { .open_flags = FOPEN_KEEP_CACHE };

		if (only_uid >= 0 && in->uid != (uint32_t)only_uid) {
			reply(dev, in->unique, -EACCES, NULL, 0);
			return;
		}
		reply(dev, in->unique, 0, &oo, sizeof(oo));
		return;
	}
	case FUSE_READ: {
		const struct fuse_read_in *ri = arg;
		ssize_t n;

		if (hang || !hang_after)
			return;		/* read, and never answered */
		if (hang_after > 0)
			hang_after--;
		if (only_uid >= 0 && in->uid != (uint32_t)only_uid) {
			reply(dev, in->unique, -EACCES, NULL, 0);
			return;
		}
		f = node_file(in->nodeid);
		if (!f) {
			reply(dev, in->unique, -EISDIR, NULL, 0);
			return;
		}
		n = pread(f->fd, buf, ri->size < REQ_MAX ? ri->size : REQ_MAX, ri->offset);
		reply(dev, in->unique, n < 0 ? -errno : 0, buf, n < 0 ? 0 : n);
		return;
	}
	case FUSE_READDIR: {
		const struct fuse_read_in *ri = arg;
		size_t len = 0;
		uint64_t i;

		for (i = ri->offset; i < nr_nodes(); i++) {
			struct fuse_dirent *d = (void *)(buf + len);
			char name[256];
			size_t nl, sz;

			node_name(i, name, sizeof(name));
			nl = strlen(name);
			sz = FUSE_DIRENT_ALIGN(FUSE_NAME_OFFSET + nl);
			if (len + sz > ri->size)
				break;
			d->ino = node_ino(i + 2);
			d->off = i + 1;
			d->namelen = nl;
			d->type = DT_REG;
			memcpy(d->name, name, nl);
			len += sz;
		}
		reply(dev, in->unique, 0, buf, len);
		return;
	}
	case FUSE_STATFS: {
		struct fuse_statfs_out so = { .st = { .bsize = 4096, .namelen = 255 } };

		reply(dev, in->unique, 0, &so, sizeof(so));
		return;
	}
	case FUSE_RELEASE:
	case FUSE_RELEASEDIR:
	case FUSE_FLUSH:
		reply(dev, in->unique, 0, NULL, 0);
		return;
	case FUSE_FORGET:
	case FUSE_BATCH_FORGET:
	case FUSE_INTERRUPT:
		return;			/* no reply */
	default:
		reply(dev, in->unique, -ENOSYS, NULL, 0);
		return;
	}
}

static int load_files(const char *src)
{
	DIR *d = opendir(src);
	struct dirent *e;
	struct stat st;

	if (!d)
		return -1;
	while ((e = readdir(d)) && nr_files < MAX_FILES) {
		struct file *f = &files[nr_files];
		int fd = openat(dirfd(d), e->d_name, O_RDONLY | O_CLOEXEC);

		if (fd < 0)
			continue;
		if (fstat(fd, &st) || !S_ISREG(st.st_mode)) {
			close(fd);
			continue;
		}
		snprintf(f->name, sizeof(f->name), "%s", e->d_name);
		f->fd = fd;
		f->size = st.st_size;
		f->mode = S_IFREG | (st.st_mode & 0777);
		nr_files++;
	}
	closedir(d);
	return 0;
}

int main(int argc, char **argv)
{
	char opts[128], *buf;
	int dev, i;

	if (argc < 3) {
		fprintf(stderr, "usage: fusefs MOUNTPOINT SRCDIR [--gen N] [--time S] [--hang]"
			" [--hang-after N] [--only-uid UID] [--clones N [--collide]]\n");
		return 2;
	}
	for (i = 3; i < argc; i++) {
		if (!strcmp(argv[i], "--gen") && i + 1 < argc)
			generation = strtoull(argv[++i], NULL, 0);
		else if (!strcmp(argv[i], "--time") && i + 1 < argc)
			fixed_time = strtoull(argv[++i], NULL, 0);
		else if (!strcmp(argv[i], "--hang"))
			hang = 1;
		else if (!strcmp(argv[i], "--hang-after") && i + 1 < argc)
			hang_after = strtol(argv[++i], NULL, 0);
		else if (!strcmp(argv[i], "--only-uid") && i + 1 < argc)
			only_uid = strtol(argv[++i], NULL, 0);
		else if (!strcmp(argv[i], "--clones") && i + 1 < argc)
			clones = strtoull(argv[++i], NULL, 0);
		else if (!strcmp(argv[i], "--collide"))
			collide = 1;
	}
	signal(SIGUSR1, on_usr1);
	signal(SIGUSR2, on_usr2);
	if (load_files(argv[2]) || (clones && !nr_files)) {
		fprintf(stderr, "fusefs: %s: no file to serve\n", argv[2]);
		return 1;
	}
	dev = open("/dev/fuse", O_RDWR | O_CLOEXEC);
	if (dev < 0) {
		perror("/dev/fuse");
		return 1;
	}
	snprintf(opts, sizeof(opts), "fd=%d,rootmode=40000,user_id=0,group_id=0,allow_other",
		 dev);
	if (mount("fusefs", argv[1], "fuse.fusefs", MS_NOSUID | MS_NODEV, opts)) {
		perror("mount");
		return 1;
	}
	printf("ready\n");
	fflush(stdout);
	buf = malloc(REQ_MAX + 4096);
	for (;;) {
		ssize_t n = read(dev, buf, REQ_MAX + 4096);
		const struct fuse_in_header *in = (const void *)buf;
		static char out[REQ_MAX];

		if (n < 0) {
			if (errno == EINTR || errno == EAGAIN || errno == ENOENT)
				continue;
			return errno == ENODEV ? 0 : 1;	/* unmounted */
		}
		if ((size_t)n < sizeof(*in))
			continue;
		handle(dev, in, in + 1, out);
		if (in->opcode == FUSE_DESTROY)
			return 0;
	}
}
