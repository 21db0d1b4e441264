/*
 * ctx_cm.h - rdma_bench's point connected with rdma_cm (-R): its context's
 * QPs (struct rb_ctx, ctx.h) created, connected and accepted over the
 * library's rdma_cm steps (cm.h: the ids, events, private data and the
 * server's listener and sessions). The program's, not the library's:
 * bench/rdma_bench/ctx_cm.c. Each returns 0, or -1 with err naming the
 * call or event that failed (c->refused set when a value of the point
 * was refused, as ctx_qp_create does).
 */
#ifndef RDMA_BENCH_CTX_CM_H
#define RDMA_BENCH_CTX_CM_H

#include <stddef.h>

#include "cm.h"
#include "ctx.h"

/* Client, after cm_client_prepare and ctx_create on cc->verbs: every QP
 * of c made for its id (UD: on the id; RC: on its device, ACK timeout set
 * on the id first), then the inline decision (ctx_inline_decide). */
int ctx_cm_create_qps(struct rb_cm_client *cc, struct rb_ctx *c, char *err, size_t errlen);
/* Client, after its SETUP is sent: cm_client_connect with c's negotiated
 * values and the server's SETUP (c->remote), each answer taken (UD: the
 * address handle and QPN; RC: RTR/RTS and the RTU), then every QP
 * finished (ctx_qp_cm_finish) and given its remote slots. */
int ctx_cm_connect(struct rb_cm_client *cc, struct rb_ctx *c, const struct rb_cm_ctrl *ctl,
		   char *err, size_t errlen);
/* Server, s registered for c's point: wait for every connect request,
 * create the QPs on the requests' device (client: the client's SETUP, the
 * UD address vectors), post receives, RC RTR/RTS, accept, wait
 * ESTABLISHED (RC), then finish every QP as the client does. */
int ctx_cm_accept(struct rb_cm_listener *l, struct rb_cm_session *s, struct rb_ctx *c,
		  const struct ctrl_setup *client, const struct rb_cm_ctrl *ctl, char *err,
		  size_t errlen);

#endif /* RDMA_BENCH_CTX_CM_H */
