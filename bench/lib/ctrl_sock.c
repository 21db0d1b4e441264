/*
 * ctrl_sock.c - the TCP side of the control channel: connect with bounded
 * retry, listen, and send/receive whole messages with timeouts.
 *
 * How it works: sockets are blocking; every wait goes through poll() with
 * the caller's timeout, and the timeout message names what was awaited.
 * Messages are read as a 12-byte header (checked before anything else is
 * read, so an oversized length never allocates) and then the payload, and
 * handed to ctrl_decode().
 */
#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "errbuf.h"
#include "ctrl.h"
#include "log.h"
#include "signals.h"
#include "timing.h"

/* ctrl_connect's pause between two attempts */
#define CONNECT_RETRY_MS 200

void ctrl_nodelay(int fd)
{
	int one = 1;
	(void)setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
}

int ctrl_connect(const char *host, uint16_t port, unsigned timeout_s, char *err, size_t errlen)
{
	struct addrinfo hints = { .ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM };
	char portstr[8];
	uint64_t deadline = timing_now_ns() + (uint64_t)timeout_s * 1000000000u;
	char last[256] = "no attempt";
	unsigned attempts = 0;
	bool unresolved = false;

	snprintf(portstr, sizeof(portstr), "%u", port);
	for (;;) {
		struct addrinfo *res = NULL;
		int rc = getaddrinfo(host, portstr, &hints, &res);
		attempts++;
		unresolved = rc != 0;
		if (rc) {
			snprintf(last, sizeof(last), "%s", gai_strerror(rc));
			if (rc != EAI_AGAIN)
				return rb_fail(err, errlen, "cannot resolve %s: %s; check the name (-c)", host,
					    gai_strerror(rc));
		}
		for (struct addrinfo *ai = res; ai; ai = ai->ai_next) {
			int fd = socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC, ai->ai_protocol);
			if (fd < 0) {
				snprintf(last, sizeof(last), "socket: %s", strerror(errno));
				continue;
			}
			if (connect(fd, ai->ai_addr, ai->ai_addrlen) == 0) {
				ctrl_nodelay(fd);
				freeaddrinfo(res);
				return fd;
			}
			snprintf(last, sizeof(last), "connect: %s", strerror(errno));
			close(fd);
		}
		if (res)
			freeaddrinfo(res);
		if (timing_now_ns() >= deadline)
			break;
		/* the retry is for a server that is still starting (a runner
		 * starts both ends at once): say so at once, not after the wait */
		if (attempts == 1)
			rb_info("no server at %s:%u yet (%s): retrying every %d ms for up to %u s "
				"(--connect-timeout), for a server that is still starting", host, port,
				last, CONNECT_RETRY_MS, timeout_s);
		if (rb_interrupt_signal) /* Ctrl-C while waiting for a server: stop now */
			return rb_fail(err, errlen, "interrupted by %s while connecting to %s:%u",
				    signals_name(rb_interrupt_signal), host, port);
		struct timespec ts = { .tv_sec = 0, .tv_nsec = CONNECT_RETRY_MS * 1000L * 1000L };
		nanosleep(&ts, NULL);
	}
	if (unresolved)
		return rb_fail(err, errlen, "cannot resolve %s: %s (%u attempts in %u s, "
			    "--connect-timeout); check the name (-c) and the resolver", host, last,
			    attempts, timeout_s);
	return rb_fail(err, errlen,
		    "cannot connect to the server at %s:%u after %u attempts in %u s (--connect-timeout): "
		    "%s; is '%s -s' running there and the port open?",
		    host, port, attempts, timeout_s, last, program_invocation_short_name);
}

