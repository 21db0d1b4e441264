/*
 * topo.c - the workers' CPUs near the RDMA device and the buffers' pages
 * (topo.h: the rules and the kernel files they come from).
 *
 * How it works: the CPU lists are sysfs cpulist files parsed into arrays;
 * the default list is the device's PCI function's local_cpulist, else its
 * node's cpulist, else every CPU this process may use; the result keeps
 * only allowed CPUs and puts each core's second and later SMT threads
 * after every core's first (two workers on one core share its pipeline).
 * Buffers are anonymous mappings zeroed by the caller's thread, which
 * places their pages on its node; --hugepages asks MAP_HUGETLB first, then
 * transparent huge pages on a 2 MiB-aligned mapping, and reads
 * /proc/self/smaps to tell whether THP backed it.
 */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "env.h"
#include "errbuf.h"
#include "topo.h"

const char *topo_sysroot(void)
{
	const char *r = getenv("RB_SYSFS_ROOT");

	return r && r[0] ? r : "/sys";
}

int topo_parse_cpulist(const char *text, const char *what, int *out, int max, int *n,
		       char *err, size_t errlen)
{
	const char *s = text;

	*n = 0;
	while (*s && *s != '\n') {
		char *end;
		errno = 0;
		long lo = strtol(s, &end, 10), hi = lo;
		if (end == s || lo < 0 || errno)
			goto bad;
		s = end;
		if (*s == '-') {
			hi = strtol(s + 1, &end, 10);
			if (end == s + 1 || hi < lo || errno)
				goto bad;
			s = end;
		}
		for (long c = lo; c <= hi; c++) {
			if (*n >= max)
				return rb_fail(err, errlen, "%s: '%s' lists more than %d CPUs (the "
					       "build's RB_MAX_CPUS)", what, text, max);
			out[(*n)++] = (int)c;
		}
		if (*s == ',')
			s++;
		else if (*s && *s != '\n')
			goto bad;
	}
	return 0;
bad:
	return rb_fail(err, errlen, "%s: '%s' is not a CPU list (expected e.g. 0-3,8)", what, text);
}

/* Whether cpu is its core's first thread (or its siblings are unknown). */
static bool smt_first(const char *sysroot, int cpu)
{
	char path[512], line[4096], e[128];
	int sib[RB_MAX_CPUS], n = 0;

	snprintf(path, sizeof(path), "%s/devices/system/cpu/cpu%d/topology/thread_siblings_list",
		 sysroot, cpu);
	if (env_read_line(path, line, sizeof(line)) ||
	    topo_parse_cpulist(line, path, sib, RB_MAX_CPUS, &n, e, sizeof(e)) || n == 0)
		return true;
	int lowest = sib[0];
	for (int i = 1; i < n; i++)
		if (sib[i] < lowest)
			lowest = sib[i];
	return cpu <= lowest;
}

void topo_smt_order(const char *sysroot, int *cpus, int n)
{
	int second[RB_MAX_CPUS], nfirst = 0, nsecond = 0;

	for (int i = 0; i < n && i < RB_MAX_CPUS; i++) {
		if (smt_first(sysroot, cpus[i]))
			cpus[nfirst++] = cpus[i];
		else
			second[nsecond++] = cpus[i];
	}
	memcpy(cpus + nfirst, second, (size_t)nsecond * sizeof(int));
}

int topo_dev_node(const char *sysroot, const char *dev)
{
	char path[512], line[64];

	snprintf(path, sizeof(path), "%s/class/infiniband/%s/device/numa_node", sysroot, dev);
	if (env_read_line(path, line, sizeof(line)))
		return -1;
	char *end;
	long v = strtol(line, &end, 10);
	return end == line || v < 0 || v > 4095 ? -1 : (int)v;
}

