/* tests/nulldev/nd_data.c: the null device's data path: ibv_post_send,
 * ibv_post_recv and ibv_poll_cq as the context's ops (verbs.h's inlines
 * call them). A WR executes at post time: signaled -> a success CQE at
 * once, unsignaled -> none (IB spec 10.8.3; an error always completes);
 * with the peer QP in this process WRITE/READ/atomics act on its MR (rkey
 * lookup), SENDs land in the receiver's inbox and consume its RECVs when
 * it polls or posts. Faults per RB_NULLDEV_FAULTS (README.md). No
 * allocation on this path; one spinlock per CQ push/poll and per inbox
 * reap. */
#include "nd.h"

#include <errno.h>
#include <sched.h>
#include <sys/uio.h>
#include <string.h>
#include <time.h>

_Atomic uint64_t nd_wr_seq, nd_post_seq, nd_recv_post_seq, nd_arrival_seq;

void nd_cq_push(struct nd_cq *cq, const struct ibv_wc *wc, struct nd_qp *qp, uint64_t seq)
{
	bool sig = false;
	pthread_spin_lock(&cq->lock);
	if (cq->head - cq->tail >= (uint64_t)cq->cq.cqe) {
		cq->n.cq_overrun++;
	} else {
		struct nd_cq_entry *e = &cq->ring[cq->head & cq->mask];
		e->wc = *wc;
		e->qp = qp;
		e->sq_seq = seq;
		e->ready_at = cq->n.poll_calls + cq->poll_delay;
		__atomic_store_n(&cq->head, cq->head + 1, __ATOMIC_RELEASE);
		sig = cq->armed && cq->cq.channel;
		if (sig)
			cq->armed = false;
	}
	pthread_spin_unlock(&cq->lock);
	if (sig)
		nd_chan_signal(cq);
}

static void recv_cqe(struct nd_qp *q, uint64_t wr_id, enum ibv_wc_status st, const struct nd_arrival *a)
{
	struct ibv_wc wc = { .wr_id = wr_id, .status = st, .qp_num = q->qp.qp_num };
	if (a) {
		bool ud = q->qp.qp_type == IBV_QPT_UD;
		wc.opcode = a->flags & 0x80000000u ? IBV_WC_RECV_RDMA_WITH_IMM : IBV_WC_RECV;
		wc.byte_len = a->len + (ud ? 40 : 0);
		wc.imm_data = a->imm;
		wc.wc_flags = (a->flags & IBV_WC_WITH_IMM) | (ud ? IBV_WC_GRH : 0);
		wc.src_qp = a->src_qp;
	} else {
		wc.opcode = IBV_WC_RECV;
	}
	nd_cq_push(q->rcq, &wc, NULL, 0);
}

/* Match arrivals in q's inbox with its posted RECVs, oldest first. */
void nd_reap(struct nd_qp *q)
{
	struct nd_inbox *b = q->inbox;
	if (!b || atomic_load_explicit(&b->head, memory_order_acquire) ==
		  atomic_load_explicit(&b->tail, memory_order_relaxed))
		return;
	pthread_spin_lock(&q->rlock);
	for (;;) {
		uint64_t t = atomic_load_explicit(&b->tail, memory_order_relaxed);
		struct nd_arrival *a = &b->a[t & (ND_INBOX - 1)];
		if (atomic_load_explicit(&a->seq, memory_order_acquire) != t + 1)
			break;
		if (q->rq_tail == q->rq_head)
			break;
		if (nd_faults_on && nd_fault.lose_recv &&
		    (atomic_fetch_add(&nd_arrival_seq, 1) + 1) % nd_fault.lose_recv == 0) {
			q->n.recv_lost++;
			q->n.faults++;
			atomic_store_explicit(&b->tail, t + 1, memory_order_release);
			continue;
		}
		struct nd_rwr *r = &q->rq[q->rq_tail++ & q->rq_mask];
		uint32_t off = q->qp.qp_type == IBV_QPT_UD ? 40 : 0;
		uint32_t n = a->len < ND_INBOX_DATA ? a->len : ND_INBOX_DATA;
		if (r->sge.length > off && !(a->flags & 0x80000000u)) {
			if (n > r->sge.length - off)
				n = r->sge.length - off;
			memcpy((char *)(uintptr_t)r->sge.addr + off, a->data, n);
		}
		recv_cqe(q, r->wr_id, IBV_WC_SUCCESS, a);
		q->n.recvs_done++;
		atomic_store_explicit(&b->tail, t + 1, memory_order_release);
	}
	pthread_spin_unlock(&q->rlock);
}

