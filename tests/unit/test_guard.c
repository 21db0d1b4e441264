/*
 * test_guard.c - the server's limits and admission (guard.h): per-point
 * caps and the --max-mem reservation, --allow CIDR parsing and matching,
 * peer string cleaning, the token compare and the token file.
 */
#include "unit.h"
#include <arpa/inet.h>
#include <linux/capability.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <sys/random.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "ctx.h"
#include "guard.h"
#include "session.h"

static char err[1024];

static struct rb_limits small_limits(void)
{
	return (struct rb_limits){
		.max_mem = 64ull << 20, .max_session_mem = 32ull << 20, .max_threads = 2,
		.max_qps = 1000, .max_duration_ms = 60000, .max_warmup_ms = 5000,
		.max_per_peer = 4, .client_timeout_s = 30,
	};
}

static struct rb_test point(void)
{
	struct rb_test t;
	test_defaults(&t);
	test_resolve_defaults(&t, NULL);
	t.iters = 1000;
	return t;
}

/* the device's max_cqe in these tests (rxe's) */
#define MAXCQE 32767u

/* Each term of the charge (guard.h, docs/rdma_bench.md): the one knob it
 * depends on changed alone moves it, and the total, by its formula. */
static void charge_buffer_term_is_the_registered_buffer(void **state)
{
	(void)state;
	struct rb_test t = point();
	struct rb_layout lay;
	struct guard_charge a, b;

	guard_point_charge(&t, false, MAXCQE, &a);
	t.size = 1 << 20;
	guard_point_charge(&t, false, MAXCQE, &b);
	layout_compute(&t, &lay);
	assert_int_equal(b.buffer, lay.total);
	assert_int_equal(b.total - a.total, b.buffer - a.buffer);
	assert_int_equal(b.total, b.buffer + b.queues + b.cqs + b.stacks + b.state);
}

static void charge_queue_term_is_wqes_of_every_qp(void **state)
{
	(void)state;
	struct rb_test t = point();
	struct guard_charge a, b;

	t.cq_depth = 4096; /* CQs fixed: only the queues move */
	guard_point_charge(&t, false, MAXCQE, &a);
	assert_int_equal(a.queues, (t.sq_depth + t.rq_depth) * GUARD_WQE_BYTES);
	t.sq_depth += 100;
	guard_point_charge(&t, false, MAXCQE, &b);
	assert_int_equal(b.queues - a.queues, 100u * GUARD_WQE_BYTES);
	assert_int_equal(b.total - a.total, 100u * GUARD_WQE_BYTES);
}

static void charge_cq_term_is_entries_per_thread(void **state)
{
	(void)state;
	struct rb_test t = point();
	struct guard_charge a, b;

	t.verb = RB_VERB_SEND;           /* a send CQ and a receive CQ per thread */
	t.cq_depth = 100000;             /* the client picks it, up to max_cqe */
	t.threads = 4;
	guard_point_charge(&t, false, 1u << 22, &a);
	assert_int_equal(a.cqs, 4ull * 2 * 100000 * GUARD_CQE_BYTES);
	t.cq_depth = 200000;
	guard_point_charge(&t, false, 1u << 22, &b);
	assert_int_equal(b.cqs - a.cqs, 4ull * 2 * 100000 * GUARD_CQE_BYTES);
	assert_int_equal(b.total - a.total, b.cqs - a.cqs);
	/* WRITE consumes no receive: a send CQ only */
	t.verb = RB_VERB_WRITE;
	guard_point_charge(&t, false, 1u << 22, &b);
	assert_int_equal(b.cqs, 4ull * 200000 * GUARD_CQE_BYTES);
	/* 32 threads of 4M-entry CQs (mlx5's max_cqe): charged, GiBs */
	t.verb = RB_VERB_SEND;
	t.threads = 32;
	t.cq_depth = 1u << 22;
	guard_point_charge(&t, false, 1u << 22, &b);
	assert_true(b.total > (16ull << 30));
}

static void charge_stack_term_only_for_an_active_side(void **state)
{
	(void)state;
	struct rb_test t = point();
	struct guard_charge a, b;

	t.threads = 3;
	guard_point_charge(&t, false, MAXCQE, &a);
	guard_point_charge(&t, true, MAXCQE, &b);
	assert_int_equal(a.stacks, 0);
	assert_int_equal(b.stacks, 3ull * GUARD_STACK_BYTES);
	assert_int_equal(b.total - a.total, 3ull * GUARD_STACK_BYTES);
}

static void charge_state_term_per_point_and_qp(void **state)
{
	(void)state;
	struct rb_test t = point();
	struct guard_charge a, b;

	guard_point_charge(&t, false, MAXCQE, &a);
	assert_int_equal(a.state, GUARD_STATE_BYTES + GUARD_QP_STATE_BYTES);
	t.emulated_peers = 10;
	guard_point_charge(&t, false, MAXCQE, &b);
	assert_int_equal(b.state, GUARD_STATE_BYTES + 10u * GUARD_QP_STATE_BYTES);
}

