/*
 * test_cpustat.c - CPU utilisation from /proc/stat (cpustat.h) against fake
 * /proc/stat texts: what is counted (user + nice + system + irq + softirq
 * of the CPUs in the mask; guest time not twice), refusals, and a read of
 * this host's file.
 */
#include "unit.h"
#include <unistd.h>

#include "cpustat.h"
#include "output.h"

#define assert_has_text(s, needle) assert_err_has((s), (needle))

/* Two snapshots of a 4-CPU host, 1 s apart (100 ticks per CPU): cpu0
 * busy in user space, cpu1 in softirq (soft-RoCE's protocol work), cpu2
 * in irq and system, cpu3 idle. The "cpu " total line and the other
 * lines must be ignored. */
static const char *const stat0 =
	"cpu  9999 9999 9999 9999 9999 9999 9999 0 0 0\n"
	"cpu0 1000 0 100 5000 0 0 0 0 300 0\n"
	"cpu1 200 0 100 5000 0 0 1000 0 0 0\n"
	"cpu2 200 0 100 5000 0 10 0 0 0 0\n"
	"cpu3 200 0 100 5000 0 0 0 0 0 0\n"
	"intr 123 4 5\nctxt 99\nsoftirq 1 2 3\n";
static const char *const stat1 =
	"cpu  1 1 1 1 1 1 1 0 0 0\n"
	"cpu0 1090 5 100 5005 0 0 0 0 390 0\n"   /* user 90 (of it guest 90), nice 5, idle 5 */
	"cpu1 200 0 110 5010 0 0 1080 0 0 0\n"   /* system 10, softirq 80, idle 10 */
	"cpu2 200 0 150 5020 0 30 0 10 0 0\n"    /* system 50, irq 20, idle 20, steal 10 */
	"cpu3 200 0 100 5098 2 0 0 0 0 0\n"      /* idle 98, iowait 2 */
	"intr 456\n";

static void counts_busy_irq_softirq(void **state)
{
	(void)state;
	struct cs_snap a, b;
	struct cs_delta d;
	struct cs_util u;
	char why[CS_REASON_MAX] = "";

	assert_int_equal(cs_parse(stat0, NULL, &a, why, sizeof(why)), 0);
	assert_int_equal(a.ncpus, 4);
	assert_int_equal(a.user, 1600);
	assert_int_equal(a.softirq, 1000);
	assert_int_equal(cs_parse(stat1, NULL, &b, why, sizeof(why)), 0);
	assert_int_equal(cs_diff(&a, &b, &d, why, sizeof(why)), 0);
	assert_int_equal(d.ncpus, 4);
	assert_int_equal(d.user, 95);      /* user 90 + nice 5; guest (inside user) not again */
	assert_int_equal(d.system, 60);
	assert_int_equal(d.irq, 20);
	assert_int_equal(d.softirq, 80);
	/* every tick of 4 CPUs x 100: 95 + 60 + 20 + 80 busy, idle 5 + 10 + 20 + 98,
	 * iowait 2, steal 10 */
	assert_int_equal(d.total, 400);
	assert_int_equal(cs_util(&d, &u), 0);
	assert_close(u.busy_pct, 100.0 * 255 / 400, 1e-12);
	assert_close(u.softirq_pct, 20.0, 1e-12);
	assert_close(u.irq_pct, 5.0, 1e-12);
	assert_close(u.user_pct + u.system_pct + u.irq_pct + u.softirq_pct, u.busy_pct, 1e-12);
}

static void mask_selects_cpus(void **state)
{
	(void)state;
	struct cs_snap a, b;
	struct cs_delta d;
	struct cs_util u;
	char why[CS_REASON_MAX] = "";
	cpu_set_t m;

	CPU_ZERO(&m);
	CPU_SET(1, &m);   /* the softirq CPU alone */
	assert_int_equal(cs_parse(stat0, &m, &a, why, sizeof(why)), 0);
	assert_int_equal(cs_parse(stat1, &m, &b, why, sizeof(why)), 0);
	assert_int_equal(a.ncpus, 1);
	assert_int_equal(cs_diff(&a, &b, &d, why, sizeof(why)), 0);
	assert_int_equal(cs_util(&d, &u), 0);
	assert_close(u.busy_pct, 90.0, 1e-12);
	assert_close(u.softirq_pct, 80.0, 1e-12);
	assert_close(u.user_pct, 0.0, 0);

	/* a mask with no listed CPU is refused, saying so */
	CPU_ZERO(&m);
	CPU_SET(7, &m);
	assert_int_equal(cs_parse(stat0, &m, &a, why, sizeof(why)), -1);
	assert_err_has(why, "affinity mask");
}

