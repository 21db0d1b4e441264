/* tests/nulldev/floor.c: the null device's own cost per op, the floor
 * under any program's rate on it (make bench-null). Runs under
 * LD_PRELOAD=build/libnulldev.so; calls only ibv_post_send and
 * ibv_poll_cq in its loop, as a client's bw loop does at its simplest:
 * a window of W outstanding WRs, postlist P, one signaled WR every S.
 *
 *   nulldev-floor VERB SIZE POSTLIST WINDOW SIGNAL SECONDS [OPS]
 *     VERB write|read|send|fadd; prints "Mops N ops N secs N". With OPS,
 *     it stops once OPS operations completed (or SECONDS passed): a fixed
 *     count, so that two runs under callgrind give instructions per op
 *     (ci/bench-null).
 *
 * The QP is connected to a QP number no process has (RB_NULLDEV
 * remote=count is not needed: there is no peer), so every WR is counted
 * and completed at once. Exit 2 with a message on bad input or a failed
 * verb. */
#include <infiniband/verbs.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define MAXPL 64

static void die(const char *what)
{
	fprintf(stderr, "nulldev-floor: %s\n", what);
	exit(2);
}

static double now_s(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static struct ibv_qp *setup(struct ibv_cq **cq, struct ibv_mr **mr, unsigned window)
{
	struct ibv_device **l = ibv_get_device_list(NULL);
	if (!l || !l[0])
		die("no device: run under LD_PRELOAD=build/libnulldev.so");
	struct ibv_context *ctx = ibv_open_device(l[0]);
	struct ibv_pd *pd = ctx ? ibv_alloc_pd(ctx) : NULL;
	static char buf[1 << 16];
	*mr = pd ? ibv_reg_mr(pd, buf, sizeof(buf), IBV_ACCESS_LOCAL_WRITE) : NULL;
	*cq = ctx ? ibv_create_cq(ctx, (int)window + MAXPL, NULL, NULL, 0) : NULL;
	if (!*mr || !*cq)
		die("device setup failed");
	struct ibv_qp_init_attr ia = { .send_cq = *cq, .recv_cq = *cq, .qp_type = IBV_QPT_RC,
		.cap = { .max_send_wr = window + MAXPL, .max_recv_wr = 1, .max_send_sge = 1,
			 .max_recv_sge = 1 } };
	struct ibv_qp *qp = ibv_create_qp(pd, &ia);
	struct ibv_qp_attr a = { .qp_state = IBV_QPS_INIT, .port_num = 1 };
	if (!qp || ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_PORT))
		die("QP setup failed");
	a.qp_state = IBV_QPS_RTR;
	a.dest_qp_num = 0xfffffe;
	a.path_mtu = IBV_MTU_1024;
	if (ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_DEST_QPN | IBV_QP_PATH_MTU))
		die("QP to RTR failed");
	a.qp_state = IBV_QPS_RTS;
	if (ibv_modify_qp(qp, &a, IBV_QP_STATE))
		die("QP to RTS failed");
	ibv_free_device_list(l);
	return qp;
}

int main(int argc, char **argv)
{
	if (argc != 7 && argc != 8)
		die("usage: nulldev-floor write|read|send|fadd SIZE POSTLIST WINDOW SIGNAL SECONDS [OPS]");
	const char *verb = argv[1];
	unsigned size = (unsigned)atoi(argv[2]), pl = (unsigned)atoi(argv[3]);
	unsigned win = (unsigned)atoi(argv[4]), sig = (unsigned)atoi(argv[5]);
	double secs = atof(argv[6]);
	uint64_t ops = argc == 8 ? strtoull(argv[7], NULL, 10) : 0; /* 0: by time only */
	enum ibv_wr_opcode op = !strcmp(verb, "write") ? IBV_WR_RDMA_WRITE :
				!strcmp(verb, "read") ? IBV_WR_RDMA_READ :
				!strcmp(verb, "send") ? IBV_WR_SEND :
				!strcmp(verb, "fadd") ? IBV_WR_ATOMIC_FETCH_AND_ADD : (enum ibv_wr_opcode)-1;
	if ((int)op < 0 || !size || size > 4096 || !pl || pl > MAXPL || win < pl || !sig ||
	    win % sig || secs <= 0 || (argc == 8 && ops == 0))
		die("bad arguments: VERB write|read|send|fadd, SIZE 1..4096, POSTLIST 1..64, "
		    "WINDOW >= POSTLIST and a multiple of SIGNAL, SECONDS > 0, OPS >= 1");
	struct ibv_cq *cq;
	struct ibv_mr *mr;
	struct ibv_qp *qp = setup(&cq, &mr, win);
	struct ibv_sge sge[MAXPL];
	struct ibv_send_wr wr[MAXPL], *bad;
	for (unsigned i = 0; i < pl; i++) {
		sge[i] = (struct ibv_sge){ (uintptr_t)mr->addr + 64 * i, size, mr->lkey };
		wr[i] = (struct ibv_send_wr){ .wr_id = i, .sg_list = &sge[i], .num_sge = 1,
					      .opcode = op, .next = i + 1 < pl ? &wr[i + 1] : NULL };
		wr[i].wr.rdma.rkey = 1;
		wr[i].wr.atomic.rkey = 1;
	}
	struct ibv_wc wc[16];
	uint64_t posted = 0, done = 0;
	double t0 = now_s(), t = t0;
	while (t - t0 < secs && (!ops || done < ops)) {
		for (int k = 0; k < 1024 && (!ops || done < ops); k++) {
			while (posted - done + pl <= win) {
				for (unsigned i = 0; i < pl; i++)
					wr[i].send_flags = (posted + i + 1) % sig ? 0 : IBV_SEND_SIGNALED;
				if (ibv_post_send(qp, wr, &bad))
					die("ibv_post_send failed");
				posted += pl;
			}
			int n = ibv_poll_cq(cq, 16, wc);
			if (n < 0 || (n > 0 && wc[n - 1].status != IBV_WC_SUCCESS))
				die("ibv_poll_cq failed");
			done += (uint64_t)n * sig;
		}
		t = now_s();
	}
	printf("Mops %.4f ops %llu secs %.3f\n", (double)done / (t - t0) / 1e6,
	       (unsigned long long)done, t - t0);
	return 0;
}
