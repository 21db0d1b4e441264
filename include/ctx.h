/*
 * ctx.h - the test context: one struct that owns every verbs object of one
 * measured point on one side (PD, MR, buffer, per-thread CQs and QPs, the
 * pre-built work requests), and the stages that build, connect, run and
 * free it.
 *
 * Stages, in order (one file each):
 *   ctx_create()      bench/lib/ctx.c    buffer, PD, MR, workers: CQs, QPs (RESET->INIT)
 *   ctx_negotiate()   bench/lib/ctx.c    path MTU and max_rd_atomic from both SETUPs
 *   ctx_connect()     bench/lib/ctx_qp.c INIT->RTR->RTS (or UD AH), remote addresses into WRs
 *   worker threads    bench/rdma_bench/post*.c (the program's, post.h): post/poll
 *                     loops (bw, lat, server pong and sink)
 *   ctx_destroy()     bench/lib/ctx.c    everything, in reverse order
 *
 * Buffer layout (identical on both ends, so the remote address of any slot
 * follows from the peer's base address; struct rb_layout):
 *   [atomic counters: Z x stride] [QP region 0] [QP region 1] ... [READ slots]
 *   QP region = [send slot (payload; atomics: SQ-depth x 8 result slots)]
 *               [receive slots: rq_depth (verbs that consume receives) or 1,
 *                each payload + 40 bytes GRH on UD]
 *   READ slots (--read-completion poll only): threads x window destination
 *               slots, thread i's at [i x window, (i + 1) x window); one per
 *               outstanding READ, so its last byte tells when its data landed.
 *               Only the client uses them; the server's copy keeps both
 *               buffers the same length (checked in ctx_negotiate).
 * QP g (process-wide index thread * qps_per_thread + q) of one side talks to
 * QP g of the other side.
 */
#ifndef RDMA_BENCH_CTX_H
#define RDMA_BENCH_CTX_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include <infiniband/verbs.h>

#include "ctrl.h"
#include "device.h"
#include "hist.h"
#include "layout.h"
#include "perfcount.h"
#include "options.h"
#include "qp.h"
#include "topo.h"


struct rdma_cm_id;

struct rb_qp {
	struct ibv_qp *qp;
	struct rdma_cm_id *cm_id;    /* -R: the id the QP was created on (not owned) */
	struct ibv_ah *ah;           /* UD: address handle of the peer QP */
	uint32_t index;              /* within the worker */
	uint32_t gindex;             /* within the process */
	uint32_t psn;                /* our starting PSN (24 bits) */
	uint32_t remote_qpn, remote_psn;
	uint8_t *send;               /* local send slot */
	uint8_t *recv;               /* local receive slot 0 */
	uint64_t remote_send, remote_recv;   /* the peer's slots of this QP */
	/* posting state of the current phase */
	uint64_t posted, completed, quota;
	uint64_t sig_left;           /* WRs up to and including the next one signaled by
	                                the interval: (posted + sig_left) % sig == 0,
	                                kept by counting down (no division per WR) */
	uint64_t reaped;             /* --read-completion poll: WRs whose SQ slot a reaped
	                                signaled completion freed (completed counts the
	                                READs whose data was seen) */
	uint64_t ops;                /* ops completed on this QP, all phases */
	struct ibv_send_wr *swr;     /* postlist pre-built WRs */
	struct ibv_sge *ssge;
	struct ibv_recv_wr *rwr;     /* one per receive slot */
	struct ibv_sge *rsge;
	struct ibv_recv_wr *rchain;  /* receive WRs waiting for a batched re-post */
	unsigned rchain_n;
	uint64_t *cmp;               /* cmp_swap: compare value per SQ slot */
	uint64_t *post_ts;           /* bw: post time of signaled WRs per SQ slot */
	uint32_t *ctr;               /* atomics: counter index per SQ slot */
	uint32_t imm;                /* immediate data this QP sends (network order) */
	uint8_t tag;                 /* WRITE ping-pong: last tag */
};

