/*
 * test_admit.c - admission before a HELLO (admit.h): source prefixes, the
 * table's choice of slot and of the connection to drop, the log limiter,
 * the escaping of a peer's text; then admit_next on a real loopback
 * listener (idle sockets of one prefix never lock out a token holder, a
 * header of another type is refused before its payload is read, a
 * connection without HELLO is dropped at its deadline however it trickles).
 */
#include "unit.h"
#include <sys/resource.h>
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include "admit.h"
#include "ctrl.h"
#include "timing.h"

static struct sockaddr_storage v4(const char *a)
{
	struct sockaddr_storage ss = { 0 };
	struct sockaddr_in *in = (struct sockaddr_in *)&ss;

	in->sin_family = AF_INET;
	assert_int_equal(inet_pton(AF_INET, a, &in->sin_addr), 1);
	return ss;
}

static struct sockaddr_storage v6(const char *a)
{
	struct sockaddr_storage ss = { 0 };
	struct sockaddr_in6 *in = (struct sockaddr_in6 *)&ss;

	in->sin6_family = AF_INET6;
	assert_int_equal(inet_pton(AF_INET6, a, &in->sin6_addr), 1);
	return ss;
}

static void key_of(const char *a, unsigned b4, unsigned b6, uint8_t *key)
{
	struct sockaddr_storage ss = strchr(a, ':') ? v6(a) : v4(a);
	assert_int_equal(admit_prefix_key((struct sockaddr *)&ss, b4, b6, key), 0);
}

static void prefix_keys_cut_to_24_and_64_and_map_ipv4(void **state)
{
	uint8_t a[ADMIT_KEY_LEN], b[ADMIT_KEY_LEN];
	char txt[64];

	(void)state;
	key_of("10.1.2.3", 24, 64, a);
	key_of("10.1.2.250", 24, 64, b);
	assert_memory_equal(a, b, ADMIT_KEY_LEN);
	key_of("10.1.3.3", 24, 64, b);
	assert_memory_not_equal(a, b, ADMIT_KEY_LEN);
	/* the IPv4-mapped form an IPv6 listener sees is the same prefix */
	key_of("::ffff:10.1.2.77", 24, 64, b);
	assert_memory_equal(a, b, ADMIT_KEY_LEN);
	admit_key_text(a, 24, 64, txt, sizeof(txt));
	assert_string_equal(txt, "10.1.2.0/24");
	key_of("fd00:1:2:3:aaaa::1", 24, 64, a);
	key_of("fd00:1:2:3:bbbb::9", 24, 64, b);
	assert_memory_equal(a, b, ADMIT_KEY_LEN);
	key_of("fd00:1:2:4::1", 24, 64, b);
	assert_memory_not_equal(a, b, ADMIT_KEY_LEN);
	admit_key_text(a, 24, 64, txt, sizeof(txt));
	assert_string_equal(txt, "fd00:1:2:3::/64");
	/* configurable: /32 tells two hosts of one /24 apart */
	key_of("10.1.2.3", 32, 64, a);
	key_of("10.1.2.4", 32, 64, b);
	assert_memory_not_equal(a, b, ADMIT_KEY_LEN);
}

/* A table of n slots, slot i used by source srcs[i] ("" free) with its
 * latest byte at last[i]. */
static void table(struct admit_slot *s, unsigned n, const char *const *srcs,
		  const uint64_t *last)
{
	for (unsigned i = 0; i < n; i++) {
		memset(&s[i], 0, sizeof(s[i]));
		s[i].fd = srcs[i][0] ? 100 + (int)i : -1;
		if (s[i].fd >= 0)
			key_of(srcs[i], 24, 64, s[i].key);
		s[i].since_ns = last[i];
		s[i].last_ns = last[i];
	}
}

