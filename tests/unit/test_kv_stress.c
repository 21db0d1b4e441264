/*
 * test_kv_stress.c - the key-value stores under threads on the host: the
 * DrTM-KV lock/version protocol (drtm.h) and HERD-KV's request slots in
 * front of MICA partitions (kv.h, mica.h), with C11 atomics standing in for
 * the remote verbs. Several threads run GETs and PUTs on a small key set
 * until each has done enough (at most STRESS_MS) and every GET and the end
 * state are checked:
 *
 *   DrTM-KV  items in one array as in the server's MR; READ = the item's
 *            eight words loaded in address order (acquire, a yield halfway:
 *            a READ's DMA is not atomic), CMP_AND_SWAP / FETCH_AND_ADD =
 *            atomic CAS / add on the header word, WRITE = the value's words
 *            stored in address order (release, a yield halfway). A PUT is
 *            lock (CAS, retried with drtm_cas_retry), WRITE, release (add of
 *            DRTM_RELEASE_ADD): drtm_kv.c's order. A GET is a READ and a
 *            second READ of the header (the check a DrTM reader makes).
 *   HERD-KV  two server threads, each the only user of its MICA partition
 *            (EREW), poll one request slot per client; a client WRITEs its
 *            request (kv_req_encode's span, the arrival byte stored last
 *            with release), the server decodes it (kv_req_decode, acquire),
 *            runs it, clears the slot and answers in a response word the
 *            client waits on. Key k is PUT only by client k % clients, so
 *            its versions have one order.
 *
 * Checks: a GET is never torn (every value word from one PUT), never stale
 * (not older than the header it read, nor than a PUT completed before it
 * began), the versions one thread sees of a key only rise; at the end no
 * PUT is lost (each key's version is the number of its PUTs), no item is
 * locked and no request is left in a slot. Every wait has a deadline
 * (STRESS_WAIT_MS): a lock never released fails the run naming the key.
 *
 * The test can fail: each planted protocol fault (enum plant) runs the same
 * loop and must be reported: a PUT that skips its release (missing unlock),
 * releases before its WRITE (the missing order between the WRITE and the
 * FETCH_AND_ADD), releases without the version bump, or a request WRITE
 * whose arrival byte lands before its key and value (the missing order of
 * HERD's WRITE).
 */
#include "unit.h"

#include <inttypes.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>

#include "drtm.h"
#include "kv.h"
#include "mica.h"
#include "timing.h"

#define STRESS_MS       30000u    /* each run at most: a correct one stops once it has done
				   * STRESS_ENOUGH GETs and PUTs (a count, not a time: a
				   * loaded host does less in a fixed time; ~0.3 s idle) */
#define STRESS_ENOUGH   4000u
#define PLANT_ENOUGH    (4u * STRESS_ENOUGH) /* a planted run stops at its first fault,
				   * else once GETs and PUTs both reach this count (the
				   * fault not caught): a count again, not a time (a fixed
				   * 500 ms missed a planted fault on a host at load 11) */
#define STRESS_WAIT_MS  1000u     /* a lock or a response waited for at most (300 ms
				   * failed correct runs at load ~17: a thread not
				   * scheduled in time is no hang) */
#define STRESS_THREADS  4u
#define STRESS_KEYS     4u        /* DrTM items: few, so PUTs contend */
#define KV_KEYS         8u
#define KV_SERVERS      2u
#define KV_VLEN         32u
#define KV_MAX_OPS      50000u    /* per client: the log never wraps (checked) */
#define KV_LOG_BYTES    (UINT64_C(8) << 20)
#define KV_SEED         UINT64_C(0x5eed)
#define ITEM_WORDS      (DRTM_ITEM_BYTES / 8u)

enum plant {
	PLANT_NONE = 0,
	PLANT_NO_UNLOCK,            /* every 64th PUT skips its release */
	PLANT_RELEASE_BEFORE_WRITE, /* the FETCH_AND_ADD before the value's WRITE */
	PLANT_NO_VERSION_BUMP,      /* the release clears the owner, keeps the version */
	PLANT_MARK_FIRST,           /* HERD: the arrival byte before key and value */
};

