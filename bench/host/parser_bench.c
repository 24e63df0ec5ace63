// SPDX-License-Identifier: GPL-2.0
/*
 * Benchmark 6, in-process: the time lib/elf_buildid.c and libelf take
 * to find the build-id of each ELF file named on stdin, warm cache.
 *
 *   parser_bench [--runs N] < LIST
 *   parser_bench --list < LIST        print the regular ELF files of LIST
 *
 * The ways take turns over chunks of 64 files (the order rotating), each
 * opening the files itself; the open is outside the timing; the timed part
 * is what a caller holding an fd does: fstat and parse for the mmap3
 * parser, elf_begin .. elf_end for libelf (which does its own fstat),
 * with ELF_C_READ_MMAP and with ELF_C_READ, so the ratio can be taken
 * against libelf's faster mode.  One warm-up pass first (page cache,
 * dentries, libelf's lazy setup).  Every run compares every result with
 * both libelf modes.  Prints, per run:
 *
 *   run I files N mmap3 S libelf_mmap S libelf_read S mismatches M
 *       mmap3_small S floor S reads R reads_small R
 *
 * in seconds summed over the files: mmap3 is the parser with a 64 KB
 * window (elf_buildid_parse_buf), mmap3_small with its own 256-byte one
 * (elf_buildid_parse, the module's), floor an fstat and one 2 KB pread
 * per file; reads are the parser's read calls.  Then
 *
 *   split I one_read N mmap3 S libelf_read S more_reads N mmap3 S libelf_read S
 *
 * the same times for the files the parser read in one call and the rest,
 * and last
 *
 *   best files N mmap3 S libelf_mmap S libelf_read S mmap3_small S floor S
 *
 * each file's fastest run summed, which other work on the machine
 * disturbs least.  Exits 1 on any mismatch.
 */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "elf_buildid.h"
#include "libelf_buildid.h"

/*
 * OURS: elf_buildid_parse_buf() with the large window (what the tool
 * uses); SMALL: elf_buildid_parse(), its 256-byte window on the stack
 * (what the module uses, and what everything used before); FLOOR: fstat
 * and one 2 KB pread at offset 0, what any parser reading through an fd
 * pays at least.
 */
enum { OURS, SMALL, LIBELF_MMAP, LIBELF_READ, FLOOR, NR_WAYS };

/* Files per turn of each way. */
#define CHUNK	64

struct result {
	double t[NR_WAYS];
	double best[NR_WAYS];	/* the fastest of the runs so far */
	unsigned long reads;	/* by OURS */
	struct elf_buildid bid, small;
	struct libelf_id id[2];	/* LIBELF_MMAP, LIBELF_READ */
};

/* Reads by the parser, by way, in the current run. */
static unsigned long reads[NR_WAYS];
static int counting;

/* The parser's window: one read finds most ids, few read a section table. */
static unsigned char win[WIN_SIZE];

