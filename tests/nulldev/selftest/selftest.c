/* tests/nulldev/selftest/selftest.c: the null device's own semantics in
 * loopback (two QPs of one process), run under LD_PRELOAD by
 * tests/bats/nulldev_device.bats:
 *
 *   nulldev-selftest CASE    CASE one of the names in cases[] below
 *
 * Each case prints what it checked and exits 0, or names the first
 * mismatch and exits 1 (2: bad usage or a setup verb failed). */
#include <infiniband/verbs.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct lb {
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_cq *cq[2];
	struct ibv_qp *qp[2];
	struct ibv_mr *mr[2];
	char buf[2][4096];
};

#define FAIL(...) do { fprintf(stderr, "FAIL: " __VA_ARGS__); fputc('\n', stderr); exit(1); } while (0)
#define NEED(x) do { if (!(x)) { fprintf(stderr, "setup: %s failed\n", #x); exit(2); } } while (0)

static void connect_qp(struct ibv_qp *qp, uint32_t dest)
{
	struct ibv_qp_attr a = { .qp_state = IBV_QPS_INIT, .port_num = 1,
		.qp_access_flags = IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ |
				   IBV_ACCESS_REMOTE_ATOMIC };
	NEED(!ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_PORT | IBV_QP_ACCESS_FLAGS |
			    IBV_QP_PKEY_INDEX));
	a.qp_state = IBV_QPS_RTR;
	a.dest_qp_num = dest;
	a.path_mtu = IBV_MTU_1024;
	NEED(!ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_DEST_QPN | IBV_QP_PATH_MTU));
	a.qp_state = IBV_QPS_RTS;
	NEED(!ibv_modify_qp(qp, &a, IBV_QP_STATE));
}

static void setup(struct lb *l, enum ibv_qp_type type, unsigned access)
{
	struct ibv_device **d = ibv_get_device_list(NULL);
	NEED(d && d[0]);
	NEED((l->ctx = ibv_open_device(d[0])));
	ibv_free_device_list(d);
	NEED((l->pd = ibv_alloc_pd(l->ctx)));
	for (int i = 0; i < 2; i++) {
		NEED((l->mr[i] = ibv_reg_mr(l->pd, l->buf[i], sizeof(l->buf[i]),
					    IBV_ACCESS_LOCAL_WRITE | access)));
		NEED((l->cq[i] = ibv_create_cq(l->ctx, 64, NULL, NULL, 0)));
		struct ibv_qp_init_attr ia = { .send_cq = l->cq[i], .recv_cq = l->cq[i],
			.qp_type = type, .cap = { .max_send_wr = 32, .max_recv_wr = 32,
			.max_send_sge = 2, .max_recv_sge = 1, .max_inline_data = 64 } };
		NEED((l->qp[i] = ibv_create_qp(l->pd, &ia)));
	}
	connect_qp(l->qp[0], l->qp[1]->qp_num);
	connect_qp(l->qp[1], l->qp[0]->qp_num);
}

static int post(struct lb *l, enum ibv_wr_opcode op, uint64_t laddr, uint32_t len,
		uint64_t raddr, unsigned flags)
{
	struct ibv_sge s = { laddr, len, l->mr[0]->lkey };
	struct ibv_send_wr wr = { .wr_id = 7, .sg_list = &s, .num_sge = 1, .opcode = op,
				  .send_flags = flags }, *bad;
	wr.wr.rdma.remote_addr = raddr;
	wr.wr.rdma.rkey = l->mr[1]->rkey;
	if (op == IBV_WR_ATOMIC_FETCH_AND_ADD || op == IBV_WR_ATOMIC_CMP_AND_SWP) {
		wr.wr.atomic.remote_addr = raddr;
		wr.wr.atomic.rkey = l->mr[1]->rkey;
		wr.wr.atomic.compare_add = op == IBV_WR_ATOMIC_FETCH_AND_ADD ? 5 : 42;
		wr.wr.atomic.swap = 99;
	}
	if (l->qp[0]->qp_type == IBV_QPT_UD) {
		struct ibv_ah_attr aa = { .port_num = 1 };
		wr.wr.ud.ah = ibv_create_ah(l->pd, &aa);
		wr.wr.ud.remote_qpn = l->qp[1]->qp_num;
		wr.wr.ud.remote_qkey = 0x11111111;
	}
	return ibv_post_send(l->qp[0], &wr, &bad);
}

static struct ibv_wc poll1(struct ibv_cq *cq, int want)
{
	struct ibv_wc wc[8] = { 0 };
	int n = ibv_poll_cq(cq, 8, wc);
	if (n != want)
		FAIL("ibv_poll_cq returned %d CQEs, expected %d", n, want);
	return wc[0];
}

