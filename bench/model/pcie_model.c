/*
 * pcie_model.c - the PCIe cost of one RDMA operation (see pcie_model.h).
 *
 * How it counts. Every transfer on the bus is one of three TLP kinds:
 *   MMIO write   the CPU writes to the NIC's BAR: down, payload + request header
 *   DMA read     the NIC reads host memory: a read request up (header only),
 *                completions down (payload + completion header each)
 *   DMA write    the NIC writes host memory: up, payload + request header
 * A DMA write longer than the max payload size (MPS) is cut into MPS-sized
 * TLPs; a DMA read's data comes back in completions of C_rc bytes (2.1;
 * never more than MPS); a read longer than the max read request size
 * (MRRS) needs more requests. What each operation moves comes from its
 * row of the verb table (verb.h): side_requester() and side_responder()
 * list the transfers, side_limits() divides each resource's rate by the
 * operation's use of it.
 *
 * What the paper states (Kalia et al., ATC 2016) and the model reproduces
 * (tests/unit/test_pcie_model.c lists each with its section). Everything
 * marked "model:" below is ours, not the paper's, with the reason.
 */
#include "pcie_model.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "options.h"

/* A doorbell is one 8-byte MMIO write (the QP number and WQE counter). */
#define PM_DOORBELL_BYTES 8u
/* WQE segments of the mlx4/mlx5 providers (rdma-core mlx5dv.h: ctrl,
 * datagram (av), raddr, atomic, data (SGE), inline-data header). */
#define PM_SEG_CTRL 16u
#define PM_SEG_DATAGRAM 48u
#define PM_SEG_RADDR 16u
#define PM_SEG_ATOMIC 16u
#define PM_SGE_BYTES 16u
#define PM_SEG_INLINE_HDR 4u
/* An atomic moves one 64-bit word (IB spec 9.4.5). */
#define PM_ATOMIC_BYTES 8u

struct pm_link pm_link_gen(unsigned gen, unsigned lanes)
{
	struct pm_link l = {
		.gen = gen,
		.lanes = lanes,
		/* model: the paper states no MPS or MRRS. MPS 128 is the
		 * common value on its generation of Intel hosts; with C_rc =
		 * 128 it only cuts DMA writes (payloads above 128 B, CQEs
		 * never). MRRS 512 (the Linux default) only sets how many
		 * read requests go up; the paper does not count them. */
		.mps = PM_DEFAULT_MPS,
		.mrrs = PM_DEFAULT_MRRS,
		/* 2.1: "C_rc is 128 bytes for the Intel CPUs used in our
		 * measurements; we assume 128 bytes for the AMD CPU" */
		.rcb = PM_PAPER_RCB,
		.cacheline = PM_DEFAULT_CACHELINE,
		/* model: the paper states no CQE size; 64 B as mlx4/mlx5's
		 * default CQE */
		.cqe_bytes = PM_DEFAULT_CQE,
		/* 3.2, Inline RECV: payloads up to ~64 B on Mellanox's NICs
		 * travel inside the CQE (mlx5 into a 64-byte CQE: 32 B,
		 * PM_CQE_INLINE_MLX5) */
		.cqe_inline_bytes = PM_CQE_INLINE_PAPER,
		/* 5.2.1: both rates follow from the link */
		.mmio_lines_per_s = 0,
		.dma_read_bps = 0,
	};
	return l;
}

struct pm_link pm_link_paper(void)
{
	/* Table 2: CIB's Connect-IB sits on PCIe 3.0 x16 */
	return pm_link_gen(PM_PAPER_GEN, PM_PAPER_LANES);
}

