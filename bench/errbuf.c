/*
 * errbuf.c - rb_fail: write an error message into the caller's buffer
 * (the convention is described in errbuf.h).
 */
#include <stdarg.h>
#include <stdio.h>

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
