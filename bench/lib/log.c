/*
 * log.c - INFO / WARN / ERROR lines and "PROG: error: " fatal lines on
 * stderr (log.h). Each line is formatted into one buffer and written with
 * one write(2): lines of concurrent threads do not interleave. The quiet
 * flag and the program name are the module's only state, set once before
 * threads start and read-only afterwards.
 */
#include <stdarg.h>
#include <stdio.h>
#include <unistd.h>

#include "log.h"

static bool quiet;
static const char *prog = "rdma_bench";

void log_set_prog(const char *p)
{
	prog = p;
}

void log_set_quiet(bool q)
{
	quiet = q;
}

bool log_quiet(void)
{
	return quiet;
}

static void vlog(const char *prefix, const char *fmt, va_list ap)
{
	char line[2048];
	int n = snprintf(line, sizeof(line), "%s ", prefix);
	if (n >= (int)sizeof(line) - 1)
		n = (int)sizeof(line) - 2;
	n += vsnprintf(line + n, sizeof(line) - (size_t)n, fmt, ap);
	if (n >= (int)sizeof(line) - 1)
		n = (int)sizeof(line) - 2;
	line[n++] = '\n';
	(void)!write(STDERR_FILENO, line, (size_t)n);
}

void rb_info(const char *fmt, ...)
{
	va_list ap;

	if (quiet)
		return;
	va_start(ap, fmt);
	vlog("INFO", fmt, ap);
	va_end(ap);
}

void rb_warn(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vlog("WARN", fmt, ap);
	va_end(ap);
}

void rb_error(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vlog("ERROR", fmt, ap);
	va_end(ap);
}

void rb_fatal(const char *fmt, ...)
{
	char prefix[96];
	va_list ap;

	snprintf(prefix, sizeof(prefix), "%s: error:", prog);
	va_start(ap, fmt);
	vlog(prefix, fmt, ap);
	va_end(ap);
}
