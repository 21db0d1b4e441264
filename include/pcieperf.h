/*
 * pcieperf.h - PCIe reads and writes by devices (the NIC), counted in the
 * CPU's uncore around a measured window: the counters the paper reads
 * (Section 2.1, "PCIe counters": PCIeRdCur for DMA reads, PCIeItoM for DMA
 * writes) to find the NIC's WQE cache misses (Sections 3.5 and 5.3.2,
 * Figure 13: actual PCIe reads minus the reads the model expects).
 *
 * Where it works: Intel Xeon with CHA uncore PMUs whose TOR_INSERTS event
 * filters by opcode in its umask extension (Ice Lake-SP, Sapphire Rapids,
 * Emerald Rapids: event 0x35, umask 0x04 "from IO", umask_ext 0xC8F3FF
 * PCIRdCur, 0xCC43FF ItoM, 0xCD43FF ItoMCacheNear; Intel's published
 * uncore event lists). The counts are socket-wide (every device of the
 * socket, every CPU), so an idle baseline taken before the window is
 * subtracted. Everywhere else - a VM, AMD, older Xeons whose TOR filter is
 * a separate register, no permission (kernel.perf_event_paranoid > 0 and
 * no CAP_PERFMON) - every value is NA with the reason; never an error of
 * the run.
 *
 * Use (outside the measured window, any thread):
 *   struct pcieperf pp;
 *   pp_open(&pp, "/sys", "/proc/cpuinfo", NULL, NULL);
 *   pp_baseline(&pp, 0.1);            // idle rate over 100 ms, no traffic of ours
 *   pp_start(&pp); ... window ...; struct pp_sample s; pp_stop(&pp, &s);
 *   pp_close(&pp);
 * Tests pass a fake sysfs root, cpuinfo file and pp_source
 * (tests/unit/test_pcieperf.c).
 */
#ifndef RDMA_BENCH_PCIEPERF_H
#define RDMA_BENCH_PCIEPERF_H

#include <stddef.h>
#include <stdint.h>

enum pp_kind {
	PP_RD,   /* PCIRdCur: full-line reads by a device (the NIC's DMA reads) */
	PP_WR,   /* ItoM + ItoMCacheNear: full and partial line writes by a device */
	PP_NKINDS
};

#define PP_MAXBOX 64     /* CHA boxes of one socket at most (SPR: up to 60) */
#define PP_REASON_MAX 160

/* The kernel, or a test's fake: open returns a handle >= 0 or -errno. */
struct pp_source {
	int (*open)(void *ctx, uint32_t type, uint64_t config, int cpu);
	int (*read)(void *ctx, int handle, uint64_t *value);
	void (*close)(void *ctx, int handle);
};
extern const struct pp_source pp_source_kernel;

/* One event's encoding for one CPU generation. */
struct pp_encoding {
	const char *cpu;              /* "Ice Lake-SP" ... */
	uint64_t event, umask;
	uint64_t umask_ext[PP_NKINDS][2]; /* per kind up to two opcodes summed (0: none) */
};

struct pcieperf {
	const struct pp_source *src;
	void *ctx;
	const struct pp_encoding *enc;
	int nbox;                     /* CHA boxes opened; 0: not counting (see reason) */
	int nh[PP_NKINDS];            /* handles per kind */
	int handle[PP_NKINDS][2 * PP_MAXBOX];
	uint64_t v0[PP_NKINDS];
	double idle_rate[PP_NKINDS];  /* events/s before the window; 0 when not taken */
	uint64_t t0_ns;
	char reason[PP_REASON_MAX];   /* "" while counting */
};

struct pp_sample {
	int valid;                    /* 1: counts below hold; 0: see reason */
	uint64_t raw[PP_NKINDS];      /* the window's socket-wide counts */
	double net[PP_NKINDS];        /* raw minus idle_rate x window, at least 0 */
	double window_s;
	char reason[PP_REASON_MAX];
};

/* The encoding for the CPU that cpuinfo (the text of /proc/cpuinfo)
 * describes, or NULL with why (not Intel, or a model not in the table). */
const struct pp_encoding *pp_pick(const char *cpuinfo, char *why, size_t len);

/* Places value into config at the bits a sysfs PMU format line names
 * ("config:8-15", "config:32-55", "config:0"; several ranges separated by
 * commas are filled low bits first). Returns 0, or -1 with why (a line not
 * of that form, a field other than config, or a value wider than the
 * bits). */
int pp_format_put(const char *format, uint64_t value, uint64_t *config, char *why, size_t len);

/* Opens every opcode's event on every uncore_cha_N PMU under
 * SYSFS/bus/event_source/devices, on the first CPU of the PMU's cpumask.
 * src NULL: pp_source_kernel. Never fails: returns the boxes opened (0
 * with p->reason set when nothing counts). */
int pp_open(struct pcieperf *p, const char *sysfs, const char *cpuinfo_path,
	    const struct pp_source *src, void *ctx);
/* Counts for seconds (0.01..10) with nothing of ours running, and keeps the
 * rate to subtract from the window. */
void pp_baseline(struct pcieperf *p, double seconds);
void pp_start(struct pcieperf *p);
void pp_stop(struct pcieperf *p, struct pp_sample *s);
void pp_close(struct pcieperf *p);

/* The baseline subtraction (pure): raw - rate x seconds, at least 0. */
double pp_net(uint64_t raw, double idle_rate, double seconds);

#endif
