/*
 * qp.h - the QP stages of the library (bench/lib/qp.c): create a QP, read
 * back its granted caps, and walk it through RESET -> INIT -> RTR -> RTS
 * (IB spec 10.3 and 11.2.4.2, table 91: the attributes each transition
 * requires or allows, per transport); UD reaches its peer through an
 * address handle (qp_peer_av).
 *
 * A caller describes the QP in a struct rb_qp_attr (what the stages read,
 * nothing else), so any program on the library (rdma_bench's context,
 * rdma_seq's runtime) drives the same transitions. Every function returns
 * 0, or -1 with a message in err naming the verb, the QP number and the
 * values it set.
 */
#ifndef RDMA_BENCH_QP_H
#define RDMA_BENCH_QP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <infiniband/verbs.h>

#include "ctrl.h"
#include "device.h"

#define RB_QKEY 0x11111111u  /* UD Q_Key (IB spec 10.2.4: any value both ends share) */

struct rdma_cm_id;

/* What the QP stages read. Fields the caller leaves 0 mean what the IB
 * spec's encoding of 0 means; the ranges are the knob table's. */
struct rb_qp_attr {
	/* --- creation (ibv_create_qp) --- */
	struct ibv_pd *pd;
	const struct rb_dev *dev;  /* port, link layer, GID index; its caps name limits */
	struct ibv_cq *scq;        /* send CQ */
	struct ibv_cq *rcq;        /* receive CQ; NULL: the QP takes no receives (its
	                              one receive WR slot is on scq) */
	uint64_t transport;        /* RB_TR_RC / RB_TR_UC / RB_TR_UD (verb.h) */
	uint32_t sq_depth;         /* max_send_wr, WRs (<= device max_qp_wr) */
	uint32_t rq_depth;         /* max_recv_wr, WRs, when rcq != NULL */
	uint32_t inline_req;       /* in/out: max_inline_data asked, bytes; with
	                              RB_INLINE_AUTO lowered to 0 when the device
	                              refuses it (then later QPs ask 0 too) */
	uint64_t inline_mode;      /* RB_INLINE_AUTO / ON / OFF (options.h) */
	uint64_t size;             /* message bytes: named when inline is refused */
	unsigned thread, index;    /* thread and QP number within it: messages only */
	uint32_t inline_cap;       /* out: lowered to the smallest max_inline_data
	                              granted (ibv_query_qp IBV_QP_CAP); start it
	                              at UINT32_MAX */
	bool refused;              /* out: the failure was a value above a device cap
	                              (a usage error, not a fault) */
	/* --- INIT (IB spec 10.3, table 91: RESET->INIT) --- */
	uint16_t pkey_index;       /* index into the port's P_Key table (IB spec 10.9.2);
	                              0 = the default partition's slot */
	int access;                /* IBV_ACCESS_REMOTE_* the peer may use (RC/UC;
	                              IB spec 10.6.3.2) */
	uint32_t qkey;             /* UD Q_Key (RB_QKEY) */
	/* --- address vector (IB spec 10.2.2, 8.3: LRH and GRH) --- */
	uint8_t sl;                /* service level, 0..15 (LRH SL; IB spec 7.6.5): selects
	                              the VL on IB, the priority on RoCE without DSCP */
	uint8_t tclass;            /* GRH traffic class, 0..255 (IB spec 8.3.1): on RoCE
	                              v2 the IP ToS byte, DSCP = tclass >> 2 */
	/* --- RTR / RTS (IB spec 10.3, table 91; RC-only fields ignored on UC) --- */
	uint32_t path_mtu;         /* bytes, 256..4096 (IB spec 9.7.6.1.1: fits the whole path) */
	uint8_t rd_resp;           /* max_dest_rd_atomic: READ/atomic requests this side
	                              answers at once (responder resources, IB spec table 91) */
	uint8_t rd_init;           /* max_rd_atomic: READ/atomic requests this side keeps
	                              outstanding (initiator depth), <= the peer's rd_resp */
	uint8_t min_rnr_timer;     /* IB spec table 45 code, 0..31 (12 = 0.64 ms) */
	uint8_t timeout;           /* local ACK timeout 4.096 us x 2^v, 0..31, 0 = infinite
	                              (IB spec 9.7.6.1.3) */
	uint8_t retry_cnt;         /* transport retries, 0..7 (3-bit field) */
	uint8_t rnr_retry;         /* RNR retries, 0..7, 7 = infinite */
};

/* Create the QP of attr on its PD (id != NULL: on that rdma_cm id, which
 * takes it to INIT, UD to RTS) and read back its caps into attr->inline_cap. */
int qp_create(struct rb_qp_attr *attr, struct ibv_qp **qp, struct rdma_cm_id *id,
	      char *err, size_t errlen);
/* RESET -> INIT: P_Key index, port, access (RC/UC) or Q_Key (UD). */
int qp_to_init(const struct rb_qp_attr *attr, struct ibv_qp *qp, char *err, size_t errlen);
/* INIT -> RTR -> RTS towards the peer QP remote_qpn (starting PSN
 * remote_psn) on the port described by r; our SQ starts at psn. UD: only
 * the states, plus the address handle made into *ah. */
int qp_to_rtr_rts(const struct rb_qp_attr *attr, struct ibv_qp *qp, const struct ctrl_setup *r,
		  uint32_t remote_qpn, uint32_t remote_psn, uint32_t psn, struct ibv_ah **ah,
		  char *err, size_t errlen);
/*
 * -R, RC: move qp (created with qp_create(..., NULL) and in INIT, not
 * attached to id) to RTR and RTS with what rdma_cm computed for id
 * (rdma_init_qp_attr: address vector, remote QPN, PSNs) and, on top, the
 * values the TCP path applies: path MTU, max_rd_atomic, the RNR timer, ACK
 * timeout, retry counts, SL and traffic class. *remote_qpn gets the peer's
 * QPN. Client: after RDMA_CM_EVENT_CONNECT_RESPONSE, then rdma_establish;
 * server: before rdma_accept.
 */
int qp_cm_rtr_rts(const struct rb_qp_attr *attr, struct ibv_qp *qp, struct rdma_cm_id *id,
		  uint32_t *remote_qpn, char *err, size_t errlen);
/*
 * UD under rdma_cm (-R): librdmacm takes a UD QP created on an
 * RDMA_PS_UDP id to RTS with the fixed RDMA_UDP_QKEY, which any host can
 * send to; this sets attr->qkey (the point's random Q_Key, sent in SETUP)
 * with an RTS->RTS modify (IB spec 11.2.4.2: Q_Key may be changed in RTS
 * for UD; 10.2.4: a receive whose Q_Key differs is dropped). 0, or -1 with
 * err naming the QP and the Q_Key.
 */
int qp_ud_set_qkey(const struct rb_qp_attr *attr, struct ibv_qp *qp, char *err, size_t errlen);
/* Address vector of the peer port described by a SETUP: LID (IB) or GID
 * (RoCE, with this side's GID index), SL and traffic class from attr. */
struct ibv_ah_attr qp_peer_av(const struct rb_qp_attr *attr, const struct ctrl_setup *r);

/* Sets at's RC timers (min_rnr_timer, timeout, retry_cnt, rnr_retry) to
 * the defaults of the knob table (--min-rnr-timer, --ack-timeout,
 * --retry-cnt, --rnr-retry; IB spec 1.3 vol. 1, 11.2.4.2 for their
 * encodings), for a program that has no such knobs of its own. */
void qp_attr_timer_defaults(struct rb_qp_attr *at);

#endif /* RDMA_BENCH_QP_H */
