// SPDX-License-Identifier: GPL-2.0
/*
 * userspace/device.c - opening /dev/mmap3 and checking its ABI.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "device.h"

const char *mmap3_device_path(void)
{
	const char *path = getenv("MMAP3_DEVICE");

	return path && *path ? path : MMAP3_DEVICE_PATH;
}

int mmap3_device_open(struct mmap3_abi_version *ver)
{
	const char *path = mmap3_device_path();
	int fd;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		int err = errno;

		if (err == ENOENT || err == ENXIO || err == ENODEV)
			fprintf(stderr, "mmap3: %s: %s: the mmap3 module is not loaded "
				"(load it with 'modprobe mmap3'; to install it, see "
				"'make dkms-install' in the README)\n", path, strerror(err));
		else if (err == EPERM || err == EACCES)
			fprintf(stderr, "mmap3: %s: %s: opening it needs CAP_PERFMON or "
				"CAP_SYS_ADMIN (run as root)\n", path, strerror(err));
		else
			fprintf(stderr, "mmap3: %s: %s\n", path, strerror(err));
		return -1;
	}

	memset(ver, 0, sizeof(*ver));
	ver->size = sizeof(*ver);
	if (ioctl(fd, MMAP3_IOC_ABI_VERSION, ver) < 0) {
		fprintf(stderr, "mmap3: %s: ABI version ioctl failed: %s: not an mmap3 "
			"device, or a module too old for this tool\n", path, strerror(errno));
		close(fd);
		return -1;
	}
	if (ver->major != MMAP3_ABI_MAJOR) {
		fprintf(stderr, "mmap3: %s: the module speaks ABI %u.%u, this tool ABI %u.%u: "
			"install a tool and module of the same major version\n", path,
			ver->major, ver->minor, MMAP3_ABI_MAJOR, MMAP3_ABI_MINOR);
		close(fd);
		return -1;
	}
	return fd;
}
