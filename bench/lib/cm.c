/*
 * cm.c - connect the QPs of a point with rdma_cm (-R); protocol in cm.h.
 *
 * Client: one event channel and one id per QP; all addresses are resolved
 * at once (rdma_resolve_addr on every id, rdma_resolve_route on each as its
 * address resolves), the caller creates its QPs for the ids, then every
 * id connects (cm_client_connect) and the client waits for every answer,
 * each handed to the caller.
 *
 * Server: one listener per process (RDMA_PS_TCP for RC, RDMA_PS_UDP for
 * UD) with an event thread. A CONNECT_REQUEST is matched by its private
 * data to a registered point and queued there (or rejected); the point's
 * session thread waits for them (cm_session_wait_requests), creates its
 * QPs for the queued ids and posts receives (the program's part: rdma_bench's
 * is bench/rdma_bench/ctx_cm.c), accepts (cm_session_accept), and waits for
 * ESTABLISHED (cm_session_wait_established), which the event thread counts.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <ifaddrs.h>
#include <netdb.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>

#include "be32.h"
#include "errbuf.h"
#include "cm.h"
#include "guard.h"
#include "log.h"
#include "timing.h"

static void priv_encode(uint8_t *p, uint32_t rkey, uint64_t addr, uint32_t index, uint64_t nonce)
{
	be32_put(p, RB_CM_MAGIC);
	be32_put(p + 4, rkey);
	be32_put(p + 8, (uint32_t)(addr >> 32));
	be32_put(p + 12, (uint32_t)addr);
	be32_put(p + 16, index);
	be32_put(p + 20, (uint32_t)(nonce >> 32));
	be32_put(p + 24, (uint32_t)nonce);
}

/*
 * The control connection became readable while we waited for an rdma_cm
 * event. Peeked, not read: a closed connection or an ERROR ends the wait
 * (-1, err says which); any other message (READY sent by a faster peer) stays
 * queued for its reader and 1 says "stop watching, keep waiting".
 */
static int ctrl_interrupt(const struct rb_cm_ctrl *cc, const char *what, char *err, size_t errlen)
{
	uint8_t hdr[CTRL_HDR_LEN];
	ssize_t n = recv(cc->fd, hdr, sizeof(hdr), MSG_PEEK | MSG_DONTWAIT);

	if (n < 0 && (errno == EAGAIN || errno == EINTR))
		return 1;
	if (n >= 8 && ((hdr[6] << 8) | hdr[7]) != CTRL_ERROR)
		return 1;
	if (n > 0 && n < 8)
		return 1; /* a header in pieces: look again later */
	struct ctrl_msg m;
	int rc = ctrl_recv(cc->fd, cc->rb, &m, 0, 2000, what, err, errlen);
	if (rc == 0)
		return rb_fail(err, errlen, "protocol error: peer sent %s while we waited for %s",
			    ctrl_type_name(m.type), what);
	return -1;
}

/*
 * Is the peer of the control connection gone? A poll for POLLIN|POLLRDHUP of
 * at most wait_ms: an error or hang-up, or a readable socket whose MSG_PEEK
 * read gives 0 bytes (an orderly close), means gone. An ERROR message waiting
 * there (the peer failed and said why before closing) counts too. Returns 1
 * with why filled, 0 while the connection is alive (nothing is consumed
 * then).
 */
static int ctrl_peer_gone(const struct rb_cm_ctrl *cc, int wait_ms, char *why, size_t len)
{
	struct pollfd p = { .fd = cc ? cc->fd : -1, .events = POLLIN | POLLRDHUP };

	if (!cc || cc->fd < 0 || poll(&p, 1, wait_ms) <= 0)
		return 0;
	if (p.revents & POLLERR) {
		int e = 0;
		socklen_t el = sizeof(e);
		if (getsockopt(cc->fd, SOL_SOCKET, SO_ERROR, &e, &el) || !e)
			e = ECONNRESET;
		snprintf(why, len, "its control connection failed: %s", strerror(e));
		return 1;
	}
	if (p.revents & POLLIN) {
		uint8_t hdr[CTRL_HDR_LEN];
		ssize_t n = recv(cc->fd, hdr, sizeof(hdr), MSG_PEEK | MSG_DONTWAIT);
		if (n < 0 && errno != EAGAIN && errno != EINTR) {
			snprintf(why, len, "its control connection failed: %s", strerror(errno));
			return 1;
		}
		if (n == 0) {
			snprintf(why, len, "it closed the control connection");
			return 1;
		}
		if (n >= 8 && ((hdr[6] << 8) | hdr[7]) == CTRL_ERROR) {
			struct ctrl_msg m;
			char e[CTRL_REASON_CAP + 16];
			if (ctrl_recv(cc->fd, cc->rb, &m, 0, 2000, "the client's ERROR", e,
				      sizeof(e)) == -2) {
				snprintf(why, len, "it reported \"%.400s\" and closed the control "
					 "connection", e + 6 /* "peer: " */);
				return 1;
			}
		}
	}
	if (p.revents & (POLLRDHUP | POLLHUP)) {
		snprintf(why, len, "it closed the control connection");
		return 1;
	}
	return 0;
}

