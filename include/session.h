/*
 * session.h - the two roles of rdma_bench.
 *
 * server_run(): listen on the TCP control port and serve sessions, each in
 * its own thread, until killed; with --once, serve one session and return
 * its status. A session takes every test parameter from its client
 * (ctrl.h), within the server's limits and admission (guard.h): --allow
 * and --max-per-peer at accept, a slot (--max-sessions; more are told
 * "busy") only after a valid HELLO within 5 s (and the --token-file token),
 * and each point's limits and memory before it allocates.
 *
 * client_run(): for every size and repetition, run one point against the
 * server, append its rows to --csv at once, print the table at the end and
 * write --json. A failed point is a row with status "failed" and a reason;
 * the client reconnects for the next point and exits non-zero at the end.
 *
 * Both return the process exit status (0 ok, 1 a point or session failed,
 * 2 usage or setup error).
 */
#ifndef RDMA_BENCH_SESSION_H
#define RDMA_BENCH_SESSION_H

#include "ctrl.h"
#include "options.h"

int server_run(const struct rb_opts *o);
int client_run(const struct rb_opts *o);

/*
 * How long (ns) a server session waits for one more receive after the
 * client's DONE, once fewer receives than the client's sends arrived (UD and
 * UC lose messages for good): 50 mean gaps between receives of the window
 * (duration_ms / recvs so far), at least 50 ms and at most 200 ms; 200 ms in
 * iteration mode (duration_ms 0) or with no receive yet. Every wait also
 * ends 3 s after the DONE.
 */
uint64_t server_recv_quiet_ns(uint64_t duration_ms, uint64_t recvs);


/* RB_REFUSED_PREFIX, the refusal of a point's configuration: ctrl.h. */

#endif /* RDMA_BENCH_SESSION_H */
