/*
 * test_timing.c - the kernel clocksource behind the benchmark clock
 * (timing.h): which names are fast, when a WARN is due and what it says,
 * and the clock columns every row carries (report.h).
 */
#include "unit.h"

#include "options.h"
#include "report.h"
#include "timing.h"

#define assert_has(text, sub)                                                      \
	do {                                                                       \
		if (!strstr((text), (sub)))                                        \
			fail_msg("\"%s\" lacks \"%s\"", (text), (sub));            \
	} while (0)

static void tsc_is_the_fast_x86_clocksource(void **state)
{
	(void)state;
	assert_int_equal(timing_clocksource_kind("tsc"), TIMING_CS_TSC);
	/* as read from sysfs: with its newline, or padded */
	assert_int_equal(timing_clocksource_kind("tsc\n"), TIMING_CS_TSC);
	assert_int_equal(timing_clocksource_kind("  tsc \n"), TIMING_CS_TSC);
	assert_string_equal(timing_cs_kind_name(TIMING_CS_TSC), "tsc");
}

static void vdso_counters_of_other_platforms_are_fast(void **state)
{
	(void)state;
	assert_int_equal(timing_clocksource_kind("arch_sys_counter"), TIMING_CS_VDSO);
	assert_int_equal(timing_clocksource_kind("kvm-clock"), TIMING_CS_VDSO);
	assert_int_equal(timing_clocksource_kind("hyperv_clocksource_tsc_page\n"), TIMING_CS_VDSO);
}

static void device_clocksources_are_slow(void **state)
{
	(void)state;
	const char *slow[] = { "hpet", "acpi_pm", "pit", "jiffies", "refined-jiffies",
			       "hyperv_clocksource_msr", "hpet\n" };
	for (size_t i = 0; i < sizeof(slow) / sizeof(slow[0]); i++)
		if (timing_clocksource_kind(slow[i]) != TIMING_CS_SLOW)
			fail_msg("'%s' is not classified slow", slow[i]);
	assert_string_equal(timing_cs_kind_name(TIMING_CS_SLOW), "slow");
}

static void unlisted_and_missing_names(void **state)
{
	(void)state;
	/* exact names only: a prefix, a longer name or another case is not tsc */
	assert_int_equal(timing_clocksource_kind("TSC"), TIMING_CS_OTHER);
	assert_int_equal(timing_clocksource_kind("tsc-early"), TIMING_CS_OTHER);
	assert_int_equal(timing_clocksource_kind("ts"), TIMING_CS_OTHER);
	assert_int_equal(timing_clocksource_kind("hpet1"), TIMING_CS_OTHER);
	assert_int_equal(timing_clocksource_kind("riscv_clocksource"), TIMING_CS_OTHER);
	assert_int_equal(timing_clocksource_kind(""), TIMING_CS_UNKNOWN);
	assert_int_equal(timing_clocksource_kind(" \n"), TIMING_CS_UNKNOWN);
	assert_int_equal(timing_clocksource_kind(NULL), TIMING_CS_UNKNOWN);
	assert_string_equal(timing_cs_kind_name(TIMING_CS_OTHER), "other");
	assert_string_equal(timing_cs_kind_name(TIMING_CS_UNKNOWN), "unknown");
}

static void fast_or_unknown_clocksource_gives_no_warning(void **state)
{
	(void)state;
	char w[512] = "x";
	assert_int_equal(timing_clock_warning("tsc", "tsc hpet acpi_pm", 25.0, 1, w, sizeof(w)), 0);
	assert_string_equal(w, "");
	assert_int_equal(timing_clock_warning("kvm-clock", "kvm-clock tsc", 40.0, 1, w, sizeof(w)),
			 0);
	assert_int_equal(timing_clock_warning("arch_sys_counter", "arch_sys_counter", 30.0, 0, w,
					      sizeof(w)), 0);
	/* unreadable sysfs: nothing is claimed (clock_read_ns still tells) */
	assert_int_equal(timing_clock_warning("", "", 25.0, 1, w, sizeof(w)), 0);
	assert_string_equal(w, "");
}

static void hpet_warning_names_value_effect_and_fix(void **state)
{
	(void)state;
	char w[512];
	/* tsc available: switch at run time */
	assert_int_equal(timing_clock_warning("hpet", "tsc hpet acpi_pm ", 1234.4, 1, w, sizeof(w)),
			 1);
	assert_has(w, "clocksource is hpet, not tsc");
	assert_has(w, "system call plus a slow device read");
	assert_has(w, "1234 ns");
	assert_has(w, "latencies are inflated");
	assert_has(w, "echo tsc > /sys/devices/system/clocksource/clocksource0/current_clocksource");
	/* tsc not offered by the kernel (a VM that distrusts it): kernel parameters */
	assert_int_equal(timing_clock_warning("acpi_pm", "hpet acpi_pm", NAN, 1, w, sizeof(w)), 1);
	assert_has(w, "clocksource is acpi_pm");
	assert_has(w, "tsc=reliable clocksource=tsc");
	if (strstr(w, " ns here"))
		fail_msg("unmeasured cost is printed: %s", w);
	/* "tsc" must be a whole word of the list, not part of one */
	assert_int_equal(timing_clock_warning("hpet", "notsc hpet", 900.0, 1, w, sizeof(w)), 1);
	assert_has(w, "tsc=reliable");
	/* nor a longer word it begins, nor another word of its length */
	assert_int_equal(timing_clock_warning("hpet", "tsc_early hpet", 900.0, 1, w, sizeof(w)), 1);
	assert_has(w, "tsc=reliable");
	assert_int_equal(timing_clock_warning("hpet", "pit hpet", 900.0, 1, w, sizeof(w)), 1);
	assert_has(w, "tsc=reliable");
}

