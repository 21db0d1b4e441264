/*
 * perfcount.h - CPU counters around a measured window, the `perf stat` step
 * built in: Linux perf_event_open(2) counters of the calling thread.
 *
 * Software events (task-clock, context switches, CPU migrations, page
 * faults) are counted by the kernel and present on every Linux host that
 * allows perf_event_open; hardware events (cycles, instructions, cache
 * misses) only where the CPU's PMU is exposed (not in most VMs: no `cpu`
 * in /sys/bus/event_source/devices). An event that cannot be counted is
 * empty, with a reason (pc_sample.reason), never an error of the run.
 *
 * Use, per thread (a perf event counts the thread that opened it):
 *   struct perfcount pc;
 *   pc_open(&pc, NULL, NULL);            // NULL: the real perf_event_open
 *   pc_start(&pc);                       // before the measured window
 *   ... measured window ...
 *   struct pc_sample s; pc_stop(&pc, &s); // after it
 *   pc_close(&pc);
 * pc_open and pc_close are slow (system calls per event) and belong outside
 * the window; pc_start and pc_stop cost one read(2) per open event each,
 * outside the window too: the window itself carries no counting cost
 * beyond the kernel's per-context-switch bookkeeping.
 *
 * Counters that the kernel multiplexed (time_running < time_enabled) are
 * scaled by enabled / running, as perf stat does, and marked scaled.
 *
 * Tests replace the kernel with a pc_source (tests/unit/test_perfcount.c).
 */
#ifndef RDMA_BENCH_PERFCOUNT_H
#define RDMA_BENCH_PERFCOUNT_H

#include <stddef.h>
#include <stdint.h>

enum pc_event {
	PC_TASK_CLOCK,    /* software: CPU time of the thread, ns */
	PC_CTX_SWITCHES,  /* software: context switches */
	PC_CPU_MIGRATIONS,/* software: moves to another CPU */
	PC_PAGE_FAULTS,   /* software: page faults (minor + major) */
	PC_CYCLES,        /* hardware: CPU cycles */
	PC_INSTRUCTIONS,  /* hardware: instructions retired */
	PC_CACHE_MISSES,  /* hardware: last-level cache misses */
	PC_NEVENTS
};

#define PC_REASON_MAX 112

/*
 * Where counts come from. open returns a handle >= 0 or -errno; read fills
 * the counter's value and its time enabled and running (ns) and returns 0
 * or -errno; close releases a handle. exclude_kernel: count user space
 * only (the retry when kernel counting is not permitted).
 */
struct pc_source {
	int (*open)(void *ctx, enum pc_event ev, int exclude_kernel);
	int (*read)(void *ctx, int handle, uint64_t *value, uint64_t *enabled, uint64_t *running);
	void (*close)(void *ctx, int handle);
};

/* The real source: perf_event_open(2) on the calling thread, any CPU. */
extern const struct pc_source pc_source_kernel;

struct perf_event_attr;
/* The attributes pc_source_kernel opens event ev with (perf_event_open(2)):
 * its type and config, value with time enabled and running (to scale a
 * multiplexed counter), the hypervisor excluded, the kernel excluded when
 * exclude_kernel (a paranoid host); *attr is overwritten. */
void pc_event_attr(enum pc_event ev, int exclude_kernel, struct perf_event_attr *attr);

struct pc_sample {
	uint64_t value[PC_NEVENTS];      /* the window's count (scaled if multiplexed) */
	int valid[PC_NEVENTS];           /* 1: value holds a count */
	int scaled[PC_NEVENTS];          /* 1: multiplexed and scaled */
	int user_only[PC_NEVENTS];       /* 1: kernel time excluded (not permitted) */
	char reason[PC_NEVENTS][PC_REASON_MAX]; /* why not valid; "" when valid */
};

struct perfcount {
	const struct pc_source *src;
	void *ctx;
	int handle[PC_NEVENTS];          /* -1: not open */
	int user_only[PC_NEVENTS];
	char reason[PC_NEVENTS][PC_REASON_MAX];
	uint64_t v0[PC_NEVENTS], e0[PC_NEVENTS], r0[PC_NEVENTS]; /* at pc_start */
	int started[PC_NEVENTS];
};

/*
 * Open every event for the calling thread from src (NULL: pc_source_kernel).
 * Never fails: an event that does not open gets a reason (no such event
 * on this PMU, not permitted with kernel.perf_event_paranoid = N, perf
 * events unavailable). Returns how many events are open.
 */
int pc_open(struct perfcount *p, const struct pc_source *src, void *ctx);

/* No event open, each with the reason why (cut at PC_REASON_MAX); pc_start,
 * pc_stop and pc_close then do nothing but carry it. */
void pc_none(struct perfcount *p, const char *why);
/* Take the start values (outside the measured window). */
void pc_start(struct perfcount *p);
/* Take the end values and fill s with the window's counts and reasons. */
void pc_stop(struct perfcount *p, struct pc_sample *s);
/* Close every open event. */
void pc_close(struct perfcount *p);

/* dst += src per event; an event stays valid only if valid in both (the
 * reason of the first invalid one is kept). For summing worker threads. */
void pc_sample_add(struct pc_sample *dst, const struct pc_sample *src);
/* A sample with every event valid and zero (the start of a sum). */
void pc_sample_zero(struct pc_sample *s);

/* Per-operation figures; NAN when the event is not valid or ops is 0. */
struct pc_per_op {
	double cpu_ns_per_op;        /* task-clock ns / ops */
	double instructions_per_op;
	double cycles_per_op;
};
void pc_per_op(const struct pc_sample *s, uint64_t ops, struct pc_per_op *out);

/* The CSV name of an event (docs/csv.md): "task_clock_ns", "cycles", ... */
const char *pc_event_name(enum pc_event ev);
/* 1 for the hardware events (cycles, instructions, cache misses). */
int pc_event_is_hw(enum pc_event ev);

#endif
