/* tests/nulldev/nd.h: the null RDMA device's internal shapes (an
 * LD_PRELOAD library presenting fake verbs devices to unmodified
 * libibverbs programs; README.md beside this file).
 *
 * Objects are the verbs structs (struct ibv_qp, ibv_cq, ...) as the first
 * member of the device's own, so a pointer the program holds converts back
 * with a cast. Semantics follow the IB spec (vol. 1, ch. 10-11: QP states,
 * completion rules: C10-?? an unsignaled WR yields no CQE unless it fails,
 * flushed WRs complete with IBV_WC_WR_FLUSH_ERR in the Error state).
 *
 * A WR to a QP of another process acts on that process's MR with
 * remote=copy (process_vm_*); with remote=count WRITE/READ are only
 * counted and an atomic acts on a shadow 8-byte word in the requesting
 * process (nd_data.c atomic_count: 1024 words keyed by peer pid, rkey
 * and remote address, 0 when first seen), so its reply is the original
 * value in host order at a constant cost. */
#ifndef ND_H
#define ND_H

#include <infiniband/verbs.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define ND_MAX_DEVS   8
#define ND_MAX_PORTS  4
#define ND_MAX_MRS    4096    /* registered MRs per process (rkey index) */
#define ND_MAX_QPS    4096    /* QPs per process (QPN low bits) */
#define ND_INBOX      1024    /* arrivals a QP's inbox holds (power of 2) */
#define ND_INBOX_DATA 256     /* payload bytes an arrival carries */
#define ND_CQ_RQPS    64      /* receive QPs one CQ polls the inboxes of */

/* One configured device (RB_NULLDEV). */
struct nd_devcfg {
	char name[64];
	int link;                 /* IBV_LINK_LAYER_INFINIBAND/_ETHERNET; iwarp: transport */
	bool iwarp;
	int ports;
	enum ibv_mtu mtu;
	enum ibv_port_state state;
	uint32_t max_inline;
	struct ibv_device_attr attr;
	int gids;                 /* GID table entries per port (RoCE) */
	uint64_t guid;
	uint32_t poll_delay;      /* a CQE shows after this many polls of its CQ */
	bool remote_copy;         /* remote=copy: process_vm_* to a peer process's MR;
				   * count: WRITE/READ counted, atomics on shadow words */
	bool td;                  /* td=on: an extended context with thread and parent
				   * domains (ibv_alloc_td, ibv_alloc_parent_domain) */
	int max_ctx;              /* contexts open at once; beyond: ibv_open_device fails
				   * ENOMEM (0: no limit) */
	_Atomic int open_ctx;     /* contexts of this device open now */
};

/* Faults (RB_NULLDEV_FAULTS); 0 = off. */
struct nd_faults {
	uint64_t err_wr;          /* the Nth send WR of the process completes in error */
	enum ibv_wc_status err_status;
	uint64_t lose_recv;       /* every Nth arrival consumes no RECV */
	uint64_t foreign_src;     /* every Nth SEND arrives from another source QP (a
				   * stranger's SEND that passed the Q_Key) */
	uint64_t flip;            /* every Nth loopback WRITE/READ flips its first byte */
	uint64_t atomic_wrong;    /* every Nth atomic returns original ^ 1 */
	uint64_t atomic_skip;     /* every Nth atomic leaves the remote word as it was */
	uint64_t atomic_bswap;    /* every Nth atomic's reply in the other byte order */
	uint64_t qp_error;        /* after N send WRs the posting QP goes to ERROR */
	uint64_t post_enomem;     /* the Nth ibv_post_send call fails with ENOMEM */
	uint64_t recv_enomem;     /* the Nth ibv_post_recv call fails with ENOMEM */
};

/* Counters; per QP/CQ on the hot path, summed at exit (nd_stats.c). */
struct nd_count {
	uint64_t post_send_calls, send_wrs, max_wrs_per_call, max_outstanding;
	uint64_t signaled, unsignaled, post_recv_calls, recv_wrs;
	uint64_t poll_calls, empty_polls, cqes, loopback_ops, remote_ops;
	uint64_t recvs_done, recv_lost, inbox_overflow, cq_overrun, errors, flushed;
	uint64_t faults, undrained;   /* undrained: WRs still outstanding when the QP went */
};

struct nd_arrival {
	_Atomic uint64_t seq;     /* slot index + 1 once written */
	uint32_t len, imm, src_qp, flags;   /* flags: IBV_WC_WITH_IMM; bit 31 rdma imm */
	uint8_t data[ND_INBOX_DATA];
};

/* A QP's receive inbox: filled by the sender (same process: heap;
 * another process: POSIX shm "/rb_nulldev.<uid>.<qpn>"). */
struct nd_inbox {
	int32_t pid;              /* the owner process (its MR table: nd_mrtab) */
	_Atomic uint64_t head;    /* arrivals reserved */
	_Atomic uint64_t tail;    /* arrivals consumed by the receiver */
	struct nd_arrival a[ND_INBOX];
};

/* A process's MRs as another process sees them: POSIX shm
 * "/rb_nulldev.<uid>.mr.<pid>", indexed by rkey >> 8. */
struct nd_mrent {
	_Atomic uint32_t rkey;    /* 0: free */
	uint32_t access;
	uint64_t iova, addr, len;
};
struct nd_mrtab {
	struct nd_mrent e[ND_MAX_MRS];
};

struct nd_mr {
	struct ibv_mr mr;
	uint64_t iova;
	unsigned access;
};

