/*
 * attack_probe.c - a hostile peer of `rdma_bench -s`, for tests/attack-run.
 *
 * Speaks the control protocol with the suite's own encoders (ctrl.h) and
 * does what a careless or hostile tenant of a shared cluster would: hold
 * sessions at the point where the server has allocated a point's buffer and
 * waits for the client's SETUP, open idle connections that never send
 * HELLO, send peer strings with control bytes, and claim oversized
 * messages. It prints one line per observation, for the script to check:
 *
 *   attack_probe HOST PORT hold-setups N SIZE QPS HOLD_S
 *       N sessions, each HELLO + TEST (RC WRITE bw of SIZE bytes, QPS QPs,
 *       client --timeout 24 h); the server's SETUP is never answered.
 *       Lines: "setup I BYTES" (the server registered BYTES for it) or
 *       "refused I: REASON"; then "holding K" (flushed) and, after HOLD_S
 *       seconds, "dropped I: REASON" for every held session the server
 *       ended on its own, and "summary held K refused R dropped D".
 *   attack_probe HOST PORT idle N HOLD_S SRC
 *       N TCP connections from source address SRC that send nothing.
 *       Lines: "refused I: REASON" (closed at once with ERROR), "holding K",
 *       then after HOLD_S s "closed I: REASON" per connection the server
 *       closed, and "summary open K refused R closed C".
 *   attack_probe HOST PORT hello-ctrl
 *       HELLO whose host holds a newline and a forged log line; prints the
 *       server's answer: "answer: REASON" or "answer: HELLO".
 *   attack_probe HOST PORT oversized-hello
 *       a HELLO header claiming 2 MiB of payload (nothing follows);
 *       prints "answer: REASON" (its ERROR, or the wait that timed out).
 *   attack_probe HOST PORT setup-first
 *       a SETUP header claiming 2 MiB as the first message (nothing
 *       follows); prints "answer: REASON" as above.
 *   attack_probe HOST PORT cm-nonce DELTA
 *   attack_probe HOST PORT cm-flood N   N rdma_cm connect requests without
 *                                       private data (each rejected)
 *       a -R session (HELLO + TEST with rdma_cm, RC WRITE, 1 QP); from the
 *       server's SETUP it takes the point's rkey, buffer address, nonce and
 *       RoCE address, and sends one rdma_cm connect request for QP 0 with
 *       the nonce XOR DELTA (DELTA 1: a guess; 0: the true one); prints
 *       "cm: EVENT" (REJECTED, CONNECT_RESPONSE, ...) or "cm: none".
 *
 * Exit status 0 when the probe ran (what it saw is for the script to
 * judge), 2 on a usage or connection error.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netdb.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <rdma/rdma_cma.h>

#include "be32.h"
#include "cm.h"
#include "ctrl.h"
#include "options.h"

#define MAX_CONN 1024

static int usage(void)
{
	fprintf(stderr, "usage: attack_probe HOST PORT hold-setups N SIZE QPS HOLD_S\n"
			"       attack_probe HOST PORT idle N HOLD_S SRC\n"
			"       attack_probe HOST PORT hello-ctrl|oversized-hello|setup-first\n"
			"       attack_probe HOST PORT cm-nonce DELTA\n"
			"       attack_probe HOST PORT cm-flood N\n");
	return 2;
}

/* A HELLO naming host into buf (cap bytes): its length. */
static size_t encode_hello(uint8_t *buf, size_t cap, const char *host)
{
	struct ctrl_hello h = { .proc_index = 0, .pid = (uint32_t)getpid() };

	snprintf(h.host, sizeof(h.host), "%s", host);
	snprintf(h.run_id, sizeof(h.run_id), "attack");
	snprintf(h.device, sizeof(h.device), "none");
	return ctrl_encode_hello(buf, cap, &h);
}