/* QPs and threads are shared limits: two sessions' points together */
static void qps_and_threads_count_across_sessions(void **state)
{
	(void)state;
	struct rb_limits l = small_limits();
	struct rb_test t = point();
	struct guard_usage used = { 0 }, g1, g2;

	l.max_mem = 1ull << 40;
	l.max_session_mem = 1ull << 39;
	t.threads = 2;
	t.verb = RB_VERB_SEND;
	assert_int_equal(guard_admit_point(&t, true, MAXCQE, &l, &used, &g1, err, sizeof(err)), 0);
	assert_int_equal(used.threads, 2);
	/* a second point of 2 threads: above --max-threads 2 together */
	assert_int_equal(guard_admit_point(&t, true, MAXCQE, &l, &used, &g2, err, sizeof(err)), -1);
	assert_err_has(err, "--threads 2 above what the server's --max-threads 2 leaves free (2 ");
	assert_int_equal(g2.threads, 0);
	/* QPs: 600 + 600 above --max-qps 1000 */
	used = (struct guard_usage){ 0 };
	t = point();
	t.emulated_peers = 600;
	assert_int_equal(guard_admit_point(&t, false, MAXCQE, &l, &used, &g1, err, sizeof(err)), 0);
	/* no server worker threads for a point the server only answers */
	assert_int_equal(g1.threads, 0);
	assert_int_equal(used.threads, 0);
	assert_int_equal(guard_admit_point(&t, false, MAXCQE, &l, &used, &g2, err, sizeof(err)), -1);
	assert_err_has(err, "600 QPs above what the server's --max-qps 1000 leaves free (600 in use");
	assert_int_equal(used.qps, 600);
	assert_int_equal(used.mem, g1.mem);
}

static void per_point_limits_name_value_and_flag(void **state)
{
	(void)state;
	struct rb_limits l = small_limits();
	struct rb_test t = point();

	assert_int_equal(guard_check_point(&t, true, MAXCQE, &l, err, sizeof(err)), 0);
	/* --max-session-mem is the most a point may take: at the point's own
	 * bytes it is served, one byte below refused */
	l.max_session_mem = guard_point_bytes(&t, true, MAXCQE);
	assert_int_equal(guard_check_point(&t, true, MAXCQE, &l, err, sizeof(err)), 0);
	l.max_session_mem--;
	assert_int_equal(guard_check_point(&t, true, MAXCQE, &l, err, sizeof(err)), -1);
	assert_err_has(err, "above the server's --max-session-mem");
	l = small_limits();
	/* 500 emulated peers x 2 threads = 1000 QPs: exactly at the limit
	 * (256 WQEs x 256 bytes each = 64 MiB of queues: under 128 MiB) */
	l.max_session_mem = 128ull << 20;
	t.emulated_peers = 500;
	t.threads = 2;
	assert_int_equal(guard_check_point(&t, false, MAXCQE, &l, err, sizeof(err)), 0);
	t.emulated_peers = 501;
	assert_int_equal(guard_check_point(&t, false, MAXCQE, &l, err, sizeof(err)), -1);
	assert_err_has(err, "1002 QPs above the server's --max-qps 1000");
	l = small_limits();

	t = point();
	t.threads = 3;
	assert_int_equal(guard_check_point(&t, true, MAXCQE, &l, err, sizeof(err)), -1);
	assert_err_has(err, "--threads 3 above the server's --max-threads 2");
	/* a passive server side runs no threads: not its limit */
	assert_int_equal(guard_check_point(&t, false, MAXCQE, &l, err, sizeof(err)), 0);

	t = point();
	t.iters = 0;
	t.duration_ms = 60001;
	assert_int_equal(guard_check_point(&t, true, MAXCQE, &l, err, sizeof(err)), -1);
	assert_err_has(err, "-D 60.001 s above the server's --max-duration 60.000 s");
	t.duration_ms = 60000;
	t.warmup_ms = 5001;
	assert_int_equal(guard_check_point(&t, true, MAXCQE, &l, err, sizeof(err)), -1);
	assert_err_has(err, "--warmup 5.001 s above the server's --max-warmup 5.000 s");
	t.warmup_ms = 5000; /* exactly at the limit: taken */
	assert_int_equal(guard_check_point(&t, true, MAXCQE, &l, err, sizeof(err)), 0);

	t = point();
	t.size = 64ull << 20;
	assert_int_equal(guard_check_point(&t, true, MAXCQE, &l, err, sizeof(err)), -1);
	assert_err_has(err, "MiB above the server's --max-session-mem 32.0 MiB");
}

