/*
 * pcieperf.c - the NIC's PCIe reads and writes from the CPU's uncore CHA
 * counters (pcieperf.h; the paper's Section 2.1 "PCIe counters").
 *
 * How it works: pp_pick() finds the CPU generation in /proc/cpuinfo and its
 * TOR_INSERTS encoding; pp_open() lists the uncore_cha_N PMUs in sysfs,
 * builds each event's config from the PMU's own format files (the bit
 * positions of event, umask and umask_ext differ between kernels and
 * generations, so they are read, never assumed) and opens one counter per
 * opcode per box on the CPU the PMU's cpumask names. A window's count is
 * the sum over boxes; the idle rate measured by pp_baseline() times the
 * window is subtracted, since the counters see every device of the socket.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "pcieperf.h"
#include "timing.h"

/* Intel's published uncore event lists: UNC_CHA_TOR_INSERTS.IO_PCIRDCUR
 * (UMask 0xC8F3FF04), .IO_ITOM (0xCC43FF04), .IO_ITOMCACHENEAR
 * (0xCD43FF04): the low byte is umask, the rest umask_ext. */
static const struct pp_encoding enc_tor = {
	.cpu = "Ice Lake-SP / Sapphire Rapids / Emerald Rapids",
	.event = 0x35, .umask = 0x04,
	.umask_ext = { [PP_RD] = { 0xC8F3FF, 0 }, [PP_WR] = { 0xCC43FF, 0xCD43FF } },
};

/* family 6 models with that encoding: ICX 0x6A, 0x6C; SPR 0x8F; EMR 0xCF */
static const unsigned tor_models[] = { 0x6A, 0x6C, 0x8F, 0xCF };

static int cpuinfo_field(const char *text, const char *key, char *out, size_t len)
{
	size_t kl = strlen(key);
	for (const char *l = text; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL) {
		if (strncmp(l, key, kl) != 0 || (l[kl] != ' ' && l[kl] != '\t' && l[kl] != ':'))
			continue;
		const char *c = strchr(l, ':');
		if (c == NULL)
			return -1;
		c++;
		while (*c == ' ' || *c == '\t')
			c++;
		size_t n = strcspn(c, "\n");
		if (n >= len)
			n = len - 1;
		memcpy(out, c, n);
		out[n] = '\0';
		return 0;
	}
	return -1;
}

const struct pp_encoding *pp_pick(const char *cpuinfo, char *why, size_t len)
{
	char vendor[32], family[16], model[16];
	if (cpuinfo == NULL || cpuinfo_field(cpuinfo, "vendor_id", vendor, sizeof(vendor)) ||
	    cpuinfo_field(cpuinfo, "cpu family", family, sizeof(family)) ||
	    cpuinfo_field(cpuinfo, "model", model, sizeof(model))) {
		snprintf(why, len, "no uncore PCIe counters: /proc/cpuinfo names no vendor, family and model");
		return NULL;
	}
	if (strcmp(vendor, "GenuineIntel") != 0) {
		snprintf(why, len, "no uncore PCIe counters encoded for %s CPUs (Intel Xeon CHA only)", vendor);
		return NULL;
	}
	unsigned f = (unsigned)strtoul(family, NULL, 10), m = (unsigned)strtoul(model, NULL, 10);
	for (size_t i = 0; f == 6 && i < sizeof(tor_models) / sizeof(tor_models[0]); i++)
		if (m == tor_models[i])
			return &enc_tor;
	snprintf(why, len, "no uncore PCIe encoding for Intel family %u model 0x%X (known: Ice Lake-SP, "
		 "Sapphire and Emerald Rapids)", f, m);
	return NULL;
}

int pp_format_put(const char *format, uint64_t value, uint64_t *config, char *why, size_t len)
{
	if (strncmp(format, "config:", 7) != 0) {
		snprintf(why, len, "format '%s': not a config field (config:LO-HI)", format);
		return -1;
	}
	const char *s = format + 7;
	uint64_t v = value;
	while (*s && *s != '\n') {
		char *end;
		unsigned long lo = strtoul(s, &end, 10), hi = lo;
		if (end == s)
			goto bad;
		if (*end == '-') {
			s = end + 1;
			hi = strtoul(s, &end, 10);
			if (end == s)
				goto bad;
		}
		if (hi < lo || hi > 63)
			goto bad;
		unsigned width = (unsigned)(hi - lo + 1);
		uint64_t mask = width == 64 ? ~0ULL : ((1ULL << width) - 1);
		*config |= (v & mask) << lo;
		v = width == 64 ? 0 : v >> width;
		s = end;
		if (*s == ',')
			s++;
		else if (*s && *s != '\n')
			goto bad;
	}
	if (v != 0) {
		snprintf(why, len, "value 0x%llx is wider than format '%s'", (unsigned long long)value, format);
		return -1;
	}
	return 0;
bad:
	snprintf(why, len, "format '%s': expected config:LO-HI[,LO-HI]", format);
	return -1;
}