/* RECVs posted to a QP entering ERR complete flushed (IB spec 10.3.1). */
void nd_qp_flush_recvs(struct nd_qp *q)
{
	pthread_spin_lock(&q->rlock);
	while (q->rq_tail != q->rq_head) {
		struct nd_rwr *r = &q->rq[q->rq_tail++ & q->rq_mask];
		recv_cqe(q, r->wr_id, IBV_WC_WR_FLUSH_ERR, NULL);
		q->n.flushed++;
	}
	pthread_spin_unlock(&q->rlock);
}

/* True on every Nth send WR of the process (nd_wr_seq counts them when
 * faults are on). */
static bool every(uint64_t n)
{
	return n && (atomic_load(&nd_wr_seq) % n) == 0;
}

/* Put a message in box; a full box is the receiver not keeping up (RNR):
 * wait up to 1 s for room, then drop it and count inbox_overflow. */
static void deliver(struct nd_qp *q, struct nd_inbox *b, const struct ibv_send_wr *wr,
		    uint32_t len, bool rdma_imm)
{
	uint64_t h = atomic_load_explicit(&b->head, memory_order_relaxed);
	if (h - atomic_load_explicit(&b->tail, memory_order_acquire) >= ND_INBOX) {
		struct timespec t0, t;
		clock_gettime(CLOCK_MONOTONIC, &t0);
		do {
			sched_yield();
			clock_gettime(CLOCK_MONOTONIC, &t);
			if (t.tv_sec - t0.tv_sec >= 2) {
				q->n.inbox_overflow++;
				return;
			}
		} while (h - atomic_load_explicit(&b->tail, memory_order_acquire) >= ND_INBOX);
	}
	h = atomic_fetch_add_explicit(&b->head, 1, memory_order_acq_rel);
	struct nd_arrival *a = &b->a[h & (ND_INBOX - 1)];
	a->len = len;
	a->imm = wr->imm_data;
	a->src_qp = q->qp.qp_num;
	if (nd_faults_on && every(nd_fault.foreign_src)) {
		a->src_qp ^= 0x800000u;  /* a QPN this sender does not have */
		q->n.faults++;
	}
	a->flags = (wr->opcode == IBV_WR_SEND_WITH_IMM || rdma_imm ? IBV_WC_WITH_IMM : 0) |
		   (rdma_imm ? 0x80000000u : 0);
	uint32_t off = 0;
	for (int i = 0; !rdma_imm && i < wr->num_sge && off < ND_INBOX_DATA; i++) {
		uint32_t n = wr->sg_list[i].length;
		if (n > ND_INBOX_DATA - off)
			n = ND_INBOX_DATA - off;
		memcpy(a->data + off, (void *)(uintptr_t)wr->sg_list[i].addr, n);
		off += n;
	}
	if (nd_faults_on && off && every(nd_fault.flip)) {
		a->data[0] ^= 0x5a;
		q->n.faults++;
	}
	atomic_store_explicit(&a->seq, h + 1, memory_order_release);
}

static struct nd_inbox *ud_box(struct nd_qp *q, uint32_t qpn)
{
	struct nd_qp *p = nd_qp_by_num(qpn);
	if (p)
		return p->inbox;
	for (int i = 0; i < 8; i++)
		if (q->ud_box[i] && q->ud_qpn[i] == qpn)
			return q->ud_box[i];
	for (int i = 0; i < 8; i++)
		if (!q->ud_box[i]) {   /* first SEND to this QPN: map its inbox once */
			q->ud_box[i] = nd_inbox_open(qpn, false);
			q->ud_qpn[i] = qpn;
			return q->ud_box[i];
		}
	return NULL;
}


/* The atomic's reply: the original value into the WR's SGE (with the
 * atomic_wrong fault, one bit flipped); the CQE's status. */
static enum ibv_wc_status atomic_reply(struct nd_qp *q, const struct ibv_send_wr *wr, uint64_t old)
{
	if (nd_faults_on && every(nd_fault.atomic_wrong)) {
		old ^= 1;
		q->n.faults++;
	}
	if (nd_faults_on && every(nd_fault.atomic_bswap)) {
		old = __builtin_bswap64(old);
		q->n.faults++;
	}
	if (wr->num_sge)
		memcpy((void *)(uintptr_t)wr->sg_list[0].addr, &old, 8);
	return IBV_WC_SUCCESS;
}

