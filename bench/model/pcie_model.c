/*
 * pcie_model.c - the PCIe cost of one RDMA operation (see pcie_model.h).
 *
 * How it counts. Every transfer on the bus is one of three TLP kinds:
 *   MMIO write   the CPU writes to the NIC's BAR: down, payload + request header
 *   DMA read     the NIC reads host memory: a read request up (header only),
 *                completions down (payload + completion header each)
 *   DMA write    the NIC writes host memory: up, payload + request header
 * A transfer longer than the max payload size (MPS) is cut into MPS-sized
 * TLPs; a read longer than the max read request size (MRRS) needs more
 * requests. Each operation's transfers are listed in side_requester() and
 * side_responder(), and each limit is one resource's rate divided by the
 * operation's use of it (side_limits()).
 *
 * What the paper states (Kalia et al., ATC 2016) and the model reproduces
 * (tests/unit/test_pcie_model.c): PCIe 3.0 request/completion headers of
 * 26/22 B; WQE headers of 36 B (RC/UC) and 68 B (UD); 10 WQEs of 65 B cost
 * 1534 B with a doorbell and 1800 B by WQE-by-MMIO (Appendix A, bytes
 * host -> NIC); 13443 MB/s of DMA reads and 128 B per op give ~105 Mops;
 * 175 M cache lines/s and 2-line WQEs give 87.5 Mops (Figure 11).
 * Everything marked "model:" below is ours, not the paper's, with the
 * reason.
 */
#include "pcie_model.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* A doorbell is one 8-byte MMIO write (the QP number and WQE counter). */
#define PM_DOORBELL_BYTES 8u
/* A scatter/gather element in a WQE or a RECV descriptor. */
#define PM_SGE_BYTES 16u

struct pm_link pm_link_paper(void)
{
	struct pm_link l = {
		.gen = 3,
		.lanes = 16,
		/* model: the paper gives no MPS; 128 B is the only value that
		 * turns its link into its 13443 MB/s (15754 * 128 / 150). */
		.mps = 128,
		/* model: MRRS 512 B (the common Linux default) only sets how
		 * many read requests go up; the paper does not count them. */
		.mrrs = 512,
		.rcb = 64,
		.cacheline = 64,
		.cqe_bytes = 64,
		/* model: mlx5 CQEs hold up to 32 inline bytes (scatter to CQE). */
		.cqe_inline_bytes = 32,
		.mmio_lines_per_s = 175e6,
		.dma_read_bps = 0,
	};
	return l;
}

struct pm_config pm_config_default(void)
{
	struct pm_config c = {
		.verb = PM_WRITE,
		.transport = PM_RC,
		.size_bytes = 32,
		.inline_payload = 0,
		.postlist = 1,
		.wqe_by_mmio = 0,
		.signal_interval = 1,
		.recv_inline = 0,
	};
	return c;
}

static int pow2(unsigned v)
{
	return v != 0 && (v & (v - 1)) == 0;
}

int pm_wqe_by_mmio_default(unsigned postlist)
{
	return postlist == 1;
}

