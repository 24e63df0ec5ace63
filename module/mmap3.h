/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Declarations shared between the files of the mmap3 module.
 */
#ifndef MMAP3_MODULE_H
#define MMAP3_MODULE_H

#include <linux/atomic.h>
#include <linux/fs.h>
#include <linux/hashtable.h>
#include <linux/mutex.h>
#include <linux/xarray.h>
#include <linux/mmap3.h>
#include <linux/pid.h>
#include <linux/time64.h>
#include <linux/types.h>

struct mmap3_session;

/*
 * What says an inode is unchanged since its build-id was read: plain
 * loads, so the hook can take it at mmap time.
 */
struct mmap3_inode_state {
	loff_t size;
	struct timespec64 mtime;
	struct timespec64 ctime;
	u64 iversion;
	bool has_iversion;
};

void mmap3_inode_state(struct inode *inode, struct mmap3_inode_state *st);

/*
 * A file mapping seen by the hook, queued for the worker.  Holds a
 * reference to the file and to the task's pids until it is resolved.
 */
struct mmap3_event {
	u64 time_local;			/* local_clock() */
	u64 time_mono;			/* ktime_get_mono_fast_ns() */
	u64 time_raw;			/* ktime_get_raw_fast_ns() */
	struct file *file;
	struct mmap3_inode_state state;	/* of the file at mmap time */
	struct pid *tgid;
	struct pid *pid;
	unsigned long start;
	unsigned long len;
	unsigned long pgoff;
	u32 cpu;
	u32 prot;			/* PROT_* */
	u32 flags;			/* MMAP3_MMAP_* */
};

/* What the records say about a mapped file. */
struct mmap3_file_info {
	u32 dev_major;
	u32 dev_minor;
	u64 ino;
	u32 generation;
	struct timespec64 mtime;
	struct mmap3_build_id build_id;
};

/*
 * A session's captured files (keep.c).  lock protects all of it; taken in
 * process context only, never with a session's spinlock held.
 */
struct mmap3_keep {
	struct mutex lock;		/* see above */
	struct xarray handles;		/* handle -> struct file * */
	unsigned int nr;		/* handles held */
	DECLARE_HASHTABLE(seen, 8);	/* build-ids offered */
};

void mmap3_keep_init(struct mmap3_keep *k);
void mmap3_keep_destroy(struct mmap3_keep *k);
u32 mmap3_keep_offer(struct mmap3_keep *k, struct file *file,
		     const struct mmap3_build_id *bid);
void mmap3_keep_withdraw(struct mmap3_keep *k, u32 handle);
long mmap3_keep_read(struct mmap3_keep *k, void __user *uarg);
long mmap3_keep_release(struct mmap3_keep *k, u32 __user *uarg);

/* device.c */
int mmap3_device_register(void);
void mmap3_device_unregister(void);

/* session.c */
int mmap3_copy_struct_from_user(void *dst, size_t ksize, const void __user *src,
				size_t min_size, u32 *usize);
struct mmap3_session *mmap3_session_create(void);
void mmap3_session_destroy(struct mmap3_session *s);
long mmap3_session_ioctl(struct mmap3_session *s, unsigned int cmd, void __user *uarg);
ssize_t mmap3_session_read(struct mmap3_session *s, char __user *buf, size_t count,
			   bool nonblock);
__poll_t mmap3_session_poll(struct mmap3_session *s, struct file *file,
			    struct poll_table_struct *wait);
bool mmap3_sessions_any(void);
void mmap3_sessions_deliver_mmap(const struct mmap3_event *ev,
				 struct mmap3_record_mmap *rec);
void mmap3_sessions_deliver_module(struct mmap3_record_module *rec);
void mmap3_sessions_wake(void);
bool mmap3_session_emit_mmap(struct mmap3_session *s, const struct mmap3_event *ev,
			     struct mmap3_record_mmap *rec);
bool mmap3_session_emit_module(struct mmap3_session *s, struct mmap3_record_module *rec);
bool mmap3_session_emit(struct mmap3_session *s, struct mmap3_record_header *rec);
bool mmap3_session_emit_now(struct mmap3_session *s, struct mmap3_record_header *rec);
void mmap3_now(struct mmap3_event *ev);
bool mmap3_session_wants_data(const struct mmap3_session *s);

/* hook.c: the mmap hook and the queue between it and the worker */
int mmap3_hook_init(void);
void mmap3_hook_exit(void);
int mmap3_hook_get(bool data);
void mmap3_hook_put(bool data);
void mmap3_hook_flush(void);
u64 mmap3_hook_pending(void);
u64 mmap3_hook_lost(void);

/* capture.c: from a file to a record */
struct mmap3_record_mmap *mmap3_record_mmap_alloc(void);
int mmap3_record_mmap_fill(struct mmap3_record_mmap *rec, const struct mmap3_event *ev);

/* cache.c: per-inode build-id cache */
int mmap3_cache_init(void);
void mmap3_cache_exit(void);
void mmap3_cache_build_id(struct file *file, const struct mmap3_inode_state *at_mmap,
			  struct mmap3_build_id *bid, bool *changed);
void mmap3_cache_stats(struct mmap3_stats *st);

/* kernel.c: the running kernel and its modules */
int mmap3_kernel_init(void);
void mmap3_kernel_exit(void);
int mmap3_kernel_dump(struct mmap3_session *s);

/* dump.c: executable mappings of existing processes */
int mmap3_dump_processes(struct mmap3_session *s, struct pid_namespace *ns, bool data);

#endif /* MMAP3_MODULE_H */
