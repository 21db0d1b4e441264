/*
 * guard.c - limits, admission and clean strings of a server on a shared
 * cluster (guard.h).
 *
 * How it works: every check is a small pure function over a TEST, an
 * address or a string, so the server calls it before it allocates, pins,
 * starts a thread or writes a log line, and a unit test can call it with
 * any value. Only guard_limits_defaults (sysconf, getrlimit,
 * /proc/self/status), guard_token_load (one file) and guard_random
 * (getrandom) touch the host.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ctx.h"
#include "plan.h"
#include "verb.h"
#include "errbuf.h"
#include "units.h"
#include "guard.h"
#include "session.h"

/* a * b (+ c) saturating at UINT64_MAX */
static uint64_t mul_sat(uint64_t a, uint64_t b)
{
	uint64_t r;
	return __builtin_mul_overflow(a, b, &r) ? UINT64_MAX : r;
}

static uint64_t add_sat(uint64_t a, uint64_t b)
{
	uint64_t r;
	return __builtin_add_overflow(a, b, &r) ? UINT64_MAX : r;
}

void guard_point_charge(const struct rb_test *t, bool server_active, uint64_t max_cqe,
			struct guard_charge *c)
{
	struct rb_layout lay;
	uint64_t nqp = mul_sat(test_qps_per_thread(t), t->threads);
	uint64_t s = 0, r = 0;
	char why[256];

	layout_compute(t, &lay);
	/* the CQ sizes ctx_create will ask for; a point they refuse is charged
	 * its --cq-depth (it is refused before a CQ exists) */
	if (plan_cq_depths(t, lay.recv_slots, max_cqe, &s, &r, why, sizeof(why)))
		s = r = t->cq_depth;
	if (!verb_needs_recv(t->verb))
		r = 0;
	c->buffer = lay.total;
	c->queues = mul_sat(mul_sat(nqp, add_sat(t->sq_depth, t->rq_depth)), GUARD_WQE_BYTES);
	c->cqs = mul_sat(mul_sat(t->threads, add_sat(s, r)), GUARD_CQE_BYTES);
	c->stacks = server_active ? mul_sat(t->threads, GUARD_STACK_BYTES) : 0;
	c->state = add_sat(GUARD_STATE_BYTES, mul_sat(nqp, GUARD_QP_STATE_BYTES));
	c->total = add_sat(add_sat(add_sat(c->buffer, c->queues), add_sat(c->cqs, c->stacks)),
			   c->state);
}

uint64_t guard_point_bytes(const struct rb_test *t, bool server_active, uint64_t max_cqe)
{
	struct guard_charge c;

	guard_point_charge(t, server_active, max_cqe, &c);
	return c.total;
}

static double mib(uint64_t b)
{
	return (double)b / (1024.0 * 1024.0);
}

int guard_check_point(const struct rb_test *t, bool server_active, uint64_t max_cqe,
		      const struct rb_limits *l, char *err, size_t errlen)
{
	uint64_t nqp = test_qps_per_thread(t) * t->threads;

	/* the flag comes first: a row's reason column keeps only ~95 bytes */
	if (nqp > l->max_qps)
		return rb_fail(err, errlen,
			    "%llu QPs above the server's --max-qps %llu (--threads %llu x -q %llu x "
			    "--emulated-peers %llu)", (unsigned long long)nqp,
			    (unsigned long long)l->max_qps, (unsigned long long)t->threads,
			    (unsigned long long)t->qps_per_thread, (unsigned long long)t->emulated_peers);
	if (server_active && t->threads > l->max_threads)
		return rb_fail(err, errlen,
			    "--threads %llu above the server's --max-threads %llu (the server runs a "
			    "worker thread per client thread for --verb %s)",
			    (unsigned long long)t->threads, (unsigned long long)l->max_threads,
			    verb_name(t->verb));
	if (t->duration_ms > l->max_duration_ms)
		return rb_fail(err, errlen, "-D %.3f s above the server's --max-duration %.3f s",
			    (double)t->duration_ms / 1000.0, (double)l->max_duration_ms / 1000.0);
	if (t->warmup_ms > l->max_warmup_ms)
		return rb_fail(err, errlen, "--warmup %.3f s above the server's --max-warmup %.3f s",
			    (double)t->warmup_ms / 1000.0, (double)l->max_warmup_ms / 1000.0);
	uint64_t bytes = guard_point_bytes(t, server_active, max_cqe);
	if (bytes > l->max_session_mem)
		return rb_fail(err, errlen,
			    "%.1f MiB above the server's --max-session-mem %.1f MiB (buffer, QP "
			    "queues, CQs, thread stacks of the point: %llu QPs, -m %llu)", mib(bytes),
			    mib(l->max_session_mem), (unsigned long long)nqp,
			    (unsigned long long)t->size);
	return 0;
}

