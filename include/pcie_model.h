/*
 * pcie_model.h - the PCIe cost of one RDMA operation, counted the way the
 * paper counts it (Kalia, Kaminsky, Andersen, ATC 2016: Section 2.1 for the
 * PCIe terms and the DMA-read vs MMIO comparison, Section 3.1 and the
 * Appendix for doorbells vs WQE-by-MMIO, Section 5.2.1 for the DMA and
 * MMIO limits, Section 5.2.2 for header-only SENDs): bytes on the bus per
 * operation in each direction, split by cause, and the throughput each
 * bus resource allows.
 *
 * Pure arithmetic: no device, no I/O, no verbs calls. The operation is a
 * row of the verb table (verb.h: what the verb moves, which transports
 * have it); the link's facts are parameters (pm_link): pm_link_paper()
 * gives the paper's Connect-IB hosts, pm_link_gen() a PCIe 3.0/4.0/5.0
 * link with the same CPU and NIC constants.
 *
 * Directions, as seen from the host's memory:
 *   down  host -> NIC (host-to-device): MMIO writes (WQEs, doorbells) and
 *         DMA read completions
 *   up    NIC -> host (device-to-host): DMA read requests and DMA writes
 *         (payload, CQEs)
 * Every byte count below is on the PCIe transaction layer plus the TLP's
 * framing and data-link bytes (pm_tlp_header_bytes); the physical layer's
 * encoding (8b/10b, 128b/130b) is in the link's byte rate instead.
 *
 * Units: bytes (B) per operation, rates in operations per second, limits in
 * Mops (10^6 operations per second), as in the suite's CSV (docs/csv.md).
 */
#ifndef RDMA_BENCH_PCIE_MODEL_H
#define RDMA_BENCH_PCIE_MODEL_H

#include <stddef.h>
#include <stdint.h>

#include "verb.h"

/* Why a byte is on the bus. The first six count payload bytes of TLPs;
 * PM_TLP_HEADERS counts every TLP's header, framing and link bytes. */
enum pm_cause {
	PM_MMIO_WQE,       /* WQE written by the CPU through MMIO (WQE-by-MMIO) */
	PM_DOORBELL,       /* the 8-byte doorbell MMIO of a doorbell batch */
	PM_DMA_WQE_READ,   /* the NIC's DMA read of WQEs after a doorbell */
	PM_PAYLOAD_DMA,    /* payload (or an atomic's 8 bytes) read from or written to host memory */
	PM_CQE_WRITE,      /* completion queue entries DMA-written by the NIC */
	PM_RECV_DESC_READ, /* the NIC's DMA read of a RECV descriptor */
	PM_TLP_HEADERS,    /* TLP header + data-link + framing bytes of all the above */
	PM_NCAUSE
};

/* What binds one host: the resource with the lowest operation rate, by
 * the paper's name for it (pm_bound_desc):
 *   PM_BOUND_DMA_READ  the DMA read bandwidth (5.2.1: the NIC's DMA reads of
 *                      WQEs and payloads against 13443 MB/s on PCIe 3.0 x16)
 *   PM_BOUND_MMIO      the MMIO throughput (5.2.1: cache-line MMIO writes
 *                      per second, (16 x Pbw) / (64 + Pr))
 *   PM_BOUND_LINK_DOWN the PCIe bandwidth host-to-device (2.1), all TLPs
 *   PM_BOUND_LINK_UP   the PCIe bandwidth device-to-host (2.1), all TLPs
 * Ties go to the first in this order (the paper's limit over the link's). */
enum pm_bound {
	PM_BOUND_NONE, PM_BOUND_DMA_READ, PM_BOUND_MMIO, PM_BOUND_LINK_DOWN,
	PM_BOUND_LINK_UP, PM_NBOUND
};

/* How a lone WQE (postlist 1) reaches the NIC when the caller does not say
 * (pm_wqe_by_mmio_default); a longer postlist always rings one doorbell
 * per batch (3.1: Doorbell batching).
 *   PM_BF_INLINE  only an inline WQE is written by MMIO (BlueFlame): the
 *                 mlx4 and mlx5 providers of rdma-core (post_send writes
 *                 the WQE through the BlueFlame register when one WR is
 *                 posted and it is inline); the default
 *   PM_BF_ANY     any lone WQE by MMIO (a provider that always uses it,
 *                 e.g. mlx5 with MLX5_POST_SEND_PREFER_BF=1)
 *   PM_BF_NEVER   never: every WQE by doorbell and DMA read */
