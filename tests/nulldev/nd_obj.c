/* tests/nulldev/nd_obj.c: the null device's objects: PD, MR (rkey table),
 * completion channel, CQ, AH, SRQ (refused). QPs are in nd_qp.c. */
#include "nd.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

struct nd_mr *_Atomic nd_mrs[ND_MAX_MRS];
static pthread_mutex_t mr_lock = PTHREAD_MUTEX_INITIALIZER;
static uint32_t nd_mr_gen;
struct nd_mrtab *nd_my_mrs;

struct ibv_pd *ibv_alloc_pd(struct ibv_context *context)
{
	struct ibv_pd *pd = calloc(1, sizeof(*pd));
	if (!pd) {
		errno = ENOMEM;
		return NULL;
	}
	pd->context = context;
	return pd;
}

int ibv_dealloc_pd(struct ibv_pd *pd)
{
	free(pd);
	return 0;
}

/* td=on: a thread domain is a token of its context; a parent domain is a
 * PD of the same context (the null device keeps no per-PD state: QPs and
 * MRs of a parent domain act as those of the PD it was made over). */
static struct ibv_td *nd_alloc_td(struct ibv_context *context, struct ibv_td_init_attr *attr)
{
	if (attr && attr->comp_mask) {
		errno = EINVAL;
		return NULL;
	}
	struct ibv_td *td = calloc(1, sizeof(*td));
	if (!td) {
		errno = ENOMEM;
		return NULL;
	}
	td->context = context;
	return td;
}

static int nd_dealloc_td(struct ibv_td *td)
{
	free(td);
	return 0;
}

static struct ibv_pd *nd_alloc_parent_domain(struct ibv_context *context,
					     struct ibv_parent_domain_init_attr *attr)
{
	if (!attr || !attr->pd || attr->comp_mask) {
		errno = EINVAL;
		return NULL;
	}
	return ibv_alloc_pd(context);
}

_Atomic int nd_cqs_on_pd;

/* td=on: ibv_create_cq_ex as ibv_create_cq, the attributes checked as a
 * provider would (rdma-core's ibv_create_cq_ex(3)): comp_mask bits
 * FLAGS and PD only, flags SINGLE_THREADED and IGNORE_OVERRUN only, a
 * parent domain of this context with PD (the null device cannot tell a
 * parent domain from a PD). The CQ's extended poll calls are not given:
 * ibv_poll_cq polls it. */
static struct ibv_cq_ex *nd_create_cq_ex(struct ibv_context *context,
					 struct ibv_cq_init_attr_ex *a)
{
	const char *bad = NULL;
	if (a->comp_mask & ~(uint32_t)(IBV_CQ_INIT_ATTR_MASK_FLAGS | IBV_CQ_INIT_ATTR_MASK_PD))
		bad = "comp_mask";
	else if ((a->comp_mask & IBV_CQ_INIT_ATTR_MASK_FLAGS) &&
		 (a->flags & ~(uint32_t)(IBV_CREATE_CQ_ATTR_SINGLE_THREADED |
					 IBV_CREATE_CQ_ATTR_IGNORE_OVERRUN)))
		bad = "flags";
	else if ((a->comp_mask & IBV_CQ_INIT_ATTR_MASK_PD) &&
		 (!a->parent_domain || a->parent_domain->context != context))
		bad = "parent_domain (NULL or of another context)";
	if (bad) {
		nd_log("ibv_create_cq_ex: %s refused", bad);
		errno = EINVAL;
		return NULL;
	}
	struct ibv_cq *cq = ibv_create_cq(context, (int)a->cqe, a->cq_context, a->channel,
					  (int)a->comp_vector);
	if (!cq)
		return NULL;
	if (a->comp_mask & IBV_CQ_INIT_ATTR_MASK_PD)
		atomic_fetch_add(&nd_cqs_on_pd, 1);
	return &((struct nd_cq *)cq)->cqx;
}

void nd_td_ops(struct verbs_context *v)
{
	v->create_cq_ex = nd_create_cq_ex;
	v->alloc_td = nd_alloc_td;
	v->dealloc_td = nd_dealloc_td;
	v->alloc_parent_domain = nd_alloc_parent_domain;
}