/*
 * A step of the server's rdma_cm connect failed and err names the call and
 * its errno text. When the client's control connection is gone, the failure
 * is a consequence of that (the dead client's ids are destroyed, so the
 * kernel rejects ours: rdma_create_qp or rdma_accept fail with EINVAL, or a
 * REJECTED event arrives): put the cause in front of err. Returns -1.
 *
 * The connection is given up to PEER_GONE_GRACE_MS to show the close: when
 * a client is killed, its rdma_cm ids can be torn down (and ours fail)
 * before its control socket is closed; seen on soft-RoCE with 256 QPs, where
 * a zero-timeout check missed most such deaths. A client that is alive and
 * a failure of our own cost that wait once, on the way out.
 */
#define PEER_GONE_GRACE_MS 2000

int cm_accept_failed(const struct rb_cm_ctrl *ctl, char *err, size_t errlen)
{
	char why[512], call[768];

	if (ctrl_peer_gone(ctl, PEER_GONE_GRACE_MS, why, sizeof(why))) {
		snprintf(call, sizeof(call), "%s", err);
		snprintf(err, errlen, "client went away during rdma_cm connect (%s); then %s", why,
			 call);
	}
	return -1;
}

/* Next event within deadline, watching the control connection; 0, or -1
 * with err naming what was awaited. */
static int next_event(struct rdma_event_channel *ch, const struct rb_cm_ctrl *cc,
		      uint64_t deadline, unsigned timeout_ms, const char *what,
		      struct rdma_cm_event **ev, char *err, size_t errlen)
{
	bool watch = cc != NULL;

	for (;;) {
		if (rdma_get_cm_event(ch, ev) == 0)
			return 0;
		if (errno != EAGAIN && errno != EINTR)
			return rb_fail(err, errlen, "rdma_get_cm_event (waiting for %s) failed: %s", what,
				    strerror(errno));
		uint64_t now = timing_now_ns();
		if (now >= deadline)
			return rb_fail(err, errlen, "timed out after %.1f s waiting for %s",
				    (double)timeout_ms / 1000.0, what);
		struct pollfd p[2] = {
			{ .fd = ch->fd, .events = POLLIN },
			{ .fd = watch ? cc->fd : -1, .events = POLLIN },
		};
		(void)poll(p, 2, (int)((deadline - now) / 1000000u) + 1);
		if (p[1].revents) {
			int rc = ctrl_interrupt(cc, what, err, errlen);
			if (rc < 0)
				return -1;
			watch = false;
		}
	}
}

static int set_nonblock(int fd)
{
	int fl = fcntl(fd, F_GETFL);
	return fl < 0 ? -1 : fcntl(fd, F_SETFL, fl | O_NONBLOCK);
}

static const char *ev_name(const struct rdma_cm_event *ev)
{
	return rdma_event_str(ev->event);
}

/* Wait for every id's address, then its route (asked as each address
 * resolves), within timeout_ms while watching the control channel ctl.
 * 0, or -1 with err. */
static int resolve_wait(struct rb_cm_client *cc, const char *host, unsigned timeout_ms,
			const struct rb_cm_ctrl *ctl, char *err, size_t errlen)
{
	uint64_t deadline = timing_now_ns() + (uint64_t)timeout_ms * 1000000u;
	uint32_t addr_ok = 0, route_ok = 0, n = cc->n;

	while (route_ok < n) {
		struct rdma_cm_event *ev;
		char what[96];
		snprintf(what, sizeof(what), "%s (%u of %u QPs resolved)",
			 addr_ok < n ? "RDMA_CM_EVENT_ADDR_RESOLVED" : "RDMA_CM_EVENT_ROUTE_RESOLVED",
			 addr_ok < n ? addr_ok : route_ok, n);
		if (next_event(cc->ch, ctl, deadline, timeout_ms, what, &ev, err, errlen))
			return -1;
		struct rdma_cm_id *id = ev->id;
		enum rdma_cm_event_type type = ev->event;
		int status = ev->status;
		rdma_ack_cm_event(ev);
		if (type == RDMA_CM_EVENT_ADDR_RESOLVED) {
			addr_ok++;
			if (rdma_resolve_route(id, (int)timeout_ms))
				return rb_fail(err, errlen, "rdma_resolve_route(%s) failed: %s", host,
					    strerror(errno));
		} else if (type == RDMA_CM_EVENT_ROUTE_RESOLVED) {
			route_ok++;
		} else {
			return rb_fail(err, errlen, "rdma_cm: %s (status %d) while resolving %s: no RDMA "
				    "path to that address (is it on an RDMA port's netdev?)",
				    rdma_event_str(type), status, host);
		}
	}
	return 0;
}

