// SPDX-License-Identifier: GPL-2.0
/*
 * userspace/session.c - a session of the module, from open to its last
 * record, for record, inject and buildid.
 */
#include <grp.h>
#include <limits.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "msg.h"
#include "session.h"

/*
 * Under sudo, copies are the invoking user's: the module offers and
 * reads only what they could read themselves (/proc/PID/map_files'
 * rules: their own processes' files, each readable by them).
 */
static int capture_as(struct session *s, uid_t uid, gid_t gid)
{
	struct passwd *pw = getpwuid(uid);
	int n = NGROUPS_MAX + 1, ret;
	gid_t *groups = calloc((size_t)n, sizeof(*groups));

	if (!groups) {
		msg_err("out of memory");
		return -1;
	}
	/* Their groups as login gives them; a uid with no name has its group alone. */
	if (!pw || getgrouplist(pw->pw_name, gid, groups, &n) < 0) {
		groups[0] = gid;
		n = 1;
	}
	ret = mmap3_device_set_capture_user(s->dev, uid, gid, groups, n);
	free(groups);
	return ret;
}

/*
 * Can the module read as the user captures are for?  Not under sudo, or
 * a module of ABI 2.4: yes; else nothing is captured (said).
 */
static int may_capture(const struct session *s)
{
	uid_t uid;
	gid_t gid;

	if (capture_sudo_user(&uid, &gid) || (s->ver.features & MMAP3_FEATURE_CAPTURE_USER))
		return 1;
	msg_warn("the loaded module (ABI %u.%u) cannot read files as uid %u, who ran sudo and "
		 "would own the copies: nothing is captured; load mmap3's own module "
		 "('modprobe -r mmap3 && modprobe mmap3')", s->ver.major, s->ver.minor,
		 (unsigned int)uid);
	return 0;
}

static int open_captures(struct session *s)
{
	const struct session_opts *o = s->o;
	int vdso_failed;

	if (capture_open(&s->cap, o->capture_dir))
		return -1;
	s->cap_open = 1;
	s->cap.by_file = !!(s->ver.features & MMAP3_FEATURE_CAPTURE_BY_FILE);
	if (s->cap.owner_uid != (uid_t)-1 && capture_as(s, s->cap.owner_uid, s->cap.owner_gid))
		return -1;
	s->cap.limits = o->capture_limits;
	s->cap.stored = o->capture_stored;
	s->cap.stored_arg = o->capture_stored_arg;
	if (o->capture_opened && o->capture_opened(o->capture_stored_arg, &s->cap))
		return -1;
	/*
	 * perf keeps the vdso in its cache: so does DIR, for perf
	 * --buildid-dir DIR.  Stored before the worker starts, so alone on
	 * @s->cap; failing (a full disk) costs what any capture's failure
	 * costs: the line said, later captures abandoned.
	 */
	vdso_failed = capture_store_vdso(&s->cap);
	if (capture_worker_start(&s->worker, &s->cap, s->dev))
		return -1;
	if (vdso_failed)
		capture_worker_abandon(&s->worker);
	return 0;
}

int session_open(struct session *s, const struct session_opts *o)
{
	struct mmap3_filter filter = o->filter;

	memset(s, 0, sizeof(*s));
	s->o = o;
	s->dev = o->load_module ? mmap3_device_open_loading(&s->ver) : mmap3_device_open(&s->ver);
	if (s->dev < 0)
		return -1;
	/* A module of ABI 2.1 or older knows only the processes themselves. */
	if ((filter.flags & MMAP3_FILTER_INHERIT) && s->ver.minor < 2) {
		filter.flags &= ~MMAP3_FILTER_INHERIT;
		msg_warn("the loaded module (ABI %u.%u) does not follow children: only the "
			 "processes themselves are recorded", s->ver.major, s->ver.minor);
	}
	s->capturing = o->capture_dir && may_capture(s);
	if (s->capturing)
		filter.flags |= MMAP3_FILTER_CAPTURE;
	else
		filter.flags &= ~MMAP3_FILTER_CAPTURE;
	/*
	 * A derived id (a Go program's) only where its copy is kept: perf
	 * reads no file for an id but one whose own note holds it, not even
	 * the file at the mapped path (docs/identity.md).
	 */
	if (s->capturing)
		filter.flags |= MMAP3_FILTER_DERIVED;
	if (!(s->ver.features & MMAP3_FEATURE_DERIVED_IDS))
		filter.flags &= ~MMAP3_FILTER_DERIVED;
	if (mmap3_device_setup(s->dev, &filter, o->clock, o->buffer_size) ||
	    mmap3_records_init(&s->records, s->dev))
		return -1;
	if (s->capturing && open_captures(s))
		return -1;
	if (o->side_path && side_open(&s->side, o->side_path, o->clock))
		return -1;
	if (!o->side_path && o->sink && side_open_sink(&s->side, o->sink, o->sink_arg))
		return -1;
	s->side_open = o->side_path || o->sink;
	s->side.kmods = o->kmods;
	return 0;
}

