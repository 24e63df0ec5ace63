// SPDX-License-Identifier: GPL-2.0
/*
 * userspace/capture_worker.c - one thread copies the files mmap3 record
 * is offered, in the order offered, while the reader goes on reading.
 */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <time.h>
#include <unistd.h>

#include "capture_worker.h"
#include "device.h"
#include "msg.h"

struct capture_job {
	struct capture_job *next;
	uint32_t handle;		/* 0: a file read by path */
	struct mmap3_build_id bid;	/* for a file */
	/* A mapping's record as read, or a file's path. */
	size_t len;
	uint64_t rec[];
};

static void job_run(struct capture_worker *w, struct capture_job *j)
{
	const struct mmap3_record_mmap *m = (const void *)j->rec;
	int ret;

	if (atomic_load(&w->failed) || atomic_load(&w->cap->cancel)) {
		/* After a failure (a full disk), or stopped: release, counted. */
		if (j->handle)
			mmap3_device_capture_release(w->dev, j->handle);
		if (atomic_load(&w->cap->cancel))
			w->cap->stats.stopped++;
		else
			w->cap->stats.abandoned++;
		return;
	}
	ret = j->handle ? capture_store(w->cap, w->dev, m) :
	      capture_store_file(w->cap, (const char *)j->rec, &j->bid);
	if (ret)
		atomic_store(&w->failed, 1);
	atomic_store(&w->stored, w->cap->stats.stored);
}

static void *worker(void *arg)
{
	struct capture_worker *w = arg;
	struct capture_job *j;
	uint64_t one = 1;
	ssize_t n;

	for (;;) {
		pthread_mutex_lock(&w->lock);
		while (!w->head && !w->closing)
			pthread_cond_wait(&w->more, &w->lock);
		j = w->head;
		if (j) {
			w->head = j->next;
			if (!w->head)
				w->tail = NULL;
			w->queued--;
		}
		pthread_mutex_unlock(&w->lock);
		if (!j) {
			/* Closing, and nothing left: said to whoever waits. */
			n = write(w->done, &one, sizeof(one));
			(void)n;	/* an eventfd below its maximum takes it */
			return NULL;
		}
		job_run(w, j);
		free(j);
		atomic_fetch_add(&w->finished, 1);
		n = write(w->progress, &one, sizeof(one));
		(void)n;	/* a full eventfd is readable already */
	}
}

int capture_worker_start(struct capture_worker *w, struct capture *cap, int dev)
{
	int err;

	memset(w, 0, sizeof(*w));
	w->cap = cap;
	w->dev = dev;
	pthread_mutex_init(&w->lock, NULL);
	pthread_cond_init(&w->more, NULL);
	w->done = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	w->progress = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (w->done < 0 || w->progress < 0) {
		msg_err("eventfd: %s", strerror(errno));
		if (w->done >= 0)
			close(w->done);
		if (w->progress >= 0)
			close(w->progress);
		return -1;
	}
	err = pthread_create(&w->thread, NULL, worker, w);
	if (err) {
		msg_err("cannot start the capture thread: %s", strerror(err));
		close(w->done);
		close(w->progress);
		pthread_mutex_destroy(&w->lock);
		pthread_cond_destroy(&w->more);
		return -1;
	}
	w->started = 1;
	return 0;
}

/* Queue @j, or 0 if the queue is full (the caller drops it). */
static int enqueue(struct capture_worker *w, struct capture_job *j)
{
	int ok;

	pthread_mutex_lock(&w->lock);
	ok = w->queued < CAPTURE_QUEUE_MAX;
	if (ok) {
		j->next = NULL;
		if (w->tail)
			w->tail->next = j;
		else
			w->head = j;
		w->tail = j;
		w->queued++;
		w->offered++;
		pthread_cond_signal(&w->more);
	}
	pthread_mutex_unlock(&w->lock);
	return ok;
}

void capture_worker_mapping(struct capture_worker *w, const struct mmap3_record_mmap *m)
{
	struct capture_job *j = malloc(sizeof(*j) + m->header.size);

	if (j) {
		j->handle = m->capture;
		j->len = m->header.size;
		memcpy(j->rec, m, m->header.size);
		if (enqueue(w, j))
			return;
		free(j);
	}
	/* The worker may be counting too: the reader's own count, read at the end. */
	mmap3_device_capture_release(w->dev, m->capture);
	atomic_fetch_add(&w->backlog, 1);
}

void capture_worker_file(struct capture_worker *w, const char *path,
			 const struct mmap3_build_id *bid)
{
	size_t len = strlen(path) + 1;
	struct capture_job *j = malloc(sizeof(*j) + len);

	if (j) {
		j->handle = 0;
		j->bid = *bid;
		j->len = len;
		memcpy(j->rec, path, len);
		if (enqueue(w, j))
			return;
		free(j);
	}
	atomic_fetch_add(&w->backlog, 1);
}

void capture_worker_abandon(struct capture_worker *w)
{
	atomic_store(&w->failed, 1);
}

/* Nothing more comes: the worker stops once the queue is empty. */
static void closing(struct capture_worker *w)
{
	pthread_mutex_lock(&w->lock);
	w->closing = 1;
	pthread_cond_signal(&w->more);
	pthread_mutex_unlock(&w->lock);
}

int capture_worker_wait(struct capture_worker *w, int fd)
{
	struct pollfd pfd[2] = {
		{ .fd = w->done, .events = POLLIN },
		{ .fd = fd, .events = POLLIN },
	};

	if (!w->started)
		return 0;
	closing(w);
	for (;;) {
		if (poll(pfd, 2, -1) < 0 && errno != EINTR)
			return 0;
		if (pfd[0].revents)
			return 0;
		if (pfd[1].revents)
			return 1;
	}
}

uint64_t capture_worker_ticket(struct capture_worker *w)
{
	uint64_t t;

	if (!w->started)
		return 0;
	pthread_mutex_lock(&w->lock);
	t = w->offered;
	pthread_mutex_unlock(&w->lock);
	return t;
}

static int64_t now_ms(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (int64_t)t.tv_sec * 1000 + t.tv_nsec / 1000000;
}

int capture_worker_wait_ticket(struct capture_worker *w, uint64_t ticket, int fd, int timeout_ms)
{
	struct pollfd pfd[2] = {
		{ .fd = w->progress, .events = POLLIN },
		{ .fd = fd, .events = POLLIN },
	};
	int64_t end = now_ms() + timeout_ms;
	uint64_t count;

	if (!w->started)
		return 0;
	for (;;) {
		int64_t left = end - now_ms();
		ssize_t n;

		/* Read before looking: a job ending between the two wakes the poll. */
		n = read(w->progress, &count, sizeof(count));
		(void)n;	/* EAGAIN: nothing ended since */
		if (atomic_load(&w->finished) >= ticket)
			return 0;
		if (left <= 0)
			return 2;
		if (poll(pfd, fd >= 0 ? 2 : 1, (int)left) < 0 && errno != EINTR)
			return 2;
		if (fd >= 0 && pfd[1].revents)
			return 1;
	}
}

void capture_worker_cancel(struct capture_worker *w)
{
	if (w->started)
		atomic_store(&w->cap->cancel, 1);
}

void capture_worker_finish(struct capture_worker *w)
{
	if (!w->started)
		return;
	closing(w);
	pthread_join(w->thread, NULL);
	w->started = 0;
	close(w->done);
	close(w->progress);
	pthread_mutex_destroy(&w->lock);
	pthread_cond_destroy(&w->more);
}
