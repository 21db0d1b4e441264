/*
 * topo.h - where a process's worker threads run and its buffers live: the
 * CPUs near the RDMA device (its PCI function's local_cpulist, else its
 * NUMA node's CPUs), SMT siblings last, and the rules of --cpus, --numa and
 * --hugepages.
 *
 * Why: a worker on the other socket reaches the NIC and its buffers across
 * the socket interconnect, and a buffer on 4 KiB pages costs the NIC
 * address-translation misses on large stores (the paper's Section 3.5:
 * avoid NIC cache misses; its Section 4 clusters pin one thread per core).
 * The sysfs files are the kernel's (Documentation/ABI/testing/sysfs-bus-pci
 * local_cpulist and numa_node; sysfs-devices-system-cpu thread_siblings_list;
 * sysfs-devices-node cpulist). Every reader takes a sysfs root ("/sys" on a
 * host, RB_SYSFS_ROOT or a fake tree in tests).
 */
#ifndef RB_TOPO_H
#define RB_TOPO_H

#include <sched.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "options.h"

/* The pinning mode asked (--cpus). */
enum rb_pin_mode {
	RB_PIN_AUTO,    /* default: the NIC's local CPUs (local_cpulist, numa_node, online) */
	RB_PIN_LIST,    /* --cpus LIST */
	RB_PIN_SPREAD,  /* --cpus spread: every online CPU, in order */
	RB_PIN_NONE,    /* --cpus none: not pinned */
};

/* Where the workers of a point run: worker i on cpus[i % ncpus], from
 * the entry topo_worker_cpu names (ncpus 0: not pinned); node the NUMA node of those CPUs (-1 unknown); source says
 * where the list came from, for the row's cpu_source column:
 * "local_cpulist", "numa_node", "numa" (--numa N), "cpus" (--cpus LIST),
 * "spread", "none", or "online" (the device's locality unknown: every
 * CPU this process may use). */
struct rb_place {
	int cpus[RB_MAX_CPUS];
	int ncpus;
	int node;
	char source[24];
};

/*
 * Parse a kernel CPU list ("0-3,8,10-11\n": sysfs cpulist format) into
 * out[0..*n-1], at most max entries. 0, or -1 with err naming the file
 * `what` and the text.
 */
int topo_parse_cpulist(const char *text, const char *what, int *out, int max, int *n,
		       char *err, size_t errlen);

/*
 * Order cpus[0..n-1] in place: each core's first thread (the lowest CPU of
 * its SYSROOT/devices/system/cpu/cpuN/topology/thread_siblings_list, or a
 * CPU with no such file) first, in their order; the other SMT siblings
 * after, in theirs. Stable; no allocation beyond n ints on the stack side.
 */
void topo_smt_order(const char *sysroot, int *cpus, int n);

/*
 * The NUMA node of device dev (SYSROOT/class/infiniband/DEV/device/numa_node),
 * -1 when unknown (no file, or the kernel's -1 on a single-node host).
 */
int topo_dev_node(const char *sysroot, const char *dev);

/*
 * Fill *p for pinning mode `mode` (list/nlist: --cpus LIST; numa >= 0:
 * --numa NODE, else -1): the CPUs in the order workers take them, only
 * those this process may run on (allowed/nallowed, e.g. sched_getaffinity;
 * nallowed 0: no restriction). AUTO: the device's local_cpulist, else its
 * node's cpulist, else the allowed CPUs ("online"); SMT siblings last.
 * 0, or -1 with err (--numa NODE with no such node or none of its CPUs
 * allowed: the message names the node, the allowed CPUs and the fix).
 */
int topo_place(const char *sysroot, const char *dev, enum rb_pin_mode mode, const int *list,
	       int nlist, int numa, const int *allowed, int nallowed, struct rb_place *p,
	       char *err, size_t errlen);

/* The CPUs this process may run on (sched_getaffinity) into out (at most
 * max), their count; 0 when unknown. */
int topo_allowed(int *out, int max);

/*
 * --cpus LIST (cpus[0..n-1]) against the CPUs this process may run on
 * (sched_getaffinity), before any resource exists: 0 (also when n is 0 or
 * the mask is unknown), or -1 with err naming the first CPU outside the
 * mask, the allowed set and the fix.
 */
