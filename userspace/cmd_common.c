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

/* Every file not captured, by cause: none goes unsaid. */
void capture_report_skipped(const struct capture_stats *c, const char *dir)
{
	const struct {
		uint64_t n;
		const char *why;
	} causes[] = {
		{ c->too_big, "larger than --capture-max-file" },
		{ c->over_total, "past --capture-max-total" },
		{ c->planted, "at names planted in the capture directory" },
		{ c->long_path, "with paths too long for it" },
		{ c->abandoned, "offered after capturing stopped" },
		{ c->backlog, "offered while " CAPTURE_QUEUE_MAX_TEXT " files waited to be copied" },
		{ c->refused, "the module gave no copy of (its capture_ids or handle limit, "
			      "or memory)" },
		{ c->denied, "of processes whose files the recording user may not read" },
		{ c->unreadable, "it may not read" },
		{ c->timed_out, "whose filesystem did not answer in time" },
		{ c->too_slow, "not read within --capture-max-seconds" },
		{ c->read_failed, "that could not be read" },
		{ c->short_id, "with a build-id too short for perf's cache" },
	};
	uint64_t total = 0;
	unsigned int i;
	char list[1024];
	size_t len = 0;

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

void kmod_add_running(struct kmod_index *kmods)
{
	char modules[sizeof(((struct utsname *)0)->release) + 16];
	struct utsname u;

	uname(&u);
	snprintf(modules, sizeof(modules), "/lib/modules/%s", u.release);
	kmod_add_dir(kmods, modules);	/* none is fine: nothing installed */
}
