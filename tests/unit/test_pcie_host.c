/*
 * test_pcie_host.c - this host's PCIe link from a fake sysfs tree
 * (pcie_host.h), and the PCIe model's row columns (report.c).
 */
#include "unit.h"
#include <sys/stat.h>
#include <unistd.h>

#include "device.h"
#include "options.h"
#include "output.h"
#include "pcie_host.h"
#include "pcie_model.h"
#include "perfcount.h"
#include "report.h"

static char root[256];

static void put(const char *rel, const void *data, size_t n)
{
	char path[512];
	snprintf(path, sizeof(path), "%s/%s", root, rel);
	FILE *f = fopen(path, "wb");
	assert_non_null(f);
	assert_int_equal(fwrite(data, 1, n, f), n);
	fclose(f);
}

static void puts_file(const char *rel, const char *text)
{
	put(rel, text, strlen(text));
}

/* A tree with class/infiniband/mlx5_0/device holding link files. */
static int setup(void **state)
{
	(void)state;
	snprintf(root, sizeof(root), "/tmp/rb_pcie_host.XXXXXX");
	if (mkdtemp(root) == NULL)
		return -1;
	char path[512];
	const char *dirs[] = { "class", "class/infiniband", "class/infiniband/mlx5_0",
			       "class/infiniband/mlx5_0/device", "class/infiniband/rxe0" };
	for (size_t i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++) {
		snprintf(path, sizeof(path), "%s/%s", root, dirs[i]);
		if (mkdir(path, 0700) != 0)
			return -1;
	}
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	char cmd[600];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	return system(cmd) == 0 ? 0 : -1;
}

/* A 256-byte config space with a PCIe capability at 0x60 (after a PM
 * capability at 0x40): MPS code mps, MRRS code mrrs, RCB bit rcb. */
static void put_config(unsigned mps, unsigned mrrs, int rcb, size_t n)
{
	uint8_t cfg[256];
	memset(cfg, 0, sizeof(cfg));
	cfg[0x34] = 0x40;
	cfg[0x40] = 0x01; /* power management */
	cfg[0x41] = 0x60;
	cfg[0x60] = 0x10; /* PCI Express */
	cfg[0x61] = 0x00;
	unsigned devctl = (mps << 5) | (mrrs << 12);
	cfg[0x68] = devctl & 0xff;
	cfg[0x69] = devctl >> 8;
	cfg[0x70] = rcb ? 8 : 0;
	put("class/infiniband/mlx5_0/device/config", cfg, n);
}

static void test_gen_from_speed(void **state)
{
	(void)state;
	assert_int_equal(pcie_gen_from_speed("2.5 GT/s PCIe"), 1);
	assert_int_equal(pcie_gen_from_speed("5.0 GT/s PCIe"), 2);
	assert_int_equal(pcie_gen_from_speed("8.0 GT/s PCIe"), 3);
	assert_int_equal(pcie_gen_from_speed("16.0 GT/s PCIe"), 4);
	assert_int_equal(pcie_gen_from_speed("32.0 GT/s PCIe"), 5);
	assert_int_equal(pcie_gen_from_speed("Unknown"), 0);
	assert_int_equal(pcie_gen_from_speed("8.0 Gb/s"), 0);
	assert_int_equal(pcie_gen_from_speed("64.0 GT/s PCIe"), 0);
}