/* The device and port rdma_cm resolved the server's address to (logged)
 * must be the one this side opened (dev; dev_given: by -d). 0, or -1 with
 * err naming both and the flags that make them agree. */
static int resolved_device_check(struct rb_cm_client *cc, const char *host, uint16_t port,
				 const struct rb_dev *dev, bool dev_given, char *err, size_t errlen)
{
	struct rdma_cm_id *id0 = cc->ids[0];
	cc->verbs = id0->verbs;
	cc->port = id0->port_num;
	const char *name = ibv_get_device_name(id0->verbs->device);
	char gid[64], local[64] = "?";
	struct sockaddr *sa = rdma_get_local_addr(id0);
	if (sa->sa_family == AF_INET)
		inet_ntop(AF_INET, &((struct sockaddr_in *)sa)->sin_addr, local, sizeof(local));
	else if (sa->sa_family == AF_INET6)
		inet_ntop(AF_INET6, &((struct sockaddr_in6 *)sa)->sin6_addr, local, sizeof(local));
	rb_info("rdma_cm resolved %s:%u to device %s port %u, local address %s, GID %s",
		host, port, name, cc->port, local,
		dev_gid_str(id0->route.addr.addr.ibaddr.sgid.raw, gid, sizeof(gid)));
	if (strcmp(name, dev->name) != 0 || cc->port != dev->port)
		return rb_fail(err, errlen,
			    "-R: rdma_cm resolved %s to device %s port %u, but %s %s port %u is in use%s; "
			    "give -d %s -i %u (or drop -R)", host, name, cc->port,
			    dev_given ? "-d selected" : "auto-selection picked", dev->name, dev->port,
			    dev_given ? "" : " (first ACTIVE port)", name, cc->port);
	return 0;
}

int cm_client_prepare(struct rb_cm_client *cc, const char *host, uint16_t port, uint32_t n,
		      uint64_t transport, uint8_t tos, const struct rb_dev *dev, bool dev_given,
		      unsigned timeout_ms, const struct rb_cm_ctrl *ctl, char *err, size_t errlen)
{
	struct addrinfo hints = { .ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM };
	struct addrinfo *res = NULL;
	char portstr[8];
	enum rdma_port_space ps = transport == RB_TR_UD ? RDMA_PS_UDP : RDMA_PS_TCP;
	int rc;

	memset(cc, 0, sizeof(*cc));
	if (dev->link_layer == 1 && dev_ipoib_check("/sys", dev->name, err, errlen))
		return -1;  /* checked before any rdma_cm call waits on a route */
	snprintf(portstr, sizeof(portstr), "%u", port);
	rc = getaddrinfo(host, portstr, &hints, &res);
	if (rc)
		return rb_fail(err, errlen, "-R: cannot resolve %s: %s", host, gai_strerror(rc));
	cc->ch = rdma_create_event_channel();
	if (!cc->ch) {
		freeaddrinfo(res);
		return rb_fail(err, errlen, "rdma_create_event_channel failed: %s (rdma_ucm loaded?)",
			    strerror(errno));
	}
	set_nonblock(cc->ch->fd);
	cc->ids = calloc(n, sizeof(*cc->ids));
	if (!cc->ids) {
		freeaddrinfo(res);
		return rb_fail(err, errlen, "out of memory for %u rdma_cm ids", n);
	}
	cc->n = n;
	for (uint32_t i = 0; i < n; i++) {
		if (rdma_create_id(cc->ch, &cc->ids[i], (void *)(uintptr_t)i, ps)) {
			freeaddrinfo(res);
			return rb_fail(err, errlen, "rdma_create_id(%s) for QP %u failed: %s",
				    ps == RDMA_PS_UDP ? "RDMA_PS_UDP" : "RDMA_PS_TCP", i, strerror(errno));
		}
		/* --tclass: the ToS of the route rdma_cm resolves (before
		 * rdma_resolve_route; RoCE v2: the IP ToS byte of every packet) */
		if (tos && rdma_set_option(cc->ids[i], RDMA_OPTION_ID, RDMA_OPTION_ID_TOS, &tos,
					   sizeof(tos))) {
			freeaddrinfo(res);
			return rb_fail(err, errlen, "rdma_set_option(TOS %u) for QP %u failed: %s", tos,
				    i, strerror(errno));
		}
		if (rdma_resolve_addr(cc->ids[i], NULL, res->ai_addr, (int)timeout_ms)) {
			freeaddrinfo(res);
			return rb_fail(err, errlen, "rdma_resolve_addr(%s) for QP %u failed: %s", host, i,
				    strerror(errno));
		}
	}
	freeaddrinfo(res);
	if (resolve_wait(cc, host, timeout_ms, ctl, err, errlen))
		return -1;
	return resolved_device_check(cc, host, port, dev, dev_given, err, errlen);
}