int topo_check_cpus(const int *cpus, int n, char *err, size_t errlen);

/*
 * --numa NODE against sysroot's NUMA nodes and the CPUs this process may
 * run on, before any device is opened (topo_place's own check, so that a
 * bad node is named on a host with no RDMA device too): 0 (also for
 * numa < 0: the device's node, known only once it is open), or -1 with err
 * naming the node, what is missing and the fix.
 */
int topo_check_numa(const char *sysroot, int numa, char *err, size_t errlen);

/* The calling thread onto p's CPUs (while it first touches memory that its
 * workers use: the pages land on their node), the affinity before into
 * *saved; 1 when moved, 0 when not (no CPUs, or the call failed). Back
 * with topo_unpin_self(moved, saved). */
int topo_pin_self(const struct rb_place *p, cpu_set_t *saved);
void topo_unpin_self(int moved, const cpu_set_t *saved);

/*
 * The CPU of worker i (0-based) of a point, or -1 when p pins none (NULL or
 * no CPUs). The workers take p's list from entry `first` on, wrapping:
 * entry (first + i) mod ncpus. mirror counts the entries from the list's
 * end instead (entry ncpus - 1 - ((first + i) mod ncpus)).
 * Why: a run's processes and its server may share a host (a loopback test,
 * soft-RoCE on one machine, several client processes per node), and every
 * one of them took entry i for its worker i: a client and its server then
 * spin on one CPU, taking turns at the scheduler's tick, while the others
 * idle (docs/rdma_bench.md, "Workers' CPUs", has what it cost). So a client process k of a run of T threads per process
 * starts at first = k * T (--proc-index: its processes on one host take
 * different CPUs while the list has room), and the server's workers of that
 * session take the same entries counted from the end (mirror). Hosts of
 * their own lose nothing: every entry is on the device's list.
 */
int topo_worker_cpu(const struct rb_place *p, uint64_t first, bool mirror, unsigned i);

/* "0 2 3" of the CPUs of workers 0..n-1 (topo_worker_cpu with first and
 * mirror) into buf (len bytes), truncated with "..."; empty when p pins
 * none. n = p->ncpus gives the whole list from the workers' first entry. */
void topo_workers_text(const struct rb_place *p, uint64_t first, bool mirror, unsigned n,
		       char *buf, size_t len);

/* "0 2 3" of p's CPUs into buf (len bytes), truncated with "..." */
void topo_cpus_text(const struct rb_place *p, char *buf, size_t len);

/* The sysfs root: RB_SYSFS_ROOT when set and not empty, else "/sys". */
const char *topo_sysroot(void);

/* --- buffers (--hugepages) --- */

/* A buffer and the pages backing it: page_size bytes (2 MiB for hugetlb and
 * for transparent huge pages seen in /proc/self/smaps after the first
 * touch, else the base page size), source "base", "hugetlb", "thp", or
 * "base-fallback" (--hugepages asked, neither huge page kind obtained). */
struct rb_buf {
	uint8_t *p;
	size_t len;        /* mapped bytes (>= the length asked) */
	size_t page_size;
	const char *source;
	char why[160];     /* --hugepages: why hugetlb (and THP) failed, "" else */
};

#define RB_HUGE_PAGE (2u * 1024u * 1024u) /* x86-64's 2 MiB huge page */

/*
 * Map len bytes of zero-filled anonymous memory, first touched by the
 * calling thread (memset 0: the kernel places each page on the NUMA node
 * of the CPU that touches it first, under the default policy). huge: try
 * MAP_HUGETLB (2 MiB pages from vm.nr_hugepages), else a 2 MiB-aligned
 * mapping with madvise(MADV_HUGEPAGE), else base pages; b->source and
 * b->why name what was obtained and why not more. 0, or -1 (mmap failed;
 * errno set).
 */
int topo_buf_map(struct rb_buf *b, size_t len, bool huge);

/* Unmap b (b->p NULL: nothing). */
void topo_buf_unmap(struct rb_buf *b);

#endif
