/*
 * model_main.c - build/rb_model: the PCIe model (pcie_model.h) from the
 * command line, with no RDMA device and no verbs library.
 *
 *   rb_model [CONFIG] [LINK] [--csv]       bytes on the bus per operation
 *                                          by cause and the limits, for
 *                                          the requester and the responder
 *   rb_model --figure2 lanes|bytes [LINK]  Figure 2's data (make figure-2)
 *
 * Exit status: 0, or 2 for bad input (the message names the value, the
 * limit and the fix). The options are a knob table on the library's
 * parser (options.h, opts_parse_cli): --help and --list-knobs come from
 * it, with the defaults of the paper's hosts (pm_link_paper()).
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "errbuf.h"
#include "options.h"
#include "pcie_model.h"
#include "units.h"
#include "verb.h"

/* One error line on stderr, "rb_model: error: " first (as rdma_bench's). */
static void model_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void model_error(const char *fmt, ...)
{
	va_list ap;

	fputs("rb_model: error: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

/* A limit in Mops, or "unused" for a resource the operation does not use
 * (INFINITY in the model; an empty field in --csv). */
static const char *limit_text(double mops, char *buf, size_t len)
{
	if (isinf(mops))
		snprintf(buf, len, "unused");
	else
		snprintf(buf, len, "%.4g", mops);
	return buf;
}

static void print_side(const char *name, const struct pm_side *s)
{
	printf("%s (bytes per operation):\n", name);
	printf("  %-16s %10s %10s\n", "cause", "down", "up");
	for (int i = 0; i < PM_NCAUSE; i++)
		if (s->down[i] != 0 || s->up[i] != 0)
			printf("  %-16s %10.3f %10.3f\n", pm_cause_name((enum pm_cause)i), s->down[i], s->up[i]);
	printf("  %-16s %10.3f %10.3f\n", "total", s->down_total, s->up_total);
	char dma[24], mmio[24], down[24], up[24], lim[24];
	printf("  limits (Mops): dma_read %s, mmio %s, link_down %s, link_up %s -> %s (%s: %s)\n",
	       limit_text(s->dma_mops, dma, sizeof(dma)), limit_text(s->mmio_mops, mmio, sizeof(mmio)),
	       limit_text(s->link_down_mops, down, sizeof(down)),
	       limit_text(s->link_up_mops, up, sizeof(up)),
	       limit_text(s->limit_mops, lim, sizeof(lim)), pm_bound_name(s->bound),
	       pm_bound_desc(s->bound));
}

static void print_csv(const struct pm_config *c, const struct pm_link *l, const struct pm_result *r)
{
	const struct pm_side *sides[2] = { &r->requester, &r->responder };
	const char *prefix[2] = { "req", "resp" };
	printf("verb,transport,size_bytes,inline,postlist,wqe_by_mmio,signal_interval,recv_inline,"
	       "pcie_gen,lanes,mps,mrrs,rcb,mmio_mlines_per_s,dma_read_mb_per_s,wqe_bytes,wqe_lines");
	for (int s = 0; s < 2; s++) {
		for (int i = 0; i < PM_NCAUSE; i++)
			printf(",%s_down_%s,%s_up_%s", prefix[s], pm_cause_name((enum pm_cause)i),
			       prefix[s], pm_cause_name((enum pm_cause)i));
		printf(",%s_down_bytes,%s_up_bytes,%s_dma_mops,%s_mmio_mops,%s_link_down_mops,"
		       "%s_link_up_mops,%s_limit_mops,%s_bound", prefix[s], prefix[s], prefix[s],
		       prefix[s], prefix[s], prefix[s], prefix[s], prefix[s]);
	}
	printf(",limit_mops,limit_side,req_dma_read_lines,resp_dma_read_lines\n");
	printf("%s,%s,%lu,%d,%u,%d,%u,%d,%u,%u,%u,%u,%u,%.6g,%.6g,%u,%u", verb_name(c->verb),
	       transport_name(c->transport), c->size_bytes, c->inline_payload, c->postlist,
	       c->wqe_by_mmio, c->signal_interval, c->recv_inline, l->gen, l->lanes, l->mps,
	       l->mrrs, l->rcb, pm_mmio_lines_per_s(l) / 1e6, pm_dma_read_bps(l) / 1e6,
	       r->wqe_bytes, r->wqe_lines);
	for (int s = 0; s < 2; s++) {
		const struct pm_side *p = sides[s];
		for (int i = 0; i < PM_NCAUSE; i++)
			printf(",%.6g,%.6g", p->down[i], p->up[i]);
		printf(",%.6g,%.6g", p->down_total, p->up_total);
		/* an unused resource has no limit: an empty field */
		const double lim[5] = { p->dma_mops, p->mmio_mops, p->link_down_mops,
					p->link_up_mops, p->limit_mops };
		for (int k = 0; k < 5; k++) {
			if (isinf(lim[k]))
				printf(",");
			else
				printf(",%.6g", lim[k]);
		}
		printf(",%s", pm_bound_name(p->bound));
	}
	if (isinf(r->limit_mops))
		printf(",,");
	else
		printf(",%.6g,%s", r->limit_mops, r->limit_is_responder ? "responder" : "requester");
	/* last: the cache lines each side's NIC reads per op (the uncore's
	 * PCIe read unit; figure-13's expected reads) */
	printf(",%.6g,%.6g\n", r->requester.dma_read_lines, r->responder.dma_read_lines);
}

/* Figure 2 (a): per generation, one lane's payload rate (Pbw) and the TLP
 * overheads (Pr, Pc), and what they give on l's lane count: the link's
 * rate, the DMA read rate and 5.2.1's MMIO rate. */
static void figure2_lanes(const struct pm_link *l)
{
	static const double gts[] = { 0, 2.5, 5, 8, 16, 32 };
	printf("gen,gt_per_s,lane_mb_per_s,request_header_bytes,completion_header_bytes,"
	       "x%u_mb_per_s,x%u_dma_read_mb_per_s,x%u_mmio_mlines_per_s\n", l->lanes, l->lanes,
	       l->lanes);
	for (unsigned g = 1; g <= 5; g++) {
		struct pm_link k = *l;
		k.gen = g;
		k.dma_read_bps = 0;
		k.mmio_lines_per_s = 0;
		printf("%u,%g,%.1f,%u,%u,%.1f,%.1f,%.2f\n", g, gts[g], pm_lane_bps(g) / 1e6,
		       pm_tlp_header_bytes(g, 1), pm_tlp_header_bytes(g, 0),
		       pm_link_bps(&k) / 1e6, pm_dma_read_bps(&k) / 1e6, pm_mmio_lines_per_s(&k) / 1e6);
	}
}

/* Figure 2 (b): bytes on the bus to move N bytes from host memory to the
 * NIC, compared host-to-device as 2.1 does: by DMA read, the completions
 * (N + one completion header per C_rc); by MMIO, write-combined cache
 * lines, one request TLP each. The other direction (device-to-host: the
 * DMA read's requests; nothing for MMIO) in columns of its own. */
static void figure2_bytes(const struct pm_link *l)
{
	static const unsigned sizes[] = { 8, 16, 32, 48, 64, 96, 128, 192, 256, 384, 512, 768, 1024 };
	printf("transfer_bytes,dma_read_h2d_bytes,mmio_h2d_bytes,dma_read_d2h_bytes,"
	       "mmio_d2h_bytes,dma_read_h2d_efficiency,mmio_h2d_efficiency\n");
	for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		unsigned n = sizes[i];
		double dma = pm_move_dma_read_down(l, n), mmio = pm_move_mmio_down(l, n);
		printf("%u,%.0f,%.0f,%.0f,0,%.4f,%.4f\n", n, dma, mmio, pm_move_dma_read_up(l, n),
		       n / dma, n / mmio);
	}
}

/* What rb_model's options set: the configuration, the link, and how to
 * print (its knob table's RB_KW_APP fields). */
struct model_app {
	struct pm_config c;
	struct pm_link l;
	int csv;         /* --csv: a header line and one row */
	uint64_t fig2;   /* --figure2: MODEL_FIG2_* */
	uint64_t mmio;   /* --wqe-by-mmio: MODEL_MMIO_* */
	uint64_t bf;     /* --blueflame: enum pm_bf_rule */
};
enum { MODEL_FIG2_OFF = 0, MODEL_FIG2_LANES, MODEL_FIG2_BYTES };
enum { MODEL_MMIO_AUTO = 0, MODEL_MMIO_ON, MODEL_MMIO_OFF };

static const char *const onoff_names[] = { "off", "on" };
static const char *const mmio_names[] = { "auto", "on", "off" };
static const char *const fig2_names[] = { "off", "lanes", "bytes" };

static const char *bf_name(uint64_t r)
{
	return pm_bf_rule_name((enum pm_bf_rule)r);
}

static rb_knob_act act_link, act_cqe_inline, act_mmio_rate, act_dma_rate;

/* Where a row's value lives: a field of struct model_app. */
#define A(f) .where = RB_KW_APP, .off = offsetof(struct model_app, f), \
	     .width = sizeof(((struct model_app *)0)->f)
#define ONOFF .type = RB_KT_ENUM, .names = onoff_names, .nnames = 2
#define BYTES(lo_, hi_) .arg = "BYTES", .type = RB_KT_SIZE, .lo = (lo_), .hi = (hi_)

/*
 * rb_model's options, in --help order. verb, transport, postlist and
 * signal-interval are the rows rdma_bench has (RB_ROW_*: the same
 * spelling and range); --size and --inline describe one modelled
 * operation (rdma_bench's -m takes a list, its --inline an auto), and
 * --csv prints to stdout (rdma_bench's --csv FILE appends to a file).
 */
static const struct rb_knob model_knobs[] = {
	RB_ROW_VERB(A(c.verb), .section = "CONFIG (the operation):",
		    .help = "%E (%D);\n--size 0 is header-only"),
	RB_ROW_TRANSPORT(A(c.transport),
			 .help = "%E (%D); ud has the verb table's UD verbs\n(rdma_bench --list-verbs)"),
	{ .name = "size", BYTES(0, RB_MAX_SIZE), A(c.size_bytes), .def = PM_DEFAULT_SIZE,
	  .help = "payload, 0..1 GiB (%D); atomics move 8" },
	{ .name = "inline", .arg = "on|off", ONOFF, A(c.inline_payload),
	  .help = "payload inside the WQE, the WQE at most 1024 B (%D)" },
	RB_ROW_POSTLIST(A(c.postlist), .help = "WQEs per doorbell (%D)"),
	{ .name = "wqe-by-mmio", .arg = "M", .type = RB_KT_ENUM, .names = mmio_names,
	  .nnames = 3, A(mmio),
	  .help = "%E: the CPU writes the WQE by MMIO (%D: by\n--blueflame at postlist 1, "
		  "doorbell above;\non needs postlist 1)" },
	{ .name = "blueflame", .arg = "R", .type = RB_KT_ENUM, .name_of = bf_name,
	  .nnames = PM_NBF, A(bf), .def = PM_BF_INLINE,
	  .help = "%E: auto's rule at postlist 1: inline WQEs\nonly (mlx4/mlx5, %D), any WQE, "
		  "or none" },
	RB_ROW_SIGNAL_INTERVAL(A(c.signal_interval), .def = 1, .help = "WQEs per CQE (%D)"),
	{ .name = "recv-inline", .arg = "on|off", ONOFF, A(c.recv_inline),
	  .help = "small payloads in the RECV CQE, send and\nsend_imm only (%D; up to "
		  "--cqe-inline bytes)" },
	{ .name = "link", .arg = "paper|genGxL", .type = RB_KT_STR, .act = act_link,
	  .section = "LINK (defaults: the paper's Connect-IB hosts, PCIe 3.0 x16):",
	  .help = "a preset: paper = gen3x16; e.g. gen4x16,\ngen5x16 (the paper's CPU and NIC "
		  "otherwise);\nlater LINK options change it" },
	{ .name = "pcie-gen", .arg = "G", .type = RB_KT_NUM, A(l.gen), .lo = 1, .hi = 5,
	  .def = PM_PAPER_GEN, .help = "PCIe generation (%D)" },
	{ .name = "lanes", .arg = "N", .type = RB_KT_NUM, A(l.lanes), .lo = 1, .hi = 32,
	  .def = PM_PAPER_LANES, .help = "1, 2, 4, 8, 16 or 32 (%D)" },
	{ .name = "mps", BYTES(128, 4096), A(l.mps), .def = PM_DEFAULT_MPS,
	  .help = "max payload size (%D)" },
	{ .name = "mrrs", BYTES(128, 4096), A(l.mrrs), .def = PM_DEFAULT_MRRS,
	  .help = "max read request size (%D)" },
	{ .name = "rcb", BYTES(64, 4096), A(l.rcb), .def = PM_PAPER_RCB,
	  .help = "C_rc, the CPU's read completion combining\nsize (2.1; %D): completions "
		  "of min(C_rc, MPS)" },
	{ .name = "cacheline", BYTES(16, 256), A(l.cacheline), .def = PM_DEFAULT_CACHELINE,
	  .help = "CPU cache line, MMIO's write-combining unit (%D)" },
	{ .name = "cqe", BYTES(16, 4096), A(l.cqe_bytes), .def = PM_DEFAULT_CQE,
	  .help = "CQE size (%D)" },
	{ .name = "cqe-inline", .arg = "BYTES|paper|mlx5", .type = RB_KT_SIZE, .lo = 0,
	  .hi = 4096, A(l.cqe_inline_bytes), .def = PM_CQE_INLINE_PAPER, .act = act_cqe_inline,
	  .help = "payload a CQE holds with --recv-inline\n(%D: paper, Section 3.2's ~64 B "
		  "for Mellanox's\nNICs; mlx5 = 32, the mlx5 driver's scatter to\na 64-byte "
		  "CQE, MLX5_RES_SCAT_DATA32_CQE)" },
	{ .name = "mmio-rate", .arg = "MLINES/S", .type = RB_KT_NUM, .hi = 100000,
	  .act = act_mmio_rate,
	  .help = "MMIO cache lines per us (%D: 5.2.1's\n(lanes x Pbw) / (64 + Pr), 175 for "
		  "the defaults)" },
	{ .name = "dma-rate", .arg = "MB/S", .type = RB_KT_NUM, .hi = 1000000,
	  .act = act_dma_rate,
	  .help = "DMA read payload rate (%D: derived from the\nlink, 13443 for the defaults)" },
	{ .name = "csv", .type = RB_KT_FLAG, .hi = 1, A(csv), .section = "OUTPUT:",
	  .help = "a header line and one row on stdout; a resource\nthe operation does not use "
		  "has an empty limit\n(unbounded; \"unused\" in the text)" },
	{ .name = "figure2", .arg = "F", .type = RB_KT_ENUM, .names = fig2_names, .nnames = 3,
	  A(fig2),
	  .help = "%E: Figure 2's data (make figure-2), LINK\noptions only: lanes = per PCIe "
		  "generation the\nlane rate, headers, the link's DMA read and MMIO\nrates; bytes = "
		  "host-to-device bytes to move N\nbytes by DMA read vs by MMIO (2.1), the other\n"
		  "direction in columns of its own" },
	RB_ROW_LIST_KNOBS(),
	RB_ROW_HELP(),
};
#undef A
#undef ONOFF
#undef BYTES

/* --link paper|genGxL: the preset (the paper's CPU and NIC constants,
 * pm_link_gen) over every LINK field given before it. */
static int act_link(const char *arg, struct rb_opts *o, struct rb_parse *ps, char *err,
		    size_t errlen)
{
	struct model_app *m = opts_app(ps);
	unsigned gen = 0, lanes = 0;
	char tail = 0;
	(void)o;
	if (strcmp(arg, "paper") == 0) {
		m->l = pm_link_paper();
		return 0;
	}
	if (sscanf(arg, "gen%ux%u%c", &gen, &lanes, &tail) != 2 || gen < 1 || gen > 5 ||
	    lanes < 1 || lanes > 32 || (lanes & (lanes - 1)))
		return rb_fail(err, errlen, "--link: \"%s\" is not paper or genGxL with G 1..5 and "
			       "L 1, 2, 4, 8, 16 or 32 (e.g. gen4x16)", arg);
	m->l = pm_link_gen(gen, lanes);
	return 0;
}

/* --cqe-inline BYTES|paper|mlx5 (PM_CQE_INLINE_PAPER, PM_CQE_INLINE_MLX5). */
static int act_cqe_inline(const char *arg, struct rb_opts *o, struct rb_parse *ps, char *err,
			  size_t errlen)
{
	struct model_app *m = opts_app(ps);
	uint64_t v;
	(void)o;
	if (strcmp(arg, "paper") == 0)
		v = PM_CQE_INLINE_PAPER;
	else if (strcmp(arg, "mlx5") == 0)
		v = PM_CQE_INLINE_MLX5;
	else if (units_parse_size_opt(arg, 0, 4096, "--cqe-inline", &v, err, errlen) != 0)
		return -1;
	m->l.cqe_inline_bytes = (unsigned)v;
	return 0;
}

/* A rate in the option's unit, 1..max, or 0 (derived from the link). */
static int parse_rate(const char *opt, const char *s, double max, const char *unit, double *out,
		      char *err, size_t errlen)
{
	char *end = NULL;
	errno = 0;
	double v = strtod(s, &end);
	if (errno != 0 || end == s || *end != '\0' || !isfinite(v) ||
	    !(v == 0 || (v >= 1 && v <= max)))
		return rb_fail(err, errlen, "%s %s: not a rate from 1 to %g %s (or 0: derived "
			       "from the link)", opt, s, max, unit);
	*out = v;
	return 0;
}

static int act_mmio_rate(const char *arg, struct rb_opts *o, struct rb_parse *ps, char *err,
			 size_t errlen)
{
	struct model_app *m = opts_app(ps);
	double d;
	(void)o;
	/* 0: 5.2.1's formula for the link; 1..100000 covers any NIC */
	if (parse_rate("--mmio-rate", arg, 1e5, "M cache lines/s", &d, err, errlen) != 0)
		return -1;
	m->l.mmio_lines_per_s = d * 1e6;
	return 0;
}

static int act_dma_rate(const char *arg, struct rb_opts *o, struct rb_parse *ps, char *err,
			size_t errlen)
{
	struct model_app *m = opts_app(ps);
	double d;
	(void)o;
	/* the paper's link: 13443 MB/s; a PCIe 5.0 x32 link is ~126000 */
	if (parse_rate("--dma-rate", arg, 1e6, "MB/s", &d, err, errlen) != 0)
		return -1;
	m->l.dma_read_bps = d * 1e6;
	return 0;
}

/* Once every option is parsed: --figure2 takes LINK options only, and
 * --wqe-by-mmio auto becomes the suite's rule (pm_wqe_by_mmio_default). */
static int model_finish(struct rb_opts *o, void *app, const struct rb_parse *ps, char *err,
			size_t errlen)
{
	static const char *const config[] = { "verb", "transport", "size", "inline", "postlist",
					      "wqe-by-mmio", "blueflame", "signal-interval",
					      "recv-inline" };
	struct model_app *m = app;
	(void)o;
	for (size_t i = 0; m->fig2 != MODEL_FIG2_OFF && i < sizeof(config) / sizeof(config[0]); i++)
		if (opts_given(ps, config[i]))
			return rb_fail(err, errlen, "--%s with --figure2 %s: Figure 2 depends on the "
				       "LINK options only; drop --%s (or drop --figure2 for one "
				       "configuration)", config[i], fig2_names[m->fig2], config[i]);
	m->c.wqe_by_mmio = m->mmio == MODEL_MMIO_AUTO ?
		pm_wqe_by_mmio_default((enum pm_bf_rule)m->bf, m->c.postlist, m->c.inline_payload) :
		m->mmio == MODEL_MMIO_ON;
	return 0;
}

static const struct rb_cli model_cli = {
	.prog = "rb_model",
	.knobs = model_knobs,
	.nknobs = sizeof(model_knobs) / sizeof(model_knobs[0]),
	.synopsis =
		"usage: rb_model [CONFIG] [LINK] [--csv]\n"
		"       rb_model --figure2 lanes|bytes [LINK]\n"
		"The PCIe cost of one RDMA operation (Kalia et al., ATC 2016, Sections 2.1,\n"
		"5.2.1 and the Appendix): bytes host->NIC (down) and NIC->host (up) per\n"
		"operation by cause, on the requester and on the responder, and the\n"
		"throughput the DMA read bandwidth, the MMIO throughput and the link's two\n"
		"directions allow. No RDMA device is needed.\n",
	.epilog = "Exit status: 0, or 2 for bad input (the message names the value, the limit\n"
		  "and the fix).\n",
	.client_finish = model_finish,
	.roleless = true,
};

/* The command line into *m: 0 to go on, 1 after --help or --list-knobs
 * (printed), 2 on bad input (said on stderr). */
static int parse_args(int argc, char **argv, struct model_app *m)
{
	struct rb_opts o;
	char err[512];
	memset(m, 0, sizeof(*m));
	/* the fields no row stores a default in (the rates: 0, derived) */
	m->c = pm_config_default();
	m->l = pm_link_paper();
	int rc = opts_parse_cli(&model_cli, argc, argv, &o, m, err, sizeof(err));
	if (rc < 0) {
		model_error("%s", err);
		return 2;
	}
	return rc;
}

/* The human summary of one configuration's result. */
static void print_summary(const struct model_app *a, const struct pm_result *r)
{
	const struct pm_config *c = &a->c;
	const struct pm_link *l = &a->l;

	printf("%s %s, %lu B%s, %s, signal every %u%s; PCIe %u.0 x%u, MPS %u, C_rc %u, "
	       "MMIO %.4g M lines/s, DMA read %.0f MB/s\n",
	       verb_name(c->verb), transport_name(c->transport), c->size_bytes,
	       c->inline_payload ? " inline" : "", c->wqe_by_mmio ? "WQE-by-MMIO" : "doorbell",
	       c->signal_interval, c->recv_inline ? ", RECV inline" : "", l->gen, l->lanes, l->mps,
	       l->rcb, pm_mmio_lines_per_s(l) / 1e6, pm_dma_read_bps(l) / 1e6);
	if (!c->wqe_by_mmio && c->postlist > 1)
		printf("postlist %u: one doorbell per %u WQEs\n", c->postlist, c->postlist);
	else if (!c->wqe_by_mmio && a->mmio == MODEL_MMIO_AUTO)
		printf("postlist 1 by doorbell: --blueflame %s writes %s by MMIO\n",
		       bf_name(a->bf), a->bf == PM_BF_INLINE ? "only inline WQEs" : "no WQE");
	printf("WQE: %u B = %u cache line%s\n", r->wqe_bytes, r->wqe_lines, r->wqe_lines == 1 ? "" : "s");
	print_side("requester", &r->requester);
	print_side("responder", &r->responder);
	char lim[24];
	const struct pm_side *b = r->limit_is_responder ? &r->responder : &r->requester;
	printf("limit: %s Mops, %s side %s-bound (%s)\n", limit_text(r->limit_mops, lim, sizeof(lim)),
	       r->limit_is_responder ? "responder" : "requester", pm_bound_name(b->bound),
	       pm_bound_desc(b->bound));
}

int main(int argc, char **argv)
{
	struct model_app a;
	int rc = parse_args(argc, argv, &a);

	if (rc != 0)
		return rc == 1 ? 0 : 2;
	char err[320];
	struct pm_result r;
	if (pm_run(&a.c, &a.l, &r, err, sizeof(err)) != 0) {
		model_error("%s", err);
		return 2;
	}
	if (a.fig2 == MODEL_FIG2_LANES)
		figure2_lanes(&a.l);
	else if (a.fig2 == MODEL_FIG2_BYTES)
		figure2_bytes(&a.l);
	else if (a.csv)
		print_csv(&a.c, &a.l, &r);
	else
		print_summary(&a, &r);
	return 0;
}