/*
 * A point above a limit is refused like any configuration refused before it
 * is measured: the reason starts with RB_REFUSED_PREFIX (the client's row
 * skipped, exit 2), then the value, the flag and the limit; within 95 bytes
 * of "refused by the server: " (the row's reason column) the flag and the
 * limit are kept. An admitted point reserves its bytes; a refused one none.
 */
static void admit_refuses_with_the_flag_first(void **state)
{
	(void)state;
	struct rb_limits l = small_limits();
	struct rb_test t = point();
	struct guard_usage used = { 0 }, got = { .mem = 99 };
	static const char row_pfx[] = "refused by the server: ";

	assert_int_equal(guard_admit_point(&t, true, MAXCQE, &l, &used, &got, err, sizeof(err)), 0);
	assert_int_equal(got.mem, guard_point_bytes(&t, true, MAXCQE));
	assert_int_equal(used.mem, got.mem);

	used = (struct guard_usage){ 0 };
	t.emulated_peers = 1001;
	assert_int_equal(guard_admit_point(&t, true, MAXCQE, &l, &used, &got, err, sizeof(err)), -1);
	assert_int_equal(got.mem, 0);
	assert_int_equal(used.mem, 0);
	if (strncmp(err, RB_REFUSED_PREFIX "1001 QPs above the server's --max-qps 1000",
		    strlen(RB_REFUSED_PREFIX "1001 QPs above the server's --max-qps 1000")) != 0)
		fail_msg("refusal \"%s\" does not start with the prefix, value, flag, limit", err);
	/* what the client's row keeps: its prefix and the first 95 bytes */
	char row[256];
	snprintf(row, sizeof(row), "%s%.200s", row_pfx, err + strlen(RB_REFUSED_PREFIX));
	row[95] = '\0';
	if (!strstr(row, "--max-qps 1000"))
		fail_msg("row reason \"%s\" lost the flag and limit", row);

	/* --max-mem held by other sessions: refused with the same prefix */
	t = point();
	used = (struct guard_usage){ .mem = l.max_mem - 1 };
	assert_int_equal(guard_admit_point(&t, true, MAXCQE, &l, &used, &got, err, sizeof(err)), -1);
	assert_int_equal(used.mem, l.max_mem - 1);
	if (strncmp(err, RB_REFUSED_PREFIX, strlen(RB_REFUSED_PREFIX)) != 0)
		fail_msg("refusal \"%s\" lacks the prefix \"%s\"", err, RB_REFUSED_PREFIX);
	assert_err_has(err, "MiB above what the server's --max-mem 64.0 MiB leaves free");
	snprintf(row, sizeof(row), "%s%.200s", row_pfx, err + strlen(RB_REFUSED_PREFIX));
	row[95] = '\0';
	if (!strstr(row, "--max-mem 64.0 MiB"))
		fail_msg("row reason \"%s\" lost the flag and limit", row);
}

static void mem_reserve_stops_at_max_mem(void **state)
{
	(void)state;
	uint64_t used = 0, max = 100;

	assert_int_equal(guard_mem_reserve(&used, 60, max, err, sizeof(err)), 0);
	assert_int_equal(used, 60);
	assert_int_equal(guard_mem_reserve(&used, 40, max, err, sizeof(err)), 0);
	assert_int_equal(used, 100);
	assert_int_equal(guard_mem_reserve(&used, 1, max, err, sizeof(err)), -1);
	assert_err_has(err, "above what the server's --max-mem");
	assert_int_equal(used, 100);
	/* an amount that would wrap around is refused, not wrapped */
	used = 10;
	assert_int_equal(guard_mem_reserve(&used, UINT64_MAX - 5, UINT64_MAX, err, sizeof(err)), -1);
	assert_int_equal(used, 10);
}

/* the host's memory from sysconf's counts; 1 GiB when one is unknown (-1) */
static void phys_bytes_is_pages_times_page_size_else_1_gib(void **state)
{
	(void)state;
	assert_int_equal(guard_phys_bytes(1000, 4096), 4096000);
	assert_int_equal(guard_phys_bytes(6291456, 4096), 24ull << 30);
	assert_int_equal(guard_phys_bytes(-1, 4096), 1ull << 30);
	assert_int_equal(guard_phys_bytes(1000, -1), 1ull << 30);
	assert_int_equal(guard_phys_bytes(0, 4096), 1ull << 30);
	assert_int_equal(guard_phys_bytes(1, 4096), 4096);
	assert_int_equal(guard_phys_bytes(1000, 1), 1000);
}

