// SPDX-License-Identifier: GPL-2.0
/*
 * A shared library that burns CPU in a function whose name says which
 * build it is: built twice (libspin_v1.so, libspin_v2.so), both with the
 * soname libspin.so, for the replaced-library test.  spin_lib calls it.
 */
#include <time.h>

#define CAT(a, b) a##b
#define LIB_FN(v) CAT(lib_version_, v)

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static __attribute__((noinline)) unsigned long LIB_FN(LIB_VERSION)(double seconds)
{
	volatile unsigned long n = 0;
	double end = now() + seconds;

	while (now() < end)
		for (int i = 0; i < 100000; i++)
			n += i;
	return n;
}

/* The one entry point, the same in every build. */
unsigned long lib_spin(double seconds)
{
	return LIB_FN(LIB_VERSION)(seconds);
}
