// SPDX-License-Identifier: GPL-2.0
/*
 * userspace/device.c - /dev/mmap3: open, ABI check and its ioctls by
 * name (the host tests link a stand-in instead: tests/host/fake_device.c).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "device.h"
#include "msg.h"
#include "openfile.h"

const char *mmap3_device_path(void)
{
	const char *path = getenv("MMAP3_DEVICE");

	return path && *path ? path : MMAP3_DEVICE_PATH;
}

int mmap3_device_open(struct mmap3_abi_version *ver)
{
	const char *path = mmap3_device_path();
	struct stat st;
	int fd;

	/*
	 * Looked at first: a FIFO named by MMAP3_DEVICE is not waited for.
	 * Read-write to give back the mapped buffer's records as they are
	 * read (records.c); a node made read-only still gives them by read().
	 */
	fd = open_checked_flags(path, S_IFCHR, O_RDWR, &st);
	if (fd == -1 && errno == EACCES)
		fd = open_checked(path, S_IFCHR, &st);
	if (fd == -2) {
		msg_err("%s: %s, expected the mmap3 character device", path,
			file_type_name(&st));
		return -1;
	}
	if (fd < 0) {
		int err = errno;

		if (err == ENOENT || err == ENXIO || err == ENODEV)
			msg_err("%s: %s: the mmap3 module is not loaded "
				"(load it with 'modprobe mmap3'; to install it, see "
				"'make dkms-install' in the README)", path, strerror(err));
		else if (err == EPERM || err == EACCES)
			msg_err("%s: %s: opening it needs CAP_PERFMON or "
				"CAP_SYS_ADMIN (run as root)", path, strerror(err));
		else
			msg_err("%s: %s", path, strerror(err));
		return -1;
	}

	memset(ver, 0, sizeof(*ver));
	ver->size = sizeof(*ver);
	if (ioctl(fd, MMAP3_IOC_ABI_VERSION, ver) < 0) {
		msg_err("%s: ABI version ioctl failed: %s: not an mmap3 "
			"device, or a module too old for this tool", path, strerror(errno));
		close(fd);
		return -1;
	}
	if (ver->major != MMAP3_ABI_MAJOR) {
		msg_err("%s: the module speaks ABI %u.%u, this tool ABI %u.%u: "
			"install a tool and module of the same major version", path,
			ver->major, ver->minor, MMAP3_ABI_MAJOR, MMAP3_ABI_MINOR);
		close(fd);
		return -1;
	}
	return fd;
}

/* modprobe mmap3, as root, in a known environment: its exit status, or -1. */
static int modprobe_mmap3(void)
{
	static char *const argv[] = { "modprobe", "-q", "mmap3", NULL };
	static char *const envp[] = { "PATH=/usr/sbin:/sbin:/usr/bin:/bin", NULL };
	int status;
	pid_t pid;

	fflush(NULL);
	pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0) {
		int null = open("/dev/null", O_RDONLY | O_CLOEXEC);

		/* Its messages are errors: on our standard error, not in perf's output. */
		if (null < 0 || dup2(null, STDIN_FILENO) < 0 || dup2(STDERR_FILENO, STDOUT_FILENO) < 0)
			_exit(127);
		execvpe(argv[0], argv, envp);
		_exit(127);
	}
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return -1;
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

int mmap3_device_open_loading(struct mmap3_abi_version *ver)
{
	const struct timespec tick = { 0, 20 * 1000 * 1000 };
	const char *path = mmap3_device_path();
	int ret, i;

	/* Only the real device, only root, only when it is not there. */
	if (strcmp(path, MMAP3_DEVICE_PATH) || geteuid() != 0 ||
	    !access(path, F_OK) || errno != ENOENT)
		return mmap3_device_open(ver);
	ret = modprobe_mmap3();
	if (ret) {
		msg_err("%s is missing and 'modprobe mmap3' failed (%s %d): "
			"is the mmap3-dkms package installed for this kernel?", path,
			ret < 0 ? "status" : "exit", ret);
		return -1;
	}
	/* devtmpfs makes the node before modprobe returns; udev may redo it. */
	for (i = 0; i < 100 && access(path, F_OK); i++)
		nanosleep(&tick, NULL);
	msg_err("loaded the mmap3 module ('modprobe mmap3'); it stays loaded "
		"until 'modprobe -r mmap3'");
	return mmap3_device_open(ver);
}