int pm_check(const struct pm_config *c, const struct pm_link *l, char *err, size_t errlen)
{
	if (c->verb > PM_SEND_IMM || c->transport > PM_UD) {
		snprintf(err, errlen, "unknown verb %d or transport %d", (int)c->verb, (int)c->transport);
		return -1;
	}
	if (c->verb == PM_READ && c->transport != PM_RC) {
		snprintf(err, errlen, "read over %s: READ needs RC (use --transport rc)",
			 pm_transport_name(c->transport));
		return -1;
	}
	if (c->verb == PM_WRITE && c->transport == PM_UD) {
		snprintf(err, errlen, "write over ud: WRITE needs RC or UC (use --transport rc or uc)");
		return -1;
	}
	if (c->verb == PM_READ && c->inline_payload) {
		snprintf(err, errlen, "read with inline on: a READ carries no payload to inline (use --inline off)");
		return -1;
	}
	if (c->size_bytes > (1ul << 30)) {
		snprintf(err, errlen, "size %lu bytes is above the maximum 1073741824 (2^30)", c->size_bytes);
		return -1;
	}
	if (c->postlist < 1 || c->postlist > 4096) {
		snprintf(err, errlen, "postlist %u is outside 1..4096 (WQEs per doorbell)", c->postlist);
		return -1;
	}
	if (c->wqe_by_mmio && c->postlist != 1) {
		snprintf(err, errlen, "postlist %u with WQE-by-MMIO: a WQE written by MMIO rings no "
			 "doorbell, so nothing is batched; use --postlist 1 with WQE-by-MMIO, or "
			 "--wqe-by-mmio off (one doorbell per %u WQEs)", c->postlist, c->postlist);
		return -1;
	}
	if (c->inline_payload && pm_wqe_bytes(c) > PM_MAX_WQE_BYTES) {
		snprintf(err, errlen, "inline payload of %lu bytes: the WQE would be %u bytes, above "
			 "the largest send WQE of %u bytes (%u of payload with %s); use --inline off "
			 "or a smaller --size", c->size_bytes, pm_wqe_bytes(c), PM_MAX_WQE_BYTES,
			 PM_MAX_WQE_BYTES - pm_wqe_header_bytes(c->transport),
			 pm_transport_name(c->transport));
		return -1;
	}
	if (c->recv_inline && c->verb != PM_SEND && c->verb != PM_SEND_IMM) {
		snprintf(err, errlen, "RECV inline with %s: only SEND and SEND_IMM consume a RECV at "
			 "the responder; use --recv-inline off, or --verb send", pm_verb_name(c->verb));
		return -1;
	}
	if (c->signal_interval < 1 || c->signal_interval > 1u << 20) {
		snprintf(err, errlen, "signal interval %u is outside 1..1048576 (WQEs per CQE)", c->signal_interval);
		return -1;
	}
	if (l->gen < 1 || l->gen > 5) {
		snprintf(err, errlen, "PCIe generation %u is outside 1..5", l->gen);
		return -1;
	}
	if (!pow2(l->lanes) || l->lanes > 32) {
		snprintf(err, errlen, "lanes %u: a link has 1, 2, 4, 8, 16 or 32 lanes", l->lanes);
		return -1;
	}
	if (!pow2(l->mps) || l->mps < 128 || l->mps > 4096) {
		snprintf(err, errlen, "MPS %u bytes: the max payload size is a power of two from 128 to 4096", l->mps);
		return -1;
	}
	if (!pow2(l->mrrs) || l->mrrs < 128 || l->mrrs > 4096) {
		snprintf(err, errlen, "MRRS %u bytes: the max read request size is a power of two from 128 to 4096", l->mrrs);
		return -1;
	}
	if (l->rcb != 64 && l->rcb != 128) {
		snprintf(err, errlen, "RCB %u bytes: the read completion boundary is 64 or 128", l->rcb);
		return -1;
	}
	if (!pow2(l->cacheline) || l->cacheline < 16 || l->cacheline > 256) {
		snprintf(err, errlen, "cache line %u bytes: a power of two from 16 to 256", l->cacheline);
		return -1;
	}
	if (l->cqe_bytes < 16 || l->cqe_bytes > 4096 || l->cqe_inline_bytes >= l->cqe_bytes) {
		snprintf(err, errlen, "CQE %u bytes holding %u inline bytes: a CQE is 16..4096 bytes and holds fewer inline bytes than its size",
			 l->cqe_bytes, l->cqe_inline_bytes);
		return -1;
	}
	if (!(l->mmio_lines_per_s > 0) || !isfinite(l->mmio_lines_per_s)) {
		snprintf(err, errlen, "MMIO rate %g cache lines/s: must be a positive number", l->mmio_lines_per_s);
		return -1;
	}
	if (!(l->dma_read_bps >= 0) || !isfinite(l->dma_read_bps)) {
		snprintf(err, errlen, "DMA read rate %g B/s: must be 0 (derived from the link) or positive", l->dma_read_bps);
		return -1;
	}
	return 0;
}

double pm_lane_bps(unsigned gen)
{
	/* transfers per second and the encoding's payload share (PCIe base
	 * spec: 8b/10b for 1.x and 2.x, 128b/130b from 3.0) */
	switch (gen) {
	case 1: return 2.5e9 * 8 / 10 / 8;
	case 2: return 5e9 * 8 / 10 / 8;
	case 3: return 8e9 * 128 / 130 / 8;
	case 4: return 16e9 * 128 / 130 / 8;
	case 5: return 32e9 * 128 / 130 / 8;
	default: return 0;
	}
}

double pm_link_bps(const struct pm_link *l)
{
	/* model: DLLPs (ACKs, flow-control updates) take a few percent more;
	 * the paper leaves them out and so do we. */
	return pm_lane_bps(l->gen) * l->lanes;
}

unsigned pm_tlp_header_bytes(unsigned gen, int request)
{
	/* a memory request with a 64-bit address has a 4-DW (16 B) header, a
	 * completion a 3-DW (12 B) one; the data-link layer adds a 2 B
	 * sequence number and a 4 B LCRC; framing is 4 B (the STP token) from
	 * PCIe 3.0, 2 B (STP and END symbols) before. The paper states 26/22 B
	 * for 3.0; the 1.x/2.x values are ours, from the same parts. */
	unsigned header = request ? 16 : 12;
	unsigned framing = gen >= 3 ? 4 : 2;
	return header + 6 + framing;
}