int session_enable(struct session *s)
{
	clock_gettime(CLOCK_MONOTONIC, &s->enabled);
	if (mmap3_device_enable(s->dev))
		return -1;
	/* Until the end, take what is there and come back. */
	mmap3_records_set_wait(&s->records, 0);
	return 0;
}

int session_next(struct session *s, const struct mmap3_record_header **h)
{
	return mmap3_records_next(&s->records, h);
}

/* Keep the .ko of a module that was loaded, if it was found. */
static void capture_module(struct session *s, const struct mmap3_record_module *m)
{
	const char *path;

	if (!s->worker.started)
		return;
	path = kmod_find(s->o->kmods, m->name, &m->build_id);
	if (path)
		capture_worker_file(&s->worker, path, &m->build_id);
}

int session_handle(struct session *s, const struct mmap3_record_header *h)
{
	const struct mmap3_record_mmap *m = (const void *)h;

	if (s->side_open && side_add_checked(&s->side, h, &s->records.mmap))
		return -1;
	if (h->type == MMAP3_RECORD_MMAP && m->capture) {
		/* Queued for the worker; the handle is given back if it is not running. */
		if (!s->worker.started ||
		    (s->o->capture_skip_pid && m->pid == (uint32_t)s->o->capture_skip_pid))
			mmap3_device_capture_release(s->dev, m->capture);
		else if (!s->o->capture_sink)
			capture_worker_mapping(&s->worker, m);
		else if (s->o->capture_sink(s->o->sink_arg, m))
			mmap3_device_capture_release(s->dev, m->capture);
	}
	if (h->type == MMAP3_RECORD_MODULE_LOAD)
		capture_module(s, (const void *)h);
	return 0;
}

void session_capture(struct session *s, const struct mmap3_record_mmap *m, int take)
{
	if (take && s->worker.started) {
		capture_worker_mapping(&s->worker, m);
		return;
	}
	if (take) {
		mmap3_device_capture_release(s->dev, m->capture);
		return;
	}
	/* A module before ABI 2.4 cannot forget: the handle is released. */
	if (mmap3_device_capture_forget(s->dev, m->capture))
		mmap3_device_capture_release(s->dev, m->capture);
	s->others++;
}

int session_take(struct session *s)
{
	const struct mmap3_record_header *h;
	int ret;

	while ((ret = session_next(s, &h)) > 0)
		if (session_handle(s, h))
			return -1;
	return ret < 0 ? -1 : 0;
}

static uint64_t ns(const struct timespec *t)
{
	return (uint64_t)t->tv_sec * 1000000000 + (uint64_t)t->tv_nsec;
}

/*
 * Read where user space can; else (perf's local clock) the session's
 * first record's time plus what CLOCK_MONOTONIC says has passed since
 * ENABLE, which the first record follows.
 */
uint64_t session_now(const struct session *s)
{
	struct timespec now;

	if (s->o->clock != MMAP3_CLOCK_LOCAL && !clock_gettime(s->o->clock, &now))
		return ns(&now);
	clock_gettime(CLOCK_MONOTONIC, &now);
	if (!s->side.first_time || ns(&now) < ns(&s->enabled))
		return 0;
	return s->side.first_time + (ns(&now) - ns(&s->enabled));
}

int session_finish_records(struct session *s, uint64_t now)
{
	if (s->side_open)
		side_session_end(&s->side, now);
	if (mmap3_device_disable(s->dev))
		return -1;
	/* Drained and disabled, read() returns 0: no need to poll, no spin. */
	mmap3_records_set_wait(&s->records, 1);
	while (!s->records.eof)
		if (session_take(s))
			return -1;
	return 0;
}

void session_finish_captures(struct session *s)
{
	struct mmap3_stats st;

	/* What was offered is copied before the session's handles go. */
	capture_worker_finish(&s->worker);
	s->cap.stats.others = s->others;
	/* Unknown is not none: said (by mmap3_device_stats()), and again at the end. */
	if (s->cap_open) {
		if (mmap3_device_stats(s->dev, &st)) {
			s->stats_failed = 1;
			return;
		}
		s->cap.stats.refused = st.captures_refused;
		s->cap.stats.denied = st.captures_denied;
	}
}

int session_finish(struct session *s, uint64_t now)
{
	if (session_finish_records(s, now))
		return -1;
	session_finish_captures(s);
	return 0;
}

int session_close_side(struct session *s)
{
	if (!s->side_open)
		return 0;
	s->side_open = 0;
	return side_close(&s->side);
}

void session_abandon(struct session *s)
{
	if (s->worker.started)
		capture_worker_abandon(&s->worker);
}

void session_close(struct session *s)
{
	/* What is still queued is released, not copied. */
	capture_worker_finish(&s->worker);
	s->cap.stats.backlog = atomic_load(&s->worker.backlog);
	if (s->side_open)
		side_abort(&s->side);
	s->side_open = 0;
	if (s->cap_open)
		capture_close(&s->cap);
	s->cap_open = 0;
	mmap3_records_free(&s->records);
	if (s->dev >= 0)
		close(s->dev);
	s->dev = -1;
}
