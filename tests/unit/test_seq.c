/*
 * test_seq.c - the sequencer's pure parts (seq.h, bench/apps/seq/seq.c): the
 * herd-rpc slot layout, Spec-S0's 64-bit reconstruction across the 2^32
 * wrap, batching accounting, the uniqueness check (a planted duplicate, a
 * gap and a stray value each fail, named), the configuration's checks and
 * its round trip through a TEST message.
 */
#include "unit.h"

#include "seq.h"
#include "seq_opts.h"

static char err[512];

static void slot_layout_is_dense_and_disjoint(void **state)
{
	(void)state;
	assert_int_equal(seq_slot_offset(4, 0, 0), 0);
	assert_int_equal(seq_slot_offset(4, 0, 3), 3 * SEQ_SLOT_BYTES);
	assert_int_equal(seq_slot_offset(4, 1, 0), 4 * SEQ_SLOT_BYTES);
	assert_int_equal(seq_slot_offset(4, 2, 3), 11 * SEQ_SLOT_BYTES);
	/* every (client, slot) of a 5 x 7 region: one slot apart, in order, inside */
	uint64_t prev = 0;
	for (uint64_t c = 0; c < 5; c++)
		for (uint64_t k = 0; k < 7; k++) {
			uint64_t off = seq_slot_offset(7, c, k);
			if (c || k)
				assert_int_equal(off, prev + SEQ_SLOT_BYTES);
			assert_true(off + SEQ_SLOT_BYTES <= seq_region_bytes(7, 5));
			prev = off;
		}
	assert_int_equal(prev + SEQ_SLOT_BYTES, seq_region_bytes(7, 5));
}

static void clients_spread_round_robin_over_server_threads(void **state)
{
	(void)state;
	assert_int_equal(seq_server_thread_of(0, 3), 0);
	assert_int_equal(seq_server_thread_of(4, 3), 1);
	assert_int_equal(seq_clients_of_thread(0, 5, 2), 3);
	assert_int_equal(seq_clients_of_thread(1, 5, 2), 2);
	assert_int_equal(seq_clients_of_thread(2, 2, 4), 0);   /* more threads than clients */
	for (uint64_t nc = 1; nc < 20; nc++)
		for (uint64_t nt = 1; nt < 8; nt++) {
			uint64_t sum = 0;
			for (uint64_t t = 0; t < nt; t++) {
				uint64_t n = 0;
				for (uint64_t c = 0; c < nc; c++)
					n += seq_server_thread_of(c, nt) == t;
				assert_int_equal(seq_clients_of_thread(t, nc, nt), n);
				sum += n;
			}
			assert_int_equal(sum, nc);
		}
}

static void s0_reconstructs_across_the_2_32_wrap(void **state)
{
	(void)state;
	const uint64_t w = UINT64_C(1) << 32;
	assert_int_equal(seq_s0_reconstruct(0, 5), 5);
	assert_int_equal(seq_s0_reconstruct(7, 3), 3);              /* a late value below ref */
	assert_int_equal(seq_s0_reconstruct(w - 5, 2), w + 2);      /* forward over the wrap */
	assert_int_equal(seq_s0_reconstruct(w + 3, 0xfffffffeu), w - 2); /* late, back over it */
	assert_int_equal(seq_s0_reconstruct(5 * w + 9, 9), 5 * w + 9);
	/* the limits: within 2^31 - 1 ahead and 2^31 behind */
	uint64_t ref = 3 * w + 100;
	assert_int_equal(seq_s0_reconstruct(ref, (uint32_t)(ref + 0x7fffffffu)), ref + 0x7fffffffu);
	assert_int_equal(seq_s0_reconstruct(ref, (uint32_t)(ref - 0x80000000u)), ref - 0x80000000u);
	assert_int_equal(seq_s0_reconstruct(ref, (uint32_t)(ref + 0x80000000u)), ref - 0x80000000u);

	/* a client started at 2^32 - 100 receiving every 3rd number, a window of
	 * them arriving out of order (pairs swapped): each rebuilt exactly */
	uint64_t start = w - 100, got = start;
	for (uint64_t i = 0; i < 200; i += 2) {
		uint64_t a = start + 3 * i, b = start + 3 * (i + 1);
		uint64_t order[2] = { b, a };
		for (int j = 0; j < 2; j++) {
			uint64_t v = seq_s0_reconstruct(got, (uint32_t)order[j]);
			assert_int_equal(v, order[j]);
			if (v > got)
				got = v;
		}
	}
	assert_true(got > w);
}