int cm_client_connect(struct rb_cm_client *cc, const struct rb_cm_conn *p, rb_cm_answered answered,
		      void *arg, const struct rb_cm_ctrl *ctl, char *err, size_t errlen)
{
	const bool ud = p->transport == RB_TR_UD;
	uint64_t deadline = timing_now_ns() + (uint64_t)p->timeout_ms * 1000000u;
	uint8_t priv[RB_CM_PRIV_LEN];
	uint32_t up = 0;

	rb_info("rdma_cm connecting %u %s QP(s) (%s)", cc->n, transport_name(p->transport),
		ud ? "SIDR" : "REQ/REP/RTU");
	for (uint32_t g = 0; g < cc->n; g++) {
		priv_encode(priv, p->rkey, p->addr, g, p->nonce);
		struct rdma_conn_param cp = {
			.private_data = priv,
			.private_data_len = sizeof(priv),
			.responder_resources = (uint8_t)p->rd_resp,
			.initiator_depth = (uint8_t)p->rd_init,
			.flow_control = 1,
			.retry_count = (uint8_t)p->retry_cnt,
			.rnr_retry_count = (uint8_t)p->rnr_retry,
			/* RC: the caller's own QP, not attached to the id */
			.qp_num = p->qpn ? p->qpn[g] : 0,
		};
		if (rdma_connect(cc->ids[g], &cp))
			return rb_fail(err, errlen, "rdma_connect(QP %u) failed: %s", g, strerror(errno));
	}
	while (up < cc->n) {
		struct rdma_cm_event *ev;
		char what[96];
		/* RC without a QP on the id: CONNECT_RESPONSE, then the caller's
		 * RTR/RTS and rdma_establish (the RTU); UD (SIDR): ESTABLISHED */
		enum rdma_cm_event_type want = ud ? RDMA_CM_EVENT_ESTABLISHED :
						    RDMA_CM_EVENT_CONNECT_RESPONSE;
		snprintf(what, sizeof(what), "%s (%u of %u QPs connected)", rdma_event_str(want), up,
			 cc->n);
		if (next_event(cc->ch, ctl, deadline, p->timeout_ms, what, &ev, err, errlen))
			return -1;
		uint32_t g = (uint32_t)(uintptr_t)ev->id->context;
		if (ev->event != want) {
			rb_fail(err, errlen, "rdma_cm: %s (status %d) for QP %u while connecting%s",
			     ev_name(ev), ev->status, g,
			     ev->event == RDMA_CM_EVENT_REJECTED ?
				     ": the server rejected it (no such point: server restarted?)" : "");
			rdma_ack_cm_event(ev);
			return -1;
		}
		int erc = answered(arg, g, ev, err, errlen);
		rdma_ack_cm_event(ev);
		if (erc)
			return -1;
		up++;
	}
	return 0;
}

void cm_client_disconnect(struct rb_cm_client *cc, uint64_t transport)
{
	if (transport == RB_TR_UD)
		return;
	for (uint32_t g = 0; g < cc->n; g++)
		if (cc->ids && cc->ids[g])
			(void)rdma_disconnect(cc->ids[g]); /* RC: the caller's QP is not on the id */
}

void cm_client_destroy(struct rb_cm_client *cc)
{
	if (cc->ids) {
		for (uint32_t g = 0; g < cc->n; g++)
			if (cc->ids[g]) {
				if (cc->ids[g]->qp)
					rdma_destroy_qp(cc->ids[g]);
				rdma_destroy_id(cc->ids[g]);
			}
		free(cc->ids);
	}
	if (cc->ch)
		rdma_destroy_event_channel(cc->ch);
	memset(cc, 0, sizeof(*cc));
}

/* ---- server ------------------------------------------------------------ */

static struct rb_cm_session *find_session(struct rb_cm_listener *l, uint32_t rkey, uint64_t addr,
					  uint64_t nonce)
{
	for (struct rb_cm_session *s = l->sessions; s; s = s->next)
		if (s->rkey == rkey && s->addr == addr && s->nonce == nonce)
			return s;
	return NULL;
}

