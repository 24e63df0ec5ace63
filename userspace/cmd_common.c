// SPDX-License-Identifier: GPL-2.0
/*
 * userspace/cmd_common.c - what record and inject share on the command
 * line and in their summaries.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>

#include "capture_worker.h"
#include "cmd_common.h"
#include "msg.h"

/* A size with an optional k, M or G suffix; 0, or -1 if it is none. */
int parse_size(const char *s, uint64_t *out)
{
	unsigned int shift = 0;
	char *end;

	errno = 0;
	*out = strtoull(s, &end, 0);
	if (end == s || errno || *s == '-')
		return -1;
	if (*end == 'k' || *end == 'K')
		shift = 10, end++;
	else if (*end == 'm' || *end == 'M')
		shift = 20, end++;
	else if (*end == 'g' || *end == 'G')
		shift = 30, end++;
	if (*end || (shift && *out > UINT64_MAX >> shift))
		return -1;
	*out <<= shift;
	return 0;
}

/*
 * Files that claimed build-ids stored from others (capture_claims.h):
 * whose copy a user's perf report will read.
 */
static void capture_report_claims(const struct capture_stats *c)
{
	if (c->not_root)
		msg_info("%llu files stored from files root did not own alone (a user's "
			 "build), %llu of them replaced by a root-owned file claiming the same "
			 "build-id", (unsigned long long)c->not_root,
			 (unsigned long long)c->replaced);
	if (c->claimed)
		msg_info("%llu more files claimed build-ids already stored, and were not stored",
			 (unsigned long long)c->claimed);
}

/* Every file not captured, by cause: none goes unsaid. */
void capture_report_skipped(const struct capture_stats *c, const char *dir)
{
	char denied[96], unreadable[64];
	uid_t uid;
	gid_t gid;
	const struct {
		uint64_t n;
		const char *why;
	} causes[] = {
		{ c->too_big, "larger than --capture-max-file" },
		{ c->over_total, "past --capture-max-total" },
		{ c->over_files, "past --capture-max-files" },
		{ c->planted, "at names planted in the capture directory" },
		{ c->long_path, "with paths too long or deep for it" },
		{ c->abandoned, "offered after capturing stopped" },
		{ c->stopped, "given up at a stop signal" },
		{ c->backlog, "offered while " CAPTURE_QUEUE_MAX_TEXT " files waited to be copied" },
		{ c->refused, "the module gave no copy of (its capture_ids or handle limit, "
			      "or memory)" },
		{ c->denied, denied },
		{ c->unreadable, unreadable },
		{ c->timed_out, "whose filesystem did not answer in time" },
		{ c->too_slow, "not read within --capture-max-seconds" },
		{ c->read_failed, "that could not be read" },
		{ c->short_id, "with a build-id too short for perf's cache" },
		{ c->no_note, "with a derived build-id and section headers it cannot be added to" },
	};
	uint64_t total = 0;
	unsigned int i;
	char list[1024];
	size_t len = 0;

	capture_report_claims(c);

	/* Under sudo, the module judges as the user who ran it (session.c). */
	if (!capture_sudo_user(&uid, &gid)) {
		snprintf(denied, sizeof(denied), "of processes whose files uid %u (who ran sudo) "
			 "may not read", (unsigned int)uid);
		snprintf(unreadable, sizeof(unreadable), "uid %u (who ran sudo) may not read",
			 (unsigned int)uid);
	} else {
		snprintf(denied, sizeof(denied), "of processes whose files the recording user "
			 "may not read");
		snprintf(unreadable, sizeof(unreadable), "it may not read");
	}
	for (i = 0; i < sizeof(causes) / sizeof(causes[0]); i++)
		total += causes[i].n;
	if (!total)
		return;
	list[0] = '\0';
	for (i = 0; i < sizeof(causes) / sizeof(causes[0]); i++)
		if (causes[i].n && len < sizeof(list))
			len += (size_t)snprintf(list + len, sizeof(list) - len, "%s %llu %s",
						len ? "," : "", (unsigned long long)causes[i].n,
						causes[i].why);
	msg_warn("%llu files not captured in %s:%s", (unsigned long long)total, dir, list);
}

