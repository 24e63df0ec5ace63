// SPDX-License-Identifier: GPL-2.0
/*
 * userspace/escape.c - escaping names for JSON and text output.
 */
#include <stdint.h>

#include "escape.h"

/*
 * The length of the valid UTF-8 sequence at @p (1 to 4) and its code
 * point, or 0 if it is not one: overlong forms, surrogates and code
 * points past U+10FFFF are not UTF-8 (RFC 3629).
 */
static size_t utf8(const uint8_t *p, size_t n, uint32_t *cp)
{
	size_t len, i;
	uint32_t c, min;

	if (p[0] < 0x80) {
		*cp = p[0];
		return 1;
	}
	if (p[0] >= 0xc2 && p[0] <= 0xdf)
		len = 2, c = p[0] & 0x1f, min = 0x80;
	else if (p[0] >= 0xe0 && p[0] <= 0xef)
		len = 3, c = p[0] & 0x0f, min = 0x800;
	else if (p[0] >= 0xf0 && p[0] <= 0xf4)
		len = 4, c = p[0] & 0x07, min = 0x10000;
	else
		return 0;
	if (len > n)
		return 0;
	for (i = 1; i < len; i++) {
		if ((p[i] & 0xc0) != 0x80)
			return 0;
		c = c << 6 | (p[i] & 0x3f);
	}
	if (c < min || c > 0x10ffff || (c >= 0xd800 && c <= 0xdfff))
		return 0;
	*cp = c;
	return len;
}

void escape_json(FILE *f, const char *s, size_t max)
{
	const uint8_t *p = (const uint8_t *)s;
	size_t n = 0, len;
	uint32_t c;

	while (n < max && p[n])
		n++;
	fputc('"', f);
	while (n) {
		len = utf8(p, n, &c);
		if (!len)
			fprintf(f, "\\udc%02x", *p);	/* surrogateescape */
		else if (c == '"' || c == '\\')
			fprintf(f, "\\%c", (char)c);
		else if (c == '\n')
			fputs("\\n", f);
		else if (c == '\t')
			fputs("\\t", f);
		else if (c < 0x20 || c == 0x7f || c == 0x2028 || c == 0x2029)
			fprintf(f, "\\u%04x", c);
		else
			fwrite(p, 1, len, f);
		len = len ? len : 1;
		p += len;
		n -= len;
	}
	fputc('"', f);
}

/* Characters that reorder what a terminal shows (Trojan Source). */
static int is_bidi(uint32_t c)
{
	return c == 0x200e || c == 0x200f || (c >= 0x202a && c <= 0x202e) ||
	       (c >= 0x2066 && c <= 0x2069);
}

void escape_text(FILE *f, const char *s, size_t max)
{
	const uint8_t *p = (const uint8_t *)s;
	size_t n = 0, len;
	uint32_t c;

	while (n < max && p[n])
		n++;
	while (n) {
		len = utf8(p, n, &c);
		if (!len)
			fprintf(f, "\\x%02x", *p);
		else if (c == '\\')
			fputs("\\\\", f);
		else if (c == '\n')
			fputs("\\n", f);
		else if (c == '\t')
			fputs("\\t", f);
		else if (c == '\r')
			fputs("\\r", f);
		else if (c < 0x20 || c == 0x7f)
			fprintf(f, "\\x%02x", c);
		else if ((c >= 0x80 && c <= 0x9f) || is_bidi(c))
			fprintf(f, "\\u%04x", c);
		else
			fwrite(p, 1, len, f);
		len = len ? len : 1;
		p += len;
		n -= len;
	}
}
