// SPDX-License-Identifier: GPL-2.0
/*
 * bench/vm/exectarget.c - the program the exec benchmark runs: small,
 * dynamically linked (so exec maps the loader and libc too), does nothing.
 */
int main(void)
{
	return 0;
}
