/*
 * report.c - result rows of a point (schema: docs/csv.md); the
 * environment columns come from env.c.
 *
 * How it works: report_build_row() sets every column in one fixed order
 * (config, metrics, counters, status, environment), so every row of every
 * run has the same header and csv_append can append to one file. Values
 * that were not measured are set NA. Latency histograms hold round-trip ns;
 * for one-way kinds (SEND and WRITE ping-pong) lat_* are halved and the
 * rtt_* columns keep the round trip.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pcie_host.h"
#include "pcie_model.h"
#include "report.h"
#include "topo.h"
#include "log.h"
#include "timing.h"
#include "units.h"

const char *const report_table_cols[] = {
	"thread", "verb", "transport", "test", "size_bytes", "ops", "duration_s", "mops", "gbps",
	"lat_kind", "lat_p50_us", "lat_p99_us", "lat_mean_us", "status",
};
const int report_table_ncols = (int)(sizeof(report_table_cols) / sizeof(report_table_cols[0]));

/*
 * Port counters that mean trouble (hw_counters/ names of rxe and mlx5; a
 * device has some of them). The ctr_retry, ctr_rnr and ctr_dup columns sum
 * the same lists; ctr_seq_err sums the sequence and out-of-sequence ones.
 */
static const char *const retry_names[] = { "hw_counters/completer_retry_err",
	"hw_counters/local_ack_timeout_err", "hw_counters/retry_exceeded_err", NULL };
static const char *const rnr_names[] = { "hw_counters/rcvd_rnr_err", "hw_counters/send_rnr_err",
	"hw_counters/rnr_nak_retry_err", NULL };
static const char *const seqerr_names[] = { "hw_counters/rcvd_seq_err",
	"hw_counters/packet_seq_err", "hw_counters/implied_nak_seq_err", NULL };
static const char *const oos_names[] = { "hw_counters/out_of_seq_request",
	"hw_counters/out_of_sequence", NULL };
static const char *const dup_names[] = { "hw_counters/duplicate_request", NULL };
static const char *const cnp_names[] = { "hw_counters/np_cnp_sent", "hw_counters/rp_cnp_handled",
	"hw_counters/np_ecn_marked_roce_packets", "hw_counters/rp_cnp_ignored", NULL };

/* Each kind of trouble: what it is called, its counters, its likely fix. */
static const struct {
	const char *what;
	const char *const *names;
	const char *fix;
} trouble_kinds[] = {
	{ "RNR NAKs", rnr_names, "a SEND found no receive posted: raise --rq-depth or post fewer "
	  "outstanding SENDs (lower -w)" },
	{ "retries", retry_names, "packets or ACKs lost or late: check the link for loss and that "
	  "both ends' MTUs match; raise --ack-timeout (env/timeout-suggest)" },
	{ "sequence errors", seqerr_names, "packets lost or reordered on the path: check the link "
	  "for loss" },
	{ "out-of-sequence", oos_names, "requests arrived after a lost one: check the link for "
	  "loss" },
	{ "duplicate requests", dup_names, "the requester resent what had arrived: --ack-timeout "
	  "below the round trip? raise it (env/timeout-suggest)" },
	{ "CNP/ECN", cnp_names, "congestion marked on the path: fewer senders or a smaller -w, or "
	  "check the switch's ECN/PFC settings" },
};

static uint64_t delta_sum(const struct rb_counters *before, const struct rb_counters *after,
			  const char *const *names, bool *found)
{
	uint64_t s = 0, d;

	*found = false;
	for (const char *const *n = names; *n; n++)
		if (dev_counter_delta(before, after, *n, &d) == 0) {
			s += d;
			*found = true;
		}
	return s;
}

int report_trouble(const struct rb_counters *before, const struct rb_counters *after,
		   char *out, size_t len)
{
	size_t used = 0;
	int moved = 0;

	if (len)
		out[0] = '\0';
	for (size_t k = 0; k < sizeof(trouble_kinds) / sizeof(trouble_kinds[0]); k++) {
		bool found;
		uint64_t v = delta_sum(before, after, trouble_kinds[k].names, &found);
		if (!found || v == 0)
			continue;
		moved++;
		if (used < len) {
			int w = snprintf(out + used, len - used, "%s%s %llu (%s)", moved > 1 ? "; " : "",
					 trouble_kinds[k].what, (unsigned long long)v,
					 trouble_kinds[k].fix);
			used += w > 0 ? (size_t)w : 0;
		}
	}
	return moved;
}

/* Sum of the deltas of the named counters present in both snapshots; -1 if none. */
static int counter_sum(const struct rb_counters *before, const struct rb_counters *after,
		       const char *const *names, uint64_t *out)
{
	int found = 0;
	uint64_t s = 0, d;

	for (const char *const *n = names; *n; n++)
		if (dev_counter_delta(before, after, *n, &d) == 0) {
			s += d;
			found = 1;
		}
	*out = s;
	return found ? 0 : -1;
}

static void set_counter(struct row *r, const char *col, bool have, const struct rb_counters *before,
			const struct rb_counters *after, const char *const *names, uint64_t mult)
{
	uint64_t v;

	if (have && counter_sum(before, after, names, &v) == 0)
		row_set_u64(r, col, v * mult);
	else
		row_set_na(r, col);
}

/*
 * A rate with 6 significant digits: soft-RoCE moves 0.00004 Gb/s at small
 * payloads and a NIC 100 Mops, and a fixed number of decimals would round
 * the one to 0 or pad the other. NAN (not measured) -> empty.
 */
static void set_rate(struct row *r, const char *col, double v)
{
	if (isnan(v))
		row_set_na(r, col);
	else
		row_set_fmt(r, col, "%.6g", v);
}

static void set_us(struct row *r, const char *col, double ns, double div)
{
	row_set_double(r, col, isnan(ns) ? NAN : units_ns_to_us(ns / div), 3);
}