struct nd_chan {
	struct ibv_comp_channel ch;
	pthread_mutex_t lock;
	struct ibv_cq *fifo[1024];
	uint64_t head, tail;
};

/* A context: vctx.context is what the program holds. Its abi_compat marks
 * it extended only with td=on, so verbs.h's inlines (verbs_get_ctx_op)
 * find the thread-domain calls there and take the plain exported calls
 * for everything else (their vctx entries stay NULL). */
struct nd_ctx {
	int dev;                  /* index into the configuration */
	struct verbs_context vctx;
};
#define ND_CTX(c) ((struct nd_ctx *)((char *)(c) - offsetof(struct nd_ctx, vctx.context)))

struct nd_cq_entry {
	struct ibv_wc wc;
	struct nd_qp *qp;         /* send CQE: the QP whose SQ it retires */
	uint64_t sq_seq;          /* ... up to this WR */
	uint64_t ready_at;        /* the CQ's poll count from which it shows */
};

struct nd_cq {
	union {                   /* ibv_cq_ex begins with ibv_cq's fields */
		struct ibv_cq cq;
		struct ibv_cq_ex cqx; /* td=on, ibv_create_cq_ex: its extended poll
				       * calls stay NULL (ibv_poll_cq only) */
	};
	pthread_spinlock_t lock;
	struct nd_cq_entry *ring;
	uint32_t mask;            /* ring entries - 1 (a power of 2 above cqe) */
	uint64_t head, tail;
	bool armed;
	struct nd_qp *rqps[ND_CQ_RQPS];   /* QPs whose inbox this CQ reaps */
	_Atomic int nrqps;
	uint32_t poll_delay;
	struct nd_count n;
};

struct nd_rwr {
	uint64_t wr_id;
	struct ibv_sge sge;       /* first SGE (payload lands there) */
};

struct nd_qp {
	struct ibv_qp qp;
	struct ibv_qp_attr attr;  /* as last modified */
	struct ibv_qp_cap cap;
	bool sig_all;
	struct nd_cq *scq, *rcq;
	/* send queue: WRs posted and retired (IB spec 10.8.3: an unsignaled
	 * WR is retired by a later signaled one's CQE) */
	uint64_t sq_posted;
	_Atomic uint64_t sq_done;
	/* receive queue */
	pthread_spinlock_t rlock;
	struct nd_rwr *rq;
	uint32_t rq_mask;
	uint32_t ud_qpn[8];       /* UD destinations' inboxes, mapped once */
	struct nd_inbox *ud_box[8];
	uint64_t rq_head, rq_tail;
	struct nd_inbox *inbox;   /* mine */
	bool inbox_shm;
	struct nd_inbox *peer_box;        /* RC/UC peer's: local heap or mapped shm */
	struct nd_qp *peer;       /* RC/UC peer in this process, else NULL */
	bool peer_shm;
	bool remote_copy;
	int peer_pid;
	struct nd_mrtab *peer_mrs;        /* the peer process's MR table, mapped */
	struct nd_count n;
};

extern struct nd_devcfg nd_devs[ND_MAX_DEVS];
extern int nd_ndevs;
extern struct nd_faults nd_fault;
extern bool nd_faults_on;
extern _Atomic int nd_opened;          /* ibv_open_device calls that succeeded */
extern _Atomic int nd_cqs_on_pd;       /* CQs ibv_create_cq_ex made on a parent domain */
extern _Atomic uint64_t nd_wr_seq, nd_post_seq, nd_recv_post_seq, nd_arrival_seq;
extern struct nd_qp *_Atomic nd_qps[ND_MAX_QPS];
extern struct nd_mr *_Atomic nd_mrs[ND_MAX_MRS];

void nd_init(void);
/* td=on: the thread-domain calls of an extended context (nd_obj.c) */
void nd_td_ops(struct verbs_context *v);
void nd_log(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
struct nd_qp *nd_qp_by_num(uint32_t qpn);
struct nd_inbox *nd_inbox_open(uint32_t qpn, bool create);
void nd_inbox_close(struct nd_inbox *b, uint32_t qpn, bool owner);
void nd_count_fold(const struct nd_count *c);
void nd_cq_register(struct nd_cq *cq, bool add);
void nd_qp_flush_recvs(struct nd_qp *q);
struct nd_mr *nd_mr_by_rkey(uint32_t rkey);
struct nd_mrtab *nd_mrtab_open(int pid, bool create);
void nd_mrtab_close(struct nd_mrtab *t, int pid, bool owner);
extern struct nd_mrtab *nd_my_mrs;
void nd_chan_signal(struct nd_cq *cq);
void nd_cq_push(struct nd_cq *cq, const struct ibv_wc *wc, struct nd_qp *qp, uint64_t seq);

int nd_post_send(struct ibv_qp *qp, struct ibv_send_wr *wr, struct ibv_send_wr **bad);
int nd_post_recv(struct ibv_qp *qp, struct ibv_recv_wr *wr, struct ibv_recv_wr **bad);
int nd_poll_cq(struct ibv_cq *cq, int n, struct ibv_wc *wc);
int nd_req_notify_cq(struct ibv_cq *cq, int solicited_only);
int nd_post_srq_recv(struct ibv_srq *srq, struct ibv_recv_wr *wr, struct ibv_recv_wr **bad);
void nd_reap(struct nd_qp *q);
void nd_watch_start(void);
void nd_watch_spawn(void);

#endif
