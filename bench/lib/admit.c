/*
 * admit.c - admission of a server's control connections before they cost
 * anything (admit.h).
 *
 * How it works: the accept loop polls the listening socket and every
 * connection still waiting for its HELLO (one fixed table, no thread per
 * connection). A connection's bytes go into its slot's fixed buffer: first
 * the 12-byte header, checked for type HELLO or ERROR and that type's
 * length limit, then the payload; a complete HELLO is decoded (strings
 * with control bytes refused by ctrl_decode), its token compared in
 * constant time, and the socket handed to the caller in blocking mode.
 * Anything else closes the connection with a short ERROR sent without
 * waiting, counted per source prefix (the log limiter), never with the
 * peer's own text.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "admit.h"
#include "errbuf.h"
#include "log.h"
#include "timing.h"

/* ---- pure parts ------------------------------------------------------------- */

int admit_prefix_key(const struct sockaddr *sa, unsigned bits4, unsigned bits6, uint8_t *key)
{
	static const uint8_t mapped[12] = { [10] = 0xff, [11] = 0xff };
	const uint8_t *a;
	unsigned bits, len;

	memset(key, 0, ADMIT_KEY_LEN);
	if (sa->sa_family == AF_INET) {
		a = (const uint8_t *)&((const struct sockaddr_in *)sa)->sin_addr;
		len = 4;
	} else if (sa->sa_family == AF_INET6) {
		a = ((const struct sockaddr_in6 *)sa)->sin6_addr.s6_addr;
		len = 16;
		if (memcmp(a, mapped, 12) == 0) {
			a += 12;
			len = 4;
		}
	} else {
		return -1;
	}
	bits = len == 4 ? (bits4 > 32 ? 32 : bits4) : (bits6 > 128 ? 128 : bits6);
	key[0] = len == 4 ? 4 : 6;
	memcpy(key + 1, a, len);
	for (unsigned b = bits; b < len * 8; b++)
		key[1 + b / 8] &= (uint8_t)~(0x80u >> (b % 8));
	return 0;
}

void admit_key_text(const uint8_t *key, unsigned bits4, unsigned bits6, char *out, size_t len)
{
	char a[INET6_ADDRSTRLEN];
	int fam = key[0] == 4 ? AF_INET : key[0] == 6 ? AF_INET6 : 0;

	if (!fam || !inet_ntop(fam, key + 1, a, sizeof(a))) {
		snprintf(out, len, "(other family)");
		return;
	}
	snprintf(out, len, "%s/%u", a, fam == AF_INET ? bits4 : bits6);
}

/* Is slot x idle longer than slot y (older latest byte, then older accept)? */
static bool idler(const struct admit_slot *x, const struct admit_slot *y)
{
	return x->last_ns < y->last_ns || (x->last_ns == y->last_ns && x->since_ns < y->since_ns);
}

int admit_pick(const struct admit_slot *s, unsigned n, const struct admit_conf *c,
	       const uint8_t *key, int *evict)
{
	int free_i = -1, idle_all = -1, idle_mine = -1;
	unsigned mine = 0;

	for (unsigned i = 0; i < n; i++) {
		if (s[i].fd < 0) {
			if (free_i < 0)
				free_i = (int)i;
			continue;
		}
		if (idle_all < 0 || idler(&s[i], &s[idle_all]))
			idle_all = (int)i;
		if (memcmp(s[i].key, key, ADMIT_KEY_LEN) == 0) {
			mine++;
			if (idle_mine < 0 || idler(&s[i], &s[idle_mine]))
				idle_mine = (int)i;
		}
	}
	*evict = -1;
	if (mine >= c->per_prefix && idle_mine >= 0)
		*evict = idle_mine;
	else if (free_i < 0)
		*evict = idle_all;
	return *evict >= 0 ? *evict : free_i;
}