static void refusals(void **state)
{
	(void)state;
	struct cs_snap a, b;
	struct cs_delta d;
	struct cs_util u;
	char why[CS_REASON_MAX] = "";

	assert_int_equal(cs_parse("cpu  1 2 3 4 5 6 7 8\nintr 1\n", NULL, &a, why, sizeof(why)), -1);
	assert_err_has(why, "no per-CPU line");
	assert_int_equal(cs_parse("cpu0 1 2 3 4 5 6\n", NULL, &a, why, sizeof(why)), -1);
	assert_err_has(why, "cpu0 line has fewer than 8 fields");
	assert_int_equal(cs_parse("", NULL, &a, why, sizeof(why)), -1);

	/* backwards, CPU count changed, no tick */
	assert_int_equal(cs_parse(stat1, NULL, &a, why, sizeof(why)), 0);
	assert_int_equal(cs_parse(stat0, NULL, &b, why, sizeof(why)), 0);
	assert_int_equal(cs_diff(&a, &b, &d, why, sizeof(why)), -1);
	assert_err_has(why, "went backwards");
	assert_int_equal(d.ncpus, 0);
	assert_int_equal(cs_util(&d, &u), -1);
	assert_true(isnan(u.busy_pct));
	assert_int_equal(cs_parse("cpu0 1 1 1 1 1 1 1 1\n", NULL, &b, why, sizeof(why)), 0);
	assert_int_equal(cs_diff(&a, &b, &d, why, sizeof(why)), -1);
	assert_err_has(why, "4 CPUs counted at the window's start, 1 at its end");
	assert_int_equal(cs_diff(&b, &b, &d, why, sizeof(why)), -1);
	assert_err_has(why, "no tick elapsed");
}

/* The file path: a fake file read through cs_read, a missing one named,
 * and this host's /proc/stat (at least the CPU this thread runs on). */
static void reads_files(void **state)
{
	(void)state;
	struct cs_snap a;
	char why[CS_REASON_MAX] = "", path[] = "/tmp/rb_cpustat_XXXXXX";
	int fd = mkstemp(path);

	assert_true(fd >= 0);
	assert_int_equal(write(fd, stat0, strlen(stat0)), (ssize_t)strlen(stat0));
	close(fd);
	cpu_set_t self;
	assert_int_equal(sched_getaffinity(0, sizeof(self), &self), 0);
	int expect = 0;
	for (int i = 0; i < 4; i++)
		expect += CPU_ISSET(i, &self) ? 1 : 0;
	int rc = cs_read(path, &a, why, sizeof(why));
	unlink(path);
	if (expect > 0) {
		assert_int_equal(rc, 0);
		assert_int_equal(a.ncpus, (uint32_t)expect);
	}
	assert_int_equal(cs_read("/nonexistent/stat", &a, why, sizeof(why)), -1);
	assert_err_has(why, "/nonexistent/stat: No such file");
	assert_int_equal(cs_read(NULL, &a, why, sizeof(why)), 0);
	assert_true(a.ncpus >= 1);
	assert_true(a.ncpus == (uint32_t)CPU_COUNT(&self));
}

/* The row and --explain from both ends' counters: this host's /proc/stat
 * readings and the server's CPU message (fake values), and what empties
 * them (thread rows, no CPU message, a /proc/stat that was not read). */