static int send_hello(int fd, const char *host, char *err, size_t errlen)
{
	uint8_t buf[CTRL_HDR_LEN + CTRL_HELLO_MAX];
	size_t n = encode_hello(buf, sizeof(buf), host);

	return ctrl_send(fd, buf, n, 5000, err, errlen);
}

/* The server's next message within ms: "HELLO", "SETUP ..." or its ERROR reason. */
static void answer(int fd, struct ctrl_rbuf *rb, int ms, char *out, size_t outlen)
{
	struct ctrl_msg m;
	char err[1400];
	int rc = ctrl_recv(fd, rb, &m, 0, ms, "the server's answer", err, sizeof(err));

	if (rc == 0)
		snprintf(out, outlen, "%s", ctrl_type_name(m.type));
	else
		snprintf(out, outlen, "%s", err);
}

static int hold_setups(const char *host, uint16_t port, int n, uint64_t size, uint64_t nqp,
		       int hold_s)
{
	static int fds[MAX_CONN];
	static struct ctrl_rbuf rbs[MAX_CONN];
	struct rb_test t;
	char err[1400];
	uint8_t buf[CTRL_HDR_LEN + RB_TEST_NFIELDS * 8];
	int held = 0, refused = 0, dropped = 0;

	test_defaults(&t);
	t.verb = RB_VERB_WRITE;
	t.size = size;
	t.qps_per_thread = nqp;
	t.iters = 1000;
	t.timeout_ms = 86400000;  /* the client asks for 24 h: the server must not wait that long */
	test_resolve_defaults(&t, NULL);
	if (test_validate(&t, err, sizeof(err))) {
		fprintf(stderr, "attack_probe: TEST does not validate: %s\n", err);
		return 2;
	}
	for (int i = 0; i < n; i++) {
		struct ctrl_msg m;
		fds[i] = ctrl_connect(host, port, 10, err, sizeof(err));
		if (fds[i] < 0) {
			fprintf(stderr, "attack_probe: %s\n", err);
			return 2;
		}
		if (send_hello(fds[i], "probe", err, sizeof(err)) ||
		    ctrl_recv(fds[i], &rbs[i], &m, CTRL_HELLO, 10000, "the server's HELLO", err,
			      sizeof(err))) {
			printf("refused %d: %s\n", i, err);
			refused++;
			close(fds[i]);
			fds[i] = -1;
			continue;
		}
		size_t len = ctrl_encode_test(buf, sizeof(buf), &t);
		if (ctrl_send(fds[i], buf, len, 5000, err, sizeof(err)))
			goto refuse;
		int rc = ctrl_recv(fds[i], &rbs[i], &m, CTRL_SETUP, 30000, "the server's SETUP", err,
				   sizeof(err));
		if (rc == 0) {
			printf("setup %d %llu\n", i, (unsigned long long)m.u.setup.buf_len);
			held++;
			continue;
		}
refuse:
		printf("refused %d: %s\n", i, err);
		refused++;
		close(fds[i]);
		fds[i] = -1;
	}
	printf("holding %d\n", held);
	fflush(stdout);
	sleep((unsigned)hold_s);
	for (int i = 0; i < n; i++) {
		if (fds[i] < 0)
			continue;
		struct pollfd p = { .fd = fds[i], .events = POLLIN };
		if (poll(&p, 1, 0) > 0) {
			answer(fds[i], &rbs[i], 1000, err, sizeof(err));
			printf("dropped %d: %s\n", i, err);
			dropped++;
		}
		close(fds[i]);
		ctrl_rbuf_free(&rbs[i]);
	}
	printf("summary held %d refused %d dropped %d\n", held, refused, dropped);
	return 0;
}

