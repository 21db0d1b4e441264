/*
 * pcie_model.h - the PCIe cost of one RDMA operation, counted the way the
 * paper counts it (Kalia, Kaminsky, Andersen, ATC 2016: Section 2.1 for the
 * PCIe terms, Section 3.1 and Appendix A for doorbells vs WQE-by-MMIO,
 * Section 5.2.2 for header-only SENDs): bytes on the bus per operation in each
 * direction, split by cause, and the throughput each bus resource allows.
 *
 * Pure arithmetic: no verbs, no device, no I/O. The link's facts are
 * parameters (pm_link); pm_link_paper() gives the paper's Connect-IB hosts.
 *
 * Directions, as seen from the host's memory:
 *   down  host -> NIC: MMIO writes (WQEs, doorbells) and DMA read completions
 *   up    NIC -> host: DMA read requests and DMA writes (payload, CQEs)
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

/* The verbs the model knows; PM_SEND_IMM with payload 0 is the paper's
 * header-only SEND (Section 5.2.2: the message travels in the immediate). */
enum pm_verb { PM_WRITE, PM_READ, PM_SEND, PM_SEND_IMM };
enum pm_transport { PM_RC, PM_UC, PM_UD };

/* Why a byte is on the bus. The first six count payload bytes of TLPs;
 * PM_TLP_HEADERS counts every TLP's header, framing and link bytes. */
enum pm_cause {
	PM_MMIO_WQE,       /* WQE written by the CPU through MMIO (WQE-by-MMIO) */
	PM_DOORBELL,       /* the 8-byte doorbell MMIO of a doorbell batch */
	PM_DMA_WQE_READ,   /* the NIC's DMA read of WQEs after a doorbell */
	PM_PAYLOAD_DMA,    /* payload read from or written to host memory */
	PM_CQE_WRITE,      /* completion queue entries DMA-written by the NIC */
	PM_RECV_DESC_READ, /* the NIC's DMA read of a RECV descriptor */
	PM_TLP_HEADERS,    /* TLP header + data-link + framing bytes of all the above */
	PM_NCAUSE
};

/* What binds: the resource with the lowest operation rate. */
enum pm_bound { PM_BOUND_NONE, PM_BOUND_DMA, PM_BOUND_MMIO, PM_BOUND_LINK };

/*
 * One configuration, as the suite's knobs name it (docs/csv.md).
 *   size_bytes       payload per operation, 0..2^30 (0: header-only with PM_SEND_IMM)
 *   inline_payload   payload inside the WQE (WRITE, SEND, SEND_IMM; not READ);
 *                    the WQE then holds at most PM_MAX_WQE_BYTES
 *   postlist         WQEs per doorbell (doorbell batching), 1..4096
 *   wqe_by_mmio      the CPU writes each WQE through MMIO: postlist 1 only
 *                    (a WQE written by MMIO needs no doorbell to batch);
 *                    pm_wqe_by_mmio_default() is the suite's rule
 *   signal_interval  one signaled WQE (one CQE) per this many, >= 1
 *   recv_inline      the responder's NIC scatters payloads up to
 *                    pm_link.cqe_inline_bytes into the CQE (no payload DMA);
 *                    SEND and SEND_IMM only (the verbs that consume a RECV)
 */
#define PM_MAX_WQE_BYTES 1024u /* largest send WQE: mlx5's 16 basic blocks of 64 B */
struct pm_config {
	enum pm_verb verb;
	enum pm_transport transport;
	unsigned long size_bytes;
	int inline_payload;
	unsigned postlist;
	int wqe_by_mmio;
	unsigned signal_interval;
	int recv_inline;
};