static void batching_counts_doorbells_per_pass(void **state)
{
	(void)state;
	assert_int_equal(seq_doorbells(0, true, SEQ_BATCH_MAX), 0);
	assert_int_equal(seq_doorbells(1, true, SEQ_BATCH_MAX), 1);
	assert_int_equal(seq_doorbells(SEQ_BATCH_MAX, true, SEQ_BATCH_MAX), 1);
	assert_int_equal(seq_doorbells(SEQ_BATCH_MAX + 1, true, SEQ_BATCH_MAX), 2);
	assert_int_equal(seq_doorbells(5, false, SEQ_BATCH_MAX), 5);
	struct seq_batch b = { 0 };
	assert_true(isnan(seq_batch_avg(&b)));
	/* the paper's 15.9 responses per doorbell: 159 responses in 10 passes */
	for (int i = 0; i < 9; i++)
		seq_batch_add(&b, 16, seq_doorbells(16, true, SEQ_BATCH_MAX));
	seq_batch_add(&b, 15, seq_doorbells(15, true, SEQ_BATCH_MAX));
	assert_int_equal(b.responses, 159);
	assert_int_equal(b.doorbells, 10);
	assert_true(fabs(seq_batch_avg(&b) - 15.9) < 1e-12);
	/* batch off: one doorbell per response */
	struct seq_batch off = { 0 };
	seq_batch_add(&off, 7, seq_doorbells(7, false, SEQ_BATCH_MAX));
	assert_true(seq_batch_avg(&off) == 1.0);
}

/* lists[i] gets values[j] for j % n == i. */
static void spread(struct seq_vals *lists, unsigned n, const uint64_t *values, unsigned nv,
		   uint64_t cap)
{
	for (unsigned i = 0; i < n; i++)
		assert_int_equal(seq_vals_init(&lists[i], cap), 0);
	for (unsigned j = 0; j < nv; j++)
		seq_vals_add(&lists[j % n], values[j]);
}

static void free_lists(struct seq_vals *lists, unsigned n)
{
	for (unsigned i = 0; i < n; i++)
		seq_vals_free(&lists[i]);
}

static void unique_check_passes_an_exact_range(void **state)
{
	(void)state;
	uint64_t v[50];
	struct seq_vals l[3];
	for (unsigned j = 0; j < 50; j++)
		v[j] = 1000 + (j * 17) % 50;       /* a permutation of 1000..1049 */
	spread(l, 3, v, 50, 64);
	assert_int_equal(seq_check_unique(l, 3, 1000, 50, err, sizeof(err)), SEQ_CHECK_EXACT);
	free_lists(l, 3);
	/* nothing handed out, nothing received */
	spread(l, 3, v, 0, 4);
	assert_int_equal(seq_check_unique(l, 3, 1000, 0, err, sizeof(err)), SEQ_CHECK_EXACT);
	free_lists(l, 3);
}

static void unique_check_names_a_planted_duplicate(void **state)
{
	(void)state;
	uint64_t v[10] = { 0, 1, 2, 3, 4, 5, 6, 7, 7, 9 };   /* 7 twice, 8 missing */
	struct seq_vals l[2];
	spread(l, 2, v, 10, 16);
	assert_int_equal(seq_check_unique(l, 2, 0, 10, err, sizeof(err)), SEQ_CHECK_FAILED);
	assert_non_null(strstr(err, "value 7 handed out twice"));
	free_lists(l, 2);
}

static void unique_check_names_a_gap_and_a_stray_value(void **state)
{
	(void)state;
	uint64_t gap[4] = { 10, 11, 13, 14 };                /* 12 never received */
	struct seq_vals l[2];
	spread(l, 2, gap, 4, 8);
	assert_int_equal(seq_check_unique(l, 2, 10, 5, err, sizeof(err)), SEQ_CHECK_FAILED);
	assert_non_null(strstr(err, "value 12 missing"));
	free_lists(l, 2);
	uint64_t stray[3] = { 10, 11, 15 };                  /* 15 was never handed out */
	spread(l, 2, stray, 3, 8);
	assert_int_equal(seq_check_unique(l, 2, 10, 3, err, sizeof(err)), SEQ_CHECK_FAILED);
	assert_non_null(strstr(err, "value 15"));
	assert_non_null(strstr(err, "outside"));
	free_lists(l, 2);
	uint64_t below[2] = { 9, 10 };                       /* below the start */
	spread(l, 1, below, 2, 8);
	assert_int_equal(seq_check_unique(l, 1, 10, 2, err, sizeof(err)), SEQ_CHECK_FAILED);
	assert_non_null(strstr(err, "value 9"));
	free_lists(l, 1);
}