static void pick_drops_the_idlest_of_a_full_prefix_then_of_all(void **state)
{
	static struct admit_slot s[4];
	struct admit_conf c = { .max_handshakes = 4, .per_prefix = 2, .bits4 = 24, .bits6 = 64 };
	uint8_t k[ADMIT_KEY_LEN];
	int ev;

	(void)state;
	/* a free slot and room in the prefix: the free slot, nothing dropped */
	table(s, 4, (const char *const[]){ "10.0.0.1", "", "10.0.1.1", "" },
	      (const uint64_t[]){ 5, 0, 3, 0 });
	key_of("10.0.0.9", 24, 64, k);
	assert_int_equal(admit_pick(s, 4, &c, k, &ev), 1);
	assert_int_equal(ev, -1);
	/* the prefix holds per_prefix: its idlest goes (slot 2, latest byte 2),
	 * although slot 1 of another prefix is idler and a slot is free */
	table(s, 4, (const char *const[]){ "10.0.0.1", "10.0.1.1", "10.0.0.2", "" },
	      (const uint64_t[]){ 7, 1, 2, 0 });
	assert_int_equal(admit_pick(s, 4, &c, k, &ev), 2);
	assert_int_equal(ev, 2);
	/* the table is full, the prefix not: the idlest of all (slot 3) */
	table(s, 4, (const char *const[]){ "10.0.0.1", "10.0.1.1", "10.0.2.1", "10.0.3.1" },
	      (const uint64_t[]){ 7, 5, 6, 4 });
	assert_int_equal(admit_pick(s, 4, &c, k, &ev), 3);
	assert_int_equal(ev, 3);
}

static void log_limiter_three_lines_per_source_then_a_summary(void **state)
{
	struct admit_log l = { 0 };
	uint8_t a[ADMIT_KEY_LEN], b[ADMIT_KEY_LEN];
	char sum[400];
	bool has;
	unsigned lines = 0;

	(void)state;
	key_of("127.0.0.2", 24, 64, a);
	key_of("10.9.9.9", 24, 64, b);
	for (int i = 0; i < 2000; i++) {
		lines += admit_log_event(&l, a, 1000 + (uint64_t)i, 24, 64, sum, sizeof(sum), &has);
		assert_false(has);
	}
	assert_int_equal(lines, ADMIT_LOG_PER_SOURCE);
	/* another source still gets its lines */
	assert_true(admit_log_event(&l, b, 5000, 24, 64, sum, sizeof(sum), &has));
	/* the next interval: the summary of the last one, and lines again */
	uint64_t next = 1000 + ADMIT_LOG_INTERVAL_MS * 1000000ull;
	assert_true(admit_log_event(&l, a, next, 24, 64, sum, sizeof(sum), &has));
	assert_true(has);
	assert_err_has(sum, "2001 refused or dropped connections from 2 source prefixes");
	assert_err_has(sum, "1997 log lines suppressed (most from 127.0.0.0/24: 2000)");
}

static void escape_shows_control_bytes_and_caps_the_length(void **state)
{
	char out[64];

	(void)state;
	assert_int_equal(admit_escape("ok\nINFO session 9: forged\\", 100, out, sizeof(out)),
			 strlen("ok\\x0aINFO session 9: forged\\\\"));
	assert_string_equal(out, "ok\\x0aINFO session 9: forged\\\\");
	admit_escape("\x1b[2Jabc", 100, out, sizeof(out));
	assert_string_equal(out, "\\x1b[2Jabc");
	admit_escape("abcdefghij", 4, out, sizeof(out));
	assert_string_equal(out, "abcd...");
	/* a small output buffer: cut, still terminated, never a half escape */
	admit_escape("\n\n\n\n\n\n", 100, out, 12);
	assert_string_equal(out, "\\x0a\\x0a...");
}

/* ---- admit_next on a loopback listener ---------------------------------------- */

struct net {
	int lfd;
	uint16_t port;
	struct admit a;
	char token[CTRL_TOKEN_CAP + 1];
};

static int net_setup(void **state)
{
	struct net *n = calloc(1, sizeof(*n));
	struct sockaddr_in in = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_ANY) };
	socklen_t sl = sizeof(in);

	n->lfd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	assert_true(n->lfd >= 0);
	assert_int_equal(bind(n->lfd, (struct sockaddr *)&in, sizeof(in)), 0);
	assert_int_equal(listen(n->lfd, 256), 0);
	assert_int_equal(getsockname(n->lfd, (struct sockaddr *)&in, &sl), 0);
	n->port = ntohs(in.sin_port);
	snprintf(n->token, sizeof(n->token), "0123456789abcdef0123");
	struct admit_conf c = { .max_handshakes = 16, .per_prefix = 4, .bits4 = 24, .bits6 = 64,
				.hello_ms = 1000, .token = n->token };
	char err[256];
	assert_int_equal(admit_init(&n->a, &c, err, sizeof(err)), 0);
	*state = n;
	return 0;
}

