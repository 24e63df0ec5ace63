// SPDX-License-Identifier: GPL-2.0
/*
 * A program that burns CPU in a function whose name says which build it
 * is: built twice (spin_v1, spin_v2) for the replaced-executable tests.
 *
 *   spin_vN [MILLISECONDS]     default 1000
 */
#include <stdlib.h>
#include <time.h>

#define CAT(a, b) a##b
#define SPIN_FN(v) CAT(spin_version_, v)

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

__attribute__((noinline)) unsigned long SPIN_FN(SPIN_VERSION)(double seconds)
{
	volatile unsigned long n = 0;
	double end = now() + seconds;

	while (now() < end)
		for (int i = 0; i < 100000; i++)
			n += i;
	return n;
}

int main(int argc, char **argv)
{
	SPIN_FN(SPIN_VERSION)((argc > 1 ? atoi(argv[1]) : 1000) / 1000.0);
	return 0;
}