/* rkey = slot << 8 | generation byte: a stale rkey of a freed slot misses. */
struct ibv_mr *ibv_reg_mr_iova2(struct ibv_pd *pd, void *addr, size_t length, uint64_t iova,
				unsigned int access)
{
	struct nd_mr *m = calloc(1, sizeof(*m));
	if (!m) {
		errno = ENOMEM;
		return NULL;
	}
	pthread_mutex_lock(&mr_lock);
	int slot = -1;
	for (int i = 1; i < ND_MAX_MRS && slot < 0; i++)
		if (!atomic_load(&nd_mrs[i]))
			slot = i;
	if (slot < 0) {
		pthread_mutex_unlock(&mr_lock);
		free(m);
		nd_log("ibv_reg_mr: %d MRs registered, the null device's limit", ND_MAX_MRS - 1);
		errno = ENOMEM;
		return NULL;
	}
	m->mr.context = pd->context;
	m->mr.pd = pd;
	m->mr.addr = addr;
	m->mr.length = length;
	m->mr.lkey = m->mr.rkey = (uint32_t)slot << 8 | (++nd_mr_gen & 0xff);
	m->iova = iova;
	m->access = access;
	atomic_store(&nd_mrs[slot], m);
	if (!nd_my_mrs)
		nd_my_mrs = nd_mrtab_open(getpid(), true);
	if (nd_my_mrs) {
		struct nd_mrent *e = &nd_my_mrs->e[slot];
		e->access = access;
		e->iova = iova;
		e->addr = (uintptr_t)addr;
		e->len = length;
		atomic_store(&e->rkey, m->mr.rkey);
	}
	pthread_mutex_unlock(&mr_lock);
	return &m->mr;
}

#undef ibv_reg_mr_iova
struct ibv_mr *ibv_reg_mr_iova(struct ibv_pd *pd, void *addr, size_t length, uint64_t iova,
			       int access)
{
	return ibv_reg_mr_iova2(pd, addr, length, iova, (unsigned)access);
}

#undef ibv_reg_mr
struct ibv_mr *ibv_reg_mr(struct ibv_pd *pd, void *addr, size_t length, int access)
{
	return ibv_reg_mr_iova2(pd, addr, length, (uintptr_t)addr, (unsigned)access);
}

int ibv_dereg_mr(struct ibv_mr *mr)
{
	if (nd_my_mrs)
		atomic_store(&nd_my_mrs->e[mr->lkey >> 8 & (ND_MAX_MRS - 1)].rkey, 0);
	atomic_store(&nd_mrs[mr->lkey >> 8 & (ND_MAX_MRS - 1)], NULL);
	free(mr);
	return 0;
}

struct ibv_comp_channel *ibv_create_comp_channel(struct ibv_context *context)
{
	struct nd_chan *c = calloc(1, sizeof(*c));
	if (!c) {
		errno = ENOMEM;
		return NULL;
	}
	c->ch.context = context;
	c->ch.fd = eventfd(0, EFD_CLOEXEC | EFD_SEMAPHORE);
	if (c->ch.fd < 0) {
		free(c);
		return NULL;
	}
	pthread_mutex_init(&c->lock, NULL);
	nd_watch_start();
	return &c->ch;
}

int ibv_destroy_comp_channel(struct ibv_comp_channel *channel)
{
	struct nd_chan *c = (struct nd_chan *)channel;
	close(c->ch.fd);
	pthread_mutex_destroy(&c->lock);
	free(c);
	return 0;
}

/* An armed CQ got a CQE: queue it on its channel, one eventfd count each. */
void nd_chan_signal(struct nd_cq *cq)
{
	struct nd_chan *c = (struct nd_chan *)cq->cq.channel;
	uint64_t one = 1;
	pthread_mutex_lock(&c->lock);
	if (c->head - c->tail < 1024)
		c->fifo[c->head++ % 1024] = &cq->cq;
	pthread_mutex_unlock(&c->lock);
	if (write(c->ch.fd, &one, sizeof(one)) != (ssize_t)sizeof(one))
		nd_log("completion channel: eventfd write failed");
}