static void unique_check_summary_mode_when_values_overflow(void **state)
{
	(void)state;
	const uint64_t w = UINT64_C(1) << 32;
	uint64_t v[40];
	struct seq_vals l[2];
	for (unsigned j = 0; j < 40; j++)
		v[j] = w - 20 + j;                           /* across 2^32 */
	spread(l, 2, v, 40, 5);                              /* 5 of 20 stored each */
	assert_int_equal(seq_check_unique(l, 2, w - 20, 40, err, sizeof(err)), SEQ_CHECK_SUMMARY);
	free_lists(l, 2);
	v[7] = v[8];                                         /* a duplicate, a value missing */
	spread(l, 2, v, 40, 5);
	assert_int_equal(seq_check_unique(l, 2, w - 20, 40, err, sizeof(err)), SEQ_CHECK_FAILED);
	assert_non_null(strstr(err, "twice"));
	free_lists(l, 2);
	spread(l, 2, v, 39, 5);                              /* one value short */
	assert_int_equal(seq_check_unique(l, 2, w - 20, 40, err, sizeof(err)), SEQ_CHECK_FAILED);
	assert_non_null(strstr(err, "39 values received, 40 handed out"));
	free_lists(l, 2);
}

static void config_checks_name_value_and_fix(void **state)
{
	(void)state;
	struct seq_cfg c;
	uint64_t v;
	seq_cfg_defaults(&c);
	assert_int_equal(seq_cfg_validate(&c, 0, err, sizeof(err)), 0);
	c.window = 0;
	assert_int_equal(seq_cfg_validate(&c, 0, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "--window 0"));
	seq_cfg_defaults(&c);
	c.server_threads = 3;
	assert_int_equal(seq_cfg_validate(&c, 0, err, sizeof(err)), 0);   /* client: no CPU bound */
	assert_int_equal(seq_cfg_validate(&c, 3, err, sizeof(err)), 0);
	assert_int_equal(seq_cfg_validate(&c, 2, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "--server-threads 3 is more than the server's 2 online CPUs"));
	c.variant = SEQ_HERD_KV;                              /* each thread owns a partition */
	assert_int_equal(seq_cfg_validate(&c, 2, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "--server-threads 3 is more than the server's 2 online CPUs"));
	assert_int_equal(seq_cfg_validate(&c, 3, err, sizeof(err)), 0);
	seq_cfg_defaults(&c);
	c.ud_qps = SEQ_MAX_UD_QPS + 1;
	assert_int_equal(seq_cfg_validate(&c, 0, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "--ud-qps 17"));
	seq_cfg_defaults(&c);
	c.variant = SEQ_ATOMICS;
	assert_int_equal(seq_cfg_validate(&c, 0, err, sizeof(err)), -1);   /* 1 server thread */
	c.server_threads = 0;
	assert_int_equal(seq_cfg_validate(&c, 1, err, sizeof(err)), 0);
	c.ud_qps = 3;                                         /* not used by atomics: refused */
	assert_int_equal(seq_cfg_validate(&c, 1, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "--ud-qps 3 with --variant atomics"));
	c.ud_qps = 1;
	c.batch = 0;                                          /* --batch off: refused too */
	assert_int_equal(seq_cfg_validate(&c, 1, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "--batch off with --variant atomics"));
	c.batch = 1;
	c.duration_ms = 0;
	assert_int_equal(seq_cfg_validate(&c, 1, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "use -D 0.001..86400"));
	assert_int_equal(seq_variant_parse("spec-s1", &v, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "--variant spec-s1"));
	assert_int_equal(seq_variant_parse("herd-rpc", &v, err, sizeof(err)), 0);
	assert_int_equal(v, SEQ_HERD_RPC);
}

/* Every variant's configuration through rdma_seq's own CONFIG message: the
 * bytes on the wire decode to the same seq_cfg, every SEQ_CFG_FIELDS field
 * carried (each set to a value of its own, so a swapped or dropped field
 * fails). */