/* The model's configuration for a row's test: the verb table's row and
 * the transport as the test names them (pcie_model.h; pm_run says what it
 * refuses). Mapping (docs/model.md): a postlist of 1 is
 * posted WQE-by-MMIO when inline (the mlx4/mlx5 providers write a lone
 * inline WQE through the BlueFlame register: PM_BF_INLINE), by doorbell
 * otherwise; a larger postlist is one doorbell per postlist. */
static void model_config(const struct rb_test *t, int inline_used, struct pm_config *c)
{
	*c = pm_config_default();
	c->verb = t->verb;
	c->transport = t->transport;
	c->size_bytes = (unsigned long)t->size;
	c->inline_payload = inline_used == 1;
	c->postlist = t->postlist ? (unsigned)t->postlist : 1;
	c->wqe_by_mmio = pm_wqe_by_mmio_default(PM_BF_INLINE, c->postlist, c->inline_payload);
	c->signal_interval = t->signal_interval ? (unsigned)t->signal_interval : 1;
}

/*
 * The PCIe model's columns (docs/csv.md, "PCIe model"), after the perf
 * columns: this host's bus bytes per op and limit from its device's link
 * (sysfs; empty with model_reason when there is no PCI device, e.g.
 * soft-RoCE), measured / limit on the process row, the same limit on the
 * paper's link for reference, and model_link (never empty: the last column).
 */
/* The model's answer for a row's configuration: on the paper's link (ok)
 * and on this host's (have_host), or why not (why, note). */
struct model_view {
	bool ok, have_host;
	char wqe_path[40];    /* what the model assumed: "WQE-by-MMIO" or "doorbell per 16" */
	struct pm_result rp, rh;
	struct pm_link host;
	const char *why;
	char note[ROW_VAL_LEN];
	char err[320];
};

/* How the model has the WQEs reach the NIC (pm_wqe_by_mmio_default):
 * "WQE-by-MMIO" or "doorbell per N". */
static void model_wqe_path(const struct pm_config *c, char *buf, size_t len)
{
	if (c->wqe_by_mmio)
		snprintf(buf, len, "WQE-by-MMIO");
	else
		snprintf(buf, len, "doorbell per %u", c->postlist);
}

static void model_view(const struct rb_point_info *p, struct model_view *v)
{
	struct pm_config c;
	struct pm_link paper = pm_link_paper();
	v->why = "";
	v->note[0] = '\0';
	v->host = paper;
	v->have_host = false;
	model_config(p->t, p->inline_used, &c);
	model_wqe_path(&c, v->wqe_path, sizeof(v->wqe_path));
	v->ok = pm_run(&c, &paper, &v->rp, v->err, sizeof(v->err)) == 0;
	if (!v->ok)
		v->why = v->err;
	if (v->ok && p->dev != NULL)
		v->have_host = pcie_host_link(NULL, p->dev->name, &v->host, v->note, sizeof(v->note)) == 1 &&
			       pm_run(&c, &v->host, &v->rh, v->err, sizeof(v->err)) == 0;
	else if (v->ok)
		snprintf(v->note, sizeof(v->note), "no RDMA device for this row: the paper's link only");
}

/* The side of a result that binds. */
static const struct pm_side *bound_side(const struct pm_result *r)
{
	return r->limit_is_responder ? &r->responder : &r->requester;
}

/* "mmio (requester)": what binds a result, and on which side. */
static void bound_text(const struct pm_result *r, char *buf, size_t len)
{
	snprintf(buf, len, "%s (%s)", pm_bound_name(bound_side(r)->bound),
		 r->limit_is_responder ? "responder" : "requester");
}

/* "the requester's MMIO throughput (5.2.1)": the same, in the paper's words. */
static void bound_words(const struct pm_result *r, char *buf, size_t len)
{
	snprintf(buf, len, "the %s's %s", r->limit_is_responder ? "responder" : "requester",
		 pm_bound_desc(bound_side(r)->bound));
}

/* "X ns/op" (3 significant digits below 100) or "not counted". */
static void ns_per_op_text(double ns, char *buf, size_t len)
{
	if (isnan(ns))
		snprintf(buf, len, "not counted");
	else
		snprintf(buf, len, ns >= 100 ? "%.0f ns/op" : "%.3g ns/op", ns);
}

/* " (CPUs 45 % busy, softirq 30 %)" from a /proc/stat window, or "". */
static void busy_text(const struct cs_delta *d, char *buf, size_t len)
{
	struct cs_util u;
	buf[0] = '\0';
	if (d && cs_util(d, &u) == 0)
		snprintf(buf, len, " (CPUs %.0f %% busy, softirq %.0f %%)", u.busy_pct, u.softirq_pct);
}

/* --explain's CPU part: each side's perf task-clock per op (the client's
 * over its measured phase, the server's over READY .. DONE per op of all
 * phases) and the /proc/stat busy share of each host's CPUs. */
static void explain_cpu(const struct rb_point_info *p, const struct rb_measure *m, bool meas,
			char *out, size_t len)
{
	const struct pc_sample *s = meas ? m->pc : NULL;
	char cns[32], sns[32], cb[64] = "", sb[64] = "", why[CS_REASON_MAX];
	struct cs_delta d;
	struct pc_sample ss;
	double sv = NAN;

	ns_per_op_text(s && s->valid[PC_TASK_CLOCK] && m->pc_ops > 0 ?
		       (double)s->value[PC_TASK_CLOCK] / (double)m->pc_ops : NAN, cns, sizeof(cns));
	if (meas && cs_window(&p->cs_before, &p->cs_after, &d, why, sizeof(why)) == 0)
		busy_text(&d, cb, sizeof(cb));
	if (meas && p->have_server_cpu) {
		ctrl_cpu_to_sample(&p->server_cpu, &ss);
		if (ss.valid[PC_TASK_CLOCK] && p->client_ops_all > 0)
			sv = (double)ss.value[PC_TASK_CLOCK] / (double)p->client_ops_all;
		busy_text(p->server_cpu.stat.ncpus ? &p->server_cpu.stat : NULL, sb, sizeof(sb));
	}
	ns_per_op_text(sv, sns, sizeof(sns));
	snprintf(out, len, "client CPU %s%s, server CPU %s%s", cns, cb, sns, sb);
}