/* Blocks (or EAGAIN on an O_NONBLOCK fd) as the real call does. */
int ibv_get_cq_event(struct ibv_comp_channel *channel, struct ibv_cq **cq, void **cq_context)
{
	struct nd_chan *c = (struct nd_chan *)channel;
	uint64_t v;
	if (read(c->ch.fd, &v, sizeof(v)) != (ssize_t)sizeof(v))
		return -1;
	pthread_mutex_lock(&c->lock);
	struct ibv_cq *q = c->tail < c->head ? c->fifo[c->tail++ % 1024] : NULL;
	pthread_mutex_unlock(&c->lock);
	if (!q) {
		errno = EAGAIN;
		return -1;
	}
	*cq = q;
	*cq_context = q->cq_context;
	return 0;
}

void ibv_ack_cq_events(struct ibv_cq *cq, unsigned int nevents)
{
	(void)cq;
	(void)nevents;
}

struct ibv_cq *ibv_create_cq(struct ibv_context *context, int cqe, void *cq_context,
			     struct ibv_comp_channel *channel, int comp_vector)
{
	int max = nd_devs[ND_CTX(context)->dev].attr.max_cqe;
	if (cqe < 1 || cqe > max) {
		nd_log("ibv_create_cq: cqe %d out of 1..%d (the device's max_cqe)", cqe, max);
		errno = EINVAL;
		return NULL;
	}
	struct nd_cq *q = calloc(1, sizeof(*q));
	uint32_t cap = 2;
	while (cap <= (uint32_t)cqe)
		cap <<= 1;
	if (!q || !(q->ring = calloc(cap, sizeof(*q->ring)))) {
		free(q);
		errno = ENOMEM;
		return NULL;
	}
	pthread_spin_init(&q->lock, PTHREAD_PROCESS_PRIVATE);
	q->mask = cap - 1;
	q->poll_delay = nd_devs[ND_CTX(context)->dev].poll_delay;
	q->cq.context = context;
	q->cq.channel = channel;
	q->cq.cq_context = cq_context;
	q->cq.cqe = cqe;
	q->cq.comp_events_completed = 0;
	pthread_mutex_init(&q->cq.mutex, NULL);
	pthread_cond_init(&q->cq.cond, NULL);
	(void)comp_vector;
	nd_cq_register(q, true);
	return &q->cq;
}

int ibv_destroy_cq(struct ibv_cq *cq)
{
	struct nd_cq *q = (struct nd_cq *)cq;
	if (atomic_load(&q->nrqps) > 0) {
		/* QPs still use it: EBUSY, as the kernel answers */
		errno = EBUSY;
		return EBUSY;
	}
	nd_cq_register(q, false);
	nd_count_fold(&q->n);
	pthread_spin_destroy(&q->lock);
	free(q->ring);
	free(q);
	return 0;
}

int nd_req_notify_cq(struct ibv_cq *cq, int solicited_only)
{
	struct nd_cq *q = (struct nd_cq *)cq;
	(void)solicited_only;
	if (!cq->channel)
		return EINVAL;
	pthread_spin_lock(&q->lock);
	q->armed = true;
	pthread_spin_unlock(&q->lock);
	return 0;
}

struct ibv_ah *ibv_create_ah(struct ibv_pd *pd, struct ibv_ah_attr *attr)
{
	struct ibv_ah *ah = calloc(1, sizeof(*ah));
	if (!ah) {
		errno = ENOMEM;
		return NULL;
	}
	(void)attr;
	ah->context = pd->context;
	ah->pd = pd;
	return ah;
}

int ibv_destroy_ah(struct ibv_ah *ah)
{
	free(ah);
	return 0;
}

struct ibv_srq *ibv_create_srq(struct ibv_pd *pd, struct ibv_srq_init_attr *attr)
{
	(void)pd;
	(void)attr;
	nd_log("ibv_create_srq: SRQs are not modelled by the null device");
	errno = EOPNOTSUPP;
	return NULL;
}

int nd_post_srq_recv(struct ibv_srq *srq, struct ibv_recv_wr *wr, struct ibv_recv_wr **bad)
{
	(void)srq;
	*bad = wr;
	return EOPNOTSUPP;
}

struct nd_mr *nd_mr_by_rkey(uint32_t rkey)
{
	struct nd_mr *m = atomic_load_explicit(&nd_mrs[rkey >> 8 & (ND_MAX_MRS - 1)],
					       memory_order_acquire);
	return m && m->mr.rkey == rkey ? m : NULL;
}