/* An address of one of this host's interfaces (getifaddrs)? */
static bool addr_is_ours(const struct sockaddr *sa)
{
	struct ifaddrs *ifs, *i;
	bool ours = false;

	if (getifaddrs(&ifs))
		return false;
	for (i = ifs; i && !ours; i = i->ifa_next)
		ours = i->ifa_addr && guard_same_ip(i->ifa_addr, sa);
	freeifaddrs(ifs);
	return ours;
}

/* The connect request comes from the session's control peer (or, for a
 * client on this host over loopback, from one of this host's addresses). */
static bool source_matches(const struct rb_cm_session *s, const struct sockaddr *src)
{
	const struct sockaddr *peer = (const struct sockaddr *)&s->peer;

	if (guard_same_ip(peer, src))
		return true;
	return guard_is_loopback(peer) && addr_is_ours(src);
}

/*
 * Reject the connect request of ev (and destroy its id), with a WARN line
 * (printf-style, then " from ADDR: rejected") while the per-source
 * limiter allows (admit_log_event: ADMIT_LOG_PER_SOURCE lines per source
 * /24 or /64 per ADMIT_LOG_INTERVAL_MS, then one summary line): a peer
 * that sends thousands of requests writes a few lines. The lines hold
 * numbers and our own text only, never the peer's bytes. fmt NULL: no line.
 */
static void cm_reject(struct rb_cm_listener *l, struct rdma_cm_event *ev, const char *fmt, ...)
{
	struct rdma_cm_id *id = ev->id;
	const struct sockaddr *sa = rdma_get_peer_addr(id);
	uint8_t key[ADMIT_KEY_LEN];
	char summary[400], what[300], src[INET6_ADDRSTRLEN + 2] = "?";
	bool has;

	(void)admit_prefix_key(sa, RB_DEFAULT_PREFIX_V4, RB_DEFAULT_PREFIX_V6, key);
	bool line = admit_log_event(&l->log, key, timing_now_ns(), RB_DEFAULT_PREFIX_V4,
				    RB_DEFAULT_PREFIX_V6, summary, sizeof(summary), &has);
	if (has)
		rb_warn("rdma_cm connect requests: %s", summary);
	if (line && fmt) {
		va_list ap;
		va_start(ap, fmt);
		vsnprintf(what, sizeof(what), fmt, ap);
		va_end(ap);
		guard_ip_text(sa, src, sizeof(src));
		rb_warn("rdma_cm: %s from %s: rejected", what, src);
	}
	rdma_reject(id, NULL, 0);
	rdma_ack_cm_event(ev);
	rdma_destroy_id(id);
}

static void on_connect_request(struct rb_cm_listener *l, struct rdma_cm_event *ev)
{
	const uint8_t *p;
	uint8_t len;
	struct rdma_cm_id *id = ev->id;
	struct rb_cm_session *s;

	if (id->ps == RDMA_PS_UDP) {
		p = ev->param.ud.private_data;
		len = ev->param.ud.private_data_len;
	} else {
		p = ev->param.conn.private_data;
		len = ev->param.conn.private_data_len;
	}
	if (!p || len < RB_CM_PRIV_LEN || be32_get(p) != RB_CM_MAGIC) {
		cm_reject(l, ev, "connect request without rdma_bench private data");
		return;
	}
	uint32_t rkey = be32_get(p + 4);
	uint64_t addr = ((uint64_t)be32_get(p + 8) << 32) | be32_get(p + 12);
	uint32_t g = be32_get(p + 16);
	uint64_t nonce = ((uint64_t)be32_get(p + 20) << 32) | be32_get(p + 24);
	pthread_mutex_lock(&l->lock);
	s = find_session(l, rkey, addr, nonce);
	if (s && !source_matches(s, rdma_get_peer_addr(id))) {
		pthread_mutex_unlock(&l->lock);
		cm_reject(l, ev, "connect request for QP %u of a point, not from the address of "
			  "that session's control connection", g);
		return;
	}
	if (!s || g >= s->nqp || s->child[g]) {
		uint32_t nqp = s ? s->nqp : 0;
		pthread_mutex_unlock(&l->lock);
		if (s)
			cm_reject(l, ev, "connect request for a QP already connected or out of range "
				  "(rkey 0x%x addr 0x%llx QP %u of %u)", rkey,
				  (unsigned long long)addr, g, nqp);
		else if (rkey != l->stale_rkey || addr != l->stale_addr) {
			/* Requests still in flight when their session ended (the client died
			 * or gave up): expected, and logged once per point, not per QP. */
			l->stale_rkey = rkey;
			l->stale_addr = addr;
			cm_reject(l, ev, "connect request for a point that is not registered (rkey "
				  "0x%x addr 0x%llx QP %u, with its nonce; so are the rest of that "
				  "point's: its session has ended, or the client sent a stale key or a "
				  "wrong nonce)", rkey, (unsigned long long)addr, g);
		} else
			cm_reject(l, ev, NULL);
		return;
	}
	id->context = s;
	s->child[g] = id;
	s->got++;
	pthread_cond_broadcast(&s->cond);
	pthread_mutex_unlock(&l->lock);
	rdma_ack_cm_event(ev);
}