enum pm_bf_rule { PM_BF_INLINE = 0, PM_BF_ANY, PM_BF_NEVER, PM_NBF };

/*
 * One configuration, as the suite's knobs name it (docs/csv.md).
 *   verb             RB_VERB_* (verb.h); its row says what moves
 *   transport        RB_TR_* (verb.h); the row says whether the verb has it
 *   size_bytes       payload per operation, 0..2^30 (0: header-only, no SGE:
 *                    the SEND_IMM of 5.2.2); atomics move 8 bytes whatever
 *                    the size (IB spec 9.4.5)
 *   inline_payload   payload inside the WQE (rows with inline_ok); the WQE
 *                    then holds at most PM_MAX_WQE_BYTES
 *   postlist         WQEs per doorbell (Doorbell batching), 1..PM_MAX_POSTLIST
 *   wqe_by_mmio      the CPU writes each WQE through MMIO: postlist 1 only
 *                    (a WQE written by MMIO needs no doorbell to batch);
 *                    pm_wqe_by_mmio_default() is the suite's rule
 *   signal_interval  one signaled WQE (one CQE) per this many,
 *                    1..PM_MAX_SIGNAL_INTERVAL
 *   recv_inline      the responder's NIC scatters payloads up to
 *                    pm_link.cqe_inline_bytes into the CQE (no payload DMA);
 *                    verbs whose payload lands in the RECV (SEND, SEND_IMM)
 */
#define PM_MAX_WQE_BYTES 1024u /* largest send WQE: mlx5's 16 basic blocks of 64 B */
/* postlist and signal_interval: 1..65536, rdma_bench's range of both
 * (RB_MAX_DEPTH, options.h), so a row of any run has its model */
#define PM_MAX_POSTLIST 65536u
#define PM_MAX_SIGNAL_INTERVAL 65536u
#define PM_DEFAULT_SIZE 32u     /* pm_config_default's payload (bytes) */

/*
 * The constants of pm_link_gen (pcie_model.c says where each comes from),
 * named so rb_model's option table shows the same defaults.
 */
#define PM_PAPER_GEN 3u          /* Table 2: CIB's Connect-IB on PCIe 3.0 x16 */
#define PM_PAPER_LANES 16u
#define PM_DEFAULT_MPS 128u
#define PM_DEFAULT_MRRS 512u
#define PM_PAPER_RCB 128u        /* 2.1: C_rc on the paper's Intel CPUs */
#define PM_DEFAULT_CACHELINE 64u
#define PM_DEFAULT_CQE 64u
/*
 * Payload bytes a RECV's CQE carries with RECV inline:
 *   PM_CQE_INLINE_PAPER  3.2 (Inline RECV): "X is small (~64 for
 *                        Mellanox's NICs)": the default
 *   PM_CQE_INLINE_MLX5   mlx5's scatter-to-CQE into a 64-byte CQE (the
 *                        Linux mlx5 driver's MLX5_RES_SCAT_DATA32_CQE; a
 *                        128-byte CQE takes 64, MLX5_RES_SCAT_DATA64_CQE):
 *                        rb_model --cqe-inline mlx5
 */
#define PM_CQE_INLINE_PAPER 64u
#define PM_CQE_INLINE_MLX5 32u
struct pm_config {
	uint64_t verb;
	uint64_t transport;
	unsigned long size_bytes;
	int inline_payload;
	unsigned postlist;
	int wqe_by_mmio;
	unsigned signal_interval;
	int recv_inline;
};

