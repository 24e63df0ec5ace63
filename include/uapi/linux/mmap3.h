/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * The interface between the mmap3 kernel module and its users, through the
 * character device /dev/mmap3.  Shared by the module, the mmap3 tool and the
 * selftests.
 *
 * Versioning: MMAP3_ABI_MAJOR changes when an existing layout or meaning
 * changes, so a tool must refuse a module whose major differs from its own.
 * MMAP3_ABI_MINOR grows when something is added in a compatible way (a new
 * ioctl, a new record type, a field appended to an extensible struct).
 *
 * Extensible structs start with a __u32 size that the caller sets to the
 * sizeof() it was compiled with.  The module accepts any size from the
 * first published one (*_SIZE_VER0) up to 4096: bytes it does not know
 * must be zero on input, and it writes back at most the caller's size, so
 * old tools work with new modules and new tools with old modules.
 */
#ifndef _UAPI_LINUX_MMAP3_H
#define _UAPI_LINUX_MMAP3_H

#include <linux/ioctl.h>
#include <linux/types.h>

#define MMAP3_DEVICE_PATH	"/dev/mmap3"

#define MMAP3_ABI_MAJOR		1
#define MMAP3_ABI_MINOR		0

#define MMAP3_STRUCT_SIZE_MAX	4096

/*
 * Build-ids are GNU build-id notes of up to this many bytes: 20 (SHA-1)
 * is what linkers make by default and all perf can carry; longer ones
 * (ld --build-id=0xHEX) are kept whole up to this size.
 */
#define MMAP3_BUILD_ID_SIZE_MAX	64

/*
 * enum mmap3_buildid_status - what became of looking for a file's build-id
 * @MMAP3_BUILDID_FOUND:	found
 * @MMAP3_BUILDID_NOT_ELF:	no ELF magic (a script, a data file)
 * @MMAP3_BUILDID_NO_NOTE:	a valid ELF file without a GNU build-id note
 * @MMAP3_BUILDID_TRUNCATED:	the file ends before a header, table or note
 *				that the file itself declares
 * @MMAP3_BUILDID_CORRUPT:	inconsistent ELF: unknown class, byte order or
 *				version, bad entry sizes, offsets that overflow,
 *				notes that overrun their segment, an empty id
 * @MMAP3_BUILDID_TOO_LONG:	a build-id longer than MMAP3_BUILD_ID_SIZE_MAX
 * @MMAP3_BUILDID_LIMIT:	more headers or notes than the parser examines
 *				(bounded work on hostile files)
 * @MMAP3_BUILDID_IO_ERROR:	reading the file failed
 */
enum mmap3_buildid_status {
	MMAP3_BUILDID_FOUND	= 0,
	MMAP3_BUILDID_NOT_ELF	= 1,
	MMAP3_BUILDID_NO_NOTE	= 2,
	MMAP3_BUILDID_TRUNCATED	= 3,
	MMAP3_BUILDID_CORRUPT	= 4,
	MMAP3_BUILDID_TOO_LONG	= 5,
	MMAP3_BUILDID_LIMIT	= 6,
	MMAP3_BUILDID_IO_ERROR	= 7,
	MMAP3_BUILDID_NR_STATUS,
};

/*
 * struct mmap3_abi_version - argument of MMAP3_IOC_ABI_VERSION
 * @size:	in: sizeof(struct mmap3_abi_version) as known by the caller, at
 *		least MMAP3_ABI_VERSION_SIZE_VER0; out: the number of bytes the
 *		module wrote
 * @major:	out: MMAP3_ABI_MAJOR of the module; zero on input
 * @minor:	out: MMAP3_ABI_MINOR of the module; zero on input
 * @features:	out: MMAP3_FEATURE_* bits the module implements (none are
 *		defined in ABI 1.0); zero on input
 */
struct mmap3_abi_version {
	__u32 size;
	__u16 major;
	__u16 minor;
	__u64 features;
};

#define MMAP3_ABI_VERSION_SIZE_VER0	16

#define MMAP3_IOC_MAGIC		0xB3

/*
 * MMAP3_IOC_ABI_VERSION: fill in struct mmap3_abi_version.
 * Errors: EFAULT (bad pointer), EINVAL (size out of range, or non-zero
 * input in an output field or in bytes the module does not know).
 */
#define MMAP3_IOC_ABI_VERSION	_IOWR(MMAP3_IOC_MAGIC, 0x00, struct mmap3_abi_version)

#endif /* _UAPI_LINUX_MMAP3_H */