static int net_teardown(void **state)
{
	struct net *n = *state;

	admit_free(&n->a);
	close(n->lfd);
	free(n);
	return 0;
}

/* A connection to the listener from source address src (127.x.y.z). */
static int dial(const struct net *n, const char *src)
{
	struct sockaddr_in me = { .sin_family = AF_INET }, to = { .sin_family = AF_INET };
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);

	assert_true(fd >= 0);
	inet_pton(AF_INET, src, &me.sin_addr);
	assert_int_equal(bind(fd, (struct sockaddr *)&me, sizeof(me)), 0);
	inet_pton(AF_INET, "127.0.0.1", &to.sin_addr);
	to.sin_port = htons(n->port);
	assert_int_equal(connect(fd, (struct sockaddr *)&to, sizeof(to)), 0);
	return fd;
}

static void send_hello(int fd, const char *token)
{
	struct ctrl_hello h = { .pid = 7 };
	uint8_t buf[CTRL_HDR_LEN + CTRL_HELLO_MAX];

	snprintf(h.host, sizeof(h.host), "client");
	snprintf(h.token, sizeof(h.token), "%s", token);
	size_t len = ctrl_encode_hello(buf, sizeof(buf), &h);
	assert_true(len > 0);
	assert_int_equal(send(fd, buf, len, 0), (ssize_t)len);
}

/* Run admission until a connection authenticates or ms pass: 1 with *p. */
static int run_until(struct net *n, unsigned ms, struct admit_peer *p)
{
	uint64_t end = timing_now_ns() + ms * 1000000ull;

	while (timing_now_ns() < end) {
		int r = admit_next(&n->a, n->lfd, 50, p);
		if (r)
			return r;
	}
	return 0;
}

/* What the server said before it closed fd (the ERROR's reason), or "". */
static void reason_of(int fd, char *out, size_t len)
{
	uint8_t buf[CTRL_HDR_LEN + 2 + CTRL_REASON_CAP];
	struct ctrl_msg m;
	char err[256];
	struct pollfd p = { .fd = fd, .events = POLLIN };
	ssize_t got = poll(&p, 1, 500) > 0 ? recv(fd, buf, sizeof(buf), MSG_DONTWAIT) : -1;

	out[0] = '\0';
	if (got > 0 && ctrl_decode(buf, (size_t)got, &m, err, sizeof(err)) == 0 &&
	    m.type == CTRL_ERROR)
		snprintf(out, len, "%.200s", m.u.error.reason);
}

static void idle_sockets_of_one_prefix_never_lock_out_a_token_holder(void **state)
{
	struct net *n = *state;
	struct admit_peer p;
	int idle[40];
	char why[256];

	/* 40 idle sockets from 127.0.0.2-41 (one /24), 4 per prefix allowed */
	for (int i = 0; i < 40; i++) {
		char src[32];
		snprintf(src, sizeof(src), "127.0.0.%d", 2 + i);
		idle[i] = dial(n, src);
		assert_int_equal(admit_next(&n->a, n->lfd, 5, &p), 0);
	}
	assert_int_equal(run_until(n, 100, &p), 0);
	assert_int_equal(n->a.st.evicted, 36);
	reason_of(idle[0], why, sizeof(why));
	assert_err_has(why, "dropped as the connection idle longest");
	/* the token holder, from the same /24, gets in at once */
	uint64_t t0 = timing_now_ns();
	int fd = dial(n, "127.0.0.200");
	send_hello(fd, n->token);
	assert_int_equal(run_until(n, 500, &p), 1);
	assert_true(timing_now_ns() - t0 < 300000000ull);
	assert_string_equal(p.hello.host, "client");
	assert_string_equal(p.hello.token, "");   /* wiped */
	close(p.fd);
	close(fd);
	for (int i = 0; i < 40; i++)
		close(idle[i]);
}