/*
 * One host's PCIe link, CPU and NIC. Every field > 0 except the two rates
 * (0: derived from the link).
 *   gen               PCIe generation 1..5 (transfer rate and encoding)
 *   lanes             1, 2, 4, 8, 16 or 32
 *   mps               max payload size of a TLP (bytes; 128..4096, a power
 *                     of two): DMA writes are cut at it
 *   mrrs              max read request size (bytes; 128..4096, a power of two)
 *   rcb               C_rc, the CPU's read completion combining size (2.1:
 *                     128 B on the paper's Intel CPUs, assumed for AMD):
 *                     a DMA read's data comes back in completions of
 *                     min(rcb, mps) bytes; 64..4096, a power of two
 *   cacheline         CPU cache line = write-combining unit of MMIO (bytes)
 *   cqe_bytes         size of a CQE (bytes)
 *   cqe_inline_bytes  payload a CQE holds when RECVs are inline (bytes;
 *                     at most cqe_bytes: the CQE is written whole either way)
 *   mmio_lines_per_s  cache lines per second of MMIO; 0: derived from the
 *                     link (pm_mmio_lines_per_s, 5.2.1's formula)
 *   dma_read_bps      DMA read payload bytes per second; 0: derived from
 *                     the link (pm_dma_read_bps)
 */
struct pm_link {
	unsigned gen;
	unsigned lanes;
	unsigned mps;
	unsigned mrrs;
	unsigned rcb;
	unsigned cacheline;
	unsigned cqe_bytes;
	unsigned cqe_inline_bytes;
	double mmio_lines_per_s;
	double dma_read_bps;
};

/* One host's bus per operation (amortized over a doorbell batch and over a
 * signaling interval; fractions are kept). */
struct pm_side {
	double down[PM_NCAUSE];     /* bytes host -> NIC per op, by cause */
	double up[PM_NCAUSE];       /* bytes NIC -> host per op, by cause */
	double down_total, up_total;
	double mmio_lines;          /* cache lines (and doorbells) written by MMIO per op */
	double dma_read_bytes;      /* DMA read payload bytes per op */
	double dma_read_lines;      /* host cache lines the NIC's DMA reads touch per
				     * op (each read from a line boundary): the unit
				     * of the uncore's PCIe read count (PCIeRdCur,
				     * 2.1; pcieperf.h), the expected reads of 3.5 */
	/* each resource's limit (Mops); INFINITY if unused */
	double dma_mops, mmio_mops, link_down_mops, link_up_mops;
	double limit_mops;          /* the lowest of the four */
	enum pm_bound bound;        /* which one; PM_BOUND_NONE if the host's bus is idle */
};

/* Both hosts: the requester posts the WQEs, the responder's NIC answers. */
struct pm_result {
	struct pm_side requester, responder;
	double limit_mops;      /* the lower of the two sides' limits */
	int limit_is_responder; /* 1 if the responder's side binds */
	unsigned wqe_bytes;     /* the WQE as the NIC sees it */
	unsigned wqe_lines;     /* its cache lines (its MMIO writes, its DMA read) */
};

/* The paper's hosts (CIB: Connect-IB on PCIe 3.0 x16, Table 2): gen 3,
 * 16 lanes, C_rc 128 (2.1), 64-byte cache lines; MPS 128 and MRRS 512
 * (not stated by the paper: see pcie_model.c), 64-byte CQEs holding 64
 * inline bytes (3.2; PM_CQE_INLINE_PAPER); both rates derived from the
 * link. */
struct pm_link pm_link_paper(void);

/* The paper's CPU and NIC constants on a PCIe gen.0 x lanes link (any
 * gen 1..5, any lane count; pm_check says what is out of range). */
struct pm_link pm_link_gen(unsigned gen, unsigned lanes);

/* A configuration with the suite's defaults: RC WRITE of 32 B, not inline,
 * postlist 1 by doorbell, every WQE signaled, no RECV inline. */
struct pm_config pm_config_default(void);

/* The suite's rule when the way WQEs reach the NIC is not given: a longer
 * postlist rings one doorbell per batch; a postlist of 1 is written by
 * MMIO as rule says (PM_BF_INLINE: only if inline). rdma_bench's rows
 * (report.c, PM_BF_INLINE) and rb_model's default both use it. Returns
 * 1 (WQE-by-MMIO) or 0 (doorbell). */
int pm_wqe_by_mmio_default(enum pm_bf_rule rule, unsigned postlist, int inline_payload);

/* Check c and l against the ranges documented above and the verb table
 * (verb x transport, inline); on error fill err (naming the field, its
 * value, the limit and the fix; err may be NULL) and return -1. */
int pm_check(const struct pm_config *c, const struct pm_link *l, char *err, size_t errlen);

/* Run the model. Returns 0, or -1 with err filled (pm_check). */
int pm_run(const struct pm_config *c, const struct pm_link *l, struct pm_result *r,
	   char *err, size_t errlen);

