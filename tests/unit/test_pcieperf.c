/*
 * test_pcieperf.c - the uncore PCIe counters (pcieperf.h) on a fake sysfs
 * PMU tree, a fake /proc/cpuinfo and a fake counter source: the event
 * encoding read from the PMU's format files, the CPU table, the reasons
 * when nothing counts, and the idle baseline's subtraction.
 */
#include "unit.h"
#include <errno.h>
#include <sys/stat.h>
#include <unistd.h>

#include "pcieperf.h"

#define ICX_CPUINFO "processor\t: 0\nvendor_id\t: GenuineIntel\ncpu family\t: 6\nmodel\t\t: 106\n" \
	"model name\t: Intel(R) Xeon(R) Gold 6338 CPU @ 2.00GHz\n"

struct fake {
	int nopen;
	uint32_t type[16];
	uint64_t config[16];
	int cpu[16];
	int open_err;
	uint64_t value[16];          /* what each handle reads now */
	int closed;
};

static int fake_open(void *ctx, uint32_t type, uint64_t config, int cpu)
{
	struct fake *f = ctx;
	if (f->open_err)
		return -f->open_err;
	f->type[f->nopen] = type;
	f->config[f->nopen] = config;
	f->cpu[f->nopen] = cpu;
	return f->nopen++;
}

static int fake_read(void *ctx, int handle, uint64_t *value)
{
	struct fake *f = ctx;
	*value = f->value[handle];
	return 0;
}

static void fake_close(void *ctx, int handle)
{
	(void)handle;
	((struct fake *)ctx)->closed++;
}

static const struct pp_source fake_src = { fake_open, fake_read, fake_close };