/* --read-completion poll: one outstanding READ, in posting order (a ring of
 * `window` entries per thread, one destination slot each). */
struct rb_pslot {
	uint8_t *buf;                /* its destination slot (fixed) */
	struct rb_qp *q;             /* QP of the READ using it */
	uint64_t ts;                 /* post time of a signaled WR in the window, else 0 */
};

struct rb_worker {
	struct rb_ctx *ctx;
	unsigned index;
	const struct rb_verb_row *row; /* the verb's row (verb.h: its name, lat kind,
	                                  atomic), looked up once (verb_name per op:
	                                  16 instructions of a READ latency op's ~550,
	                                  callgrind) */
	/* what its CQs, QPs and SGEs use, set once by ctx_create (the data path
	 * reads these, never the shared objects of c): */
	struct ibv_context *vctx;      /* its CQs' and channel's context: c->dev->ctx,
	                                  or (--doorbell ctx) octx */
	struct ibv_pd *pd;             /* its QPs' and AHs' PD: c->pd, the parent
	                                  domain dom, or opd */
	uint32_t lkey;                 /* its SGEs' lkey: c->mr's, or omr's */
	/* owned: --doorbell td: its thread domain and a parent domain over c->pd */
	struct ibv_td *td;
	struct ibv_pd *dom;
	/* owned: --doorbell ctx (client): a device context of its own, a PD on
	 * it and the point's buffer registered there (local access) */
	struct ibv_context *octx;
	struct ibv_pd *opd;
	struct ibv_mr *omr;
	struct ibv_cq *scq, *rcq;
	struct ibv_comp_channel *rch;  /* rcq's completion channel: a bw server's receive
	                                  thread blocks on it when idle (post.c
	                                  recv_idle), NULL elsewhere */
	struct rb_qp *qps;
	unsigned nqp;
	struct hist *hist;           /* lat: round-trip ns; bw: post-to-completion ns of
	                                signaled WRs, in the measured window */
	uint64_t rng;                /* xorshift64 state: random counter access */
	uint64_t seq_ctr;            /* sequential counter access: the next index, < Z */
	uint64_t *expect;            /* cmp_swap: last value seen per counter */
	struct rb_pslot *pslot;      /* --read-completion poll (client): window entries;
	                                q stays NULL until an entry takes its first READ */
	int cpu;                     /* -1 = not pinned */
	pthread_t tid;
	bool started;
	/* results */
	uint64_t t_start, t_end;     /* measured window, timing_now_ns() */
	uint64_t ops, bytes;         /* completed in the window */
	uint64_t ops_total;          /* completed in all phases */
	uint64_t sends_total;        /* SEND/WRITE_IMM completed (receives consumed) */
	_Atomic uint64_t recvs;      /* receives seen (server sink / pong) */
	_Atomic uint64_t foreign_recvs; /* UD receives from a source QP other than the
	                                  QP pair's peer (not in recvs; post_resp.c) */
	uint64_t first_recv_ns;      /* timing_now_ns() of the first receive, 0: none */
	_Atomic uint64_t last_recv_ns; /* ...of the latest (read live by the
	                                  server's late-receive wait) */
	uint64_t bad_payloads;
	uint64_t atomic_success;
	/* perf counters of this thread over its measured phase (perfcount.h):
	 * the phase's completed ops and its span, for per-op figures. A
	 * server worker: over its whole run (start to stop), ops unused */
	struct pc_sample pc;
	bool pc_done;
	uint64_t pc_ops, pc_span_ns;
	int rc;
	bool stopped_echo;           /* rc set because the session or another thread stopped it */
	char err[512];
};