size_t admit_escape(const char *in, size_t cap, char *out, size_t outlen)
{
	size_t o = 0, i;

	if (!outlen)
		return 0;
	for (i = 0; in[i] && i < cap; i++) {
		unsigned char ch = (unsigned char)in[i];
		char tmp[5];
		int k = ch == '\\' ? snprintf(tmp, sizeof(tmp), "\\\\") :
			ch < 0x20 || ch > 0x7e ? snprintf(tmp, sizeof(tmp), "\\x%02x", ch) :
			snprintf(tmp, sizeof(tmp), "%c", ch);
		if (o + (size_t)k + 4 > outlen)
			break;
		memcpy(out + o, tmp, (size_t)k);
		o += (size_t)k;
	}
	if (in[i] && o + 3 < outlen) {
		memcpy(out + o, "...", 3);
		o += 3;
	}
	out[o] = '\0';
	return o;
}

/* The interval's summary into out: sources, events, suppressed lines and
 * the source with the most events. */
static void log_summary(const struct admit_log *l, uint64_t now_ns, unsigned bits4,
			unsigned bits6, char *out, size_t len)
{
	const struct admit_source *top = NULL;
	char who[INET6_ADDRSTRLEN + 8] = "?";

	for (unsigned i = 0; i < l->nsrc; i++)
		if (!top || l->src[i].events > top->events)
			top = &l->src[i];
	if (top)
		admit_key_text(top->key, bits4, bits6, who, sizeof(who));
	snprintf(out, len, "admission: %u refused or dropped connections from %u source prefixes%s "
		 "in the last %.0f s, %u log lines suppressed (most from %s: %u)", l->events,
		 l->nsrc, l->others ? " and more" : "", (double)(now_ns - l->start_ns) / 1e9,
		 l->suppressed, who, top ? top->events : 0);
}

bool admit_log_event(struct admit_log *l, const uint8_t *key, uint64_t now_ns,
		     unsigned bits4, unsigned bits6, char *summary, size_t len, bool *has_summary)
{
	struct admit_source *s = NULL;

	*has_summary = false;
	if (!l->start_ns || now_ns - l->start_ns >= ADMIT_LOG_INTERVAL_MS * 1000000ull) {
		if (l->start_ns && l->suppressed) {
			log_summary(l, now_ns, bits4, bits6, summary, len);
			*has_summary = true;
		}
		memset(l, 0, sizeof(*l));
		l->start_ns = now_ns ? now_ns : 1;
	}
	l->events++;
	for (unsigned i = 0; i < l->nsrc && !s; i++)
		if (memcmp(l->src[i].key, key, ADMIT_KEY_LEN) == 0)
			s = &l->src[i];
	if (!s && l->nsrc < ADMIT_LOG_SOURCES) {
		s = &l->src[l->nsrc++];
		memcpy(s->key, key, ADMIT_KEY_LEN);
	}
	if (!s) {
		l->others++;
		l->suppressed++;
		return false;
	}
	s->events++;
	if (s->logged >= ADMIT_LOG_PER_SOURCE) {
		l->suppressed++;
		return false;
	}
	s->logged++;
	return true;
}

/* ---- the table --------------------------------------------------------------- */

int admit_init(struct admit *a, const struct admit_conf *c, char *err, size_t errlen)
{
	memset(a, 0, sizeof(*a));
	a->conf = *c;
	if (!c->max_handshakes || !c->per_prefix)
		return rb_fail(err, errlen, "admission: --max-handshakes and --handshakes-per-prefix "
			       "must be at least 1");
	a->slot = calloc(c->max_handshakes, sizeof(*a->slot));
	a->pfd = calloc(c->max_handshakes + 1u, sizeof(*a->pfd));
	a->pslot = calloc(c->max_handshakes, sizeof(*a->pslot));
	if (!a->slot || !a->pfd || !a->pslot) {
		admit_free(a);
		return rb_fail(err, errlen, "admission: out of memory for %u waiting connections",
			       c->max_handshakes);
	}
	for (unsigned i = 0; i < c->max_handshakes; i++)
		a->slot[i].fd = -1;
	return 0;
}