static uint64_t at(struct lb *l, int side, unsigned off)
{
	return (uintptr_t)l->buf[side] + off;
}

static void case_write(struct lb *l)
{
	memcpy(l->buf[0], "nulldev-write", 14);
	if (post(l, IBV_WR_RDMA_WRITE, at(l, 0, 0), 14, at(l, 1, 100), IBV_SEND_SIGNALED))
		FAIL("post WRITE");
	struct ibv_wc wc = poll1(l->cq[0], 1);
	if (wc.status || wc.opcode != IBV_WC_RDMA_WRITE || wc.wr_id != 7)
		FAIL("WRITE CQE status %d opcode %d wr_id %llu", wc.status, wc.opcode,
		     (unsigned long long)wc.wr_id);
	if (memcmp(l->buf[1] + 100, "nulldev-write", 14))
		FAIL("WRITE did not land at the remote address");
	puts("write: data copied to the peer MR at remote_addr, one CQE");
}

static void case_read(struct lb *l)
{
	memcpy(l->buf[1] + 200, "from-the-peer", 14);
	if (post(l, IBV_WR_RDMA_READ, at(l, 0, 8), 14, at(l, 1, 200), IBV_SEND_SIGNALED))
		FAIL("post READ");
	struct ibv_wc wc = poll1(l->cq[0], 1);
	if (wc.status || wc.opcode != IBV_WC_RDMA_READ || wc.byte_len != 14)
		FAIL("READ CQE status %d opcode %d byte_len %u", wc.status, wc.opcode, wc.byte_len);
	if (memcmp(l->buf[0] + 8, "from-the-peer", 14))
		FAIL("READ did not bring the peer's bytes");
	puts("read: the peer's bytes copied into the local SGE, byte_len 14");
}

static void case_atomics(struct lb *l)
{
	uint64_t *r = (uint64_t *)(void *)(l->buf[1] + 64), *o = (uint64_t *)(void *)l->buf[0];
	*r = 42;
	if (post(l, IBV_WR_ATOMIC_FETCH_AND_ADD, at(l, 0, 0), 8, at(l, 1, 64), IBV_SEND_SIGNALED))
		FAIL("post FAA");
	poll1(l->cq[0], 1);
	if (*o != 42 || *r != 47)
		FAIL("fetch-and-add: original %llu (want 42), word %llu (want 47)",
		     (unsigned long long)*o, (unsigned long long)*r);
	*r = 42;
	if (post(l, IBV_WR_ATOMIC_CMP_AND_SWP, at(l, 0, 0), 8, at(l, 1, 64), IBV_SEND_SIGNALED))
		FAIL("post CAS");
	poll1(l->cq[0], 1);
	if (*o != 42 || *r != 99)
		FAIL("compare-and-swap: original %llu, word %llu (want 42, 99)",
		     (unsigned long long)*o, (unsigned long long)*r);
	puts("atomics: fetch-and-add 42+5 -> 47, compare-and-swap 42 -> 99, originals returned");
}

static void recv1(struct lb *l, unsigned off, unsigned len)
{
	struct ibv_sge s = { at(l, 1, off), len, l->mr[1]->lkey };
	struct ibv_recv_wr wr = { .wr_id = 9, .sg_list = &s, .num_sge = 1 }, *bad;
	if (ibv_post_recv(l->qp[1], &wr, &bad))
		FAIL("post RECV");
}

static void case_send(struct lb *l)
{
	memcpy(l->buf[0], "hello-recv", 11);
	if (post(l, IBV_WR_SEND, at(l, 0, 0), 11, 0, IBV_SEND_SIGNALED))
		FAIL("post SEND");
	poll1(l->cq[0], 1);
	poll1(l->cq[1], 0);         /* no RECV posted: the message waits */
	recv1(l, 300, 64);
	struct ibv_wc wc = poll1(l->cq[1], 1);
	if (wc.status || wc.opcode != IBV_WC_RECV || wc.byte_len != 11 || wc.wr_id != 9)
		FAIL("RECV CQE status %d opcode %d byte_len %u", wc.status, wc.opcode, wc.byte_len);
	if (memcmp(l->buf[1] + 300, "hello-recv", 11))
		FAIL("SEND payload not in the RECV buffer");
	puts("send: waits for a RECV, then lands in it, byte_len 11");
}