static void defaults_fill_only_what_is_zero(void **state)
{
	(void)state;
	struct rb_limits l = { .max_mem = 1ull << 30, .max_threads = 0, .max_session_mem = 0 };
	char why[160];

	guard_limits_defaults(&l, why, sizeof(why));
	assert_int_equal(l.max_mem, 1ull << 30);
	assert_int_equal(l.max_session_mem, 1ull << 29);
	assert_true(l.max_threads >= 1);
	assert_string_equal(why, "given");
	l = (struct rb_limits){ 0 };
	guard_limits_defaults(&l, why, sizeof(why));
	assert_true(l.max_mem > 0);
	assert_true(strstr(why, "memory") != NULL);
	/* one address's threads: half the server's, at least 4, at most all */
	l = (struct rb_limits){ .max_mem = 1ull << 30, .max_threads = 10 };
	guard_limits_defaults(&l, NULL, 0);
	assert_int_equal(l.max_peer_threads, 5);
	l = (struct rb_limits){ .max_mem = 1ull << 30, .max_threads = 7 };
	guard_limits_defaults(&l, NULL, 0);
	assert_int_equal(l.max_peer_threads, 4);
	l = (struct rb_limits){ .max_mem = 1ull << 30, .max_threads = 3 };
	guard_limits_defaults(&l, NULL, 0);
	assert_int_equal(l.max_peer_threads, 3);
	l = (struct rb_limits){ .max_mem = 1ull << 30, .max_threads = 64, .max_peer_threads = 9 };
	guard_limits_defaults(&l, NULL, 0);
	assert_int_equal(l.max_peer_threads, 9);
}

/* The effective capability set of this process with bit CAP_ON set and bit
 * CAP_OFF cleared (each within the permitted set, as capset(2) requires);
 * 0, or -1 when the kernel refuses. */
static int caps_effective(int cap_on, int cap_off)
{
	struct __user_cap_header_struct h = { .version = _LINUX_CAPABILITY_VERSION_3 };
	struct __user_cap_data_struct d[2];

	if (syscall(SYS_capget, &h, d) != 0)
		return -1;
	d[cap_on / 32].effective |= 1u << (cap_on % 32);
	d[cap_off / 32].effective &= ~(1u << (cap_off % 32));
	return syscall(SYS_capset, &h, d) == 0 ? 0 : -1;
}

/* 0 when the default --max-mem follows RLIMIT_MEMLOCK (1 MiB here) exactly
 * when CAP_IPC_LOCK (14) is not effective, tried with CAP_IPC_OWNER (15),
 * its neighbour, in the opposite state; run in a child (the capabilities
 * and the limit stay changed), its exit status the step that failed. */
static int memlock_follows_cap_ipc_lock(void)
{
	struct rlimit rl = { 1 << 20, 1 << 20 };
	struct rb_limits l = { 0 };
	char why[160];

	if (setrlimit(RLIMIT_MEMLOCK, &rl) != 0 || caps_effective(CAP_IPC_OWNER, CAP_IPC_LOCK) != 0)
		return 1;
	guard_limits_defaults(&l, why, sizeof(why));
	if (l.max_mem != 1 << 20 || strstr(why, "RLIMIT_MEMLOCK") == NULL)
		return 2;
	if (caps_effective(CAP_IPC_LOCK, CAP_IPC_OWNER) != 0)
		return 3;
	l = (struct rb_limits){ 0 };
	guard_limits_defaults(&l, why, sizeof(why));
	if (l.max_mem <= 1 << 20 || strstr(why, "half of") != why)
		return 4;
	return 0;
}

/* CAP_IPC_LOCK lifts RLIMIT_MEMLOCK (capabilities(7)): without it the
 * default --max-mem is the lock limit, with it half of memory. Needs
 * CAP_IPC_LOCK and CAP_IPC_OWNER in the permitted set (root). */
static void default_max_mem_follows_cap_ipc_lock(void **state)
{
	(void)state;
	struct __user_cap_header_struct h = { .version = _LINUX_CAPABILITY_VERSION_3 };
	struct __user_cap_data_struct d[2];
	int st = 0;

	assert_int_equal(syscall(SYS_capget, &h, d), 0);
	if (!(d[0].permitted & (1u << CAP_IPC_LOCK)) || !(d[0].permitted & (1u << CAP_IPC_OWNER)))
		skip(); /* not root: cannot take CAP_IPC_LOCK in and out */
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0)
		_exit(memlock_follows_cap_ipc_lock());
	assert_int_equal(waitpid(pid, &st, 0), pid);
	assert_true(WIFEXITED(st));
	assert_int_equal(WEXITSTATUS(st), 0);
}

/* --max-session-mem above --max-mem is refused, naming both (not clamped). */
static void session_mem_above_max_mem_is_refused(void **state)
{
	(void)state;
	struct rb_limits l = { .max_mem = 1ull << 20, .max_session_mem = 2ull << 20 };
	char err[512] = "";

	assert_int_equal(guard_limits_check(&l, "given", err, sizeof(err)), -1);
	assert_non_null(strstr(err, "--max-session-mem 2 MiB above --max-mem 1 MiB (given)"));
	assert_non_null(strstr(err, "at most 1 MiB"));
	/* where --max-mem came from is said as given to it, even one letter */
	assert_int_equal(guard_limits_check(&l, "x", err, sizeof(err)), -1);
	assert_non_null(strstr(err, "--max-mem 1 MiB (x)"));
	l.max_session_mem = 1ull << 20;
	assert_int_equal(guard_limits_check(&l, "given", err, sizeof(err)), 0);
	l = (struct rb_limits){ .max_mem = 1ull << 20 };
	guard_limits_defaults(&l, NULL, 0);
	assert_int_equal(guard_limits_check(&l, "given", err, sizeof(err)), 0);
	assert_int_equal(l.max_session_mem, 512ull << 10);
}