/* The remote bytes of a WR, or NULL: the peer's MR by rkey, the access
 * the verb needs (IB spec 10.6.7: a violation is a remote access error). */
static char *remote_at(uint32_t rkey, uint64_t raddr, uint64_t len, unsigned need)
{
	struct nd_mr *m = nd_mr_by_rkey(rkey);
	if (!m || !(m->access & need) || raddr < m->iova || raddr + len > m->iova + m->mr.length)
		return NULL;
	return (char *)m->mr.addr + (raddr - m->iova);
}

static uint64_t sge_len(const struct ibv_send_wr *wr)
{
	uint64_t n = 0;
	for (int i = 0; i < wr->num_sge; i++)
		n += wr->sg_list[i].length;
	return n;
}

static enum ibv_wc_status rdma_local(struct nd_qp *q, const struct ibv_send_wr *wr, uint64_t len)
{
	bool rd = wr->opcode == IBV_WR_RDMA_READ;
	char *r = remote_at(wr->wr.rdma.rkey, wr->wr.rdma.remote_addr, len,
			    rd ? IBV_ACCESS_REMOTE_READ : IBV_ACCESS_REMOTE_WRITE);
	if (!r)
		return IBV_WC_REM_ACCESS_ERR;
	char *p = r;
	for (int i = 0; i < wr->num_sge; i++) {
		char *l = (char *)(uintptr_t)wr->sg_list[i].addr;
		if (rd)
			memcpy(l, p, wr->sg_list[i].length);
		else
			memcpy(p, l, wr->sg_list[i].length);
		p += wr->sg_list[i].length;
	}
	if (nd_faults_on && len && every(nd_fault.flip)) {
		char *dst = rd ? (char *)(uintptr_t)wr->sg_list[0].addr : r;
		dst[0] ^= 0x5a;
		q->n.faults++;
	}
	if (wr->opcode == IBV_WR_RDMA_WRITE_WITH_IMM && q->peer_box)
		deliver(q, q->peer_box, wr, (uint32_t)len, true);
	return IBV_WC_SUCCESS;
}

static enum ibv_wc_status atomic_local(struct nd_qp *q, const struct ibv_send_wr *wr)
{
	uint64_t ra = wr->wr.atomic.remote_addr;
	uint64_t *r = (uint64_t *)(void *)remote_at(wr->wr.atomic.rkey, ra, 8, IBV_ACCESS_REMOTE_ATOMIC);
	if (!r || (ra & 7))
		return IBV_WC_REM_ACCESS_ERR;
	uint64_t old;
	if (nd_faults_on && every(nd_fault.atomic_skip)) {
		old = __atomic_load_n(r, __ATOMIC_SEQ_CST);
		q->n.faults++;
	} else if (wr->opcode == IBV_WR_ATOMIC_FETCH_AND_ADD) {
		old = __atomic_fetch_add(r, wr->wr.atomic.compare_add, __ATOMIC_SEQ_CST);
	} else {
		old = wr->wr.atomic.compare_add;
		__atomic_compare_exchange_n(r, &old, wr->wr.atomic.swap, false, __ATOMIC_SEQ_CST,
					    __ATOMIC_SEQ_CST);
	}
	return atomic_reply(q, wr, old);
}

/* The peer process's address of [raddr, raddr+len) under rkey, or 0. */
static uint64_t remote_proc_at(struct nd_qp *q, uint32_t rkey, uint64_t raddr, uint64_t len,
			       unsigned need)
{
	const struct nd_mrent *e = &q->peer_mrs->e[rkey >> 8 & (ND_MAX_MRS - 1)];
	if (atomic_load_explicit(&e->rkey, memory_order_acquire) != rkey || !(e->access & need) ||
	    raddr < e->iova || raddr + len > e->iova + e->len)
		return 0;
	return e->addr + (raddr - e->iova);
}

/* WRITE/READ to an MR of the peer process: process_vm_writev/readv (one
 * syscall per WR; remote=count in RB_NULLDEV skips the copy). */
