/* SPDX-License-Identifier: GPL-2.0 */
/*
 * userspace/escape.h - printing names that other processes chose (paths,
 * commands) so that no byte of them can forge output: JSON that parses
 * whatever the bytes, text without control characters.
 */
#ifndef MMAP3_ESCAPE_H
#define MMAP3_ESCAPE_H

#include <stddef.h>
#include <stdio.h>

/*
 * @s (at most @max bytes, up to a NUL) as a JSON string with its quotes.
 * Valid UTF-8 is kept; each byte that is not is written as \udcXX, the
 * escape Python's surrogateescape uses for file names, so that
 * os.fsencode(json.loads(...)) gives back the original bytes.
 */
void escape_json(FILE *f, const char *s, size_t max);

/*
 * @s as text: backslash, control characters (C0, DEL, C1), bytes that are
 * not UTF-8 and bidirectional formatting characters become C-style
 * escapes (\\, \n, \t, \x1b, \u202e).
 */
void escape_text(FILE *f, const char *s, size_t max);

#endif /* MMAP3_ESCAPE_H */