/* What a run found: the first fault (why), and what it did. */
struct outcome {
	atomic_bool failed;
	char why[256];
	atomic_uint_fast64_t gets, puts, validated, contended;
	uint64_t enough;   /* a run stops once GETs and PUTs both reach it (0: no) */
};

static void fault(struct outcome *o, const char *fmt, ...)
{
	bool no = false;
	if (!atomic_compare_exchange_strong(&o->failed, &no, true))
		return;   /* the first fault is the one reported */
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(o->why, sizeof(o->why), fmt, ap);
	va_end(ap);
}

static bool stopped(struct outcome *o, uint64_t end_ns)
{
	if (o->enough && atomic_load(&o->gets) >= o->enough && atomic_load(&o->puts) >= o->enough)
		return true;
	return atomic_load(&o->failed) || timing_now_ns() >= end_ns;
}

/* ---- DrTM-KV ------------------------------------------------------------ */

struct drtm_stress {
	_Alignas(64) _Atomic uint64_t item[STRESS_KEYS][ITEM_WORDS];
	atomic_uint_fast64_t acked[STRESS_KEYS];    /* highest version released */
	enum plant plant;
	uint64_t end_ns;
	struct outcome out;
};

struct drtm_client {
	struct drtm_stress *s;
	unsigned id;
	uint64_t puts[STRESS_KEYS];                 /* releases of this thread per key */
	uint64_t seen[STRESS_KEYS];                 /* highest version read per key */
	uint64_t cache[STRESS_KEYS];                /* header word cache (drtm.h) */
};

/* Value word j (2..5) of key's version: every word differs per version. */
static uint64_t pattern(uint64_t key, uint64_t version, unsigned j)
{
	return (key * UINT64_C(0x9e3779b97f4a7c15)) ^ (version * UINT64_C(0xff51afd7ed558ccd)) ^ j;
}

static void value_words(uint64_t key, uint64_t version, uint64_t w[DRTM_VALUE_BYTES / 8])
{
	uint8_t v[DRTM_VALUE_BYTES];
	drtm_value_fill(v, key, version);
	memcpy(w, v, sizeof(v));
	for (unsigned j = 2; j < DRTM_VALUE_BYTES / 8; j++)
		w[j] = pattern(key, version, j);
}

static void remote_read(_Atomic uint64_t *item, uint64_t w[ITEM_WORDS])
{
	for (unsigned j = 0; j < ITEM_WORDS; j++) {
		w[j] = atomic_load_explicit(&item[j], memory_order_acquire);
		if (j == ITEM_WORDS / 2)
			sched_yield();
	}
}

static void remote_write_value(_Atomic uint64_t *item, uint64_t key, uint64_t version)
{
	uint64_t w[DRTM_VALUE_BYTES / 8];
	value_words(key, version, w);
	for (unsigned j = 0; j < DRTM_VALUE_BYTES / 8; j++) {
		atomic_store_explicit(&item[DRTM_VALUE_OFF / 8 + j], w[j], memory_order_release);
		if (j == 2)
			sched_yield();
	}
}

