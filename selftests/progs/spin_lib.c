// SPDX-License-Identifier: GPL-2.0
/*
 * Burns CPU in libspin.so, whichever build the loader maps:
 *
 *   spin_lib MILLISECONDS [READY]
 *
 * creates the file READY once running, that is once libspin.so is mapped,
 * so a test can replace the library under it.
 */
#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>

unsigned long lib_spin(double seconds);

int main(int argc, char **argv)
{
	if (argc > 2)
		close(open(argv[2], O_WRONLY | O_CREAT | O_CLOEXEC, 0644));
	lib_spin((argc > 1 ? atoi(argv[1]) : 1000) / 1000.0);
	return 0;
}
