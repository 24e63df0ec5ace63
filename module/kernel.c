// SPDX-License-Identifier: GPL-2.0
/*
 * The running kernel and its modules: the kernel's build-id (read once
 * from /sys/kernel/notes), module load and unload (module notifier), and
 * the modules already loaded when a session starts.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/fs.h>
#include <linux/module.h>
#include <linux/notifier.h>
#include <linux/rculist.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/utsname.h>

#include "compat.h"
#include "elf_buildid.h"
#include "mmap3.h"

static struct mmap3_build_id kernel_build_id;

static void build_id_set(struct mmap3_build_id *bid, const struct elf_buildid *parsed)
{
	memset(bid, 0, sizeof(*bid));
	bid->status = parsed->status;
	bid->size = parsed->size;
	memcpy(bid->data, parsed->id, parsed->size);
}

/* vmlinux_build_id is not exported (nor present on 5.10); sysfs has the notes. */
static void kernel_read_build_id(void)
{
	struct elf_buildid parsed;
	struct elf_buildid_mem m;
	struct file *f;
	loff_t pos = 0;
	ssize_t n;
	void *buf;

	kernel_build_id.status = MMAP3_BUILDID_IO_ERROR;
	buf = kmalloc(PAGE_SIZE, GFP_KERNEL);
	if (!buf)
		return;
	f = filp_open("/sys/kernel/notes", O_RDONLY, 0);
	if (IS_ERR(f)) {
		pr_warn("cannot open /sys/kernel/notes: %ld\n", PTR_ERR(f));
		goto out;
	}
	n = kernel_read(f, buf, PAGE_SIZE, &pos);
	filp_close(f, NULL);
	if (n < 0) {
		pr_warn("cannot read /sys/kernel/notes: %zd\n", n);
		goto out;
	}
	m.buf = buf;
	m.size = n;
	elf_buildid_parse_notes(elf_buildid_mem_read, &m, n, 4, &parsed);
	build_id_set(&kernel_build_id, &parsed);
	if (parsed.status != MMAP3_BUILDID_FOUND)
		pr_warn("no build-id in /sys/kernel/notes: %s\n",
			elf_buildid_status_str(parsed.status));
out:
	kfree(buf);
}

/*
 * mod->build_id needs CONFIG_STACKTRACE_BUILD_ID, which Debian does not
 * set; modules are linked with --build-id and their .note.gnu.build-id is
 * read-only data, so find the note there.
 */
static void module_build_id(const struct module *mod, struct mmap3_build_id *bid)
{
	unsigned long base, size, off;

	memset(bid, 0, sizeof(*bid));
	bid->status = MMAP3_BUILDID_NO_NOTE;
	mmap3_module_rodata(mod, &base, &size);
	if (!base)
		return;
	for (off = 0; off + 16 <= size; off += 4) {
		const u32 *n = (const u32 *)(base + off);

		if (n[0] != 4 || n[2] != ELF_BUILDID_NOTE_TYPE || !n[1] ||
		    n[1] > MMAP3_BUILD_ID_SIZE_MAX || memcmp(n + 3, "GNU", 4) ||
		    n[1] > size - off - 16)
			continue;
		bid->status = MMAP3_BUILDID_FOUND;
		bid->size = n[1];
		memcpy(bid->data, n + 4, n[1]);
		return;
	}
}

static void module_record(const struct module *mod, u32 type, u32 flags,
			  struct mmap3_record_module *rec)
{
	unsigned long base, size;

	memset(rec, 0, sizeof(*rec));
	rec->header.type = type;
	rec->header.size = sizeof(*rec);
	rec->flags = flags;
	mmap3_module_text(mod, &base, &size);
	rec->text_addr = base;
	rec->text_size = size;
	strscpy(rec->name, mod->name, sizeof(rec->name));
	module_build_id(mod, &rec->build_id);
}

static int mmap3_module_notify(struct notifier_block *nb, unsigned long state, void *data)
{
	struct mmap3_record_module rec;

	switch (state) {
	case MODULE_STATE_COMING:
		module_record(data, MMAP3_RECORD_MODULE_LOAD, 0, &rec);
		break;
	case MODULE_STATE_GOING:
		module_record(data, MMAP3_RECORD_MODULE_UNLOAD, 0, &rec);
		break;
	default:
		return NOTIFY_DONE;
	}
	if (mmap3_sessions_any())
		mmap3_sessions_deliver_module(&rec);
	return NOTIFY_DONE;
}

static struct notifier_block mmap3_module_nb = {
	.notifier_call = mmap3_module_notify,
};

/*
 * The kernel record, then every loaded module.  The list of modules is
 * not exported: walk it from our own entry under RCU (free_module()
 * unlinks with list_del_rcu() and waits a grace period), skipping the
 * list head, which lies in the kernel image, and unformed modules.
 */
int mmap3_kernel_dump(struct mmap3_session *s)
{
	struct mmap3_record_kernel krec = {
		.header = {
			.type = MMAP3_RECORD_KERNEL,
			.size = sizeof(krec),
		},
	};
	struct mmap3_record_module *recs;
	struct module *mod;
	unsigned int n = 0, cap = 0, i;

	strscpy(krec.release, init_utsname()->release, sizeof(krec.release));
	krec.build_id = kernel_build_id;
	mmap3_session_emit_now(s, &krec.header);

	rcu_read_lock();
	list_for_each_entry_rcu(mod, &THIS_MODULE->list, list)
		cap++;
	rcu_read_unlock();
	/* Ourselves, and room for modules loaded meanwhile (the notifier has those). */
	cap += 16;
	recs = kvmalloc_array(cap, sizeof(*recs), GFP_KERNEL);
	if (!recs)
		return -ENOMEM;
	rcu_read_lock();
	list_for_each_entry_rcu(mod, &THIS_MODULE->list, list) {
		if (!mmap3_is_module_memory(mod) || mod->state == MODULE_STATE_UNFORMED)
			continue;
		if (n == cap)
			break;
		module_record(mod, MMAP3_RECORD_MODULE_LOAD, MMAP3_MODULE_DUMP, &recs[n++]);
	}
	if (THIS_MODULE->state != MODULE_STATE_UNFORMED && n < cap)
		module_record(THIS_MODULE, MMAP3_RECORD_MODULE_LOAD, MMAP3_MODULE_DUMP,
			      &recs[n++]);
	rcu_read_unlock();

	for (i = 0; i < n; i++)
		mmap3_session_emit_module(s, &recs[i]);
	kvfree(recs);
	return 0;
}

int mmap3_kernel_init(void)
{
	kernel_read_build_id();
	return register_module_notifier(&mmap3_module_nb);
}

void mmap3_kernel_exit(void)
{
	unregister_module_notifier(&mmap3_module_nb);
}