static struct sockaddr_storage addr4(const char *s)
{
	struct sockaddr_storage ss = { 0 };
	struct sockaddr_in *a = (struct sockaddr_in *)&ss;
	a->sin_family = AF_INET;
	assert_int_equal(inet_pton(AF_INET, s, &a->sin_addr), 1);
	return ss;
}

static struct sockaddr_storage addr6(const char *s)
{
	struct sockaddr_storage ss = { 0 };
	struct sockaddr_in6 *a = (struct sockaddr_in6 *)&ss;
	a->sin6_family = AF_INET6;
	assert_int_equal(inet_pton(AF_INET6, s, &a->sin6_addr), 1);
	return ss;
}

static bool allows(const struct guard_cidr *l, int n, struct sockaddr_storage ss)
{
	return guard_cidr_allows(l, n, (const struct sockaddr *)&ss);
}

static void cidr_lists_match_v4_v6_and_mapped(void **state)
{
	(void)state;
	struct guard_cidr l[GUARD_MAX_CIDRS];
	int n = 0;

	assert_int_equal(guard_cidr_parse("198.18.0.0/15,10.1.2.3,fd00::/8", l, GUARD_MAX_CIDRS, &n,
					  err, sizeof(err)), 0);
	assert_int_equal(n, 3);
	assert_true(allows(l, n, addr4("198.18.0.1")));
	assert_true(allows(l, n, addr4("198.19.255.255")));
	assert_false(allows(l, n, addr4("198.20.0.1")));
	assert_false(allows(l, n, addr4("198.17.255.255")));
	assert_true(allows(l, n, addr4("10.1.2.3")));
	assert_false(allows(l, n, addr4("10.1.2.4")));
	assert_true(allows(l, n, addr6("fd12::1")));
	assert_false(allows(l, n, addr6("fe80::1")));
	/* an IPv4 client seen by an IPv6 listener */
	assert_true(allows(l, n, addr6("::ffff:198.18.0.7")));
	assert_false(allows(l, n, addr6("::ffff:192.168.0.7")));
	/* /0 takes its family only */
	assert_int_equal(guard_cidr_parse("0.0.0.0/0", l, GUARD_MAX_CIDRS, &n, err, sizeof(err)), 0);
	assert_true(allows(l, n, addr4("203.0.113.9")));
	assert_false(allows(l, n, addr6("2001:db8::1")));
	/* an empty list allows nothing */
	assert_false(allows(l, 0, addr4("127.0.0.1")));
}

static void same_ip_ignores_ports_and_v4_mapping(void **state)
{
	(void)state;
	struct sockaddr_storage a = addr4("198.18.0.1"), b = addr6("::ffff:198.18.0.1");
	struct sockaddr_storage c = addr4("198.18.0.2"), lo = addr6("::ffff:127.0.0.1");
	const struct sockaddr *pa = (const struct sockaddr *)&a, *pb = (const struct sockaddr *)&b;
	const struct sockaddr *pc = (const struct sockaddr *)&c;
	char text[64];

	((struct sockaddr_in *)&a)->sin_port = htons(1000);
	assert_true(guard_same_ip(pa, pb));
	assert_false(guard_same_ip(pa, pc));
	struct sockaddr_storage v6 = addr6("fd00::1"), v6b = addr6("fd00::2");
	assert_true(guard_same_ip((const struct sockaddr *)&v6, (const struct sockaddr *)&v6));
	assert_false(guard_same_ip((const struct sockaddr *)&v6, (const struct sockaddr *)&v6b));
	assert_true(guard_is_loopback((const struct sockaddr *)&lo));
	struct sockaddr_storage lo6 = addr6("::1"), lo4 = addr4("127.3.0.1");
	assert_true(guard_is_loopback((const struct sockaddr *)&lo6));
	assert_true(guard_is_loopback((const struct sockaddr *)&lo4));
	assert_false(guard_is_loopback(pa));
	guard_ip_text(pb, text, sizeof(text));
	assert_string_equal(text, "198.18.0.1");
	guard_ip_text((const struct sockaddr *)&v6b, text, sizeof(text));
	assert_string_equal(text, "fd00::2");
}