/* GET: READ, the suite's check (drtm_get_ok), then the header again. */
static void drtm_stress_get(struct drtm_client *c, uint64_t key)
{
	struct drtm_stress *s = c->s;
	uint64_t before = atomic_load(&s->acked[key]), w[ITEM_WORDS];
	struct drtm_view v;

	remote_read(s->item[key], w);
	drtm_item_view((const uint8_t *)w, &v);
	uint64_t again = atomic_load_explicit(&s->item[key][0], memory_order_acquire);
	uint64_t ver = drtm_hdr_version(v.hdr);
	if (!drtm_get_ok(&v, key, true))
		return fault(&s->out, "stale GET of key %" PRIu64 ": header version %" PRIu64
			     ", value's version %" PRIu64, key, ver, v.stamp_version);
	if (ver < before)
		return fault(&s->out, "stale GET of key %" PRIu64 ": version %" PRIu64 " after a "
			     "release of version %" PRIu64 " completed", key, ver, before);
	if (v.stamp_version < c->seen[key])
		return fault(&s->out, "key %" PRIu64 "'s version went back from %" PRIu64
			     " to %" PRIu64, key, c->seen[key], v.stamp_version);
	c->seen[key] = v.stamp_version;
	atomic_fetch_add(&s->out.gets, 1);
	if (drtm_hdr_owner(v.hdr) || again != v.hdr)
		return;   /* a PUT ran during the READ: DrTM's reader would retry */
	uint64_t want[DRTM_VALUE_BYTES / 8];
	value_words(key, ver, want);
	for (unsigned j = 0; j < DRTM_VALUE_BYTES / 8; j++)
		if (w[DRTM_VALUE_OFF / 8 + j] != want[j])
			return fault(&s->out, "torn or stale GET of key %" PRIu64 " at version %"
				     PRIu64 ": value word %u is not that version's", key, ver, j);
	atomic_fetch_add(&s->out.validated, 1);
}

/* The lock's CAS, retried as drtm_kv.c does; the locked word, or 0 (fault). */
static uint64_t drtm_stress_lock(struct drtm_client *c, uint64_t key, uint64_t owner)
{
	struct drtm_stress *s = c->s;
	uint64_t compare = c->cache[key], deadline = timing_now_ns() + STRESS_WAIT_MS * 1000000ull;

	for (;;) {
		uint64_t old = compare;
		if (atomic_compare_exchange_strong(&s->item[key][0], &old,
						   drtm_lock_swap(compare, owner)))
			return drtm_lock_swap(compare, owner);
		if (drtm_hdr_owner(old)) {
			atomic_fetch_add(&s->out.contended, 1);
			if (timing_now_ns() > deadline) {
				fault(&s->out, "key %" PRIu64 " held by owner %" PRIu64 " at version %"
				      PRIu64 " for over %u ms: a lock never released", key,
				      drtm_hdr_owner(old), drtm_hdr_version(old), STRESS_WAIT_MS);
				return 0;
			}
			sched_yield();
		}
		if (atomic_load(&s->out.failed))
			return 0;
		compare = drtm_cas_retry(old);
	}
}

/* PUT: lock, WRITE the next version's value, release (planted faults here). */
static void drtm_stress_put(struct drtm_client *c, uint64_t key)
{
	struct drtm_stress *s = c->s;
	uint64_t owner = drtm_owner_of(c->id), locked = drtm_stress_lock(c, key, owner);
	if (locked == 0)
		return;
	uint64_t next = drtm_hdr_version(locked) + 1, add = DRTM_RELEASE_ADD(owner);
	bool skip = s->plant == PLANT_NO_UNLOCK && (c->puts[key] + 1) % 64 == 0;

	if (s->plant == PLANT_NO_VERSION_BUMP)
		add -= UINT64_C(1) << DRTM_OWNER_BITS;   /* clears the owner only */
	if (s->plant != PLANT_RELEASE_BEFORE_WRITE)
		remote_write_value(s->item[key], key, next);
	sched_yield();   /* the time between the WRITE and the FETCH_AND_ADD */
	uint64_t old = skip ? locked : atomic_fetch_add(&s->item[key][0], add);
	if (s->plant == PLANT_RELEASE_BEFORE_WRITE) {
		sched_yield();
		remote_write_value(s->item[key], key, next);
	}
	if (old != locked)
		return fault(&s->out, "key %" PRIu64 "'s lock of owner %" PRIu64 " was broken: "
			     "the release found %#" PRIx64, key, owner, old);
	c->puts[key]++;
	c->cache[key] = drtm_hdr(next, 0);
	uint64_t a = atomic_load(&s->acked[key]);
	while (a < next && !atomic_compare_exchange_weak(&s->acked[key], &a, next))
		;
	atomic_fetch_add(&s->out.puts, 1);
}

