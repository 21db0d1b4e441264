/*
 * test_pcie_model.c - the PCIe model (pcie_model.h) against the numbers the
 * paper states (Kalia, Kaminsky, Andersen, ATC 2016: Sections 2.1-2.2, Appendix A,
 * Figure 11), and its accounting rules at their edges.
 *
 * Rounding: the paper states 26/22 B, 36/68 B, 1534 B, 1800 B and 87.5 Mops
 * exactly (checked to 1e-9); 13443 MB/s to the MB/s (checked within 0.5);
 * "~105" Mops to the unit (checked within 0.5).
 */
#include "unit.h"

#include "pcie_model.h"

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
	char err[256] = "";
	if (pm_run(c, l, &r, err, sizeof(err)) != 0) {
		print_error("pm_run failed: %s\n", err);
		fail();
	}
	return r;
}

static void run_bad(const struct pm_config *c, const struct pm_link *l, const char *needle)
{
	struct pm_result r;
	char err[256] = "";
	assert_int_equal(pm_run(c, l, &r, err, sizeof(err)), -1);
	if (strstr(err, needle) == NULL) {
		print_error("message \"%s\" lacks \"%s\"\n", err, needle);
		fail();
	}
}

/* Section 2.1 / Appendix A: PCIe 3.0 request and completion TLPs add 26 and 22 B. */
static void test_tlp_headers(void **state)
{
	(void)state;
	assert_int_equal(pm_tlp_header_bytes(3, 1), 26);
	assert_int_equal(pm_tlp_header_bytes(3, 0), 22);
	assert_int_equal(pm_tlp_header_bytes(5, 1), 26);
	/* ours (2-byte framing before 3.0): 24/20 */
	assert_int_equal(pm_tlp_header_bytes(2, 1), 24);
	assert_int_equal(pm_tlp_header_bytes(1, 0), 20);
}

/* Appendix A: WQE headers are 36 B (RC, UC) and 68 B (UD). */
static void test_wqe_sizes(void **state)
{
	(void)state;
	assert_int_equal(pm_wqe_header_bytes(PM_RC), 36);
	assert_int_equal(pm_wqe_header_bytes(PM_UC), 36);
	assert_int_equal(pm_wqe_header_bytes(PM_UD), 68);
	struct pm_config c = pm_config_default();
	c.inline_payload = 1;
	c.size_bytes = 29;
	assert_int_equal(pm_wqe_bytes(&c), 65);
	c.inline_payload = 0;
	assert_int_equal(pm_wqe_bytes(&c), 36 + 16);
	c.verb = PM_SEND_IMM;
	c.size_bytes = 0;
	c.transport = PM_UD;
	assert_int_equal(pm_wqe_bytes(&c), 68);
}

/* Appendix A: 10 WQEs of 65 B move 1534 B host -> NIC with one doorbell
 * (34 B doorbell TLP + 10 completions of 128 + 22 B) and 1800 B by
 * WQE-by-MMIO (20 cache-line TLPs of 64 + 26 B). */
static void test_appendix_doorbell_vs_mmio(void **state)
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

/* Figure 11: 13443 MB/s of DMA reads over 128 B per op gives ~105 Mops;
 * the rate comes from PCIe 3.0 x16 and 128-byte completions. */
static void test_dma_limit_105(void **state)
{
	(void)state;
	struct pm_link l = pm_link_paper();
	assert_near(pm_link_bps(&l) / 1e6, 15753.846153846154, 1e-6);
	assert_near(pm_dma_read_bps(&l) / 1e6, 13443, 0.5);

	struct pm_config c = pm_config_default();
	c.verb = PM_SEND;
	c.transport = PM_UD;
	c.size_bytes = 4;
	c.inline_payload = 1;
	c.postlist = 16;
	c.signal_interval = 16;
	struct pm_result r = run_ok(&c, &l);
	assert_int_equal(r.wqe_lines, 2);
	assert_near(r.requester.dma_read_bytes, 128, 1e-9);
	assert_near(r.requester.dma_mops, 105, 0.5);
	/* a given DMA rate is used as is */
	l.dma_read_bps = 12800e6;
	r = run_ok(&c, &l);
	assert_near(r.requester.dma_mops, 100, 1e-9);
}

/* Figure 11: 175 M cache lines/s of MMIO over 2-line WQEs gives 87.5 Mops,
 * and binds WQE-by-MMIO UD SENDs. */