static void config_round_trips_through_its_config_message(void **state)
{
	(void)state;
	uint8_t buf[CTRL_HDR_LEN + CTRL_CONFIG_FIXED + SEQ_CFG_NFIELDS * 8];
	struct ctrl_msg m;
	for (uint64_t var = 0; var < SEQ_VARIANT_COUNT; var++) {
		struct seq_cfg a = {
			.variant = var, .server_threads = 5, .client_threads = 7, .window = 9,
			.batch = var != SEQ_HERD_RPC, .ud_qps = 3, .start = (UINT64_C(1) << 32) - 11,
			.duration_ms = 1500, .warmup_ms = 250, .timeout_ms = 30000,
			.idle_yield = var != SEQ_SPEC_S0,
		}, b;
		a.kv = (struct kv_cfg){ .get_fraction = 0.9, .keys = 1000 + var, .value_bytes = 40,
					.zipf = var % 2, .theta = 0.99, .validate = var != 0 };
		a.drtm = (struct drtm_cfg){ .put_fraction = 0.25, .items = 4096 + var, .zipf = 1,
					    .theta = 0.8, .put_writes = var % 2, .validate = 1 };
		struct ctrl_config cfg;
		seq_cfg_to_config(&a, &cfg);
		size_t n = ctrl_encode_config(buf, sizeof(buf), &cfg);
		assert_int_equal(n, sizeof(buf));
		assert_int_equal(ctrl_decode(buf, n, &m, err, sizeof(err)), 0);
		assert_int_equal(m.type, CTRL_CONFIG);
		assert_int_equal(seq_cfg_from_config(&m.u.config, &b, err, sizeof(err)), 0);
		assert_memory_equal(&a, &b, sizeof(a));
	}
	/* each wire field is its own: distinct values come back in their place */
	struct seq_wire w, w2;
	uint64_t *p = (uint64_t *)&w;
	for (unsigned i = 0; i < SEQ_CFG_NFIELDS; i++)
		p[i] = 100 + i;
	struct seq_cfg c;
	seq_cfg_from_wire(&w, &c);
	seq_cfg_to_wire(&c, &w2);
	assert_memory_equal(&w, &w2, sizeof(w));
}

/* A CONFIG of another version or field count, and rdma_bench's TEST, are
 * refused by name. */
static void another_programs_point_is_refused(void **state)
{
	(void)state;
	struct seq_cfg c;
	struct ctrl_config cfg;
	seq_cfg_defaults(&c);
	seq_cfg_to_config(&c, &cfg);
	cfg.version = SEQ_CFG_VERSION + 1;
	assert_int_equal(seq_cfg_from_config(&cfg, &c, err, sizeof(err)), -1);
	assert_err_has(err, "rdma_seq configuration version 2");
	seq_cfg_to_config(&c, &cfg);
	cfg.nfields--;
	assert_int_equal(seq_cfg_from_config(&cfg, &c, err, sizeof(err)), -1);
	assert_err_has(err, "run the same rdma_seq build at both ends");
	/* a flag or a fraction beyond what the command line gives */
	seq_cfg_to_config(&c, &cfg);
	cfg.f[4] = 2;   /* batch */
	assert_int_equal(seq_cfg_from_config(&cfg, &c, err, sizeof(err)), -1);
	assert_err_has(err, "CONFIG field batch 2 is above its maximum 1");
	seq_cfg_to_config(&c, &cfg);
	cfg.f[SEQ_CFG_NFIELDS - 6] = 1000001;   /* drtm_put_ppm */
	assert_int_equal(seq_cfg_from_config(&cfg, &c, err, sizeof(err)), -1);
	assert_err_has(err, "drtm_put_ppm 1000001");
	/* rdma_bench's point is a TEST, which no CONFIG can claim to be */
	uint8_t buf[CTRL_HDR_LEN + CTRL_CONFIG_FIXED + SEQ_CFG_NFIELDS * 8];
	seq_cfg_to_config(&c, &cfg);
	cfg.program = CTRL_PROG_RDMA_BENCH;
	assert_int_equal(ctrl_encode_config(buf, sizeof(buf), &cfg), 0);
}

/* rdma_seq's table gives the configuration seq_cfg_defaults does (the
 * server's and the tests' defaults), and refuses what its rules refuse. */