static void another_type_is_refused_on_its_header(void **state)
{
	struct net *n = *state;
	struct admit_peer p;
	uint8_t hdr[CTRL_HDR_LEN];
	char why[256];

	/* a SETUP header claiming 2 MiB: refused before a payload byte is read */
	size_t len = ctrl_encode_empty(hdr, sizeof(hdr), CTRL_SETUP);
	assert_int_equal(len, CTRL_HDR_LEN);
	hdr[8] = 0x00, hdr[9] = 0x20, hdr[10] = 0x00, hdr[11] = 0x00; /* payload length */
	int fd = dial(n, "127.0.0.5");
	assert_int_equal(send(fd, hdr, len, 0), (ssize_t)len);
	assert_int_equal(run_until(n, 200, &p), 0);
	reason_of(fd, why, sizeof(why));
	assert_true(why[0]);
	assert_int_equal(n->a.st.bad_header, 1);
	close(fd);
	/* a wrong token: refused, naming it */
	fd = dial(n, "127.0.0.6");
	send_hello(fd, "another-token-0123456");
	assert_int_equal(run_until(n, 200, &p), 0);
	reason_of(fd, why, sizeof(why));
	assert_err_has(why, "HELLO refused: wrong token");
	close(fd);
}

static void a_trickling_connection_is_dropped_at_its_deadline(void **state)
{
	struct net *n = *state;
	struct admit_peer p;
	uint8_t hello[CTRL_HDR_LEN + CTRL_HELLO_MAX];
	struct ctrl_hello h = { .pid = 1 };
	char why[256];

	size_t len = ctrl_encode_hello(hello, sizeof(hello), &h);
	int fd = dial(n, "127.0.0.7");
	uint64_t t0 = timing_now_ns();
	/* one byte every 100 ms: each byte arrives, the deadline still holds */
	size_t sent = 0;
	while (sent + 1 < len && timing_now_ns() - t0 < 1500000000ull) {
		if (send(fd, hello + sent, 1, MSG_NOSIGNAL) != 1)
			break;
		sent++;
		assert_int_equal(admit_next(&n->a, n->lfd, 100, &p), 0);
	}
	double s = (double)(timing_now_ns() - t0) / 1e9;
	assert_int_equal(n->a.st.timed_out, 1);
	assert_true(s >= 0.9 && s < 1.4);
	reason_of(fd, why, sizeof(why));
	close(fd);
}

/* poll(2) refuses more entries than RLIMIT_NOFILE (EINVAL): with 128
 * waiting slots configured and a limit of 32 descriptors, admit_next still
 * polls (only the slots in use) and serves a HELLO. */
static void more_slots_than_the_descriptor_limit(void **state)
{
	(void)state;
	struct rlimit old, low;
	assert_int_equal(getrlimit(RLIMIT_NOFILE, &old), 0);
	low = (struct rlimit){ 32, old.rlim_max }; /* the soft limit only: raised back below */
	struct net *n = NULL;
	void *st = NULL;
	net_setup(&st);
	n = st;
	admit_free(&n->a);
	struct admit_conf c = { .max_handshakes = 128, .per_prefix = 16, .bits4 = 24, .bits6 = 64,
				.hello_ms = 1000, .token = n->token };
	char err[256];
	assert_int_equal(admit_init(&n->a, &c, err, sizeof(err)), 0);
	if (old.rlim_cur < low.rlim_cur)
		low.rlim_cur = old.rlim_cur;
	assert_int_equal(setrlimit(RLIMIT_NOFILE, &low), 0);
	struct admit_peer p;
	assert_int_equal(admit_next(&n->a, n->lfd, 20, &p), 0);
	int fd = dial(n, "127.0.0.9");
	send_hello(fd, n->token);
	int r = 0;
	for (int i = 0; i < 40 && r == 0; i++)
		r = admit_next(&n->a, n->lfd, 50, &p);
	assert_int_equal(r, 1);
	close(p.fd);
	close(fd);
	assert_int_equal(setrlimit(RLIMIT_NOFILE, &old), 0);
	net_teardown(&st);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(prefix_keys_cut_to_24_and_64_and_map_ipv4),
		cmocka_unit_test(pick_drops_the_idlest_of_a_full_prefix_then_of_all),
		cmocka_unit_test(log_limiter_three_lines_per_source_then_a_summary),
		cmocka_unit_test(escape_shows_control_bytes_and_caps_the_length),
		cmocka_unit_test(more_slots_than_the_descriptor_limit),
		cmocka_unit_test_setup_teardown(idle_sockets_of_one_prefix_never_lock_out_a_token_holder,
						net_setup, net_teardown),
		cmocka_unit_test_setup_teardown(another_type_is_refused_on_its_header, net_setup,
						net_teardown),
		cmocka_unit_test_setup_teardown(a_trickling_connection_is_dropped_at_its_deadline,
						net_setup, net_teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