static void *drtm_client_main(void *arg)
{
	struct drtm_client *c = arg;
	struct drtm_cfg cfg;
	struct drtm_gen g;

	drtm_cfg_defaults(&cfg);
	cfg.items = STRESS_KEYS;
	cfg.put_fraction = 0.5;
	if (drtm_gen_init(&g, &cfg, 0x1234567ull * (c->id + 1))) {
		fault(&c->s->out, "drtm_gen_init refused %u items", STRESS_KEYS);
		return NULL;
	}
	while (!stopped(&c->s->out, c->s->end_ns)) {
		uint64_t key = drtm_next_key(&g);
		if (drtm_next_is_put(&g))
			drtm_stress_put(c, key);
		else
			drtm_stress_get(c, key);
	}
	return NULL;
}

/* After the threads: the server's scan and drtm_check, then per key. */
static void drtm_stress_end(struct drtm_stress *s, struct drtm_client *cl)
{
	uint8_t items[STRESS_KEYS * DRTM_ITEM_BYTES];
	struct drtm_tally t;
	struct drtm_counts n = { .puts_done = atomic_load(&s->out.puts) };
	char why[256];

	for (unsigned k = 0; k < STRESS_KEYS; k++)
		for (unsigned j = 0; j < ITEM_WORDS; j++) {
			uint64_t w = atomic_load(&s->item[k][j]);
			memcpy(items + k * DRTM_ITEM_BYTES + j * 8, &w, 8);
		}
	drtm_scan(items, STRESS_KEYS, true, &t);
	if (!drtm_check(&t, &n, why, sizeof(why)))
		return fault(&s->out, "end of run: %s", why);
	for (unsigned k = 0; k < STRESS_KEYS; k++) {
		uint64_t puts = 0, ver = drtm_hdr_version(atomic_load(&s->item[k][0]));
		for (unsigned i = 0; i < STRESS_THREADS; i++)
			puts += cl[i].puts[k];
		if (ver != puts)
			return fault(&s->out, "lost PUT: key %u at version %" PRIu64 " after %"
				     PRIu64 " PUTs", k, ver, puts);
	}
}

/* One run of STRESS_THREADS clients for ms (less at a fault); s->out says. */
static void drtm_stress_run(struct drtm_stress *s, enum plant plant, unsigned ms)
{
	struct drtm_client cl[STRESS_THREADS];
	pthread_t th[STRESS_THREADS];

	memset(s, 0, sizeof(*s));
	s->out.enough = plant == PLANT_NONE ? STRESS_ENOUGH : PLANT_ENOUGH;
	for (unsigned k = 0; k < STRESS_KEYS; k++) {
		uint8_t it[DRTM_ITEM_BYTES];
		drtm_item_init(it, k);
		for (unsigned j = 0; j < ITEM_WORDS; j++) {
			uint64_t w;
			memcpy(&w, it + j * 8, 8);
			atomic_init(&s->item[k][j], w);
		}
		uint64_t v[DRTM_VALUE_BYTES / 8];
		value_words(k, 0, v);
		for (unsigned j = 0; j < DRTM_VALUE_BYTES / 8; j++)
			atomic_init(&s->item[k][DRTM_VALUE_OFF / 8 + j], v[j]);
	}
	s->plant = plant;
	s->end_ns = timing_now_ns() + ms * 1000000ull;
	for (unsigned i = 0; i < STRESS_THREADS; i++) {
		cl[i] = (struct drtm_client){ .s = s, .id = i };
		assert_int_equal(pthread_create(&th[i], NULL, drtm_client_main, &cl[i]), 0);
	}
	for (unsigned i = 0; i < STRESS_THREADS; i++)
		assert_int_equal(pthread_join(th[i], NULL), 0);
	if (!atomic_load(&s->out.failed))
		drtm_stress_end(s, cl);
}

