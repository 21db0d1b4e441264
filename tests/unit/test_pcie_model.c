/*
 * test_pcie_model.c - the PCIe model (pcie_model.h) against every number
 * the paper (Kalia, Kaminsky, Andersen, ATC 2016) derives from its PCIe
 * model, each test named and commented with the paper's section, then the
 * model's own accounting rules at their edges.
 *
 * The paper's numbers, and how exactly each is checked:
 *   2.1         TLP overhead "20-26 bytes"; PCIe 3.0 request/completion
 *               26/22 B (Figure 2a, the Appendix)                 exact
 *   2.1         C_rc = 128 B: read completions split at 128 B     exact
 *   2.1, Fig 2b a DMA read always uses less host-to-device bandwidth
 *               than an equal-sized MMIO                          every size 1..4096
 *   2.2 Table 1 WQE header 36 B (RC/UC) and 68 B (UD)             exact
 *   Appendix    10 WQEs of 65 B: 1534 B (Doorbell) vs 1800 B
 *               (WQE-by-MMIO) host-to-device                      exact
 *   5.2.1       DMA read bandwidth 13443 MB/s on PCIe 3.0 x16     to the MB/s
 *   5.2.1       ~105 Mops DMA limit of batched UD SENDs           within 0.05
 *   5.2.1       MMIO (16 x Pbw) / (64 + Pr) = 175 M cache lines/s,
 *               87.5 Mops for non-batched (2-line) UD SENDs       within 0.05
 *               (the formula gives 175.04 and 87.52: the paper rounds)
 *   5.2.1       the measured 101.6 (batched) and 80 (non-batched) Mops lie
 *               below those limits
 *   5.2.2       a header-only SEND's WQE fits one cache line (the paper's
 *               gain of header-only SENDs rests on it); its RECV side moves
 *               no payload; the measured 82 and 122 Mops RECV rates lie
 *               below the model's limits for regular and header-only SENDs
 * Every number above is reproduced without a constant fitted to it; where
 * the model needs a value the paper does not state (MPS, MRRS, CQE sizes,
 * the WQE segments beyond 36/68 B) docs/model.md says so. 5.2.2's +54 %
 * for header-only SENDs is not a model output: the model's ratios for the
 * same change are +50 % on the RECV side and 2x on the sender's MMIO
 * (test_paper_5_2_2_header_only_one_line checks the direction only).
 */
#include "unit.h"

#include "pcie_model.h"
#include "verb.h"

