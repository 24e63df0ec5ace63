/* SPDX-License-Identifier: GPL-2.0 */
/*
 * userspace/capture.h - mmap3 record --capture DIR: store the exact bytes
 * of each newly seen build-id's file in perf's build-id cache layout,
 *
 *	DIR/PATH/BUILD-ID/elf
 *	DIR/.build-id/XX/REST -> ../../PATH/BUILD-ID
 *
 * creating every file and link beneath DIR only.  PATH is the mapped
 * file's path, which the mapping process chooses (a memfd's name is free
 * text, "/memfd:../../x" included), so it is made a relative path of
 * plain components first (capture_relpath()); perf finds the file by the
 * .build-id link, whatever PATH is.
 */
#ifndef MMAP3_CAPTURE_H
#define MMAP3_CAPTURE_H

#include <linux/mmap3.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "beneath.h"
#include "capture_claims.h"

struct capture_stats {
	uint64_t stored;	/* files written */
	uint64_t cached;	/* already in the directory */
	uint64_t changed;	/* the file no longer had the mapped build-id */
	uint64_t bytes;		/* of the files written */
	uint64_t too_big;	/* larger than max_file: not captured */
	uint64_t over_total;	/* would have passed max_total: not captured */
	uint64_t over_files;	/* would have passed max_files: not captured */
	uint64_t planted;	/* a name planted in DIR on the way: not captured */
	uint64_t long_path;	/* its path too long or deep for DIR: not captured */
	uint64_t unreadable;	/* reading it refused (EACCES, EPERM) */
	uint64_t timed_out;	/* its filesystem did not answer in time */
	uint64_t too_slow;	/* not read within max_seconds */
	uint64_t read_failed;	/* reading it failed otherwise */
	uint64_t short_id;	/* a build-id of one byte: no name in perf's cache */
	uint64_t no_note;	/* a derived id, and no room for its note (elf_note_add.h) */
	/* Files claiming one build-id (capture_claims.h), not failures: */
	uint64_t not_root;	/* stored from a file root did not own alone */
	uint64_t replaced;	/* ... then replaced by a root-owned file's */
	uint64_t claimed;	/* another file claiming an id already stored: not stored */
	/* Counted by record.c: */
	uint64_t abandoned;	/* offered after capturing stopped on an error */
	uint64_t stopped;	/* given up at a stop signal (capture_worker_cancel) */
	uint64_t backlog;	/* offered while CAPTURE_QUEUE_MAX waited */
	uint64_t others;	/* of processes perf did not record (inject): not captured */
	uint64_t refused;	/* first-seen build-ids the module gave no handle */
	uint64_t denied;	/* ... as the opener may not read the mapper's files */
};

/*
 * What a capture may cost, by default: a user can map one page of a
 * sparse file of any size, which root would copy whole.  The largest
 * libraries people profile are a few hundred MB.
 */
#define CAPTURE_MAX_FILE	(512ULL << 20)
#define CAPTURE_MAX_TOTAL	(4ULL << 30)
/*
 * A file whose filesystem answers each read in time but a little at a
 * time (FUSE can) would hold captures up for ever: a whole file gets this
 * long.  A 512 MB file read at 20 MB/s fits.
 */
#define CAPTURE_MAX_SECONDS	30
/*
 * Files, links and directories made in DIR: a user can map files at
 * paths of a thousand components, each a directory in perf's layout.  A
 * binary costs its path's new directories, two more, its file and link:
 * some 60,000 binaries of paths six deep.
 */
#define CAPTURE_MAX_FILES	500000
/* Components of a stored file's path; deeper ones are not captured. */
#define CAPTURE_MAX_DEPTH	128

/* What a capture may cost; 0 in any: no limit there. */
struct capture_limits {
	uint64_t max_file;	/* bytes of one file */
	uint64_t max_total;	/* bytes copied in all */
	uint64_t max_files;	/* files, links and directories made */
	uint64_t max_seconds;	/* to read one file */
};

#define CAPTURE_LIMITS_DEFAULT \
	{ CAPTURE_MAX_FILE, CAPTURE_MAX_TOTAL, CAPTURE_MAX_FILES, CAPTURE_MAX_SECONDS }