/*
 * One host's PCIe link and NIC. Every field > 0 except dma_read_bps (0:
 * derived from the link, pm_dma_read_bps).
 *   gen               PCIe generation 1..5 (transfer rate and encoding)
 *   lanes             1, 2, 4, 8, 16 or 32
 *   mps               max payload size of a TLP (bytes; 128..4096, a power of two)
 *   mrrs              max read request size (bytes; 128..4096, a power of two)
 *   rcb               read completion boundary (64 or 128 bytes)
 *   cacheline         CPU cache line = write-combining unit of MMIO (bytes)
 *   cqe_bytes         size of a CQE (bytes)
 *   cqe_inline_bytes  payload a CQE holds when RECVs are inline (bytes)
 *   mmio_lines_per_s  cache lines per second the NIC accepts by MMIO
 *   dma_read_bps      DMA read payload bytes per second (0: derived)
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
	double mmio_lines;          /* cache lines written by MMIO per op */
	double dma_read_bytes;      /* DMA read payload bytes per op */
	double dma_mops, mmio_mops, link_mops; /* each resource's limit; INFINITY if unused */
	double limit_mops;          /* the lowest of the three */
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

/* The paper's hosts (Section 2.1, Appendix A; Connect-IB on PCIe 3.0 x16):
 * gen 3, 16 lanes, MPS 128, MRRS 512, RCB 64, 64-byte cache lines, 64-byte
 * CQEs holding 32 inline bytes, 175e6 MMIO cache lines/s, DMA read rate
 * derived (13443 MB/s). */
struct pm_link pm_link_paper(void);

/* A configuration with the suite's defaults: RC WRITE of 32 B, not inline,
 * postlist 1 by doorbell, every WQE signaled, no RECV inline. */
struct pm_config pm_config_default(void);

/* The suite's rule when the way WQEs reach the NIC is not given: a
 * postlist of 1 by WQE-by-MMIO (the mlx drivers write a lone WQE through
 * the BlueFlame register; the paper's Section 3.1), a longer postlist by
 * one doorbell per batch. rdma_bench's rows (report.c) and rb_model's
 * default both use it. Returns 1 (WQE-by-MMIO) or 0 (doorbell). */
int pm_wqe_by_mmio_default(unsigned postlist);

/* Check c and l against the ranges documented above; on error fill err
 * (naming the field, its value, the limit and the fix) and return -1. */
int pm_check(const struct pm_config *c, const struct pm_link *l, char *err, size_t errlen);

/* Run the model. Returns 0, or -1 with err filled (pm_check). */
int pm_run(const struct pm_config *c, const struct pm_link *l, struct pm_result *r,
	   char *err, size_t errlen);

/* Physical-layer payload bytes per second of one lane of generation gen
 * (1..5: 2.5, 5, 8, 16, 32 GT/s; 8b/10b for 1-2, 128b/130b from 3); 0 for
 * an unknown generation. */
double pm_lane_bps(unsigned gen);
/* pm_lane_bps(l->gen) * l->lanes: the link's byte rate in one direction. */
double pm_link_bps(const struct pm_link *l);
/* The DMA read payload rate: l->dma_read_bps if set, else the link rate
 * times mps / (mps + completion header): every completion carries mps
 * payload bytes (the paper's 13443 MB/s for PCIe 3.0 x16, MPS 128). */
double pm_dma_read_bps(const struct pm_link *l);

/* Bytes a TLP adds to its payload: header + data-link (sequence number 2,
 * LCRC 4) + framing. request: a 64-bit-address memory read or write
 * (4-DW header), else a completion (3-DW header). PCIe 3.0: 26 and 22
 * (Appendix A); 1.x/2.x: 24 and 20. */
unsigned pm_tlp_header_bytes(unsigned gen, int request);

/* The WQE size the NIC sees for c: the transport's header (RC/UC 36 B, UD
 * 68 B, Appendix A) plus the inline payload or one 16-byte SGE. */
unsigned pm_wqe_bytes(const struct pm_config *c);
/* The transport's WQE header (bytes): 36 for RC and UC, 68 for UD. */
unsigned pm_wqe_header_bytes(enum pm_transport t);

/* Names, as in the suite's CSV: "write", "rc", "dma", "mmio_wqe", ... */
const char *pm_verb_name(enum pm_verb v);
const char *pm_transport_name(enum pm_transport t);
const char *pm_cause_name(enum pm_cause c);
const char *pm_bound_name(enum pm_bound b);
/* Parse a name back; 0 on success, -1 if unknown. */
int pm_verb_parse(const char *s, enum pm_verb *out);
int pm_transport_parse(const char *s, enum pm_transport *out);

#endif