/* The CPU list of file path into p (0), or -1 (no file, or not a list). */
static int list_file(const char *path, struct rb_place *p)
{
	char line[8192], e[256];

	if (env_read_line(path, line, sizeof(line)) || !line[0])
		return -1;
	return topo_parse_cpulist(line, path, p->cpus, RB_MAX_CPUS, &p->ncpus, e, sizeof(e));
}

/* Keep the allowed CPUs of p, in order (nallowed 0: all). */
static void keep_allowed(struct rb_place *p, const int *allowed, int nallowed)
{
	int k = 0;

	if (nallowed <= 0)
		return;
	for (int i = 0; i < p->ncpus; i++)
		for (int j = 0; j < nallowed; j++)
			if (allowed[j] == p->cpus[i]) {
				p->cpus[k++] = p->cpus[i];
				break;
			}
	p->ncpus = k;
}

/* The default list: local_cpulist, the node's cpulist, or the allowed
 * CPUs (every online CPU when nallowed is 0). */
static void place_auto(const char *sysroot, const char *dev, const int *allowed, int nallowed,
		       struct rb_place *p)
{
	char path[512];

	snprintf(path, sizeof(path), "%s/class/infiniband/%s/device/local_cpulist", sysroot, dev);
	snprintf(p->source, sizeof(p->source), "local_cpulist");
	if (list_file(path, p) == 0 && (keep_allowed(p, allowed, nallowed), p->ncpus > 0))
		return;
	snprintf(path, sizeof(path), "%s/devices/system/node/node%d/cpulist", sysroot, p->node);
	snprintf(p->source, sizeof(p->source), "numa_node");
	if (p->node >= 0 && list_file(path, p) == 0 &&
	    (keep_allowed(p, allowed, nallowed), p->ncpus > 0))
		return;
	snprintf(p->source, sizeof(p->source), "online");
	snprintf(path, sizeof(path), "%s/devices/system/cpu/online", sysroot);
	if (nallowed > 0) {
		memcpy(p->cpus, allowed, (size_t)nallowed * sizeof(int));
		p->ncpus = nallowed;
	} else if (list_file(path, p)) {
		p->ncpus = 0;
	}
}

/* --numa NODE (>= 0): the node's CPUs that this process may use into p
 * (source "numa"); -1 with err when the node does not exist under sysroot
 * or none of its CPUs is allowed. */
static int numa_place(const char *sysroot, int numa, const int *allowed, int nallowed,
		      struct rb_place *p, char *err, size_t errlen)
{
	char path[512];

	snprintf(p->source, sizeof(p->source), "numa");
	snprintf(path, sizeof(path), "%s/devices/system/node/node%d/cpulist", sysroot, numa);
	if (list_file(path, p))
		return rb_fail(err, errlen, "--numa %d: no such NUMA node (%s unreadable); "
			       "give a node of %s/devices/system/node (lscpu lists them)",
			       numa, path, sysroot);
	keep_allowed(p, allowed, nallowed);
	if (p->ncpus == 0)
		return rb_fail(err, errlen, "--numa %d: none of the node's CPUs is allowed "
			       "to this process (taskset/cgroup); give another node or --cpus",
			       numa);
	return 0;
}

int topo_place(const char *sysroot, const char *dev, enum rb_pin_mode mode, const int *list,
	       int nlist, int numa, const int *allowed, int nallowed, struct rb_place *p,
	       char *err, size_t errlen)
{
	char path[512];

	memset(p, 0, sizeof(*p));
	p->node = numa >= 0 ? numa : topo_dev_node(sysroot, dev);
	if (mode == RB_PIN_NONE) {
		snprintf(p->source, sizeof(p->source), "none");
		return 0;
	}
	if (mode == RB_PIN_LIST) {
		snprintf(p->source, sizeof(p->source), "cpus");
		p->ncpus = nlist < RB_MAX_CPUS ? nlist : RB_MAX_CPUS;
		memcpy(p->cpus, list, (size_t)p->ncpus * sizeof(int));
		return 0;  /* in the order given: the user's choice */
	}
	if (mode == RB_PIN_SPREAD) {
		snprintf(p->source, sizeof(p->source), "spread");
		snprintf(path, sizeof(path), "%s/devices/system/cpu/online", sysroot);
		if (list_file(path, p))
			p->ncpus = 0;
		keep_allowed(p, allowed, nallowed);
		return 0;
	}
	if (numa >= 0) {
		if (numa_place(sysroot, numa, allowed, nallowed, p, err, errlen))
			return -1;
	} else {
		place_auto(sysroot, dev, allowed, nallowed, p);
	}
	topo_smt_order(sysroot, p->cpus, p->ncpus);
	return 0;
}

