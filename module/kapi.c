// SPDX-License-Identifier: GPL-2.0
/*
 * Facts about the running kernel that it does not export to modules:
 * its build-id (vmlinux_build_id is not exported, nor present on 5.10),
 * who may see kernel addresses (kallsyms_show_value() is not exported)
 * and who may read a process's mappings (ptrace_may_access() is not).
 * Each is read from, or asked of, the kernel's own files, opened from the
 * initial task's root (wrapper/fs.h), so a chroot or a container that
 * mounts something over them changes nothing.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/capability.h>
#include <linux/cred.h>
#include <linux/file.h>
#include <linux/fs.h>
#include <linux/kernel.h>
#include <linux/pid.h>
#include <linux/rcupdate.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/utsname.h>

#include "elf_buildid.h"
#include "kapi.h"
#include "wrapper/fs.h"

static struct mmap3_build_id kernel_build_id;

/* Read up to @size bytes of the file @name of the initial namespace. */
static ssize_t read_initns(const char *name, void *buf, size_t size)
{
	struct file *file = mmap3_open_initns(name);
	loff_t pos = 0;
	ssize_t n;

	if (IS_ERR(file))
		return PTR_ERR(file);
	n = kernel_read(file, buf, size, &pos);
	fput(file);
	return n;
}

static int read_sysctl(const char *name, int fallback)
{
	char buf[16];
	ssize_t n = read_initns(name, buf, sizeof(buf) - 1);
	int val;

	if (n <= 0)
		return fallback;
	buf[n] = '\0';
	return kstrtoint(strim(buf), 10, &val) ? fallback : val;
}

bool mmap3_current_may_see_kaddr(void)
{
	/* Unreadable means the strictest. */
	int kptr_restrict = read_sysctl("/proc/sys/kernel/kptr_restrict", 2);

	switch (kptr_restrict) {
	case 0:
		/* kallsyms_for_perf() */
		if (read_sysctl("/proc/sys/kernel/perf_event_paranoid", 2) <= 1)
			return true;
		fallthrough;
	case 1:
		return ns_capable_noaudit(&init_user_ns, CAP_SYSLOG);
	default:
		return false;
	}
}

/*
 * ptrace_may_access() is not exported: the kernel is asked through
 * /proc/PID/ns/mnt of the initial namespace, whose open makes exactly
 * that check (proc_ns_get_link()), the LSMs included, and nothing else.
 */
bool mmap3_may_read_task(const struct cred *cred, struct pid *tgid)
{
	const struct cred *old;
	struct file *file;
	char name[32];
	bool ok;

	snprintf(name, sizeof(name), "/proc/%d/ns/mnt", pid_nr(tgid));
	old = override_creds(cred);
	file = mmap3_open_initns(name);
	if (!IS_ERR(file)) {
		/*
		 * Still there (a zombie's pid is kept): the number was its
		 * own, not reused by another process.
		 */
		rcu_read_lock();
		ok = pid_task(tgid, PIDTYPE_TGID);
		rcu_read_unlock();
		fput(file);
	} else {
		/* Gone (or hidden, hidepid): what CAP_SYS_PTRACE would allow. */
		ok = PTR_ERR(file) != -EACCES &&
		     ns_capable_noaudit(&init_user_ns, CAP_SYS_PTRACE);
	}
	revert_creds(old);
	return ok;
}

static void read_kernel_build_id(void)
{
	struct elf_buildid parsed;
	struct elf_buildid_mem m;
	void *buf;
	ssize_t n;

	kernel_build_id.status = MMAP3_BUILDID_IO_ERROR;
	buf = kmalloc(PAGE_SIZE, GFP_KERNEL);
	if (!buf)
		return;
	n = read_initns("/sys/kernel/notes", buf, PAGE_SIZE);
	if (n < 0) {
		pr_warn("cannot read /sys/kernel/notes: %zd\n", n);
		goto out;
	}
	m.buf = buf;
	m.size = n;
	elf_buildid_parse_notes(elf_buildid_mem_read, &m, n, 4, &parsed);
	kernel_build_id.status = parsed.status;
	kernel_build_id.size = parsed.size;
	memcpy(kernel_build_id.data, parsed.id, parsed.size);
	if (parsed.status != MMAP3_BUILDID_FOUND)
		pr_warn("no build-id in /sys/kernel/notes: %s\n",
			elf_buildid_status_str(parsed.status));
out:
	kfree(buf);
}

void mmap3_kernel_record(struct mmap3_record_kernel *rec)
{
	memset(rec, 0, sizeof(*rec));
	rec->header.type = MMAP3_RECORD_KERNEL;
	rec->header.size = sizeof(*rec);
	strscpy(rec->release, init_utsname()->release, sizeof(rec->release));
	rec->build_id = kernel_build_id;
}

int mmap3_kapi_init(void)
{
	read_kernel_build_id();
	return 0;
}
