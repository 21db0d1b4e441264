/*
 * env.h - the environment of a measurement (the environment columns of
 * docs/csv.md): collected once per process by env_collect().
 */
#ifndef RDMA_BENCH_ENV_H
#define RDMA_BENCH_ENV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct rb_env {
	char host[64];
	char kernel[64];
	char cpu_model[96];
	char git_rev[48];
	char clock[32];
	char clocksource[32];        /* kernel clocksource; "" = unknown (NA) */
	char clocksources[160];      /* available_clocksource, for the WARN's fix */
	double clock_read_ns;        /* cost of one clock read (timing_probe); NAN = not measured */
	uint64_t clock_res_ns, clock_step_ns;
	char accel[16];              /* VM accelerator: env_accel(); never empty */
};

/* The accelerator of the machine a row was measured on, into out (len
 * bytes): the value of an "rb.accel=A" word on the kernel command line
 * (cmdline, /proc/cmdline: the VM test bed passes tcg or kvm; A is cut at
 * 15 characters and must be a-z0-9), else "vm" when the CPU reports the
 * hypervisor flag (hypervisor true: a VM, accelerator unknown), else
 * "none" (bare metal). cmdline may be NULL. */
void env_accel(const char *cmdline, bool hypervisor, char *out, size_t len);

/* Host name, kernel release, CPU model, accelerator (env_accel from
 * /proc/cmdline and /proc/cpuinfo's flags), git revision (RB_GIT_REV at build
 * time, else .git beside the binary, else NA), clock name, clocksource and
 * the measured cost of one clock read (timing_probe, well under 1 ms). */
void env_collect(struct rb_env *e);

/* The source revision the binary was built from, into out (len bytes):
 * RB_GIT_REV (the Makefile's `git rev-parse --short=12 HEAD`, "+" for
 * local changes), else .git beside the binary, else "" (unknown). The
 * git_rev column and --version both use it. */
void report_git_rev(char *out, size_t len);

/* The clock INFO line, and the WARN line when the clocksource is not known
 * to be fast (timing_clock_warning): printed once at start. */
void env_log_clock(const struct rb_env *e);

/* The first line of the file at path into buf (len bytes), its line end
 * and trailing blanks removed (sysfs and /proc files). 0, or -1 when the
 * file cannot be read or is empty. */
int env_read_line(const char *path, char *buf, size_t len);

#endif