struct capture {
	const char *dir;	/* as given, for messages */
	int dirfd;
	enum beneath_mode mode;
	struct capture_limits limits;
	uint64_t spent;		/* bytes copied, kept or not, against max_total */
	uint64_t made;		/* files, links and directories, against max_files */
	int total_said;		/* max_total was reached, and said so */
	int files_said;		/* max_files was reached, and said so */
	/*
	 * Set (by another thread) to stop: the file being copied is given up
	 * at its next read, counted as stopped.
	 */
	atomic_int cancel;
	/*
	 * Under sudo, the invoking user (SUDO_UID, SUDO_GID): DIR may be
	 * theirs (their ~/.debug), and what is created in it is made theirs,
	 * so their own perf report reads it.  Else -1: the running user's.
	 */
	uid_t owner_uid;
	gid_t owner_gid;
	/*
	 * The module offers each file claiming a build-id and tells which
	 * are root's alone (ABI 2.5): a copy from another file is replaced
	 * by a root-owned one's.  Else it offers the first only.
	 */
	int by_file;
	struct capture_claims claims;
	struct capture_stats stats;
	/*
	 * Told of each copy stored (a bounded store's keeper, store.h), on
	 * the thread that stored it; or NULL.
	 */
	void (*stored)(void *arg, struct capture *c, const struct mmap3_build_id *bid,
		       const char *dirs, const char *base, uint64_t bytes, int root_owned);
	void *stored_arg;
	int fetched;		/* files come from a server (mmap3 fetch), not mappings */
};

/* Under sudo (root, SUDO_UID and SUDO_GID): the user who ran it, 0 and *@uid, *@gid; else -1. */
int capture_sudo_user(uid_t *uid, gid_t *gid);

/*
 * Create (mkdir -p) and open DIR, which must be a directory (not a
 * symbolic link to one) of the user running mmap3, or under sudo of the
 * user who ran sudo, that no one else may write to; the limits are
 * CAPTURE_LIMITS_DEFAULT until the caller sets others.  Returns 0, or -1 after printing.
 */
int capture_open(struct capture *c, const char *dir);
void capture_close(struct capture *c);

/*
 * Store the file behind the capture handle @m->capture, read through the
 * session @fd, and release the handle.  Its build-id is checked before
 * it is copied (and again once stored), and a file over the limits is
 * not copied at all: each is counted in the statistics, and so is a file
 * that cannot be read (refused, its filesystem not answering in time, a
 * read error): those cost that file only.  Returns 0, or -1 after
 * printing one line when capturing cannot go on (e.g. a full disk).
 */
int capture_store(struct capture *c, int fd, const struct mmap3_record_mmap *m);

/*
 * The same for a file read from @path, e.g. a module's .ko found by
 * userspace/kmod.c: stored only if its build-id is @bid.
 */
int capture_store_file(struct capture *c, const char *path, const struct mmap3_build_id *bid);
/* ... read from @path, stored as the file @name names (mmap3 fetch: debuginfod's copy). */
int capture_store_file_as(struct capture *c, const char *path, const char *name,
			  const struct mmap3_build_id *bid);

/*
 * Store the vdso as perf's build-id cache keeps it ([vdso]/BUILD-ID/vdso
 * and its .build-id link), from our own memory: every 64-bit process
 * maps the same image, so perf, given DIR as its cache, resolves the
 * samples in it as it does from ~/.debug.  Not in the statistics nor
 * against the byte limits; what it makes counts against max_files.  0,
 * or -1 as capture_store().
 */
int capture_store_vdso(struct capture *c);

/*
 * The relative path under DIR for the mapped file @path: components
 * without "/", never "", "." or "..", each at most NAME_MAX bytes; '%',
 * control characters and such components escaped as %XX; a memfd's whole
 * name one component ("/memfd:a/b" is "memfd:a%2Fb").  Returns 0, or -1
 * if it does not fit in @len.
 */
int capture_relpath(const char *path, char *out, size_t len);

#endif /* MMAP3_CAPTURE_H */
