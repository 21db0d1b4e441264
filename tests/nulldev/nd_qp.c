/* tests/nulldev/nd_qp.c: the null device's QPs (create, modify with the
 * state rules of IB spec 10.3.1, query, destroy), their receive inboxes
 * (POSIX shm "/rb_nulldev.<uid>.<qpn>", so a SEND from another process
 * reaches them) and the statistics file written at exit. */
#include "nd.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

struct nd_qp *_Atomic nd_qps[ND_MAX_QPS];
static pthread_mutex_t qp_lock = PTHREAD_MUTEX_INITIALIZER;
static struct nd_count nd_total;
static struct nd_cq *nd_cqs[ND_MAX_QPS];

static uint32_t qpn_prefix(void)
{
	return ((uint32_t)getpid() & 0xfff) << 12;
}

struct nd_qp *nd_qp_by_num(uint32_t qpn)
{
	if ((qpn & ~0xfffU) != qpn_prefix())
		return NULL;
	struct nd_qp *q = atomic_load(&nd_qps[qpn & 0xfff]);
	return q && q->qp.qp_num == qpn ? q : NULL;
}

static void box_name(char *buf, size_t len, uint32_t qpn)
{
	snprintf(buf, len, "/rb_nulldev.%u.%u", (unsigned)getuid(), qpn);
}

/* The inbox of QP qpn: created (mine) or mapped (a peer's); NULL if the
 * peer has none (then its SENDs count as remote_ops, undelivered). */