/* The null device (tests/nulldev): no RDMA hardware, its firmware version
 * ends in "-null" (tests/nulldev/nd_dev.c; devices null0, null1, ...). */
static bool dev_is_null(const struct rb_dev *d)
{
	size_t n = d ? strnlen(d->attr.fw_ver, sizeof(d->attr.fw_ver)) : 0;

	return n >= 5 && strcmp(d->attr.fw_ver + n - 5, "-null") == 0;
}

int report_explain(const struct rb_point_info *p, const struct rb_measure *m, char *out, size_t len)
{
	struct model_view v;
	char bound[96], trouble[512] = "";
	size_t n = 0;
	bool meas = m && m->valid && m->duration_s > 0;
	double mops = meas ? units_mops(m->ops, m->duration_s) : NAN;

	model_view(p, &v);
#define EXPLAIN_ADD(...) \
	do { \
		if (n < len) \
			n += (size_t)snprintf(out + n, len - n, __VA_ARGS__); \
	} while (0)
	out[0] = '\0';
	if (meas)
		EXPLAIN_ADD("%.4g Mops", mops);
	else
		EXPLAIN_ADD("not measured");
	if (!v.ok) {
		EXPLAIN_ADD("; PCIe model: %s", v.why);
	} else if (v.have_host) {
		/* measured vs the limit on this host's own link, and what binds */
		bound_words(&v.rh, bound, sizeof(bound));
		EXPLAIN_ADD("; PCIe model on this host's link (pcie%ux%u, %s): limit %.4g Mops, "
			    "bound by %s", v.host.gen, v.host.lanes, v.wqe_path, v.rh.limit_mops, bound);
		if (meas)
			EXPLAIN_ADD("; measured %.4g Mops = %.0f %% of it", mops,
				    100.0 * mops / v.rh.limit_mops);
	} else {
		bound_words(&v.rp, bound, sizeof(bound));
		EXPLAIN_ADD("; %s: CPU/software-bound (on the paper's link, %s: %.4g Mops, "
			    "bound by %s)",
			    dev_is_null(p->dev) ? "the null device (no RDMA hardware): the rate is this "
						  "host's software cost, not a network's; no PCI device"
						: "no PCI device",
			    v.wqe_path, v.rp.limit_mops, bound);
	}
	char cpu[160];
	explain_cpu(p, m, meas, cpu, sizeof(cpu));
	EXPLAIN_ADD("; %s", cpu);
	if (!p->have_counters)
		EXPLAIN_ADD("; port counters not read");
	else if (report_trouble(&p->before, &p->after, trouble, sizeof(trouble)) > 0)
		EXPLAIN_ADD("; trouble: %s", trouble);
	else
		EXPLAIN_ADD("; no trouble counter moved");
#undef EXPLAIN_ADD
	return n < len ? 0 : -1;
}

static void set_model_columns(struct row *r, const struct rb_point_info *p, int thread,
			      const struct rb_measure *m)
{
	static const char *const host_cols[] = { "model_bus_bytes_per_op", "model_limit_mops",
		"model_bound", "measured_over_limit" };
	struct model_view v;
	char buf[64];

	model_view(p, &v);
	if (v.have_host) {
		const struct pm_side *s = &v.rh.requester;
		row_set_fmt(r, "model_bus_bytes_per_op", "%.6g", s->down_total + s->up_total);
		set_rate(r, "model_limit_mops", v.rh.limit_mops);
		bound_text(&v.rh, buf, sizeof(buf));
		row_set_str(r, "model_bound", buf);
		bool meas = thread < 0 && m && m->valid && m->duration_s > 0;
		set_rate(r, "measured_over_limit",
			 meas ? units_mops(m->ops, m->duration_s) / v.rh.limit_mops : NAN);
	} else {
		for (size_t i = 0; i < sizeof(host_cols) / sizeof(host_cols[0]); i++)
			row_set_na(r, host_cols[i]);
	}
	if (v.ok) {
		set_rate(r, "model_paper_limit_mops", v.rp.limit_mops);
		bound_text(&v.rp, buf, sizeof(buf));
		row_set_str(r, "model_paper_bound", buf);
	} else {
		row_set_na(r, "model_paper_limit_mops");
		row_set_na(r, "model_paper_bound");
	}
	row_set_text(r, "model_reason", v.ok ? v.note : v.why);
	/* the --explain summary of the process row (cut at the value size) */
	char ex[1024] = "";
	if (thread < 0)
		(void)report_explain(p, m, ex, sizeof(ex));
	row_set_text(r, "explain", ex);
	if (v.have_host) {
		snprintf(buf, sizeof(buf), "pcie%ux%u mps%u mrrs%u", v.host.gen, v.host.lanes, v.host.mps,
			 v.host.mrrs);
		row_set_str(r, "model_link", buf);
	} else {
		row_set_str(r, "model_link", "none");
	}
}

/*
 * The perf counter columns (docs/csv.md, "CPU and perf counters"), added
 * after accel: each event's count over the measured phase, the phase's ops,
 * CPU use in percent of one CPU, per-op figures; perf_reason says why an
 * event is empty (the first empty one's reason), perf_counted names the
 * counted events ("none"; never empty).
 */
