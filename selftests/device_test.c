// SPDX-License-Identifier: GPL-2.0
/*
 * selftests/device_test.c - /dev/mmap3: who may open it, the ABI-version
 * ioctl and its argument checks, and unloading while the device is open.
 *
 * Runs as root inside a test VM with the module loaded; the load/unload
 * tests need $MMAP3_KO, the path of mmap3.ko, and leave it loaded.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/capability.h>
#include <linux/mmap3.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <unistd.h>

#include "kselftest_harness.h"

#define NOBODY 65534
#define CAP(c) (1ull << (c))

static int open_device(void)
{
	return open(MMAP3_DEVICE_PATH, O_RDONLY | O_CLOEXEC);
}

/*
 * In a child: become @uid holding exactly the capabilities in @caps, try
 * to open the device, and exit with 0 on success or with the errno.
 * Returns that exit status, or -1 if the child could not set itself up.
 */
static int open_as(uid_t uid, uint64_t caps)
{
	int status;
	pid_t pid = fork();

	if (pid < 0)
		return -1;
	if (pid == 0) {
		struct __user_cap_header_struct hdr = {
			.version = _LINUX_CAPABILITY_VERSION_3,
		};
		struct __user_cap_data_struct data[2] = {};
		int fd;

		if (prctl(PR_SET_KEEPCAPS, 1, 0, 0, 0) ||
		    setresgid(uid, uid, uid) || setresuid(uid, uid, uid))
			_exit(200);
		data[0].effective = data[0].permitted = (uint32_t)caps;
		data[1].effective = data[1].permitted = (uint32_t)(caps >> 32);
		if (syscall(SYS_capset, &hdr, data))
			_exit(201);
		fd = open_device();
		_exit(fd >= 0 ? 0 : errno);
	}
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) ||
	    WEXITSTATUS(status) >= 200)
		return -1;
	return WEXITSTATUS(status);
}

TEST(device_node)
{
	struct stat st;

	ASSERT_EQ(0, stat(MMAP3_DEVICE_PATH, &st));
	EXPECT_TRUE(S_ISCHR(st.st_mode));
	EXPECT_EQ(0600, st.st_mode & 07777);
	EXPECT_EQ(0, st.st_uid);
	/* A misc device. */
	EXPECT_EQ(10, major(st.st_rdev));
}

TEST(open_as_root)
{
	int fd = open_device();

	ASSERT_LE(0, fd);
	EXPECT_EQ(0, close(fd));
}

/* Mode 0600 stops an unprivileged user before the module is asked. */
TEST(open_refused_to_user)
{
	EXPECT_EQ(EACCES, open_as(NOBODY, 0));
}

/* Past the mode bits, the module itself refuses. */
TEST(open_refused_to_user_without_perfmon)
{
	EXPECT_EQ(EPERM, open_as(NOBODY, CAP(CAP_DAC_OVERRIDE)));
	EXPECT_EQ(EPERM, open_as(NOBODY, CAP(CAP_DAC_OVERRIDE) | CAP(CAP_SYS_PTRACE) |
				 CAP(CAP_NET_ADMIN) | CAP(CAP_SYSLOG)));
}

TEST(open_refused_to_root_without_perfmon)
{
	EXPECT_EQ(EPERM, open_as(0, CAP(CAP_SYS_PTRACE)));
	EXPECT_EQ(EPERM, open_as(0, 0));
}

TEST(open_with_cap_perfmon)
{
	EXPECT_EQ(0, open_as(0, CAP(CAP_PERFMON)));
	EXPECT_EQ(0, open_as(NOBODY, CAP(CAP_DAC_OVERRIDE) | CAP(CAP_PERFMON)));
}

TEST(open_with_cap_sys_admin)
{
	EXPECT_EQ(0, open_as(0, CAP(CAP_SYS_ADMIN)));
	EXPECT_EQ(0, open_as(NOBODY, CAP(CAP_DAC_OVERRIDE) | CAP(CAP_SYS_ADMIN)));
}

FIXTURE(dev) {
	int fd;
};

FIXTURE_SETUP(dev)
{
	self->fd = open_device();
	ASSERT_LE(0, self->fd);
}

FIXTURE_TEARDOWN(dev)
{
	close(self->fd);
}