static void test_link_read(void **state)
{
	(void)state;
	struct pm_link l;
	char note[128];
	puts_file("class/infiniband/mlx5_0/device/current_link_speed", "16.0 GT/s PCIe\n");
	puts_file("class/infiniband/mlx5_0/device/current_link_width", "8\n");
	put_config(1, 2, 1, 256); /* MPS 256, MRRS 512, RCB 128 */
	assert_int_equal(pcie_host_link(root, "mlx5_0", &l, note, sizeof(note)), 1);
	assert_int_equal(l.gen, 4);
	assert_int_equal(l.lanes, 8);
	assert_int_equal(l.mps, 256);
	assert_int_equal(l.mrrs, 512);
	assert_int_equal(l.rcb, 128);
	assert_string_equal(note, "");
	/* an unprivileged read: 64 bytes only; the paper's MPS with a note */
	put_config(1, 2, 1, 64);
	assert_int_equal(pcie_host_link(root, "mlx5_0", &l, note, sizeof(note)), 1);
	assert_int_equal(l.gen, 4);
	assert_int_equal(l.mps, 128);
	assert_non_null(strstr(note, "MPS/MRRS not readable"));
	/* a reserved MPS code: not read */
	put_config(7, 2, 0, 256);
	assert_int_equal(pcie_host_link(root, "mlx5_0", &l, note, sizeof(note)), 1);
	assert_int_equal(l.mps, 128);
	/* a width that is not a lane count */
	puts_file("class/infiniband/mlx5_0/device/current_link_width", "3\n");
	assert_int_equal(pcie_host_link(root, "mlx5_0", &l, note, sizeof(note)), 0);
	assert_non_null(strstr(note, "not understood"));
	assert_int_equal(l.gen, 3); /* the paper's link */
	assert_int_equal(l.lanes, 16);
	puts_file("class/infiniband/mlx5_0/device/current_link_width", "8\n");
}

static void test_no_pci_device(void **state)
{
	(void)state;
	struct pm_link l;
	char note[128];
	assert_int_equal(pcie_host_link(root, "rxe0", &l, note, sizeof(note)), 0);
	assert_non_null(strstr(note, "no PCI device behind rxe0"));
	assert_int_equal(l.gen, 3);
	assert_int_equal(pcie_host_link(root, NULL, &l, note, sizeof(note)), -1);
}

/* A row's point as the model-column tests build it: options, environment,
 * test, device, point and the row (static: a row is large). */
struct point_fx {
	struct rb_opts ro;
	struct rb_env e;
	struct rb_test t;
	struct rb_dev dev;
	struct rb_point_info pi;
	struct row r;
};

/* f set up by base (unit_point_base or model_row_setup), then a UD SEND
 * point of 4 inline bytes, every 16th signaled, postlist postlist, on
 * device devname; returns f. */
static struct point_fx *ud_send_point(struct point_fx *f,
				      void (*base)(struct rb_opts *, struct rb_env *, struct rb_test *),
				      const char *devname, uint64_t postlist)
{
	base(&f->ro, &f->e, &f->t);
	f->t.verb = RB_VERB_SEND;
	f->t.transport = RB_TR_UD;
	f->t.size = 4;
	f->t.postlist = postlist;
	f->t.signal_interval = 16;
	snprintf(f->dev.name, sizeof(f->dev.name), "%s", devname);
	f->pi = (struct rb_point_info){ .o = &f->ro, .t = &f->t, .env = &f->e, .dev = &f->dev,
					.inline_used = 1, .setup_us_per_qp = NAN, .gate_wait_s = NAN,
					.status = "ok", .reason = "" };
	return f;
}

/* The row's model columns: host columns empty with the reason when the
 * device has no PCI link, the paper's link for reference either way. */
