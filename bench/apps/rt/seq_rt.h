/*
 * seq_rt.h - what the sequencer's variant files share: one point's verbs
 * resources on one side (struct seq_run), its threads (struct seq_thread),
 * and the table of variants (struct seq_variant_ops).
 *
 * A point, on each side (bench/apps/seq/seq_main.c drives it):
 *   ops->create()    CQs and QPs (RESET->INIT, bench/lib/qp.c), the buffer and
 *                    its MR; fills run->eps, this side's QPs for SETUP
 *   ops->connect()   INIT->RTR->RTS against the peer's SETUP (bench/lib/qp.c),
 *                    the peer's QPNs and addresses into the pre-built WRs,
 *                    the first receives posted
 *   ops->thread_main one thread per client thread (client) or per server
 *                    thread (server; atomics has none): the data path
 *   seq_run_destroy  everything, in reverse order
 *
 * Buffer, one MR per side; each variant file says what lies where.
 */
#ifndef RDMA_BENCH_SEQ_RT_H
#define RDMA_BENCH_SEQ_RT_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include <infiniband/verbs.h>

#include "ctx.h"
#include "hist.h"
#include "plan.h"
#include "seq.h"

#define SEQ_SIG_EVERY   16u   /* unsignaled WRs: one in 16 is signaled (frees 16 SQ slots) */
#define SEQ_SQ_DEPTH    256u  /* send queue of every QP; > SEQ_BATCH_MAX + 2 * SEQ_SIG_EVERY */
#define SEQ_DRAIN_MS    3000u /* client: wait for outstanding responses after the window */
#define SEQ_RECV_BYTES  64u   /* UD receive slot: 40-byte GRH + 8-byte payload, rounded */

struct seq_run;

struct seq_thread {
	struct seq_run *run;
	unsigned index;               /* client thread = client id; or server thread */
	struct ibv_cq *scq, *rcq;
	struct rb_qp *qps;            /* client: [request QP, UD response QP (herd-rpc)];
	                                 server: ud_qps response QPs (spec-s0: qps[0] receives) */
	unsigned nqp;
	uint8_t *area;                /* this thread's part of the buffer */
	uint64_t *post_ts;            /* client: post time per window entry (ns) */
	struct ibv_send_wr *wr;       /* pre-built send WRs (SEQ_BATCH_MAX, or window) */
	struct ibv_sge *sge;
	struct ibv_recv_wr *rwr;      /* one per receive slot */
	struct ibv_sge *rsge;
	unsigned nrecv;
	/* results */
	struct hist *hist;            /* client: request latency ns, in the window */
	struct seq_vals vals;         /* client: values received (whole run) */
	uint64_t resp_window;         /* client: responses completed inside the window */
	uint64_t outstanding;         /* client: requests without a response at the end */
	uint64_t poll_now;            /* client: the clock at the last poll that read it */
	unsigned poll_idle;           /* client: empty polls since the clock was read */
	uint64_t gets, puts;          /* client, herd-kv: GET and PUT responses (whole run) */
	uint64_t get_hits, checked;   /* client, herd-kv: GETs that found their key; hit values
	                                 checked against key and version (--kv validate) */
	struct seq_batch batch;       /* server: responses and doorbells */
	uint64_t requests;            /* server: requests seen */
	uint64_t bad;                 /* server: requests naming no client */
	uint64_t cpu_ns;              /* server: thread CPU time (CLOCK_THREAD_CPUTIME_ID) */
	void *app;                    /* the variant's own per-thread state (herd-kv), or NULL */
	void (*app_free)(void *app);  /* frees it in seq_run_destroy */
	pthread_t tid;
	bool started;
	int rc;
	char err[256];
};

struct seq_run {
	struct seq_cfg cfg;
	enum rb_role role;
	struct rb_dev *dev;
	const struct rb_placement *pl; /* the process's placement (ctx_placement, once per
				       * process: --cpus, --numa, --hugepages): thread i
				       * on pl->place.cpus[i % ncpus]; NULL: not pinned */
	struct ibv_pd *pd;
	struct rb_buf mem;            /* the mapping of buf and its pages (topo_buf_map) */
	uint8_t *buf;                 /* = mem.p */
	uint64_t buf_len;
	struct ibv_mr *mr;
	/* QPs with no thread (server side of herd-rpc's UC request QPs, atomics' RC QPs) */
	struct ibv_cq *pcq;
	struct rb_qp *passive;
	unsigned npassive;
	struct seq_thread *th;
	unsigned nth;
	/* this side's endpoint (SETUP QP list) and the peer's */
	struct ctrl_qp_ep *eps;
	uint32_t neps;
	struct ctrl_setup remote;
	struct ctrl_qp_ep *remote_eps;
	uint32_t path_mtu, rd_init, rd_resp;
	uint32_t inline_cap;          /* smallest granted by any QP */
	/* run control */
	_Atomic uint64_t *counter;    /* server, herd-rpc / spec-s0: in the buffer */
	_Atomic int stop;             /* server: set by the session thread */
	_Atomic int go;               /* client: threads start posting */
	uint64_t win_start, win_end;  /* client: measured window (timing_now_ns) */
	uint64_t values_cap;          /* client: values stored per thread */
	/* server: --max-mem (0: no cap) and what this point charged so far
	 * (seq_run_charge: the MR, the stores, the threads' stacks) */
	uint64_t mem_cap, mem_used;
};

