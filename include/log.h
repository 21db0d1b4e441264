/*
 * log.h - the suite's log lines: "INFO ...", "WARN ...", "ERROR ..." on
 * stderr, one write(2) each, so that lines of concurrent session threads
 * never interleave within a line. A leaf module: it calls nothing else of
 * the suite, and any file may print without depending on a role.
 *
 * --quiet (log_set_quiet) drops INFO only: a WARN says the results or the
 * run may not be what the user thinks, an ERROR why something failed.
 * Lines longer than 2047 bytes are cut.
 */
#ifndef RDMA_BENCH_LOG_H
#define RDMA_BENCH_LOG_H

#include <stdbool.h>

void rb_info(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void rb_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void rb_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Set once by the role at start (--quiet), before any thread exists. */
void log_set_quiet(bool quiet);
/* Is INFO dropped? (callers skip building INFO-only text) */
bool log_quiet(void);

#endif /* RDMA_BENCH_LOG_H */
