/* SPDX-License-Identifier: GPL-2.0 */
/*
 * userspace/beneath.h - directories created and opened below a directory
 * and never outside it, whatever is planted there: no symbolic link is
 * followed, no ".." taken, no magic link (/proc/self/...) crossed.
 */
#ifndef MMAP3_BENEATH_H
#define MMAP3_BENEATH_H

#include <stdint.h>
#include <sys/types.h>

/*
 * How to resolve: openat2() with RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS
 * (Linux 5.6 and later), or a walk of one component at a time with
 * O_NOFOLLOW elsewhere.  BENEATH_AUTO tries the first and falls back.
 */
enum beneath_mode {
	BENEATH_AUTO,
	BENEATH_OPENAT2,
	BENEATH_WALK,
};

/*
 * Open the directory @rel ("a/b/c": no empty, "." or ".." component)
 * below @dirfd, creating what is missing (mode 0700), and adding how many
 * directories it made to *@made (if not NULL), failing or not.  Returns a
 * new O_CLOEXEC descriptor, or -1 with errno: ELOOP or ENOTDIR when a
 * component is a symbolic link or no directory, EINVAL for a bad @rel.
 */
int beneath_mkdirs(int dirfd, const char *rel, enum beneath_mode mode, uint64_t *made);

/*
 * Directories beneath_mkdirs() creates from now on are given to @uid and
 * @gid (fchown() of the directory it opened), unless @uid is -1.
 */
void beneath_set_owner(uid_t uid, gid_t gid);

#endif /* MMAP3_BENEATH_H */