static int read_small(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "r");
	if (f == NULL)
		return -1;
	size_t n = fread(buf, 1, len - 1, f);
	fclose(f);
	buf[n] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
	return 0;
}

static int kernel_open(void *ctx, uint32_t type, uint64_t config, int cpu)
{
	(void)ctx;
	struct perf_event_attr attr = {
		.size = sizeof(attr),
		.type = type,
		.config = config,
	};
	long fd = syscall(SYS_perf_event_open, &attr, -1 /* every task */, cpu, -1, PERF_FLAG_FD_CLOEXEC);
	return fd < 0 ? -errno : (int)fd;
}

static int kernel_read(void *ctx, int handle, uint64_t *value)
{
	(void)ctx;
	ssize_t n;
	do
		n = read(handle, value, sizeof(*value));
	while (n < 0 && errno == EINTR);
	return n == (ssize_t)sizeof(*value) ? 0 : (n < 0 ? -errno : -EIO);
}

static void kernel_close(void *ctx, int handle)
{
	(void)ctx;
	close(handle);
}

const struct pp_source pp_source_kernel = { kernel_open, kernel_read, kernel_close };

/* The config of one opcode on the PMU at dir, from its format files. */
static int box_config(const char *dir, const struct pp_encoding *e, uint64_t ext, uint64_t *config,
		      char *why, size_t len)
{
	static const char *const field[] = { "event", "umask", "umask_ext" };
	const uint64_t val[] = { e->event, e->umask, ext };
	*config = 0;
	for (int i = 0; i < 3; i++) {
		char path[1200], fmt[64];
		snprintf(path, sizeof(path), "%s/format/%s", dir, field[i]);
		if (read_small(path, fmt, sizeof(fmt))) {
			snprintf(why, len, "%.60s: no format/%s (a kernel without this CHA's opcode filter)",
				 strrchr(dir, '/') ? strrchr(dir, '/') + 1 : dir, field[i]);
			return -1;
		}
		if (pp_format_put(fmt, val[i], config, why, len))
			return -1;
	}
	return 0;
}

static void open_reason(struct pcieperf *p, int err)
{
	if (err == EACCES || err == EPERM)
		snprintf(p->reason, sizeof(p->reason), "uncore PCIe counters not permitted "
			 "(system-wide events need kernel.perf_event_paranoid <= 0 or CAP_PERFMON)");
	else
		snprintf(p->reason, sizeof(p->reason), "uncore PCIe counters: perf_event_open: %s",
			 strerror(err));
}

/* Opens box dir's events; 0, or -errno of the first failure. */
static int open_box(struct pcieperf *p, const char *dir, char *why, size_t len)
{
	char buf[64];
	char path[1200];
	snprintf(path, sizeof(path), "%s/type", dir);
	if (read_small(path, buf, sizeof(buf)))
		return -ENOENT;
	uint32_t type = (uint32_t)strtoul(buf, NULL, 10);
	snprintf(path, sizeof(path), "%s/cpumask", dir);
	int cpu = read_small(path, buf, sizeof(buf)) ? 0 : atoi(buf);
	for (int k = 0; k < PP_NKINDS; k++)
		for (int j = 0; j < 2 && p->enc->umask_ext[k][j]; j++) {
			uint64_t config;
			if (box_config(dir, p->enc, p->enc->umask_ext[k][j], &config, why, len))
				return -EINVAL;
			int h = p->src->open(p->ctx, type, config, cpu);
			if (h < 0)
				return h;
			p->handle[k][p->nh[k]++] = h;
		}
	return 0;
}

static void close_all(struct pcieperf *p)
{
	for (int k = 0; k < PP_NKINDS; k++) {
		for (int i = 0; i < p->nh[k]; i++)
			p->src->close(p->ctx, p->handle[k][i]);
		p->nh[k] = 0;
	}
	p->nbox = 0;
}

