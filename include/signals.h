/*
 * signals.h - interrupting a client run (SIGINT, SIGTERM, SIGHUP).
 *
 * The handler only records the signal number in a flag (async-signal-safe,
 * POSIX.1 2.4.3); the client's monitor loop reads it between polls and
 * stops the point in progress, the workers see that stop at their
 * deadline check, and the client then writes every finished row to every
 * output (CSV rows are already on disk, the JSON file, the table) and
 * exits with 128 + the signal number (130 SIGINT, 143 SIGTERM, 129 SIGHUP).
 * A second signal while the first is being handled exits at once with the
 * same status (_exit, async-signal-safe). The point in progress writes no
 * row: it was not measured to its end. The control connection's connect
 * retry loop (ctrl_sock.c) reads the flag too and stops waiting.
 *
 * A signal that was ignored when the program started (nohup, a background
 * job of a non-interactive shell) stays ignored, as shells do.
 */
#ifndef RDMA_BENCH_SIGNALS_H
#define RDMA_BENCH_SIGNALS_H

#include <signal.h>

/* 0, or the number of the first SIGINT/SIGTERM/SIGHUP received. */
extern volatile sig_atomic_t rb_interrupt_signal;

/* Install the handler for SIGINT, SIGTERM and SIGHUP (without SA_RESTART:
 * a blocking poll returns EINTR at once). 0, or -1 with errno. */
int signals_install_interrupt(void);

/* The exit status for an interrupted run: 128 + the signal number. */
int signals_exit_status(int sig);

/* "SIGINT", "SIGTERM", "SIGHUP" or "signal N" (static storage). */
const char *signals_name(int sig);

#endif /* RDMA_BENCH_SIGNALS_H */
