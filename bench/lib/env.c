/*
 * env.c - the environment columns of a row (docs/csv.md, "Environment"):
 * host, kernel, CPU model, VM accelerator, source revision and the clock
 * with its measured read cost.
 *
 * How it works: env_collect() reads /proc and uname once per process;
 * rdma_bench and rdma_seq both call it at start and copy the struct into
 * every row they write.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "env.h"
#include "log.h"
#include "timing.h"

#ifndef RB_GIT_REV
#define RB_GIT_REV ""
#endif

static void trim(char *s)
{
	size_t n = strlen(s);
	while (n && (s[n - 1] == '\n' || s[n - 1] == '\r' || s[n - 1] == ' '))
		s[--n] = '\0';
}

int env_read_line(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "r");
	if (!f)
		return -1;
	char *ok = fgets(buf, (int)len, f);
	fclose(f);
	if (!ok)
		return -1;
	trim(buf);
	return 0;
}

static void git_rev_runtime(char *out, size_t len);

void report_git_rev(char *out, size_t len)
{
	if (RB_GIT_REV[0])
		snprintf(out, len, "%s", RB_GIT_REV);
	else
		git_rev_runtime(out, len);
}

/* Revision of the tree the binary sits in, from .git (no git program needed). */
static void git_rev_runtime(char *out, size_t len)
{
	char exe[512], dir[512], line[256], path[1024];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);

	out[0] = '\0';
	if (n <= 0)
		return;
	exe[n] = '\0';
	snprintf(dir, sizeof(dir), "%s", exe);
	char *slash = strrchr(dir, '/');
	if (!slash)
		return;
	*slash = '\0';
	snprintf(path, sizeof(path), "%s/.git/HEAD", dir);
	if (env_read_line(path, line, sizeof(line)))
		return;
	if (strncmp(line, "ref: ", 5) != 0) {
		snprintf(out, len, "%.12s", line);
		return;
	}
	char ref[256];
	snprintf(ref, sizeof(ref), "%s", line + 5);
	snprintf(path, sizeof(path), "%s/.git/%s", dir, ref);
	if (env_read_line(path, line, sizeof(line)) == 0) {
		snprintf(out, len, "%.12s", line);
		return;
	}
	snprintf(path, sizeof(path), "%s/.git/packed-refs", dir);
	FILE *f = fopen(path, "r");
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		trim(line);
		char *sp = strchr(line, ' ');
		if (sp && strcmp(sp + 1, ref) == 0) {
			*sp = '\0';
			snprintf(out, len, "%.12s", line);
			break;
		}
	}
	fclose(f);
}

void env_accel(const char *cmdline, bool hypervisor, char *out, size_t len)
{
	const char *key = "rb.accel=";
	const char *p = cmdline;

	while (p && (p = strstr(p, key)) != NULL) {
		/* a whole word: at the start or after a space */
		if (p == cmdline || p[-1] == ' ') {
			const char *v = p + strlen(key);
			size_t n = 0;
			while (n < 15 && ((v[n] >= 'a' && v[n] <= 'z') || (v[n] >= '0' && v[n] <= '9')))
				n++;
			if (n > 0 && (v[n] == '\0' || v[n] == ' ' || v[n] == '\n')) {
				snprintf(out, len, "%.*s", (int)n, v);
				return;
			}
		}
		p += strlen(key);
	}
	snprintf(out, len, "%s", hypervisor ? "vm" : "none");
}

void env_collect(struct rb_env *e)
{
	struct utsname u;
	char line[256];

	memset(e, 0, sizeof(*e));
	if (gethostname(e->host, sizeof(e->host) - 1))
		snprintf(e->host, sizeof(e->host), "?");
	if (uname(&u) == 0)
		snprintf(e->kernel, sizeof(e->kernel), "%.63s", u.release);
	FILE *f = fopen("/proc/cpuinfo", "r");
	if (f) {
		while (fgets(line, sizeof(line), f))
			if (strncmp(line, "model name", 10) == 0) {
				char *c = strchr(line, ':');
				if (c) {
					c++;
					while (*c == ' ' || *c == '\t')
						c++;
					trim(c);
					snprintf(e->cpu_model, sizeof(e->cpu_model), "%s", c);
				}
				break;
			}
		fclose(f);
	}
	{
		char cmdline[1024] = "", flags[4096];
		bool hv = false;
		FILE *c = fopen("/proc/cmdline", "r");
		if (c) {
			if (!fgets(cmdline, sizeof(cmdline), c))
				cmdline[0] = '\0';
			fclose(c);
		}
		c = fopen("/proc/cpuinfo", "r");
		if (c) {
			/* the flags line is long: read it whole */
			while (fgets(flags, sizeof(flags), c))
				if (strncmp(flags, "flags", 5) == 0) {
					hv = strstr(flags, " hypervisor") != NULL;
					break;
				}
			fclose(c);
		}
		env_accel(cmdline, hv, e->accel, sizeof(e->accel));
	}
	report_git_rev(e->git_rev, sizeof(e->git_rev));
	snprintf(e->clock, sizeof(e->clock), "%s", timing_clock_name());
	timing_clocksource_read(TIMING_CLOCKSOURCE_FILE, e->clocksource, sizeof(e->clocksource));
	timing_clocksource_read(TIMING_CLOCKSOURCES_FILE, e->clocksources, sizeof(e->clocksources));
	struct timing_clock_info ci;
	char err[256];
	e->clock_read_ns = NAN;
	if (timing_probe(&ci, err, sizeof(err)) == 0) {
		e->clock_read_ns = ci.read_ns;
		e->clock_res_ns = ci.res_ns;
		e->clock_step_ns = ci.step_ns;
	}
}

void env_log_clock(const struct rb_env *e)
{
	char warn[768];
#if defined(__x86_64__) || defined(__i386__)
	const int x86 = 1;
#else
	const int x86 = 0;
#endif

	if (isnan(e->clock_read_ns))
		rb_info("clock %s, clocksource %s: read cost not measured (the clock probe failed)",
			e->clock, e->clocksource[0] ? e->clocksource : "unknown");
	else
		rb_info("clock %s, clocksource %s: one read costs %.1f ns (resolution %llu ns, "
			"smallest step seen %llu ns); two reads per latency sample", e->clock,
			e->clocksource[0] ? e->clocksource : "unknown", e->clock_read_ns,
			(unsigned long long)e->clock_res_ns, (unsigned long long)e->clock_step_ns);
	if (timing_clock_warning(e->clocksource, e->clocksources, e->clock_read_ns, x86, warn,
				 sizeof(warn)))
		rb_warn("%s", warn);
}