static enum ibv_wc_status rdma_remote(struct nd_qp *q, const struct ibv_send_wr *wr, uint64_t len)
{
	bool rd = wr->opcode == IBV_WR_RDMA_READ;
	uint64_t ra = remote_proc_at(q, wr->wr.rdma.rkey, wr->wr.rdma.remote_addr, len,
				     rd ? IBV_ACCESS_REMOTE_READ : IBV_ACCESS_REMOTE_WRITE);
	if (!ra)
		return IBV_WC_REM_ACCESS_ERR;
	struct iovec l[4], r = { (void *)(uintptr_t)ra, len };
	int n = wr->num_sge < 4 ? wr->num_sge : 4;
	for (int i = 0; i < n; i++)
		l[i] = (struct iovec){ (void *)(uintptr_t)wr->sg_list[i].addr, wr->sg_list[i].length };
	if (nd_faults_on && len && every(nd_fault.flip)) {
		/* the flipped byte is the first of the local side: READ after, WRITE a copy */
		uint8_t tmp[ND_INBOX_DATA];
		if (!rd && len <= sizeof(tmp)) {
			uint64_t off = 0;
			for (int i = 0; i < n; i++, off += l[i - 1].iov_len)
				memcpy(tmp + off, l[i].iov_base, l[i].iov_len);
			tmp[0] ^= 0x5a;
			l[0] = (struct iovec){ tmp, len };
			n = 1;
		}
		q->n.faults++;
		ssize_t got = rd ? process_vm_readv(q->peer_pid, l, (unsigned long)n, &r, 1, 0)
				 : process_vm_writev(q->peer_pid, l, (unsigned long)n, &r, 1, 0);
		if (rd && n)
			((uint8_t *)l[0].iov_base)[0] ^= 0x5a;
		return got == (ssize_t)len ? IBV_WC_SUCCESS : IBV_WC_REM_OP_ERR;
	}
	ssize_t got = rd ? process_vm_readv(q->peer_pid, l, (unsigned long)n, &r, 1, 0)
			 : process_vm_writev(q->peer_pid, l, (unsigned long)n, &r, 1, 0);
	return got == (ssize_t)len ? IBV_WC_SUCCESS : IBV_WC_REM_OP_ERR;
}

/* An atomic on the peer process's word: read, compute, write back under a
 * process-wide mutex (atomic against this process's threads, not against
 * another requesting process). */
static enum ibv_wc_status atomic_remote(struct nd_qp *q, const struct ibv_send_wr *wr)
{
	uint64_t ra = remote_proc_at(q, wr->wr.atomic.rkey, wr->wr.atomic.remote_addr, 8,
				     IBV_ACCESS_REMOTE_ATOMIC);
	if (!ra || (wr->wr.atomic.remote_addr & 7))
		return IBV_WC_REM_ACCESS_ERR;
	uint64_t old, v;
	struct iovec l = { &old, 8 }, r = { (void *)(uintptr_t)ra, 8 };
	/* one read-modify-write at a time from this process (its threads) */
	static pthread_mutex_t rmw = PTHREAD_MUTEX_INITIALIZER;
	pthread_mutex_lock(&rmw);
	if (process_vm_readv(q->peer_pid, &l, 1, &r, 1, 0) != 8) {
		pthread_mutex_unlock(&rmw);
		return IBV_WC_REM_OP_ERR;
	}
	if (wr->opcode == IBV_WR_ATOMIC_FETCH_AND_ADD)
		v = old + wr->wr.atomic.compare_add;
	else
		v = old == wr->wr.atomic.compare_add ? wr->wr.atomic.swap : old;
	l.iov_base = &v;
	if (nd_faults_on && every(nd_fault.atomic_skip)) {
		v = old;
		q->n.faults++;
	}
	bool wrote = v == old || process_vm_writev(q->peer_pid, &l, 1, &r, 1, 0) == 8;
	pthread_mutex_unlock(&rmw);
	if (!wrote)
		return IBV_WC_REM_OP_ERR;
	return atomic_reply(q, wr, old);
}

/* remote=count: the peer process's 8-byte words as this process last
 * left them, so atomics keep their semantics without touching the peer
 * (README.md, "remote"). Direct-mapped by (peer pid, rkey, remote
 * address); a word not in the table (first use, or its slot taken by
 * another word since) starts at 0, as a freshly registered, zeroed MR
 * holds. A QP connected to no process (the floor loop) has its own
 * words (pid 0). Fixed size, no allocation; lock-free: the value is
 * updated with an 8-byte atomic, so the threads of this process see one
 * word (a slot being taken over by another word while in use is not
 * atomic). The reply is the original value in host order (atomic_reply),
 * as with remote=copy. */