struct rb_ctx {
	struct rb_test t;
	enum rb_role role;
	struct rb_dev *dev;
	struct rb_layout lay;
	uint8_t *buf;
	struct ibv_pd *pd;
	struct ibv_mr *mr;
	struct rb_worker *w;
	unsigned nw;
	unsigned cq_depth_s, cq_depth_r;  /* CQ sizes asked */
	/* negotiated / granted */
	uint32_t path_mtu;           /* bytes */
	uint32_t rd_atomic;          /* READ/atomic depth of the client's requests */
	uint32_t rd_init, rd_resp;   /* this side's max_rd_atomic / max_dest_rd_atomic */
	uint32_t inline_req;         /* max_inline_data asked at QP creation */
	uint32_t inline_cap;         /* smallest cap granted (ibv_query_qp IBV_QP_CAP) */
	bool use_inline;
	struct ctrl_setup remote;    /* peer's SETUP (qps pointer not kept) */
	uint32_t remote_qkey;        /* UD: Q_Key of the peer QPs */
	uint32_t qkey;               /* UD: Q_Key of this side's QPs, random per point (its
				      * SETUP; 0: RB_QKEY; -R too, set after rdma_cm's RTS) */
	uint64_t nonce;              /* this side's random per-point nonce (its SETUP) */
	uint64_t setup_ns;           /* QP create + connect, all QPs */
	uint64_t create_ns;
	/* run control */
	_Atomic int stop;            /* set by the session thread: stop loops */
	int stop_fd;                 /* eventfd(2) workers_join writes after stop, so that
				      * a bw server's receive thread asleep on its CQ's
				      * channel (post.c recv_idle) wakes at once; it stays
				      * readable after: a server ctx runs its workers once
				      * (one point); -1: none */
	bool refused;                /* the last failure refused the configuration
				      * (a value above a cap or below a need) before
				      * anything ran: a usage error, not a fault */
	_Atomic unsigned arrived;    /* start barrier of the measured window */
	_Atomic int go;              /* set by the last thread at the barrier (gated: by the
				      * session thread on the server's GO) */
	/* --procs > 1: the start barrier across processes (gate.h). The last
	 * thread at the barrier sets warm; the session thread then sends GATE,
	 * and on GO stores the common window (on this host's clock: the
	 * server's start_ns minus the clock offset, + -D) before go. Threads
	 * post from go and count only what completes inside the window. */
	bool gated;
	_Atomic int warm;
	uint64_t win_start_ns, win_end_ns;  /* 0 = not gated: each thread's own window */
	_Atomic unsigned finished;   /* client workers done (ok or not) */
	struct rb_counters *ctr_before; /* read at the barrier when non-NULL */
	struct cs_reading *cs_before;   /* /proc/stat read there too when non-NULL (cpustat.h) */
	const struct rb_placement *pl; /* the process's placement (ctx_create's) */
	uint64_t cpu_first;          /* worker i on topo_worker_cpu(&pl->place, cpu_first,
				      * cpu_mirror, i): a client sets k * T (--proc-index
				      * k, T threads), a server the same from its client's
				      * HELLO with cpu_mirror (topo.h); ctx_create sets 0 */
	bool cpu_mirror;
	struct rb_buf mem;           /* the mapping of buf: its pages (topo.h) */
	char doorbell[40];           /* the doorbell mode the QPs got: "td", "shared",
				      * "ctx", "shared:no-td" (--doorbell td, ibv_alloc_td
				      * or ibv_alloc_parent_domain refused: doorbell_why),
				      * "shared:no-ctx" (--doorbell ctx, a worker's
				      * context, PD or MR refused, or a point whose peer
				      * writes into this side), "td:K/N" or "ctx:K/N"
				      * (K of N workers got theirs) */
	char doorbell_why[96];
	bool atomic_swap;            /* atomic replies come byte-swapped: the workers swap
				      * them back (ctx_atomic_selftest) */
	const char *perf_off;   /* client workers: NULL count perf events, else why not (perf_reason) */
};

/* QP g of the process, 0 <= g < c->lay.nqp_total, for loops over every QP
 * in gindex order: every worker holds the same number of QPs and QP k of
 * worker i has gindex i * nqp + k (ctx_create). */