int topo_allowed(int *out, int max)
{
	cpu_set_t set;
	int n = 0;

	if (sched_getaffinity(0, sizeof(set), &set))
		return 0;
	for (int i = 0; i < CPU_SETSIZE && n < max; i++)
		if (CPU_ISSET(i, &set))
			out[n++] = i;
	return n;
}

int topo_check_cpus(const int *cpus, int n, char *err, size_t errlen)
{
	cpu_set_t set;

	if (n <= 0 || sched_getaffinity(0, sizeof(set), &set) != 0)
		return 0;
	for (int i = 0; i < n; i++) {
		if (cpus[i] >= 0 && cpus[i] < CPU_SETSIZE && CPU_ISSET(cpus[i], &set))
			continue;
		char allowed[256] = "";
		size_t len = 0;
		for (int c = 0; c < CPU_SETSIZE && len + 8 < sizeof(allowed); c++)
			if (CPU_ISSET(c, &set))
				len += (size_t)snprintf(allowed + len, sizeof(allowed) - len, "%s%d",
							len ? "," : "", c);
		snprintf(err, errlen,
			 "--cpus: CPU %d is not available to this process (allowed: %s); "
			 "give CPUs from that list, or --cpus spread", cpus[i], allowed);
		return -1;
	}
	return 0;
}

int topo_check_numa(const char *sysroot, int numa, char *err, size_t errlen)
{
	int allowed[RB_MAX_CPUS], nallowed = topo_allowed(allowed, RB_MAX_CPUS);
	static struct rb_place p;  /* 4 KiB: off the stack; start-up only, one thread */

	if (numa < 0)
		return 0;
	memset(&p, 0, sizeof(p));
	return numa_place(sysroot, numa, allowed, nallowed, &p, err, errlen);
}

int topo_pin_self(const struct rb_place *p, cpu_set_t *saved)
{
	cpu_set_t set;

	if (!p || p->ncpus <= 0 || pthread_getaffinity_np(pthread_self(), sizeof(*saved), saved))
		return 0;
	CPU_ZERO(&set);
	for (int i = 0; i < p->ncpus; i++)
		if (p->cpus[i] >= 0 && p->cpus[i] < CPU_SETSIZE)
			CPU_SET(p->cpus[i], &set);
	return pthread_setaffinity_np(pthread_self(), sizeof(set), &set) == 0;
}

void topo_unpin_self(int moved, const cpu_set_t *saved)
{
	if (moved)
		(void)pthread_setaffinity_np(pthread_self(), sizeof(*saved), saved);
}

int topo_worker_cpu(const struct rb_place *p, uint64_t first, bool mirror, unsigned i)
{
	if (!p || p->ncpus <= 0)
		return -1;
	uint64_t n = (uint64_t)p->ncpus, k = (first % n + i % n) % n;

	return p->cpus[mirror ? n - 1 - k : k];
}

void topo_workers_text(const struct rb_place *p, uint64_t first, bool mirror, unsigned n,
		       char *buf, size_t len)
{
	struct rb_place w = { .ncpus = 0 };

	if (p && p->ncpus > 0)
		for (unsigned i = 0; i < n && i < RB_MAX_CPUS; i++)
			w.cpus[w.ncpus++] = topo_worker_cpu(p, first, mirror, i);
	topo_cpus_text(&w, buf, len);
}