int ctrl_bind_check(const char *bind_addr, char *err, size_t errlen)
{
	static const char fix[] = "give an address of this host (e.g. 127.0.0.1 or ::1), or no "
				  "--bind to listen on all addresses";
	struct addrinfo hints = { .ai_socktype = SOCK_STREAM, .ai_flags = AI_PASSIVE };
	struct addrinfo *res = NULL;

	if (!bind_addr || !*bind_addr)
		return 0;
	int rc = getaddrinfo(bind_addr, "0", &hints, &res);
	if (rc)
		return rb_fail(err, errlen, "--bind %s: not an address or a host name that resolves "
			       "(%s); %s", bind_addr, gai_strerror(rc), fix);
	int fd = socket(res->ai_family, res->ai_socktype | SOCK_CLOEXEC, res->ai_protocol);
	int bad = fd >= 0 && bind(fd, res->ai_addr, res->ai_addrlen) ? errno : 0;
	if (fd >= 0)
		close(fd);
	freeaddrinfo(res);
	if (bad == EADDRNOTAVAIL)
		return rb_fail(err, errlen, "--bind %s: not an address of this host (%s); %s",
			       bind_addr, strerror(bad), fix);
	return 0;
}

int ctrl_listen(const char *bind_addr, uint16_t port, char *err, size_t errlen)
{
	struct addrinfo hints = { .ai_socktype = SOCK_STREAM, .ai_flags = AI_PASSIVE };
	struct addrinfo *res = NULL;
	char portstr[8];
	char last[256] = "no address";
	int rc;

	snprintf(portstr, sizeof(portstr), "%u", port);
	if (bind_addr && *bind_addr) {
		hints.ai_family = AF_UNSPEC;
		rc = getaddrinfo(bind_addr, portstr, &hints, &res);
	} else {
		/* All addresses: IPv6 any (accepts IPv4-mapped too) first, IPv4 any if no IPv6. */
		hints.ai_family = AF_INET6;
		rc = getaddrinfo(NULL, portstr, &hints, &res);
		if (rc) {
			hints.ai_family = AF_INET;
			rc = getaddrinfo(NULL, portstr, &hints, &res);
		}
	}
	if (rc)
		return rb_fail(err, errlen, "--bind %s: %s", bind_addr && *bind_addr ? bind_addr : "(all)",
			    gai_strerror(rc));
	for (int pass = 0; pass < 2; pass++) {
		for (struct addrinfo *ai = res; ai; ai = ai->ai_next) {
			int one = 1, zero = 0;
			int fd = socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC, ai->ai_protocol);
			if (fd < 0) {
				snprintf(last, sizeof(last), "socket: %s", strerror(errno));
				continue;
			}
			(void)setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
			if (ai->ai_family == AF_INET6 && !(bind_addr && *bind_addr))
				(void)setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &zero, sizeof(zero));
			if (bind(fd, ai->ai_addr, ai->ai_addrlen) == 0 && listen(fd, 64) == 0) {
				freeaddrinfo(res);
				return fd;
			}
			snprintf(last, sizeof(last), "bind/listen: %s", strerror(errno));
			close(fd);
		}
		/* No IPv6 in this kernel: fall back to IPv4 any. */
		if (pass == 0 && !(bind_addr && *bind_addr) && hints.ai_family == AF_INET6) {
			freeaddrinfo(res);
			res = NULL;
			hints.ai_family = AF_INET;
			if (getaddrinfo(NULL, portstr, &hints, &res))
				break;
			continue;
		}
		break;
	}
	if (res)
		freeaddrinfo(res);
	return rb_fail(err, errlen, "cannot listen on %s port %u: %s",
		    bind_addr && *bind_addr ? bind_addr : "all addresses", port, last);
}

int ctrl_send(int fd, const uint8_t *buf, size_t len, int timeout_ms, char *err, size_t errlen)
{
	size_t off = 0;

	while (off < len) {
		struct pollfd p = { .fd = fd, .events = POLLOUT };
		int rc = poll(&p, 1, timeout_ms);
		if (rc < 0 && errno == EINTR)
			continue;
		if (rc < 0)
			return rb_fail(err, errlen, "poll on control socket: %s", strerror(errno));
		if (rc == 0)
			return rb_fail(err, errlen, "timed out after %d ms sending a control message",
				    timeout_ms);
		ssize_t n = send(fd, buf + off, len - off, MSG_NOSIGNAL);
		if (n < 0 && (errno == EINTR || errno == EAGAIN))
			continue;
		if (n < 0)
			return rb_fail(err, errlen, "sending on control socket: %s (peer gone?)",
				    strerror(errno));
		off += (size_t)n;
	}
	return 0;
}

