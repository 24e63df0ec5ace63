// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target for mmap3 inject (userspace/inject.c): the input,
 * after a byte of options, is perf's stream, read from a pipe as inject
 * reads standard input, while the stand-in device (tests/host/
 * fake_device.c) gives the session mappings of its own process.  This
 * reaches what the stream reader lets through into inject's rounds,
 * matching, placing of mmap3's records, the stream's host and both
 * outputs.  A run that succeeds in file mode must leave a perf.data the
 * reader takes, with every record of the stream that was whole.  Run by
 * tests/fuzz/run, with -close_fd_mask=2 for the tool's error lines.
 *
 * The options byte: bit 0, -o FILE (else the pipe, to /dev/null); bit 1,
 * --all-processes.
 */
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "inject.h"
#include "perf/reader.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerInitialize(int *argc, char ***argv);

static char dir[] = "/tmp/mmap3-inject-fuzz.XXXXXX", out[64], stream[64];
static struct kmod_index kmods;
static int null_fd, saved_stdin, saved_stdout;

static void clean_up(void)
{
	unlink(out);
	unlink(stream);
	rmdir(dir);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc, (void)argv;
	/* The stand-in's session: mappings of process 4242, a thousand a second. */
	setenv("MMAP3_FAKE", "rate=1000", 1);
	if (!mkdtemp(dir))
		abort();
	snprintf(out, sizeof(out), "%s/out.data", dir);
	snprintf(stream, sizeof(stream), "%s/stream.data", dir);
	null_fd = open("/dev/null", O_WRONLY | O_CLOEXEC);
	saved_stdin = dup(0);
	saved_stdout = dup(1);
	if (null_fd < 0 || saved_stdin < 0 || saved_stdout < 0)
		abort();
	atexit(clean_up);
	return 0;
}

/* Records of the data section, not a stream's header records: -1 if it is not read whole. */
static long count(const char *path, int as_stream)
{
	struct perf_reader r;
	struct perf_rec rec;
	long n = 0;
	int ret, fd;

	if (as_stream) {
		fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0 || perf_reader_open_stream(&r, fd, path, NULL, NULL))
			return -1;
	} else if (perf_reader_open(&r, path)) {
		return -1;
	}
	while ((ret = perf_reader_next(&r, &rec)) > 0)
		n += !rec.in_header;
	/* A stream cut inside a record: inject keeps what came before it. */
	if (ret < 0 && (!as_stream || !r.truncated))
		n = -1;
	perf_reader_close(&r);
	return n;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct inject_opts o = { .kmods = &kmods };
	struct inject_stats st;
	int p[2], ret, fd;
	long in;

	if (size < 1 || pipe2(p, O_CLOEXEC))
		return 0;
	/* The whole input fits in the pipe: written, then its end closed. */
	fcntl(p[1], F_SETPIPE_SZ, 1 << 20);
	if (write(p[1], data + 1, size - 1) != (ssize_t)(size - 1))
		abort();
	close(p[1]);
	dup2(p[0], 0);
	close(p[0]);
	dup2(null_fd, 1);
	o.output = data[0] & 1 ? out : NULL;
	o.all_processes = !!(data[0] & 2);
	unlink(out);
	ret = inject_run(&o, &st);
	dup2(saved_stdin, 0);
	dup2(saved_stdout, 1);
	if (ret || !o.output)
		return 0;
	/* perf's every whole record is there, and mmap3's added ones. */
	fd = open(stream, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd < 0 || write(fd, data + 1, size - 1) != (ssize_t)(size - 1))
		abort();
	close(fd);
	in = count(stream, 1);
	if (in < 0 || count(out, 0) != in + (long)st.added)
		abort();
	return 0;
}