struct pm_config pm_config_default(void)
{
	struct pm_config c = {
		.verb = RB_DEFAULT_VERB, /* write (verb.h) */
		.transport = RB_TR_RC,
		.size_bytes = PM_DEFAULT_SIZE,
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

int pm_wqe_by_mmio_default(enum pm_bf_rule rule, unsigned postlist, int inline_payload)
{
	if (postlist != 1)
		return 0;
	switch (rule) {
	case PM_BF_INLINE: return inline_payload != 0;
	case PM_BF_ANY: return 1;
	default: return 0;
	}
}

/* The verb's payload lands in the responder's RECV buffer (SEND and
 * SEND_IMM: consumes a RECV and names no remote address). */
static int payload_in_recv(const struct rb_verb_row *row)
{
	return row->consumes_recv && !row->rdma;
}

/* "send|send_imm": the verbs whose payload lands in a RECV, into buf. */
static const char *recv_payload_verbs(char *buf, size_t len)
{
	size_t n = 0;
	buf[0] = '\0';
	for (uint64_t v = 0; v < RB_VERB_COUNT && n < len; v++)
		if (payload_in_recv(verb_row(v)))
			n += (size_t)snprintf(buf + n, len - n, "%s%s", n ? "|" : "", verb_name(v));
	return buf;
}

#define PM_ERR(...) \
	do { \
		if (err && errlen) \
			snprintf(err, errlen, __VA_ARGS__); \
		return -1; \
	} while (0)

/* The configuration against the verb table and its own ranges. */
static int check_config(const struct pm_config *c, char *err, size_t errlen)
{
	const struct rb_verb_row *row = verb_row(c->verb);
	char names[128];

	if (row == NULL || c->transport >= RB_TR_COUNT)
		PM_ERR("unknown verb code %llu or transport code %llu",
		       (unsigned long long)c->verb, (unsigned long long)c->transport);
	if (!verb_on_transport(c->verb, c->transport))
		PM_ERR("%s over %s: %s has only %s (the verb table, IB spec 9.4; the paper's "
		       "Table 1); use another --transport or --verb", row->name,
		       transport_name(c->transport), transport_name(c->transport),
		       verb_names_on(c->transport, names, sizeof(names)));
	if (c->inline_payload && !row->inline_ok)
		PM_ERR("%s with inline on: a %s carries no local payload to inline (use --inline off)",
		       row->name, row->name);
	if (c->size_bytes > (1ul << 30))
		PM_ERR("size %lu bytes is above the maximum 1073741824 (2^30)", c->size_bytes);
	if (c->postlist < 1 || c->postlist > PM_MAX_POSTLIST)
		PM_ERR("postlist %u is outside 1..%u (WQEs per doorbell)", c->postlist,
		       PM_MAX_POSTLIST);
	if (c->wqe_by_mmio && c->postlist != 1)
		PM_ERR("postlist %u with WQE-by-MMIO: a WQE written by MMIO rings no doorbell, so "
		       "nothing is batched; use --postlist 1 with WQE-by-MMIO, or --wqe-by-mmio off "
		       "(one doorbell per %u WQEs)", c->postlist, c->postlist);
	if (c->inline_payload && pm_wqe_bytes(c) > PM_MAX_WQE_BYTES)
		PM_ERR("inline payload of %lu bytes: the WQE would be %u bytes, above the largest "
		       "send WQE of %u bytes (%u of payload with %s %s); use --inline off or a smaller "
		       "--size", c->size_bytes, pm_wqe_bytes(c), PM_MAX_WQE_BYTES,
		       PM_MAX_WQE_BYTES - pm_wqe_header_bytes(c), row->name, transport_name(c->transport));
	if (c->recv_inline && !payload_in_recv(row))
		PM_ERR("RECV inline with %s: only %s put a payload in the responder's RECV; use "
		       "--recv-inline off, or --verb send", row->name,
		       recv_payload_verbs(names, sizeof(names)));
	if (c->signal_interval < 1 || c->signal_interval > PM_MAX_SIGNAL_INTERVAL)
		PM_ERR("signal interval %u is outside 1..%u (WQEs per CQE)", c->signal_interval,
		       PM_MAX_SIGNAL_INTERVAL);
	return 0;
}

static int check_link(const struct pm_link *l, char *err, size_t errlen)
{
	if (l->gen < 1 || l->gen > 5)
		PM_ERR("PCIe generation %u is outside 1..5", l->gen);
	if (!pow2(l->lanes) || l->lanes > 32)
		PM_ERR("lanes %u: a link has 1, 2, 4, 8, 16 or 32 lanes", l->lanes);
	if (!pow2(l->mps) || l->mps < 128 || l->mps > 4096)
		PM_ERR("MPS %u bytes: the max payload size is a power of two from 128 to 4096", l->mps);
	if (!pow2(l->mrrs) || l->mrrs < 128 || l->mrrs > 4096)
		PM_ERR("MRRS %u bytes: the max read request size is a power of two from 128 to 4096", l->mrrs);
	if (!pow2(l->rcb) || l->rcb < 64 || l->rcb > 4096)
		PM_ERR("C_rc %u bytes: the read completion combining size is a power of two from "
		       "64 to 4096 (128 on the paper's CPUs, 2.1)", l->rcb);
	if (!pow2(l->cacheline) || l->cacheline < 16 || l->cacheline > 256)
		PM_ERR("cache line %u bytes: a power of two from 16 to 256", l->cacheline);
	/* 3.2 gives the inline payload (~64 B) but not the CQE's size: the
	 * model writes one cqe_bytes CQE either way, so only a payload above
	 * it is refused */
	if (l->cqe_bytes < 16 || l->cqe_bytes > 4096 || l->cqe_inline_bytes > l->cqe_bytes)
		PM_ERR("CQE %u bytes holding %u inline bytes: a CQE is 16..4096 bytes and holds "
		       "at most its size inline", l->cqe_bytes, l->cqe_inline_bytes);
	if (!(l->mmio_lines_per_s >= 0) || !isfinite(l->mmio_lines_per_s))
		PM_ERR("MMIO rate %g cache lines/s: must be 0 (derived from the link) or positive",
		       l->mmio_lines_per_s);
	if (!(l->dma_read_bps >= 0) || !isfinite(l->dma_read_bps))
		PM_ERR("DMA read rate %g B/s: must be 0 (derived from the link) or positive", l->dma_read_bps);
	return 0;
}

int pm_check(const struct pm_config *c, const struct pm_link *l, char *err, size_t errlen)
{
	if (check_config(c, err, errlen) != 0)
		return -1;
	return check_link(l, err, errlen);
}

#undef PM_ERR

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
	 * PCIe 3.0, 2 B (STP and END symbols) before. 3.0: 26/22 B (Figure
	 * 2a, the Appendix); 2.x: 24/20 B (2.1's "20-26 bytes"). */
	unsigned header = request ? 16 : 12;
	unsigned framing = gen >= 3 ? 4 : 2;
	return header + 6 + framing;
}

unsigned pm_completion_bytes(const struct pm_link *l)
{
	return l->rcb < l->mps ? l->rcb : l->mps;
}

double pm_dma_read_bps(const struct pm_link *l)
{
	if (l->dma_read_bps > 0)
		return l->dma_read_bps;
	double c = pm_completion_bytes(l);
	return pm_link_bps(l) * c / (c + pm_tlp_header_bytes(l->gen, 0));
}

double pm_mmio_lines_per_s(const struct pm_link *l)
{
	if (l->mmio_lines_per_s > 0)
		return l->mmio_lines_per_s;
	/* 5.2.1: (16 x Pbw) / (64 + Pr), with this link's lanes, lane rate,
	 * cache line and request overhead in place of the paper's */
	return pm_link_bps(l) / (l->cacheline + pm_tlp_header_bytes(l->gen, 1));
}

static unsigned long ceil_div(unsigned long a, unsigned long b)
{
	return (a + b - 1) / b;
}

double pm_move_dma_read_down(const struct pm_link *l, unsigned long n)
{
	return (double)n + (double)ceil_div(n, pm_completion_bytes(l)) * pm_tlp_header_bytes(l->gen, 0);
}

double pm_move_dma_read_up(const struct pm_link *l, unsigned long n)
{
	return (double)ceil_div(n, l->mrrs) * pm_tlp_header_bytes(l->gen, 1);
}

double pm_move_mmio_down(const struct pm_link *l, unsigned long n)
{
	return (double)ceil_div(n, l->cacheline) * (l->cacheline + pm_tlp_header_bytes(l->gen, 1));
}

/* The WQE's segments before its data (pm_wqe_bytes). */
static unsigned wqe_base_bytes(const struct pm_config *c)
{
	const struct rb_verb_row *row = verb_row(c->verb);
	unsigned b = PM_SEG_CTRL;
	if (c->transport == RB_TR_UD)
		b += PM_SEG_DATAGRAM;
	if (row && row->rdma)
		b += PM_SEG_RADDR;
	if (row && row->atomic)
		b += PM_SEG_RADDR + PM_SEG_ATOMIC;
	return b;
}

unsigned pm_wqe_header_bytes(const struct pm_config *c)
{
	return wqe_base_bytes(c) + PM_SEG_INLINE_HDR;
}

/* Bytes of local data an operation posts or receives into (the SGE's
 * length): the payload, or an atomic's 8 bytes. */
static unsigned long local_bytes(const struct pm_config *c)
{
	const struct rb_verb_row *row = verb_row(c->verb);
	return row && row->atomic ? PM_ATOMIC_BYTES : c->size_bytes;
}

unsigned pm_wqe_bytes(const struct pm_config *c)
{
	unsigned wqe = wqe_base_bytes(c);
	/* a header-only operation posts no SGE and no inline segment
	 * (rdma-core's mlx5 post_send adds them only for num_sge > 0) */
	if (local_bytes(c) == 0)
		return wqe;
	if (c->inline_payload)
		return wqe + PM_SEG_INLINE_HDR + (unsigned)c->size_bytes;
	return wqe + PM_SGE_BYTES;
}

/* An MMIO write of bytes in tlps TLPs (each a request header), per_op
 * times per operation, using lines of the MMIO rate. */
static void mmio(struct pm_side *s, const struct pm_link *l, enum pm_cause cause,
		 double bytes, double tlps, double lines, double per_op)
{
	s->down[cause] += bytes * per_op;
	s->down[PM_TLP_HEADERS] += tlps * pm_tlp_header_bytes(l->gen, 1) * per_op;
	s->mmio_lines += lines * per_op;
}

/* A DMA read of bytes, per_op times per operation: read requests up (one
 * per MRRS), completions down (one per C_rc, 2.1).
 * model: reads start on a C_rc boundary (WQEs and the suite's buffers are
 * cache-line aligned); a read that starts mid-way would get one more,
 * shorter completion. */
static void dma_read(struct pm_side *s, const struct pm_link *l, enum pm_cause cause,
		     unsigned long bytes, double per_op)
{
	if (bytes == 0)
		return;
	s->up[PM_TLP_HEADERS] += ceil_div(bytes, l->mrrs) * pm_tlp_header_bytes(l->gen, 1) * per_op;
	s->down[cause] += bytes * per_op;
	s->down[PM_TLP_HEADERS] += ceil_div(bytes, pm_completion_bytes(l)) *
				   pm_tlp_header_bytes(l->gen, 0) * per_op;
	s->dma_read_bytes += bytes * per_op;
	s->dma_read_lines += ceil_div(bytes, l->cacheline) * per_op;
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
	const struct rb_verb_row *row = verb_row(c->verb);
	unsigned long wqe_padded = (unsigned long)wqe_lines * l->cacheline;

	if (c->wqe_by_mmio) {
		/* Appendix: the CPU writes the WQE in cache-line units
		 * (write-combining), one TLP per line; the NIC needs no
		 * doorbell of its own and no DMA read. */
		mmio(s, l, PM_MMIO_WQE, (double)wqe_padded, wqe_lines, wqe_lines, 1.0);
	} else {
		/* Appendix: one doorbell per batch of postlist WQEs, then the
		 * NIC DMA-reads the batch's WQEs, each padded to cache lines
		 * (10 WQEs of 65 B: 10 completions of 128 B).
		 * model: one doorbell counts as one line of the MMIO rate. */
		double per_op = 1.0 / c->postlist;
		mmio(s, l, PM_DOORBELL, PM_DOORBELL_BYTES, 1, 1, per_op);
		dma_read(s, l, PM_DMA_WQE_READ, wqe_padded * c->postlist, per_op);
	}
	/* the local data: a response (READ, an atomic's old value) is written
	 * into host memory; a payload is read from it unless inline */
	if (row->rd_atomic)
		dma_write(s, l, PM_PAYLOAD_DMA, local_bytes(c), 1.0);
	else if (!c->inline_payload)
		dma_read(s, l, PM_PAYLOAD_DMA, local_bytes(c), 1.0);
	/* one CQE per signal_interval WQEs (3.2: unsignaled verbs) */
	dma_write(s, l, PM_CQE_WRITE, l->cqe_bytes, 1.0 / c->signal_interval);
}

/* The host whose NIC answers (the target of a WRITE, READ or atomic, the
 * receiver of a SEND). */
static void side_responder(const struct pm_config *c, const struct pm_link *l, struct pm_side *s)
{
	const struct rb_verb_row *row = verb_row(c->verb);

	if (row->rd_atomic) {
		/* READ: the data is DMA-read. model: an atomic reads and
		 * writes its 8-byte word (two transfers; the NIC's locking
		 * is not on the bus) */
		dma_read(s, l, PM_PAYLOAD_DMA, local_bytes(c), 1.0);
		if (row->atomic)
			dma_write(s, l, PM_PAYLOAD_DMA, local_bytes(c), 1.0);
	} else if (row->rdma) {
		/* WRITE, WRITE_IMM: the payload is DMA-written */
		dma_write(s, l, PM_PAYLOAD_DMA, c->size_bytes, 1.0);
	}
	if (!row->consumes_recv)
		return;
	/* model: the NIC reads one RECV descriptor (one SGE) per RECV
	 * consumed; NICs that prefetch several RECVs in one read save request
	 * headers, not descriptor bytes. Posting RECVs rings a doorbell
	 * record in host memory on mlx4/mlx5 (no MMIO). */
	dma_read(s, l, PM_RECV_DESC_READ, PM_SGE_BYTES, 1.0);
	/* 5.2.2: a header-only SEND has no payload to DMA; with RECV inline a
	 * small payload travels inside the CQE.
	 * model: on RoCE a UD RECV also gets the 40 B GRH written; the
	 * paper's InfiniBand has none, not counted. */
	if (payload_in_recv(row) && !(c->recv_inline && c->size_bytes <= l->cqe_inline_bytes))
		dma_write(s, l, PM_PAYLOAD_DMA, c->size_bytes, 1.0);
	/* every RECV completes with a CQE */
	dma_write(s, l, PM_CQE_WRITE, l->cqe_bytes, 1.0);
}

/* rate / use in Mops; INFINITY for an unused resource. */
static double limit_of(double rate, double use)
{
	return use > 0 ? rate / use / 1e6 : INFINITY;
}

static void side_limits(const struct pm_link *l, struct pm_side *s)
{
	s->down_total = 0;
	s->up_total = 0;
	for (int i = 0; i < PM_NCAUSE; i++) {
		s->down_total += s->down[i];
		s->up_total += s->up[i];
	}
	s->dma_mops = limit_of(pm_dma_read_bps(l), s->dma_read_bytes);
	s->mmio_mops = limit_of(pm_mmio_lines_per_s(l), s->mmio_lines);
	s->link_down_mops = limit_of(pm_link_bps(l), s->down_total);
	s->link_up_mops = limit_of(pm_link_bps(l), s->up_total);

	const double lim[PM_NBOUND] = { INFINITY, s->dma_mops, s->mmio_mops, s->link_down_mops,
					s->link_up_mops };
	s->limit_mops = INFINITY;
	s->bound = PM_BOUND_NONE;
	/* in order: a later resource binds only when clearly lower (the
	 * paper's MMIO limit and the link's host-to-device bytes of the
	 * same MMIO writes are one number computed two ways) */
	for (int b = PM_BOUND_DMA_READ; b < PM_NBOUND; b++)
		if (lim[b] < s->limit_mops * (1 - 1e-9)) {
			s->limit_mops = lim[b];
			s->bound = (enum pm_bound)b;
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

static const char *const cause_names[PM_NCAUSE] = {
	"mmio_wqe", "doorbell", "dma_wqe_read", "payload_dma", "cqe_write",
	"recv_desc_read", "tlp_headers",
};
static const char *const bound_names[PM_NBOUND] = {
	"none", "dma_read", "mmio", "link_down", "link_up",
};
static const char *const bound_descs[PM_NBOUND] = {
	"nothing on this host's bus",
	"DMA read bandwidth (5.2.1)",
	"MMIO throughput (5.2.1)",
	"PCIe bandwidth host-to-device (2.1)",
	"PCIe bandwidth device-to-host (2.1)",
};
static const char *const bf_names[PM_NBF] = {
	[PM_BF_INLINE] = "inline", [PM_BF_ANY] = "any", [PM_BF_NEVER] = "never",
};

const char *pm_cause_name(enum pm_cause c)
{
	return (unsigned)c < PM_NCAUSE ? cause_names[c] : "?";
}

const char *pm_bound_name(enum pm_bound b)
{
	return (unsigned)b < PM_NBOUND ? bound_names[b] : "?";
}

const char *pm_bound_desc(enum pm_bound b)
{
	return (unsigned)b < PM_NBOUND ? bound_descs[b] : "?";
}

const char *pm_bf_rule_name(enum pm_bf_rule r)
{
	return (unsigned)r < PM_NBF ? bf_names[r] : "?";
}

int pm_bf_rule_parse(const char *s, enum pm_bf_rule *out)
{
	for (unsigned i = 0; i < PM_NBF; i++)
		if (strcmp(s, bf_names[i]) == 0) {
			*out = (enum pm_bf_rule)i;
			return 0;
		}
	return -1;
}