/* Read exactly len bytes before deadline_ns. */
static int read_full(int fd, uint8_t *buf, size_t len, uint64_t deadline_ns, int timeout_ms,
		     const char *what, char *err, size_t errlen)
{
	size_t off = 0;

	while (off < len) {
		uint64_t now = timing_now_ns();
		if (now >= deadline_ns)
			return rb_fail(err, errlen, "timed out after %d ms waiting for %s", timeout_ms, what);
		int left_ms = (int)((deadline_ns - now) / 1000000u) + 1;
		struct pollfd p = { .fd = fd, .events = POLLIN };
		int rc = poll(&p, 1, left_ms);
		if (rc < 0 && errno == EINTR)
			continue;
		if (rc < 0)
			return rb_fail(err, errlen, "poll on control socket: %s", strerror(errno));
		if (rc == 0)
			continue;
		ssize_t n = recv(fd, buf + off, len - off, 0);
		if (n < 0 && (errno == EINTR || errno == EAGAIN))
			continue;
		if (n < 0)
			return rb_fail(err, errlen, "control connection failed while waiting for %s: %s",
				    what, strerror(errno));
		if (n == 0)
			return rb_fail(err, errlen,
				    "peer closed the control connection while we waited for %s%s",
				    what, off ? " (message cut short)" : "");
		off += (size_t)n;
	}
	return 0;
}

void ctrl_rbuf_free(struct ctrl_rbuf *rb)
{
	free(rb->buf);
	rb->buf = NULL;
	rb->cap = 0;
}

int ctrl_recv(int fd, struct ctrl_rbuf *rb, struct ctrl_msg *out, uint16_t expect,
	      int timeout_ms, const char *what, char *err, size_t errlen)
{
	uint64_t deadline = timing_now_ns() + (uint64_t)timeout_ms * 1000000u;
	uint16_t type;
	uint32_t plen;

	if (rb->cap < 4096) {
		uint8_t *nb = realloc(rb->buf, 4096);
		if (!nb)
			return rb_fail(err, errlen, "out of memory for the control buffer");
		rb->buf = nb;
		rb->cap = 4096;
	}
	if (read_full(fd, rb->buf, CTRL_HDR_LEN, deadline, timeout_ms, what, err, errlen))
		return -1;
	if (ctrl_decode_header(rb->buf, CTRL_HDR_LEN, &type, &plen, err, errlen))
		return -1;
	if (CTRL_HDR_LEN + (size_t)plen > rb->cap) {
		uint8_t *nb = realloc(rb->buf, CTRL_HDR_LEN + (size_t)plen);
		if (!nb)
			return rb_fail(err, errlen, "out of memory for a %u-byte control message", plen);
		rb->buf = nb;
		rb->cap = CTRL_HDR_LEN + (size_t)plen;
	}
	if (read_full(fd, rb->buf + CTRL_HDR_LEN, plen, deadline, timeout_ms, what, err, errlen))
		return -1;
	if (ctrl_decode(rb->buf, CTRL_HDR_LEN + plen, out, err, errlen))
		return -1;
	if (out->type == CTRL_ERROR) {
		snprintf(err, errlen, "peer: %s", out->u.error.reason);
		return -2;
	}
	if (expect && out->type != expect)
		return rb_fail(err, errlen, "protocol error: got %s while waiting for %s (%s)",
			    ctrl_type_name(out->type), ctrl_type_name(expect), what);
	return 0;
}

void ctrl_send_error(int fd, const char *reason)
{
	uint8_t buf[CTRL_HDR_LEN + 2 + CTRL_REASON_CAP];
	char err[64];
	size_t n = ctrl_encode_error(buf, sizeof(buf), reason);

	if (n)
		(void)ctrl_send(fd, buf, n, 2000, err, sizeof(err));
}

int ctrl_send_simple(int fd, uint16_t type, int timeout_ms, char *err, size_t errlen)
{
	uint8_t buf[CTRL_HDR_LEN];
	size_t n = ctrl_encode_empty(buf, sizeof(buf), type);

	return ctrl_send(fd, buf, n, timeout_ms, err, errlen);
}