static void put(const char *dir, const char *name, const char *text)
{
	char path[512];
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

/* A sysfs root with n CHA boxes in the Ice Lake-SP kernel layout (umask_ext
 * at config:32-55), and a cpuinfo file; returns the root. */
static char *fake_tree(int n, const char *cpuinfo)
{
	static char root[64];
	snprintf(root, sizeof(root), "/tmp/rb-pcieperf-XXXXXX");
	assert_non_null(mkdtemp(root));
	char d[256];
	snprintf(d, sizeof(d), "%s/bus", root);
	mkdir(d, 0755);
	snprintf(d, sizeof(d), "%s/bus/event_source", root);
	mkdir(d, 0755);
	snprintf(d, sizeof(d), "%s/bus/event_source/devices", root);
	mkdir(d, 0755);
	for (int i = 0; i < n; i++) {
		char box[256], fmt[300], num[16];
		snprintf(box, sizeof(box), "%s/bus/event_source/devices/uncore_cha_%d", root, i);
		mkdir(box, 0755);
		snprintf(num, sizeof(num), "%d\n", 30 + i);
		put(box, "type", num);
		put(box, "cpumask", "0\n");
		snprintf(fmt, sizeof(fmt), "%s/format", box);
		mkdir(fmt, 0755);
		put(fmt, "event", "config:0-7\n");
		put(fmt, "umask", "config:8-15\n");
		put(fmt, "umask_ext", "config:32-55\n");
	}
	put(root, "cpuinfo", cpuinfo);
	return root;
}

/* pp_open on a fake tree of nboxes boxes with ICX_CPUINFO, through the
 * fake source f: returns the tree's root (rm_tree it) */
static char *open_fake(int nboxes, struct pcieperf *p, struct fake *f)
{
	char *root = fake_tree(nboxes, ICX_CPUINFO);
	char info[128];
	snprintf(info, sizeof(info), "%s/cpuinfo", root);
	assert_int_equal(pp_open(p, root, info, &fake_src, f), nboxes);
	return root;
}

static void rm_tree(const char *root)
{
	char cmd[128];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	assert_int_equal(system(cmd), 0);
}

static void test_format_put(void **state)
{
	(void)state;
	char why[160];
	uint64_t c = 0;
	assert_int_equal(pp_format_put("config:0-7", 0x35, &c, why, sizeof(why)), 0);
	assert_int_equal(pp_format_put("config:8-15", 0x04, &c, why, sizeof(why)), 0);
	assert_int_equal(pp_format_put("config:32-55", 0xC8F3FF, &c, why, sizeof(why)), 0);
	assert_int_equal(c, 0x35ULL | 0x04ULL << 8 | 0xC8F3FFULL << 32);
	/* split ranges fill the low bits first; a single bit */
	c = 0;
	assert_int_equal(pp_format_put("config:0-3,8-11", 0xAB, &c, why, sizeof(why)), 0);
	assert_int_equal(c, 0xB | 0xAULL << 8);
	c = 0;
	assert_int_equal(pp_format_put("config:63", 1, &c, why, sizeof(why)), 0);
	assert_int_equal(c, 1ULL << 63);
	/* refused: too wide, another field, garbage */
	c = 0;
	assert_int_equal(pp_format_put("config:0-7", 0x1FF, &c, why, sizeof(why)), -1);
	assert_err_has(why, "wider than format 'config:0-7'");
	assert_int_equal(pp_format_put("config1:0-31", 1, &c, why, sizeof(why)), -1);
	assert_err_has(why, "not a config field");
	assert_int_equal(pp_format_put("config:7-0", 1, &c, why, sizeof(why)), -1);
	assert_err_has(why, "expected config:LO-HI");
}

static void test_pick(void **state)
{
	(void)state;
	char why[200];
	const struct pp_encoding *e = pp_pick(ICX_CPUINFO, why, sizeof(why));
	assert_non_null(e);
	assert_int_equal(e->event, 0x35);
	assert_int_equal(e->umask, 0x04);
	assert_int_equal(e->umask_ext[PP_RD][0], 0xC8F3FF);
	assert_null(pp_pick("vendor_id\t: AuthenticAMD\ncpu family\t: 25\nmodel\t\t: 1\n", why, sizeof(why)));
	assert_err_has(why, "AuthenticAMD");
	/* Skylake-SP (0x55): its TOR filter is a separate register, not encoded */
	assert_null(pp_pick("vendor_id\t: GenuineIntel\ncpu family\t: 6\nmodel\t\t: 85\n", why, sizeof(why)));
	assert_err_has(why, "model 0x55");
	assert_null(pp_pick("flags: fpu\n", why, sizeof(why)));
	assert_err_has(why, "names no vendor");
}

static void test_open_encodes_every_box(void **state)
{
	(void)state;
	struct fake f = { 0 };
	struct pcieperf p;
	char *root = open_fake(2, &p, &f);
	assert_string_equal(p.reason, "");
	/* per box: PCIRdCur, ItoM, ItoMCacheNear */
	assert_int_equal(f.nopen, 6);
	int rd = 0, itom = 0, near = 0;
	for (int i = 0; i < f.nopen; i++) {
		assert_true(f.type[i] == 30 || f.type[i] == 31);
		assert_int_equal(f.cpu[i], 0);
		rd += f.config[i] == (0x35ULL | 0x04ULL << 8 | 0xC8F3FFULL << 32);
		itom += f.config[i] == (0x35ULL | 0x04ULL << 8 | 0xCC43FFULL << 32);
		near += f.config[i] == (0x35ULL | 0x04ULL << 8 | 0xCD43FFULL << 32);
	}
	assert_int_equal(rd, 2);
	assert_int_equal(itom, 2);
	assert_int_equal(near, 2);
	pp_close(&p);
	assert_int_equal(f.closed, 6);
	rm_tree(root);
}

static void test_window_minus_baseline(void **state)
{
	(void)state;
	struct fake f = { 0 };
	struct pcieperf p;
	char *root = open_fake(1, &p, &f);
	/* the handles: 0 PCIRdCur, 1 ItoM, 2 ItoMCacheNear */
	p.idle_rate[PP_RD] = 1000;     /* as if pp_baseline had seen 1000 reads/s */
	pp_start(&p);
	f.value[0] = 5000000;
	f.value[1] = 300;
	f.value[2] = 200;
	struct pp_sample s;
	pp_stop(&p, &s);
	assert_int_equal(s.valid, 1);
	assert_int_equal(s.raw[PP_RD], 5000000);
	assert_int_equal(s.raw[PP_WR], 500);
	/* the window is tiny: the baseline takes ~nothing off; the pure rule: */
	assert_true(s.net[PP_RD] <= 5000000 && s.net[PP_RD] > 4990000);
	assert_close(pp_net(5000000, 1000, 2.0), 4998000, 1e-12);
	assert_close(pp_net(100, 1000, 2.0), 0, 0);
	pp_close(&p);
	rm_tree(root);
}

static void test_reasons(void **state)
{
	(void)state;
	char info[128];
	struct pcieperf p;
	struct pp_sample s;
	/* no CHA PMU (a VM) */
	char *root = fake_tree(0, ICX_CPUINFO);
	snprintf(info, sizeof(info), "%s/cpuinfo", root);
	struct fake f = { 0 };
	assert_int_equal(pp_open(&p, root, info, &fake_src, &f), 0);
	assert_err_has(p.reason, "no uncore_cha PMU");
	pp_start(&p);
	pp_stop(&p, &s);
	assert_int_equal(s.valid, 0);
	assert_err_has(s.reason, "no uncore_cha PMU");
	rm_tree(root);
	/* not permitted: names the knob */
	root = fake_tree(1, ICX_CPUINFO);
	snprintf(info, sizeof(info), "%s/cpuinfo", root);
	struct fake g = { .open_err = EACCES };
	assert_int_equal(pp_open(&p, root, info, &fake_src, &g), 0);
	assert_err_has(p.reason, "perf_event_paranoid");
	rm_tree(root);
	/* an AMD host: nothing opened at all */
	root = fake_tree(1, "vendor_id\t: AuthenticAMD\ncpu family\t: 25\nmodel\t\t: 1\n");
	snprintf(info, sizeof(info), "%s/cpuinfo", root);
	struct fake h = { 0 };
	assert_int_equal(pp_open(&p, root, info, &fake_src, &h), 0);
	assert_int_equal(h.nopen, 0);
	assert_err_has(p.reason, "AuthenticAMD");
	rm_tree(root);
}

/* This host: counts or a named reason, never a crash or an empty reason. */
static void test_this_host(void **state)
{
	(void)state;
	struct pcieperf p;
	int n = pp_open(&p, "/sys", "/proc/cpuinfo", NULL, NULL);
	if (n == 0)
		assert_true(p.reason[0] != '\0');
	struct pp_sample s;
	pp_start(&p);
	pp_stop(&p, &s);
	assert_true(s.valid || s.reason[0] != '\0');
	pp_close(&p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_format_put),
		cmocka_unit_test(test_pick),
		cmocka_unit_test(test_open_encodes_every_box),
		cmocka_unit_test(test_window_minus_baseline),
		cmocka_unit_test(test_reasons),
		cmocka_unit_test(test_this_host),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