static int idle(const char *host, uint16_t port, int n, int hold_s, const char *src)
{
	static int fds[MAX_CONN];
	struct addrinfo hints = { .ai_family = AF_INET, .ai_socktype = SOCK_STREAM }, *res;
	struct sockaddr_in sa = { .sin_family = AF_INET };
	char portstr[8], why[1400];
	int open_n = 0, refused = 0, closed = 0;

	snprintf(portstr, sizeof(portstr), "%u", port);
	if (getaddrinfo(host, portstr, &hints, &res) || inet_pton(AF_INET, src, &sa.sin_addr) != 1) {
		fprintf(stderr, "attack_probe: cannot resolve %s or source %s\n", host, src);
		return 2;
	}
	for (int i = 0; i < n; i++) {
		fds[i] = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
		if (fds[i] < 0 || bind(fds[i], (struct sockaddr *)&sa, sizeof(sa)) ||
		    connect(fds[i], res->ai_addr, res->ai_addrlen)) {
			fprintf(stderr, "attack_probe: connection %d from %s: %s\n", i, src, strerror(errno));
			freeaddrinfo(res);
			return 2;
		}
	}
	freeaddrinfo(res);
	/* a connection refused at once has its ERROR within 2 s */
	sleep(2);
	for (int i = 0; i < n; i++) {
		struct pollfd p = { .fd = fds[i], .events = POLLIN };
		struct ctrl_rbuf rb = { 0 };
		if (poll(&p, 1, 0) > 0) {
			answer(fds[i], &rb, 1000, why, sizeof(why));
			printf("refused %d: %s\n", i, why);
			refused++;
			close(fds[i]);
			fds[i] = -1;
		} else {
			open_n++;
		}
		ctrl_rbuf_free(&rb);
	}
	printf("holding %d\n", open_n);
	fflush(stdout);
	sleep((unsigned)hold_s);
	for (int i = 0; i < n; i++) {
		struct pollfd p = { .fd = fds[i], .events = POLLIN };
		struct ctrl_rbuf rb = { 0 };
		if (fds[i] < 0)
			continue;
		if (poll(&p, 1, 0) > 0) {
			answer(fds[i], &rb, 1000, why, sizeof(why));
			printf("closed %d: %s\n", i, why);
			closed++;
		}
		ctrl_rbuf_free(&rb);
		close(fds[i]);
	}
	printf("summary open %d refused %d closed %d\n", open_n, refused, closed);
	return 0;
}

/* One message (msg, n bytes) to the server on a new connection, then its
 * answer printed: "answer: REASON" (its ERROR, or the wait that ended) or
 * "answer: HELLO". 0, or 2 when the connection or the send fails. */
static int ask_once(const char *host, uint16_t port, const uint8_t *msg, size_t n)
{
	char err[1400];
	struct ctrl_rbuf rb = { 0 };
	int fd = ctrl_connect(host, port, 10, err, sizeof(err));

	if (fd < 0 || ctrl_send(fd, msg, n, 5000, err, sizeof(err))) {
		fprintf(stderr, "attack_probe: %s\n", err);
		if (fd >= 0)
			close(fd);
		return 2;
	}
	answer(fd, &rb, 10000, err, sizeof(err));
	printf("answer: %s\n", err);
	ctrl_rbuf_free(&rb);
	close(fd);
	return 0;
}

static int hello_ctrl(const char *host, uint16_t port)
{
	uint8_t buf[CTRL_HDR_LEN + CTRL_HELLO_MAX];
	size_t n = encode_hello(buf, sizeof(buf), "probe\nINFO forged line from a peer");

	return ask_once(host, port, buf, n);
}

static int oversized_hello(const char *host, uint16_t port)
{
	uint8_t hdr[CTRL_HDR_LEN];
	size_t n = ctrl_encode_empty(hdr, sizeof(hdr), CTRL_HELLO);

	be32_put(hdr + 8, 2u << 20); /* the payload length the header claims */
	return ask_once(host, port, hdr, n);
}

/* A SETUP header claiming 2 MiB as a new connection's first message:
 * the server must refuse it on its header (only HELLO or ERROR may come
 * first), before it grows a buffer for the payload. */
static int setup_first(const char *host, uint16_t port)
{
	uint8_t hdr[CTRL_HDR_LEN];
	size_t n = ctrl_encode_empty(hdr, sizeof(hdr), CTRL_SETUP);

	be32_put(hdr + 8, 2u << 20);
	return ask_once(host, port, hdr, n);
}

