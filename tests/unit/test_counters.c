/*
 * test_counters.c - unit tests of the port counters read by name
 * (device.h: dev_counter_names, dev_counters_read_at, dev_counters_pack and
 * dev_counters_unpack) and of the server's counter deltas in DONE (ctrl.h).
 */
#include "unit.h"

#include <sys/stat.h>
#include <unistd.h>

#include "ctrl.h"
#include "device.h"
#include "output.h"

/* The list: within the snapshot and the wire's caps, no name twice, each
 * under counters/ or hw_counters/ and fitting a snapshot's name field, and
 * the names a reader of rxe, mlx4 and mlx5 rows needs (docs/csv.md). */
static void name_list_covers_the_drivers(void **state)
{
	(void)state;
	unsigned n = dev_counter_count();
	static const char *const need[] = {
		"hw_counters/out_of_buffer", "hw_counters/req_cqe_error",
		"hw_counters/resp_cqe_error", "hw_counters/req_remote_access_errors",
		"hw_counters/resp_remote_access_errors", "hw_counters/roce_adp_retrans",
		"counters/port_xmit_discards", "counters/port_xmit_wait", "counters/port_rcv_errors",
		"counters/port_xmit_data", "counters/port_rcv_packets", "hw_counters/rcvd_pkts",
		"hw_counters/sent_pkts", "hw_counters/rcvd_rnr_err", "hw_counters/rq_num_udsdprd",
		"hw_counters/sq_num_tree", "hw_counters/duplicate_request",
	};

	assert_true(n >= 40);
	assert_true(n <= RB_MAX_COUNTERS);
	assert_true(n <= CTRL_MAX_CTRS);
	for (unsigned i = 0; i < n; i++) {
		const char *s = dev_counter_names[i];
		assert_true(strncmp(s, "counters/", 9) == 0 || strncmp(s, "hw_counters/", 12) == 0);
		assert_true(strlen(s) < sizeof(((struct rb_counters *)0)->name[0]));
		for (unsigned j = i + 1; j < n; j++)
			if (strcmp(s, dev_counter_names[j]) == 0)
				fail_msg("%s twice in dev_counter_names", s);
		assert_int_equal(dev_counter_index(s), (int)i);
	}
	for (size_t k = 0; k < sizeof(need) / sizeof(need[0]); k++)
		if (dev_counter_index(need[k]) < 0)
			fail_msg("%s missing from dev_counter_names", need[k]);
	assert_int_equal(dev_counter_index("hw_counters/lifespan"), -1);
}