double pm_dma_read_bps(const struct pm_link *l)
{
	if (l->dma_read_bps > 0)
		return l->dma_read_bps;
	double mps = l->mps;
	return pm_link_bps(l) * mps / (mps + pm_tlp_header_bytes(l->gen, 0));
}

unsigned pm_wqe_header_bytes(enum pm_transport t)
{
	return t == PM_UD ? 68 : 36;
}

unsigned pm_wqe_bytes(const struct pm_config *c)
{
	unsigned wqe = pm_wqe_header_bytes(c->transport);
	if (c->inline_payload)
		return wqe + (unsigned)c->size_bytes;
	/* model: a header-only SEND (no payload) carries no SGE */
	if (c->size_bytes == 0)
		return wqe;
	return wqe + PM_SGE_BYTES;
}

static unsigned long ceil_div(unsigned long a, unsigned long b)
{
	return (a + b - 1) / b;
}

/* An MMIO write of bytes in tlps TLPs (each a request header), per_op
 * times per operation, using lines of the NIC's MMIO rate. */
static void mmio(struct pm_side *s, const struct pm_link *l, enum pm_cause cause,
		 double bytes, double tlps, double lines, double per_op)
{
	s->down[cause] += bytes * per_op;
	s->down[PM_TLP_HEADERS] += tlps * pm_tlp_header_bytes(l->gen, 1) * per_op;
	s->mmio_lines += lines * per_op;
}

/* A DMA read of bytes, per_op times per operation: read requests up (one
 * per MRRS), completions down (one per MPS).
 * model: completions of MPS bytes assume reads that start on an RCB
 * boundary (WQEs and the suite's buffers are cache-line aligned); a read
 * that starts mid-RCB would get one more, shorter completion. */
static void dma_read(struct pm_side *s, const struct pm_link *l, enum pm_cause cause,
		     unsigned long bytes, double per_op)
{
	if (bytes == 0)
		return;
	s->up[PM_TLP_HEADERS] += ceil_div(bytes, l->mrrs) * pm_tlp_header_bytes(l->gen, 1) * per_op;
	s->down[cause] += bytes * per_op;
	s->down[PM_TLP_HEADERS] += ceil_div(bytes, l->mps) * pm_tlp_header_bytes(l->gen, 0) * per_op;
	s->dma_read_bytes += bytes * per_op;
}

/* A DMA write of bytes (one TLP per MPS), per_op times per operation. */
static void dma_write(struct pm_side *s, const struct pm_link *l, enum pm_cause cause,
		      unsigned long bytes, double per_op)
{
	if (bytes == 0)
		return;
	s->up[cause] += bytes * per_op;
	s->up[PM_TLP_HEADERS] += ceil_div(bytes, l->mps) * pm_tlp_header_bytes(l->gen, 1) * per_op;
}

/* The host that posts the WQEs. */
static void side_requester(const struct pm_config *c, const struct pm_link *l,
			   unsigned wqe_lines, struct pm_side *s)
{
	unsigned long wqe_padded = (unsigned long)wqe_lines * l->cacheline;

	if (c->wqe_by_mmio) {
		/* Appendix A: the CPU writes the WQE in cache-line units
		 * (write-combining), one TLP per line; the last line rings the
		 * doorbell, so there is no doorbell of its own and no DMA read. */
		mmio(s, l, PM_MMIO_WQE, (double)wqe_padded, wqe_lines, wqe_lines, 1.0);
	} else {
		/* Appendix A: one doorbell per batch of postlist WQEs, then the
		 * NIC DMA-reads the batch's WQEs (each padded to cache lines:
		 * the paper's 10 WQEs of 65 B come as 10 completions of 128 B).
		 * model: one doorbell counts as one line of the NIC's MMIO rate. */
		double per_op = 1.0 / c->postlist;
		mmio(s, l, PM_DOORBELL, PM_DOORBELL_BYTES, 1, 1, per_op);
		dma_read(s, l, PM_DMA_WQE_READ, wqe_padded * c->postlist, per_op);
	}
	/* payload: read from host memory unless inline; a READ's response is
	 * written into host memory */
	if (c->verb == PM_READ)
		dma_write(s, l, PM_PAYLOAD_DMA, c->size_bytes, 1.0);
	else if (!c->inline_payload)
		dma_read(s, l, PM_PAYLOAD_DMA, c->size_bytes, 1.0);
	/* one CQE per signal_interval WQEs (Section 3.1: selective signaling) */
	dma_write(s, l, PM_CQE_WRITE, l->cqe_bytes, 1.0 / c->signal_interval);
}

/* The host whose NIC answers (the target of a WRITE or READ, the receiver
 * of a SEND). */