static void row_holds_both_ends(void **state)
{
	(void)state;
	static struct rb_opts o;
	static struct rb_env e;
	static struct rb_test t;
	static struct rb_point_info pi;
	static struct row r;
	char why[CS_REASON_MAX];

	unit_point_base(&o, &e, &t);
	pi = (struct rb_point_info){ .o = &o, .t = &t, .env = &e, .inline_used = -1,
				     .setup_us_per_qp = NAN, .gate_wait_s = NAN, .status = "ok",
				     .reason = "" };
	assert_int_equal(cs_parse(stat0, NULL, &pi.cs_before.snap, why, sizeof(why)), 0);
	assert_int_equal(cs_parse(stat1, NULL, &pi.cs_after.snap, why, sizeof(why)), 0);
	pi.cs_before.rc = pi.cs_after.rc = 0;
	/* the server: 2 threads, 0.3 s of CPU over a 1.5 s span, 3000 ops of the
	 * client's (all phases), 2 CPUs half busy in softirq; no PMU */
	struct pc_sample ss;
	pc_sample_zero(&ss);
	ss.value[PC_TASK_CLOCK] = 300000000ull;
	ss.value[PC_CTX_SWITCHES] = 12;
	for (int i = PC_CYCLES; i < PC_NEVENTS; i++) {
		ss.valid[i] = 0;
		snprintf(ss.reason[i], PC_REASON_MAX, "%s: not offered by this CPU's PMU",
			 pc_event_name((enum pc_event)i));
	}
	pi.have_server_cpu = true;
	pi.server_cpu = (struct ctrl_cpu){ .span_ns = 1500000000ull, .threads = 2,
		.stat = { .ncpus = 2, .user = 10, .system = 10, .irq = 0, .softirq = 100,
			  .total = 200 } };
	ctrl_cpu_from_sample(&pi.server_cpu, &ss);
	pi.client_ops_all = 3000;
	struct pc_sample cs;
	pc_sample_zero(&cs);
	cs.value[PC_TASK_CLOCK] = 2000000;
	struct rb_measure m = { .valid = true, .duration_s = 1, .ops = 1000, .pc = &cs,
				.pc_ops = 1000, .pc_span_s = 1 };

	report_build_row(&r, &pi, -1, &m);
	assert_string_equal(row_get(&r, "cpu_busy_pct"), "63.8");     /* 255 of 400 ticks */
	assert_string_equal(row_get(&r, "cpu_irq_pct"), "5.0");
	assert_string_equal(row_get(&r, "cpu_softirq_pct"), "20.0");
	assert_string_equal(row_get(&r, "cpu_stat_cpus"), "4");
	assert_string_equal(row_get(&r, "cpu_stat_reason"), "");
	assert_string_equal(row_get(&r, "server_cpu_busy_pct"), "60.0");
	assert_string_equal(row_get(&r, "server_cpu_softirq_pct"), "50.0");
	assert_string_equal(row_get(&r, "server_cpu_stat_cpus"), "2");
	assert_string_equal(row_get(&r, "server_perf_task_clock_ns"), "300000000");
	assert_string_equal(row_get(&r, "server_perf_context_switches"), "12");
	assert_string_equal(row_get(&r, "server_perf_cycles"), "");
	assert_string_equal(row_get(&r, "server_perf_threads"), "2");
	assert_string_equal(row_get(&r, "server_perf_span_s"), "1.500000");
	assert_string_equal(row_get(&r, "server_cpu_util_pct"), "20.0");
	assert_string_equal(row_get(&r, "server_cpu_ns_per_op"), "100000");
	assert_string_equal(row_get(&r, "server_cycles_per_op"), "");
	assert_string_equal(row_get(&r, "server_perf_reason"), "cycles: not offered by this CPU's PMU");
	char ex[1024];
	assert_int_equal(report_explain(&pi, &m, ex, sizeof(ex)), 0);
	assert_non_null(strstr(ex, "client CPU 2000 ns/op (CPUs 64 % busy, softirq 20 %), "
				   "server CPU 100000 ns/op (CPUs 60 % busy, softirq 50 %)"));

	/* a thread row: every one of them empty, with the reasons */
	report_build_row(&r, &pi, 0, &m);
	assert_string_equal(row_get(&r, "cpu_busy_pct"), "");
	assert_string_equal(row_get(&r, "server_perf_task_clock_ns"), "");
	assert_has_text(row_get(&r, "cpu_stat_reason"), "process row only");
	assert_has_text(row_get(&r, "server_perf_reason"), "no server counters");
	/* no CPU message from the server; /proc/stat not read at the start */
	pi.have_server_cpu = false;
	pi.cs_before.rc = 1;
	report_build_row(&r, &pi, -1, &m);
	assert_string_equal(row_get(&r, "cpu_busy_pct"), "");
	assert_has_text(row_get(&r, "cpu_stat_reason"), "not read");
	assert_string_equal(row_get(&r, "server_cpu_busy_pct"), "");
	assert_string_equal(row_get(&r, "server_cpu_ns_per_op"), "");
	assert_int_equal(report_explain(&pi, &m, ex, sizeof(ex)), 0);
	assert_non_null(strstr(ex, "client CPU 2000 ns/op, server CPU not counted"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(counts_busy_irq_softirq),
		cmocka_unit_test(mask_selects_cpus),
		cmocka_unit_test(refusals),
		cmocka_unit_test(reads_files),
		cmocka_unit_test(row_holds_both_ends),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