static void options_from_its_table(void **state)
{
	(void)state;
	static struct seq_opts o;
	struct seq_cfg d;
	char *ok[] = { "rdma_seq", "-c", "h", "--variant", "spec-s0", NULL };
	seq_cfg_defaults(&d);
	assert_int_equal(seq_opts_parse(5, ok, &o, err, sizeof(err)), 0);
	assert_memory_equal(&o.cfg, &d, sizeof(d));
	assert_int_equal(o.rb.port, SEQ_DEFAULT_PORT);
	assert_int_equal(o.rb.connect_timeout_s, 10);
	char *kv[] = { "rdma_seq", "-c", "h", "--variant", "herd-rpc", "--kv", "get=0.5", NULL };
	assert_int_equal(seq_opts_parse(7, kv, &o, err, sizeof(err)), -1);
	assert_err_has(err, "--kv with --variant herd-rpc");
	char *srv[] = { "rdma_seq", "-s", "--batch", "off", NULL };
	assert_int_equal(seq_opts_parse(4, srv, &o, err, sizeof(err)), -1);
	assert_err_has(err, "--batch given to the server");
	char *at[] = { "rdma_seq", "-c", "h", "--variant", "atomics", "-w", "9", NULL };
	assert_int_equal(seq_opts_parse(7, at, &o, err, sizeof(err)), 0);
	assert_int_equal(o.cfg.server_threads, 0);
	assert_int_equal(o.cfg.window, 9);
}

/* The rows both programs have are one definition: the same short letter,
 * type, range and role in rdma_bench's table and rdma_seq's. */
static void shared_rows_are_spelled_once(void **state)
{
	(void)state;
	static const char *const shared[] = {
		"server", "client", "port", "bind", "token-file", "once", "ib-dev", "ib-port",
		"gid-index", "reps", "rep-first", "connect-timeout", "timeout", "csv", "json",
		"run-id", "proc-index", "quiet", "dry-run", "list-knobs", "help", "version",
	};
	const struct rb_cli *a = opts_cli(), *b = seq_cli();
	for (size_t i = 0; i < sizeof(shared) / sizeof(shared[0]); i++) {
		const struct rb_knob *ka = NULL, *kb = NULL;
		for (size_t k = 0; k < a->nknobs; k++)
			if (!strcmp(a->knobs[k].name, shared[i]) && !(a->knobs[k].flags & RB_KF_HELP2))
				ka = &a->knobs[k];
		for (size_t k = 0; k < b->nknobs; k++)
			if (!strcmp(b->knobs[k].name, shared[i]))
				kb = &b->knobs[k];
		if (!ka || !kb)
			fail_msg("--%s missing from %s", shared[i], ka ? "rdma_seq" : "rdma_bench");
		assert_int_equal(ka->shortopt, kb->shortopt);
		assert_int_equal(ka->type, kb->type);
		assert_true(ka->lo == kb->lo && ka->hi == kb->hi);
		assert_int_equal(ka->flags & (RB_KF_SERVER | RB_KF_BOTH),
				 kb->flags & (RB_KF_SERVER | RB_KF_BOTH));
		assert_string_equal(ka->help, kb->help);
	}
	/* no short letter means two things in one program, or two in both */
	for (size_t k = 0; k < b->nknobs; k++)
		for (size_t j = 0; j < a->nknobs; j++)
			if (b->knobs[k].shortopt && b->knobs[k].shortopt == a->knobs[j].shortopt &&
			    strcmp(b->knobs[k].name, a->knobs[j].name) &&
			    !(a->knobs[j].flags & RB_KF_ALIAS) && strcmp(a->knobs[j].name, "size"))
				fail_msg("-%c is --%s in rdma_seq and --%s in rdma_bench",
					 b->knobs[k].shortopt, b->knobs[k].name, a->knobs[j].name);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(slot_layout_is_dense_and_disjoint),
		cmocka_unit_test(clients_spread_round_robin_over_server_threads),
		cmocka_unit_test(s0_reconstructs_across_the_2_32_wrap),
		cmocka_unit_test(batching_counts_doorbells_per_pass),
		cmocka_unit_test(unique_check_passes_an_exact_range),
		cmocka_unit_test(unique_check_names_a_planted_duplicate),
		cmocka_unit_test(unique_check_names_a_gap_and_a_stray_value),
		cmocka_unit_test(unique_check_summary_mode_when_values_overflow),
		cmocka_unit_test(config_checks_name_value_and_fix),
		cmocka_unit_test(config_round_trips_through_its_config_message),
		cmocka_unit_test(another_programs_point_is_refused),
		cmocka_unit_test(options_from_its_table),
		cmocka_unit_test(shared_rows_are_spelled_once),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