static void test_mmio_limit_87_5(void **state)
{
	(void)state;
	struct pm_link l = pm_link_paper();
	struct pm_config c = pm_config_default();
	c.verb = PM_SEND;
	c.transport = PM_UD;
	c.size_bytes = 4;
	c.inline_payload = 1;
	c.wqe_by_mmio = 1;
	c.signal_interval = 16;
	struct pm_result r = run_ok(&c, &l);
	assert_near(r.requester.mmio_mops, 87.5, 1e-9);
	assert_int_equal(r.requester.bound, PM_BOUND_MMIO);
	assert_near(r.requester.limit_mops, 87.5, 1e-9);
	assert_true(isinf(r.requester.dma_mops));
	/* 60 B inline still fits 2 lines (128 B); 61 B needs 3 */
	c.size_bytes = 60;
	assert_near(run_ok(&c, &l).requester.mmio_mops, 87.5, 1e-9);
	c.size_bytes = 61;
	assert_near(run_ok(&c, &l).requester.mmio_mops, 175.0 / 3, 1e-9);
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
}

/* Payloads above MPS and MRRS are cut into several TLPs. */
static void test_large_payload_tlps(void **state)
{
	(void)state;
	struct pm_link l = pm_link_paper();
	struct pm_config c = pm_config_default();
	c.verb = PM_READ;
	c.size_bytes = 1024;
	struct pm_result r = run_ok(&c, &l);
	/* responder: 2 read requests (MRRS 512) up, 8 completions (MPS 128) down */
	assert_near(r.responder.up_total, 2 * 26, 0);
	assert_near(r.responder.down_total, 1024 + 8 * 22, 0);
	/* requester: the response written in 8 TLPs, plus the CQE */
	assert_near(r.requester.up[PM_PAYLOAD_DMA], 1024, 0);
	l.mps = 256;
	r = run_ok(&c, &l);
	assert_near(r.responder.down_total, 1024 + 4 * 22, 0);
}

/* Section 5.2.2: header-only SENDs need no payload DMA at the receiver;
 * RECV inline puts small payloads in the CQE. */
static void test_recv_side(void **state)
{
	(void)state;
	struct pm_link l = pm_link_paper();
	struct pm_config c = pm_config_default();
	c.verb = PM_SEND;
	c.transport = PM_UD;
	c.size_bytes = 32;
	struct pm_result r = run_ok(&c, &l);
	assert_near(r.responder.up[PM_PAYLOAD_DMA], 32, 0);
	assert_near(r.responder.up[PM_CQE_WRITE], 64, 0);
	assert_near(r.responder.down[PM_RECV_DESC_READ], 16, 0);
	assert_near(r.responder.up_total, 32 + 26 + 64 + 26 + 26, 0);
	double regular = r.responder.limit_mops;

	c.recv_inline = 1;
	r = run_ok(&c, &l);
	assert_near(r.responder.up[PM_PAYLOAD_DMA], 0, 0);
	c.size_bytes = 33; /* above the CQE's 32 inline bytes */
	r = run_ok(&c, &l);
	assert_near(r.responder.up[PM_PAYLOAD_DMA], 33, 0);

	c.recv_inline = 0;
	c.verb = PM_SEND_IMM;
	c.size_bytes = 0;
	r = run_ok(&c, &l);
	assert_near(r.responder.up[PM_PAYLOAD_DMA], 0, 0);
	assert_near(r.responder.up_total, 64 + 26 + 26, 0);
	assert_int_equal(r.responder.bound, PM_BOUND_LINK);
	if (!(r.responder.limit_mops > regular)) {
		print_error("header-only limit %g is not above the regular SEND's %g\n",
			    r.responder.limit_mops, regular);
		fail();
	}
}