static inline struct rb_qp *ctx_qp(struct rb_ctx *c, uint64_t g)
{
	unsigned nqp = c->w[0].nqp;
	return &c->w[g / nqp].qps[g % nqp];
}

/* Role-specific: does this side run worker threads for this test? */
bool ctx_side_active(const struct rb_test *t, enum rb_role role);

/* Where a process puts every point's workers and buffer, and its doorbell
 * mode (--cpus, --numa, --hugepages, --doorbell): computed once per process
 * (topo_place) and kept by the caller for the contexts it creates. */
struct rb_placement {
	struct rb_place place;
	bool hugepages;
	uint64_t doorbell;           /* enum rb_doorbell */
	bool doorbell_given;         /* --doorbell on the command line (else the default) */
};

/*
 * --cpus and --numa of options o checked before any device is opened
 * (topo_check_cpus, topo_check_numa: a bad CPU or node is named on a host
 * with no RDMA device too; ctx_placement then places on the device). 0, or
 * -1 with err naming the value, the limit and the fix.
 */
int ctx_placement_check(const struct rb_opts *o, char *err, size_t errlen);

/*
 * The placement of options o on device dev (topo_place: --cpus, --numa, or
 * the device's local CPUs; the CPUs this process may use, from
 * sched_getaffinity), --hugepages and --doorbell; an INFO line says where
 * the workers run and why. 0, or -1 with err (a --numa refusal).
 */
int ctx_placement(const struct rb_opts *o, const char *dev, struct rb_placement *pl, char *err,
		  size_t errlen);

/*
 * Build c for test t on dev: the buffer (mapped and first touched by this
 * thread while it runs on pl's CPUs, so its pages land on their node;
 * --hugepages as topo_buf_map), PD, MR, and per worker its thread domain
 * and parent domain (pl->doorbell td, where the device has them) or its
 * own device context, PD and MR (pl->doorbell ctx, client), CQs and
 * QPs. pl is kept (c->pl) for workers_start's pinning. 0, or -1 with err
 * (c->refused when a value of the point was refused).
 */
int ctx_create(struct rb_ctx *c, const struct rb_test *t, enum rb_role role, struct rb_dev *dev,
	       const struct rb_placement *pl, char *err, size_t errlen);
/* Inline decision from the granted cap (after every QP exists); -1 with
 * --inline on above the cap. */
int ctx_inline_decide(struct rb_ctx *c, char *err, size_t errlen);
/* Our endpoint for CTRL_SETUP; eps has room for nw * nqp entries. */
void ctx_local_setup(const struct rb_ctx *c, struct ctrl_setup *s, struct ctrl_qp_ep *eps);
/* Send this side's SETUP (ctx_local_setup: the device, buffer and every
 * QP's endpoint) on the control socket fd, within timeout_ms; the buffers
 * it needs are allocated and freed here. 0, or -1 with err. */
int ctx_send_setup(const struct rb_ctx *c, int fd, int timeout_ms, char *err, size_t errlen);
/* The error of the first worker that failed, or NULL while none has. */
const char *ctx_worker_error(const struct rb_ctx *c);
/* Path MTU and max_rd_atomic from both ends (rules in ctx.c); 0 or -1 with err. */
int ctx_negotiate(struct rb_ctx *c, const struct ctrl_setup *remote, char *err, size_t errlen);
/* Connect every QP to the peer's (bench/lib/ctx_qp.c); 0 or -1 with err. */
int ctx_connect(struct rb_ctx *c, const struct ctrl_setup *remote, char *err, size_t errlen);
/* Post every receive slot of every QP (verbs that consume receives). */
int ctx_post_recvs(struct rb_ctx *c, char *err, size_t errlen);
void ctx_destroy(struct rb_ctx *c);

