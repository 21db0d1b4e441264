/*
 * perfcount.c - perf_event_open(2) counters around a measured window (see
 * perfcount.h). The kernel source opens one counter per event on the
 * calling thread (pid 0, any CPU), reading value, time enabled and time
 * running (PERF_FORMAT_TOTAL_TIME_ENABLED | _RUNNING) so that multiplexed
 * counters are scaled as perf stat scales them.
 */
#include "perfcount.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

static const struct {
	const char *name;
	uint32_t type;
	uint64_t config;
} events[PC_NEVENTS] = {
	[PC_TASK_CLOCK] = { "task_clock_ns", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK },
	[PC_CTX_SWITCHES] = { "context_switches", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CONTEXT_SWITCHES },
	[PC_CPU_MIGRATIONS] = { "cpu_migrations", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_MIGRATIONS },
	[PC_PAGE_FAULTS] = { "page_faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS },
	[PC_CYCLES] = { "cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES },
	[PC_INSTRUCTIONS] = { "instructions", PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS },
	[PC_CACHE_MISSES] = { "cache_misses", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_MISSES },
};

const char *pc_event_name(enum pc_event ev)
{
	return (unsigned)ev < PC_NEVENTS ? events[ev].name : "?";
}

int pc_event_is_hw(enum pc_event ev)
{
	return (unsigned)ev < PC_NEVENTS && events[ev].type == PERF_TYPE_HARDWARE;
}

void pc_event_attr(enum pc_event ev, int exclude_kernel, struct perf_event_attr *attr)
{
	*attr = (struct perf_event_attr){
		.size = sizeof(*attr),
		.type = events[ev].type,
		.config = events[ev].config,
		.read_format = PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING,
		.exclude_kernel = exclude_kernel ? 1 : 0,
		.exclude_hv = 1,
	};
}

static int kernel_open(void *ctx, enum pc_event ev, int exclude_kernel)
{
	(void)ctx;
	struct perf_event_attr attr;

	pc_event_attr(ev, exclude_kernel, &attr);
	long fd = syscall(SYS_perf_event_open, &attr, 0 /* this thread */, -1 /* any CPU */,
			  -1 /* no group */, PERF_FLAG_FD_CLOEXEC);
	return fd < 0 ? -errno : (int)fd;
}

static int kernel_read(void *ctx, int handle, uint64_t *value, uint64_t *enabled, uint64_t *running)
{
	(void)ctx;
	uint64_t buf[3];
	ssize_t n;
	do
		n = read(handle, buf, sizeof(buf));
	while (n < 0 && errno == EINTR);
	if (n < 0)
		return -errno;
	if (n != (ssize_t)sizeof(buf))
		return -EIO;
	*value = buf[0];
	*enabled = buf[1];
	*running = buf[2];
	return 0;
}

static void kernel_close(void *ctx, int handle)
{
	(void)ctx;
	close(handle);
}

const struct pc_source pc_source_kernel = {
	.open = kernel_open,
	.read = kernel_read,
	.close = kernel_close,
};

/* The paranoia level, for the reason text; -1 if unreadable. */
static int paranoid_level(void)
{
	FILE *f = fopen("/proc/sys/kernel/perf_event_paranoid", "r");
	int v = -1;
	if (f != NULL) {
		if (fscanf(f, "%d", &v) != 1)
			v = -1;
		fclose(f);
	}
	return v;
}

static void set_reason(char *dst, enum pc_event ev, int err)
{
	switch (err) {
	case ENOENT:
	case EOPNOTSUPP:
	case EINVAL:
		/* short enough for a CSV value (95 bytes) */
		snprintf(dst, PC_REASON_MAX, "%s: not offered by this CPU's PMU (%s, e.g. a VM without a virtual PMU)",
			 pc_event_name(ev), err == ENOENT ? "ENOENT" : err == EINVAL ? "EINVAL" : "EOPNOTSUPP");
		break;
	case EACCES:
	case EPERM:
		snprintf(dst, PC_REASON_MAX, "%s: not permitted (kernel.perf_event_paranoid=%d; CAP_PERFMON or a lower value)",
			 pc_event_name(ev), paranoid_level());
		break;
	case ENOSYS:
		snprintf(dst, PC_REASON_MAX, "%s: perf_event_open unavailable (kernel without perf events, or blocked)",
			 pc_event_name(ev));
		break;
	default:
		snprintf(dst, PC_REASON_MAX, "%s: %s", pc_event_name(ev), strerror(err));
		break;
	}
}

int pc_open(struct perfcount *p, const struct pc_source *src, void *ctx)
{
	memset(p, 0, sizeof(*p));
	p->src = src != NULL ? src : &pc_source_kernel;
	p->ctx = ctx;
	int n = 0;
	for (int i = 0; i < PC_NEVENTS; i++) {
		int h = p->src->open(p->ctx, (enum pc_event)i, 0);
		if (h == -EACCES || h == -EPERM) {
			/* kernel.perf_event_paranoid >= 2 refuses kernel-mode
			 * counting to unprivileged users: count user space only */
			h = p->src->open(p->ctx, (enum pc_event)i, 1);
			p->user_only[i] = h >= 0;
		}
		p->handle[i] = h >= 0 ? h : -1;
		if (h >= 0)
			n++;
		else
			set_reason(p->reason[i], (enum pc_event)i, -h);
	}
	return n;
}

void pc_none(struct perfcount *p, const char *why)
{
	memset(p, 0, sizeof(*p));
	p->src = &pc_source_kernel;
	for (int i = 0; i < PC_NEVENTS; i++) {
		p->handle[i] = -1;
		snprintf(p->reason[i], PC_REASON_MAX, "%s", why);
	}
}

void pc_start(struct perfcount *p)
{
	for (int i = 0; i < PC_NEVENTS; i++) {
		p->started[i] = 0;
		if (p->handle[i] < 0)
			continue;
		int rc = p->src->read(p->ctx, p->handle[i], &p->v0[i], &p->e0[i], &p->r0[i]);
		if (rc == 0)
			p->started[i] = 1;
		else
			snprintf(p->reason[i], PC_REASON_MAX, "%s: reading at the window's start failed: %s",
				 pc_event_name((enum pc_event)i), strerror(-rc));
	}
}

void pc_stop(struct perfcount *p, struct pc_sample *s)
{
	memset(s, 0, sizeof(*s));
	for (int i = 0; i < PC_NEVENTS; i++) {
		s->user_only[i] = p->user_only[i];
		if (p->handle[i] < 0 || !p->started[i]) {
			snprintf(s->reason[i], PC_REASON_MAX, "%s", p->reason[i]);
			continue;
		}
		uint64_t v, e, r;
		int rc = p->src->read(p->ctx, p->handle[i], &v, &e, &r);
		if (rc != 0) {
			snprintf(s->reason[i], PC_REASON_MAX, "%s: reading at the window's end failed: %s",
				 pc_event_name((enum pc_event)i), strerror(-rc));
			continue;
		}
		if (v < p->v0[i] || e < p->e0[i] || r < p->r0[i]) {
			snprintf(s->reason[i], PC_REASON_MAX, "%s: the counter went backwards", pc_event_name((enum pc_event)i));
			continue;
		}
		uint64_t dv = v - p->v0[i], de = e - p->e0[i], dr = r - p->r0[i];
		if (de > 0 && dr == 0) {
			/* enabled but never scheduled on the PMU in the window */
			snprintf(s->reason[i], PC_REASON_MAX, "%s: never scheduled on the PMU in the window (too many counters)",
				 pc_event_name((enum pc_event)i));
			continue;
		}
		if (dr < de) {
			/* multiplexed: scale as perf stat does */
			dv = (uint64_t)((double)dv * (double)de / (double)dr + 0.5);
			s->scaled[i] = 1;
		}
		s->value[i] = dv;
		s->valid[i] = 1;
	}
}

void pc_close(struct perfcount *p)
{
	for (int i = 0; i < PC_NEVENTS; i++) {
		if (p->handle[i] >= 0)
			p->src->close(p->ctx, p->handle[i]);
		p->handle[i] = -1;
	}
}

void pc_sample_zero(struct pc_sample *s)
{
	memset(s, 0, sizeof(*s));
	for (int i = 0; i < PC_NEVENTS; i++)
		s->valid[i] = 1;
}

void pc_sample_add(struct pc_sample *dst, const struct pc_sample *src)
{
	for (int i = 0; i < PC_NEVENTS; i++) {
		if (!src->valid[i] && dst->valid[i])
			snprintf(dst->reason[i], PC_REASON_MAX, "%s", src->reason[i]);
		dst->valid[i] = dst->valid[i] && src->valid[i];
		dst->value[i] = dst->valid[i] ? dst->value[i] + src->value[i] : 0;
		dst->scaled[i] |= src->scaled[i];
		dst->user_only[i] |= src->user_only[i];
	}
}

static double per_op(const struct pc_sample *s, enum pc_event ev, uint64_t ops)
{
	if (!s->valid[ev] || ops == 0)
		return NAN;
	return (double)s->value[ev] / (double)ops;
}

void pc_per_op(const struct pc_sample *s, uint64_t ops, struct pc_per_op *out)
{
	out->cpu_ns_per_op = per_op(s, PC_TASK_CLOCK, ops);
	out->instructions_per_op = per_op(s, PC_INSTRUCTIONS, ops);
	out->cycles_per_op = per_op(s, PC_CYCLES, ops);
}