#define ND_SHADOW_BITS 10
#define ND_SHADOW (1u << ND_SHADOW_BITS)   /* words */
static struct nd_shadow {
	_Atomic uint64_t raddr;
	_Atomic uint64_t key;     /* 1 << 63 | pid << 32 | rkey; 0: never used */
	_Atomic uint64_t val;     /* host byte order */
	uint64_t pad;
} nd_shadow[ND_SHADOW];

static enum ibv_wc_status atomic_count(struct nd_qp *q, const struct ibv_send_wr *wr)
{
	uint64_t ra = wr->wr.atomic.remote_addr;
	int32_t pid = q->peer_box ? q->peer_box->pid : 0;   /* 0: a QP connected to no one */
	uint64_t key = (uint64_t)(uint32_t)pid << 32 | wr->wr.atomic.rkey | 1ull << 63;
	if (ra & 7)
		return IBV_WC_REM_ACCESS_ERR;   /* as the copy and loopback paths: 8-byte aligned */
	struct nd_shadow *e = &nd_shadow[(((ra >> 3) ^ key) * 0x9e3779b97f4a7c15ull) >>
					 (64 - ND_SHADOW_BITS)];
	if (atomic_load_explicit(&e->raddr, memory_order_relaxed) != ra ||
	    atomic_load_explicit(&e->key, memory_order_relaxed) != key) {
		atomic_store_explicit(&e->val, 0, memory_order_relaxed);
		atomic_store_explicit(&e->raddr, ra, memory_order_relaxed);
		atomic_store_explicit(&e->key, key, memory_order_relaxed);
	}
	uint64_t old;
	if (nd_faults_on && every(nd_fault.atomic_skip)) {
		old = atomic_load_explicit(&e->val, memory_order_relaxed);
		q->n.faults++;
	} else if (wr->opcode == IBV_WR_ATOMIC_FETCH_AND_ADD) {
		old = atomic_fetch_add_explicit(&e->val, wr->wr.atomic.compare_add, memory_order_relaxed);
	} else {
		old = wr->wr.atomic.compare_add;
		atomic_compare_exchange_strong_explicit(&e->val, &old, wr->wr.atomic.swap,
							memory_order_relaxed, memory_order_relaxed);
	}
	return atomic_reply(q, wr, old);
}

/* Execute one WR; its completion status. */
static enum ibv_wc_status execute(struct nd_qp *q, const struct ibv_send_wr *wr, uint64_t len)
{
	switch (wr->opcode) {
	case IBV_WR_SEND:
	case IBV_WR_SEND_WITH_IMM: {
		struct nd_inbox *b = q->qp.qp_type == IBV_QPT_UD ? ud_box(q, wr->wr.ud.remote_qpn)
								  : q->peer_box;
		if (b)
			deliver(q, b, wr, (uint32_t)len, false);
		else
			q->n.remote_ops++;
		break;
	}
	case IBV_WR_RDMA_WRITE:
	case IBV_WR_RDMA_WRITE_WITH_IMM:
	case IBV_WR_RDMA_READ:
		if (q->peer) {
			q->n.loopback_ops++;
			return rdma_local(q, wr, len);
		}
		q->n.remote_ops++;
		if (q->peer_mrs) {
			enum ibv_wc_status st = rdma_remote(q, wr, len);
			if (st != IBV_WC_SUCCESS)
				return st;
		}
		if (wr->opcode == IBV_WR_RDMA_WRITE_WITH_IMM && q->peer_box)
			deliver(q, q->peer_box, wr, (uint32_t)len, true);
		break;
	case IBV_WR_ATOMIC_CMP_AND_SWP:
	case IBV_WR_ATOMIC_FETCH_AND_ADD:
		if (q->peer) {
			q->n.loopback_ops++;
			return atomic_local(q, wr);
		}
		q->n.remote_ops++;
		if (q->peer_mrs)
			return atomic_remote(q, wr);
		return atomic_count(q, wr);           /* remote=count: the shadow word */
	default:
		return IBV_WC_LOC_QP_OP_ERR;
	}
	return IBV_WC_SUCCESS;
}

