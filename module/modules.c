// SPDX-License-Identifier: GPL-2.0
/*
 * Kernel modules: load and unload (module notifier), and the modules
 * already loaded when a session starts, each with its build-id.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/delay.h>
#include <linux/module.h>
#include <linux/notifier.h>
#include <linux/rculist.h>
#include <linux/sizes.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/uaccess.h>

#include "elf_buildid.h"
#include "modules.h"
#include "sink.h"
#include "wrapper/module.h"

/*
 * The module's read-only data is searched for the note in windows copied
 * with copy_from_kernel_nofault(), not dereferenced: a note looked for
 * where there is none lies across other objects (and KASAN's redzones
 * between them).  A window overlaps the next by a whole note.
 */
#define NOTE_WINDOW	4096
/* An ELF note's header: name and descriptor sizes, type. */
struct note_header {
	u32 namesz;
	u32 descsz;
	u32 type;
};

#define NOTE_MAX	(sizeof(struct note_header) + 4 + MMAP3_BUILD_ID_SIZE_MAX)
/* How much of each end of the read-only data is searched. */
#define NOTE_SCAN_MAX	SZ_1M

#ifdef MMAP3_TEST_HOOKS
/*
 * Test builds only (tests/vm/build-module): hold the dump of modules back
 * between its look at them and its records, so a test can unload one.
 */
static unsigned int test_dump_delay_ms;
module_param(test_dump_delay_ms, uint, 0644);
MODULE_PARM_DESC(test_dump_delay_ms, "Test builds: delay the dump of modules (ms)");
#endif

/* The GNU build-id note at @p, if one starts there; @avail bytes follow. */
static bool note_at(const u8 *p, unsigned long avail, struct mmap3_build_id *bid)
{
	const struct note_header *nh = (const void *)p;
	const u8 *name = p + sizeof(*nh);

	if (avail < sizeof(*nh) + 4 || nh->namesz != 4 || nh->type != ELF_BUILDID_NOTE_TYPE ||
	    memcmp(name, "GNU", 4) || !nh->descsz || nh->descsz > MMAP3_BUILD_ID_SIZE_MAX ||
	    nh->descsz > avail - sizeof(*nh) - 4)
		return false;
	bid->status = MMAP3_BUILDID_FOUND;
	bid->size = nh->descsz;
	memcpy(bid->data, name + 4, nh->descsz);
	return true;
}

/* Look for the note in the window of @size bytes at @off of [@base, +@total). */
static bool note_in_window(unsigned long base, unsigned long total, unsigned long off,
			   unsigned long size, u8 *win, struct mmap3_build_id *bid)
{
	unsigned long len = min(size + NOTE_MAX, total - off), i;

	if (copy_from_kernel_nofault(win, (void *)(base + off), len))
		return false;
	for (i = 0; i < size && i < len; i += 4)
		if (note_at(win + i, len - i, bid))
			return true;
	return false;
}

/*
 * mod->build_id needs CONFIG_STACKTRACE_BUILD_ID, which Debian does not
 * set, and the notes' sysfs files appear only after MODULE_STATE_COMING.
 * The notes are in the read-only data, aligned to 4: where the linker put
 * them first, .note.gnu.build-id opens it (Debian's own modules); other
 * links put the notes after .rodata, near its end.  So the first window,
 * then the others from the end back, then from the start on, up to
 * NOTE_SCAN_MAX from each end: a module whose note lies further is
 * MMAP3_BUILDID_LIMIT.  @win holds NOTE_WINDOW + NOTE_MAX bytes.
 */
static void module_build_id(const struct module *mod, u8 *win, struct mmap3_build_id *bid)
{
	unsigned long base, size, off, from, back, fwd;

	memset(bid, 0, sizeof(*bid));
	bid->status = MMAP3_BUILDID_NO_NOTE;
	mmap3_module_rodata(mod, &base, &size);
	if (!base || !win)
		return;
	size = round_down(size, 4);
	/* [0, fwd) is searched forwards, [back, size) backwards. */
	fwd = min(size, NOTE_SCAN_MAX);
	back = max(fwd, size > NOTE_SCAN_MAX ? size - NOTE_SCAN_MAX : 0);
	if (note_in_window(base, size, 0, min(fwd, NOTE_WINDOW), win, bid))
		return;
	for (off = size; off > back; off = from) {
		from = max(back, off > NOTE_WINDOW ? off - NOTE_WINDOW : 0);
		if (note_in_window(base, size, from, off - from, win, bid))
			return;
	}
	for (off = NOTE_WINDOW; off < fwd; off += NOTE_WINDOW)
		if (note_in_window(base, size, off, min(NOTE_WINDOW, fwd - off), win, bid))
			return;
	if (back > fwd)
		bid->status = MMAP3_BUILDID_LIMIT;
}