static void side_responder(const struct pm_config *c, const struct pm_link *l, struct pm_side *s)
{
	switch (c->verb) {
	case PM_WRITE:
		dma_write(s, l, PM_PAYLOAD_DMA, c->size_bytes, 1.0);
		break;
	case PM_READ:
		dma_read(s, l, PM_PAYLOAD_DMA, c->size_bytes, 1.0);
		break;
	case PM_SEND:
	case PM_SEND_IMM:
		/* model: the NIC reads one RECV descriptor (one SGE) per SEND;
		 * NICs that prefetch several RECVs in one read save request
		 * headers, not descriptor bytes. Posting RECVs rings a doorbell
		 * record in host memory on mlx4/mlx5 (no MMIO). */
		dma_read(s, l, PM_RECV_DESC_READ, PM_SGE_BYTES, 1.0);
		/* Section 5.2.2: a header-only SEND has no payload to DMA; with
		 * RECV inline a small payload travels inside the CQE.
		 * model: on RoCE a UD RECV also gets the 40 B GRH written; the
		 * paper's InfiniBand has none, not counted. */
		if (!(c->recv_inline && c->size_bytes <= l->cqe_inline_bytes))
			dma_write(s, l, PM_PAYLOAD_DMA, c->size_bytes, 1.0);
		/* every RECV completes with a CQE */
		dma_write(s, l, PM_CQE_WRITE, l->cqe_bytes, 1.0);
		break;
	}
}

static void side_limits(const struct pm_link *l, struct pm_side *s)
{
	s->down_total = 0;
	s->up_total = 0;
	for (int i = 0; i < PM_NCAUSE; i++) {
		s->down_total += s->down[i];
		s->up_total += s->up[i];
	}
	s->dma_mops = s->dma_read_bytes > 0 ? pm_dma_read_bps(l) / s->dma_read_bytes / 1e6 : INFINITY;
	s->mmio_mops = s->mmio_lines > 0 ? l->mmio_lines_per_s / s->mmio_lines / 1e6 : INFINITY;
	double busiest = s->down_total > s->up_total ? s->down_total : s->up_total;
	s->link_mops = busiest > 0 ? pm_link_bps(l) / busiest / 1e6 : INFINITY;

	s->limit_mops = INFINITY;
	s->bound = PM_BOUND_NONE;
	if (s->dma_mops < s->limit_mops) {
		s->limit_mops = s->dma_mops;
		s->bound = PM_BOUND_DMA;
	}
	if (s->mmio_mops < s->limit_mops) {
		s->limit_mops = s->mmio_mops;
		s->bound = PM_BOUND_MMIO;
	}
	if (s->link_mops < s->limit_mops) {
		s->limit_mops = s->link_mops;
		s->bound = PM_BOUND_LINK;
	}
}

int pm_run(const struct pm_config *c, const struct pm_link *l, struct pm_result *r,
	   char *err, size_t errlen)
{
	if (pm_check(c, l, err, errlen) != 0)
		return -1;
	memset(r, 0, sizeof(*r));
	r->wqe_bytes = pm_wqe_bytes(c);
	r->wqe_lines = (unsigned)ceil_div(r->wqe_bytes, l->cacheline);
	side_requester(c, l, r->wqe_lines, &r->requester);
	side_responder(c, l, &r->responder);
	side_limits(l, &r->requester);
	side_limits(l, &r->responder);
	r->limit_is_responder = r->responder.limit_mops < r->requester.limit_mops;
	r->limit_mops = r->limit_is_responder ? r->responder.limit_mops : r->requester.limit_mops;
	return 0;
}

static const char *const verb_names[] = { "write", "read", "send", "send_imm" };
static const char *const transport_names[] = { "rc", "uc", "ud" };
static const char *const cause_names[] = {
	"mmio_wqe", "doorbell", "dma_wqe_read", "payload_dma", "cqe_write",
	"recv_desc_read", "tlp_headers",
};
static const char *const bound_names[] = { "none", "dma", "mmio", "link" };

const char *pm_verb_name(enum pm_verb v)
{
	return (unsigned)v < 4 ? verb_names[v] : "?";
}

const char *pm_transport_name(enum pm_transport t)
{
	return (unsigned)t < 3 ? transport_names[t] : "?";
}

const char *pm_cause_name(enum pm_cause c)
{
	return (unsigned)c < PM_NCAUSE ? cause_names[c] : "?";
}

const char *pm_bound_name(enum pm_bound b)
{
	return (unsigned)b < 4 ? bound_names[b] : "?";
}

int pm_verb_parse(const char *s, enum pm_verb *out)
{
	for (unsigned i = 0; i < 4; i++)
		if (strcmp(s, verb_names[i]) == 0) {
			*out = (enum pm_verb)i;
			return 0;
		}
	return -1;
}

int pm_transport_parse(const char *s, enum pm_transport *out)
{
	for (unsigned i = 0; i < 3; i++)
		if (strcmp(s, transport_names[i]) == 0) {
			*out = (enum pm_transport)i;
			return 0;
		}
	return -1;
}