static void case_ud(struct lb *l)
{
	memcpy(l->buf[0], "ud-msg", 7);
	recv1(l, 400, 40 + 64);
	if (post(l, IBV_WR_SEND, at(l, 0, 0), 7, 0, IBV_SEND_SIGNALED))
		FAIL("post UD SEND");
	poll1(l->cq[0], 1);
	struct ibv_wc wc = poll1(l->cq[1], 1);
	if (wc.byte_len != 40 + 7 || !(wc.wc_flags & IBV_WC_GRH) || wc.src_qp != l->qp[0]->qp_num)
		FAIL("UD RECV byte_len %u flags 0x%x src_qp %u", wc.byte_len, wc.wc_flags, wc.src_qp);
	if (memcmp(l->buf[1] + 440, "ud-msg", 7))
		FAIL("UD payload not after the 40-byte GRH");
	puts("ud: payload after the 40-byte GRH, byte_len 47, src_qp the sender");
}

static void case_unsignaled(struct lb *l)
{
	for (int i = 0; i < 20; i++)
		if (post(l, IBV_WR_RDMA_WRITE, at(l, 0, 0), 8, at(l, 1, 0), i % 4 == 3 ? IBV_SEND_SIGNALED : 0))
			FAIL("post %d", i);
	struct ibv_wc wc[8];
	int n = ibv_poll_cq(l->cq[0], 3, wc);
	int m = ibv_poll_cq(l->cq[0], 8, wc);
	if (n != 3 || m != 2)
		FAIL("20 WRITEs, 5 signaled: polls of 3 then 8 returned %d, %d (want 3, 2)", n, m);
	puts("unsignaled: 5 CQEs for 20 WRs (every 4th signaled), a poll returns at most N");
}

static void case_access(struct lb *l)
{
	/* the peer MR grants no remote access: a WRITE completes in error */
	if (post(l, IBV_WR_RDMA_WRITE, at(l, 0, 0), 8, at(l, 1, 0), 0))
		FAIL("post WRITE");
	struct ibv_wc wc = poll1(l->cq[0], 1);
	if (wc.status != IBV_WC_REM_ACCESS_ERR)
		FAIL("unsignaled WRITE without remote access: status %d, want %d", wc.status,
		     IBV_WC_REM_ACCESS_ERR);
	if (post(l, IBV_WR_RDMA_WRITE, at(l, 0, 0), 8, at(l, 1, 0), 0))
		FAIL("post after the error");
	wc = poll1(l->cq[0], 1);
	if (wc.status != IBV_WC_WR_FLUSH_ERR)
		FAIL("WR after the error: status %d, want flushed", wc.status);
	puts("access: REM_ACCESS_ERR even unsignaled, the QP in Error flushes the next WR");
}

static void case_sqfull(struct lb *l)
{
	int i, rc = 0;
	for (i = 0; i < 40 && !rc; i++)
		rc = post(l, IBV_WR_RDMA_WRITE, at(l, 0, 0), 8, at(l, 1, 0), 0);
	if (rc != 12 || i != 33)
		FAIL("unsignaled WRITEs into a 32-deep SQ: post %d returned %d (want 33, ENOMEM)", i, rc);
	puts("sqfull: the 33rd unsignaled WR on a 32-deep SQ fails with ENOMEM");
}

int main(int argc, char **argv)
{
	static const struct { const char *name; void (*fn)(struct lb *); enum ibv_qp_type t;
			      unsigned access; } cases[] = {
		{ "write", case_write, IBV_QPT_RC, IBV_ACCESS_REMOTE_WRITE },
		{ "read", case_read, IBV_QPT_RC, IBV_ACCESS_REMOTE_READ },
		{ "atomics", case_atomics, IBV_QPT_RC, IBV_ACCESS_REMOTE_ATOMIC },
		{ "send", case_send, IBV_QPT_RC, 0 },
		{ "ud", case_ud, IBV_QPT_UD, 0 },
		{ "unsignaled", case_unsignaled, IBV_QPT_RC, IBV_ACCESS_REMOTE_WRITE },
		{ "access", case_access, IBV_QPT_RC, 0 },
		{ "sqfull", case_sqfull, IBV_QPT_RC, IBV_ACCESS_REMOTE_WRITE },
	};
	static struct lb l;
	for (size_t i = 0; argc == 2 && i < sizeof(cases) / sizeof(cases[0]); i++)
		if (!strcmp(argv[1], cases[i].name)) {
			setup(&l, cases[i].t, cases[i].access);
			cases[i].fn(&l);
			return 0;
		}
	fprintf(stderr, "usage: nulldev-selftest write|read|atomics|send|ud|unsignaled|access|sqfull\n");
	return 2;
}