static void drtm_threads_keep_the_protocol(void **state)
{
	(void)state;
	static struct drtm_stress s;
	drtm_stress_run(&s, PLANT_NONE, STRESS_MS);
	if (atomic_load(&s.out.failed))
		fail_msg("%s", s.out.why);
	print_message("# drtm: %u threads, %u keys, at most %u ms: %" PRIu64 " GETs (%" PRIu64
		      " validated), %" PRIu64 " PUTs, %" PRIu64 " CAS on a held lock\n",
		      STRESS_THREADS, STRESS_KEYS, STRESS_MS, (uint64_t)s.out.gets,
		      (uint64_t)s.out.validated, (uint64_t)s.out.puts, (uint64_t)s.out.contended);
	/* the run proves something only if it ran and the threads met */
	assert_true(s.out.gets >= STRESS_ENOUGH && s.out.puts >= STRESS_ENOUGH);
	assert_true(s.out.validated > 100);
	assert_true(s.out.contended > 0);
}

static void drtm_expect_caught(enum plant plant, const char *a, const char *b)
{
	static struct drtm_stress s;
	drtm_stress_run(&s, plant, STRESS_MS);
	if (!atomic_load(&s.out.failed))
		fail_msg("planted fault %d was not caught (%" PRIu64 " GETs, %" PRIu64 " PUTs)",
			 (int)plant, (uint64_t)s.out.gets, (uint64_t)s.out.puts);
	print_message("# planted fault %d caught: %s\n", (int)plant, s.out.why);
	if (!strstr(s.out.why, a) && !strstr(s.out.why, b))
		fail_msg("planted fault %d reported as \"%s\", expected \"%s\" or \"%s\"",
			 (int)plant, s.out.why, a, b);
}

static void drtm_planted_missing_unlock_is_caught(void **state)
{
	(void)state;
	/* the skipped release leaves the lock held, or the PUT its writer counts
	   as completed unseen by the next GET: either is a report */
	drtm_expect_caught(PLANT_NO_UNLOCK, "never released", "stale GET");
}

static void drtm_planted_release_before_write_is_caught(void **state)
{
	(void)state;
	drtm_expect_caught(PLANT_RELEASE_BEFORE_WRITE, "stale", "stamped");
}

static void drtm_planted_skipped_version_bump_is_caught(void **state)
{
	(void)state;
	drtm_expect_caught(PLANT_NO_VERSION_BUMP, "stale", "PUT");
}

/* ---- HERD-KV on MICA ---------------------------------------------------- */

struct kv_resp {
	atomic_uint mark;                           /* the request's arrival byte, last */
	int rc;                                     /* MICA_OK / MICA_MISS */
	uint32_t vlen;
	uint8_t value[KV_MAX_VALUE];
};

struct kv_stress {
	_Alignas(64) uint8_t slot[KV_SERVERS][STRESS_THREADS][KV_SLOT_BYTES];
	struct kv_resp resp[KV_SERVERS][STRESS_THREADS];
	struct mica part[KV_SERVERS];
	atomic_uint_fast64_t acked[KV_KEYS];        /* version of the key's last PUT answered */
	atomic_bool clients_done;
	enum plant plant;
	uint64_t end_ns;
	struct outcome out;
};

struct kv_server_th {
	struct kv_stress *s;
	unsigned t;
};

struct kv_client_th {
	struct kv_stress *s;
	unsigned id;
	uint8_t mark;
	uint64_t puts[KV_KEYS];                     /* PUTs of the keys this client writes */
	uint64_t seen[KV_KEYS];
};

static unsigned kv_owner(uint64_t id)
{
	struct mica_key k = mica_key_of(id);
	return mica_thread_of(mica_hash(&k, KV_SEED), KV_SERVERS);
}