int guard_mem_reserve(uint64_t *used, uint64_t need, uint64_t max, char *err, size_t errlen)
{
	uint64_t after;

	if (__builtin_add_overflow(*used, need, &after) || after > max)
		return rb_fail(err, errlen,
			    "%.1f MiB above what the server's --max-mem %.1f MiB leaves free (%.1f MiB "
			    "in use by other sessions); retry later or lower -m/-q", mib(need), mib(max),
			    mib(*used));
	*used = after;
	return 0;
}

/* QPs and threads of one point against what the server's limits leave
 * free over all sessions (used): 0, or -1 with err. */
static int shared_check(const struct guard_usage *used, uint64_t nqp, uint64_t threads,
			const struct rb_limits *l, char *err, size_t errlen)
{
	if (used->qps + nqp > l->max_qps)
		return rb_fail(err, errlen, "%llu QPs above what the server's --max-qps %llu leaves "
			       "free (%llu in use by other sessions); retry later or lower -q",
			       (unsigned long long)nqp, (unsigned long long)l->max_qps,
			       (unsigned long long)used->qps);
	if (threads && used->threads + threads > l->max_threads)
		return rb_fail(err, errlen, "--threads %llu above what the server's --max-threads %llu "
			       "leaves free (%llu worker threads in use by other sessions); retry "
			       "later", (unsigned long long)threads,
			       (unsigned long long)l->max_threads, (unsigned long long)used->threads);
	return 0;
}

int guard_admit_point(const struct rb_test *t, bool server_active, uint64_t max_cqe,
		      const struct rb_limits *l, struct guard_usage *used, struct guard_usage *got,
		      char *err, size_t errlen)
{
	char why[512];
	struct guard_usage want = {
		.mem = guard_point_bytes(t, server_active, max_cqe),
		.qps = test_qps_per_thread(t) * t->threads,
		.threads = server_active ? t->threads : 0,
	};

	*got = (struct guard_usage){ 0 };
	if (guard_check_point(t, server_active, max_cqe, l, why, sizeof(why)) ||
	    shared_check(used, want.qps, want.threads, l, why, sizeof(why)) ||
	    guard_mem_reserve(&used->mem, want.mem, l->max_mem, why, sizeof(why)))
		return rb_fail(err, errlen, "%s%s", RB_REFUSED_PREFIX, why);
	used->qps += want.qps;
	used->threads += want.threads;
	*got = want;
	return 0;
}

/* CAP_IPC_LOCK (capability 14) in the effective set: RLIMIT_MEMLOCK does not apply. */
static bool may_lock_any(void)
{
	FILE *f = fopen("/proc/self/status", "r");
	char line[256];
	unsigned long long cap = 0;
	bool found = false;

	if (!f)
		return false; /* no /proc/self/status: RLIMIT_MEMLOCK applies */
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "CapEff: %llx", &cap) == 1) {
			found = true;
			break;
		}
	fclose(f);
	return found && (cap & (1ull << 14));
}

uint64_t guard_phys_bytes(long pages, long page_size)
{
	return pages > 0 && page_size > 0 ? (uint64_t)pages * (uint64_t)page_size : UINT64_C(1) << 30;
}