static enum ibv_wc_opcode wc_opcode(enum ibv_wr_opcode op)
{
	switch (op) {
	case IBV_WR_RDMA_WRITE:
	case IBV_WR_RDMA_WRITE_WITH_IMM:
		return IBV_WC_RDMA_WRITE;
	case IBV_WR_RDMA_READ:
		return IBV_WC_RDMA_READ;
	case IBV_WR_ATOMIC_CMP_AND_SWP:
		return IBV_WC_COMP_SWAP;
	case IBV_WR_ATOMIC_FETCH_AND_ADD:
		return IBV_WC_FETCH_ADD;
	default:
		return IBV_WC_SEND;
	}
}

/* Faults that fire per WR before it executes; SUCCESS if none. */
static enum ibv_wc_status wr_fault(struct nd_qp *q)
{
	uint64_t k = atomic_fetch_add(&nd_wr_seq, 1) + 1;
	if (nd_fault.err_wr && k == nd_fault.err_wr) {
		q->n.faults++;
		return nd_fault.err_status;
	}
	if (nd_fault.qp_error && k == nd_fault.qp_error + 1) {
		q->n.faults++;
		q->attr.qp_state = IBV_QPS_ERR;
		q->qp.state = IBV_QPS_ERR;
		nd_qp_flush_recvs(q);
		return IBV_WC_WR_FLUSH_ERR;
	}
	return IBV_WC_SUCCESS;
}

/* IB spec 10.6, memory management (a QP uses only MRs of its own PD): every SGE of
 * a WR not posted inline names an MR of the QP's device context, else the WR
 * completes IBV_WC_LOC_PROT_ERR (a context's keys mean nothing to another
 * context's QPs). Zero-length SGEs are skipped, as mlx5 skips them. The
 * null device keeps no per-PD state (a parent domain is a PD of its own
 * there), so the check is by context, not by PD. */
static enum ibv_wc_status lkeys_check(const struct nd_qp *q, const struct ibv_send_wr *wr)
{
	if (wr->send_flags & IBV_SEND_INLINE)
		return IBV_WC_SUCCESS;
	for (int i = 0; i < wr->num_sge; i++) {
		if (!wr->sg_list[i].length)
			continue;
		const struct nd_mr *m = nd_mr_by_rkey(wr->sg_list[i].lkey);
		if (!m || m->mr.context != q->qp.context)
			return IBV_WC_LOC_PROT_ERR;
	}
	return IBV_WC_SUCCESS;
}

static int check_wr(struct nd_qp *q, const struct ibv_send_wr *wr, uint64_t len)
{
	if (q->sq_posted - atomic_load_explicit(&q->sq_done, memory_order_relaxed) >= q->cap.max_send_wr)
		return ENOMEM;        /* send queue full (mlx5 answers ENOMEM) */
	if ((uint32_t)wr->num_sge > q->cap.max_send_sge)
		return EINVAL;
	if ((wr->send_flags & IBV_SEND_INLINE) && len > q->cap.max_inline_data)
		return EINVAL;
	return 0;
}

static void send_cqe(struct nd_qp *q, const struct ibv_send_wr *wr, enum ibv_wc_status st,
		     uint64_t len)
{
	struct ibv_wc wc = {
		.wr_id = wr->wr_id, .status = st, .opcode = wc_opcode(wr->opcode),
		.qp_num = q->qp.qp_num, .byte_len = (uint32_t)len,
		.vendor_err = st == IBV_WC_SUCCESS ? 0 : 0x88,
	};
	nd_cq_push(q->scq, &wc, q, q->sq_posted);
}