static void set_perf_columns(struct row *r, const struct rb_measure *m)
{
	static const char *const cols[PC_NEVENTS] = {
		"perf_task_clock_ns", "perf_context_switches", "perf_cpu_migrations",
		"perf_page_faults", "perf_cycles", "perf_instructions", "perf_cache_misses",
	};
	const struct pc_sample *s = m ? m->pc : NULL;
	char counted[ROW_VAL_LEN] = "";
	const char *reason = s ? "" : "no perf counters for this row (the point failed before its window)";

	for (int i = 0; i < PC_NEVENTS; i++) {
		if (s && s->valid[i]) {
			row_set_u64(r, cols[i], s->value[i]);
			size_t n = strlen(counted);
			snprintf(counted + n, sizeof(counted) - n, "%s%s", n ? "+" : "",
				 pc_event_name((enum pc_event)i));
		} else {
			row_set_na(r, cols[i]);
			if (s && reason[0] == '\0')
				reason = s->reason[i];
		}
	}
	if (s)
		row_set_u64(r, "perf_ops", m->pc_ops);
	else
		row_set_na(r, "perf_ops");
	struct pc_per_op po = { NAN, NAN, NAN };
	if (s)
		pc_per_op(s, m->pc_ops, &po);
	bool clk = s && s->valid[PC_TASK_CLOCK] && m->pc_span_s > 0;
	row_set_double(r, "cpu_util_pct", clk ? (double)s->value[PC_TASK_CLOCK] / 1e7 / m->pc_span_s : NAN, 1);
	set_rate(r, "cpu_ns_per_op", po.cpu_ns_per_op);
	set_rate(r, "instructions_per_op", po.instructions_per_op);
	set_rate(r, "cycles_per_op", po.cycles_per_op);
	row_set_text(r, "perf_reason", reason);
	row_set_str(r, "perf_counted", counted[0] ? counted : "none");
}


/* v, or NA when have is false. */
static void set_u64_if(struct row *r, const char *col, bool have, uint64_t v)
{
	if (have)
		row_set_u64(r, col, v);
	else
		row_set_na(r, col);
}

/*
 * The CPU utilisation columns (docs/csv.md, "CPU utilisation and the
 * server's counters"), after the perf columns, process row only: this
 * host's CPUs from /proc/stat (cpustat.h) between the start barrier and
 * the workers' end, then the server's (its CPU message): /proc/stat ticks,
 * perf counts summed over its session thread and workers from READY to
 * the client's DONE, per op over this process's ops of all phases (the
 * span holds its warm-up too). cpu_stat_reason says why the client's
 * /proc/stat columns are empty, server_perf_reason why a server column is.
 */
/* Column names are kept by pointer in the row (output.h): static tables. */
static const char *const stat_cols[2][4] = {
	{ "cpu_busy_pct", "cpu_irq_pct", "cpu_softirq_pct", "cpu_stat_cpus" },
	{ "server_cpu_busy_pct", "server_cpu_irq_pct", "server_cpu_softirq_pct",
	  "server_cpu_stat_cpus" },
};
static const char *const server_perf_cols[PC_NEVENTS] = {
	"server_perf_task_clock_ns", "server_perf_context_switches", "server_perf_cpu_migrations",
	"server_perf_page_faults", "server_perf_cycles", "server_perf_instructions",
	"server_perf_cache_misses",
};

/* side 0: this host, 1: the server; d NULL: empty. */
static void set_stat_columns(struct row *r, int side, const struct cs_delta *d)
{
	const char *const *cols = stat_cols[side];
	struct cs_util u;
	int ok = d != NULL && cs_util(d, &u) == 0;

	row_set_double(r, cols[0], ok ? u.busy_pct : NAN, 1);
	row_set_double(r, cols[1], ok ? u.irq_pct : NAN, 1);
	row_set_double(r, cols[2], ok ? u.softirq_pct : NAN, 1);
	set_u64_if(r, cols[3], ok, ok ? d->ncpus : 0);
}

static void set_server_perf_columns(struct row *r, const struct rb_point_info *p, bool have)
{
	const struct ctrl_cpu *cp = have ? &p->server_cpu : NULL;
	struct pc_sample s;
	double span = cp ? (double)cp->span_ns / 1e9 : NAN;

	if (cp)
		ctrl_cpu_to_sample(cp, &s);
	for (int i = 0; i < PC_NEVENTS; i++)
		set_u64_if(r, server_perf_cols[i], cp && s.valid[i], cp ? s.value[i] : 0);
	set_u64_if(r, "server_perf_threads", cp != NULL, cp ? cp->threads : 0);
	row_set_double(r, "server_perf_span_s", span, 6);
	struct pc_per_op po = { NAN, NAN, NAN };
	if (cp)
		pc_per_op(&s, p->client_ops_all, &po);
	bool clk = cp && s.valid[PC_TASK_CLOCK] && span > 0;
	row_set_double(r, "server_cpu_util_pct",
		       clk ? (double)s.value[PC_TASK_CLOCK] / 1e7 / span : NAN, 1);
	set_rate(r, "server_cpu_ns_per_op", po.cpu_ns_per_op);
	set_rate(r, "server_instructions_per_op", po.instructions_per_op);
	set_rate(r, "server_cycles_per_op", po.cycles_per_op);
	row_set_text(r, "server_perf_reason", cp ? cp->reason :
		     "no server counters for this row (thread row, or the point ended before the "
		     "server's DONE)");
}

static void set_cpu_columns(struct row *r, const struct rb_point_info *p, int thread,
			    const struct rb_measure *m)
{
	bool proc = thread < 0 && m && m->valid;
	struct cs_delta d;
	char why[CS_REASON_MAX] = "";

	bool have = proc && cs_window(&p->cs_before, &p->cs_after, &d, why, sizeof(why)) == 0;
	if (!proc)
		snprintf(why, sizeof(why), "process row only (host-wide CPUs)");
	set_stat_columns(r, 0, have ? &d : NULL);
	row_set_text(r, "cpu_stat_reason", why);
	bool srv = proc && p->have_server_cpu;
	set_stat_columns(r, 1, srv && p->server_cpu.stat.ncpus ? &p->server_cpu.stat : NULL);
	set_server_perf_columns(r, p, srv);
}