void guard_limits_defaults(struct rb_limits *l, char *why, size_t whylen)
{
	uint64_t phys = guard_phys_bytes(sysconf(_SC_PHYS_PAGES), sysconf(_SC_PAGESIZE));
	struct rlimit rl;
	char src[160];

	if (!l->max_mem) {
		l->max_mem = phys / 2;
		snprintf(src, sizeof(src), "half of %.0f MiB of memory", mib(phys));
		if (getrlimit(RLIMIT_MEMLOCK, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY &&
		    !may_lock_any() && (uint64_t)rl.rlim_cur < l->max_mem) {
			l->max_mem = (uint64_t)rl.rlim_cur;
			snprintf(src, sizeof(src), "RLIMIT_MEMLOCK (ulimit -l), below half of %.0f MiB "
				 "of memory", mib(phys));
		}
		if (why)
			snprintf(why, whylen, "%s", src);
	} else if (why) {
		snprintf(why, whylen, "given");
	}
	if (!l->max_session_mem)
		l->max_session_mem = l->max_mem / 2;
	if (!l->max_threads) {
		/* all sessions together: 4 per online CPU, at least 8, so that a
		 * fan-in of several client processes (each point's server threads
		 * busy-poll) is served on a small host; one point above the
		 * CPUs still runs, oversubscribed, and says so in its rows' CPU
		 * columns */
		long n = sysconf(_SC_NPROCESSORS_ONLN);
		uint64_t t = n > 0 ? 4 * (uint64_t)n : 8;
		l->max_threads = t < 8 ? 8 : t > RB_MAX_THREADS ? RB_MAX_THREADS : t;
	}
	if (!l->max_peer_threads) {
		/* one address cannot take every worker thread of the server */
		l->max_peer_threads = l->max_threads / 2 < 4 ? 4 : l->max_threads / 2;
	}
	if (l->max_peer_threads > l->max_threads)
		l->max_peer_threads = l->max_threads;
}

int guard_limits_check(const struct rb_limits *l, const char *why, char *err, size_t errlen)
{
	char s[32], m[32];

	if (l->max_session_mem > l->max_mem)
		return rb_fail(err, errlen,
			    "--max-session-mem %s above --max-mem %s (%s): one session may not use "
			    "more than the whole server; lower --max-session-mem to at most %s or "
			    "raise --max-mem", units_size_text(l->max_session_mem, s, sizeof(s)),
			    units_size_text(l->max_mem, m, sizeof(m)), why && why[0] ? why : "given",
			    m);
	return 0;
}

const char *guard_limits_text(const struct rb_limits *l, const char *mem_why, unsigned hello_s,
			      const char *allow, bool token, char *buf, size_t len)
{
	char mem[32], smem[32];

	snprintf(buf, len, "limits: --max-mem %s (%s), per session --max-session-mem %s, "
		 "--max-threads %llu (all sessions, %llu per address), --max-qps %llu (all sessions), "
		 "--max-duration "
		 "%.0f s, --max-warmup %.0f s; --max-per-peer %u, --max-handshakes %u (%u per /%u "
		 "or /%u source prefix), HELLO within %u s, --client-timeout %u s; --allow %s; "
		 "--token-file %s", units_size_text(l->max_mem, mem, sizeof(mem)), mem_why,
		 units_size_text(l->max_session_mem, smem, sizeof(smem)),
		 (unsigned long long)l->max_threads, (unsigned long long)l->max_peer_threads,
		 (unsigned long long)l->max_qps,
		 (double)l->max_duration_ms / 1000.0, (double)l->max_warmup_ms / 1000.0,
		 l->max_per_peer, l->max_handshakes, l->handshakes_per_prefix, l->prefix_v4,
		 l->prefix_v6, hello_s, l->client_timeout_s, allow[0] ? allow : "any address",
		 token ? "set" : "none");
	return buf;
}

/* IPv4 (4 bytes into a) or IPv6 (16), IPv4-mapped IPv6 as IPv4: the family, or 0. */
static int ip_bytes(const struct sockaddr *sa, uint8_t *a)
{
	static const uint8_t mapped[12] = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff };

	if (sa->sa_family == AF_INET) {
		memcpy(a, &((const struct sockaddr_in *)sa)->sin_addr, 4);
		return AF_INET;
	}
	if (sa->sa_family == AF_INET6) {
		const uint8_t *b = ((const struct sockaddr_in6 *)sa)->sin6_addr.s6_addr;
		if (memcmp(b, mapped, 12) == 0) {
			memcpy(a, b + 12, 4);
			return AF_INET;
		}
		memcpy(a, b, 16);
		return AF_INET6;
	}
	return 0;
}

/* ---- --allow --------------------------------------------------------------- */

