/*
 * log.h - the suite's log lines: "INFO ...", "WARN ...", "ERROR ..." on
 * stderr, one write(2) each, so that lines of concurrent session threads
 * never interleave within a line. A leaf module: it calls nothing else of
 * the suite, and any file may print without depending on a role.
 *
 * --quiet (log_set_quiet) drops INFO only: a WARN says the results or the
 * run may not be what the user thinks, an ERROR why something failed that
 * the process reports and goes on from or ends a point or session with (a
 * row or the server's next session follows).
 * A fatal error, the one that ends the process with status 2 before any
 * point ran (the command line refused, a setup step such as the device, the
 * server's listener or the connection failed: docs/CONTRACTS.md "Exit
 * status"), is "PROG: error: MSG" (rb_fatal), the form of every tool of the
 * suite (experiments/run, ci/vm), which experiments/lib/job.sh parses.
 * Lines longer than 2047 bytes are cut.
 */
#ifndef RDMA_BENCH_LOG_H
#define RDMA_BENCH_LOG_H

#include <stdbool.h>

void rb_info(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void rb_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void rb_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* "PROG: error: MSG", PROG as set by log_set_prog ("rdma_bench" unset);
 * printed whatever --quiet says. */
void rb_fatal(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* The program name of rb_fatal's lines, a string that outlives the
 * process's threads (a literal); set once in main. */
void log_set_prog(const char *prog);

/* Set once by the role at start (--quiet), before any thread exists. */
void log_set_quiet(bool quiet);
/* Is INFO dropped? (callers skip building INFO-only text) */
bool log_quiet(void);

#endif /* RDMA_BENCH_LOG_H */