struct seq_variant_ops {
	const char *name;
	int (*create)(struct seq_run *r, char *err, size_t errlen);
	int (*connect)(struct seq_run *r, char *err, size_t errlen);
	void *(*client_main)(void *arg);   /* arg: struct seq_thread * */
	void *(*server_main)(void *arg);   /* NULL: no server threads */
	/* NULL, or the server's own counts of the point into its DONE, after
	 * its threads ended (drtm-kv: the scan of its items) */
	void (*server_done)(struct seq_run *r, struct ctrl_done *d);
};

extern const struct seq_variant_ops seq_atomics_ops;  /* seq_atomics.c */
extern const struct seq_variant_ops seq_herd_ops;     /* seq_herd.c */
extern const struct seq_variant_ops seq_spec_ops;     /* seq_spec.c */
extern const struct seq_variant_ops seq_kv_ops;       /* seq_kv.c */
extern const struct seq_variant_ops seq_drtm_ops;     /* drtm_kv.c */

/*
 * drtm-kv, client, after the server's DONE (drtm_kv.c): the threads'
 * counts summed into *c, the server's scan (its DONE: drtm_kv.c says
 * which field is which) into *t, and drtm_check over both. 0, or -1 with
 * err saying which count does not add up.
 */
int drtm_client_done(const struct seq_run *r, const struct ctrl_done *srv,
		     struct drtm_counts *c, struct drtm_tally *t, char *err, size_t errlen);

/* ---- helpers (bench/apps/rt/seq_rt.c) -------------------------------------- */

/*
 * Charge bytes of what (the client's count that asks for them, e.g.
 * "the DrTM item array (--drtm items 134217728)") to the point before it
 * is allocated: with r->mem_cap set, mem_used + bytes above it is refused:
 * -1 with err "refused: X MiB above what the server's --max-mem Y MiB
 * leaves (Z MiB charged to this point): what" (RB_REFUSED_PREFIX: the
 * client exits 2 with a skipped row; value, flag and limit first, as a
 * row's reason column keeps ~95 bytes). 0 with mem_used raised.
 */
int seq_run_charge(struct seq_run *r, uint64_t bytes, const char *what, char *err,
		   size_t errlen);
/* PD, buffer of len bytes (rounded up to whole pages: 2 MiB ones with
 * r->pl->hugepages; zeroed) and its MR with access: mapped by topo_buf_map
 * (--hugepages: hugetlb, else THP, else base pages with a WARN naming
 * why) and first touched while this thread runs on r->pl's CPUs; on the
 * server the mapped length is charged first (seq_run_charge). 0, or -1
 * with err. */
int seq_run_alloc(struct seq_run *r, uint64_t len, int access, char *err, size_t errlen);
/* nth threads; each gets its CQs (send CQ scq_depth, receive CQ rcq_depth or
 * none for 0), nqp QPs, its area and the result storage. */
int seq_run_threads(struct seq_run *r, unsigned nth, unsigned nqp, unsigned scq_depth,
		    unsigned rcq_depth, char *err, size_t errlen);
/* Client side of a point: cfg.client_threads threads (seq_run_threads'
 * CQs and nqp QPs each) over one buffer (seq_run_alloc, access) of
 * area_bytes per thread; thread i's th->area is its part. 0 or -1 + err. */
int seq_client_threads(struct seq_run *r, uint64_t area_bytes, int access, unsigned nqp,
		       unsigned scq_depth, unsigned rcq_depth, char *err, size_t errlen);
/*
 * Create q on the library's QP stage (bench/lib/qp.c, qp_create + qp_to_init)
 * with transport, verb (the access it grants), send queue sq, receive queue
 * rq (0: none), its CQs; psn random. Adds it to run->eps.
 */