static void module_record(const struct module *mod, u32 type, u32 flags, u8 *win,
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
	module_build_id(mod, win, &rec->build_id);
}

static u8 *note_window_alloc(void)
{
	return kmalloc(NOTE_WINDOW + NOTE_MAX, GFP_KERNEL | __GFP_NOWARN);
}

static int mmap3_module_notify(struct notifier_block *nb, unsigned long state, void *data)
{
	struct mmap3_record_module rec;
	struct mmap3_time now;
	u8 *win;

	if (state != MODULE_STATE_COMING && state != MODULE_STATE_GOING)
		return NOTIFY_DONE;
	mmap3_time_now(&now);
	if (!mmap3_sink_any())
		return NOTIFY_DONE;
	/* Without a window, the record says NO_NOTE rather than not come. */
	win = note_window_alloc();
	module_record(data, state == MODULE_STATE_COMING ? MMAP3_RECORD_MODULE_LOAD :
		      MMAP3_RECORD_MODULE_UNLOAD, 0, win, &rec);
	kfree(win);
	mmap3_sink_module(&rec, &now);
	return NOTIFY_DONE;
}

static struct notifier_block mmap3_module_nb = {
	.notifier_call = mmap3_module_notify,
};

/*
 * The list of modules is not exported: walk it from our own entry under
 * RCU (free_module() unlinks with list_del_rcu() and waits a grace
 * period), skipping the list head, which lies in the kernel image, and
 * unformed modules.  Records are made under RCU into an array sized by a
 * first count, larger again if modules came meanwhile, and all stamped
 * with the walk's time: an unload reported live during the dump is later.
 * Each scan of a module's data takes a while, so every few modules the
 * walk leaves RCU (non-preemptible on 5.10) and reschedules, holding the
 * module it stands on: a live module held is not unloaded, it stays linked.
 * Only a live one: a module still coming is freed, held or not, if its
 * init fails.
 */
#define MODULES_PER_RCU_SECTION	8

void mmap3_modules_dump(struct mmap3_output *out)
{
	struct mmap3_record_module *recs;
	unsigned int n, cap = 0, i;
	struct mmap3_time when;
	struct module *mod;
	u8 *win = note_window_alloc();

	rcu_read_lock();
	list_for_each_entry_rcu(mod, &THIS_MODULE->list, list)
		cap++;
	rcu_read_unlock();
	for (;;) {
		cap += 16;
		recs = kvmalloc_array(cap, sizeof(*recs), GFP_KERNEL | __GFP_NOWARN);
		if (!recs) {
			mmap3_output_lost(out, MMAP3_LOST_NOMEM, cap);
			kfree(win);
			return;
		}
		n = 0;
		rcu_read_lock();
		mmap3_time_now(&when);
		list_for_each_entry_rcu(mod, &THIS_MODULE->list, list) {
			if (!mmap3_is_module_memory(mod) || mod->state == MODULE_STATE_UNFORMED)
				continue;
			if (n == cap)
				break;
			module_record(mod, MMAP3_RECORD_MODULE_LOAD, MMAP3_MODULE_DUMP, win,
				      &recs[n++]);
			if (n % MODULES_PER_RCU_SECTION || mod->state != MODULE_STATE_LIVE ||
			    !try_module_get(mod))
				continue;
			rcu_read_unlock();
			cond_resched();
			rcu_read_lock();
			/* Unlinked once put, it is not freed before this section ends. */
			module_put(mod);
		}
		if (n < cap)
			module_record(THIS_MODULE, MMAP3_RECORD_MODULE_LOAD, MMAP3_MODULE_DUMP,
				      win, &recs[n++]);
		rcu_read_unlock();
		if (n < cap)
			break;
		kvfree(recs);
	}
	kfree(win);
#ifdef MMAP3_TEST_HOOKS
	if (READ_ONCE(test_dump_delay_ms))
		msleep(READ_ONCE(test_dump_delay_ms));
#endif
	for (i = 0; i < n; i++)
		mmap3_output_module(out, &recs[i], &when, true);
	kvfree(recs);
}

int mmap3_modules_init(void)
{
	return register_module_notifier(&mmap3_module_nb);
}

void mmap3_modules_exit(void)
{
	unregister_module_notifier(&mmap3_module_nb);
}
