/*
 * seq.c - the sequencer's pure parts (seq.h): variant names, the
 * configuration and its checks, its CONFIG message (SEQ_CFG_FIELDS), the herd-rpc
 * slot layout, batching averages and the uniqueness check. No verbs, no I/O.
 */
#include <math.h>
#include <stddef.h>
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
		.window = SEQ_DEFAULT_WINDOW,
		.batch = 1,
		.ud_qps = 1,
		.start = 0,
		.duration_ms = 1000,
		.warmup_ms = 200,
		.timeout_ms = 120000,   /* the shared --timeout row's (options.h) */
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

/* A fraction or theta as parts per million on the wire (0.95 -> 950000). */
static uint64_t to_ppm(double x)
{
	return x > 0 ? (uint64_t)llround(x * 1e6) : 0;
}

void seq_cfg_to_wire(const struct seq_cfg *c, struct seq_wire *w)
{
	*w = (struct seq_wire){
		.variant = c->variant,
		.server_threads = c->server_threads,
		.client_threads = c->client_threads,
		.window = c->window,
		.batch = c->batch,
		.ud_qps = c->ud_qps,
		.start = c->start,
		.duration_ms = c->duration_ms,
		.warmup_ms = c->warmup_ms,
		.timeout_ms = c->timeout_ms,
		.idle_yield = c->idle_yield,
		.kv_get_ppm = to_ppm(c->kv.get_fraction),
		.kv_keys = c->kv.keys,
		.kv_value_bytes = c->kv.value_bytes,
		.kv_zipf = c->kv.zipf,
		.kv_theta_ppm = to_ppm(c->kv.theta),
		.kv_validate = c->kv.validate,
		.drtm_put_ppm = to_ppm(c->drtm.put_fraction),
		.drtm_items = c->drtm.items,
		.drtm_zipf = c->drtm.zipf,
		.drtm_theta_ppm = to_ppm(c->drtm.theta),
		.drtm_put_writes = c->drtm.put_writes,
		.drtm_validate = c->drtm.validate,
	};
}

void seq_cfg_from_wire(const struct seq_wire *w, struct seq_cfg *c)
{
	*c = (struct seq_cfg){
		.variant = w->variant,
		.server_threads = w->server_threads,
		.client_threads = w->client_threads,
		.window = w->window,
		.batch = w->batch,
		.ud_qps = w->ud_qps,
		.start = w->start,
		.duration_ms = w->duration_ms,
		.warmup_ms = w->warmup_ms,
		.timeout_ms = w->timeout_ms,
		.idle_yield = w->idle_yield,
		.kv = { .get_fraction = (double)w->kv_get_ppm / 1e6, .keys = w->kv_keys,
			.value_bytes = w->kv_value_bytes, .zipf = w->kv_zipf,
			.theta = (double)w->kv_theta_ppm / 1e6, .validate = w->kv_validate },
		.drtm = { .put_fraction = (double)w->drtm_put_ppm / 1e6, .items = w->drtm_items,
			  .zipf = w->drtm_zipf, .theta = (double)w->drtm_theta_ppm / 1e6,
			  .put_writes = w->drtm_put_writes, .validate = w->drtm_validate },
	};
}

void seq_cfg_to_config(const struct seq_cfg *c, struct ctrl_config *m)
{
	struct seq_wire w;
	unsigned i = 0;

	seq_cfg_to_wire(c, &w);
	memset(m, 0, sizeof(*m));
	m->program = CTRL_PROG_RDMA_SEQ;
	m->version = SEQ_CFG_VERSION;
	m->nfields = SEQ_CFG_NFIELDS;
#define SEQ_X_PUT(name) m->f[i++] = w.name;
	SEQ_CFG_FIELDS(SEQ_X_PUT)
#undef SEQ_X_PUT
}

/* Wire fields whose every value the command line bounds whatever the
 * variant (flags 0/1; fractions 0..1 and thetas below 10 in parts per
 * million): a CONFIG beyond them is refused before any use, so the wire
 * reaches no further than the command line. */
static const struct {
	const char *name;
	size_t off;
	uint64_t max;
} wire_caps[] = {
#define CAP(f, m) { #f, offsetof(struct seq_wire, f), m }
	CAP(batch, 1), CAP(idle_yield, 1), CAP(kv_zipf, 1), CAP(kv_validate, 1),
	CAP(drtm_zipf, 1), CAP(drtm_put_writes, 1), CAP(drtm_validate, 1),
	CAP(kv_get_ppm, 1000000), CAP(drtm_put_ppm, 1000000),
	CAP(kv_theta_ppm, 10000000), CAP(drtm_theta_ppm, 10000000),
#undef CAP
};

int seq_cfg_from_config(const struct ctrl_config *m, struct seq_cfg *c, char *err, size_t errlen)
{
	struct seq_wire w;
	unsigned i = 0;

	if (ctrl_config_expect(m, CTRL_PROG_RDMA_SEQ, SEQ_CFG_VERSION, SEQ_CFG_NFIELDS, err,
			       errlen))
		return -1;
#define SEQ_X_GET(name) w.name = m->f[i++];
	SEQ_CFG_FIELDS(SEQ_X_GET)
#undef SEQ_X_GET
	for (size_t k = 0; k < sizeof(wire_caps) / sizeof(wire_caps[0]); k++) {
		uint64_t v;
		memcpy(&v, (const char *)&w + wire_caps[k].off, sizeof(v));
		if (v > wire_caps[k].max)
			return rb_fail(err, errlen, "CONFIG field %s %llu is above its maximum %llu",
				       wire_caps[k].name, (unsigned long long)v,
				       (unsigned long long)wire_caps[k].max);
	}
	seq_cfg_from_wire(&w, c);
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