int seq_qp_create(struct seq_run *r, struct rb_qp *q, uint64_t transport, uint64_t verb,
		  struct ibv_cq *scq, struct ibv_cq *rcq, uint32_t sq, uint32_t rq, unsigned gindex,
		  char *err, size_t errlen);
/*
 * The server side of the one-sided variants (atomics, drtm-kv): r->pcq and
 * nc passive RC QPs on it (r->passive, r->npassive), one per client
 * thread, granting the atomics' access; the NIC serves them, no thread
 * polls. 0, or -1 with err naming what failed.
 */
int seq_passive_qps(struct seq_run *r, unsigned nc, char *err, size_t errlen);
/*
 * Client thread i's WR arrays: th->post_ts (window entries), th->wr and
 * th->sge (nwr entries each), zeroed. 0, or -1 with err (out of memory).
 */
int seq_client_arrays(struct seq_run *r, unsigned i, size_t nwr, char *err, size_t errlen);
/*
 * The one-sided variants' connection: one RC QP pair per client thread
 * (the server's r->passive[i], the client's th[i].qps[0]) to the peer's
 * endpoints r->remote_eps; the peer must have sent one per client thread.
 * On the server, after(q) (when not NULL) runs on each QP once in RTS.
 * 0, or -1 with err.
 */
int seq_connect_pairs(struct seq_run *r, int (*after)(struct rb_qp *q, char *err, size_t errlen),
		      char *err, size_t errlen);
/* INIT->RTR->RTS (qp_to_rtr_rts) against the peer QP ep (UD: an AH to the
 * peer's port). */
int seq_qp_connect(struct seq_run *r, struct rb_qp *q, uint64_t transport, uint64_t verb,
		   const struct ctrl_qp_ep *ep, char *err, size_t errlen);
/* Post receive slot i of thread th (rwr[i]) on q; 0 or -1 with err. */
int seq_post_recv_all(struct seq_thread *th, struct rb_qp *q, char *err, size_t errlen);
/*
 * Make room for n more WRs on QP qi of thread th: while q->posted + n -
 * q->reaped would exceed SEQ_SQ_DEPTH, poll th->scq for signaled send
 * completions (wr_id SEQ_WRID(qi, index of the WR): reaped = index + 1)
 * for up to timeout_ms. 0, or -1 with err naming the wait.
 */
int seq_sq_room(struct seq_thread *th, unsigned qi, uint64_t n, int timeout_ms, char *err,
		size_t errlen);
#define SEQ_WRID(qi, n) (((uint64_t)(qi) << 48) | ((n) & ((UINT64_C(1) << 48) - 1)))

void seq_run_destroy(struct seq_run *r);

/* ---- HERD's RPC pattern (bench/apps/rt/rpc.c), shared by herd-rpc and herd-kv --
 * Requests: client thread i WRITEs (UC QP qps[0], talking to the server's
 * passive UC QP i) into slots of the server's request region; responses:
 * server threads answer by UD SEND_WITH_IMM from their ud_qps QPs to the
 * client's UD QP qps[1]. SETUP QP lists: client [UC 0, UD 0, UC 1, UD 1,
 * ...]; server [UC 0..C-1, then UD t x ud_qps + j].
 */
/*
 * Server: a buffer of len bytes the clients may WRITE (its first 8 bytes the
 * point's counter, from cfg.start), the server threads (ud_qps QPs' room
 * each) and one passive UC QP per client thread on r->pcq.
 */
int rpc_server_alloc(struct seq_run *r, uint64_t len, char *err, size_t errlen);
/* Server thread t: SEQ_BATCH_MAX response WRs and SGEs, its ud_qps UD QPs. */
int rpc_server_thread(struct seq_run *r, unsigned t, char *err, size_t errlen);
/* Client thread i: nslots request WRs/SGEs/post times, th->nrecv receive
 * WRs/SGEs (set th->nrecv first), its UC and UD QPs. */
int rpc_client_thread(struct seq_run *r, unsigned i, unsigned nslots, char *err, size_t errlen);
/* Server: connect the UC and UD QPs (the peer's SETUP: 2 per client thread)
 * and pre-build the response WRs (SEND_WITH_IMM, qkey RB_QKEY). */
int rpc_server_connect(struct seq_run *r, char *err, size_t errlen);
/* Client: check the peer's SETUP, connect every thread's UC and UD QPs. */
int rpc_client_connect(struct seq_run *r, char *err, size_t errlen);
/* Client thread: receive WR s over slot s of recv (slot_bytes each); post all. */
int rpc_client_recvs(struct seq_thread *th, uint8_t *recv, uint32_t slot_bytes, char *err,
		     size_t errlen);
