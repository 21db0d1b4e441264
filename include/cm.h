/*
 * cm.h - connecting QPs with rdma_cm (-R) instead of exchanging QP numbers
 * on the control channel.
 *
 * The control channel still carries TEST, SETUP (buffer address, rkey,
 * caps), READY and DONE, so both ends negotiate as without -R
 * (ctx_negotiate: path MTU, max_rd_atomic, GIDs, UD size); rdma_cm resolves
 * the address and route and connects (RC: REQ/REP/RTU, RDMA_PS_TCP; UD:
 * SIDR, RDMA_PS_UDP, the peer's QPN and Q_Key come back in the ESTABLISHED
 * event). UD QPs are created on the ids. RC QPs are created on the id's
 * device but not attached to it: each side moves its QPs INIT->RTR->RTS
 * itself with rdma_init_qp_attr and the negotiated values on top
 * (qp_cm_rtr_rts: rdma_cm's route MTU knows only this side's netdev); the
 * client sends the RTU with rdma_establish after CONNECT_RESPONSE. The
 * rdma_cm port is the control port number (its own port space).
 *
 * Connect requests are matched to a server session by private data (28
 * bytes, big-endian): u32 magic "RBCM" | u32 server rkey | u64 server buffer
 * address | u32 QP index | u64 the server's nonce of the point (its SETUP:
 * 64 random bits, so no other host can guess it); the server registers
 * (rkey, address, nonce) before it sends its SETUP, so a request never
 * arrives before its session exists. A request is also refused unless it
 * comes from the address of the session's control connection (a client on
 * the server's own host, connected over loopback: from any address of this
 * host).
 *
 * After a connection is up, the QP's remote access is narrowed to what the
 * test needs (RTS->RTS, IBV_QP_ACCESS_FLAGS: rdma_cm grants remote write,
 * and read/atomic with responder resources) and --min-rnr-timer is applied;
 * path MTU, ACK timeout and retry counts are read back with ibv_query_qp and
 * reported as set.
 * Every event wait has a timeout and names the event it waited for.
 *
 * What is here is rdma_cm's side of a point, for any program: the ids, the
 * events, the private data, the listener and its sessions. A program's QPs
 * are its own: it creates them (on the ids, or on their device), takes
 * them through RTR/RTS and hands their numbers in (struct rb_cm_conn);
 * rdma_bench does that for its per-point context in
 * bench/rdma_bench/ctx_cm.c.
 */
#ifndef RDMA_BENCH_CM_H
#define RDMA_BENCH_CM_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include <rdma/rdma_cma.h>

#include "admit.h"
#include "ctrl.h"
#include "device.h"

#define RB_CM_MAGIC 0x5242434du /* "RBCM" */
#define RB_CM_PRIV_LEN 28u

/* The control connection, watched during every rdma_cm wait: if the peer
 * closes it or sends ERROR, the wait ends at once with that reason. */
struct rb_cm_ctrl {
	int fd;
	struct ctrl_rbuf *rb;
};

/*
 * What one point's rdma_connect (client) or rdma_accept (server) carries
 * (librdmacm's struct rdma_conn_param, sent in the connection manager's
 * REQ and REP messages, IB spec chapter 12), and the timeout of its event
 * waits. The counts are those fields' 8 bits (< 256): the READ/atomic
 * depths both ends negotiated (ctx_negotiate's rules), --retry-cnt and
 * --rnr-retry.
 */
struct rb_cm_conn {
	uint64_t transport;          /* RB_TR_RC or RB_TR_UD (options.h) */
	uint32_t rd_resp, rd_init;   /* responder_resources, initiator_depth */
	uint32_t retry_cnt, rnr_retry; /* retry_count, rnr_retry_count (RNR 7: for ever) */
	unsigned timeout_ms;         /* each wait for the point's events, ms */
	const uint32_t *qpn;         /* QP number per id (index = QP's process-wide
				      * index, n of them): RC, the caller's QP not
				      * attached to the id; NULL: 0 for every id */
	uint32_t rkey;               /* client: the server's MR rkey, buffer address */
	uint64_t addr;               /* and nonce from its SETUP (the private data) */
	uint64_t nonce;
};

/* The control connection's peer gone while a server's rdma_cm step failed
 * (err names the call): the cause (closed, ERROR, reset) put in front of
 * err, after waiting up to 2 s for the close to show (ctl NULL: err as is).
 * Always -1. */
int cm_accept_failed(const struct rb_cm_ctrl *ctl, char *err, size_t errlen);

/* ---- client: one per point ---- */
struct rb_cm_client {
	struct rdma_event_channel *ch;
	struct rdma_cm_id **ids;     /* one per QP, process-wide index */
	uint32_t n;
	struct ibv_context *verbs;   /* the device rdma_cm resolved to */
	uint8_t port;
};

/*
 * Resolve address and route to host:port for n QPs. The resolved device must
 * be the one in use (dev->name): otherwise -1 naming both and the fix.
 * Prints the resolved device, port, local address and GID. tos != 0: every
 * id's ToS (RDMA_OPTION_ID_TOS, --tclass) before its route is resolved.
 */