static void test_row_model_columns(void **state)
{
	(void)state;
	static struct point_fx fx;
	struct point_fx *f = ud_send_point(&fx, unit_point_base, "rb_no_such_dev9", 16);
	struct rb_measure m = { .valid = true, .duration_s = 1, .ops = 50000000 };
	report_build_row(&f->r, &f->pi, -1, &m);
	assert_string_equal(row_get(&f->r, "model_bus_bytes_per_op"), "");
	assert_string_equal(row_get(&f->r, "model_limit_mops"), "");
	assert_string_equal(row_get(&f->r, "measured_over_limit"), "");
	assert_non_null(strstr(row_get(&f->r, "model_reason"), "no PCI device behind rb_no_such_dev9"));
	/* the paper's link: what the model says for this configuration */
	struct pm_config c = pm_config_default();
	c.verb = RB_VERB_SEND;
	c.transport = RB_TR_UD;
	c.size_bytes = 4;
	c.inline_payload = 1;
	c.postlist = 16;
	c.signal_interval = 16;
	struct pm_link pl = pm_link_paper();
	struct pm_result res;
	char err[128];
	assert_int_equal(pm_run(&c, &pl, &res, err, sizeof(err)), 0);
	char want[32];
	snprintf(want, sizeof(want), "%.6g", res.limit_mops);
	assert_string_equal(row_get(&f->r, "model_paper_limit_mops"), want);
	/* 152.125 B down per SEND at the sender vs 146 B up per RECV */
	assert_int_equal(res.limit_is_responder, 0);
	assert_string_equal(row_get(&f->r, "model_paper_bound"), "link_down (requester)");
	assert_string_equal(row_get(&f->r, "model_link"), "none");
	/* then perf_counters, tclass, sl, pkey_index and the 3 uncore PCIe columns (then the port
	 * counters added after them: test_counters) */
	int ipc = -1;
	for (int i = 0; i < f->r.ncols; i++)
		if (strcmp(f->r.cols[i].name, "pcie_counted") == 0)
			ipc = i;
	assert_true(ipc >= 7);
	assert_string_equal(f->r.cols[ipc - 7].name, "model_link");

	/* 32 B: the receiver's 174 B up per RECV bind */
	f->t.size = 32;
	report_build_row(&f->r, &f->pi, -1, &m);
	assert_string_equal(row_get(&f->r, "model_paper_bound"), "link_up (responder)");
	/* not inline: the payload is DMA-read, the limit drops */
	char inl[32];
	snprintf(inl, sizeof(inl), "%s", row_get(&f->r, "model_paper_limit_mops"));
	f->pi.inline_used = 0;
	report_build_row(&f->r, &f->pi, -1, &m);
	assert_string_not_equal(row_get(&f->r, "model_paper_limit_mops"), inl);
	assert_true(strtod(row_get(&f->r, "model_paper_limit_mops"), NULL) < strtod(inl, NULL));
	f->pi.inline_used = 1;
	f->t.size = 4;

	/* postlist 1, inline: WQE-by-MMIO (BlueFlame) on the paper's link,
	 * MMIO-bound at 5.2.1's 87.5 (the formula's 87.52) */
	f->t.postlist = 1;
	report_build_row(&f->r, &f->pi, -1, &m);
	assert_string_equal(row_get(&f->r, "model_paper_limit_mops"), "87.5214");
	assert_string_equal(row_get(&f->r, "model_paper_bound"), "mmio (requester)");
	/* postlist 1, not inline: the mlx providers ring a doorbell */
	f->pi.inline_used = 0;
	report_build_row(&f->r, &f->pi, -1, &m);
	assert_string_not_equal(row_get(&f->r, "model_paper_bound"), "mmio (requester)");
	f->pi.inline_used = 1;

	/* atomics: the verb table's row says what they move (8 bytes) */
	f->t.verb = RB_VERB_FETCH_ADD;
	f->t.transport = RB_TR_RC;
	f->t.size = 8;
	f->pi.inline_used = 0;
	report_build_row(&f->r, &f->pi, -1, &m);
	assert_string_not_equal(row_get(&f->r, "model_paper_limit_mops"), "");
	assert_string_equal(row_get(&f->r, "model_link"), "none");
	f->pi.inline_used = 1;
}

/* On a host with a PCIe link (a fake sysfs tree, RB_SYSFS_ROOT): the row
 * and --explain give measured vs the limit on this host's own link, and
 * which side and resource binds. */