static int ioctl_failed(const char *what)
{
	msg_err("%s: %s: %s", mmap3_device_path(), what, strerror(errno));
	return -1;
}

int mmap3_device_setup(int fd, const struct mmap3_filter *filter, int clock,
		       uint64_t buffer_size)
{
	if (buffer_size && ioctl(fd, MMAP3_IOC_SET_BUFFER_SIZE, &buffer_size))
		return ioctl_failed("setting the buffer size");
	if (filter && ioctl(fd, MMAP3_IOC_SET_FILTER, filter))
		return ioctl_failed("setting the filter");
	if (ioctl(fd, MMAP3_IOC_SET_CLOCK, &clock))
		return ioctl_failed("setting the clock");
	return 0;
}

/* Does /proc/sys/kernel/ftrace_enabled read 0? */
static int ftrace_disabled(void)
{
	char buf[16] = "";
	int fd = open("/proc/sys/kernel/ftrace_enabled", O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return 0;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	return n > 0 && buf[0] == '0';
}

int mmap3_device_enable(int fd)
{
	if (!ioctl(fd, MMAP3_IOC_ENABLE))
		return 0;
	/*
	 * The module's ftrace_ops is permanent: with ftrace turned off,
	 * which would silence it, the kernel refuses to register it.
	 */
	if (errno == EBUSY && ftrace_disabled()) {
		msg_err("%s: enabling the session: %s: %s", mmap3_device_path(), strerror(EBUSY),
			"kernel.ftrace_enabled is 0, expected 1: the kernel then calls no ftrace hook, so the module would record nothing; set it to 1 (sysctl kernel.ftrace_enabled=1)");
		return -1;
	}
	return ioctl_failed("enabling the session");
}

int mmap3_device_disable(int fd)
{
	return ioctl(fd, MMAP3_IOC_DISABLE) ? ioctl_failed("disabling the session") : 0;
}

int mmap3_device_flush(int fd)
{
	return ioctl(fd, MMAP3_IOC_FLUSH) ? ioctl_failed("flushing the session") : 0;
}

int mmap3_device_stats(int fd, struct mmap3_stats *st)
{
	memset(st, 0, sizeof(*st));
	st->size = sizeof(*st);
	return ioctl(fd, MMAP3_IOC_GET_STATS, st) ? ioctl_failed("reading statistics") : 0;
}

void *mmap3_device_map(int fd, size_t len, int prot, off_t offset)
{
	return mmap(NULL, len, prot, MAP_SHARED, fd, offset);
}

long mmap3_device_capture_read(int fd, uint32_t handle, void *buf, size_t len, uint64_t off)
{
	struct mmap3_capture_read rd = {
		.size = sizeof(rd),
		.handle = handle,
		.buf = (uintptr_t)buf,
		.len = len,
		.offset = off,
	};
	long n = ioctl(fd, MMAP3_IOC_CAPTURE_READ, &rd);

	return n < 0 ? -errno : n;
}

void mmap3_device_capture_release(int fd, uint32_t handle)
{
	ioctl(fd, MMAP3_IOC_CAPTURE_RELEASE, &handle);
}

int mmap3_device_capture_forget(int fd, uint32_t handle)
{
	return ioctl(fd, MMAP3_IOC_CAPTURE_FORGET, &handle) ? -errno : 0;
}

int mmap3_device_set_capture_user(int fd, uid_t uid, gid_t gid, const gid_t *groups, int n)
{
	uint32_t *ids = calloc(n > 0 ? (size_t)n : 1, sizeof(*ids));
	struct mmap3_capture_user cu = {
		.size = sizeof(cu),
		.uid = uid,
		.gid = gid,
		.nr_groups = n > 0 ? (uint32_t)n : 0,
		.groups = (uintptr_t)ids,
	};
	int i, err = 0;

	for (i = 0; ids && i < n; i++)
		ids[i] = groups[i];
	if (!ids)
		err = ENOMEM;
	else if (n > MMAP3_CAPTURE_USER_GROUPS_MAX)
		err = E2BIG;
	else if (ioctl(fd, MMAP3_IOC_SET_CAPTURE_USER, &cu))
		err = errno;
	free(ids);
	if (err)
		msg_err("%s: cannot have captures read as uid %u: %s", mmap3_device_path(),
			(unsigned int)uid, strerror(err));
	return err ? -1 : 0;
}