static void *listener_thread(void *arg)
{
	struct rb_cm_listener *l = arg;

	while (!l->quit) {
		struct rdma_cm_event *ev;
		struct pollfd p = { .fd = l->ch->fd, .events = POLLIN };
		if (poll(&p, 1, 200) <= 0)
			continue;
		while (rdma_get_cm_event(l->ch, &ev) == 0) {
			struct rb_cm_session *s;
			switch (ev->event) {
			case RDMA_CM_EVENT_CONNECT_REQUEST:
				on_connect_request(l, ev);
				continue;
			case RDMA_CM_EVENT_ESTABLISHED:
				s = ev->id->context;
				pthread_mutex_lock(&l->lock);
				if (s) {
					s->established++;
					pthread_cond_broadcast(&s->cond);
				}
				pthread_mutex_unlock(&l->lock);
				break;
			case RDMA_CM_EVENT_REJECTED:
			case RDMA_CM_EVENT_CONNECT_ERROR:
			case RDMA_CM_EVENT_UNREACHABLE:
				s = ev->id->context;
				pthread_mutex_lock(&l->lock);
				if (s && ev->id != l->lid_rc && ev->id != l->lid_ud) {
					s->failed = 1;
					snprintf(s->why, sizeof(s->why), "rdma_cm: %s (status %d)",
						 ev_name(ev), ev->status);
					pthread_cond_broadcast(&s->cond);
				}
				pthread_mutex_unlock(&l->lock);
				break;
			default:
				break; /* DISCONNECTED, TIMEWAIT_EXIT ...: nothing to do */
			}
			rdma_ack_cm_event(ev);
		}
	}
	return NULL;
}

/* The listener's address: --bind's, else the IPv4 address in the
 * device's IPv4-mapped GID; port set, its text in l->addr. -1 with l->why. */
static int listen_addr(struct rb_cm_listener *l, const char *bind_addr, const struct rb_dev *dev,
		       uint16_t port, struct sockaddr_storage *ss)
{
	socklen_t sl;

	memset(ss, 0, sizeof(*ss));
	if (bind_addr && *bind_addr) {
		struct addrinfo hints = { .ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM };
		struct addrinfo *res = NULL;
		if (getaddrinfo(bind_addr, NULL, &hints, &res) || !res) {
			snprintf(l->why, sizeof(l->why), "-R: cannot resolve --bind %s", bind_addr);
			return -1;
		}
		memcpy(ss, res->ai_addr, res->ai_addrlen);
		sl = res->ai_addrlen;
		freeaddrinfo(res);
	} else if (memcmp(dev->gid.raw, "\0\0\0\0\0\0\0\0\0\0\xff\xff", 12) == 0) {
		struct sockaddr_in *sin = (struct sockaddr_in *)ss;
		sin->sin_family = AF_INET;
		memcpy(&sin->sin_addr, dev->gid.raw + 12, 4);
		sl = sizeof(*sin);
	} else {
		snprintf(l->why, sizeof(l->why),
			 "-R: the server's GID is not IPv4-mapped, so rdma_cm has no address to bind "
			 "on %s; start the server with --bind ADDR (an address of that port's netdev)",
			 dev->name);
		return -1;
	}
	if (ss->ss_family == AF_INET)
		((struct sockaddr_in *)ss)->sin_port = htons(port);
	else
		((struct sockaddr_in6 *)ss)->sin6_port = htons(port);
	snprintf(l->addr, sizeof(l->addr), "?");
	getnameinfo((struct sockaddr *)ss, sl, l->addr, sizeof(l->addr), NULL, 0, NI_NUMERICHOST);
	return 0;
}