static char *slurp(const char *path)
{
	FILE *f = fopen(path, "r");
	if (f == NULL)
		return NULL;
	size_t cap = 1 << 16, n = 0;
	char *b = malloc(cap + 1);
	if (b != NULL)
		n = fread(b, 1, cap, f);
	fclose(f);
	if (b != NULL)
		b[n] = '\0';
	return b;
}

int pp_open(struct pcieperf *p, const char *sysfs, const char *cpuinfo_path,
	    const struct pp_source *src, void *ctx)
{
	memset(p, 0, sizeof(*p));
	p->src = src != NULL ? src : &pp_source_kernel;
	p->ctx = ctx;
	char *info = slurp(cpuinfo_path);
	p->enc = pp_pick(info, p->reason, sizeof(p->reason));
	free(info);
	if (p->enc == NULL)
		return 0;
	char devs[512];
	snprintf(devs, sizeof(devs), "%s/bus/event_source/devices", sysfs);
	DIR *d = opendir(devs);
	struct dirent *de;
	while (d != NULL && (de = readdir(d)) != NULL && p->nbox < PP_MAXBOX) {
		if (strncmp(de->d_name, "uncore_cha_", 11) != 0 || !isdigit((unsigned char)de->d_name[11]))
			continue;
		char dir[1024];
		snprintf(dir, sizeof(dir), "%s/%s", devs, de->d_name);
		int rc = open_box(p, dir, p->reason, sizeof(p->reason));
		if (rc < 0) {
			if (rc != -EINVAL)
				open_reason(p, -rc);
			close_all(p);
			closedir(d);
			return 0;
		}
		p->nbox++;
	}
	if (d != NULL)
		closedir(d);
	if (p->nbox == 0)
		snprintf(p->reason, sizeof(p->reason), "no uncore_cha PMU in %.64s (a VM, or a kernel "
			 "without the uncore driver)", devs);
	return p->nbox;
}

/* The sum over boxes of each kind; -1 with reason on a read error. */
static int read_all(struct pcieperf *p, uint64_t sum[PP_NKINDS])
{
	for (int k = 0; k < PP_NKINDS; k++) {
		sum[k] = 0;
		for (int i = 0; i < p->nh[k]; i++) {
			uint64_t v;
			int rc = p->src->read(p->ctx, p->handle[k][i], &v);
			if (rc < 0) {
				snprintf(p->reason, sizeof(p->reason), "uncore PCIe counters: read: %s", strerror(-rc));
				return -1;
			}
			sum[k] += v;
		}
	}
	return 0;
}

double pp_net(uint64_t raw, double idle_rate, double seconds)
{
	double n = (double)raw - idle_rate * seconds;
	return n > 0 ? n : 0;
}

void pp_start(struct pcieperf *p)
{
	if (p->nbox > 0 && read_all(p, p->v0) == 0)
		p->t0_ns = timing_now_ns();
}

void pp_stop(struct pcieperf *p, struct pp_sample *s)
{
	memset(s, 0, sizeof(*s));
	uint64_t v1[PP_NKINDS];
	if (p->nbox == 0 || p->t0_ns == 0 || read_all(p, v1) != 0) {
		snprintf(s->reason, sizeof(s->reason), "%s", p->reason[0] ? p->reason : "uncore PCIe counters not started");
		return;
	}
	s->window_s = timing_elapsed_s(p->t0_ns, timing_now_ns());
	for (int k = 0; k < PP_NKINDS; k++) {
		s->raw[k] = v1[k] - p->v0[k];
		s->net[k] = pp_net(s->raw[k], p->idle_rate[k], s->window_s);
	}
	s->valid = 1;
}

void pp_baseline(struct pcieperf *p, double seconds)
{
	if (p->nbox == 0 || !(seconds >= 0.01 && seconds <= 10))
		return;
	struct pp_sample s;
	pp_start(p);
	struct timespec ts = { (time_t)seconds, (long)((seconds - (double)(time_t)seconds) * 1e9) };
	while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
		;
	pp_stop(p, &s);
	for (int k = 0; s.valid && s.window_s > 0 && k < PP_NKINDS; k++)
		p->idle_rate[k] = (double)s.raw[k] / s.window_s;
	p->t0_ns = 0;
}

void pp_close(struct pcieperf *p)
{
	close_all(p);
}