/* Physical-layer payload bytes per second of one lane of generation gen
 * (1..5: 2.5, 5, 8, 16, 32 GT/s; 8b/10b for 1-2, 128b/130b from 3): the
 * paper's Pbw (984.6 MB/s for 3.0, Figure 2a); 0 for an unknown generation. */
double pm_lane_bps(unsigned gen);
/* pm_lane_bps(l->gen) * l->lanes: the link's byte rate in one direction. */
double pm_link_bps(const struct pm_link *l);
/* Bytes of data per read completion: min(C_rc, MPS) (2.1). */
unsigned pm_completion_bytes(const struct pm_link *l);
/* The DMA read payload rate: l->dma_read_bps if set, else the link rate
 * times c / (c + completion overhead), c = pm_completion_bytes (5.2.1's
 * 13443 MB/s for PCIe 3.0 x16 and C_rc = 128). */
double pm_dma_read_bps(const struct pm_link *l);
/* The MMIO rate in cache lines per second: l->mmio_lines_per_s if set,
 * else 5.2.1's (16 x Pbw) / (64 + Pr) for the link given: lanes x lane
 * rate / (cache line + request overhead); 175 M lines/s on PCIe 3.0 x16. */
double pm_mmio_lines_per_s(const struct pm_link *l);

/* Bytes a TLP adds to its payload: header + data-link (sequence number 2,
 * LCRC 4) + framing. request: a 64-bit-address memory read or write
 * (4-DW header), else a completion (3-DW header). PCIe 3.0 and later: 26
 * (the paper's Pr) and 22 (Pc); 1.x/2.x: 24 and 20 (2.1: "20-26 bytes"). */
unsigned pm_tlp_header_bytes(unsigned gen, int request);

/* Figure 2(b), 2.1: bytes on the bus to move n bytes (n >= 1) from host
 * memory to the NIC.
 *   pm_move_dma_read_down  host-to-device: the read's completions, n + one
 *                          completion overhead per pm_completion_bytes
 *   pm_move_dma_read_up    device-to-host: its read requests, one request
 *                          overhead per MRRS (the other direction: 2.1
 *                          compares host-to-device bytes only)
 *   pm_move_mmio_down      host-to-device: write-combined MMIO, one request
 *                          TLP per cache line (cache line + Pr each)
 * 2.1: "A DMA read always uses less host-to-device PCIe bandwidth than an
 * equal-sized MMIO": pm_move_dma_read_down < pm_move_mmio_down for every n
 * on the paper's link (tests/unit/test_pcie_model.c checks 1..4096). */
double pm_move_dma_read_down(const struct pm_link *l, unsigned long n);
double pm_move_dma_read_up(const struct pm_link *l, unsigned long n);
double pm_move_mmio_down(const struct pm_link *l, unsigned long n);

/* The WQE size the NIC sees for c, from the mlx4/mlx5 segments: control
 * 16 B; UD's datagram (address) segment 48 B; a remote address 16 B for
 * RDMA verbs, plus 16 B of operands for atomics; then the data: an inline
 * segment (4 B header + the payload) if inline, else one 16-byte SGE, and
 * nothing for a header-only operation (size 0). WRITE inline is 36 B + the
 * payload and UD SEND inline 68 B + the payload (the Appendix's 36/68 B);
 * a header-only UD SEND is 64 B: one cache line (5.2.2). */
unsigned pm_wqe_bytes(const struct pm_config *c);
/* The WQE without its payload when inline: pm_wqe_bytes of c inline with
 * size 0 plus the inline segment's 4-byte header (36 for RC/UC WRITE, 68
 * for UD SEND). */
unsigned pm_wqe_header_bytes(const struct pm_config *c);

/* Names, as in the suite's CSV: "dma_wqe_read", "mmio", ...; "?" if unknown. */
const char *pm_cause_name(enum pm_cause c);
const char *pm_bound_name(enum pm_bound b);
/* The paper's name of a bound and its section: "MMIO throughput (5.2.1)". */
const char *pm_bound_desc(enum pm_bound b);
const char *pm_bf_rule_name(enum pm_bf_rule r);
/* Parse a --blueflame name ("inline", "any", "never"); 0, or -1 if unknown. */
int pm_bf_rule_parse(const char *s, enum pm_bf_rule *out);

#endif