TEST_F(dev, abi_version)
{
	struct mmap3_abi_version ver = { .size = sizeof(ver) };

	ASSERT_EQ(0, ioctl(self->fd, MMAP3_IOC_ABI_VERSION, &ver));
	EXPECT_EQ(sizeof(ver), ver.size);
	EXPECT_EQ(MMAP3_ABI_MAJOR, ver.major);
	EXPECT_EQ(MMAP3_ABI_MINOR, ver.minor);
	/* Every feature this module has, none it has not. */
	EXPECT_EQ(MMAP3_FEATURE_MAPPED_BUFFER | MMAP3_FEATURE_CAPTURE_USER |
		  MMAP3_FEATURE_CAPTURE_BY_FILE | MMAP3_FEATURE_DERIVED_IDS, ver.features);
}

/* A newer tool's larger struct is accepted if its tail is zero. */
TEST_F(dev, abi_version_larger_struct)
{
	struct {
		struct mmap3_abi_version ver;
		uint8_t future[64];
	} big;

	memset(&big, 0, sizeof(big));
	big.ver.size = sizeof(big);
	ASSERT_EQ(0, ioctl(self->fd, MMAP3_IOC_ABI_VERSION, &big));
	EXPECT_EQ(sizeof(big.ver), big.ver.size);
	EXPECT_EQ(MMAP3_ABI_MAJOR, big.ver.major);

	memset(&big, 0, sizeof(big));
	big.ver.size = sizeof(big);
	big.future[63] = 1;
	EXPECT_EQ(-1, ioctl(self->fd, MMAP3_IOC_ABI_VERSION, &big));
	EXPECT_EQ(EINVAL, errno);
}

TEST_F(dev, abi_version_bad_size)
{
	static const uint32_t sizes[] = {
		0, 4, MMAP3_ABI_VERSION_SIZE_VER0 - 1, MMAP3_STRUCT_SIZE_MAX + 1,
		UINT32_MAX,
	};
	struct {
		struct mmap3_abi_version ver;
		uint8_t pad[MMAP3_STRUCT_SIZE_MAX + 8];
	} buf;
	size_t i;

	for (i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		memset(&buf, 0, sizeof(buf));
		buf.ver.size = sizes[i];
		EXPECT_EQ(-1, ioctl(self->fd, MMAP3_IOC_ABI_VERSION, &buf)) {
			TH_LOG("size %u accepted", sizes[i]);
		}
		EXPECT_EQ(EINVAL, errno);
	}
}

TEST_F(dev, abi_version_output_fields_must_be_zero)
{
	struct mmap3_abi_version ver = { .size = sizeof(ver), .features = 1 };

	EXPECT_EQ(-1, ioctl(self->fd, MMAP3_IOC_ABI_VERSION, &ver));
	EXPECT_EQ(EINVAL, errno);
	memset(&ver, 0, sizeof(ver));
	ver.size = sizeof(ver);
	ver.major = 1;
	EXPECT_EQ(-1, ioctl(self->fd, MMAP3_IOC_ABI_VERSION, &ver));
	EXPECT_EQ(EINVAL, errno);
}

TEST_F(dev, abi_version_bad_pointer)
{
	EXPECT_EQ(-1, ioctl(self->fd, MMAP3_IOC_ABI_VERSION, NULL));
	EXPECT_EQ(EFAULT, errno);
	EXPECT_EQ(-1, ioctl(self->fd, MMAP3_IOC_ABI_VERSION, (void *)8));
	EXPECT_EQ(EFAULT, errno);
}