void admit_free(struct admit *a)
{
	if (a->slot)
		for (unsigned i = 0; i < a->conf.max_handshakes; i++)
			if (a->slot[i].fd >= 0)
				close(a->slot[i].fd);
	free(a->slot);
	free(a->pfd);
	free(a->pslot);
	a->pslot = NULL;
	a->slot = NULL;
	a->pfd = NULL;
}

void admit_send_error_nowait(int fd, const char *reason)
{
	uint8_t buf[CTRL_HDR_LEN + 2 + CTRL_REASON_CAP];
	size_t n = ctrl_encode_error(buf, sizeof(buf), reason);

	if (n)
		(void)send(fd, buf, n, MSG_DONTWAIT | MSG_NOSIGNAL);
}

/* An event of key's source (what, then the peer's address): one line while
 * the limiter allows, the interval's summary when one ends. */
static void note(struct admit *a, const uint8_t *key, const struct sockaddr *sa,
		 const char *what)
{
	char summary[400], ip[INET6_ADDRSTRLEN + 2];
	bool has;

	bool line = admit_log_event(&a->log, key, timing_now_ns(), a->conf.bits4, a->conf.bits6,
				    summary, sizeof(summary), &has);
	if (has)
		rb_warn("%s", summary);
	if (line) {
		guard_ip_text(sa, ip, sizeof(ip));
		rb_warn("admission: %s %s", what, ip);
	}
}

/* Drop slot i: an ERROR with reason (NULL: none) and close; what counted
 * and logged (without the peer's text). */
static void drop(struct admit *a, unsigned i, const char *reason, uint64_t *counter,
		 const char *what)
{
	struct admit_slot *s = &a->slot[i];

	if (reason)
		admit_send_error_nowait(s->fd, reason);
	close(s->fd);
	s->fd = -1;
	(*counter)++;
	note(a, s->key, (const struct sockaddr *)&s->sa, what);
}

/* The connection waiting longest since its latest byte: dropped to free a
 * descriptor (accept failed for lack of one). */
static void drop_idlest(struct admit *a)
{
	int k = -1;

	for (unsigned i = 0; i < a->conf.max_handshakes; i++)
		if (a->slot[i].fd >= 0 && (k < 0 || idler(&a->slot[i], &a->slot[k])))
			k = (int)i;
	if (k >= 0)
		drop(a, (unsigned)k, "server busy: dropped the connection idle longest; retry",
		     &a->st.evicted, "dropped (idle longest, out of descriptors):");
}

/* accept(2) failed with err (errno): the descriptors or the memory are
 * exhausted (or another transient failure): the oldest waiting connection
 * goes, accept pauses ADMIT_BACKOFF_MS, one line per interval. */
static void accept_backoff(struct admit *a, int e, uint64_t now)
{
	a->st.accept_failures++;
	a->backoffs++;
	if (e == EMFILE || e == ENFILE || e == ENOBUFS || e == ENOMEM)
		drop_idlest(a);
	a->backoff_until_ns = now + ADMIT_BACKOFF_MS * 1000000ull;
	if (!a->backoff_logged_ns ||
	    now - a->backoff_logged_ns >= ADMIT_LOG_INTERVAL_MS * 1000000ull) {
		rb_warn("accept: %s: pausing new connections for %u ms at a time (%u time(s) since "
			"the last such line); raise the descriptor limit (ulimit -n) or lower "
			"--max-handshakes", strerror(e), ADMIT_BACKOFF_MS, a->backoffs);
		a->backoff_logged_ns = now;
		a->backoffs = 0;
	}
}

/* One new connection from lfd: --allow, then a slot (the idlest of its
 * prefix or of all dropped first). 1 accepted or refused, 0 none waiting
 * (or a pause began), -1 lfd itself failed. */