static void cidr_typos_are_refused(void **state)
{
	(void)state;
	struct guard_cidr l[4];
	int n = 0;

	assert_int_equal(guard_cidr_parse("10.1.2.3/8", l, 4, &n, err, sizeof(err)), -1);
	assert_err_has(err, "bits set beyond the /8 prefix");
	assert_int_equal(guard_cidr_parse("10.0.0.0/33", l, 4, &n, err, sizeof(err)), -1);
	assert_err_has(err, "above 32 bits");
	/* the full lengths, one host, are prefixes too */
	assert_int_equal(guard_cidr_parse("10.0.0.1/32", l, 4, &n, err, sizeof(err)), 0);
	assert_int_equal(guard_cidr_parse("fd00::1/128", l, 4, &n, err, sizeof(err)), 0);
	assert_int_equal(guard_cidr_parse("fd00::1/129", l, 4, &n, err, sizeof(err)), -1);
	assert_err_has(err, "above 128 bits");
	/* a long prefix length is named as a length, not as "not digits" */
	assert_int_equal(guard_cidr_parse("10.0.0.0/10000", l, 4, &n, err, sizeof(err)), -1);
	assert_err_has(err, "prefix /10000 above 32 bits");
	assert_int_equal(guard_cidr_parse("cluster.example", l, 4, &n, err, sizeof(err)), -1);
	assert_err_has(err, "not an IPv4 or IPv6 address");
	assert_int_equal(guard_cidr_parse("10.0.0.0/8,", l, 4, &n, err, sizeof(err)), -1);
	assert_err_has(err, "empty item");
	assert_int_equal(guard_cidr_parse("10.0.0.0/", l, 4, &n, err, sizeof(err)), -1);
	assert_err_has(err, "no prefix length");
	assert_int_equal(guard_cidr_parse("/8", l, 4, &n, err, sizeof(err)), -1);
	assert_err_has(err, "--allow '/8': expected an address or ADDRESS/BITS");
	assert_int_equal(guard_cidr_parse("1.0.0.0/8,2.0.0.0/8,3.0.0.0/8,4.0.0.0/8,5.0.0.0/8", l, 4,
					  &n, err, sizeof(err)), -1);
	assert_err_has(err, "more than 4 networks");
	/* an item of 128 characters is refused by its length, which is named */
	char big[160];
	memset(big, '1', 128);
	big[128] = '\0';
	assert_int_equal(guard_cidr_parse(big, l, 4, &n, err, sizeof(err)), -1);
	assert_err_has(err, "item longer than 127 characters");
	/* an address part of 54 characters (INET6_ADDRSTRLEN + 8) is refused
	 * by its length, one of 53 is read and refused as no address */
	memset(big, 'a', 54);
	big[54] = '\0';
	assert_int_equal(guard_cidr_parse(big, l, 4, &n, err, sizeof(err)), -1);
	assert_err_has(err, "expected an address or ADDRESS/BITS");
	big[53] = '\0';
	assert_int_equal(guard_cidr_parse(big, l, 4, &n, err, sizeof(err)), -1);
	assert_err_has(err, "is not an IPv4 or IPv6 address");
}

/*
 * The servers' limits banner names every limit with its option, the HELLO
 * time, --allow ("any address" for an empty list, whatever its buffer
 * holds after the NUL) and whether a token is set.
 */
static void limits_banner_names_every_limit(void **state)
{
	(void)state;
	struct rb_limits l = {
		.max_mem = UINT64_C(1) << 30, .max_session_mem = UINT64_C(1) << 29,
		.max_threads = 16, .max_peer_threads = 8, .max_qps = 1000,
		.max_duration_ms = 60000, .max_warmup_ms = 5000, .max_per_peer = 4,
		.max_handshakes = 64, .handshakes_per_prefix = 12, .prefix_v4 = 24,
		.prefix_v6 = 56, .client_timeout_s = 30,
	};
	char buf[1024], none[4] = "\0x";

	assert_ptr_equal(guard_limits_text(&l, "given", 5, none, false, buf, sizeof(buf)), buf);
	assert_err_has(buf, "limits: --max-mem 1 GiB (given), per session --max-session-mem "
		       "512 MiB, --max-threads 16 (all sessions, 8 per address), --max-qps 1000 "
		       "(all sessions), --max-duration 60 s, --max-warmup 5 s; --max-per-peer 4, "
		       "--max-handshakes 64 (12 per /24 or /56 source prefix), HELLO within 5 s, "
		       "--client-timeout 30 s; --allow any address; --token-file none");
	guard_limits_text(&l, "given", 5, "10.0.0.0/8", true, buf, sizeof(buf));
	assert_err_has(buf, "--allow 10.0.0.0/8; --token-file set");
}