/* Server thread t: poll every client's slot, run it, clear it, answer. */
static void *kv_server_main(void *arg)
{
	struct kv_server_th *st = arg;
	struct kv_stress *s = st->s;
	struct mica *m = &s->part[st->t];

	while (!atomic_load(&s->clients_done)) {
		bool any = false;
		for (unsigned c = 0; c < STRESS_THREADS; c++) {
			uint8_t *slot = s->slot[st->t][c];
			struct kv_req req;
			int state = kv_req_decode(slot, &req);
			if (state == KV_SLOT_EMPTY)
				continue;
			struct kv_resp *r = &s->resp[st->t][c];
			unsigned mark = slot[KV_CTRL_OFF + 7];
			if (state == KV_SLOT_BAD) {
				fault(&s->out, "server %u: bad request in client %u's slot", st->t, c);
				kv_req_clear(slot);
				continue;
			}
			r->vlen = 0;
			r->rc = req.op == KV_PUT ? mica_put(m, &req.key, req.value, req.vlen)
						 : mica_get(m, &req.key, r->value, KV_MAX_VALUE, &r->vlen);
			kv_req_clear(slot);
			atomic_store_explicit(&r->mark, mark, memory_order_release);
			any = true;
		}
		if (!any)
			sched_yield();
	}
	return NULL;
}

/* The request's WRITE into the server's slot: the span, arrival byte last. */
static void kv_remote_write(struct kv_stress *s, uint8_t *dst, const uint8_t *stage,
			    uint32_t off, uint32_t len)
{
	uint32_t mark_at = KV_CTRL_OFF + 7;
	if (s->plant == PLANT_MARK_FIRST) {
		memcpy(dst + KV_CTRL_OFF, stage + KV_CTRL_OFF, 7);
		__atomic_store_n(&dst[mark_at], stage[mark_at], __ATOMIC_RELEASE);
		sched_yield();
		memcpy(dst + off, stage + off, KV_CTRL_OFF - off);
		return;
	}
	memcpy(dst + off, stage + off, len - 1);
	sched_yield();   /* the NIC places the bytes in address order, the last one last */
	__atomic_store_n(&dst[mark_at], stage[mark_at], __ATOMIC_RELEASE);
}

/* One request and its answer; 0, or -1 after a fault. */
static int kv_call(struct kv_client_th *c, uint8_t op, uint64_t id, const uint8_t *val,
		   struct kv_resp *out)
{
	struct kv_stress *s = c->s;
	unsigned t = kv_owner(id);
	uint8_t stage[KV_SLOT_BYTES];
	uint32_t off, len;
	struct mica_key k = mica_key_of(id);

	c->mark = (uint8_t)(c->mark % 255 + 1);
	if (kv_req_encode(stage, op, &k, val, op == KV_PUT ? KV_VLEN : 0, c->mark, &off, &len)) {
		fault(&s->out, "kv_req_encode refused op %u", op);
		return -1;
	}
	struct kv_resp *r = &s->resp[t][c->id];
	atomic_store(&r->mark, 0);   /* the client's answer buffer, emptied */
	kv_remote_write(s, s->slot[t][c->id], stage, off, len);
	uint64_t deadline = timing_now_ns() + STRESS_WAIT_MS * 1000000ull;
	while (atomic_load_explicit(&r->mark, memory_order_acquire) != c->mark) {
		if (atomic_load(&s->out.failed))
			return -1;
		if (timing_now_ns() > deadline) {
			fault(&s->out, "client %u: no answer from server %u in %u ms", c->id, t,
			      STRESS_WAIT_MS);
			return -1;
		}
		sched_yield();
	}
	out->rc = r->rc;
	out->vlen = r->vlen;
	memcpy(out->value, r->value, r->vlen <= KV_MAX_VALUE ? r->vlen : KV_MAX_VALUE);
	return 0;
}

static void kv_stress_get(struct kv_client_th *c, uint64_t id)
{
	struct kv_stress *s = c->s;
	uint64_t before = atomic_load(&s->acked[id]), ver;
	struct kv_resp r;
	char why[160];

	if (kv_call(c, KV_GET, id, NULL, &r))
		return;
	if (r.rc != MICA_OK)
		return fault(&s->out, "GET of key %" PRIu64 " missed (rc %d; nothing is evicted "
			     "here)", id, r.rc);
	if (mica_value_check(r.value, r.vlen, id, &ver, why, sizeof(why)))
		return fault(&s->out, "torn GET of key %" PRIu64 ": %s", id, why);
	if (ver < before)
		return fault(&s->out, "stale GET of key %" PRIu64 ": version %" PRIu64 " after "
			     "the PUT of version %" PRIu64 " was answered", id, ver, before);
	if (ver < c->seen[id])
		return fault(&s->out, "key %" PRIu64 "'s version went back from %" PRIu64 " to %"
			     PRIu64, id, c->seen[id], ver);
	c->seen[id] = ver;
	atomic_fetch_add(&s->out.gets, 1);
}