static int parse_one_cidr(const char *item, struct guard_cidr *c, char *err, size_t errlen)
{
	char addr[INET6_ADDRSTRLEN + 8];
	const char *slash = strchr(item, '/');
	size_t alen = slash ? (size_t)(slash - item) : strlen(item);
	unsigned maxbits;

	if (alen == 0 || alen >= sizeof(addr))
		return rb_fail(err, errlen, "--allow '%s': expected an address or ADDRESS/BITS, e.g. "
			    "10.0.0.0/8 or fd00::/8", item);
	memcpy(addr, item, alen);
	addr[alen] = '\0';
	memset(c, 0, sizeof(*c));
	if (inet_pton(AF_INET, addr, c->addr) == 1) {
		c->family = AF_INET;
		maxbits = 32;
	} else if (inet_pton(AF_INET6, addr, c->addr) == 1) {
		c->family = AF_INET6;
		maxbits = 128;
	} else {
		return rb_fail(err, errlen, "--allow '%s': '%s' is not an IPv4 or IPv6 address "
			    "(names are not accepted: give addresses)", item, addr);
	}
	c->prefix = maxbits;
	if (slash) {
		const char *p = slash + 1;
		unsigned v = 0;
		if (!*p)
			return rb_fail(err, errlen, "--allow '%s': no prefix length after '/'", item);
		for (; *p; p++) {
			if (*p < '0' || *p > '9' || v > 1000)
				return rb_fail(err, errlen, "--allow '%s': prefix length must be digits",
					    item);
			v = v * 10 + (unsigned)(*p - '0');
		}
		if (v > maxbits)
			return rb_fail(err, errlen, "--allow '%s': prefix /%u above %u bits", item, v,
				    maxbits);
		c->prefix = v;
	}
	for (unsigned bit = c->prefix; bit < maxbits; bit++)
		if (c->addr[bit / 8] & (0x80u >> (bit % 8)))
			return rb_fail(err, errlen, "--allow '%s': address bits set beyond the /%u "
				    "prefix; give the network address (e.g. 10.0.0.0/8)", item,
				    c->prefix);
	return 0;
}

int guard_cidr_parse(const char *s, struct guard_cidr *out, int max, int *n, char *err,
		     size_t errlen)
{
	int k = 0;
	const char *p = s;

	if (!*s)
		return rb_fail(err, errlen, "--allow '': empty; e.g. --allow 10.0.0.0/8,192.168.1.0/24");
	for (;;) {
		char item[128];
		const char *end = strchr(p, ',');
		size_t len = end ? (size_t)(end - p) : strlen(p);
		if (len == 0)
			return rb_fail(err, errlen, "--allow '%s': empty item", s);
		if (len >= sizeof(item))
			return rb_fail(err, errlen, "--allow '%s': item longer than %zu characters", s,
				    sizeof(item) - 1);
		if (k >= max)
			return rb_fail(err, errlen, "--allow '%s': more than %d networks", s, max);
		memcpy(item, p, len);
		item[len] = '\0';
		if (parse_one_cidr(item, &out[k], err, errlen))
			return -1;
		k++;
		if (!end)
			break;
		p = end + 1;
	}
	*n = k;
	return 0;
}

static bool prefix_match(const uint8_t *a, const uint8_t *net, unsigned bits)
{
	unsigned full = bits / 8, rest = bits % 8;

	if (memcmp(a, net, full) != 0)
		return false;
	if (!rest)
		return true;
	uint8_t mask = (uint8_t)(0xffu << (8 - rest));
	return (a[full] & mask) == (net[full] & mask);
}

bool guard_cidr_allows(const struct guard_cidr *list, int n, const struct sockaddr *sa)
{
	uint8_t a[16];
	int fam = ip_bytes(sa, a);

	if (!fam)
		return false;
	for (int i = 0; i < n; i++)
		if (list[i].family == fam && prefix_match(a, list[i].addr, list[i].prefix))
			return true;
	return false;
}

bool guard_same_ip(const struct sockaddr *a, const struct sockaddr *b)
{
	uint8_t x[16], y[16];
	int fx = ip_bytes(a, x), fy = ip_bytes(b, y);

	return fx && fx == fy && memcmp(x, y, fx == AF_INET ? 4 : 16) == 0;
}

