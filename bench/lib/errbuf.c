/*
 * errbuf.c - rb_fail: write an error message into the caller's buffer;
 * rb_reprefix: change who it names (the convention is described in errbuf.h).
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "errbuf.h"

int rb_fail(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	if (!err || errlen == 0)
		return -1;
	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
	return -1;
}

void rb_reprefix(char *err, size_t len, size_t skip, const char *pfx)
{
	size_t pl = strlen(pfx), rest = strlen(err);

	if (skip > rest)
		skip = rest;
	rest -= skip;
	if (pl + rest + 1 > len)
		rest = len - pl - 1;
	memmove(err + pl, err + skip, rest);
	memcpy(err, pfx, pl);
	err[pl + rest] = '\0';
}