static void put_file(const char *dir, const char *name, const char *text)
{
	char path[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

/* A fake sysfs tree with 80 driver counters whose names sort before the
 * listed ones: the listed ones are still read (a directory walk capped at
 * 64 lost them), the others never; a missing file and a non-number are
 * left out, not read as 0. */
static void read_by_name_not_directory_order(void **state)
{
	(void)state;
	char root[] = "/tmp/rb_ctrXXXXXX";
	char dir[600], hw[640], pma[640];
	struct rb_counters c;
	uint64_t d;

	assert_non_null(mkdtemp(root));
	snprintf(dir, sizeof(dir), "%s/mlx5_0", root);
	assert_int_equal(mkdir(dir, 0700), 0);
	snprintf(dir, sizeof(dir), "%s/mlx5_0/ports", root);
	assert_int_equal(mkdir(dir, 0700), 0);
	snprintf(dir, sizeof(dir), "%s/mlx5_0/ports/1", root);
	assert_int_equal(mkdir(dir, 0700), 0);
	snprintf(hw, sizeof(hw), "%s/hw_counters", dir);
	snprintf(pma, sizeof(pma), "%s/counters", dir);
	assert_int_equal(mkdir(hw, 0700), 0);
	assert_int_equal(mkdir(pma, 0700), 0);
	for (int i = 0; i < 80; i++) {
		char name[32];
		snprintf(name, sizeof(name), "a_unlisted_%02d", i);
		put_file(hw, name, "1\n");
	}
	put_file(hw, "out_of_buffer", "7\n");
	put_file(hw, "roce_adp_retrans", "not a number\n");
	put_file(pma, "port_xmit_wait", "123456789012\n");

	dev_counters_read_at(root, "mlx5_0", 1, &c);
	assert_int_equal(c.n, 2);
	struct rb_counters zero = c;
	for (unsigned i = 0; i < zero.n; i++)
		zero.val[i] = 0;
	assert_int_equal(dev_counter_delta(&zero, &c, "hw_counters/out_of_buffer", &d), 0);
	assert_int_equal(d, 7);
	assert_int_equal(dev_counter_delta(&zero, &c, "counters/port_xmit_wait", &d), 0);
	assert_int_equal(d, 123456789012ull);
	assert_int_equal(dev_counter_delta(&zero, &c, "hw_counters/roce_adp_retrans", &d), -1);
	assert_int_equal(dev_counter_delta(&zero, &c, "hw_counters/a_unlisted_00", &d), -1);
	/* another port: nothing there */
	dev_counters_read_at(root, "mlx5_0", 2, &c);
	assert_int_equal(c.n, 0);

	char cmd[700];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	assert_int_equal(system(cmd), 0);
}

/* The server's snapshots as (index, delta) pairs and back: the deltas the
 * client then reads are after - before; a counter in one snapshot only is
 * left out; an index beyond the list (a newer peer) is skipped. */
static void pack_and_unpack_give_the_deltas(void **state)
{
	(void)state;
	struct rb_counters b = { 0 }, a = { 0 }, zero, dl;
	uint16_t idx[CTRL_MAX_CTRS];
	uint64_t delta[CTRL_MAX_CTRS];
	uint16_t n;
	uint64_t d;

	unit_ctr_put(&b, "hw_counters/rcvd_pkts", 1000);
	unit_ctr_put(&a, "hw_counters/rcvd_pkts", 251000);
	unit_ctr_put(&b, "hw_counters/out_of_buffer", 5);
	unit_ctr_put(&a, "hw_counters/out_of_buffer", 95);
	unit_ctr_put(&a, "counters/port_rcv_errors", 3);      /* after only */
	unit_ctr_put(&b, "hw_counters/not_in_the_list", 1);
	unit_ctr_put(&a, "hw_counters/not_in_the_list", 9);
	dev_counters_pack(&b, &a, idx, delta, CTRL_MAX_CTRS, &n);
	assert_int_equal(n, 2);
	assert_int_equal(idx[0], dev_counter_index("hw_counters/rcvd_pkts"));
	assert_int_equal(delta[0], 250000);
	assert_int_equal(idx[1], dev_counter_index("hw_counters/out_of_buffer"));
	assert_int_equal(delta[1], 90);
	/* the cap holds */
	dev_counters_pack(&b, &a, idx, delta, 1, &n);
	assert_int_equal(n, 1);

	dev_counters_pack(&b, &a, idx, delta, CTRL_MAX_CTRS, &n);
	idx[n] = CTRL_MAX_CTRS - 1; /* beyond this side's list */
	delta[n] = 42;
	dev_counters_unpack(idx, delta, n + 1u, &zero, &dl);
	assert_int_equal(dl.n, 2);
	assert_int_equal(dev_counter_delta(&zero, &dl, "hw_counters/rcvd_pkts", &d), 0);
	assert_int_equal(d, 250000);
	assert_int_equal(dev_counter_delta(&zero, &dl, "hw_counters/out_of_buffer", &d), 0);
	assert_int_equal(d, 90);
	assert_int_equal(dev_counter_delta(&zero, &dl, "counters/port_rcv_errors", &d), -1);
}

/* DONE carries the deltas (appended after the note); a count above the
 * cap does not encode, an index at or above it does not decode. */
static void done_carries_the_server_counters(void **state)
{
	(void)state;
	static uint8_t buf[CTRL_HDR_LEN + CTRL_DONE_MAX];
	static struct ctrl_done d;
	static struct ctrl_msg m;
	char err[512];

	memset(&d, 0, sizeof(d));
	snprintf(d.note, sizeof(d.note), "ok");
	d.ctr_span_ns = 2000000123;
	d.foreign_recvs = 3;
	d.nctr = 2;
	d.ctr_idx[0] = 1;
	d.ctr_delta[0] = 1ull << 40;
	d.ctr_idx[1] = 22;
	d.ctr_delta[1] = 90;
	size_t n = ctrl_encode_done(buf, sizeof(buf), &d);
	assert_true(n > 0);
	assert_int_equal(ctrl_decode(buf, n, &m, err, sizeof(err)), 0);
	assert_int_equal(m.u.done.ctr_span_ns, 2000000123);
	assert_int_equal(m.u.done.foreign_recvs, 3);
	assert_int_equal(m.u.done.nctr, 2);
	assert_int_equal(m.u.done.ctr_idx[0], 1);
	assert_int_equal(m.u.done.ctr_delta[0], 1ull << 40);
	assert_int_equal(m.u.done.ctr_idx[1], 22);
	assert_int_equal(m.u.done.ctr_delta[1], 90);
	assert_string_equal(m.u.done.note, "ok");

	/* the most there can be fits the buffer a DONE is read into */
	d.nctr = CTRL_MAX_CTRS;
	snprintf(d.note, sizeof(d.note), "%*s", (int)CTRL_REASON_CAP, "x");
	n = ctrl_encode_done(buf, sizeof(buf), &d);
	assert_int_equal(n, CTRL_HDR_LEN + CTRL_DONE_MAX);
	assert_int_equal(ctrl_decode(buf, n, &m, err, sizeof(err)), 0);

	d.nctr = CTRL_MAX_CTRS + 1;
	assert_int_equal(ctrl_encode_done(buf, sizeof(buf), &d), 0);

	d.nctr = 1;
	d.ctr_idx[0] = CTRL_MAX_CTRS;
	n = ctrl_encode_done(buf, sizeof(buf), &d);
	assert_int_equal(ctrl_decode(buf, n, &m, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "DONE: counter index 64, at most 63"));
}

/* A point as the row builder gets it (static: a row is large). */
static struct {
	struct rb_opts ro;
	struct rb_env e;
	struct rb_test t;
	struct rb_dev dev;
	struct rb_point_info pi;
	struct row r;
} fx;

/* The row: every ctr_* column from this side's snapshots and its srv_ctr_*
 * twin from the server's deltas, each under its own name (the row keeps
 * names by pointer), a counter neither side has NA, per-thread rows NA. */
static void row_has_both_ends(void **state)
{
	(void)state;
	uint16_t idx[CTRL_MAX_CTRS];
	uint64_t delta[CTRL_MAX_CTRS];
	uint16_t n;
	struct rb_counters sb = { 0 }, sa = { 0 };
	struct rb_measure m = { .valid = true, .duration_s = 1, .ops = 1000 };

	unit_point_base(&fx.ro, &fx.e, &fx.t);
	fx.t.verb = RB_VERB_READ;
	fx.t.transport = RB_TR_RC;
	fx.t.size = 64;
	snprintf(fx.dev.name, sizeof(fx.dev.name), "rb_no_such_dev9");
	fx.pi = (struct rb_point_info){ .o = &fx.ro, .t = &fx.t, .env = &fx.e, .dev = &fx.dev,
					.inline_used = 0, .setup_us_per_qp = NAN,
					.gate_wait_s = NAN, .status = "ok", .reason = "" };
	/* this side (rxe names): 1000 sent, 1000 received */
	unit_ctr_put(&fx.pi.before, "hw_counters/sent_pkts", 10);
	unit_ctr_put(&fx.pi.after, "hw_counters/sent_pkts", 1010);
	unit_ctr_put(&fx.pi.before, "hw_counters/rcvd_pkts", 20);
	unit_ctr_put(&fx.pi.after, "hw_counters/rcvd_pkts", 1020);
	fx.pi.have_counters = true;
	/* the server's (mlx5 names): 1001 received, 3 RQ drops, 2 responder errors */
	unit_ctr_put(&sb, "counters/port_rcv_packets", 0);
	unit_ctr_put(&sa, "counters/port_rcv_packets", 1001);
	unit_ctr_put(&sb, "counters/port_xmit_data", 100);
	unit_ctr_put(&sa, "counters/port_xmit_data", 16100);
	unit_ctr_put(&sb, "hw_counters/out_of_buffer", 7);
	unit_ctr_put(&sa, "hw_counters/out_of_buffer", 10);
	unit_ctr_put(&sb, "hw_counters/resp_cqe_error", 0);
	unit_ctr_put(&sa, "hw_counters/resp_cqe_error", 1);
	unit_ctr_put(&sb, "hw_counters/resp_remote_access_errors", 0);
	unit_ctr_put(&sa, "hw_counters/resp_remote_access_errors", 1);
	dev_counters_pack(&sb, &sa, idx, delta, CTRL_MAX_CTRS, &n);
	dev_counters_unpack(idx, delta, n, &fx.pi.srv_zero, &fx.pi.srv_delta);
	fx.pi.have_srv_counters = true;
	fx.pi.server.ctr_span_ns = 1250000000;

	report_build_row(&fx.r, &fx.pi, -1, &m);
	assert_string_equal(row_get(&fx.r, "ctr_xmit_pkts"), "1000");
	assert_string_equal(row_get(&fx.r, "ctr_rcv_pkts"), "1000");
	assert_string_equal(row_get(&fx.r, "ctr_out_of_buffer"), "");
	assert_string_equal(row_get(&fx.r, "srv_ctr_rcv_pkts"), "1001");
	assert_string_equal(row_get(&fx.r, "srv_ctr_xmit_bytes"), "64000");
	assert_string_equal(row_get(&fx.r, "srv_ctr_out_of_buffer"), "3");
	assert_string_equal(row_get(&fx.r, "srv_ctr_resp_err"), "2");
	assert_string_equal(row_get(&fx.r, "srv_ctr_req_err"), "");
	assert_string_equal(row_get(&fx.r, "srv_ctr_xmit_pkts"), "");
	/* srv_ctr_* come after pcie_counted, in ctr_*'s order */
	const char *last = NULL;
	int ipc = -1, ifirst = -1, ilast = -1;
	for (int i = 0; i < fx.r.ncols; i++) {
		if (strcmp(fx.r.cols[i].name, "pcie_counted") == 0)
			ipc = i;
		if (strcmp(fx.r.cols[i].name, "srv_ctr_xmit_pkts") == 0)
			ifirst = i;
		if (strcmp(fx.r.cols[i].name, "srv_foreign_recvs") == 0) {
			last = fx.r.cols[i].name;
			ilast = i;
		}
	}
	assert_true(ipc >= 0 && ifirst > ipc);
	/* then srv_foreign_recvs, the last of the counters (empty: not a UD
	 * point), before the placement columns (numa_node first) */
	assert_non_null(last);
	assert_string_equal(fx.r.cols[ilast + 1].name, "numa_node");
	assert_string_equal(row_get(&fx.r, "srv_foreign_recvs"), "");
	assert_string_equal(fx.r.cols[ilast - 1].name, "srv_ctr_span_s");
	assert_string_equal(row_get(&fx.r, "srv_ctr_span_s"), "1.25");
	assert_int_equal(ilast - 1 - ifirst, 15);

	/* a thread's row: no port counters */
	report_build_row(&fx.r, &fx.pi, 0, &m);
	assert_string_equal(row_get(&fx.r, "ctr_xmit_pkts"), "");
	assert_string_equal(row_get(&fx.r, "srv_ctr_rcv_pkts"), "");
	/* a server that sent none */
	fx.pi.have_srv_counters = false;
	report_build_row(&fx.r, &fx.pi, -1, &m);
	assert_string_equal(row_get(&fx.r, "srv_ctr_rcv_pkts"), "");
	assert_string_equal(row_get(&fx.r, "ctr_rcv_pkts"), "1000");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(name_list_covers_the_drivers),
		cmocka_unit_test(read_by_name_not_directory_order),
		cmocka_unit_test(pack_and_unpack_give_the_deltas),
		cmocka_unit_test(done_carries_the_server_counters),
		cmocka_unit_test(row_has_both_ends),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
