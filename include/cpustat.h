/*
 * cpustat.h - CPU utilisation over a measured window, counting user +
 * system + irq + softirq time, from /proc/stat's per-CPU lines.
 *
 * Why /proc/stat and not per-process accounting (/proc/self/stat utime and
 * stime, getrusage): per-process accounting has no irq and softirq time.
 * With CONFIG_IRQ_TIME_ACCOUNTING (Debian's kernels) the kernel charges
 * interrupt work to no task at all; without it, to whichever task the tick
 * interrupted. An RDMA benchmark's CPU cost is largely there: completion
 * interrupts of event-driven tests, and on soft-RoCE the whole protocol
 * (rdma_rxe runs in softirq and kernel work items). perftest reads
 * /proc/stat too but counts user and idle only, so it reports ~0 % for
 * event-driven tests. The price of /proc/stat: it is per CPU, not per
 * process, so another process on the same CPUs is counted too; we count
 * only the CPUs of the process's affinity mask (sched_getaffinity of its
 * main thread: every online CPU unless the process was started under
 * taskset; --cpus pins worker threads inside that mask and does not narrow
 * it, since the NIC's interrupts land on CPUs of their own), and say how
 * many in cs_delta.ncpus. Resolution: USER_HZ ticks (10 ms on Linux), so
 * a 0.5 s window on 2 CPUs is counted to 1 %.
 *
 * Per-CPU line (proc(5)): "cpuN user nice system idle iowait irq softirq
 * steal guest guest_nice" in USER_HZ ticks; guest time is already inside
 * user (and guest_nice inside nice), so it is not added again. busy = user
 * + nice + system + irq + softirq; total = busy + idle + iowait + steal.
 *
 * Use: cs_read() before and after the window (outside it: one read of
 * /proc/stat each, ~10 us per CPU), cs_diff() of the two, cs_util() for
 * percentages. Pure parts (cs_parse, cs_diff, cs_util) are unit-tested
 * with fake /proc/stat text (tests/unit/test_cpustat.c).
 */
#ifndef RDMA_BENCH_CPUSTAT_H
#define RDMA_BENCH_CPUSTAT_H

#include <sched.h>   /* cpu_set_t: the build defines _GNU_SOURCE */
#include <stddef.h>
#include <stdint.h>

#define CS_REASON_MAX 96

/* Ticks summed over the counted CPUs (a snapshot). */
struct cs_snap {
	uint64_t user, nice, system, idle, iowait, irq, softirq, steal;
	uint32_t ncpus;            /* CPUs summed */
};

/* What a window used, in ticks summed over its CPUs (also the wire form,
 * ctrl.h CPU): user includes nice; total is every tick of those CPUs. */
struct cs_delta {
	uint32_t ncpus;            /* 0: not measured */
	uint64_t user, system, irq, softirq, total;
};

/* Percentages of the counted CPUs' time (100 = all of them busy). */
struct cs_util {
	double busy_pct;           /* user + system + irq + softirq */
	double user_pct, system_pct, irq_pct, softirq_pct;
};

/*
 * Sum the per-CPU lines ("cpu0", "cpu1", ...; not the "cpu " total) of a
 * /proc/stat text for the CPUs in mask (NULL: every CPU listed). 0, or -1
 * with why (no per-CPU line, a line cut short, no CPU of the mask listed).
 */
int cs_parse(const char *text, const cpu_set_t *mask, struct cs_snap *out, char *why, size_t len);

/* Read path (NULL: /proc/stat) and cs_parse it for the process's
 * affinity mask. 0, or -1 with why (unreadable: the file named). */
int cs_read(const char *path, struct cs_snap *out, char *why, size_t len);

/* One cs_read's outcome, kept for the window's end (rc 0: snap valid). */
struct cs_reading {
	int rc;                    /* 0 read; -1 failed (why); 1 not read yet */
	struct cs_snap snap;
	char why[CS_REASON_MAX];
};
/* cs_read(NULL, ...) into r. */
void cs_take(struct cs_reading *r);
/* The window between two readings into d, or why not into why ("" when
 * d holds it). 0 or -1. */
int cs_window(const struct cs_reading *a, const struct cs_reading *b, struct cs_delta *d,
	      char *why, size_t len);

/* The window between two snapshots. 0, or -1 with why (the CPU count
 * changed, a counter went backwards, no tick elapsed). */
int cs_diff(const struct cs_snap *a, const struct cs_snap *b, struct cs_delta *d, char *why,
	    size_t len);

/* Percentages of d; -1 (all NAN) when d has no CPU or no tick. */
int cs_util(const struct cs_delta *d, struct cs_util *u);

#endif /* RDMA_BENCH_CPUSTAT_H */