int cm_client_prepare(struct rb_cm_client *cc, const char *host, uint16_t port, uint32_t n,
		      uint64_t transport, uint8_t tos, const struct rb_dev *dev, bool dev_given,
		      unsigned timeout_ms, const struct rb_cm_ctrl *ctl, char *err, size_t errlen);
/*
 * Id g's answer from the server (RC: CONNECT_RESPONSE, the caller then
 * takes its QP to RTR and RTS and sends the RTU with rdma_establish(ev->id);
 * UD: ESTABLISHED with the server's QPN and address vector in
 * ev->param.ud), g < the client's n. ev is acknowledged after the call.
 * 0, or -1 with err.
 */
typedef int (*rb_cm_answered)(void *arg, uint32_t g, struct rdma_cm_event *ev, char *err,
			      size_t errlen);
/* Connect every id of cc (after cm_client_prepare and the caller's QPs):
 * rdma_connect with p (private data: p->rkey, p->addr, the id's index,
 * p->nonce), then each answer within p->timeout_ms in all, handed to
 * answered(arg, ...). 0, or -1 with err naming the event awaited, the QP
 * and a rejection's likely cause. */
int cm_client_connect(struct rb_cm_client *cc, const struct rb_cm_conn *p, rb_cm_answered answered,
		      void *arg, const struct rb_cm_ctrl *ctl, char *err, size_t errlen);
/* rdma_disconnect every RC id (before ctx_destroy). */
void cm_client_disconnect(struct rb_cm_client *cc, uint64_t transport);
/* Destroy ids and channel (after ctx_destroy). */
void cm_client_destroy(struct rb_cm_client *cc);

/* ---- server: one listener per process, one registration per point ---- */
struct rb_cm_session;

struct rb_cm_listener {
	struct rdma_event_channel *ch;
	struct rdma_cm_id *lid_rc, *lid_ud;
	struct ibv_context *verbs;   /* device the listener is bound to */
	char addr[64];
	pthread_t tid;
	bool running;
	pthread_mutex_t lock;
	struct rb_cm_session *sessions;
	volatile int quit;
	char why[512];               /* why -R is unavailable ("" = available) */
	uint32_t stale_rkey;         /* event thread: last point whose requests were */
	uint64_t stale_addr;         /* rejected as unregistered (logged once) */
	struct admit_log log;        /* event thread: rejected requests' lines, at most
				      * ADMIT_LOG_PER_SOURCE per source prefix per
				      * ADMIT_LOG_INTERVAL_MS, then a summary (admit.h) */
};

struct rb_cm_session {
	struct rb_cm_session *next;
	uint32_t rkey;
	uint64_t addr;
	uint64_t nonce;              /* the server's nonce of the point */
	struct sockaddr_storage peer;  /* the control connection's peer */
	uint32_t nqp;
	struct rdma_cm_id **child;   /* by QP index */
	uint32_t got, established;
	int failed;
	char why[256];
	pthread_cond_t cond;
};

/* Bind to bind_addr, else the IPv4 address of dev's GID; start the event
 * thread. On failure l->why says why and -R sessions are refused with it. */
void cm_listen_start(struct rb_cm_listener *l, const char *bind_addr, const struct rb_dev *dev,
		     uint16_t port);
void cm_listen_stop(struct rb_cm_listener *l);
/* Stop the event thread only (sessions still hold ids: process exit frees them). */
void cm_listen_halt(struct rb_cm_listener *l);

/* Register a point keyed by (rkey, addr) of the server's MR and its nonce;
 * peer: the control connection's peer address (connect requests must come
 * from it). */
int cm_session_register(struct rb_cm_listener *l, struct rb_cm_session *s, uint32_t rkey,
			uint64_t addr, uint64_t nonce, const struct sockaddr *peer, uint32_t nqp,
			char *err, size_t errlen);
/*
 * A point's accept, in order: cm_session_wait_requests (then s->child[g]
 * is QP g's request id, on l's event thread's channel), the caller's QPs
 * (on the ids, or RC on their device and to RTR/RTS), cm_session_accept,
 * and RC cm_session_wait_established. Each waits at most timeout_ms,
 * watching the client's control connection ctl (closed or ERROR: -1 at
 * once); 0, or -1 with err naming the event, the QPs seen of s->nqp, or
 * the call that failed (cm_accept_failed's cause in front).
 */
int cm_session_wait_requests(struct rb_cm_listener *l, struct rb_cm_session *s,
			     unsigned timeout_ms, const struct rb_cm_ctrl *ctl, char *err,
			     size_t errlen);
/* rdma_accept every request of s with p (RC: p->qpn[g] as the QP). */
int cm_session_accept(struct rb_cm_session *s, const struct rb_cm_conn *p,
		      const struct rb_cm_ctrl *ctl, char *err, size_t errlen);
int cm_session_wait_established(struct rb_cm_listener *l, struct rb_cm_session *s,
				unsigned timeout_ms, const struct rb_cm_ctrl *ctl, char *err,
				size_t errlen);
/* Disconnect (RC) and forget the point's ids: call disconnect before
 * ctx_destroy and release after it. */
void cm_session_disconnect(struct rb_cm_session *s, uint64_t transport);
void cm_session_release(struct rb_cm_listener *l, struct rb_cm_session *s);

#endif /* RDMA_BENCH_CM_H */