static int accept_one(struct admit *a, int lfd, uint64_t now)
{
	struct sockaddr_storage ss;
	socklen_t sl = sizeof(ss);
	uint8_t key[ADMIT_KEY_LEN];
	int fd = accept4(lfd, (struct sockaddr *)&ss, &sl, SOCK_CLOEXEC | SOCK_NONBLOCK);

	if (fd < 0) {
		int e = errno;
		if (e == EAGAIN || e == EWOULDBLOCK || e == EINTR || e == ECONNABORTED || e == EPROTO)
			return 0;
		if (e == EBADF || e == EINVAL || e == ENOTSOCK || e == EOPNOTSUPP) {
			rb_error("accept: %s (the listening socket failed)", strerror(e));
			return -1;
		}
		accept_backoff(a, e, now);
		return 0;
	}
	a->st.accepted++;
	(void)admit_prefix_key((struct sockaddr *)&ss, a->conf.bits4, a->conf.bits6, key);
	if (a->conf.nallow && !guard_cidr_allows(a->conf.allow, a->conf.nallow,
						 (struct sockaddr *)&ss)) {
		admit_send_error_nowait(fd, "this address is not in the server's --allow list");
		close(fd);
		a->st.not_allowed++;
		note(a, key, (struct sockaddr *)&ss, "refused (not in --allow):");
		return 1;
	}
	int evict, i = admit_pick(a->slot, a->conf.max_handshakes, &a->conf, key, &evict);
	if (evict >= 0)
		drop(a, (unsigned)evict, "server busy: dropped as the connection idle longest of its "
		     "source prefix or of all; retry", &a->st.evicted,
		     "dropped (idle longest, prefix or table full):");
	struct admit_slot *s = &a->slot[i];
	s->fd = fd;
	memcpy(s->key, key, ADMIT_KEY_LEN);
	s->since_ns = s->last_ns = now;
	s->sa = ss;
	s->salen = sl;
	s->got = 0;
	ctrl_nodelay(fd);
	return 1;
}

/* Slot i's complete message (plen payload bytes): a HELLO with the right
 * token becomes *out (1); anything else drops the connection (0). */
static int hello_done(struct admit *a, unsigned i, uint32_t plen, struct admit_peer *out)
{
	struct admit_slot *s = &a->slot[i];
	struct ctrl_msg m;
	char err[512];

	if (ctrl_decode(s->buf, CTRL_HDR_LEN + plen, &m, err, sizeof(err))) {
		drop(a, i, err, &a->st.bad_hello, "dropped (HELLO does not decode):");
		return 0;
	}
	if (m.type == CTRL_ERROR) { /* its text is not logged: not authenticated */
		drop(a, i, NULL, &a->st.peer_error, "closed (ERROR instead of HELLO):");
		return 0;
	}
	bool ok = !a->conf.token[0] ||
		  guard_token_equal(a->conf.token, m.u.hello.token, CTRL_TOKEN_CAP);
	bool none = !m.u.hello.token[0];
	memset(m.u.hello.token, 0, sizeof(m.u.hello.token));
	memset(s->buf, 0, sizeof(s->buf));
	if (!ok) {
		snprintf(err, sizeof(err), "HELLO refused: %s token (this server was started with "
			 "--token-file; give the client the same file with --token-file)",
			 none ? "no" : "wrong");
		drop(a, i, err, &a->st.bad_token, "refused (token):");
		return 0;
	}
	int fl = fcntl(s->fd, F_GETFL);
	if (fl >= 0)
		(void)fcntl(s->fd, F_SETFL, fl & ~O_NONBLOCK);
	out->fd = s->fd;
	out->sa = s->sa;
	out->salen = s->salen;
	out->hello = m.u.hello;
	s->fd = -1;
	a->st.authenticated++;
	return 1;
}

/* Read what slot i has sent: header (HELLO or ERROR within its limit),
 * then payload, into its fixed buffer. 1 with *out (hello_done), else 0. */