int option_size(const char *opt, const char *arg, uint64_t *out)
{
	if (parse_size(arg, out)) {
		msg_err("--%s %s: not a size", opt, arg);
		return 2;
	}
	/* What the module takes, said here rather than as its EINVAL. */
	if (!strcmp(opt, "buffer-size") && (*out < MMAP3_BUFFER_SIZE_MIN ||
					   *out > MMAP3_BUFFER_SIZE_MAX || (*out & (*out - 1)))) {
		msg_err("--buffer-size %s: expected a power of two from 64k to 1G", arg);
		return 2;
	}
	return 0;
}

int option_seconds(const char *opt, const char *arg, uint64_t *out)
{
	char *end;

	errno = 0;
	*out = strtoull(arg, &end, 10);
	if (end == arg || *end || errno || *arg == '-' || *out > 86400 * 365) {
		msg_err("--%s %s: not a number of seconds", opt, arg);
		return 2;
	}
	return 0;
}

int option_module_dir(struct kmod_index *kmods, const char *arg)
{
	if (kmod_add_dir(kmods, arg)) {
		msg_err("--module-dir %s: %s", arg,
			errno == E2BIG ? "too many directories" : strerror(errno));
		return 2;
	}
	return 0;
}

void capture_limits_usage(FILE *f)
{
	fprintf(f,
		"      --capture-max-file N   capture no file larger than N bytes (k, M, G\n"
		"                        suffixes; 0 in any of these: no limit; default %lluM)\n"
		"      --capture-max-total N  capture at most N bytes in all (default %lluG)\n"
		"      --capture-max-files N  make at most N files, links and directories\n"
		"                        in the capture directory (default %llu)\n"
		"      --capture-max-seconds N  give up a file not read in N seconds\n"
		"                        (default %d)\n",
		CAPTURE_MAX_FILE >> 20, CAPTURE_MAX_TOTAL >> 30,
		(unsigned long long)CAPTURE_MAX_FILES, CAPTURE_MAX_SECONDS);
}

int option_capture_limit(int opt, const char *arg, struct capture_limits *l)
{
	char *end;

	switch (opt) {
	case OPT_CAPTURE_MAX_FILE:
		return option_size("capture-max-file", arg, &l->max_file);
	case OPT_CAPTURE_MAX_TOTAL:
		return option_size("capture-max-total", arg, &l->max_total);
	case OPT_CAPTURE_MAX_SECONDS:
		return option_seconds("capture-max-seconds", arg, &l->max_seconds);
	}
	errno = 0;
	l->max_files = strtoull(arg, &end, 10);
	if (end == arg || *end || errno || *arg == '-') {
		msg_err("--capture-max-files %s: not a number", arg);
		return 2;
	}
	return 0;
}

/* The process (tgid) of thread @tid, from /proc; 0 if it is not there. */
static long tgid_of(long tid)
{
	char path[64], line[128];
	long tgid = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%ld/status", tid);
	f = fopen(path, "re");
	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "Tgid: %ld", &tgid) == 1)
			break;
	fclose(f);
	return tgid;
}

int parse_pid_list(const char *what, const char *list, int threads, struct mmap3_filter *f)
{
	const char *p;
	char *end;
	long pid;
	uint32_t i;

	for (p = list; ; p = end + 1) {
		errno = 0;
		pid = strtol(p, &end, 10);
		if (end == p || (*end && *end != ',') || errno || pid <= 0 || pid > INT32_MAX) {
			msg_err("%s %s: not a list of %s ids", what, list,
				threads ? "thread" : "process");
			return -1;
		}
		if (threads && !(pid = tgid_of(pid))) {
			msg_err("%s %s: thread %.*s is not there", what, list, (int)(end - p), p);
			return -1;
		}
		for (i = 0; i < f->nr_pids && f->pids[i] != pid; i++)
			;
		if (i == f->nr_pids) {
			if (f->nr_pids == MMAP3_FILTER_MAX_PIDS) {
				msg_err("%s %s: at most %d processes", what, list,
					MMAP3_FILTER_MAX_PIDS);
				return -1;
			}
			f->pids[f->nr_pids++] = (int)pid;
		}
		if (!*end)
			return 0;
	}
}

void kmod_add_running(struct kmod_index *kmods)
{
	char modules[sizeof(((struct utsname *)0)->release) + 16];
	struct utsname u;

	uname(&u);
	snprintf(modules, sizeof(modules), "/lib/modules/%s", u.release);
	kmod_add_dir(kmods, modules);	/* none is fine: nothing installed */
}