/* Who measured: the run, the process, the repetition, the thread. */
static void report_identity(struct row *r, const struct rb_point_info *p, int thread)
{
	const struct rb_opts *o = p->o;

	row_set_u64(r, "schema_version", RB_SCHEMA_VERSION);
	row_set_text(r, RB_OPTS_COL(run_id), o->run_id);
	row_set_u64(r, RB_OPTS_COL(proc_index), o->proc_index);
	row_set_str(r, "role", "client");
	row_set_text(r, "host", p->env->host);
	row_set_u64(r, "rep", p->t->rep);
	if (thread < 0)
		row_set_str(r, "thread", "all");
	else
		row_set_u64(r, "thread", (uint64_t)thread);
}

/* --cpus as given: "0 2 3", "spread", "none", or "" (not given: the
 * device's local CPUs; cpus_used says which). */
static void set_cpus(struct row *r, const struct rb_opts *o)
{
	char buf[128];
	size_t off = 0;

	if (o->ncpus <= 0) {
		row_set_str(r, RB_OPTS_COL(cpus), o->cpus_spread ? "spread" :
						  o->cpus_none ? "none" : "");
		return;
	}
	buf[0] = '\0';
	for (int i = 0; i < o->ncpus && off < sizeof(buf) - 8; i++)
		off += (size_t)snprintf(buf + off, sizeof(buf) - off, "%s%d", i ? " " : "", o->cpus[i]);
	row_set_text(r, RB_OPTS_COL(cpus), buf);
}

/*
 * Config: every knob, effective values. A knob's column name is its row's
 * in the knob table (RB_TEST_COL/RB_OPTS_COL, bench/lib/options.c); the order
 * here is the CSV's (docs/csv.md), with the derived columns between.
 */
static void report_config(struct row *r, const struct rb_point_info *p)
{
	const struct rb_test *t = p->t;
	bool atomic = verb_is_atomic(t->verb);

	row_set_str(r, RB_TEST_COL(verb), verb_name(t->verb));
	row_set_str(r, RB_TEST_COL(transport), transport_name(t->transport));
	row_set_str(r, RB_TEST_COL(test), testkind_name(t->test));
	row_set_u64(r, RB_TEST_COL(size), t->size);
	set_u64_if(r, RB_TEST_COL(iters), t->iters, t->iters);
	row_set_double(r, RB_TEST_COL(duration_ms),
		       t->duration_ms ? (double)t->duration_ms / 1000.0 : NAN, 3);
	row_set_u64(r, RB_TEST_COL(warmup_iters), t->warmup_iters);
	row_set_double(r, RB_TEST_COL(warmup_ms), (double)t->warmup_ms / 1000.0, 3);
	row_set_u64(r, RB_TEST_COL(threads), t->threads);
	row_set_u64(r, RB_TEST_COL(qps_per_thread), t->qps_per_thread);
	row_set_u64(r, RB_TEST_COL(emulated_peers), t->emulated_peers);
	row_set_u64(r, "qps_total", test_qps_per_thread(t) * t->threads);
	row_set_u64(r, RB_TEST_COL(postlist), t->postlist);
	row_set_u64(r, RB_TEST_COL(signal_interval), t->signal_interval);
	row_set_str(r, "inline", p->inline_used < 0 ? "" : p->inline_used ? "on" : "off");
	row_set_str(r, RB_TEST_COL(inline_mode), inline_name(t->inline_mode));
	set_u64_if(r, "inline_cap", p->inline_used >= 0, p->inline_cap);
	row_set_u64(r, RB_TEST_COL(window), t->window);
	row_set_u64(r, RB_TEST_COL(sq_depth), t->sq_depth);
	row_set_u64(r, RB_TEST_COL(rq_depth), t->rq_depth);
	/* granted or negotiated: the value the point ran with */
	set_u64_if(r, RB_TEST_COL(cq_depth), p->cq_depth, p->cq_depth);
	set_u64_if(r, RB_TEST_COL(mtu), p->path_mtu, p->path_mtu);
	row_set_u64(r, RB_TEST_COL(ack_timeout), t->ack_timeout);
	row_set_u64(r, RB_TEST_COL(retry_cnt), t->retry_cnt);
	row_set_u64(r, RB_TEST_COL(rnr_retry), t->rnr_retry);
	row_set_u64(r, RB_TEST_COL(min_rnr_timer), t->min_rnr_timer);
	set_u64_if(r, RB_TEST_COL(max_rd_atomic), p->rd_atomic, p->rd_atomic);
	/* atomics only; receives only */
	set_u64_if(r, RB_TEST_COL(atomic_counters), atomic, t->atomic_counters);
	set_u64_if(r, RB_TEST_COL(stride), atomic, t->stride);
	if (atomic)
		row_set_str(r, RB_TEST_COL(access), access_name(t->access));
	else
		row_set_na(r, RB_TEST_COL(access));
	set_u64_if(r, RB_TEST_COL(recv_batch), verb_needs_recv(t->verb), t->recv_batch);
	row_set_u64(r, RB_TEST_COL(validate), t->validate);
	row_set_str(r, RB_TEST_COL(use_cm), t->use_cm ? "rdma_cm" : "tcp");
	set_cpus(r, p->o);
	row_set_u64(r, RB_TEST_COL(seed), t->seed);
}

static const char *const lat_cols[] = {
	"lat_samples", "lat_min_us", "lat_p50_us", "lat_p90_us", "lat_p99_us", "lat_p999_us",
	"lat_max_us", "lat_mean_us", "lat_stdev_us", "rtt_p50_us", "rtt_mean_us",
};

/* The latency columns: the kind of lat_kind (one-way kinds halved), and
 * the round trip itself. */