/* The overall limit is the lower side's. */
static void test_overall_limit(void **state)
{
	(void)state;
	struct pm_link l = pm_link_paper();
	struct pm_config c = pm_config_default();
	c.verb = PM_READ;
	c.size_bytes = 4096;
	struct pm_result r = run_ok(&c, &l);
	/* the READ's response written at the requester (5018 B up) outweighs
	 * the responder's read (4800 B down) */
	assert_int_equal(r.limit_is_responder, 0);
	assert_near(r.limit_mops, r.requester.limit_mops, 0);
	/* small inline UD SENDs, batched: the receiver's 174 B up per RECV
	 * outweigh the sender's 152.125 B down */
	c = pm_config_default();
	c.verb = PM_SEND;
	c.transport = PM_UD;
	c.inline_payload = 1;
	c.postlist = 16;
	c.signal_interval = 16;
	r = run_ok(&c, &l);
	assert_near(r.requester.down_total, 152.125, 1e-12);
	assert_near(r.responder.up_total, 174, 1e-12);
	assert_int_equal(r.limit_is_responder, 1);
	assert_near(r.limit_mops, r.responder.limit_mops, 0);
}

static void test_bad_input(void **state)
{
	(void)state;
	struct pm_link l = pm_link_paper();
	struct pm_config c = pm_config_default();
	c.verb = PM_READ;
	c.transport = PM_UD;
	run_bad(&c, &l, "READ needs RC");
	c.transport = PM_RC;
	c.inline_payload = 1;
	run_bad(&c, &l, "--inline off");
	c = pm_config_default();
	c.transport = PM_UD;
	run_bad(&c, &l, "WRITE needs RC or UC");
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
	run_bad(&c, &l, "RCB 32");
	l = pm_link_paper();
	l.mrrs = 64;
	run_bad(&c, &l, "MRRS 64");
	l = pm_link_paper();
	l.cqe_inline_bytes = 64;
	run_bad(&c, &l, "64 inline bytes");
	l = pm_link_paper();
	l.mmio_lines_per_s = 0;
	run_bad(&c, &l, "MMIO rate 0");
	l = pm_link_paper();
	l.dma_read_bps = -1;
	run_bad(&c, &l, "DMA read rate -1");
	l = pm_link_paper();
	l.cacheline = 48;
	run_bad(&c, &l, "cache line 48");
	/* combinations that would be ignored or impossible are refused */
	l = pm_link_paper();
	c = pm_config_default();
	c.wqe_by_mmio = 1;
	c.postlist = 16;
	run_bad(&c, &l, "postlist 16 with WQE-by-MMIO");
	c = pm_config_default();
	c.inline_payload = 1;
	c.size_bytes = 1048576;
	run_bad(&c, &l, "above the largest send WQE of 1024 bytes (988 of payload with rc)");
	c.size_bytes = 988;
	struct pm_result r;
	assert_int_equal(pm_run(&c, &l, &r, NULL, 0), 0);
	c = pm_config_default();
	c.recv_inline = 1;
	run_bad(&c, &l, "RECV inline with write");
	c.verb = PM_SEND;
	assert_int_equal(pm_run(&c, &l, &r, NULL, 0), 0);
	assert_int_equal(pm_wqe_by_mmio_default(1), 1);
	assert_int_equal(pm_wqe_by_mmio_default(2), 0);
}

static void test_lane_rates_and_names(void **state)
{
	(void)state;
	assert_near(pm_lane_bps(1), 250e6, 0);
	assert_near(pm_lane_bps(2), 500e6, 0);
	assert_near(pm_lane_bps(4), 2 * pm_lane_bps(3), 1e-3);
	assert_near(pm_lane_bps(0), 0, 0);
	enum pm_verb v;
	enum pm_transport t;
	assert_int_equal(pm_verb_parse("send_imm", &v), 0);
	assert_int_equal(v, PM_SEND_IMM);
	assert_int_equal(pm_verb_parse("atomic", &v), -1);
	assert_int_equal(pm_transport_parse("uc", &t), 0);
	assert_int_equal(t, PM_UC);
	assert_int_equal(pm_transport_parse("xrc", &t), -1);
	assert_string_equal(pm_cause_name(PM_RECV_DESC_READ), "recv_desc_read");
	assert_string_equal(pm_bound_name(PM_BOUND_MMIO), "mmio");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_tlp_headers),
		cmocka_unit_test(test_wqe_sizes),
		cmocka_unit_test(test_appendix_doorbell_vs_mmio),
		cmocka_unit_test(test_dma_limit_105),
		cmocka_unit_test(test_mmio_limit_87_5),
		cmocka_unit_test(test_amortization),
		cmocka_unit_test(test_large_payload_tlps),
		cmocka_unit_test(test_recv_side),
		cmocka_unit_test(test_overall_limit),
		cmocka_unit_test(test_bad_input),
		cmocka_unit_test(test_lane_rates_and_names),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