static void test_row_host_link(void **state)
{
	(void)state;
	static struct point_fx fx;
	struct point_fx *f = ud_send_point(&fx, unit_point_base, "mlx5_0", 1);
	puts_file("class/infiniband/mlx5_0/device/current_link_speed", "16.0 GT/s PCIe\n");
	puts_file("class/infiniband/mlx5_0/device/current_link_width", "16\n");
	put_config(1, 2, 0, 256);
	assert_int_equal(setenv("RB_SYSFS_ROOT", root, 1), 0);
	struct rb_measure m = { .valid = true, .duration_s = 1, .ops = 140000000 };
	report_build_row(&f->r, &f->pi, -1, &m);
	char out[1024];
	assert_int_equal(report_explain(&f->pi, &m, out, sizeof(out)), 0);
	unsetenv("RB_SYSFS_ROOT");
	/* PCIe 4.0 x16: 5.2.1's MMIO rate doubles to 350 M lines/s, 175 Mops
	 * for the 2-line inline UD SEND */
	assert_string_equal(row_get(&f->r, "model_link"), "pcie4x16 mps256 mrrs512");
	double lim = strtod(row_get(&f->r, "model_limit_mops"), NULL);
	assert_close(lim, 2 * 87.5214, 1e-4);
	assert_string_equal(row_get(&f->r, "model_bound"), "mmio (requester)");
	assert_close(strtod(row_get(&f->r, "measured_over_limit"), NULL), 140 / lim, 1e-5);
	/* the paper's link beside it for reference */
	assert_string_equal(row_get(&f->r, "model_paper_limit_mops"), "87.5214");
	if (!strstr(out, "PCIe model on this host's link (pcie4x16, WQE-by-MMIO): limit 175 Mops, "
			 "bound by the requester's MMIO throughput (5.2.1); measured 140 Mops = 80 % of it"))
		fail_msg("EXPLAIN \"%s\"", out);
}

/* A client's options, environment and test as a model row's tests start
 * them: one process, the defaults, 100 iterations. */
static void model_row_setup(struct rb_opts *ro, struct rb_env *e, struct rb_test *t)
{
	memset(ro, 0, sizeof(*ro));
	memset(e, 0, sizeof(*e));
	ro->procs = 1;
	test_defaults(t);
	t->iters = 100;
	test_resolve_defaults(t, NULL);
}


/* The --explain line: Mops, the model's verdict, CPU per op, trouble. */
static void test_explain(void **state)
{
	(void)state;
	static struct point_fx fx;
	struct point_fx *f = ud_send_point(&fx, model_row_setup, "rb_no_such_dev9", 1);
	struct pc_sample s;
	pc_sample_zero(&s);
	s.value[PC_TASK_CLOCK] = 1000000;
	s.valid[PC_CYCLES] = 0;
	struct rb_measure m = { .valid = true, .duration_s = 2, .ops = 30000,
				.pc = &s, .pc_ops = 2000, .pc_span_s = 2 };
	char out[1024];
	assert_int_equal(report_explain(&f->pi, &m, out, sizeof(out)), 0);
	assert_string_equal(out, "0.015 Mops; no PCI device: CPU/software-bound (on the paper's link, "
			    "WQE-by-MMIO: 87.52 Mops, bound by the requester's MMIO throughput (5.2.1)); "
			    "client CPU 500 ns/op, server CPU not counted; port counters not read");
	/* counters that moved are named; none moved is said */
	unit_ctr_put(&f->pi.before, "hw_counters/rcvd_rnr_err", 5);
	unit_ctr_put(&f->pi.after, "hw_counters/rcvd_rnr_err", 91);
	f->pi.have_counters = true;
	assert_int_equal(report_explain(&f->pi, &m, out, sizeof(out)), 0);
	assert_non_null(strstr(out, "; trouble: RNR NAKs 86"));
	f->pi.after.val[0] = 5;
	assert_int_equal(report_explain(&f->pi, &m, out, sizeof(out)), 0);
	assert_non_null(strstr(out, "; no trouble counter moved"));
	/* not measured, no counters, not modelled (a size the WQE cannot hold inline) */
	f->t.size = 4000;
	assert_int_equal(report_explain(&f->pi, NULL, out, sizeof(out)), 0);
	assert_non_null(strstr(out, "not measured; PCIe model: inline payload of 4000 bytes"));
	assert_non_null(strstr(out, "; client CPU not counted"));
	/* a short buffer: cut, said by -1 */
	assert_int_equal(report_explain(&f->pi, &m, out, 20), -1);
	assert_int_equal(strlen(out), 19);
	/* the process row's explain column holds it, thread rows do not */
	report_build_row(&f->r, &f->pi, -1, &m);
	assert_non_null(strstr(row_get(&f->r, "explain"), "PCIe model: inline payload of 4000 bytes"));
	report_build_row(&f->r, &f->pi, 0, &m);
	assert_string_equal(row_get(&f->r, "explain"), "");
}