static void control_bytes_are_found_and_escaped(void **state)
{
	(void)state;
	char s[64];

	assert_int_equal(guard_str_bad_byte("node-01 ok~", 11), -1);
	assert_int_equal(guard_str_bad_byte("ab\ncd", 5), 2);
	assert_int_equal(guard_str_bad_byte("\x1b[2J", 4), 0);
	assert_int_equal(guard_str_bad_byte("x\x7f", 2), 1);
	assert_int_equal(guard_str_bad_byte("tab\there", 8), 3);
	/* UTF-8 bytes (>= 0x80) are not control bytes */
	assert_int_equal(guard_str_bad_byte("n\xc3\xb8" "de", 5), -1);
	snprintf(s, sizeof(s), "a\r\nb\x1b]0;t\x07\x7f x~\x1f");
	guard_str_escape(s);
	assert_string_equal(s, "a??b?]0;t?? x~?");  /* space and ~ kept; 0x1f, 0x7f not */
}

static void token_compare_is_exact(void **state)
{
	(void)state;
	assert_true(guard_token_equal("0123456789abcdef", "0123456789abcdef", 64));
	assert_false(guard_token_equal("0123456789abcdef", "0123456789abcdeF", 64));
	assert_false(guard_token_equal("0123456789abcdef", "1123456789abcdef", 64));
	/* a prefix is not the token, either way round */
	assert_false(guard_token_equal("0123456789abcdef", "0123456789abcde", 64));
	assert_false(guard_token_equal("0123456789abcde", "0123456789abcdef", 64));
	assert_false(guard_token_equal("0123456789abcdef", "", 64));
	assert_true(guard_token_equal("", "", 64));
	/* byte cap (the NUL of a cap-byte token) is compared too: a string one
	 * byte longer than cap is not its cap-byte prefix (fails closed) */
	assert_true(guard_token_equal("abcd", "abcd", 4));
	assert_false(guard_token_equal("abcde", "abcd", 4));
	assert_false(guard_token_equal("abcd", "abcde", 4));
}

static void write_file(const char *path, const char *text, mode_t mode)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	close(fd);
	assert_int_equal(chmod(path, mode), 0);
}

/* guard_token_load(path) in a child running as uid/gid 65534: 0 when it
 * was refused as permission denied naming that uid and the fix, else 1
 * (3: the child could not drop to 65534). */