static void report_latency(struct row *r, const struct rb_test *t, const struct rb_measure *m)
{
	bool lat = m && m->valid && m->hist && hist_count(m->hist) > 0;
	bool bw = t->test == RB_TEST_BW;
	bool one_way = !bw && strcmp(verb_lat_kind(t->verb), "one_way") == 0;
	double div = one_way ? 2.0 : 1.0;
	const struct hist *h = lat ? m->hist : NULL;

	row_set_str(r, "lat_kind", lat ? (bw ? "completion" : verb_lat_kind(t->verb)) : "");
	if (!lat) {
		for (size_t i = 0; i < sizeof(lat_cols) / sizeof(lat_cols[0]); i++)
			row_set_na(r, lat_cols[i]);
		return;
	}
	row_set_u64(r, "lat_samples", hist_count(h));
	set_us(r, "lat_min_us", hist_min(h), div);
	set_us(r, "lat_p50_us", hist_percentile(h, 50), div);
	set_us(r, "lat_p90_us", hist_percentile(h, 90), div);
	set_us(r, "lat_p99_us", hist_percentile(h, 99), div);
	set_us(r, "lat_p999_us", hist_percentile(h, 99.9), div);
	set_us(r, "lat_max_us", hist_max(h), div);
	set_us(r, "lat_mean_us", hist_mean(h), div);
	set_us(r, "lat_stdev_us", hist_stdev(h), div);
	set_us(r, "rtt_p50_us", hist_percentile(h, 50), 1.0);
	set_us(r, "rtt_mean_us", hist_mean(h), 1.0);
}

/* Metrics: the window, the rates, latency, and the per-verb results. */
static void report_metrics(struct row *r, const struct rb_point_info *p, int thread,
			   const struct rb_measure *m)
{
	const struct rb_test *t = p->t;
	bool meas = m && m->valid;

	row_set_double(r, "duration_s", meas ? m->duration_s : NAN, 6);
	set_u64_if(r, "ops", meas, meas ? m->ops : 0);
	set_u64_if(r, "bytes", meas, meas ? m->bytes : 0);
	set_rate(r, "mops", meas ? units_mops(m->ops, m->duration_s) : NAN);
	set_rate(r, "gbps", meas ? units_gbps(m->bytes, m->duration_s) : NAN);
	report_latency(r, t, m);
	row_set_double(r, "setup_us_per_qp", thread < 0 ? p->setup_us_per_qp : NAN, 2);
	if (meas && verb_row(t->verb)->counts_success)
		row_set_u64(r, "atomic_success", m->atomic_success);
	else
		row_set_na(r, "atomic_success");
	set_u64_if(r, "server_recvs", thread < 0 && p->have_server && verb_needs_recv(t->verb),
		   p->server.recvs);
	row_set_str(r, "check", thread >= 0 || !t->validate ? "" :
			       p->checked == 1 ? "pass" : p->checked == 2 ? "fail" : "");
}

/* The counters' columns (docs/csv.md, "Port counters"): the suffix after
 * ctr_ / srv_ctr_, the names summed, the unit (PMA data counters count
 * 4-byte words). */
static const char *const ctr_xp[] = { "counters/port_xmit_packets", "hw_counters/sent_pkts", NULL };
static const char *const ctr_rp[] = { "counters/port_rcv_packets", "hw_counters/rcvd_pkts", NULL };
static const char *const ctr_xb[] = { "counters/port_xmit_data", NULL };
static const char *const ctr_rb[] = { "counters/port_rcv_data", NULL };
static const char *const ctr_seq[] = { "hw_counters/out_of_seq_request",
	"hw_counters/rcvd_seq_err", "hw_counters/out_of_sequence",
	"hw_counters/packet_seq_err", "hw_counters/implied_nak_seq_err", NULL };
static const char *const ctr_oob[] = { "hw_counters/out_of_buffer", "hw_counters/rq_num_udsdprd",
	NULL };
static const char *const ctr_disc[] = { "counters/port_xmit_discards", NULL };
static const char *const ctr_wait[] = { "counters/port_xmit_wait", NULL };
static const char *const ctr_rerr[] = { "counters/port_rcv_errors", NULL };
static const char *const ctr_req[] = { "hw_counters/req_cqe_error",
	"hw_counters/req_remote_invalid_request", "hw_counters/req_remote_access_errors", NULL };
static const char *const ctr_resp[] = { "hw_counters/resp_cqe_error",
	"hw_counters/resp_local_length_error", "hw_counters/resp_remote_access_errors", NULL };
static const char *const ctr_adp[] = { "hw_counters/roce_adp_retrans", NULL };
/* (the row keeps a column's name by pointer: string literals only) */
#define CTR_COL(sfx, names, mult) { "ctr_" sfx, "srv_ctr_" sfx, names, mult }
static const struct {
	const char *col, *srv_col;
	const char *const *names;
	uint64_t mult;
} ctr_cols[] = {
	CTR_COL("xmit_pkts", ctr_xp, 1), CTR_COL("rcv_pkts", ctr_rp, 1),
	CTR_COL("xmit_bytes", ctr_xb, 4), CTR_COL("rcv_bytes", ctr_rb, 4),
	CTR_COL("retry", retry_names, 1), CTR_COL("rnr", rnr_names, 1),
	CTR_COL("seq_err", ctr_seq, 1), CTR_COL("dup", dup_names, 1),
	CTR_COL("out_of_buffer", ctr_oob, 1), CTR_COL("xmit_discards", ctr_disc, 1),
	CTR_COL("xmit_wait", ctr_wait, 1), CTR_COL("rcv_errors", ctr_rerr, 1),
	CTR_COL("req_err", ctr_req, 1), CTR_COL("resp_err", ctr_resp, 1),
	CTR_COL("adp_retrans", ctr_adp, 1),
};