void cm_listen_start(struct rb_cm_listener *l, const char *bind_addr, const struct rb_dev *dev,
		     uint16_t port)
{
	struct sockaddr_storage ss;

	memset(l, 0, sizeof(*l));
	pthread_mutex_init(&l->lock, NULL);
	if (listen_addr(l, bind_addr, dev, port, &ss))
		return;
	const char *host = l->addr;

	l->ch = rdma_create_event_channel();
	if (!l->ch) {
		snprintf(l->why, sizeof(l->why), "-R: rdma_create_event_channel failed: %s (rdma_ucm "
			 "not loaded?)", strerror(errno));
		return;
	}
	set_nonblock(l->ch->fd);
	if (rdma_create_id(l->ch, &l->lid_rc, NULL, RDMA_PS_TCP) ||
	    rdma_create_id(l->ch, &l->lid_ud, NULL, RDMA_PS_UDP)) {
		snprintf(l->why, sizeof(l->why), "-R: rdma_create_id failed: %s", strerror(errno));
		goto clean;
	}
	if (rdma_bind_addr(l->lid_rc, (struct sockaddr *)&ss) ||
	    rdma_bind_addr(l->lid_ud, (struct sockaddr *)&ss)) {
		snprintf(l->why, sizeof(l->why), "-R: rdma_bind_addr(%s port %u) failed: %s", host,
			 port, strerror(errno));
		goto clean;
	}
	if (!l->lid_rc->verbs) {
		snprintf(l->why, sizeof(l->why), "-R: %s is not an address of an RDMA port; use --bind "
			 "with an address of %s's netdev", host, dev->name);
		goto clean;
	}
	const char *name = ibv_get_device_name(l->lid_rc->verbs->device);
	if (strcmp(name, dev->name) != 0) {
		snprintf(l->why, sizeof(l->why), "-R: %s belongs to device %s, the server uses %s; "
			 "start it with -d %s or --bind an address of %s", host, name, dev->name,
			 name, dev->name);
		goto clean;
	}
	if (rdma_listen(l->lid_rc, 64) || rdma_listen(l->lid_ud, 64)) {
		snprintf(l->why, sizeof(l->why), "-R: rdma_listen(%s port %u) failed: %s", host, port,
			 strerror(errno));
		goto clean;
	}
	l->verbs = l->lid_rc->verbs;
	if (pthread_create(&l->tid, NULL, listener_thread, l)) {
		snprintf(l->why, sizeof(l->why), "-R: cannot start the rdma_cm thread");
		goto clean;
	}
	l->running = true;
	rb_info("rdma_cm listening on %s port %u (RC and UD) on %s", host, port, name);
	return;
clean:
	if (l->lid_ud)
		rdma_destroy_id(l->lid_ud);
	if (l->lid_rc)
		rdma_destroy_id(l->lid_rc);
	l->lid_ud = l->lid_rc = NULL;
	rdma_destroy_event_channel(l->ch);
	l->ch = NULL;
	rb_info("%s (sessions without -R are not affected)", l->why);
}

void cm_listen_halt(struct rb_cm_listener *l)
{
	if (l->running) {
		l->quit = 1;
		pthread_join(l->tid, NULL);
		l->running = false;
	}
}

void cm_listen_stop(struct rb_cm_listener *l)
{
	cm_listen_halt(l);
	if (l->lid_ud)
		rdma_destroy_id(l->lid_ud);
	if (l->lid_rc)
		rdma_destroy_id(l->lid_rc);
	if (l->ch)
		rdma_destroy_event_channel(l->ch);
	l->lid_ud = l->lid_rc = NULL;
	l->ch = NULL;
}

int cm_session_register(struct rb_cm_listener *l, struct rb_cm_session *s, uint32_t rkey,
			uint64_t addr, uint64_t nonce, const struct sockaddr *peer, uint32_t nqp,
			char *err, size_t errlen)
{
	memset(s, 0, sizeof(*s));
	if (!l->running)
		return rb_fail(err, errlen, "%s", l->why[0] ? l->why : "-R: no rdma_cm listener");
	s->child = calloc(nqp, sizeof(*s->child));
	if (!s->child)
		return rb_fail(err, errlen, "out of memory for %u rdma_cm ids", nqp);
	s->rkey = rkey;
	s->addr = addr;
	s->nonce = nonce;
	memcpy(&s->peer, peer, peer->sa_family == AF_INET6 ? sizeof(struct sockaddr_in6) :
			       sizeof(struct sockaddr_in));
	s->nqp = nqp;
	pthread_cond_init(&s->cond, NULL);
	pthread_mutex_lock(&l->lock);
	s->next = l->sessions;
	l->sessions = s;
	pthread_mutex_unlock(&l->lock);
	return 0;
}

/*
 * Wait until *counter reaches want (under l->lock), failure, timeout, or the
 * client's control connection becoming readable (closed, ERROR): checked
 * every 100 ms.
 */