static void kv_stress_put(struct kv_client_th *c, uint64_t id)
{
	struct kv_stress *s = c->s;
	uint8_t v[KV_VLEN];
	struct kv_resp r;

	mica_value_fill(v, KV_VLEN, id, c->puts[id] + 1);
	if (kv_call(c, KV_PUT, id, v, &r))
		return;
	if (r.rc != MICA_OK)
		return fault(&s->out, "PUT of key %" PRIu64 " refused (rc %d)", id, r.rc);
	c->puts[id]++;
	atomic_store(&s->acked[id], c->puts[id]);
	atomic_fetch_add(&s->out.puts, 1);
}

static void *kv_client_main(void *arg)
{
	struct kv_client_th *c = arg;
	struct drtm_cfg cfg;
	struct drtm_gen g;   /* the same key and operation choice as DrTM's */

	drtm_cfg_defaults(&cfg);
	cfg.items = KV_KEYS;
	cfg.put_fraction = 0.5;
	if (drtm_gen_init(&g, &cfg, 0x7654321ull * (c->id + 1))) {
		fault(&c->s->out, "drtm_gen_init refused %u keys", KV_KEYS);
		return NULL;
	}
	for (unsigned n = 0; n < KV_MAX_OPS && !stopped(&c->s->out, c->s->end_ns); n++) {
		uint64_t id = drtm_next_key(&g);
		if (drtm_next_is_put(&g) && id % STRESS_THREADS == c->id)
			kv_stress_put(c, id);
		else
			kv_stress_get(c, id);
	}
	return NULL;
}

/* After the threads: each key's last version is its PUTs, the slots empty. */
static void kv_stress_end(struct kv_stress *s, struct kv_client_th *cl)
{
	for (uint64_t id = 0; id < KV_KEYS; id++) {
		struct mica *m = &s->part[kv_owner(id)];
		struct mica_key k = mica_key_of(id);
		uint8_t v[KV_MAX_VALUE];
		uint32_t vlen;
		uint64_t ver;
		char why[160];
		if (mica_get(m, &k, v, sizeof(v), &vlen) != MICA_OK ||
		    mica_value_check(v, vlen, id, &ver, why, sizeof(why)))
			return fault(&s->out, "end of run: key %" PRIu64 " is gone or torn", id);
		if (ver != cl[id % STRESS_THREADS].puts[id])
			return fault(&s->out, "lost PUT: key %" PRIu64 " at version %" PRIu64
				     " after %" PRIu64 " PUTs", id, ver, cl[id % STRESS_THREADS].puts[id]);
	}
	for (unsigned t = 0; t < KV_SERVERS; t++) {
		if (s->part[t].st.wraps || s->part[t].st.index_evictions)
			return fault(&s->out, "partition %u evicted (%" PRIu64 " wraps, %" PRIu64
				     " index evictions): the run is too long for its log", t,
				     s->part[t].st.wraps, s->part[t].st.index_evictions);
		for (unsigned c = 0; c < STRESS_THREADS; c++)
			if (s->slot[t][c][KV_CTRL_OFF + 7])
				return fault(&s->out, "client %u's slot at server %u still holds "
					     "a request", c, t);
	}
}

