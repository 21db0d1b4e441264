/*
 * post.h - the data path of rdma_bench's worker threads, part of the
 * rdma_bench program (bench/rdma_bench/post*.c), not of the library: every
 * function here runs on rdma_bench's per-point context (struct rb_ctx, ctx.h)
 * built by ctx_create and connected by ctx_connect. The requester loops
 * (post_req.c: bw and lat, client side), the responder loops (post_resp.c:
 * the server's receive sink and ping-pong answers), the threads' start and
 * join (post.c), their error text (post_err.c) and the end-of-test buffer
 * checks (post_check.c); what the loops share is in
 * bench/rdma_bench/post_int.h. The rules of each loop are in post.c's
 * opening comment. Another program (bench/apps/) has its own data path on
 * the library's QP stages (qp.h) and the per-WR rules of plan.h.
 */
#ifndef RDMA_BENCH_POST_H
#define RDMA_BENCH_POST_H

#include <stddef.h>
#include <stdint.h>

#include "ctx.h"

/* Worker threads (post_req.c, post_resp.c): the thread functions, each
 * taking its struct rb_worker * (c->w[i]); a failure is left in the
 * worker's rc and err (workers_join reports it). */
void *worker_client_main(void *arg);
void *worker_server_main(void *arg);
/* Start all c->nw workers of c with fn (post.c), after resetting the
 * context's run control (stop, the start barrier, the gated window);
 * worker i pinned to c->pl's CPU i mod their count (topo.h; none: not
 * pinned). 0, or -1 with err naming the thread and pthread_create's error
 * (the threads already started are stopped and joined). */
int workers_start(struct rb_ctx *c, void *(*fn)(void *), char *err, size_t errlen);
/* Join every started worker of c (first waking receive threads asleep on
 * their CQ channel through c->stop_fd). 0, or -1 with err: the first
 * worker's error that is not the echo of a stop. */
int workers_join(struct rb_ctx *c, char *err, size_t errlen);

/* End-of-test checks of buffer contents against rb_pattern (post_check.c);
 * note gets the first mismatch (QP or READ slot, byte, value, expected). */
/* Client: READ and WRITE ping-pong data (with --read-completion poll: every
 * READ slot used, against the pattern of the QP that last filled it);
 * returns mismatching QPs (READ slots with poll). */
uint64_t ctx_check_client_buffers(struct rb_ctx *c, char *note, size_t notelen);
/* Server: WRITE data, atomic counter sum (*sum). Returns mismatching QPs. */
uint64_t ctx_check_server_buffers(struct rb_ctx *c, uint64_t *sum, char *note, size_t notelen);

#endif /* RDMA_BENCH_POST_H */