/* The next rdma_cm event within ms: its type, or -1. */
static int cm_event(struct rdma_event_channel *ch, int ms)
{
	struct pollfd p = { .fd = ch->fd, .events = POLLIN };
	struct rdma_cm_event *ev;

	if (poll(&p, 1, ms) <= 0 || rdma_get_cm_event(ch, &ev))
		return -1;
	int type = ev->event;
	rdma_ack_cm_event(ev);
	return type;
}

/* A -R session up to the server's SETUP (*s, its strings in rb; *fd open):
 * the point whose rkey, address and nonce the rdma_cm probes use, and the
 * server's RoCE v2 address (dst). 0, or 2 (said on stderr). */
static int cm_target(const char *host, uint16_t port, int *fd, struct ctrl_rbuf *rb,
		     struct ctrl_setup *s, struct sockaddr_in *dst)
{
	char err[1400];
	struct ctrl_msg m;
	struct rb_test t;
	uint8_t buf[CTRL_HDR_LEN + RB_TEST_NFIELDS * 8];

	*fd = ctrl_connect(host, port, 10, err, sizeof(err));
	if (*fd < 0) {
		fprintf(stderr, "attack_probe: %s\n", err);
		return 2;
	}
	test_defaults(&t);
	t.use_cm = 1;
	t.iters = 100;
	test_resolve_defaults(&t, NULL);
	size_t n = ctrl_encode_test(buf, sizeof(buf), &t);
	if (send_hello(*fd, "probe", err, sizeof(err)) ||
	    ctrl_recv(*fd, rb, &m, CTRL_HELLO, 10000, "the server's HELLO", err, sizeof(err)) ||
	    ctrl_send(*fd, buf, n, 5000, err, sizeof(err)) ||
	    ctrl_recv(*fd, rb, &m, CTRL_SETUP, 30000, "the server's SETUP", err, sizeof(err))) {
		fprintf(stderr, "attack_probe: %s\n", err);
		return 2;
	}
	*s = m.u.setup;
	*dst = (struct sockaddr_in){ .sin_family = AF_INET, .sin_port = htons(port) };
	memcpy(&dst->sin_addr, s->gid + 12, 4);  /* IPv4-mapped RoCE v2 GID */
	return 0;
}

/* An rdma_cm id on ch resolved to dst (address and route). 0, or 2. */
static int cm_resolved(struct rdma_event_channel *ch, struct sockaddr_in *dst,
		       struct rdma_cm_id **id)
{
	*id = NULL;
	if (!ch || rdma_create_id(ch, id, NULL, RDMA_PS_TCP) ||
	    rdma_resolve_addr(*id, NULL, (struct sockaddr *)dst, 5000) ||
	    cm_event(ch, 10000) != RDMA_CM_EVENT_ADDR_RESOLVED || rdma_resolve_route(*id, 5000) ||
	    cm_event(ch, 10000) != RDMA_CM_EVENT_ROUTE_RESOLVED) {
		fprintf(stderr, "attack_probe: rdma_cm cannot reach the server's RoCE address\n");
		return 2;
	}
	return 0;
}

/* n connect requests without private data, one after the other (each
 * rejected), while a -R session of ours holds its point: prints
 * "flood: R rejected of N". */
static int cm_flood(const char *host, uint16_t port, unsigned n)
{
	struct ctrl_rbuf rb = { 0 };
	struct ctrl_setup s;
	struct sockaddr_in dst;
	int fd;
	unsigned rejected = 0;

	if (cm_target(host, port, &fd, &rb, &s, &dst))
		return 2;
	struct rdma_event_channel *ch = rdma_create_event_channel();
	for (unsigned i = 0; i < n; i++) {
		struct rdma_cm_id *id;
		if (cm_resolved(ch, &dst, &id))
			return 2;
		struct rdma_conn_param p = { .qp_num = 0x123, .responder_resources = 1,
					     .initiator_depth = 1 };
		if (rdma_connect(id, &p) == 0 && cm_event(ch, 5000) == RDMA_CM_EVENT_REJECTED)
			rejected++;
		rdma_destroy_id(id);
	}
	printf("flood: %u rejected of %u\n", rejected, n);
	rdma_destroy_event_channel(ch);
	ctrl_send_error(fd, "probe done");
	close(fd);
	ctrl_rbuf_free(&rb);
	return 0;
}