static long fd_read(void *ctx, void *buf, size_t len, __u64 off)
{
	ssize_t n = pread(*(int *)ctx, buf, len, (off_t)off);

	reads[counting]++;

	return n < 0 ? -errno : n;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static int same(const struct elf_buildid *b, const struct libelf_id *id)
{
	if (id->found != (b->status == MMAP3_BUILDID_FOUND))
		return 0;
	return !id->found || (id->size == b->size && !memcmp(id->bytes, b->id, id->size));
}

/* Keep the regular ELF files of the list. */
static char **load(size_t *nr)
{
	char **v = NULL, *line = NULL;
	size_t n = 0, cap = 0, lcap = 0;
	ssize_t len;

	while ((len = getline(&line, &lcap, stdin)) > 0) {
		unsigned char magic[4];
		struct stat st;
		int fd;

		if (line[len - 1] == '\n')
			line[len - 1] = 0;
		fd = open(line, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
		if (fd < 0)
			continue;
		if (!fstat(fd, &st) && S_ISREG(st.st_mode) && pread(fd, magic, 4, 0) == 4 &&
		    !memcmp(magic, "\177ELF", 4)) {
			if (n == cap) {
				cap = cap ? 2 * cap : 1024;
				v = realloc(v, cap * sizeof(*v));
				if (!v)
					exit(2);
			}
			v[n++] = strdup(line);
		}
		close(fd);
	}
	free(line);
	*nr = n;
	return v;
}


/*
 * One pass of one way over @nr files: time summed over the files, the
 * open outside it.  Each way opens the files itself, so none parses
 * through an fd another has just used.
 */
static double pass(int way, char **files, size_t nr, struct result *res)
{
	double total = 0;
	size_t i;

	for (i = 0; i < nr; i++) {
		int fd = open(files[i], O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
		struct stat st;
		double t0;

		if (fd < 0) {
			res[i].bid.status = MMAP3_BUILDID_IO_ERROR;
			continue;
		}
		unsigned long before = reads[OURS];

		counting = way;
		t0 = now();
		if (way == OURS) {
			if (!fstat(fd, &st))
				elf_buildid_parse_buf(fd_read, &fd, (__u64)st.st_size, &res[i].bid,
						      win, sizeof(win));
		} else if (way == SMALL) {
			if (!fstat(fd, &st))
				elf_buildid_parse(fd_read, &fd, (__u64)st.st_size, &res[i].small);
		} else if (way == FLOOR) {
			if (!fstat(fd, &st))
				fd_read(&fd, win, 2048, 0);
		} else {
			libelf_buildid_cmd(fd, way == LIBELF_MMAP ? ELF_C_READ_MMAP : ELF_C_READ,
					   &res[i].id[way - LIBELF_MMAP]);
		}
		res[i].t[way] = now() - t0;
		total += res[i].t[way];
		if (way == OURS)
			res[i].reads = reads[OURS] - before;
		close(fd);
	}
	return total;
}

int main(int argc, char **argv)
{
	int runs = 5, run, k, bad = 0;
	struct result *res;
	char **files;
	size_t nr, i, c;

	if (argc == 3 && !strcmp(argv[1], "--runs")) {
		runs = atoi(argv[2]);
	} else if (argc == 2 && !strcmp(argv[1], "--list")) {
		runs = -1;
	} else if (argc != 1) {
		fprintf(stderr, "usage: parser_bench [--runs N | --list] < LIST\n");
		return 2;
	}
	elf_version(EV_CURRENT);
	files = load(&nr);
	/* The ELF files of the list, for the whole-process figures. */
	if (runs < 0) {
		for (i = 0; i < nr; i++)
			printf("%s\n", files[i]);
		return 0;
	}
	res = calloc(nr ? nr : 1, sizeof(*res));
	if (!res)
		return 2;
	/* Run 0 is the warm-up: checked, not reported. */
	for (run = 0; run <= runs; run++) {
		double t[NR_WAYS];
		unsigned long mismatches = 0;

		for (i = 0; i < nr; i++) {
			double best[NR_WAYS];

			memcpy(best, res[i].best, sizeof(best));
			memset(&res[i], 0, sizeof(res[i]));
			memcpy(res[i].best, best, sizeof(best));
		}
		memset(reads, 0, sizeof(reads));
		/*
		 * The ways take turns over chunks of files, so a burst of other
		 * work on the machine hits them all alike; which goes first
		 * rotates, against any order effect.
		 */
		memset(t, 0, sizeof(t));
		for (c = 0; c < nr; c += CHUNK) {
			size_t n = nr - c < CHUNK ? nr - c : CHUNK;

			for (k = 0; k < NR_WAYS; k++) {
				int way = (int)((run + c / CHUNK + k) % NR_WAYS);

				t[way] += pass(way, files + c, n, res + c);
			}
		}
		for (i = 0; i < nr; i++) {
			if (same(&res[i].bid, &res[i].id[0]) && same(&res[i].bid, &res[i].id[1]) &&
			    same(&res[i].small, &res[i].id[0]))
				continue;
			if (!run || mismatches < 10)
				fprintf(stderr, "parser_bench: %s: results differ\n", files[i]);
			mismatches++;
		}
		bad |= mismatches != 0;
		for (i = 0; run && i < nr; i++)
			for (k = 0; k < NR_WAYS; k++)
				if (run == 1 || res[i].t[k] < res[i].best[k])
					res[i].best[k] = res[i].t[k];
		/* Files the parser read once, and the others. */
		{
			double one[2] = { 0 }, more[2] = { 0 };
			size_t n1 = 0;

			for (i = 0; i < nr; i++) {
				double *d = res[i].reads == 1 ? one : more;

				n1 += res[i].reads == 1;
				d[0] += res[i].t[OURS];
				d[1] += res[i].t[LIBELF_READ];
			}
			if (run)
				printf("split %d one_read %zu mmap3 %.6f libelf_read %.6f more_reads %zu "
				       "mmap3 %.6f libelf_read %.6f\n", run, n1, one[0], one[1], nr - n1,
				       more[0], more[1]);
		}
		if (run)
			printf("run %d files %zu mmap3 %.6f libelf_mmap %.6f libelf_read %.6f "
			       "mismatches %lu mmap3_small %.6f floor %.6f reads %lu reads_small %lu\n",
			       run, nr, t[OURS], t[LIBELF_MMAP], t[LIBELF_READ], mismatches, t[SMALL],
			       t[FLOOR], reads[OURS], reads[SMALL]);
		fflush(stdout);
	}
	/* Each file's fastest run, summed: what the machine's other work spares. */
	{
		double b[NR_WAYS] = { 0 };

		for (i = 0; i < nr; i++)
			for (k = 0; k < NR_WAYS; k++)
				b[k] += res[i].best[k];
		printf("best files %zu mmap3 %.6f libelf_mmap %.6f libelf_read %.6f mmap3_small %.6f "
		       "floor %.6f\n", nr, b[OURS], b[LIBELF_MMAP], b[LIBELF_READ], b[SMALL], b[FLOOR]);
	}
	for (i = 0; i < nr; i++)
		free(files[i]);
	free(files);
	free(res);
	return bad;
}
