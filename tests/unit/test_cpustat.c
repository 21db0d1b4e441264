/*
 * test_cpustat.c - CPU utilisation from /proc/stat (cpustat.h) against fake
 * /proc/stat texts: what is counted (user + nice + system + irq + softirq
 * of the CPUs in the mask; guest time not twice), refusals, and a read of
 * this host's file.
 */
#include "unit.h"
#include <unistd.h>

#include "cpustat.h"

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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(counts_busy_irq_softirq),
		cmocka_unit_test(mask_selects_cpus),
		cmocka_unit_test(refusals),
		cmocka_unit_test(reads_files),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