static int cm_nonce(const char *host, uint16_t port, uint64_t delta)
{
	struct ctrl_rbuf rb = { 0 };
	struct ctrl_setup s;
	struct sockaddr_in dst;
	uint8_t priv[RB_CM_PRIV_LEN];
	int fd;

	if (cm_target(host, port, &fd, &rb, &s, &dst))
		return 2;
	struct rdma_event_channel *ch = rdma_create_event_channel();
	struct rdma_cm_id *id;
	if (cm_resolved(ch, &dst, &id))
		return 2;
	uint64_t nonce = s.nonce ^ delta;
	be32_put(priv, RB_CM_MAGIC);
	be32_put(priv + 4, s.rkey);
	be32_put(priv + 8, (uint32_t)(s.buf_addr >> 32));
	be32_put(priv + 12, (uint32_t)s.buf_addr);
	be32_put(priv + 16, 0);
	be32_put(priv + 20, (uint32_t)(nonce >> 32));
	be32_put(priv + 24, (uint32_t)nonce);
	struct rdma_conn_param p = {
		.private_data = priv, .private_data_len = sizeof(priv), .qp_num = 0x123,
		.responder_resources = 1, .initiator_depth = 1, .retry_count = 7,
		.rnr_retry_count = 7,
	};
	if (rdma_connect(id, &p)) {
		fprintf(stderr, "attack_probe: rdma_connect: %s\n", strerror(errno));
		return 2;
	}
	int ev = cm_event(ch, 15000);
	printf("cm: %s\n", ev < 0 ? "none" : rdma_event_str((enum rdma_cm_event_type)ev));
	rdma_destroy_id(id);
	rdma_destroy_event_channel(ch);
	ctrl_send_error(fd, "probe done");
	close(fd);
	ctrl_rbuf_free(&rb);
	return 0;
}

int main(int argc, char **argv)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc < 4)
		return usage();
	const char *host = argv[1];
	int port = atoi(argv[2]);
	if (port < 1 || port > 65535)
		return usage();
	if (strcmp(argv[3], "hold-setups") == 0 && argc == 8) {
		int n = atoi(argv[4]);
		if (n < 1 || n > MAX_CONN)
			return usage();
		return hold_setups(host, (uint16_t)port, n, strtoull(argv[5], NULL, 10),
				   strtoull(argv[6], NULL, 10), atoi(argv[7]));
	}
	if (strcmp(argv[3], "idle") == 0 && argc == 7) {
		int n = atoi(argv[4]);
		if (n < 1 || n > MAX_CONN)
			return usage();
		return idle(host, (uint16_t)port, n, atoi(argv[5]), argv[6]);
	}
	if (strcmp(argv[3], "hello-ctrl") == 0)
		return hello_ctrl(host, (uint16_t)port);
	if (strcmp(argv[3], "setup-first") == 0)
		return setup_first(host, (uint16_t)port);
	if (strcmp(argv[3], "oversized-hello") == 0)
		return oversized_hello(host, (uint16_t)port);
	if (strcmp(argv[3], "cm-flood") == 0 && argc == 5)
		return cm_flood(host, (uint16_t)port, (unsigned)strtoul(argv[4], NULL, 10));
	if (strcmp(argv[3], "cm-nonce") == 0 && argc == 5)
		return cm_nonce(host, (uint16_t)port, strtoull(argv[4], NULL, 10));
	return usage();
}