/* One column of build/rb_model's --csv output for the options given (the
 * tests run from the tree's top, where `make` puts it; RB_MODEL_BIN names
 * another, e.g. $(BUILD)/rb_model: ci/test-all sets it). */
static void rb_model_column(const char *args, const char *col, char *out, size_t len)
{
	char cmd[512], head[4096], row[4096];
	const char *bin = getenv("RB_MODEL_BIN");
	if (bin == NULL || *bin == '\0')
		bin = "build/rb_model";
	snprintf(cmd, sizeof(cmd), "%s --csv %s", bin, args);
	FILE *f = popen(cmd, "r");
	if (!f)
		fail_msg("cannot run %s", cmd);
	bool ok = fgets(head, sizeof(head), f) && fgets(row, sizeof(row), f);
	int st = pclose(f);
	if (!ok || st != 0)
		fail_msg("%s failed (status %d): build it with make", cmd, st);
	head[strcspn(head, "\n")] = row[strcspn(row, "\n")] = '\0';
	/* strsep keeps empty fields (an unused resource's limit is empty) */
	char *hs = head, *rs = row;
	char *h = strsep(&hs, ","), *v = strsep(&rs, ",");
	while (h && v && strcmp(h, col) != 0) {
		h = strsep(&hs, ",");
		v = strsep(&rs, ",");
	}
	if (!h || !v)
		fail_msg("%s: no column %s", cmd, col);
	snprintf(out, len, "%s", v);
}

/* rdma_bench's row and build/rb_model agree on one configuration: the same
 * rule for postlist 1 (a READ is not inline: doorbell, as the mlx
 * providers post it) and above (doorbell), said in EXPLAIN. */
static void test_row_model_matches_rb_model(void **state)
{
	(void)state;
	static const struct {
		uint64_t postlist;
		const char *args, *path;
	} cases[] = {
		{ 1, "--verb read --size 64 --signal-interval 16", "paper's link, doorbell per 1: " },
		{ 16, "--verb read --size 64 --signal-interval 16 --postlist 16",
		  "paper's link, doorbell per 16: " },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct rb_opts ro;
		struct rb_env e;
		struct rb_test t;
		static struct rb_dev dev;
		static struct row r;
		model_row_setup(&ro, &e, &t);
		t.verb = RB_VERB_READ;
		t.transport = RB_TR_RC;
		t.size = 64;
		t.postlist = cases[i].postlist;
		t.window = 64;
		t.signal_interval = 16;
		snprintf(dev.name, sizeof(dev.name), "rb_no_such_dev9");
		struct rb_point_info pi = { .o = &ro, .t = &t, .env = &e, .dev = &dev,
					    .inline_used = 0, .setup_us_per_qp = NAN,
					    .gate_wait_s = NAN, .status = "ok", .reason = "" };
		struct rb_measure m = { .valid = true, .duration_s = 1, .ops = 1000000 };
		char want[64], out[1024];
		report_build_row(&r, &pi, -1, &m);
		rb_model_column(cases[i].args, "limit_mops", want, sizeof(want));
		assert_string_equal(row_get(&r, "model_paper_limit_mops"), want);
		assert_int_equal(report_explain(&pi, &m, out, sizeof(out)), 0);
		char said[128];
		snprintf(said, sizeof(said), "%s%.4g Mops", cases[i].path, atof(want));
		if (!strstr(out, said))
			fail_msg("EXPLAIN \"%s\" lacks \"%s\"", out, said);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_gen_from_speed),
		cmocka_unit_test(test_link_read),
		cmocka_unit_test(test_no_pci_device),
		cmocka_unit_test(test_row_model_columns),
		cmocka_unit_test(test_row_host_link),
		cmocka_unit_test(test_explain),
		cmocka_unit_test(test_row_model_matches_rb_model),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