static int token_load_as_nobody(const char *path)
{
	int st = 0;
	pid_t pid = fork();

	assert_true(pid >= 0);
	if (pid == 0) {
		char e[1024], t[65];
		if (setgid(65534) || setuid(65534))
			_exit(3);
		int rc = guard_token_load(path, t, sizeof(t), 64, e, sizeof(e));
		_exit(rc == -1 && strstr(e, ": permission denied: uid 65534") &&
		      strstr(e, "run as the file's owner") ? 0 : 1);
	}
	assert_int_equal(waitpid(pid, &st, 0), pid);
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static void token_file_is_private_and_plain(void **state)
{
	(void)state;
	char dir[] = "/tmp/test_guard.XXXXXX";
	char path[128], link[128], tok[65];

	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/token", dir);
	snprintf(link, sizeof(link), "%s/link", dir);

	write_file(path, "0123456789abcdef0123\n", 0600);
	memset(tok, 'X', sizeof(tok) - 1); /* the token ends with its own NUL */
	tok[sizeof(tok) - 1] = '\0';
	assert_int_equal(guard_token_load(path, tok, sizeof(tok), 64, err, sizeof(err)), 0);
	assert_string_equal(tok, "0123456789abcdef0123");
	/* readable by others */
	assert_int_equal(chmod(path, 0644), 0);
	assert_int_equal(guard_token_load(path, tok, sizeof(tok), 64, err, sizeof(err)), -1);
	assert_err_has(err, "chmod 600");
	/* a symbolic link */
	assert_int_equal(chmod(path, 0600), 0);
	assert_int_equal(symlink(path, link), 0);
	assert_int_equal(guard_token_load(link, tok, sizeof(tok), 64, err, sizeof(err)), -1);
	assert_err_has(err, "symbolic link");
	/* too short, and a space inside */
	write_file(path, "short\n", 0600);
	assert_int_equal(guard_token_load(path, tok, sizeof(tok), 64, err, sizeof(err)), -1);
	assert_err_has(err, "needs 16..64");
	write_file(path, "0123456789 abcdef0123\n", 0600);
	assert_int_equal(guard_token_load(path, tok, sizeof(tok), 64, err, sizeof(err)), -1);
	assert_err_has(err, "byte 11 of the token is not a printable character");
	/* a directory, a missing file, one this user may not read: each named
	 * as such, with the path and the command that makes a token file */
	assert_int_equal(guard_token_load(dir, tok, sizeof(tok), 64, err, sizeof(err)), -1);
	assert_err_has(err, dir);
	assert_err_has(err, ": a directory, not a regular file");
	assert_err_has(err, "/token))");
	assert_err_has(err, "od -An -tx1 -N16 /dev/urandom");
	unlink(path);
	assert_int_equal(guard_token_load(path, tok, sizeof(tok), 64, err, sizeof(err)), -1);
	assert_err_has(err, ": no such file; create it");
	assert_err_has(err, "mode 600");
	assert_err_has(err, path);
	write_file(path, "0123456789abcdef0123\n", 0600);
	assert_int_equal(chmod(path, 0), 0);
	/* root reads a mode-000 file: then the load runs as uid 65534 */
	if (geteuid() != 0) {
		assert_int_equal(guard_token_load(path, tok, sizeof(tok), 64, err, sizeof(err)),
				 -1);
		assert_err_has(err, ": permission denied: uid");
		assert_err_has(err, "run as the file's owner");
	} else {
		assert_int_equal(token_load_as_nobody(path), 0);
	}
	unlink(link);
	unlink(path);
	rmdir(dir);
}

/*
 * Observed getrandom(): this definition takes precedence over the C
 * library's for guard_random in librdmabench.a. With gr_short > 0 each call
 * fills at most gr_short bytes with its own number (1, 2, ...) instead of
 * random ones; gr_eintr > 0 first fails that many calls with EINTR,
 * gr_zero > 0 then returns 0 bytes that many times, gr_errno > 0 fails
 * every call with it.
 */
static size_t gr_short;
static int gr_eintr, gr_zero, gr_errno;
static uint8_t gr_calls;

ssize_t getrandom(void *buf, size_t n, unsigned int flags)
{
	if (gr_eintr > 0 || gr_errno > 0) {
		errno = gr_eintr > 0 ? EINTR : gr_errno;
		gr_eintr -= gr_eintr > 0;
		return -1;
	}
	if (gr_zero > 0) {
		gr_zero--;
		return 0;
	}
	if (gr_short == 0)
		return syscall(SYS_getrandom, buf, n, flags);
	n = n < gr_short ? n : gr_short;
	memset(buf, ++gr_calls, n);
	return (ssize_t)n;
}

/* A short read continues where it stopped; EINTR and 0 bytes are retried;
 * an error is named. */
static void random_fills_the_buffer_across_short_reads(void **state)
{
	(void)state;
	uint8_t buf[40] = { 0 };

	gr_short = 16;
	gr_eintr = 1;
	gr_zero = 1;
	gr_calls = 0;
	int rc = guard_random(buf, sizeof(buf), err, sizeof(err));
	gr_short = 0;
	assert_int_equal(rc, 0);
	assert_int_equal(gr_calls, 3);  /* 16 + 16 + 8 bytes */
	for (size_t i = 0; i < sizeof(buf); i++)
		assert_int_equal(buf[i], 1 + i / 16);
	gr_errno = ENOSYS;
	rc = guard_random(buf, sizeof(buf), err, sizeof(err));
	gr_errno = 0;
	assert_int_equal(rc, -1);
	assert_err_has(err, "getrandom: ");
	assert_err_has(err, strerror(ENOSYS));
}

static void random_bytes_differ(void **state)
{
	(void)state;
	uint64_t a = 0, b = 0;

	assert_int_equal(guard_random(&a, sizeof(a), err, sizeof(err)), 0);
	assert_int_equal(guard_random(&b, sizeof(b), err, sizeof(err)), 0);
	/* two 64-bit draws are equal with probability 2^-64 */
	assert_true(a != b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(phys_bytes_is_pages_times_page_size_else_1_gib),
		cmocka_unit_test(charge_buffer_term_is_the_registered_buffer),
		cmocka_unit_test(charge_queue_term_is_wqes_of_every_qp),
		cmocka_unit_test(charge_cq_term_is_entries_per_thread),
		cmocka_unit_test(charge_stack_term_only_for_an_active_side),
		cmocka_unit_test(charge_state_term_per_point_and_qp),
		cmocka_unit_test(qps_and_threads_count_across_sessions),
		cmocka_unit_test(session_mem_above_max_mem_is_refused),
		cmocka_unit_test(per_point_limits_name_value_and_flag),
		cmocka_unit_test(admit_refuses_with_the_flag_first),
		cmocka_unit_test(mem_reserve_stops_at_max_mem),
		cmocka_unit_test(defaults_fill_only_what_is_zero),
		cmocka_unit_test(default_max_mem_follows_cap_ipc_lock),
		cmocka_unit_test(cidr_lists_match_v4_v6_and_mapped),
		cmocka_unit_test(cidr_typos_are_refused),
		cmocka_unit_test(same_ip_ignores_ports_and_v4_mapping),
		cmocka_unit_test(control_bytes_are_found_and_escaped),
		cmocka_unit_test(token_compare_is_exact),
		cmocka_unit_test(token_file_is_private_and_plain),
		cmocka_unit_test(random_bytes_differ),
		cmocka_unit_test(limits_banner_names_every_limit),
		cmocka_unit_test(random_fills_the_buffer_across_short_reads),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
