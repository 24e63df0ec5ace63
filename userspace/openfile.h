/* SPDX-License-Identifier: GPL-2.0 */
/*
 * userspace/openfile.h - opening a file others may have planted: looked
 * at before it is opened, so a link to a device (/dev/ptmx, a tape) or a
 * FIFO is never opened, nor waited for.
 */
#ifndef MMAP3_OPENFILE_H
#define MMAP3_OPENFILE_H

#include <sys/stat.h>

/*
 * Open @path read-only if it is of type @type (S_IFREG, S_IFCHR), with
 * *@st its stat: the name is resolved once, without opening what it
 * names (O_PATH), checked, then that very inode is opened (through
 * /proc/self/fd).  Returns the descriptor; -1 with errno set; or -2 if it
 * is of another type (*@st says which).
 */
int open_checked(const char *path, mode_t type, struct stat *st);
/* The same, opened with @flags (O_RDONLY, O_RDWR) instead. */
int open_checked_flags(const char *path, mode_t type, int flags, struct stat *st);

/* "a directory", "a FIFO"...: what @st is, for messages. */
const char *file_type_name(const struct stat *st);

#endif /* MMAP3_OPENFILE_H */
