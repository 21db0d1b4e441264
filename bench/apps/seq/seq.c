/*
 * seq.c - the sequencer's pure parts (seq.h): variant names, the
 * configuration and its checks, its place in a TEST message, the herd-rpc
 * slot layout, batching averages and the uniqueness check. No verbs, no I/O.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "errbuf.h"
#include "seq.h"

static const char *const variant_names[SEQ_VARIANT_COUNT] = {
	[SEQ_ATOMICS] = "atomics",
	[SEQ_HERD_RPC] = "herd-rpc",
	[SEQ_SPEC_S0] = "spec-s0",
	[SEQ_HERD_KV] = "herd-kv",
	[SEQ_DRTM_KV] = "drtm-kv",
};

/* The request each variant's clients send (verb, transport, payload bytes). */
static const struct {
	uint64_t verb, transport, size;
} variant_request[SEQ_VARIANT_COUNT] = {
	[SEQ_ATOMICS] = { RB_VERB_FETCH_ADD, RB_TR_RC, 8 },
	[SEQ_HERD_RPC] = { RB_VERB_WRITE, RB_TR_UC, 8 },
	[SEQ_SPEC_S0] = { RB_VERB_SEND_IMM, RB_TR_UD, 0 },
	[SEQ_HERD_KV] = { RB_VERB_WRITE, RB_TR_UC, KV_SLOT_BYTES },
	[SEQ_DRTM_KV] = { RB_VERB_READ, RB_TR_RC, DRTM_ITEM_BYTES },
};

const char *seq_variant_name(uint64_t v)
{
	return v < SEQ_VARIANT_COUNT ? variant_names[v] : "?";
}

int seq_variant_parse(const char *s, uint64_t *v, char *err, size_t errlen)
{
	for (uint64_t i = 0; i < SEQ_VARIANT_COUNT; i++) {
		if (strcmp(s, variant_names[i]) == 0) {
			*v = i;
			return 0;
		}
	}
	return rb_fail(err, errlen, "--variant %s: unknown variant; use atomics, herd-rpc, spec-s0, herd-kv or drtm-kv",
		       s);
}

void seq_cfg_defaults(struct seq_cfg *c)
{
	*c = (struct seq_cfg){
		.variant = SEQ_SPEC_S0,
		.server_threads = 1,
		.client_threads = 1,
		.window = 4,
		.batch = 1,
		.ud_qps = 1,
		.start = 0,
		.duration_ms = 1000,
		.warmup_ms = 200,
		.timeout_ms = 60000,
		.idle_yield = 1,
	};
	kv_cfg_defaults(&c->kv);
	drtm_cfg_defaults(&c->drtm);
}

int seq_cfg_validate(const struct seq_cfg *c, long online_cpus, char *err, size_t errlen)
{
	if (c->variant >= SEQ_VARIANT_COUNT)
		return rb_fail(err, errlen, "variant %llu is unknown; use atomics, herd-rpc, spec-s0, herd-kv or drtm-kv",
			       (unsigned long long)c->variant);
	if (c->window < 1 || c->window > SEQ_MAX_WINDOW)
		return rb_fail(err, errlen, "--window %llu is out of range: each client keeps 1..%u "
			       "requests outstanding; use -w 1..%u", (unsigned long long)c->window,
			       SEQ_MAX_WINDOW, SEQ_MAX_WINDOW);
	if (c->client_threads < 1 || c->client_threads > SEQ_MAX_CLIENT_THREADS)
		return rb_fail(err, errlen, "--threads %llu is out of range 1..%u; run more client "
			       "processes for more clients", (unsigned long long)c->client_threads,
			       SEQ_MAX_CLIENT_THREADS);
	if (c->variant == SEQ_ATOMICS || c->variant == SEQ_DRTM_KV) {
		if (c->server_threads != 0)
			return rb_fail(err, errlen, "--server-threads %llu with --variant %s: it uses "
				       "no server CPU (the NIC does the work); use --server-threads 0",
				       (unsigned long long)c->server_threads, seq_variant_name(c->variant));
		/* no server thread, so no responses to batch or send on UD QPs;
		 * the defaults (on, 1) are accepted: they change nothing */
		if (c->batch != 1)
			return rb_fail(err, errlen, "--batch off with --variant %s: it sends no "
				       "responses to batch (the NIC answers each one-sided verb); drop "
				       "--batch", seq_variant_name(c->variant));
		if (c->ud_qps != 1)
			return rb_fail(err, errlen, "--ud-qps %llu with --variant %s: it has no "
				       "response UD QPs; drop --ud-qps", (unsigned long long)c->ud_qps,
				       seq_variant_name(c->variant));
	} else {
		if (c->server_threads < 1 || c->server_threads > SEQ_MAX_SERVER_THREADS)
			return rb_fail(err, errlen, "--server-threads %llu is out of range 1..%u for "
				       "--variant %s", (unsigned long long)c->server_threads,
				       SEQ_MAX_SERVER_THREADS, seq_variant_name(c->variant));
		if (c->ud_qps < 1 || c->ud_qps > SEQ_MAX_UD_QPS)
			return rb_fail(err, errlen, "--ud-qps %llu is out of range 1..%u (response QPs "
				       "per server thread)", (unsigned long long)c->ud_qps,
				       SEQ_MAX_UD_QPS);
		if (online_cpus > 0 && c->server_threads > (uint64_t)online_cpus)
			return rb_fail(err, errlen, "--server-threads %llu is more than the server's %ld "
				       "online CPUs: polling threads would share cores; use "
				       "--server-threads <= %ld", (unsigned long long)c->server_threads,
				       online_cpus, online_cpus);
	}
	if (c->variant == SEQ_HERD_KV && kv_cfg_validate(&c->kv, c->window, err, errlen))
		return -1;
	if (c->variant == SEQ_DRTM_KV && drtm_cfg_validate(&c->drtm, c->client_threads, err, errlen))
		return -1;
	if (c->idle_yield > 1)
		return rb_fail(err, errlen, "--idle %llu: use spin or yield", (unsigned long long)c->idle_yield);
	if (c->batch > 1)
		return rb_fail(err, errlen, "--batch %llu: use on or off", (unsigned long long)c->batch);
	if (c->duration_ms == 0)
		return rb_fail(err, errlen, "-D 0: the sequencer runs for a duration; use -D 0.001..86400");
	if (c->timeout_ms < c->duration_ms + c->warmup_ms + 1000)
		return rb_fail(err, errlen, "--timeout %.3f s is shorter than warm-up + duration + 1 s "
			       "(%.3f s); raise --timeout", (double)c->timeout_ms / 1e3,
			       (double)(c->duration_ms + c->warmup_ms + 1000) / 1e3);
	return 0;
}