/* rdma_bench's QPs over the library's QP stages (qp.h; bench/lib/ctx_qp.c). */
/* The attributes of this point's QPs (w, q: NULL for what needs neither). */
struct rb_qp_attr ctx_qp_attr(const struct rb_ctx *c, const struct rb_worker *w,
			      const struct rb_qp *q);
/* Create q on w's CQs (id != NULL: on that rdma_cm id, -R) and with init
 * take it to INIT; the inline size the device granted or refused goes into
 * c (inline_req, inline_cap, refused). 0, or -1 with err. */
int ctx_qp_create(struct rb_ctx *c, struct rb_worker *w, struct rb_qp *q, struct rdma_cm_id *id,
		  bool init, char *err, size_t errlen);
/* -R, RC: qp_cm_rtr_rts with this point's attributes; q->remote_qpn set. */
int ctx_qp_cm_rtr_rts(struct rb_ctx *c, struct rb_qp *q, struct rdma_cm_id *id, char *err,
		      size_t errlen);
/* Remote slot addresses of q (from c->remote) and the remote fields of its WRs. */
void ctx_qp_set_remote(struct rb_ctx *c, struct rb_qp *q);
/* Remote access this side's QPs and MR grant for the test (IB spec 10.6.3.2). */
int ctx_qp_access(const struct rb_ctx *c);

/* The byte order of an atomic reply: 0 when got is sent, 1 when it is
 * sent byte-swapped, -1 neither. */
int ctx_atomic_order(uint64_t sent, uint64_t got);

/*
 * The atomics' one-shot self-test (a connected RC point of an atomic verb,
 * before the workers start): two fetch-and-adds of 0x0102030405060708 on
 * QP 0 of worker 0 to the peer's send slot of that QP (zero, and no
 * atomic's target); the second reply is that value in this host's order
 * (order "host") or byte-swapped ("swapped": c->atomic_swap set, so the
 * workers swap every reply back; refuse: -1 instead, err naming the
 * values and --atomic-order). A reply that is neither, an error
 * completion or none within the point's --timeout: -1 with err.
 */
int ctx_atomic_selftest(struct rb_ctx *c, bool refuse, char *order, size_t olen, char *err,
			size_t errlen);
/* -R: after connection, narrow access and set the RNR timer (RTS->RTS), read
 * back path MTU, ACK timeout, retry counts and max_rd_atomic into c. */
int ctx_qp_cm_finish(struct rb_ctx *c, struct rb_qp *q, bool first, char *err, size_t errlen);

/*
 * --read-completion poll: the value a READ slot's last byte holds from just
 * before its READ is posted until the READ's data lands there. rb_pattern
 * never produces it, so the server's source bytes (every position, every
 * QP, every seed) always differ from it and the change is always seen.
 */
#define RB_READ_SENTINEL 0x00u

/* Payload pattern byte i of QP g written by role (both ends compute it);
 * never RB_READ_SENTINEL (a zero byte reads as "no data yet"). */
static inline uint8_t rb_pattern(uint64_t seed, enum rb_role role, uint32_t g, uint64_t i)
{
	uint8_t v = (uint8_t)(i * 131u + g * 29u + seed * 7u + (unsigned)role * 101u + 1u);
	return v == RB_READ_SENTINEL ? (uint8_t)(RB_READ_SENTINEL ^ 0xffu) : v;
}

/*
 * Gated (--procs > 1): release the workers waiting at the start barrier
 * (the session thread, on the server's GO, after win_start_ns/win_end_ns
 * are stored): sets go and wakes them (they sleep on it, futex(2), so a
 * process waiting for the others uses no CPU).
 */
void ctx_release(struct rb_ctx *c);

/* Sums over workers. */
uint64_t ctx_sum_recvs(struct rb_ctx *c);
/* The latest receive of any worker, timing_now_ns(); 0 when none yet.
 * Safe while the workers run (relaxed loads). */
uint64_t ctx_last_recv_ns(struct rb_ctx *c);

#endif /* RDMA_BENCH_CTX_H */