#define assert_near(actual, expected, tol) \
	assert_near_at((actual), (expected), (tol), #actual, __FILE__, __LINE__)

static void assert_near_at(double a, double e, double tol, const char *what,
			   const char *file, int line)
{
	if (fabs(a - e) <= tol)
		return;
	print_error("%s:%d: %s = %.17g, expected %.17g within %.3g\n", file, line, what, a, e, tol);
	fail();
}

static struct pm_result run_ok(const struct pm_config *c, const struct pm_link *l)
{
	struct pm_result r;
	char err[320] = "";
	if (pm_run(c, l, &r, err, sizeof(err)) != 0) {
		print_error("pm_run failed: %s\n", err);
		fail();
	}
	return r;
}

static void run_bad(const struct pm_config *c, const struct pm_link *l, const char *needle)
{
	struct pm_result r;
	char err[320] = "";
	assert_int_equal(pm_run(c, l, &r, err, sizeof(err)), -1);
	if (strstr(err, needle) == NULL) {
		print_error("message \"%s\" lacks \"%s\"\n", err, needle);
		fail();
	}
	/* pm_check alone refuses it too, with -1 (pcie_model.h) and the same words */
	err[0] = '\0';
	assert_int_equal(pm_check(c, l, err, sizeof(err)), -1);
	assert_non_null(strstr(err, needle));
}

/* 5.2.1's UD SENDs: 4 B inline, selectively signaled, batched by a
 * postlist of 16 (Doorbell) or each WQE written by MMIO. */
static struct pm_config ud_send(int batched)
{
	struct pm_config c = pm_config_default();
	c.verb = RB_VERB_SEND;
	c.transport = RB_TR_UD;
	c.size_bytes = 4;
	c.inline_payload = 1;
	c.signal_interval = 16;
	c.postlist = batched ? 16 : 1;
	c.wqe_by_mmio = pm_wqe_by_mmio_default(PM_BF_INLINE, c.postlist, c.inline_payload);
	return c;
}

/* 2.1 (Figure 2a, the Appendix): TLP overhead of 20-26 B; PCIe 3.0
 * request and completion TLPs add 26 and 22 B. */
static void test_paper_2_1_tlp_overheads(void **state)
{
	(void)state;
	assert_int_equal(pm_tlp_header_bytes(3, 1), 26);
	assert_int_equal(pm_tlp_header_bytes(3, 0), 22);
	for (unsigned g = 1; g <= 5; g++)
		for (int req = 0; req <= 1; req++) {
			assert_true(pm_tlp_header_bytes(g, req) >= 20);
			assert_true(pm_tlp_header_bytes(g, req) <= 26);
		}
	/* ours (2-byte framing before 3.0): 24/20; from 3.0 on as 3.0 */
	assert_int_equal(pm_tlp_header_bytes(2, 1), 24);
	assert_int_equal(pm_tlp_header_bytes(1, 0), 20);
	assert_int_equal(pm_tlp_header_bytes(5, 1), 26);
}

/* 2.1: "a read response larger than C_rc is split into multiple
 * completions; C_rc is 128 bytes" - not at MPS. */
static void test_paper_2_1_completions_at_crc(void **state)
{
	(void)state;
	struct pm_link l = pm_link_paper();
	assert_int_equal(l.rcb, 128);
	assert_int_equal(pm_completion_bytes(&l), 128);
	struct pm_config c = pm_config_default();
	c.verb = RB_VERB_READ;
	c.size_bytes = 1024;
	/* responder: 2 read requests (MRRS 512) up, 8 completions of 128 B down */
	struct pm_result r = run_ok(&c, &l);
	assert_near(r.responder.up_total, 2 * 26, 0);
	assert_near(r.responder.down_total, 1024 + 8 * 22, 0);
	/* a larger MPS does not merge completions: still 8 (C_rc) */
	l.mps = 256;
	r = run_ok(&c, &l);
	assert_near(r.responder.down_total, 1024 + 8 * 22, 0);
	/* the DMA writes of the READ's response are cut at MPS: 4 TLPs */
	assert_near(r.requester.up[PM_PAYLOAD_DMA], 1024, 0);
	assert_near(r.requester.up[PM_TLP_HEADERS], 4 * 26 + 26 /* CQE */ + 26 /* WQE read */, 0);
	/* --rcb: a CPU combining 256 B on that link: 4 completions */
	l.rcb = 256;
	r = run_ok(&c, &l);
	assert_near(r.responder.down_total, 1024 + 4 * 22, 0);
	/* never above MPS: C_rc 256 with MPS 128 gives 128-byte completions */
	l.mps = 128;
	assert_int_equal(pm_completion_bytes(&l), 128);
	/* C_rc 64: 16 completions */
	l.rcb = 64;
	r = run_ok(&c, &l);
	assert_near(r.responder.down_total, 1024 + 16 * 22, 0);
}

/* 2.1 and Figure 2(b): "A DMA read always uses less host-to-device PCIe
 * bandwidth than an equal-sized MMIO", compared host-to-device only. */
static void test_paper_2_1_dma_read_below_mmio(void **state)
{
	(void)state;
	struct pm_link links[] = { pm_link_paper(), pm_link_gen(2, 8), pm_link_gen(4, 16),
				   pm_link_gen(5, 16) };
	for (size_t k = 0; k < sizeof(links) / sizeof(links[0]); k++)
		for (unsigned long n = 1; n <= 4096; n++) {
			double dma = pm_move_dma_read_down(&links[k], n);
			double mmio = pm_move_mmio_down(&links[k], n);
			if (!(dma < mmio)) {
				print_error("gen %u, %lu B: DMA read %g B >= MMIO %g B host-to-device\n",
					    links[k].gen, n, dma, mmio);
				fail();
			}
		}
	/* 64 B on the paper's link: 64 + 22 vs 64 + 26 host-to-device; the
	 * read's 26-byte request goes the other way (summing both directions
	 * would give 112 > 90 and reverse 2.1's sentence) */
	struct pm_link l = pm_link_paper();
	assert_near(pm_move_dma_read_down(&l, 64), 86, 0);
	assert_near(pm_move_mmio_down(&l, 64), 90, 0);
	assert_near(pm_move_dma_read_up(&l, 64), 26, 0);
	/* 129 B: two completions vs three cache lines */
	assert_near(pm_move_dma_read_down(&l, 129), 129 + 2 * 22, 0);
	assert_near(pm_move_mmio_down(&l, 129), 3 * 90, 0);
}

/* 2.2 (Table 1), used by the Appendix: WQE headers of 36 B (RC, UC) and
 * 68 B (UD); a 65-byte WQE is an RC WRITE with 29 inline bytes. */
static void test_paper_table1_wqe_headers(void **state)
{
	(void)state;
	struct pm_config c = pm_config_default();
	c.inline_payload = 1;
	assert_int_equal(pm_wqe_header_bytes(&c), 36);
	c.transport = RB_TR_UC;
	assert_int_equal(pm_wqe_header_bytes(&c), 36);
	c.verb = RB_VERB_SEND;
	c.transport = RB_TR_UD;
	assert_int_equal(pm_wqe_header_bytes(&c), 68);
	c = pm_config_default();
	c.inline_payload = 1;
	c.size_bytes = 29;
	assert_int_equal(pm_wqe_bytes(&c), 65);
	c.verb = RB_VERB_SEND;
	c.transport = RB_TR_UD;
	c.size_bytes = 4;
	assert_int_equal(pm_wqe_bytes(&c), 72);
	/* ours, from the mlx segments: an SGE instead of inline data */
	c = pm_config_default();
	assert_int_equal(pm_wqe_bytes(&c), 16 + 16 + 16);
}

/* Appendix: 10 WQEs of 65 B move 1534 B host -> NIC with one doorbell
 * (34 B doorbell TLP + 10 completions of 128 + 22 B) and 1800 B by
 * WQE-by-MMIO (20 cache-line TLPs of 64 + 26 B). */
static void test_paper_appendix_1534_vs_1800(void **state)
{
	(void)state;
	struct pm_link l = pm_link_paper();
	struct pm_config c = pm_config_default();
	c.inline_payload = 1;
	c.size_bytes = 29; /* 36 + 29 = 65 B */
	c.postlist = 10;
	struct pm_result r = run_ok(&c, &l);
	assert_int_equal(r.wqe_bytes, 65);
	assert_int_equal(r.wqe_lines, 2);
	assert_near(10 * r.requester.down_total, 1534, 1e-9);
	assert_near(10 * r.requester.down[PM_DOORBELL], 8, 1e-9);
	assert_near(10 * r.requester.down[PM_DMA_WQE_READ], 1280, 1e-9);
	assert_near(10 * r.requester.down[PM_TLP_HEADERS], 26 + 10 * 22, 1e-9);
	assert_near(r.requester.down[PM_MMIO_WQE], 0, 0);
	assert_near(r.requester.down[PM_PAYLOAD_DMA], 0, 0);

	c.wqe_by_mmio = 1;
	c.postlist = 1; /* each WQE by MMIO: per op, as for 10 of them */
	r = run_ok(&c, &l);
	assert_near(10 * r.requester.down_total, 1800, 1e-9);
	assert_near(10 * r.requester.down[PM_MMIO_WQE], 1280, 1e-9);
	assert_near(r.requester.down[PM_DMA_WQE_READ], 0, 0);
	assert_near(r.requester.down[PM_DOORBELL], 0, 0);
	assert_near(r.requester.dma_read_bytes, 0, 0);
	assert_near(r.requester.mmio_lines, 2, 0);
}

/* 5.2.1: the DMA read bandwidth of PCIe 3.0 x16 is 13443 MB/s (the link's
 * 15754 MB/s times 128 / (128 + 22): C_rc-sized completions); batched UD
 * SENDs read 2 cache lines (128 B) per WQE: ~105 Mops; measured 101.6. */
static void test_paper_5_2_1_dma_limit_105(void **state)
{
	(void)state;
	struct pm_link l = pm_link_paper();
	assert_near(pm_lane_bps(3) / 1e6, 984.6, 0.05);
	assert_near(pm_link_bps(&l) / 1e6, 15753.846153846154, 1e-6);
	assert_near(pm_dma_read_bps(&l) / 1e6, 13443, 0.5);

	struct pm_config c = ud_send(1);
	assert_int_equal(c.wqe_by_mmio, 0);
	struct pm_result r = run_ok(&c, &l);
	assert_int_equal(r.wqe_lines, 2);
	assert_near(r.requester.dma_read_bytes, 128, 1e-9);
	assert_near(r.requester.dma_mops, 105, 0.05);
	assert_true(101.6 < r.requester.dma_mops);
	/* a given DMA rate is used as is */
	l.dma_read_bps = 12800e6;
	r = run_ok(&c, &l);
	assert_near(r.requester.dma_mops, 100, 1e-9);
}

/* 5.2.1: the MMIO rate is (16 x Pbw) / (64 + Pr) = 175 M cache lines/s on
 * PCIe 3.0 x16; non-batched UD SENDs write 2-line WQEs by MMIO: 87.5 Mops,
 * measured 80. The formula for the link given: twice on PCIe 4.0. */
static void test_paper_5_2_1_mmio_limit_87_5(void **state)
{
	(void)state;
	struct pm_link l = pm_link_paper();
	assert_near(pm_mmio_lines_per_s(&l) / 1e6, 16 * pm_lane_bps(3) / 1e6 / (64 + 26), 1e-9);
	assert_near(pm_mmio_lines_per_s(&l) / 1e6, 175, 0.05);
	struct pm_config c = ud_send(0);
	assert_int_equal(c.wqe_by_mmio, 1);
	struct pm_result r = run_ok(&c, &l);
	assert_near(r.requester.mmio_mops, 87.5, 0.05);
	assert_int_equal(r.requester.bound, PM_BOUND_MMIO);
	assert_near(r.requester.limit_mops, r.requester.mmio_mops, 0);
	assert_true(isinf(r.requester.dma_mops));
	assert_true(80 < r.requester.limit_mops);
	/* 60 B inline still fits 2 lines (128 B); 61 B needs 3 */
	c.size_bytes = 60;
	assert_near(run_ok(&c, &l).requester.mmio_mops, 87.5, 0.05);
	c.size_bytes = 61;
	assert_near(run_ok(&c, &l).requester.mmio_mops, pm_mmio_lines_per_s(&l) / 3e6, 1e-9);
	/* PCIe 4.0 x16: twice the lane rate, twice the MMIO rate */
	struct pm_link g4 = pm_link_gen(4, 16);
	assert_near(pm_mmio_lines_per_s(&g4), 2 * pm_mmio_lines_per_s(&l), 1);
	c.size_bytes = 4;
	assert_near(run_ok(&c, &g4).requester.mmio_mops, 175, 0.1);
	/* x8: half */
	struct pm_link x8 = pm_link_gen(3, 8);
	assert_near(run_ok(&c, &x8).requester.mmio_mops, 87.5 / 2, 0.05);
	/* a NIC's own rate, when given, is used as is */
	l.mmio_lines_per_s = 100e6;
	assert_near(run_ok(&c, &l).requester.mmio_mops, 50, 1e-9);
}

/* 5.2.2: a header-only SEND (SEND_IMM, 0 B: no SGE, no inline data) is a
 * one-line WQE, half the MMIO of a regular UD SEND; its RECV moves no
 * payload. Measured RECV rates 82 (32 B) and 122 Mops (header-only) lie
 * below the model's limits. */
static void test_paper_5_2_2_header_only_one_line(void **state)
{
	(void)state;
	struct pm_link l = pm_link_paper();
	struct pm_config c = ud_send(0);
	c.verb = RB_VERB_SEND_IMM;
	c.size_bytes = 0;
	struct pm_result r = run_ok(&c, &l);
	assert_int_equal(r.wqe_bytes, 64);
	assert_int_equal(r.wqe_lines, 1);
	assert_near(r.requester.mmio_lines, 1, 0);
	assert_near(r.requester.mmio_mops, pm_mmio_lines_per_s(&l) / 1e6, 1e-9);
	assert_near(r.responder.up[PM_PAYLOAD_DMA], 0, 0);
	/* the RECV side: CQE + its header + the descriptor's read request */
	assert_near(r.responder.up_total, 64 + 26 + 26, 0);
	double header_only = r.responder.limit_mops;
	/* a regular 32-byte UD SEND: payload + CQE + descriptor read request */
	c.verb = RB_VERB_SEND;
	c.size_bytes = 32;
	c.inline_payload = 1;
	c.wqe_by_mmio = 0;
	c.postlist = 16;
	r = run_ok(&c, &l);
	assert_near(r.responder.up_total, 32 + 26 + 64 + 26 + 26, 0);
	double regular = r.responder.limit_mops;
	assert_true(82 < regular);
	assert_true(122 < header_only);
	assert_true(header_only > regular);
	/* RC: a header-only SEND is the control segment alone */
	c.transport = RB_TR_RC;
	c.verb = RB_VERB_SEND_IMM;
	c.size_bytes = 0;
	assert_int_equal(pm_wqe_bytes(&c), 16);
}

/* 3.1: WQE-by-MMIO only for a lone WQE; the mlx providers' rule (only
 * inline WQEs), and the knob for providers that differ. */
static void test_blueflame_rule(void **state)
{
	(void)state;
	assert_int_equal(pm_wqe_by_mmio_default(PM_BF_INLINE, 1, 1), 1);
	assert_int_equal(pm_wqe_by_mmio_default(PM_BF_INLINE, 1, 0), 0);
	assert_int_equal(pm_wqe_by_mmio_default(PM_BF_INLINE, 2, 1), 0);
	assert_int_equal(pm_wqe_by_mmio_default(PM_BF_ANY, 1, 0), 1);
	assert_int_equal(pm_wqe_by_mmio_default(PM_BF_ANY, 16, 0), 0);
	assert_int_equal(pm_wqe_by_mmio_default(PM_BF_NEVER, 1, 1), 0);
	enum pm_bf_rule b;
	assert_int_equal(pm_bf_rule_parse("any", &b), 0);
	assert_int_equal(b, PM_BF_ANY);
	assert_int_equal(pm_bf_rule_parse("sometimes", &b), -1);
	assert_string_equal(pm_bf_rule_name(PM_BF_NEVER), "never");
	/* a lone non-inline READ rings a doorbell and is DMA-read */
	struct pm_link l = pm_link_paper();
	struct pm_config c = pm_config_default();
	c.verb = RB_VERB_READ;
	c.size_bytes = 64;
	c.wqe_by_mmio = pm_wqe_by_mmio_default(PM_BF_INLINE, 1, 0);
	struct pm_result r = run_ok(&c, &l);
	assert_near(r.requester.down[PM_DOORBELL], 8, 0);
	assert_near(r.requester.down[PM_DMA_WQE_READ], 64, 0);
}

/* The model takes the verb table's rows: every verb x transport the table
 * has runs, every pair it lacks is refused with the table's names. */
static void test_verb_table_rows(void **state)
{
	(void)state;
	struct pm_link l = pm_link_paper();
	for (uint64_t v = 0; v < RB_VERB_COUNT; v++)
		for (uint64_t t = 0; t < RB_TR_COUNT; t++) {
			struct pm_config c = pm_config_default();
			c.verb = v;
			c.transport = t;
			struct pm_result r;
			char err[320] = "";
			int rc = pm_run(&c, &l, &r, err, sizeof(err));
			assert_int_equal(rc, verb_on_transport(v, t) ? 0 : -1);
			if (rc != 0 && strstr(err, verb_name(v)) == NULL)
				fail_msg("\"%s\" does not name %s", err, verb_name(v));
		}
	/* WRITE_IMM: the payload written and a RECV consumed (descriptor, CQE) */
	struct pm_config c = pm_config_default();
	c.verb = RB_VERB_WRITE_IMM;
	struct pm_result r = run_ok(&c, &l);
	assert_near(r.responder.up[PM_PAYLOAD_DMA], 32, 0);
	assert_near(r.responder.up[PM_CQE_WRITE], 64, 0);
	assert_near(r.responder.down[PM_RECV_DESC_READ], 16, 0);
	/* atomics: 8 bytes whatever the size, read and written at the
	 * responder, the old value written at the requester */
	c = pm_config_default();
	c.verb = RB_VERB_FETCH_ADD;
	c.size_bytes = 64;
	r = run_ok(&c, &l);
	assert_int_equal(r.wqe_bytes, 16 + 16 + 16 + 16);
	assert_near(r.responder.down[PM_PAYLOAD_DMA], 8, 0);
	assert_near(r.responder.up[PM_PAYLOAD_DMA], 8, 0);
	assert_near(r.requester.up[PM_PAYLOAD_DMA], 8, 0);
	c.transport = RB_TR_UC;
	run_bad(&c, &l, "fetch_add over uc: uc has only write|write_imm|send|send_imm");
}

/* The doorbell is amortized over the postlist; CQEs over the signal interval. */
static void test_amortization(void **state)
{
	(void)state;
	struct pm_link l = pm_link_paper();
	struct pm_config c = pm_config_default();
	c.postlist = 16;
	c.signal_interval = 8;
	struct pm_result r = run_ok(&c, &l);
	assert_near(r.requester.mmio_lines, 1.0 / 16, 1e-12);
	assert_near(r.requester.up[PM_CQE_WRITE], 64.0 / 8, 1e-12);
	/* RC WRITE 32 B not inline: the payload is DMA-read (32 B, 1 completion) */
	assert_near(r.requester.down[PM_PAYLOAD_DMA], 32, 1e-12);
	assert_near(r.requester.dma_read_bytes, 64 + 32, 1e-12);
	/* up: CQE 64/8 B + its header 26/8, the batch's 16 x 64 B WQE read in
	 * 2 requests (MRRS 512) 2 x 26/16, the payload's read request 26 */
	assert_near(r.requester.up_total, 8 + 26.0 / 8 + 2 * 26.0 / 16 + 26, 1e-12);
	/* the responder of a WRITE: the payload DMA-written, one TLP */
	assert_near(r.responder.up[PM_PAYLOAD_DMA], 32, 0);
	assert_near(r.responder.up_total, 32 + 26, 0);
	assert_near(r.responder.down_total, 0, 0);
	assert_int_equal(r.responder.bound, PM_BOUND_LINK_UP);
}

/* RECV inline puts small payloads in the CQE: up to ~64 B on the paper's
 * Mellanox NICs (3.2), 32 B with mlx5's 64-byte CQEs. */
static void test_recv_inline(void **state)
{
	(void)state;
	struct pm_link l = pm_link_paper();
	struct pm_config c = pm_config_default();
	assert_int_equal(l.cqe_inline_bytes, 64);
	c.verb = RB_VERB_SEND;
	c.transport = RB_TR_UD;
	c.size_bytes = 64;
	c.recv_inline = 1;
	struct pm_result r = run_ok(&c, &l);
	assert_near(r.responder.up[PM_PAYLOAD_DMA], 0, 0);
	c.size_bytes = 65; /* above the CQE's 64 inline bytes */
	r = run_ok(&c, &l);
	assert_near(r.responder.up[PM_PAYLOAD_DMA], 65, 0);
	l.cqe_inline_bytes = PM_CQE_INLINE_MLX5;
	c.size_bytes = 33; /* above mlx5's 32 */
	r = run_ok(&c, &l);
	assert_near(r.responder.up[PM_PAYLOAD_DMA], 33, 0);
	c.size_bytes = 32;
	r = run_ok(&c, &l);
	assert_near(r.responder.up[PM_PAYLOAD_DMA], 0, 0);
}

/* The cache lines the requester's NIC reads per op (what an uncore PCIe
 * read count sees; figure-13's expected reads): an 8-byte READ by doorbell
 * reads its one-line WQE; a WRITE also its payload's line; an inline
 * WRITE by MMIO (BlueFlame) nothing; 16 READ WQEs per doorbell are 16
 * lines read at once, one per op. */
static void test_dma_read_lines(void **state)
{
	(void)state;
	struct pm_link l = pm_link_paper();
	struct pm_config c = pm_config_default();
	c.verb = RB_VERB_READ;
	c.size_bytes = 8;
	struct pm_result r = run_ok(&c, &l);
	assert_near(r.requester.dma_read_lines, 1, 0);
	assert_near(r.responder.dma_read_lines, 1, 0); /* the 8 B it returns */
	c.verb = RB_VERB_WRITE;
	r = run_ok(&c, &l);
	assert_near(r.requester.dma_read_lines, 2, 0);
	c.size_bytes = 65; /* a payload over two lines */
	r = run_ok(&c, &l);
	assert_near(r.requester.dma_read_lines, 3, 0);
	c.size_bytes = 8;
	c.inline_payload = 1;
	c.wqe_by_mmio = 1;
	r = run_ok(&c, &l);
	assert_near(r.requester.dma_read_lines, 0, 0);
	c = pm_config_default();
	c.verb = RB_VERB_READ;
	c.size_bytes = 8;
	c.postlist = 16;
	r = run_ok(&c, &l);
	assert_near(r.requester.dma_read_lines, 1, 1e-9);
}

/* The overall limit is the lower side's; each side names its resource. */
static void test_overall_limit(void **state)
{
	(void)state;
	struct pm_link l = pm_link_paper();
	struct pm_config c = pm_config_default();
	c.verb = RB_VERB_READ;
	c.size_bytes = 4096;
	struct pm_result r = run_ok(&c, &l);
	/* the READ's response written at the requester (4096 + 32 x 26 B up,
	 * MPS 128) outweighs the responder's read (4096 + 32 x 22 B down) */
	assert_int_equal(r.limit_is_responder, 0);
	assert_int_equal(r.requester.bound, PM_BOUND_LINK_UP);
	/* the responder's DMA read bandwidth and its host-to-device bytes are
	 * one number (completions of 128 + 22 B): the paper's name wins */
	assert_int_equal(r.responder.bound, PM_BOUND_DMA_READ);
	assert_near(r.responder.dma_mops, r.responder.link_down_mops, 1e-9);
	assert_near(r.limit_mops, r.requester.limit_mops, 0);
	/* small inline UD SENDs, batched: the receiver's 174 B up per RECV
	 * outweigh the sender's 152.125 B down */
	c = ud_send(1);
	c.size_bytes = 32;
	r = run_ok(&c, &l);
	assert_near(r.requester.down_total, 152.125, 1e-12);
	assert_near(r.responder.up_total, 174, 1e-12);
	assert_int_equal(r.limit_is_responder, 1);
	assert_near(r.limit_mops, r.responder.limit_mops, 0);
	/* the sender's link (103.6 Mops, doorbell and headers) binds before
	 * 5.2.1's DMA limit (105) */
	c.size_bytes = 4;
	r = run_ok(&c, &l);
	assert_int_equal(r.requester.bound, PM_BOUND_LINK_DOWN);
	assert_true(r.requester.link_down_mops < r.requester.dma_mops);
	assert_string_equal(pm_bound_desc(PM_BOUND_MMIO), "MMIO throughput (5.2.1)");
	assert_string_equal(pm_bound_name(PM_BOUND_DMA_READ), "dma_read");
}

static void test_bad_input(void **state)
{
	(void)state;
	struct pm_link l = pm_link_paper();
	struct pm_config c = pm_config_default();
	c.verb = RB_VERB_READ;
	c.transport = RB_TR_UD;
	run_bad(&c, &l, "read over ud: ud has only send|send_imm");
	c.transport = RB_TR_RC;
	c.inline_payload = 1;
	run_bad(&c, &l, "--inline off");
	c = pm_config_default();
	c.verb = RB_VERB_COUNT;
	run_bad(&c, &l, "unknown verb code");
	c = pm_config_default();
	c.postlist = 0;
	run_bad(&c, &l, "postlist 0");
	c = pm_config_default();
	c.signal_interval = 0;
	run_bad(&c, &l, "signal interval 0");
	c = pm_config_default();
	c.size_bytes = (1ul << 30) + 1;
	run_bad(&c, &l, "1073741825");
	c = pm_config_default();
	l.mps = 192;
	run_bad(&c, &l, "MPS 192");
	l = pm_link_paper();
	l.gen = 6;
	run_bad(&c, &l, "generation 6");
	l = pm_link_paper();
	l.lanes = 3;
	run_bad(&c, &l, "lanes 3");
	l = pm_link_paper();
	l.rcb = 32;
	run_bad(&c, &l, "C_rc 32");
	l = pm_link_paper();
	l.mrrs = 64;
	run_bad(&c, &l, "MRRS 64");
	l = pm_link_paper();
	l.cqe_inline_bytes = 65;
	run_bad(&c, &l, "65 inline bytes");
	l = pm_link_paper();
	l.mmio_lines_per_s = -1;
	run_bad(&c, &l, "MMIO rate -1");
	l = pm_link_paper();
	l.dma_read_bps = -1;
	run_bad(&c, &l, "DMA read rate -1");
	l = pm_link_paper();
	l.cacheline = 48;
	run_bad(&c, &l, "cache line 48");
	/* the power-of-two sizes at both ends of their ranges pass, one step out does not */
	static const struct { size_t off; unsigned lo, hi; const char *name; } pw[] = {
		{ offsetof(struct pm_link, mps), 128, 4096, "MPS" },
		{ offsetof(struct pm_link, mrrs), 128, 4096, "MRRS" },
		{ offsetof(struct pm_link, rcb), 64, 4096, "C_rc" },
		{ offsetof(struct pm_link, cacheline), 16, 256, "cache line" },
	};
	for (size_t i = 0; i < sizeof(pw) / sizeof(pw[0]); i++) {
		unsigned v[4] = { pw[i].lo / 2, pw[i].lo, pw[i].hi, pw[i].hi * 2 };
		for (int k = 0; k < 4; k++) {
			char err[320] = "";
			l = pm_link_paper();
			memcpy((char *)&l + pw[i].off, &v[k], sizeof(unsigned));
			int rc = pm_check(&c, &l, err, sizeof(err));
			if (rc != (k == 1 || k == 2 ? 0 : -1) ||
			    (rc && strstr(err, pw[i].name) == NULL))
				fail_msg("%s %u: pm_check gave %d (%s)", pw[i].name, v[k], rc, err);
		}
	}
	/* a CQE of 16..4096 bytes */
	unsigned cqe[4] = { 15, 16, 4096, 4097 };
	for (int k = 0; k < 4; k++) {
		char err[320] = "";
		l = pm_link_paper();
		l.cqe_bytes = cqe[k];
		l.cqe_inline_bytes = 0;
		int rc = pm_check(&c, &l, err, sizeof(err));
		if (rc != (k == 1 || k == 2 ? 0 : -1) || (rc && strstr(err, "CQE") == NULL))
			fail_msg("CQE %u bytes: pm_check gave %d (%s)", cqe[k], rc, err);
	}
	/* a message of 2^30 bytes at most, the model's limit, and not one byte less */
	{
		struct pm_config big = pm_config_default();
		char err[320] = "";
		big.inline_payload = 0;
		big.size_bytes = 1ul << 30;
		l = pm_link_paper();
		if (pm_check(&big, &l, err, sizeof(err)) != 0)
			fail_msg("size 2^30: pm_check refused it (%s)", err);
		big.size_bytes++;
		assert_int_equal(pm_check(&big, &l, err, sizeof(err)), -1);
		assert_non_null(strstr(err, "above the maximum 1073741824"));
	}
	l = pm_link_paper();
	/* combinations that would be ignored or impossible are refused */
	l = pm_link_paper();
	c = pm_config_default();
	c.wqe_by_mmio = 1;
	c.postlist = 16;
	run_bad(&c, &l, "postlist 16 with WQE-by-MMIO");
	c = pm_config_default();
	c.inline_payload = 1;
	c.size_bytes = 1048576;
	run_bad(&c, &l, "above the largest send WQE of 1024 bytes (988 of payload with write rc)");
	c.size_bytes = 988;
	struct pm_result r;
	assert_int_equal(pm_run(&c, &l, &r, NULL, 0), 0);
	c = pm_config_default();
	c.recv_inline = 1;
	run_bad(&c, &l, "RECV inline with write: only send|send_imm");
	c.verb = RB_VERB_SEND;
	assert_int_equal(pm_run(&c, &l, &r, NULL, 0), 0);
}

static void test_lane_rates_and_names(void **state)
{
	(void)state;
	assert_near(pm_lane_bps(1), 250e6, 0);
	assert_near(pm_lane_bps(2), 500e6, 0);
	assert_near(pm_lane_bps(4), 2 * pm_lane_bps(3), 1e-3);
	assert_near(pm_lane_bps(5), 4 * pm_lane_bps(3), 1e-3);
	assert_near(pm_lane_bps(0), 0, 0);
	struct pm_link g5 = pm_link_gen(5, 16), g3 = pm_link_paper();
	assert_near(pm_dma_read_bps(&g5), 4 * pm_dma_read_bps(&g3), 1);
	assert_string_equal(pm_cause_name(PM_RECV_DESC_READ), "recv_desc_read");
	assert_string_equal(pm_bound_name(PM_BOUND_LINK_UP), "link_up");
	assert_string_equal(pm_bound_name(PM_NBOUND), "?");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_paper_2_1_tlp_overheads),
		cmocka_unit_test(test_paper_2_1_completions_at_crc),
		cmocka_unit_test(test_paper_2_1_dma_read_below_mmio),
		cmocka_unit_test(test_paper_table1_wqe_headers),
		cmocka_unit_test(test_paper_appendix_1534_vs_1800),
		cmocka_unit_test(test_paper_5_2_1_dma_limit_105),
		cmocka_unit_test(test_paper_5_2_1_mmio_limit_87_5),
		cmocka_unit_test(test_paper_5_2_2_header_only_one_line),
		cmocka_unit_test(test_blueflame_rule),
		cmocka_unit_test(test_verb_table_rows),
		cmocka_unit_test(test_amortization),
		cmocka_unit_test(test_recv_inline),
		cmocka_unit_test(test_dma_read_lines),
		cmocka_unit_test(test_overall_limit),
		cmocka_unit_test(test_bad_input),
		cmocka_unit_test(test_lane_rates_and_names),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