/* The probe of this host's clock: a read costs more than 0 and less than a
 * millisecond; the smallest step between two reads is at least the
 * resolution the kernel states and at least 2 ns (two back-to-back reads
 * are never 1 ns apart: one read alone costs more), and below a second
 * (the smallest of thousands of steps). */
static void the_probe_measures_this_hosts_clock(void **state)
{
	(void)state;
	struct timing_clock_info ci;
	char err[160];
	assert_int_equal(timing_probe(&ci, err, sizeof(err)), 0);
	assert_true(ci.read_ns > 0 && ci.read_ns < 1e6);
	assert_true(ci.res_ns >= 1);
	assert_true(ci.step_ns >= ci.res_ns && ci.step_ns >= 2);
	assert_true(ci.step_ns < UINT64_C(1000000000));
}

static void other_clocksources_warn_without_x86_advice_off_x86(void **state)
{
	(void)state;
	char w[512];
	assert_int_equal(timing_clock_warning("riscv_clocksource", "riscv_clocksource", 60.0, 0, w,
					      sizeof(w)), 1);
	assert_has(w, "clocksource is riscv_clocksource");
	assert_has(w, "not known to be read in user space");
	assert_has(w, "available_clocksource");
	if (strstr(w, "tsc=reliable"))
		fail_msg("x86 advice off x86: %s", w);
	/* jiffies off x86 is slow, and the fix points at the available list */
	assert_int_equal(timing_clock_warning("jiffies", "jiffies", NAN, 0, w, sizeof(w)), 1);
	assert_has(w, "slow device read");
}

static void warning_fits_a_small_buffer(void **state)
{
	(void)state;
	char w[16];
	assert_int_equal(timing_clock_warning("hpet", "tsc hpet", 1000.0, 1, w, sizeof(w)), 1);
	assert_int_equal(strlen(w), sizeof(w) - 1);
}

static void clocksource_read_strips_the_newline(void **state)
{
	(void)state;
	char path[] = "/tmp/rb_test_clocksource.XXXXXX";
	char buf[32];
	FILE *f;
	int fd = mkstemp(path);
	assert_true(fd >= 0);
	f = fdopen(fd, "w");
	assert_non_null(f);
	fputs("hpet\n", f);
	fclose(f);
	assert_string_equal(timing_clocksource_read(path, buf, sizeof(buf)), "hpet");
	remove(path);
	assert_string_equal(timing_clocksource_read(path, buf, sizeof(buf)), "");
}

/* Rows carry clocksource and clock_read_ns right after timestamp (added at
 * the end; read_completion came after them). */
static void rows_carry_the_clocksource_and_read_cost(void **state)
{
	(void)state;
	static struct row r;
	struct rb_opts o;
	struct rb_env e;
	struct rb_test t;

	memset(&o, 0, sizeof(o));
	test_defaults(&t);
	t.iters = 10;
	test_resolve_defaults(&t, NULL);
	memset(&e, 0, sizeof(e));
	snprintf(e.clock, sizeof(e.clock), "CLOCK_MONOTONIC_RAW");
	snprintf(e.clocksource, sizeof(e.clocksource), "hpet");
	e.clock_read_ns = 1234.56;
	struct rb_point_info pi = { .o = &o, .t = &t, .env = &e, .inline_used = -1,
				    .setup_us_per_qp = NAN, .gate_wait_s = NAN, .status = "ok", .reason = "" };
	report_build_row(&r, &pi, -1, NULL);
	int ts = -1;
	for (int i = 0; i < r.ncols; i++)
		if (strcmp(r.cols[i].name, "timestamp") == 0)
			ts = i;
	assert_true(ts >= 0 && ts + 2 < r.ncols);
	assert_string_equal(r.cols[ts + 1].name, "clocksource");
	assert_string_equal(r.cols[ts + 2].name, "clock_read_ns");
	assert_string_equal(row_get(&r, "clocksource"), "hpet");
	assert_string_equal(row_get(&r, "clock_read_ns"), "1234.6");
	assert_string_equal(row_get(&r, "clock"), "CLOCK_MONOTONIC_RAW");
	assert_string_equal(row_get(&r, "schema_version"), "1");
	/* not known, not measured: NA, never 0 */
	e.clocksource[0] = '\0';
	e.clock_read_ns = NAN;
	report_build_row(&r, &pi, -1, NULL);
	assert_string_equal(row_get(&r, "clocksource"), "");
	assert_string_equal(row_get(&r, "clock_read_ns"), "");
}

static void env_collect_measures_the_clock(void **state)
{
	(void)state;
	struct rb_env e;
	env_collect(&e);
	assert_string_equal(e.clock, "CLOCK_MONOTONIC_RAW");
	assert_true(e.clock_read_ns > 0.0 && e.clock_read_ns < 100000.0);
	/* what this host reports, whatever it is, is classified without a crash */
	(void)timing_clocksource_kind(e.clocksource);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(tsc_is_the_fast_x86_clocksource),
		cmocka_unit_test(the_probe_measures_this_hosts_clock),
		cmocka_unit_test(vdso_counters_of_other_platforms_are_fast),
		cmocka_unit_test(device_clocksources_are_slow),
		cmocka_unit_test(unlisted_and_missing_names),
		cmocka_unit_test(fast_or_unknown_clocksource_gives_no_warning),
		cmocka_unit_test(hpet_warning_names_value_effect_and_fix),
		cmocka_unit_test(other_clocksources_warn_without_x86_advice_off_x86),
		cmocka_unit_test(warning_fits_a_small_buffer),
		cmocka_unit_test(clocksource_read_strips_the_newline),
		cmocka_unit_test(rows_carry_the_clocksource_and_read_cost),
		cmocka_unit_test(env_collect_measures_the_clock),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