void topo_cpus_text(const struct rb_place *p, char *buf, size_t len)
{
	size_t off = 0;

	buf[0] = '\0';
	for (int i = 0; i < p->ncpus; i++) {
		int w = snprintf(buf + off, len - off, "%s%d", i ? " " : "", p->cpus[i]);
		if (w < 0 || (size_t)w >= len - off - 4) {
			snprintf(buf + off, len - off, " ...");
			return;
		}
		off += (size_t)w;
	}
}

/* Whether the mapping at addr is backed by transparent huge pages: its
 * /proc/self/smaps entry's AnonHugePages is above 0 kB. */
static bool thp_backed(const void *addr)
{
	FILE *f = fopen("/proc/self/smaps", "r");
	char line[512];
	bool in = false, yes = false;
	uintptr_t a = (uintptr_t)addr;

	if (!f)
		return false;
	while (fgets(line, sizeof(line), f)) {
		unsigned long lo, hi;
		unsigned long kb;
		if (sscanf(line, "%lx-%lx ", &lo, &hi) == 2 && strchr(line, '-') < strchr(line, ' ')) {
			in = a >= lo && a < hi;
		} else if (in && sscanf(line, "AnonHugePages: %lu kB", &kb) == 1) {
			yes = kb > 0;
			break;
		}
	}
	fclose(f);
	return yes;
}

/* A 2 MiB-aligned anonymous mapping of len bytes (len a multiple of 2 MiB)
 * with madvise(MADV_HUGEPAGE); NULL with errno on failure. */
static void *map_thp(size_t len, char *why, size_t whylen)
{
	size_t over = len + RB_HUGE_PAGE;
	uint8_t *m = mmap(NULL, over, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (m == MAP_FAILED)
		return NULL;
	uintptr_t start = ((uintptr_t)m + RB_HUGE_PAGE - 1) & ~(uintptr_t)(RB_HUGE_PAGE - 1);
	size_t head = start - (uintptr_t)m, tail = over - head - len;
	if (head)
		munmap(m, head);
	if (tail)
		munmap((uint8_t *)start + len, tail);
	if (madvise((void *)start, len, MADV_HUGEPAGE)) {
		size_t o = strlen(why);
		snprintf(why + o, whylen - o, "; madvise(MADV_HUGEPAGE): %s", strerror(errno));
	}
	return (void *)start;
}

int topo_buf_map(struct rb_buf *b, size_t len, bool huge)
{
	long pg = sysconf(_SC_PAGESIZE);
	size_t base = pg > 0 ? (size_t)pg : 4096;

	memset(b, 0, sizeof(*b));
	b->page_size = base;
	b->source = "base";
	if (huge) {
		b->len = (len + RB_HUGE_PAGE - 1) & ~(size_t)(RB_HUGE_PAGE - 1);
		void *m = mmap(NULL, b->len, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS | MAP_HUGETLB, -1, 0);
		if (m != MAP_FAILED) {
			b->p = m;
			b->page_size = RB_HUGE_PAGE;
			b->source = "hugetlb";
			memset(b->p, 0, b->len);
			return 0;
		}
		snprintf(b->why, sizeof(b->why), "MAP_HUGETLB: %s (vm.nr_hugepages)",
			 strerror(errno));
		b->p = map_thp(b->len, b->why, sizeof(b->why));
		if (!b->p)
			return -1;
		memset(b->p, 0, b->len);
		if (thp_backed(b->p)) {
			b->page_size = RB_HUGE_PAGE;
			b->source = "thp";
		} else {
			b->source = "base-fallback";
		}
		return 0;
	}
	b->len = (len + base - 1) / base * base;
	void *m = mmap(NULL, b->len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (m == MAP_FAILED)
		return -1;
	b->p = m;
	memset(b->p, 0, b->len);
	return 0;
}

void topo_buf_unmap(struct rb_buf *b)
{
	if (b->p)
		munmap(b->p, b->len);
	b->p = NULL;
}
