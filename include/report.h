/*
 * report.h - build the result rows of one point (CSV/JSON/table schema in
 * docs/csv.md) and collect the environment columns.
 *
 * One row per (point, repetition, process) with thread = "all"; with
 * --threads > 1 also one row per thread (thread = its index). Metrics that
 * were not measured are NA (empty), never 0 (docs/csv.md).
 */
#ifndef RDMA_BENCH_REPORT_H
#define RDMA_BENCH_REPORT_H

#include <stdbool.h>
#include <stdint.h>

#include "perfcount.h"
#include "env.h"
#include "ctrl.h"
#include "device.h"
#include "hist.h"
#include "options.h"
#include "output.h"
#include "pcieperf.h"

#define RB_SCHEMA_VERSION 1

/* What one point measured on one thread (or all: merged). */
struct rb_measure {
	bool valid;               /* false: nothing measured (failed before the window) */
	double duration_s;        /* measured window */
	uint64_t ops, bytes;
	const struct hist *hist;  /* round-trip ns; NULL or empty = no latency */
	uint64_t atomic_success;
	uint64_t t_start_ns, t_end_ns;  /* the window on this host's clock (timing_now_ns) */
	/* perf counters over the measured phase (perfcount.h; NULL: none):
	 * the phase's completed ops and its span (per thread; the process
	 * row: summed counts and ops, the longest span) */
	const struct pc_sample *pc;
	uint64_t pc_ops;
	double pc_span_s;
};

/* Everything about a point beyond one thread's measure. */
struct rb_point_info {
	const struct rb_opts *o;
	const struct rb_test *t;       /* as run (size, rep set) */
	const struct rb_env *env;
	const struct rb_dev *dev;
	/* granted / negotiated; 0 = unknown (point failed before) */
	uint32_t path_mtu, rd_atomic, inline_cap, cq_depth;
	int inline_used;               /* -1 unknown, 0 off, 1 on */
	double setup_us_per_qp;        /* NAN unknown */
	/* where the workers ran and the buffer's pages (topo.h), the doorbell
	 * mode the QPs got (ctx.h), the atomics' reply byte order seen by the
	 * startup self-test: "" = unknown (the point failed before) */
	const struct rb_place *place;  /* NULL unknown */
	uint64_t cpu_first;            /* the workers' first entry of place (ctx.h cpu_first) */
	uint64_t page_size;            /* bytes, 0 unknown */
	char page_source[16];
	char doorbell[40];
	char atomic_order[16];
	/* server's view */
	bool have_server;
	struct ctrl_done server;
	/* the server's CPU counters (ctrl.h CPU), READY to the client's DONE */
	bool have_server_cpu;
	struct ctrl_cpu server_cpu;
	uint64_t client_ops_all;       /* this process's ops of all phases (its DONE's ops):
					* the server's per-op divisor */
	/* /proc/stat of this host's CPUs (cpustat.h) at the start barrier and
	 * after the workers ended (rc 1: not read) */
	struct cs_reading cs_before, cs_after;
	/* end-to-end check: 0 not checked, 1 passed, 2 failed */
	int checked;
	/* counters around the window */
	bool have_counters;
	struct rb_counters before, after;
	/* the server's counters over the common window (its DONE's deltas,
	 * dev_counters_unpack: srv_zero all 0, srv_delta the deltas) */
	bool have_srv_counters;
	struct rb_counters srv_zero, srv_delta;
	/* start barrier (--procs > 1, gate.h): how long this process waited
	 * there (NAN: not gated), and the server's clock = ours + offset, to
	 * within clock_err_ns (have_offset false: unknown) */
	double gate_wait_s;
	bool have_offset;
	int64_t clock_offset_ns;
	uint64_t clock_err_ns;
	/* the socket's PCIe reads/writes by devices (pcieperf.h) from the
	 * workers' start to their join (warm-up and drain included), over
	 * pcie_span_s seconds; pcie.valid 0: not counted (pcie.reason) */
	struct pp_sample pcie;
	double pcie_span_s;
	const char *status;            /* "ok", "skipped", "failed" */
	const char *reason;            /* "" when ok */
};

/* thread: -1 = "all". */
void report_build_row(struct row *r, const struct rb_point_info *p, int thread,
		      const struct rb_measure *m);

/*
 * The trouble counters that moved between two snapshots of the port
 * counters (RNR NAKs, retries, sequence errors, out-of-sequence, duplicate
 * requests, CNP/ECN where the device has them): writes one line into out
 * ("RNR NAKs 86 (fix); retries 61 (fix)", in that order of kinds, each with
 * its count and its likely fix; "" when none moved) and returns how many
 * kinds moved. Pure: no I/O. A counter missing in either snapshot is not
 * reported.
 */
int report_trouble(const struct rb_counters *before, const struct rb_counters *after,
		   char *out, size_t len);

/*
 * The --explain summary of a point's process row, one line into out: the
 * measured Mops; the PCIe model's limit on this host's link and what binds
 * (or "no PCI device: CPU/software-bound" with the paper's link's limit,
 * named the null device first when the firmware version ends in "-null",
 * or why the configuration is not modelled); the client's CPU ns per op
 * (perf task-clock; the server's is not counted); the trouble counters
 * that moved (report_trouble). Reads the device's sysfs link
 * (pcie_host.h). Returns 0, or -1 when out was too short (cut).
 */
int report_explain(const struct rb_point_info *p, const struct rb_measure *m, char *out, size_t len);

/*
 * A point whose measured window completed no operation has no rate to
 * report and must not be "ok" (a 0 Mops row would read as a measurement):
 * when ops (the process's operations summed over its threads, those of
 * the window) is 0, writes the reason into why ("no operation completed
 * in the 0.5 s window (-D)"; iteration mode, -n: "no operation completed
 * of the -n 1000 iterations") and returns 1; else returns 0 and leaves
 * why as it was. Pure: no I/O.
 */
int report_no_ops(const struct rb_test *t, uint64_t ops, char *why, size_t len);

/* The columns of the human table, in order. */
extern const char *const report_table_cols[];
extern const int report_table_ncols;

#endif /* RDMA_BENCH_REPORT_H */