struct nd_inbox *nd_inbox_open(uint32_t qpn, bool create)
{
	char name[64];
	box_name(name, sizeof(name), qpn);
	int fd = shm_open(name, create ? O_RDWR | O_CREAT | O_TRUNC : O_RDWR, 0600);
	if (fd < 0)
		return NULL;
	if (create && ftruncate(fd, sizeof(struct nd_inbox))) {
		close(fd);
		shm_unlink(name);
		return NULL;
	}
	void *p = mmap(NULL, sizeof(struct nd_inbox), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	close(fd);
	return p == MAP_FAILED ? NULL : p;
}

void nd_inbox_close(struct nd_inbox *b, uint32_t qpn, bool owner)
{
	char name[64];
	if (!b)
		return;
	munmap(b, sizeof(*b));
	if (owner) {
		box_name(name, sizeof(name), qpn);
		shm_unlink(name);
	}
}

static void mrtab_name(char *buf, size_t len, int pid)
{
	snprintf(buf, len, "/rb_nulldev.%u.mr.%d", (unsigned)getuid(), pid);
}

struct nd_mrtab *nd_mrtab_open(int pid, bool create)
{
	char name[64];
	mrtab_name(name, sizeof(name), pid);
	int fd = shm_open(name, create ? O_RDWR | O_CREAT | O_TRUNC : O_RDONLY, 0600);
	if (fd < 0)
		return NULL;
	if (create && ftruncate(fd, sizeof(struct nd_mrtab))) {
		close(fd);
		shm_unlink(name);
		return NULL;
	}
	void *p = mmap(NULL, sizeof(struct nd_mrtab), create ? PROT_READ | PROT_WRITE : PROT_READ,
		       MAP_SHARED, fd, 0);
	close(fd);
	return p == MAP_FAILED ? NULL : p;
}

void nd_mrtab_close(struct nd_mrtab *t, int pid, bool owner)
{
	char name[64];
	if (t)
		munmap(t, sizeof(*t));
	if (owner) {
		mrtab_name(name, sizeof(name), pid);
		shm_unlink(name);
	}
}

void nd_count_fold(const struct nd_count *c)
{
	const uint64_t *s = (const uint64_t *)c;
	uint64_t *t = (uint64_t *)&nd_total;
	pthread_mutex_lock(&qp_lock);
	for (size_t i = 0; i < sizeof(*c) / sizeof(uint64_t); i++) {
		bool is_max = &s[i] == &c->max_wrs_per_call || &s[i] == &c->max_outstanding;
		t[i] = is_max ? (s[i] > t[i] ? s[i] : t[i]) : t[i] + s[i];
	}
	pthread_mutex_unlock(&qp_lock);
}

void nd_cq_register(struct nd_cq *cq, bool add)
{
	pthread_mutex_lock(&qp_lock);
	for (int i = 0; i < ND_MAX_QPS; i++)
		if (nd_cqs[i] == (add ? NULL : cq)) {
			nd_cqs[i] = add ? cq : NULL;
			break;
		}
	pthread_mutex_unlock(&qp_lock);
}

static int cap_check(struct ibv_pd *pd, const struct ibv_qp_init_attr *a)
{
	struct nd_devcfg *d = &nd_devs[ND_CTX(pd->context)->dev];
	const struct ibv_qp_cap *c = &a->cap;
	const char *what = NULL;
	uint32_t v = 0, lim = 0;
	if (c->max_send_wr > (uint32_t)d->attr.max_qp_wr)
		what = "max_send_wr", v = c->max_send_wr, lim = (uint32_t)d->attr.max_qp_wr;
	else if (c->max_recv_wr > (uint32_t)d->attr.max_qp_wr)
		what = "max_recv_wr", v = c->max_recv_wr, lim = (uint32_t)d->attr.max_qp_wr;
	else if (c->max_send_sge > (uint32_t)d->attr.max_sge)
		what = "max_send_sge", v = c->max_send_sge, lim = (uint32_t)d->attr.max_sge;
	else if (c->max_recv_sge > (uint32_t)d->attr.max_sge)
		what = "max_recv_sge", v = c->max_recv_sge, lim = (uint32_t)d->attr.max_sge;
	else if (c->max_inline_data > d->max_inline)
		what = "max_inline_data", v = c->max_inline_data, lim = d->max_inline;
	else if (!a->send_cq || !a->recv_cq)
		what = "send_cq/recv_cq (NULL)";
	else if (a->srq)
		what = "srq (not modelled)";
	if (!what && (a->send_cq->context != pd->context || a->recv_cq->context != pd->context)) {
		/* a CQ is an object of its context (a provider finds it by its
		 * handle in the context's table, the kernel answers EINVAL) */
		nd_log("ibv_create_qp: its %s CQ is of another device context than its PD",
		       a->send_cq->context != pd->context ? "send" : "receive");
		errno = EINVAL;
		return -1;
	}
	if (!what)
		return 0;
	nd_log("ibv_create_qp: %s %u above the device's %u", what, v, lim);
	errno = EINVAL;
	return -1;
}

static int qp_slot(struct nd_qp *q)
{
	pthread_mutex_lock(&qp_lock);
	for (int i = 1; i < ND_MAX_QPS; i++)
		if (!atomic_load(&nd_qps[i])) {
			q->qp.qp_num = qpn_prefix() | (uint32_t)i;
			atomic_store(&nd_qps[i], q);
			pthread_mutex_unlock(&qp_lock);
			return 0;
		}
	pthread_mutex_unlock(&qp_lock);
	nd_log("ibv_create_qp: %d QPs in this process, the null device's limit", ND_MAX_QPS - 1);
	errno = ENOMEM;
	return -1;
}

struct ibv_qp *ibv_create_qp(struct ibv_pd *pd, struct ibv_qp_init_attr *a)
{
	if (cap_check(pd, a))
		return NULL;
	struct nd_qp *q = calloc(1, sizeof(*q));
	uint32_t cap = 1;
	while (cap < a->cap.max_recv_wr)
		cap <<= 1;
	if (!q || !(q->rq = calloc(cap, sizeof(*q->rq)))) {
		free(q);
		errno = ENOMEM;
		return NULL;
	}
	q->rq_mask = cap - 1;
	q->qp.context = pd->context;
	q->qp.qp_context = a->qp_context;
	q->qp.pd = pd;
	q->qp.send_cq = a->send_cq;
	q->qp.recv_cq = a->recv_cq;
	q->qp.qp_type = a->qp_type;
	q->qp.state = IBV_QPS_RESET;
	q->qp.events_completed = 0;
	pthread_mutex_init(&q->qp.mutex, NULL);
	pthread_cond_init(&q->qp.cond, NULL);
	q->attr.qp_state = IBV_QPS_RESET;
	q->cap = a->cap;
	q->sig_all = a->sq_sig_all;
	q->scq = (struct nd_cq *)a->send_cq;
	q->rcq = (struct nd_cq *)a->recv_cq;
	pthread_spin_init(&q->rlock, PTHREAD_PROCESS_PRIVATE);
	if (qp_slot(q)) {
		free(q->rq);
		free(q);
		return NULL;
	}
	q->inbox = nd_inbox_open(q->qp.qp_num, true);
	if (q->inbox)
		q->inbox->pid = getpid();
	else
		nd_log("QP %u: no shm inbox (%s); SENDs to it are not delivered",
		       q->qp.qp_num, strerror(errno));
	int k = atomic_load(&q->rcq->nrqps);
	if (k < ND_CQ_RQPS) {
		q->rcq->rqps[k] = q;
		atomic_store(&q->rcq->nrqps, k + 1);
	}
	return &q->qp;
}

/* IB spec 10.3.1: RESET->INIT->RTR->RTS, RTS->RTS, SQD/SQE ignored,
 * any state -> ERR or RESET. */
static bool transition_ok(enum ibv_qp_state from, enum ibv_qp_state to)
{
	if (to == IBV_QPS_RESET || to == IBV_QPS_ERR)
		return true;
	return (from == IBV_QPS_RESET && to == IBV_QPS_INIT) ||
	       (from == IBV_QPS_INIT && (to == IBV_QPS_INIT || to == IBV_QPS_RTR)) ||
	       (from == IBV_QPS_RTR && to == IBV_QPS_RTS) ||
	       (from == IBV_QPS_RTS && to == IBV_QPS_RTS);
}

static void attr_merge(struct ibv_qp_attr *s, const struct ibv_qp_attr *a, int m)
{
#define TAKE(mask, f) do { if (m & (mask)) s->f = a->f; } while (0)
	TAKE(IBV_QP_STATE, qp_state);
	TAKE(IBV_QP_PATH_MTU, path_mtu);
	TAKE(IBV_QP_DEST_QPN, dest_qp_num);
	TAKE(IBV_QP_RQ_PSN, rq_psn);
	TAKE(IBV_QP_SQ_PSN, sq_psn);
	TAKE(IBV_QP_MAX_QP_RD_ATOMIC, max_rd_atomic);
	TAKE(IBV_QP_MAX_DEST_RD_ATOMIC, max_dest_rd_atomic);
	TAKE(IBV_QP_QKEY, qkey);
	TAKE(IBV_QP_AV, ah_attr);
	TAKE(IBV_QP_TIMEOUT, timeout);
	TAKE(IBV_QP_RETRY_CNT, retry_cnt);
	TAKE(IBV_QP_RNR_RETRY, rnr_retry);
	TAKE(IBV_QP_MIN_RNR_TIMER, min_rnr_timer);
	TAKE(IBV_QP_PORT, port_num);
	TAKE(IBV_QP_PKEY_INDEX, pkey_index);
	TAKE(IBV_QP_ACCESS_FLAGS, qp_access_flags);
#undef TAKE
}

static void peer_link(struct nd_qp *q)
{
	if (q->qp.qp_type == IBV_QPT_UD || q->peer_box)
		return;
	q->peer = nd_qp_by_num(q->attr.dest_qp_num);
	if (q->peer) {
		q->peer_box = q->peer->inbox;
		return;
	}
	q->peer_box = nd_inbox_open(q->attr.dest_qp_num, false);
	q->peer_shm = q->peer_box != NULL;
	q->remote_copy = nd_devs[ND_CTX(q->qp.context)->dev].remote_copy;
	if (q->peer_box && q->remote_copy) {
		q->peer_pid = q->peer_box->pid;
		q->peer_mrs = nd_mrtab_open(q->peer_pid, false);
	}
}

int ibv_modify_qp(struct ibv_qp *qp, struct ibv_qp_attr *attr, int attr_mask)
{
	struct nd_qp *q = (struct nd_qp *)qp;
	struct nd_devcfg *d = &nd_devs[ND_CTX(qp->context)->dev];
	enum ibv_qp_state to = attr_mask & IBV_QP_STATE ? attr->qp_state : q->attr.qp_state;
	if (!transition_ok(q->attr.qp_state, to)) {
		nd_log("ibv_modify_qp(QP %u): %d -> %d is not a valid transition (IB spec 10.3.1)",
		       qp->qp_num, q->attr.qp_state, to);
		return EINVAL;
	}
	if ((attr_mask & IBV_QP_MAX_QP_RD_ATOMIC) &&
	    attr->max_rd_atomic > d->attr.max_qp_init_rd_atom) {
		nd_log("ibv_modify_qp(QP %u): max_rd_atomic %u above the device's %d", qp->qp_num,
		       attr->max_rd_atomic, d->attr.max_qp_init_rd_atom);
		return EINVAL;
	}
	if ((attr_mask & IBV_QP_MAX_DEST_RD_ATOMIC) &&
	    attr->max_dest_rd_atomic > d->attr.max_qp_rd_atom) {
		nd_log("ibv_modify_qp(QP %u): max_dest_rd_atomic %u above the device's %d",
		       qp->qp_num, attr->max_dest_rd_atomic, d->attr.max_qp_rd_atom);
		return EINVAL;
	}
	attr_merge(&q->attr, attr, attr_mask);
	qp->state = to;
	if (to == IBV_QPS_RTR)
		peer_link(q);
	if (to == IBV_QPS_ERR)
		nd_qp_flush_recvs(q);
	if (to == IBV_QPS_RESET) {
		q->rq_head = q->rq_tail = 0;
		q->sq_posted = 0;
		atomic_store(&q->sq_done, 0);
	}
	return 0;
}

int ibv_query_qp(struct ibv_qp *qp, struct ibv_qp_attr *attr, int attr_mask,
		 struct ibv_qp_init_attr *init_attr)
{
	struct nd_qp *q = (struct nd_qp *)qp;
	(void)attr_mask;
	*attr = q->attr;
	attr->cap = q->cap;
	attr->cur_qp_state = q->attr.qp_state;
	if (init_attr) {
		memset(init_attr, 0, sizeof(*init_attr));
		init_attr->qp_context = qp->qp_context;
		init_attr->send_cq = qp->send_cq;
		init_attr->recv_cq = qp->recv_cq;
		init_attr->cap = q->cap;
		init_attr->qp_type = qp->qp_type;
		init_attr->sq_sig_all = q->sig_all;
	}
	return 0;
}

/* CQEs still naming the QP lose the pointer (no SQ to retire). */
static void cq_forget(struct nd_cq *cq, struct nd_qp *q)
{
	pthread_spin_lock(&cq->lock);
	for (uint64_t i = cq->tail; i != cq->head; i++)
		if (cq->ring[i & cq->mask].qp == q)
			cq->ring[i & cq->mask].qp = NULL;
	pthread_spin_unlock(&cq->lock);
	int n = atomic_load(&cq->nrqps);
	for (int i = 0; i < n; i++)
		if (cq->rqps[i] == q) {
			cq->rqps[i] = cq->rqps[n - 1];
			atomic_store(&cq->nrqps, n - 1);
			break;
		}
}

/* One line per QP in the statistics (the first ND_QP_LINES of them). */
#define ND_QP_LINES 256
static char qp_lines[ND_QP_LINES][160];
static int nqp_lines;

static void qp_summary(struct nd_qp *q)
{
	q->n.undrained = q->sq_posted - atomic_load(&q->sq_done);
	pthread_mutex_lock(&qp_lock);
	if (nqp_lines < ND_QP_LINES)
		snprintf(qp_lines[nqp_lines++], sizeof(qp_lines[0]),
			 "qp=%u send_wrs=%llu signaled=%llu max_outstanding=%llu recvs_done=%llu "
			 "undrained=%llu", q->qp.qp_num, (unsigned long long)q->n.send_wrs,
			 (unsigned long long)q->n.signaled, (unsigned long long)q->n.max_outstanding,
			 (unsigned long long)q->n.recvs_done, (unsigned long long)q->n.undrained);
	pthread_mutex_unlock(&qp_lock);
}

int ibv_destroy_qp(struct ibv_qp *qp)
{
	struct nd_qp *q = (struct nd_qp *)qp;
	pthread_mutex_lock(&qp_lock);    /* not while the watcher reaps it */
	cq_forget(q->scq, q);
	if (q->rcq != q->scq)
		cq_forget(q->rcq, q);
	atomic_store(&nd_qps[qp->qp_num & 0xfff], NULL);
	pthread_mutex_unlock(&qp_lock);
	qp_summary(q);
	nd_count_fold(&q->n);
	nd_inbox_close(q->inbox, qp->qp_num, true);
	if (q->peer_shm)
		nd_inbox_close(q->peer_box, q->attr.dest_qp_num, false);
	if (q->peer_mrs)
		nd_mrtab_close(q->peer_mrs, q->peer_pid, false);
	for (int i = 0; i < 8; i++)
		if (q->ud_box[i])
			nd_inbox_close(q->ud_box[i], q->ud_qpn[i], false);
	pthread_spin_destroy(&q->rlock);
	free(q->rq);
	free(q);
	return 0;
}

/* The completion-event watcher: a message from another process cannot
 * write this process's eventfd, so a thread (started with the first
 * completion channel) reaps the inboxes of armed CQs every 200 us; a
 * reaped RECV raises the event (nd_cq_push). */
static void *watch(void *arg)
{
	(void)arg;
	const struct timespec tick = { 0, 200000 };
	for (;;) {
		nanosleep(&tick, NULL);
		pthread_mutex_lock(&qp_lock);
		for (int i = 0; i < ND_MAX_QPS; i++) {
			struct nd_cq *cq = nd_cqs[i];
			if (!cq || !cq->cq.channel || !cq->armed)
				continue;
			int n = atomic_load(&cq->nrqps);
			for (int k = 0; k < n; k++)
				nd_reap(cq->rqps[k]);
		}
		pthread_mutex_unlock(&qp_lock);
	}
	return NULL;
}

void nd_watch_start(void)
{
	static pthread_once_t once = PTHREAD_ONCE_INIT;
	pthread_once(&once, nd_watch_spawn);
}

void nd_watch_spawn(void)
{
	pthread_t t;
	pthread_attr_t a;
	pthread_attr_init(&a);
	pthread_attr_setdetachstate(&a, PTHREAD_CREATE_DETACHED);
	if (pthread_create(&t, &a, watch, NULL))
		nd_log("completion events from other processes: no watcher thread");
	pthread_attr_destroy(&a);
}

static void stats_write(FILE *f)
{
	const struct nd_count *c = &nd_total;
	fprintf(f, "# nulldev pid=%d\n", (int)getpid());
#define P(k) fprintf(f, #k "=%llu\n", (unsigned long long)c->k)
	P(post_send_calls); P(send_wrs); P(max_wrs_per_call); P(max_outstanding);
	P(signaled); P(unsignaled); P(post_recv_calls); P(recv_wrs); P(poll_calls);
	P(empty_polls); P(cqes); P(loopback_ops); P(remote_ops); P(recvs_done);
	P(recv_lost); P(inbox_overflow); P(cq_overrun); P(errors); P(flushed); P(faults);
	P(undrained);
#undef P
	for (int i = 0; i < nqp_lines; i++)
		fprintf(f, "%s\n", qp_lines[i]);
	fprintf(f, "doorbells=%llu\n", (unsigned long long)c->post_send_calls);
	int left = 0;
	for (int i = 0; i < nd_ndevs; i++)
		left += atomic_load(&nd_devs[i].open_ctx);
	fprintf(f, "contexts_opened=%d\ncontexts_left=%d\n", atomic_load(&nd_opened), left);
	fprintf(f, "cqs_on_pd=%d\n", atomic_load(&nd_cqs_on_pd));
}

/* At exit: the live QPs' and CQs' counters folded, the inboxes unlinked,
 * and the totals appended to RB_NULLDEV_STATS ("%p" = the pid). */
__attribute__((destructor)) static void nd_fini(void)
{
	for (int i = 1; i < ND_MAX_QPS; i++) {
		struct nd_qp *q = atomic_load(&nd_qps[i]);
		if (q) {
			/* unlinked, not unmapped: another thread may still poll */
			char name[64];
			qp_summary(q);
			nd_count_fold(&q->n);
			box_name(name, sizeof(name), q->qp.qp_num);
			shm_unlink(name);
		}
	}
	if (nd_my_mrs)
		nd_mrtab_close(NULL, getpid(), true);
	for (int i = 0; i < ND_MAX_QPS; i++)
		if (nd_cqs[i])
			nd_count_fold(&nd_cqs[i]->n);
	const char *path = getenv("RB_NULLDEV_STATS");
	if (!path || !*path || !atomic_load(&nd_opened))
		return;
	char buf[512];
	const char *p = strstr(path, "%p");
	if (p)
		snprintf(buf, sizeof(buf), "%.*s%d%s", (int)(p - path), path, (int)getpid(), p + 2);
	else
		snprintf(buf, sizeof(buf), "%s", path);
	FILE *f = fopen(buf, "a");
	if (!f) {
		nd_log("RB_NULLDEV_STATS=%s: %s", buf, strerror(errno));
		return;
	}
	stats_write(f);
	fclose(f);
}