void seq_cfg_to_test(const struct seq_cfg *c, struct rb_test *t)
{
	test_defaults(t);
	uint64_t v = c->variant < SEQ_VARIANT_COUNT ? c->variant : 0;
	t->verb = variant_request[v].verb;
	t->transport = variant_request[v].transport;
	t->size = variant_request[v].size;
	t->threads = c->client_threads;
	t->emulated_peers = c->server_threads;
	t->window = c->window;
	t->qps_per_thread = c->ud_qps;
	t->postlist = c->batch ? SEQ_BATCH_MAX : 1;
	t->seed = c->start;
	t->duration_ms = c->duration_ms;
	t->warmup_ms = c->warmup_ms;
	t->timeout_ms = c->timeout_ms;
	t->access = c->idle_yield;
	t->atomic_counters = c->kv.keys;
	t->stride = c->kv.value_bytes;
	t->validate = c->kv.validate;
	t->recv_batch = (uint64_t)llround(c->kv.get_fraction * 1e6);
	t->iters = (uint64_t)llround(c->kv.theta * 1e6);
	t->warmup_iters = c->kv.zipf;
	drtm_cfg_to_test(&c->drtm, t);
}

int seq_cfg_from_test(const struct rb_test *t, struct seq_cfg *c, char *err, size_t errlen)
{
	uint64_t v;
	for (v = 0; v < SEQ_VARIANT_COUNT; v++)
		if (t->verb == variant_request[v].verb && t->transport == variant_request[v].transport &&
		    t->size == variant_request[v].size)
			break;
	if (v == SEQ_VARIANT_COUNT)
		return rb_fail(err, errlen, "not a sequencer point: verb %s, transport %s, size %llu "
			       "(is the client rdma_bench? this server is rdma_seq)",
			       verb_name(t->verb), transport_name(t->transport),
			       (unsigned long long)t->size);
	if (t->postlist != 1 && t->postlist != SEQ_BATCH_MAX)
		return rb_fail(err, errlen, "sequencer batch cap %llu: expected 1 (off) or %u (on)",
			       (unsigned long long)t->postlist, SEQ_BATCH_MAX);
	*c = (struct seq_cfg){
		.variant = v,
		.server_threads = t->emulated_peers,
		.client_threads = t->threads,
		.window = t->window,
		.batch = t->postlist == SEQ_BATCH_MAX,
		.ud_qps = t->qps_per_thread,
		.start = t->seed,
		.duration_ms = t->duration_ms,
		.warmup_ms = t->warmup_ms,
		.timeout_ms = t->timeout_ms,
		.idle_yield = t->access != 0,
	};
	kv_cfg_defaults(&c->kv);
	c->kv.keys = t->atomic_counters;
	c->kv.value_bytes = t->stride;
	c->kv.validate = t->validate != 0;   /* 0 or 1 */
	c->kv.get_fraction = (double)t->recv_batch / 1e6;
	c->kv.zipf = t->warmup_iters != 0;
	c->kv.theta = (double)t->iters / 1e6;
	drtm_cfg_from_test(t, &c->drtm);
	return 0;
}

uint64_t seq_slot_offset(uint64_t window, uint64_t client, uint64_t k)
{
	return (client * window + k) * SEQ_SLOT_BYTES;
}

uint64_t seq_region_bytes(uint64_t window, uint64_t clients)
{
	return clients * window * SEQ_SLOT_BYTES;
}