/* the columns from ctr_cols[CTR_COLS_FIRST] on came after pcie_counted */
#define CTR_COLS_FIRST 8u
#define CTR_COLS_N (sizeof(ctr_cols) / sizeof(ctr_cols[0]))

/* ctr_SUFFIX (this side's) or srv_ctr_SUFFIX (the server's) of ctr_cols[from..to). */
static void counter_columns(struct row *r, const struct rb_point_info *p, int thread, bool srv,
			    size_t from, size_t to)
{
	for (size_t k = from; k < to; k++) {
		if (srv)
			set_counter(r, ctr_cols[k].srv_col, thread < 0 && p->have_srv_counters,
				    &p->srv_zero, &p->srv_delta, ctr_cols[k].names, ctr_cols[k].mult);
		else
			set_counter(r, ctr_cols[k].col, thread < 0 && p->have_counters, &p->before,
				    &p->after, ctr_cols[k].names, ctr_cols[k].mult);
	}
}

/* Port counters around the window (whole port: both directions, all QPs;
 * process row only): the first ctr_* columns, where they always were. */
static void report_counters(struct row *r, const struct rb_point_info *p, int thread)
{
	counter_columns(r, p, thread, false, 0, CTR_COLS_FIRST);
}

/* After pcie_counted: this side's other ctr_* columns, then every one as
 * srv_ctr_*, the server's port over the common window (its DONE, ctrl.h),
 * and srv_ctr_span_s, the seconds that window ran on the server; last,
 * srv_foreign_recvs. */
static void report_counters_added(struct row *r, const struct rb_point_info *p, int thread)
{
	counter_columns(r, p, thread, false, CTR_COLS_FIRST, CTR_COLS_N);
	counter_columns(r, p, thread, true, 0, CTR_COLS_N);
	/* the server's counter span: the common window's start to this DONE */
	set_rate(r, "srv_ctr_span_s", thread < 0 && p->have_srv_counters && p->server.ctr_span_ns ?
		 (double)p->server.ctr_span_ns / 1e9 : NAN);
	/* the server's UD receives from a source QP not of the point (ctrl.h DONE) */
	set_u64_if(r, "srv_foreign_recvs", thread < 0 && p->have_server &&
		   p->t->transport == RB_TR_UD && verb_needs_recv(p->t->verb),
		   p->server.foreign_recvs);
}

/* Environment: the device and port, the host, the build, the clock, the time. */
static void report_environment(struct row *r, const struct rb_point_info *p)
{
	static const char *const na[] = { "ib_port", "fw_ver", "link_layer", "active_mtu",
					  "gid_index", "gid_type", "gid" };
	const struct rb_dev *d = p->dev;
	const struct rb_env *e = p->env;
	char buf[64];
	struct tm tm;
	time_t now = time(NULL);

	row_set_text(r, "device", d ? d->name : "");
	if (d) {
		row_set_u64(r, "ib_port", d->port);
		row_set_text(r, "fw_ver", d->attr.fw_ver);
		row_set_str(r, "link_layer", dev_link_layer_name(d->link_layer));
		row_set_u64(r, "active_mtu", d->active_mtu);
		row_set_u64(r, "gid_index", (uint64_t)d->gid_index);
		row_set_str(r, "gid_type", dev_gid_type_name(d->gid_type));
		row_set_text(r, "gid", dev_gid_str(d->gid.raw, buf, sizeof(buf)));
	} else {
		for (size_t i = 0; i < sizeof(na) / sizeof(na[0]); i++)
			row_set_na(r, na[i]);
	}
	row_set_text(r, "kernel", e->kernel);
	row_set_text(r, "cpu_model", e->cpu_model);
	row_set_text(r, "git_rev", e->git_rev);
	row_set_str(r, "clock", e->clock);
	gmtime_r(&now, &tm);
	strftime(buf, sizeof(buf), "%Y-%m-%dT%H:%M:%SZ", &tm);
	row_set_str(r, "timestamp", buf);
}

/* Columns added after timestamp (docs/csv.md: columns added at the end keep
 * schema_version), in the order they were added. */
/*
 * The NIC's PCIe reads and writes per operation from the CPU's uncore
 * (pcieperf.h; the paper's Section 2.1 PCIeRdCur and PCIeItoM, and 5.3.2's
 * WQE cache misses as reads beyond the model's): process row only. The
 * counts run from the workers' start to their join, net of the socket's
 * idle rate, and are scaled to the measured window by time (window /
 * span) before dividing by its ops. pcie_counted (never empty, the last
 * column): "uncore" when counted, else why not.
 */
static void set_pcie_columns(struct row *r, const struct rb_point_info *p, int thread,
			     const struct rb_measure *m)
{
	const struct pp_sample *s = &p->pcie;
	bool ok = thread < 0 && s->valid && m && m->valid && m->ops > 0 && p->pcie_span_s > 0;
	double scale = ok ? m->duration_s / p->pcie_span_s / (double)m->ops : NAN;
	row_set_double(r, "pcie_rd_per_op", ok ? s->net[PP_RD] * scale : NAN, 3);
	row_set_double(r, "pcie_wr_per_op", ok ? s->net[PP_WR] * scale : NAN, 3);
	row_set_text(r, "pcie_counted", ok ? "uncore" : thread >= 0 ? "process row only" :
		     s->reason[0] ? s->reason : "not counted (the point failed before its window)");
}

