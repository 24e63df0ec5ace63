// SPDX-License-Identifier: GPL-2.0
/*
 * userspace/msg.c - the tool's messages: prefixed, escaped, one write()
 * a line (beside perf's own lines on the same terminal), under one lock.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "escape.h"
#include "msg.h"

#define MSG_PREFIX	"mmap3: "

/* @lock guards the status line's state and orders whole lines. */
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static int quiet;
static int status_drawn;

void msg_set_quiet(int q)
{
	quiet = q;
}

/* @len bytes at @p to standard error, whole, whatever signals come. */
static void write_all(const char *p, size_t len)
{
	while (len) {
		ssize_t n = write(STDERR_FILENO, p, len);

		if (n <= 0)
			return;	/* nowhere to say it */
		p += n;
		len -= (size_t)n;
	}
}

/* Erase the status line; with @lock held. */
static void status_erase(void)
{
	if (status_drawn)
		write_all("\r\033[K", 4);
	status_drawn = 0;
}

/*
 * The line: @head (ours, as it is), then the formatted text escaped.  An
 * escaped byte takes at most 6 (\u202e), so the line is built in memory
 * first and written at once.
 */
static void say(const char *head, const char *fmt, va_list ap)
{
	char *text = NULL, *line = NULL;
	size_t len = 0;
	FILE *f;

	if (vasprintf(&text, fmt, ap) < 0)
		text = NULL;
	f = open_memstream(&line, &len);
	if (f) {
		fputs(MSG_PREFIX, f);
		fputs(head, f);
		if (text)
			escape_text(f, text, strlen(text));
		else
			fputs("(no memory for the message)", f);
		fputc('\n', f);
		if (fclose(f))
			line = NULL;
	}
	pthread_mutex_lock(&lock);
	status_erase();
	if (line)
		write_all(line, len);
	pthread_mutex_unlock(&lock);
	free(line);
	free(text);
}

void msg_verr(const char *fmt, va_list ap)
{
	say("", fmt, ap);
}

void msg_err(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	say("", fmt, ap);
	va_end(ap);
}

void msg_warn(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	say("WARNING: ", fmt, ap);
	va_end(ap);
}

void msg_info(const char *fmt, ...)
{
	va_list ap;

	if (quiet)
		return;
	va_start(ap, fmt);
	say("", fmt, ap);
	va_end(ap);
}

void msg_status(const char *fmt, ...)
{
	char text[256];
	va_list ap;
	int n;

	if (quiet || pthread_mutex_trylock(&lock))
		return;
	va_start(ap, fmt);
	n = vsnprintf(text, sizeof(text), fmt, ap);
	va_end(ap);
	if (n > 0) {
		write_all("\r" MSG_PREFIX, 1 + strlen(MSG_PREFIX));
		write_all(text, (size_t)n < sizeof(text) ? (size_t)n : sizeof(text) - 1);
		write_all("\033[K", 3);
		status_drawn = 1;
	}
	pthread_mutex_unlock(&lock);
}

void msg_status_clear(void)
{
	pthread_mutex_lock(&lock);
	status_erase();
	pthread_mutex_unlock(&lock);
}