uint64_t seq_clients_of_thread(uint64_t t, uint64_t clients, uint64_t server_threads)
{
	if (t >= clients)
		return 0;
	return (clients - t + server_threads - 1) / server_threads;
}

double seq_batch_avg(const struct seq_batch *b)
{
	return b->doorbells ? (double)b->responses / (double)b->doorbells : NAN;
}

int seq_vals_init(struct seq_vals *s, uint64_t cap)
{
	*s = (struct seq_vals){ .cap = cap };
	if (cap == 0)
		return 0;
	s->v = malloc(cap * sizeof(*s->v));
	return s->v ? 0 : -1;
}

void seq_vals_free(struct seq_vals *s)
{
	free(s->v);
	*s = (struct seq_vals){ 0 };
}

const char *seq_check_name(int verdict)
{
	return verdict == SEQ_CHECK_EXACT ? "exact" : verdict == SEQ_CHECK_SUMMARY ? "summary" : "failed";
}

/* Sum and sum of squares of start .. start + n - 1, mod 2^64 (one pass). */
static void range_sums(uint64_t start, uint64_t n, uint64_t *sum, uint64_t *sumsq)
{
	*sum = 0;
	*sumsq = 0;
	for (uint64_t i = 0; i < n; i++) {
		uint64_t x = start + i;
		*sum += x;
		*sumsq += x * x;
	}
}

static int check_summary(const struct seq_vals *lists, unsigned nlists, uint64_t start,
			 uint64_t total, char *why, size_t whylen)
{
	uint64_t count = 0, sum = 0, sumsq = 0, min = UINT64_MAX, max = 0;
	for (unsigned i = 0; i < nlists; i++) {
		const struct seq_vals *s = &lists[i];
		if (s->count == 0)
			continue;
		count += s->count;
		sum += s->sum;
		sumsq += s->sumsq;
		if (s->min < min)
			min = s->min;
		if (s->max > max)
			max = s->max;
	}
	uint64_t esum, esumsq;
	if (count != total) {
		rb_fail(why, whylen, "%llu values received, %llu handed out (%s)",
			(unsigned long long)count, (unsigned long long)total,
			count > total ? "a value handed out twice" : "values lost");
		return SEQ_CHECK_FAILED;
	}
	if (total == 0)
		return SEQ_CHECK_SUMMARY;
	if (min != start || max != start + total - 1) {
		rb_fail(why, whylen, "values span [%llu, %llu], expected [%llu, %llu]",
			(unsigned long long)min, (unsigned long long)max, (unsigned long long)start,
			(unsigned long long)(start + total - 1));
		return SEQ_CHECK_FAILED;
	}
	range_sums(start, total, &esum, &esumsq);
	if (sum != esum || sumsq != esumsq) {
		rb_fail(why, whylen, "sum of values differs from that of [%llu, %llu]: a value "
			"handed out twice and another missing", (unsigned long long)start,
			(unsigned long long)(start + total - 1));
		return SEQ_CHECK_FAILED;
	}
	return SEQ_CHECK_SUMMARY;
}

/* Bitmaps above this many bits fall back to the summary (512 MiB). */
#define SEQ_BITMAP_MAX_BITS (UINT64_C(1) << 32)

int seq_check_unique(const struct seq_vals *lists, unsigned nlists, uint64_t start,
		     uint64_t total, char *why, size_t whylen)
{
	bool all_stored = true;
	for (unsigned i = 0; i < nlists; i++)
		if (lists[i].n < lists[i].count)
			all_stored = false;
	if (!all_stored || total > SEQ_BITMAP_MAX_BITS)
		return check_summary(lists, nlists, start, total, why, whylen);

	uint64_t *bits = calloc(total / 64 + 1, sizeof(*bits));
	if (!bits)
		return check_summary(lists, nlists, start, total, why, whylen);
	int verdict = SEQ_CHECK_EXACT;
	for (unsigned i = 0; i < nlists && verdict == SEQ_CHECK_EXACT; i++) {
		for (uint64_t j = 0; j < lists[i].n; j++) {
			uint64_t x = lists[i].v[j], off = x - start;
			if (x < start || off >= total) {
				rb_fail(why, whylen, "value %llu (client %u) outside the handed-out "
					"range [%llu, %llu)", (unsigned long long)x, i,
					(unsigned long long)start, (unsigned long long)(start + total));
				verdict = SEQ_CHECK_FAILED;
				break;
			}
			uint64_t m = UINT64_C(1) << (off % 64);
			if (bits[off / 64] & m) {
				rb_fail(why, whylen, "value %llu handed out twice (second time to client %u)",
					(unsigned long long)x, i);
				verdict = SEQ_CHECK_FAILED;
				break;
			}
			bits[off / 64] |= m;
		}
	}
	for (uint64_t off = 0; off < total && verdict == SEQ_CHECK_EXACT; off++) {
		if (!(bits[off / 64] & (UINT64_C(1) << (off % 64)))) {
			rb_fail(why, whylen, "value %llu missing (handed out, never received)",
				(unsigned long long)(start + off));
			verdict = SEQ_CHECK_FAILED;
		}
	}
	free(bits);
	return verdict;
}