static void kv_stress_threads(struct kv_stress *s, struct kv_client_th *cl)
{
	struct kv_server_th sv[KV_SERVERS];
	pthread_t ts[KV_SERVERS], tc[STRESS_THREADS];

	for (unsigned t = 0; t < KV_SERVERS; t++) {
		sv[t] = (struct kv_server_th){ .s = s, .t = t };
		assert_int_equal(pthread_create(&ts[t], NULL, kv_server_main, &sv[t]), 0);
	}
	for (unsigned i = 0; i < STRESS_THREADS; i++) {
		cl[i] = (struct kv_client_th){ .s = s, .id = i };
		assert_int_equal(pthread_create(&tc[i], NULL, kv_client_main, &cl[i]), 0);
	}
	for (unsigned i = 0; i < STRESS_THREADS; i++)
		assert_int_equal(pthread_join(tc[i], NULL), 0);
	atomic_store(&s->clients_done, true);
	for (unsigned t = 0; t < KV_SERVERS; t++)
		assert_int_equal(pthread_join(ts[t], NULL), 0);
}

/* One run: partitions with every key at version 0, threads, the end checks. */
static void kv_stress_run(struct kv_stress *s, enum plant plant, unsigned ms)
{
	struct kv_client_th cl[STRESS_THREADS];
	char err[256];

	memset(s, 0, sizeof(*s));
	s->out.enough = plant == PLANT_NONE ? STRESS_ENOUGH : PLANT_ENOUGH;
	for (unsigned t = 0; t < KV_SERVERS; t++)
		if (mica_init(&s->part[t], KV_KEYS, KV_LOG_BYTES, KV_SEED, err, sizeof(err)))
			fail_msg("%s", err);
	for (uint64_t id = 0; id < KV_KEYS; id++) {
		struct mica_key k = mica_key_of(id);
		uint8_t v[KV_VLEN];
		mica_value_fill(v, KV_VLEN, id, 0);
		assert_int_equal(mica_put(&s->part[kv_owner(id)], &k, v, KV_VLEN), MICA_OK);
	}
	s->plant = plant;
	s->end_ns = timing_now_ns() + ms * 1000000ull;
	kv_stress_threads(s, cl);
	if (!atomic_load(&s->out.failed))
		kv_stress_end(s, cl);
	for (unsigned t = 0; t < KV_SERVERS; t++)
		mica_free(&s->part[t]);
}

static void kv_threads_keep_the_protocol(void **state)
{
	(void)state;
	static struct kv_stress s;
	kv_stress_run(&s, PLANT_NONE, STRESS_MS);
	if (atomic_load(&s.out.failed))
		fail_msg("%s", s.out.why);
	print_message("# herd-kv: %u clients, %u server threads, %u keys, at most %u ms: %" PRIu64
		      " GETs, %" PRIu64 " PUTs\n", STRESS_THREADS, KV_SERVERS, KV_KEYS, STRESS_MS,
		      (uint64_t)s.out.gets, (uint64_t)s.out.puts);
	/* both servers and every writer took part */
	assert_true(s.out.gets >= STRESS_ENOUGH && s.out.puts >= STRESS_ENOUGH);
	assert_true(s.part[0].st.puts > KV_KEYS && s.part[1].st.puts > KV_KEYS);
}

static void kv_planted_mark_first_is_caught(void **state)
{
	(void)state;
	static struct kv_stress s;
	kv_stress_run(&s, PLANT_MARK_FIRST, STRESS_MS);
	if (!atomic_load(&s.out.failed))
		fail_msg("an arrival byte stored before the request was not caught (%" PRIu64
			 " GETs, %" PRIu64 " PUTs)", (uint64_t)s.out.gets, (uint64_t)s.out.puts);
	print_message("# planted fault %d caught: %s\n", (int)PLANT_MARK_FIRST, s.out.why);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(drtm_threads_keep_the_protocol),
		cmocka_unit_test(drtm_planted_missing_unlock_is_caught),
		cmocka_unit_test(drtm_planted_release_before_write_is_caught),
		cmocka_unit_test(drtm_planted_skipped_version_bump_is_caught),
		cmocka_unit_test(kv_threads_keep_the_protocol),
		cmocka_unit_test(kv_planted_mark_first_is_caught),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
