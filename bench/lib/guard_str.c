/*
 * guard_str.c - peer strings and the token compare of guard.h: pure, with
 * no other dependency (the control decoder and the fuzz corpus generator
 * link it alone).
 */
#include <stdbool.h>
#include <stddef.h>

#include "guard.h"

int guard_str_bad_byte(const char *s, size_t len)
{
	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)s[i];
		if (c < 0x20 || c == 0x7f)
			return (int)i;
	}
	return -1;
}

void guard_str_escape(char *s)
{
	for (; *s; s++)
		if ((unsigned char)*s < 0x20 || (unsigned char)*s == 0x7f)
			*s = '?';
}

bool guard_token_equal(const char *a, const char *b, size_t cap)
{
	unsigned diff = 0;
	bool a_end = false, b_end = false;

	/* every position up to cap is read once; past a string's end, 0 stands in */
	for (size_t i = 0; i <= cap; i++) {
		unsigned char x = a_end ? 0 : (unsigned char)a[i];
		unsigned char y = b_end ? 0 : (unsigned char)b[i];
		diff |= (unsigned)(x ^ y);
		a_end |= x == 0;
		b_end |= y == 0;
	}
	return diff == 0;
}
