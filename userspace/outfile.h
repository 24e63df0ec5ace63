/* SPDX-License-Identifier: GPL-2.0 */
/*
 * userspace/outfile.h - creating output files that cannot be abused: the
 * tool runs as root, writes where others can write too (/tmp, a capture
 * directory) and names files after paths other processes chose.
 *
 * A file is written unnamed (O_TMPFILE), or under a fresh random name
 * created with O_EXCL | O_NOFOLLOW where the file system cannot, and
 * linked or renamed into place only when complete, so a killed run leaves
 * no temporary file (but for SIGKILL in the fallback) and no half-written
 * output.  Nothing is ever opened through a name that exists: a symbolic
 * link, FIFO or device node planted at the output or temporary name is
 * never written through, and is refused as the output.  Files are
 * created 0600, as perf creates perf.data.
 */
#ifndef MMAP3_OUTFILE_H
#define MMAP3_OUTFILE_H

#include <limits.h>
#include <sys/stat.h>

/* The outcome of outfile_commit() when a file was there already. */
#define OUTFILE_EXISTED	1

/*
 * An input the output must not be, by device and inode; or, with
 * @replaced, the one file the output replaces (mmap3 record --merge
 * rewrites perf's own output): it must still be there under the output's
 * name when the output is complete, and is not kept as .old, what the
 * output holds being a superset of it.
 */
struct outfile_input {
	const char *path;
	struct stat st;
	int replaced;
};

struct outfile {
	const char *path;		/* as given, for messages */
	int dirfd;			/* the directory it goes in */
	int own_dirfd;			/* close dirfd at the end */
	char name[NAME_MAX + 1];	/* its name there */
	char tmp[NAME_MAX + 1];		/* the temporary name; "" when unnamed */
	int fd;
	int replace;			/* may replace an existing regular file */
	const struct outfile_input *inputs;
	unsigned int nr_inputs;
};

/*
 * Start writing @path, which must not be a symbolic link, anything but a
 * regular file, or one of the @nr @inputs.  Returns 0, or -1 after
 * printing one line.
 */
int outfile_open(struct outfile *o, const char *path, const struct outfile_input *inputs,
		 unsigned int nr);

/*
 * Start writing @name in the directory @dirfd (kept open by the caller),
 * @path naming it in messages; an existing file of that name is left as
 * it is (see outfile_commit()).
 */
int outfile_open_at(struct outfile *o, int dirfd, const char *name, const char *path);

/*
 * Flush the file to disk and give it its name.  Returns 0, OUTFILE_EXISTED
 * if outfile_open_at()'s name exists (the new file is dropped), or -1
 * after printing one line.  The outfile is finished either way.
 */
int outfile_commit(struct outfile *o);

/* Drop the file: nothing is left under any name. */
void outfile_abort(struct outfile *o);

#endif /* MMAP3_OUTFILE_H */