static int wait_count(struct rb_cm_listener *l, struct rb_cm_session *s, uint32_t *counter,
		      uint32_t want, unsigned timeout_ms, const char *event,
		      const struct rb_cm_ctrl *ctl, char *err, size_t errlen)
{
	uint64_t deadline = timing_now_ns() + (uint64_t)timeout_ms * 1000000u;
	bool watch = ctl != NULL;
	int rc = 0;

	pthread_mutex_lock(&l->lock);
	while (*counter < want && !s->failed) {
		struct timespec ts;
		clock_gettime(CLOCK_REALTIME, &ts);
		ts.tv_nsec += 100 * 1000000L;
		if (ts.tv_nsec >= 1000000000L) {
			ts.tv_sec++;
			ts.tv_nsec -= 1000000000L;
		}
		(void)pthread_cond_timedwait(&s->cond, &l->lock, &ts);
		if (*counter >= want || s->failed)
			break;
		if (timing_now_ns() > deadline) {
			rc = rb_fail(err, errlen, "timed out after %.1f s waiting for %s: %u of %u QPs",
				  (double)timeout_ms / 1000.0, event, *counter, want);
			break;
		}
		struct pollfd p = { .fd = watch ? ctl->fd : -1, .events = POLLIN };
		if (watch && poll(&p, 1, 0) > 0) {
			char what[128];
			snprintf(what, sizeof(what), "%s (%u of %u QPs)", event, *counter, want);
			pthread_mutex_unlock(&l->lock);
			if (ctrl_interrupt(ctl, what, err, errlen) < 0)
				return -1;
			watch = false;
			pthread_mutex_lock(&l->lock);
		}
	}
	bool rejected = !rc && s->failed;
	if (rejected)
		rc = rb_fail(err, errlen, "%s while waiting for %s", s->why, event);
	pthread_mutex_unlock(&l->lock);
	if (rejected)
		return cm_accept_failed(ctl, err, errlen);
	return rc;
}

int cm_session_wait_requests(struct rb_cm_listener *l, struct rb_cm_session *s,
			     unsigned timeout_ms, const struct rb_cm_ctrl *ctl, char *err,
			     size_t errlen)
{
	return wait_count(l, s, &s->got, s->nqp, timeout_ms, "RDMA_CM_EVENT_CONNECT_REQUEST", ctl,
			  err, errlen);
}

int cm_session_accept(struct rb_cm_session *s, const struct rb_cm_conn *p,
		      const struct rb_cm_ctrl *ctl, char *err, size_t errlen)
{
	for (uint32_t g = 0; g < s->nqp; g++) {
		struct rdma_conn_param cp = {
			.responder_resources = (uint8_t)p->rd_resp,
			.initiator_depth = (uint8_t)p->rd_init,
			.flow_control = 1,
			.retry_count = (uint8_t)p->retry_cnt,
			.rnr_retry_count = (uint8_t)p->rnr_retry,
			.qp_num = p->transport == RB_TR_RC && p->qpn ? p->qpn[g] : 0,
		};
		if (rdma_accept(s->child[g], &cp)) {
			rb_fail(err, errlen, "rdma_accept(QP %u) failed: %s", g, strerror(errno));
			return cm_accept_failed(ctl, err, errlen);
		}
	}
	return 0;
}

int cm_session_wait_established(struct rb_cm_listener *l, struct rb_cm_session *s,
				unsigned timeout_ms, const struct rb_cm_ctrl *ctl, char *err,
				size_t errlen)
{
	return wait_count(l, s, &s->established, s->nqp, timeout_ms, "RDMA_CM_EVENT_ESTABLISHED",
			  ctl, err, errlen);
}

void cm_session_disconnect(struct rb_cm_session *s, uint64_t transport)
{
	if (transport == RB_TR_UD || !s->child)
		return;
	for (uint32_t g = 0; g < s->nqp; g++)
		if (s->child[g])
			(void)rdma_disconnect(s->child[g]); /* RC: the caller's QP is not on the id */
}

void cm_session_release(struct rb_cm_listener *l, struct rb_cm_session *s)
{
	pthread_mutex_lock(&l->lock);
	for (struct rb_cm_session **pp = &l->sessions; *pp; pp = &(*pp)->next)
		if (*pp == s) {
			*pp = s->next;
			break;
		}
	pthread_mutex_unlock(&l->lock);
	/* No new requests can reach s now; destroy its ids (waits for their events). */
	if (s->child)
		for (uint32_t g = 0; g < s->nqp; g++)
			if (s->child[g]) {
				if (s->child[g]->qp)
					rdma_destroy_qp(s->child[g]);
				rdma_destroy_id(s->child[g]);
			}
	free(s->child);
	s->child = NULL;
	pthread_cond_destroy(&s->cond);
}