int nd_post_send(struct ibv_qp *ibqp, struct ibv_send_wr *wr, struct ibv_send_wr **bad)
{
	struct nd_qp *q = (struct nd_qp *)ibqp;
	uint64_t nwr = 0;
	int rc = 0;
	q->n.post_send_calls++;
	if (nd_faults_on && nd_fault.post_enomem &&
	    atomic_fetch_add(&nd_post_seq, 1) + 1 == nd_fault.post_enomem) {
		q->n.faults++;
		*bad = wr;
		return ENOMEM;
	}
	if (q->attr.qp_state < IBV_QPS_RTS) {
		*bad = wr;
		return EINVAL;
	}
	for (; wr; wr = wr->next) {
		uint64_t len = wr->opcode >= IBV_WR_ATOMIC_CMP_AND_SWP &&
			       wr->opcode <= IBV_WR_ATOMIC_FETCH_AND_ADD ? 8 : sge_len(wr);
		if ((rc = check_wr(q, wr, len))) {
			*bad = wr;
			break;
		}
		q->sq_posted++;
		nwr++;
		uint64_t out = q->sq_posted - atomic_load_explicit(&q->sq_done, memory_order_relaxed);
		if (out > q->n.max_outstanding)
			q->n.max_outstanding = out;
		enum ibv_wc_status st = IBV_WC_WR_FLUSH_ERR;
		if (q->attr.qp_state == IBV_QPS_RTS) {
			st = nd_faults_on ? wr_fault(q) : IBV_WC_SUCCESS;
			if (st == IBV_WC_SUCCESS)
				st = lkeys_check(q, wr);
			if (st == IBV_WC_SUCCESS)
				st = execute(q, wr, len);
		} else {
			q->n.flushed++;
		}
		bool sig = q->sig_all || (wr->send_flags & IBV_SEND_SIGNALED);
		q->n.signaled += sig;
		q->n.unsignaled += !sig;
		if (st != IBV_WC_SUCCESS && st != IBV_WC_WR_FLUSH_ERR) {
			q->n.errors++;
			q->attr.qp_state = IBV_QPS_ERR;   /* IB spec 10.8.3.2: the QP enters Error */
			q->qp.state = IBV_QPS_ERR;
			nd_qp_flush_recvs(q);
		}
		if (sig || st != IBV_WC_SUCCESS)
			send_cqe(q, wr, st, len);
	}
	q->n.send_wrs += nwr;
	if (nwr > q->n.max_wrs_per_call)
		q->n.max_wrs_per_call = nwr;
	return rc;
}

int nd_post_recv(struct ibv_qp *ibqp, struct ibv_recv_wr *wr, struct ibv_recv_wr **bad)
{
	struct nd_qp *q = (struct nd_qp *)ibqp;
	q->n.post_recv_calls++;
	if (nd_faults_on && nd_fault.recv_enomem &&
	    atomic_fetch_add(&nd_recv_post_seq, 1) + 1 == nd_fault.recv_enomem) {
		q->n.faults++;
		*bad = wr;
		return ENOMEM;
	}
	if (q->attr.qp_state == IBV_QPS_RESET) {
		*bad = wr;
		return EINVAL;
	}
	pthread_spin_lock(&q->rlock);
	for (; wr; wr = wr->next) {
		if (q->rq_head - q->rq_tail >= q->cap.max_recv_wr ||
		    (uint32_t)wr->num_sge > q->cap.max_recv_sge) {
			pthread_spin_unlock(&q->rlock);
			*bad = wr;
			return q->rq_head - q->rq_tail >= q->cap.max_recv_wr ? ENOMEM : EINVAL;
		}
		struct nd_rwr *r = &q->rq[q->rq_head++ & q->rq_mask];
		r->wr_id = wr->wr_id;
		r->sge = wr->num_sge ? wr->sg_list[0] : (struct ibv_sge){ 0 };
		q->n.recv_wrs++;
	}
	pthread_spin_unlock(&q->rlock);
	if (q->attr.qp_state == IBV_QPS_ERR)
		nd_qp_flush_recvs(q);
	else
		nd_reap(q);
	return 0;
}

int nd_poll_cq(struct ibv_cq *ibcq, int n, struct ibv_wc *wc)
{
	struct nd_cq *cq = (struct nd_cq *)ibcq;
	int k = 0;
	cq->n.poll_calls++;
	int nr = atomic_load_explicit(&cq->nrqps, memory_order_relaxed);
	for (int i = 0; i < nr; i++)
		nd_reap(cq->rqps[i]);
	/* an empty CQ is seen without the lock (as a CQE owner bit is read) */
	uint64_t head = __atomic_load_n(&cq->head, __ATOMIC_ACQUIRE);
	if (head == cq->tail || cq->ring[cq->tail & cq->mask].ready_at > cq->n.poll_calls) {
		cq->n.empty_polls++;
		return 0;
	}
	pthread_spin_lock(&cq->lock);
	while (k < n && cq->tail != cq->head &&
	       cq->ring[cq->tail & cq->mask].ready_at <= cq->n.poll_calls) {
		struct nd_cq_entry *e = &cq->ring[cq->tail++ & cq->mask];
		wc[k++] = e->wc;
		if (e->qp)
			atomic_store_explicit(&e->qp->sq_done, e->sq_seq, memory_order_relaxed);
	}
	pthread_spin_unlock(&cq->lock);
	cq->n.cqes += (uint64_t)k;
	cq->n.empty_polls += k == 0;
	return k;
}