static void report_added_columns(struct row *r, const struct rb_point_info *p, int thread,
				 const struct rb_measure *m)
{
	const struct rb_test *t = p->t;
	const struct rb_env *e = p->env;
	bool srv = m && m->valid && p->have_offset && m->t_end_ns > m->t_start_ns;

	row_set_text(r, "clocksource", e->clocksource);
	row_set_double(r, "clock_read_ns", e->clock_read_ns, 1);
	/* the --read-completion setting as run (poll only on READ bw; cqe
	 * everywhere else). Never empty: as the last column, an empty value
	 * would end every row in a bare comma. */
	row_set_str(r, RB_TEST_COL(read_completion), read_completion_name(t->read_completion));
	/*
	 * the server's receive rate (Table 5 of the ATC'16 paper is a RECV
	 * rate): receives between the server's first and last one over that
	 * time (ctrl DONE: recvs, active_ns; warm-up included on both sides).
	 * The senders' mops can exceed it when UD/UC drop. Process row of verbs
	 * that consume receives; empty elsewhere.
	 */
	if (thread < 0 && p->have_server && verb_needs_recv(t->verb) &&
	    p->server.recvs > 1 && p->server.active_ns > 0)
		set_rate(r, "server_recv_mops",
			 units_mops(p->server.recvs - 1, (double)p->server.active_ns / 1e9));
	else
		row_set_na(r, "server_recv_mops");
	/*
	 * the start barrier of --procs > 1 (gate.h). The window's first post
	 * and last completion on the server's clock (seconds of its
	 * CLOCK_MONOTONIC_RAW, ns digits), so that the windows of processes on
	 * different hosts can be compared; the bound on that clock offset; the
	 * wait at the barrier; --procs (never empty).
	 */
	row_set_double(r, "gate_wait_s", p->gate_wait_s, 6);
	row_set_double(r, "win_start_srv_s",
		       srv ? (double)((int64_t)m->t_start_ns + p->clock_offset_ns) / 1e9 : NAN, 9);
	row_set_double(r, "win_end_srv_s",
		       srv ? (double)((int64_t)m->t_end_ns + p->clock_offset_ns) / 1e9 : NAN, 9);
	row_set_double(r, "clock_err_us", p->have_offset ? (double)p->clock_err_ns / 1e3 : NAN, 1);
	row_set_u64(r, RB_OPTS_COL(procs), p->o->procs);
	/* the VM accelerator (tcg, kvm from the test bed's rb.accel=; vm;
	 * none), never empty (the last column) */
	row_set_str(r, "accel", e->accel[0] ? e->accel : "none");
}

int report_no_ops(const struct rb_test *t, uint64_t ops, char *why, size_t len)
{
	if (ops > 0)
		return 0;
	if (t->iters > 0)
		snprintf(why, len, "no operation completed of the -n %llu iterations",
			 (unsigned long long)t->iters);
	else
		snprintf(why, len, "no operation completed in the %.3g s window (-D)",
			 (double)t->duration_ms / 1e3);
	return 1;
}

/* numa_node, cpus_used (worker i's CPU for a thread row, the list from
 * the workers' first entry on for the process row), cpu_source, page_size, page_source, doorbell, the knobs
 * doorbell_mode and atomic_order_mode, and atomic_order (topo.h, ctx.h). */
static void report_placement(struct row *r, const struct rb_point_info *p, int thread)
{
	const struct rb_place *pl = p->place;
	char list[512];

	set_u64_if(r, "numa_node", pl && pl->node >= 0, pl && pl->node >= 0 ? (uint64_t)pl->node : 0);
	list[0] = '\0';
	if (pl && thread >= 0 && pl->ncpus > 0) {
		snprintf(list, sizeof(list), "%d",
			 topo_worker_cpu(pl, p->cpu_first, false, (unsigned)thread));
	} else if (pl && pl->ncpus > 0) {
		/* the list from the workers' first entry on (ctx.h cpu_first):
		 * worker i on its i-th CPU, modulo its length */
		topo_workers_text(pl, p->cpu_first, false, (unsigned)pl->ncpus, list, sizeof(list));
	}
	row_set_text(r, "cpus_used", list);
	row_set_text(r, "cpu_source", pl ? pl->source : "");
	set_u64_if(r, "page_size", p->page_size > 0, p->page_size);
	row_set_text(r, "page_source", p->page_source);
	row_set_text(r, "doorbell", p->doorbell);
	row_set_str(r, RB_OPTS_COL(doorbell), doorbell_name(p->o->doorbell));
	row_set_str(r, RB_OPTS_COL(atomic_order), atomic_order_name(p->o->atomic_order));
	row_set_text(r, "atomic_order", p->atomic_order);
}

/* One row: identity, config, metrics, counters, status, environment, and
 * the columns added since, in that fixed order (every row the same header). */
void report_build_row(struct row *r, const struct rb_point_info *p, int thread,
		      const struct rb_measure *m)
{
	row_init(r);
	report_identity(r, p, thread);
	report_config(r, p);
	report_metrics(r, p, thread, m);
	report_counters(r, p, thread);
	row_set_str(r, "status", p->status);
	row_set_text(r, "reason", p->reason ? p->reason : "");
	report_environment(r, p);
	report_added_columns(r, p, thread, m);
	/* after accel: the perf counters (perfcount.h), the CPU utilisation
	 * and the server's counters (cpustat.h, ctrl.h CPU), and the PCIe
	 * model's columns (pcie_model.h), model_link last */
	set_perf_columns(r, m && m->valid ? m : NULL);
	set_cpu_columns(r, p, thread, m);
	set_model_columns(r, p, thread, m);
	/* after model_link: the --perf-counters mode (perf_counted says what counted) */
	row_set_str(r, RB_OPTS_COL(perf_counters), perf_mode_name(p->o->perf_counters));
	/* after perf_counters: the fabric knobs as set on every QP and AH */
	row_set_u64(r, RB_TEST_COL(tclass), p->t->tclass);
	row_set_u64(r, RB_TEST_COL(sl), p->t->sl);
	row_set_u64(r, RB_TEST_COL(pkey_index), p->t->pkey_index);
	/* after them: the uncore PCIe columns, pcie_counted last */
	set_pcie_columns(r, p, thread, m);
	/* after pcie_counted: the other port counters, and the server's */
	report_counters_added(r, p, thread);
	/* after srv_ctr_span_s: where the workers ran, the pages, the doorbells */
	report_placement(r, p, thread);
}
