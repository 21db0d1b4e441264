/*
 * post.h - the data path of rdma_bench's worker threads (bench/lib/post*.c):
 * the requester loops (post_req.c: bw and lat, client side), the responder
 * loops (post_resp.c: the server's receive sink and ping-pong answers), the
 * threads' start, barrier and join (post.c) and the end-of-test buffer
 * checks (post_check.c). The rules of each loop are in post.c's opening
 * comment. Every function here runs on a context built by ctx_create and
 * connected by ctx_connect (ctx.h).
 */
#ifndef RDMA_BENCH_POST_H
#define RDMA_BENCH_POST_H

#include <stddef.h>
#include <stdint.h>

#include "ctx.h"

#define RB_POLL_BATCH 32     /* work completions per ibv_poll_cq */

/* Worker threads (bench/lib/post.c). Thread functions take a struct rb_worker *. */
void *worker_client_main(void *arg);
void *worker_server_main(void *arg);
/* Start / join all workers of c with fn; worker i pinned to c->pl's CPU
 * i mod their count (topo.h; none: not pinned). */
int workers_start(struct rb_ctx *c, void *(*fn)(void *), char *err, size_t errlen);
/* Join; returns the first worker error (0 if none) with its message. */
int workers_join(struct rb_ctx *c, char *err, size_t errlen);

/* End-of-test checks of buffer contents (bench/lib/post.c). */
/* Client: READ and WRITE ping-pong data (with --read-completion poll: every
 * READ slot used, against the pattern of the QP that last filled it);
 * returns mismatching QPs (READ slots with poll). */
uint64_t ctx_check_client_buffers(struct rb_ctx *c, char *note, size_t notelen);
/* Server: WRITE data, atomic counter sum (*sum). Returns mismatching QPs. */
uint64_t ctx_check_server_buffers(struct rb_ctx *c, uint64_t *sum, char *note, size_t notelen);

#endif /* RDMA_BENCH_POST_H */
