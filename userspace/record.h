/* SPDX-License-Identifier: GPL-2.0 */
/*
 * userspace/record.h - mmap3 record's session: the device's records into
 * a side file, beside a command (perf record), in one poll() loop.
 */
#ifndef MMAP3_RECORD_H
#define MMAP3_RECORD_H

#include <linux/mmap3.h>
#include <signal.h>
#include <stdint.h>

#include "capture.h"
#include "kmod.h"
#include "side.h"

struct record_opts {
	const char *output;		/* the side file */
	const char *capture_dir;	/* NULL: no --capture */
	struct capture_limits capture_limits;
	struct mmap3_filter filter;
	int clock;			/* MMAP3_CLOCK_LOCAL or a clockid */
	uint64_t buffer_size;		/* 0: the module's default */
	struct kmod_index *kmods;
	char **argv;			/* the command, NULL: until a signal */
	/*
	 * Record the command and its descendants only (its pid filtered,
	 * with MMAP3_FILTER_INHERIT, before it runs); its own mappings are
	 * not captured: the command is perf, its children what it records.
	 */
	int follow_command;
	/*
	 * Return with the stop signals still blocked (res->old_mask the mask
	 * before): what follows the recording (the merge) takes them.
	 */
	int hold_signals;
	int status_line;		/* show progress on stderr */
	int quiet;			/* warnings and errors only */
};

struct record_result {
	struct side_stats side;
	struct capture_stats capture;
	int capture_failed;		/* stopped capturing after an error (printed) */
	int stats_failed;		/* the module's statistics could not be read */
	int have_child;
	int child_status;		/* as from waitpid() */
	int tail_signals;		/* stop signals after the command was reaped */
	sigset_t old_mask;
};

/*
 * Record until the command exits (and has been reaped) or, without one,
 * until SIGINT, SIGTERM, SIGHUP or SIGPIPE.  Signals sent to mmap3 alone
 * are passed on to the command, once; those the terminal sends its whole
 * process group (Ctrl-C, a hangup) reached it already.  Returns 0 with
 * the side file written, or -1 after printing why; either way only once
 * the command has exited: losing the side file is no reason to lose the
 * user's own perf record.
 */
int record_run(const struct record_opts *o, struct record_result *res);

#endif /* MMAP3_RECORD_H */