/* The size is readable but the rest of the struct is not. */
TEST_F(dev, abi_version_struct_crosses_into_unmapped_page)
{
	long page = sysconf(_SC_PAGESIZE);
	char *p = mmap(NULL, 2 * page, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	struct mmap3_abi_version *ver;

	ASSERT_NE(MAP_FAILED, p);
	ASSERT_EQ(0, munmap(p + page, page));
	ver = (void *)(p + page - sizeof(uint32_t));
	ver->size = sizeof(*ver);
	EXPECT_EQ(-1, ioctl(self->fd, MMAP3_IOC_ABI_VERSION, ver));
	EXPECT_EQ(EFAULT, errno);
	munmap(p, page);
}

TEST_F(dev, abi_version_read_only_memory)
{
	long page = sysconf(_SC_PAGESIZE);
	struct mmap3_abi_version *ver = mmap(NULL, page, PROT_READ | PROT_WRITE,
					     MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	ASSERT_NE(MAP_FAILED, ver);
	ver->size = sizeof(*ver);
	ASSERT_EQ(0, mprotect(ver, page, PROT_READ));
	EXPECT_EQ(-1, ioctl(self->fd, MMAP3_IOC_ABI_VERSION, ver));
	EXPECT_EQ(EFAULT, errno);
	munmap(ver, page);
}

TEST_F(dev, unknown_ioctls)
{
	struct mmap3_abi_version ver = { .size = sizeof(ver) };
	static const unsigned long cmds[] = {
		0,
		_IOWR(MMAP3_IOC_MAGIC, 0x0c, struct mmap3_abi_version),
		_IOWR(MMAP3_IOC_MAGIC, 0x7f, struct mmap3_abi_version),
		_IOWR(MMAP3_IOC_MAGIC + 1, 0x00, struct mmap3_abi_version),
		_IOWR(0xB3, 0x00, struct mmap3_abi_version),
		TCGETS,
	};
	size_t i;

	for (i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++) {
		EXPECT_EQ(-1, ioctl(self->fd, cmds[i], &ver)) {
			TH_LOG("ioctl 0x%lx accepted", cmds[i]);
		}
		EXPECT_EQ(ENOTTY, errno);
	}
}

/*
 * A tool built against a later ABI, whose structs grew: the size encoded
 * in its command numbers differs, and the module takes the size from the
 * struct.  Zero bytes beyond what the module knows are accepted, others
 * refused; the first published sizes keep working.
 */
struct grown_stats {
	struct mmap3_stats st;
	uint8_t future[40];
};

struct grown_filter {
	struct mmap3_filter f;
	uint8_t future[24];
};

#define IOC_ABI_VERSION_GROWN	_IOWR(MMAP3_IOC_MAGIC, 0x00, uint8_t[48])
#define IOC_GET_STATS_GROWN	_IOWR(MMAP3_IOC_MAGIC, 0x07, struct grown_stats)
#define IOC_SET_FILTER_GROWN	_IOW(MMAP3_IOC_MAGIC, 0x02, struct grown_filter)

TEST_F(dev, larger_structs_from_a_newer_tool)
{
	struct {
		struct mmap3_abi_version ver;
		uint8_t future[32];
	} ver;
	struct grown_stats gs;
	struct grown_filter gf;

	ASSERT_NE(MMAP3_IOC_ABI_VERSION, IOC_ABI_VERSION_GROWN);
	memset(&ver, 0, sizeof(ver));
	ver.ver.size = sizeof(ver);
	ASSERT_EQ(0, ioctl(self->fd, IOC_ABI_VERSION_GROWN, &ver));
	EXPECT_EQ(MMAP3_ABI_MAJOR, ver.ver.major);
	EXPECT_EQ(sizeof(ver.ver), ver.ver.size);
	ver.ver.major = 0;
	ver.ver.minor = 0;
	ver.ver.size = sizeof(ver);
	ver.future[31] = 1;
	EXPECT_EQ(-1, ioctl(self->fd, IOC_ABI_VERSION_GROWN, &ver));
	EXPECT_EQ(EINVAL, errno);

	memset(&gs, 0, sizeof(gs));
	gs.st.size = sizeof(gs);
	ASSERT_EQ(0, ioctl(self->fd, IOC_GET_STATS_GROWN, &gs));
	EXPECT_EQ(sizeof(gs.st), gs.st.size);
	EXPECT_EQ(16384, gs.st.cache_capacity);
	memset(&gs, 0, sizeof(gs));
	gs.st.size = sizeof(gs);
	gs.future[0] = 1;
	EXPECT_EQ(-1, ioctl(self->fd, IOC_GET_STATS_GROWN, &gs));
	EXPECT_EQ(EINVAL, errno);

	memset(&gf, 0, sizeof(gf));
	gf.f.size = sizeof(gf);
	gf.f.flags = MMAP3_FILTER_DATA;
	EXPECT_EQ(0, ioctl(self->fd, IOC_SET_FILTER_GROWN, &gf));
	gf.future[5] = 1;
	EXPECT_EQ(-1, ioctl(self->fd, IOC_SET_FILTER_GROWN, &gf));
	EXPECT_EQ(EINVAL, errno);
}

TEST_F(dev, first_published_sizes)
{
	struct mmap3_stats st;
	struct mmap3_filter f;

	memset(&st, 0, sizeof(st));
	st.size = MMAP3_STATS_SIZE_VER0;
	ASSERT_EQ(0, ioctl(self->fd, MMAP3_IOC_GET_STATS, &st));
	EXPECT_EQ(MMAP3_STATS_SIZE_VER0, st.size);
	memset(&f, 0, sizeof(f));
	f.size = MMAP3_FILTER_SIZE_VER0;
	EXPECT_EQ(0, ioctl(self->fd, MMAP3_IOC_SET_FILTER, &f));
	/* Shorter than the first published size: refused. */
	st.size = MMAP3_STATS_SIZE_VER0 - 8;
	EXPECT_EQ(-1, ioctl(self->fd, MMAP3_IOC_GET_STATS, &st));
	EXPECT_EQ(EINVAL, errno);
}

/* Every GET_STATS field is output: a non-zero one on input is refused. */
TEST_F(dev, stats_output_fields_must_be_zero)
{
	struct mmap3_stats st;

	memset(&st, 0, sizeof(st));
	st.size = sizeof(st);
	st.records = 1;
	EXPECT_EQ(-1, ioctl(self->fd, MMAP3_IOC_GET_STATS, &st));
	EXPECT_EQ(EINVAL, errno);
	memset(&st, 0, sizeof(st));
	st.size = sizeof(st);
	st.parse[15] = 1;
	EXPECT_EQ(-1, ioctl(self->fd, MMAP3_IOC_GET_STATS, &st));
	EXPECT_EQ(EINVAL, errno);
}

TEST_F(dev, not_seekable)
{
	EXPECT_EQ(-1, lseek(self->fd, 0, SEEK_SET));
	EXPECT_EQ(ESPIPE, errno);
}

/* Loading and unloading: finit_module/delete_module on $MMAP3_KO. */

static int load_module(void)
{
	const char *ko = getenv("MMAP3_KO");
	int fd, ret;

	fd = open(ko, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	ret = syscall(SYS_finit_module, fd, "", 0);
	close(fd);
	return ret;
}

static int unload_module(void)
{
	return syscall(SYS_delete_module, "mmap3", O_NONBLOCK);
}

FIXTURE(module) {
	int unused;
};

FIXTURE_SETUP(module)
{
	if (!getenv("MMAP3_KO"))
		SKIP(return, "MMAP3_KO (path of mmap3.ko) is not set");
}

/* Whatever a test did, leave the module loaded for the tests after it. */
FIXTURE_TEARDOWN(module)
{
	if (getenv("MMAP3_KO") && access(MMAP3_DEVICE_PATH, F_OK))
		load_module();
}

TEST_F(module, unload_refused_while_open)
{
	int fd = open_device();
	struct mmap3_abi_version ver = { .size = sizeof(ver) };

	ASSERT_LE(0, fd);
	EXPECT_EQ(-1, unload_module());
	EXPECT_EQ(EWOULDBLOCK, errno);
	/* The refused unload left the open session working. */
	EXPECT_EQ(0, ioctl(fd, MMAP3_IOC_ABI_VERSION, &ver));
	EXPECT_EQ(MMAP3_ABI_MAJOR, ver.major);
	ASSERT_EQ(0, close(fd));
	ASSERT_EQ(0, unload_module());
	EXPECT_NE(0, access(MMAP3_DEVICE_PATH, F_OK));
	ASSERT_EQ(0, load_module());
	EXPECT_EQ(0, access(MMAP3_DEVICE_PATH, F_OK));
}

/* A reader in another process keeps the module; it unloads once it exits. */
TEST_F(module, unload_after_reader_exits)
{
	int pipefd[2], status;
	char c;
	pid_t pid;

	ASSERT_EQ(0, pipe(pipefd));
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		int fd = open_device();

		close(pipefd[0]);
		if (fd < 0)
			_exit(1);
		if (write(pipefd[1], "o", 1) != 1)
			_exit(2);
		pause();
		_exit(0);
	}
	close(pipefd[1]);
	ASSERT_EQ(1, read(pipefd[0], &c, 1));
	close(pipefd[0]);
	EXPECT_EQ(-1, unload_module());
	EXPECT_EQ(EWOULDBLOCK, errno);
	ASSERT_EQ(0, kill(pid, SIGKILL));
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_EQ(0, unload_module());
	ASSERT_EQ(0, load_module());
}

/* Slow where each load registers the kprobe and checks a signature under KASAN. */
TEST_F_TIMEOUT(module, load_unload_cycles, 180)
{
	int i;

	for (i = 0; i < 25; i++) {
		struct mmap3_abi_version ver = { .size = sizeof(ver) };
		int fd;

		ASSERT_EQ(0, unload_module()) {
			TH_LOG("cycle %d: unload: %s", i, strerror(errno));
		}
		ASSERT_EQ(0, load_module()) {
			TH_LOG("cycle %d: load: %s", i, strerror(errno));
		}
		fd = open_device();
		ASSERT_LE(0, fd);
		EXPECT_EQ(0, ioctl(fd, MMAP3_IOC_ABI_VERSION, &ver));
		close(fd);
	}
}

TEST_F(module, load_twice_refused)
{
	EXPECT_EQ(-1, load_module());
	EXPECT_EQ(EEXIST, errno);
}

TEST_HARNESS_MAIN