bool guard_is_loopback(const struct sockaddr *sa)
{
	static const uint8_t v6lo[16] = { [15] = 1 };
	uint8_t a[16];
	int f = ip_bytes(sa, a);

	return (f == AF_INET && a[0] == 127) || (f == AF_INET6 && memcmp(a, v6lo, 16) == 0);
}

void guard_ip_text(const struct sockaddr *sa, char *out, size_t outlen)
{
	uint8_t a[16];
	int f = ip_bytes(sa, a);

	if (!f || !inet_ntop(f, a, out, (socklen_t)outlen))
		snprintf(out, outlen, "?");
}

/* ---- the token file ------------------------------------------------------ */

/* What a token file is and how to make one at path (docs/rdma_bench.md,
 * "Running a server on a shared cluster"): the fix every refusal of the
 * file itself ends with; a format taking the path once. */
#define TOKEN_MAKE "(a token file is one line of 16 or more printable bytes, mode 600, the " \
	"same file at both ends; make one with: (umask 077; od -An -tx1 -N16 /dev/urandom | " \
	"tr -d ' \\n' > %s))"

/* The refusal of a token file open(2) failed on with errno e: the path,
 * what is wrong and the fix. Returns -1. */
static int token_open_fail(const char *path, int e, char *err, size_t errlen)
{
	if (e == ENOENT)
		return rb_fail(err, errlen, "--token-file %s: no such file; create it " TOKEN_MAKE,
			    path, path);
	if (e == EACCES)
		return rb_fail(err, errlen, "--token-file %s: permission denied: uid %u may not read "
			    "it (or search a directory on its path); run as the file's owner, or have "
			    "the owner hand it over (chown, then chmod 600 %s)", path,
			    (unsigned)geteuid(), path);
	if (e == ELOOP)
		return rb_fail(err, errlen, "--token-file %s: a symbolic link, refused; give the file "
			    "itself", path);
	return rb_fail(err, errlen, "--token-file %s: cannot open: %s; give a readable token file "
		    TOKEN_MAKE, path, strerror(e), path);
}

int guard_token_load(const char *path, char *out, size_t outlen, size_t max, char *err,
		     size_t errlen)
{
	struct stat st;
	char buf[256];
	ssize_t n;
	/* O_NONBLOCK: a FIFO given as the file must not wait for a writer */
	int fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);

	if (fd < 0)
		return token_open_fail(path, errno, err, errlen);
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
		bool dir = S_ISDIR(st.st_mode);
		char in[300];
		close(fd);
		snprintf(in, sizeof(in), "%s%s", dir ? path : "FILE", dir ? "/token" : "");
		return rb_fail(err, errlen, "--token-file %s: %s, not a regular file; give the token "
			    "file's own path " TOKEN_MAKE, path,
			    dir ? "a directory" : "a device, FIFO or socket", in);
	}
	if (st.st_mode & 077) {
		close(fd);
		return rb_fail(err, errlen, "--token-file %s: mode %03o lets other users read or change "
			    "it; chmod 600 %s", path, (unsigned)(st.st_mode & 0777), path);
	}
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n < 0)
		return rb_fail(err, errlen, "--token-file %s: read: %s", path, strerror(errno));
	buf[n] = '\0';
	buf[strcspn(buf, "\r\n")] = '\0';
	size_t len = strlen(buf);
	if (len < 16 || len > max || len >= outlen)
		return rb_fail(err, errlen, "--token-file %s: the token (first line) has %zu bytes, "
			    "needs 16..%zu (e.g. od -An -tx1 -N16 /dev/urandom | tr -d ' \\n')", path,
			    len, max);
	for (size_t i = 0; i < len; i++)
		if ((unsigned char)buf[i] < 0x21 || (unsigned char)buf[i] > 0x7e)
			return rb_fail(err, errlen, "--token-file %s: byte %zu of the token is not a "
				    "printable character without spaces", path, i + 1);
	memcpy(out, buf, len + 1);
	return 0;
}

/* ---- randomness ---------------------------------------------------------- */

int guard_random(void *buf, size_t n, char *err, size_t errlen)
{
	uint8_t *p = buf;

	while (n) {
		ssize_t r = getrandom(p, n, 0);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return rb_fail(err, errlen, "getrandom: %s", strerror(errno));
		p += r;
		n -= (size_t)r;
	}
	return 0;
}