/*
 * Client: post the UC WRITE wr (its SGE and remote address set) of request
 * slot k, len bytes (inline when the QP's cap covers them; one WR in
 * SEQ_SIG_EVERY signaled); records post_ts[k]. 0, or -1 with th->err.
 */
int rpc_post_write(struct seq_thread *th, struct ibv_send_wr *wr, uint32_t len, uint64_t k,
		   uint64_t now);
/* One response of a server's poll pass: to client thread `client`, with
 * the immediate imm, payload = the pass's number then len bytes of data. */
struct rpc_resp {
	unsigned client;
	uint32_t imm;
	uint32_t len;
	const uint8_t *data;
};
/*
 * Server thread: answer the n (<= SEQ_BATCH_MAX) responses of a pass, each
 * with a number of one atomic add on r->counter; payloads go to the
 * thread's ring (stride bytes each, in th->area). --batch on: one linked
 * list of WRs per ibv_post_send (one doorbell, the paper's Section 3.1);
 * off: one per response; response QPs round robin (*rr). 0, or -1 with
 * th->err.
 */
int rpc_respond(struct seq_thread *th, const struct rpc_resp *resp, unsigned n, uint32_t stride,
		unsigned *rr);

/* ---- steps of a client thread's loop (seq_rt.c), every variant's --------
 * Hot path: no allocation, no lock, no formatting but on an error. */

/* Wait for run->go (set by the point's driver after READY): true to start
 * posting, false when the point was called off (go < 0). */
bool seq_client_start(struct seq_thread *th);
#define SEQ_IDLE_CLOCK 64u  /* empty polls per clock read (a power of two) */
/*
 * One poll of cq (what names it in the error, e.g. "receive CQ"): up to
 * RB_POLL_BATCH completions into wc, *now the time right after a poll that
 * found some; an empty poll reads the clock only every SEQ_IDLE_CLOCK-th
 * time (else *now is the last time read: at most that many empty polls
 * old), so waiting costs no clock read per poll. A poll that finds nothing
 * yields the CPU under --idle yield. n >= 0, or -1 with th->err.
 */
int seq_client_poll(struct seq_thread *th, struct ibv_cq *cq, const char *what,
		    struct ibv_wc *wc, uint64_t *now);
/* A response to the request posted at post_ns arrived at now: one less
 * outstanding; inside the window it counts, with its latency (ns). */
void seq_client_answered(struct seq_thread *th, uint64_t post_ns, uint64_t now);
/* seq_client_answered for a response carrying the number v, which also
 * goes into the thread's list for the uniqueness check (seq.h). */
void seq_client_took(struct seq_thread *th, uint64_t v, uint64_t post_ns, uint64_t now);
/* The loop's end: the window is over and nothing is outstanding, or
 * SEQ_DRAIN_MS have passed since the window's end. */
bool seq_client_done(const struct seq_thread *th, uint64_t now);
/*
 * Client thread's loop (herd-rpc, herd-kv, spec-s0): wait for run->go,
 * post the first `first` requests (post(th, k, now) for k < first), then for
 * every response received on th->rcq: take(th, wc, now, &k) (0, or -1 with
 * th->err), re-post its receive on th->qps[rq], and while the window lasts
 * post(th, k, now). Ends when seq_client_done. Returns NULL (pthread).
 */
void *seq_client_loop(struct seq_thread *th, unsigned rq, unsigned first,
		      int (*post)(struct seq_thread *th, unsigned k, uint64_t now),
		      int (*take)(struct seq_thread *th, const struct ibv_wc *wc, uint64_t now,
				  unsigned *k));

/* ---- a server thread's responses (seq_rt.c) ------------------------------ */

/* send_flags of the next WR on q: one in SEQ_SIG_EVERY signaled (it frees
 * SEQ_SIG_EVERY send queue slots when it completes, seq_sq_room). */
static inline unsigned seq_sig_flag(const struct rb_qp *q)
{
	return q->posted % SEQ_SIG_EVERY == SEQ_SIG_EVERY - 1 ? IBV_SEND_SIGNALED : 0;
}
/*
 * Post th->wr[0..m-1] (filled by the caller, q->posted counted) on q as one
 * linked list: one ibv_post_send, one doorbell (Section 3.1's doorbell
 * batching when m > 1). Counts the batch in th->batch. 0, or -1 with
 * th->err naming the QP.
 */
int seq_post_batch(struct seq_thread *th, struct rb_qp *q, unsigned m);

/* Thread-level failure: sets th->rc and th->err; returns NULL for pthread. */
void *seq_thread_fail(struct seq_thread *th, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

#endif /* RDMA_BENCH_SEQ_RT_H */