static int read_slot(struct admit *a, unsigned i, uint64_t now, struct admit_peer *out)
{
	struct admit_slot *s = &a->slot[i];
	char err[512];

	for (;;) {
		uint16_t type = 0;
		uint32_t plen = 0;
		size_t want = CTRL_HDR_LEN;
		if (s->got >= CTRL_HDR_LEN) {
			if (ctrl_decode_header(s->buf, CTRL_HDR_LEN, &type, &plen, err, sizeof(err))) {
				drop(a, i, err, &a->st.bad_header, "dropped (bad header):");
				return 0;
			}
			if ((type != CTRL_HELLO && type != CTRL_ERROR) ||
			    CTRL_HDR_LEN + (size_t)plen > sizeof(s->buf)) {
				snprintf(err, sizeof(err), "protocol error: got %s, expected HELLO (a new "
					 "connection sends HELLO first)", ctrl_type_name(type));
				drop(a, i, err, &a->st.bad_header, "dropped (not a HELLO):");
				return 0;
			}
			want = CTRL_HDR_LEN + plen;
			if (s->got == want)
				return hello_done(a, i, plen, out);
		}
		ssize_t n = recv(s->fd, s->buf + s->got, want - s->got, MSG_DONTWAIT);
		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR))
			return 0;
		if (n <= 0) { /* closed or reset before its HELLO: nothing to say */
			close(s->fd);
			s->fd = -1;
			return 0;
		}
		s->got += (size_t)n;
		s->last_ns = now;
	}
}

/* Connections past their HELLO time (from accept: bytes trickling in do
 * not extend it) are dropped. */
static void expire(struct admit *a, uint64_t now)
{
	char why[128];
	uint64_t lim = (uint64_t)a->conf.hello_ms * 1000000ull;

	snprintf(why, sizeof(why), "timed out after %u ms waiting for the client's HELLO",
		 a->conf.hello_ms);
	for (unsigned i = 0; i < a->conf.max_handshakes; i++)
		if (a->slot[i].fd >= 0 && now - a->slot[i].since_ns >= lim)
			drop(a, i, why, &a->st.timed_out, "dropped (no HELLO in time):");
}

int admit_next(struct admit *a, int lfd, int timeout_ms, struct admit_peer *out)
{
	uint64_t end = timing_now_ns() + (uint64_t)(timeout_ms > 0 ? timeout_ms : 0) * 1000000ull;
	unsigned n = a->conf.max_handshakes;

	if (a->nonblocking_lfd != lfd + 1) { /* accept in a loop must never block */
		int fl = fcntl(lfd, F_GETFL);
		if (fl < 0 || fcntl(lfd, F_SETFL, fl | O_NONBLOCK) < 0) {
			rb_error("the control port's socket: fcntl: %s", strerror(errno));
			return -1;
		}
		a->nonblocking_lfd = lfd + 1;
	}
	for (;;) {
		uint64_t now = timing_now_ns();
		bool paused = now < a->backoff_until_ns;
		a->pfd[0] = (struct pollfd){ .fd = paused ? -1 : lfd, .events = POLLIN };
		unsigned np = 0;
		for (unsigned i = 0; i < n; i++)
			if (a->slot[i].fd >= 0) {
				a->pslot[np] = i;
				a->pfd[1 + np++] = (struct pollfd){ .fd = a->slot[i].fd, .events = POLLIN };
			}
		uint64_t left = end > now ? (end - now) / 1000000u : 0;
		int rc = poll(a->pfd, np + 1, (int)(left < 100 ? left : 100));
		if (rc < 0 && errno != EINTR) {
			rb_error("poll on the control port (%u descriptors): %s", np + 1, strerror(errno));
			return -1;
		}
		now = timing_now_ns();
		for (unsigned k = 0; rc > 0 && k < np; k++) {
			unsigned i = a->pslot[k];
			if (a->pfd[1 + k].revents && a->slot[i].fd == a->pfd[1 + k].fd &&
			    read_slot(a, i, now, out))
				return 1;
		}
		expire(a, now);
		if (rc > 0 && a->pfd[0].revents)
			for (int k = 0; k < 16; k++) {
				int r = accept_one(a, lfd, now);
				if (r < 0)
					return -1;
				if (r == 0)
					break;
			}
		if (now >= end)
			return 0;
	}
}
