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
 * limit and the fix). --help lists the options and their defaults (the
 * paper's hosts, pm_link_paper()).
 */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "options.h"
#include "pcie_model.h"
#include "units.h"
#include "verb.h"

static const char *verb_names_all(char *buf, size_t len);

static void usage(FILE *f)
{
	char rc[64], ud[64];
	fprintf(f,
		"usage: rb_model [CONFIG] [LINK] [--csv]\n"
		"       rb_model --figure2 lanes|bytes [LINK]\n"
		"The PCIe cost of one RDMA operation (Kalia et al., ATC 2016, Sections 2.1,\n"
		"5.2.1 and the Appendix): bytes host->NIC (down) and NIC->host (up) per\n"
		"operation by cause, on the requester and on the responder, and the\n"
		"throughput the DMA read bandwidth, the MMIO throughput and the link's two\n"
		"directions allow. Defaults: the paper's Connect-IB hosts (PCIe 3.0 x16).\n"
		"CONFIG:\n"
		"  --verb NAME                       a verb of the verb table (write):\n"
		"                                    %s;\n"
		"                                    --size 0 is header-only\n"
		"  --transport rc|uc|ud              (rc); ud has %s\n"
		"  --size BYTES                      payload, 0..1 GiB (32); atomics move 8\n"
		"  --inline on|off                   payload inside the WQE, the WQE at most\n"
		"                                    1024 B (off)\n"
		"  --postlist N                      WQEs per doorbell, 1..4096 (1)\n"
		"  --wqe-by-mmio auto|on|off         the CPU writes the WQE by MMIO (auto: by\n"
		"                                    --blueflame at postlist 1, doorbell above;\n"
		"                                    on needs postlist 1)\n"
		"  --blueflame inline|any|never      auto's rule at postlist 1: inline WQEs only\n"
		"                                    (mlx4/mlx5, the default), any WQE, or none\n"
		"  --signal-interval N               WQEs per CQE, 1..1048576 (1)\n"
		"  --recv-inline on|off              small payloads in the RECV CQE, send and\n"
		"                                    send_imm only (off)\n"
		"LINK:\n"
		"  --link paper|genGxL               a preset: paper = gen3x16; e.g. gen4x16,\n"
		"                                    gen5x16 (the paper's CPU and NIC otherwise)\n"
		"  --pcie-gen 1..5 (3)  --lanes N (16)  --mps BYTES (128)  --mrrs BYTES (512)\n"
		"  --rcb BYTES (128)                 C_rc, the CPU's read completion combining\n"
		"                                    size (2.1): completions of min(C_rc, MPS)\n"
		"  --cacheline BYTES (64)  --cqe BYTES (64)  --cqe-inline BYTES (32)\n"
		"  --mmio-rate MLINES/S, 0..100000   (0: 5.2.1's (lanes x Pbw) / (64 + Pr),\n"
		"                                    175 for the defaults)\n"
		"  --dma-rate MB/S, 0..1000000       (0: derived from the link, 13443 for the\n"
		"                                    defaults)\n"
		"OUTPUT:\n"
		"  --csv                             a header line and one row; a resource the\n"
		"                                    operation does not use has an empty limit\n"
		"                                    (unbounded; \"unused\" in the text)\n"
		"  --figure2 lanes                   per PCIe generation: lane rate, headers,\n"
		"                                    the x-lane link's DMA read and MMIO rates\n"
		"  --figure2 bytes                   host-to-device bytes to move N bytes by\n"
		"                                    DMA read vs by MMIO (2.1), the other\n"
		"                                    direction in columns of its own\n",
		verb_names_all(rc, sizeof(rc)), verb_names_on(RB_TR_UD, ud, sizeof(ud)));
}

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

static int parse_onoff(const char *opt, const char *s, int *out)
{
	if (strcmp(s, "on") == 0 || strcmp(s, "1") == 0) {
		*out = 1;
		return 0;
	}
	if (strcmp(s, "off") == 0 || strcmp(s, "0") == 0) {
		*out = 0;
		return 0;
	}
	model_error("%s: \"%s\" is not on or off", opt, s);
	return -1;
}

/* A count (WQEs, lanes, a generation): digits only, min..max, as
 * rdma_bench's knobs parse them (units_parse_u64). */
static int parse_count(const char *opt, const char *s, uint64_t min, uint64_t max, unsigned *out)
{
	char err[256];
	uint64_t v;
	if (units_parse_u64(s, min, max, opt, &v, err, sizeof(err)) != 0) {
		model_error("%s", err);
		return -1;
	}
	*out = (unsigned)v;
	return 0;
}

/* A size in bytes (K, KiB, M ... accepted), min..max. */
static int parse_bytes(const char *opt, const char *s, uint64_t min, uint64_t max, uint64_t *out)
{
	char err[320];
	if (units_parse_size_opt(s, min, max, opt, out, err, sizeof(err)) != 0) {
		model_error("%s", err);
		return -1;
	}
	return 0;
}

static int parse_size_u(const char *opt, const char *s, uint64_t min, uint64_t max, unsigned *out)
{
	uint64_t v;
	if (parse_bytes(opt, s, min, max, &v) != 0)
		return -1;
	*out = (unsigned)v;
	return 0;
}

/* A rate in the option's unit, min..max (zero allowed where zero_ok:
 * --dma-rate 0 derives the rate from the link). */
static int parse_rate(const char *opt, const char *s, double min, double max, int zero_ok,
		      const char *unit, double *out)
{
	char *end = NULL;
	errno = 0;
	double v = strtod(s, &end);
	if (errno != 0 || end == s || *end != '\0' || !isfinite(v) ||
	    !((zero_ok && v == 0) || (v >= min && v <= max))) {
		model_error("%s %s: not a rate from %g to %g %s%s", opt, s, min, max,
			unit, zero_ok ? " (or 0: derived from the link)" : "");
		return -1;
	}
	*out = v;
	return 0;
}

/* Every verb of the table, joined by '|', into buf (cut to len). */
static const char *verb_names_all(char *buf, size_t len)
{
	size_t n = 0;
	buf[0] = '\0';
	for (uint64_t v = 0; v < RB_VERB_COUNT && n < len; v++)
		n += (size_t)snprintf(buf + n, len - n, "%s%s", n ? "|" : "", verb_name(v));
	return buf;
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
	printf(",limit_mops,limit_side\n");
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
		printf(",,\n");
	else
		printf(",%.6g,%s\n", r->limit_mops, r->limit_is_responder ? "responder" : "requester");
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

/* getopt_long's codes of rb_model's options. */
enum {
	O_VERB = 1000, O_TRANSPORT, O_SIZE, O_INLINE, O_POSTLIST, O_MMIO, O_BF, O_SIGNAL,
	O_RECVINL, O_LINK, O_GEN, O_LANES, O_MPS, O_MRRS, O_RCB, O_CL, O_CQE, O_CQEINL,
	O_MMIORATE, O_DMARATE, O_CSV, O_FIG2,
};

/* --link paper|genGxL: the preset into *l (the paper's CPU and NIC
 * constants, pm_link_gen). 0, or -1 (said on stderr). */
static int parse_link_preset(const char *arg, struct pm_link *l)
{
	unsigned gen = 0, lanes = 0;
	char tail = 0;
	if (strcmp(arg, "paper") == 0) {
		*l = pm_link_paper();
		return 0;
	}
	if (sscanf(arg, "gen%ux%u%c", &gen, &lanes, &tail) != 2 || gen < 1 || gen > 5 ||
	    lanes < 1 || lanes > 32 || (lanes & (lanes - 1))) {
		model_error("--link: \"%s\" is not paper or genGxL with G 1..5 and L 1, 2, 4, 8, 16 "
			    "or 32 (e.g. gen4x16)", arg);
		return -1;
	}
	*l = pm_link_gen(gen, lanes);
	return 0;
}

/* One LINK option (code o, O_GEN..O_DMARATE) into *l: its range here,
 * the rules between fields in pm_check. 0, or -1 (said on stderr). */
static int parse_link_opt(int o, const char *arg, struct pm_link *l)
{
	double d = 0;

	switch (o) {
	case O_GEN: return parse_count("--pcie-gen", arg, 1, 5, &l->gen);
	case O_LANES: return parse_count("--lanes", arg, 1, 32, &l->lanes);
	case O_MPS: return parse_size_u("--mps", arg, 128, 4096, &l->mps);
	case O_MRRS: return parse_size_u("--mrrs", arg, 128, 4096, &l->mrrs);
	case O_RCB: return parse_size_u("--rcb", arg, 64, 4096, &l->rcb);
	case O_CL: return parse_size_u("--cacheline", arg, 16, 256, &l->cacheline);
	case O_CQE: return parse_size_u("--cqe", arg, 16, 4096, &l->cqe_bytes);
	case O_CQEINL: return parse_size_u("--cqe-inline", arg, 0, 4095, &l->cqe_inline_bytes);
	case O_MMIORATE:
		/* 0: 5.2.1's formula for the link; 1..100000 covers any NIC */
		if (parse_rate("--mmio-rate", arg, 1, 1e5, 1, "M cache lines/s", &d) != 0)
			return -1;
		l->mmio_lines_per_s = d * 1e6;
		return 0;
	case O_DMARATE:
		/* the paper's link: 13443 MB/s; a PCIe 5.0 x32 link is ~126000 */
		if (parse_rate("--dma-rate", arg, 1, 1e6, 1, "MB/s", &d) != 0)
			return -1;
		l->dma_read_bps = d * 1e6;
		return 0;
	case O_LINK: return parse_link_preset(arg, l);
	default:
		return -1;
	}
}

/* --verb and --transport by the verb table's names (verb.h, options.h). */
static int parse_verb_opt(int o, const char *arg, struct pm_config *c)
{
	char names[128];
	if (o == O_VERB) {
		int v = verb_by_name(arg);
		if (v < 0) {
			model_error("--verb: \"%s\" is not a verb of the table (%s)", arg,
				    verb_names_all(names, sizeof(names)));
			return -1;
		}
		c->verb = (uint64_t)v;
		return 0;
	}
	for (uint64_t t = 0; t < RB_TR_COUNT; t++)
		if (strcmp(arg, transport_name(t)) == 0) {
			c->transport = t;
			return 0;
		}
	model_error("--transport: \"%s\" is not rc, uc or ud", arg);
	return -1;
}

/* --wqe-by-mmio auto|on|off: -1 for auto. */
static int parse_mmio_opt(const char *arg, int *out)
{
	if (strcmp(arg, "auto") == 0) {
		*out = -1;
		return 0;
	}
	return parse_onoff("--wqe-by-mmio", arg, out);
}

/* What parse_args reads besides the configuration and the link. */
struct model_args {
	int csv;
	const char *fig2;
	int mmio;               /* --wqe-by-mmio: -1 auto, 0 off, 1 on */
	enum pm_bf_rule bf;     /* --blueflame */
	const char *config_opt; /* the first CONFIG option (refused with --figure2) */
};

/* One option o (getopt_long's code) with argument arg. 0, or -1 (said). */
static int parse_one(int o, const char *arg, struct pm_config *c, struct pm_link *l,
		     struct model_args *a)
{
	uint64_t u = 0;

	switch (o) {
	case O_VERB: case O_TRANSPORT: return parse_verb_opt(o, arg, c);
	case O_SIZE:
		if (parse_bytes("--size", arg, 0, UINT64_C(1) << 30, &u) != 0)
			return -1;
		c->size_bytes = (unsigned long)u;
		return 0;
	case O_INLINE: return parse_onoff("--inline", arg, &c->inline_payload);
	case O_POSTLIST: return parse_count("--postlist", arg, 1, 4096, &c->postlist);
	case O_MMIO: return parse_mmio_opt(arg, &a->mmio);
	case O_BF:
		if (pm_bf_rule_parse(arg, &a->bf) == 0)
			return 0;
		model_error("--blueflame: \"%s\" is not inline, any or never", arg);
		return -1;
	case O_SIGNAL: return parse_count("--signal-interval", arg, 1, 1u << 20, &c->signal_interval);
	case O_RECVINL: return parse_onoff("--recv-inline", arg, &c->recv_inline);
	case O_CSV: a->csv = 1; return 0;
	case O_FIG2: a->fig2 = arg; return 0;
	default: return parse_link_opt(o, arg, l);
	}
}

/* The command line into *cfg, *link and *a: 0 to go on, 1 after --help
 * (printed), 2 on bad input (said on stderr). */
static int parse_args(int argc, char **argv, struct pm_config *cfg, struct pm_link *link,
		      struct model_args *a)
{
	struct pm_config c = *cfg;
	struct pm_link l = *link;
	static const struct option opts[] = {
		{ "verb", required_argument, NULL, O_VERB },
		{ "transport", required_argument, NULL, O_TRANSPORT },
		{ "size", required_argument, NULL, O_SIZE },
		{ "inline", required_argument, NULL, O_INLINE },
		{ "postlist", required_argument, NULL, O_POSTLIST },
		{ "wqe-by-mmio", required_argument, NULL, O_MMIO },
		{ "blueflame", required_argument, NULL, O_BF },
		{ "signal-interval", required_argument, NULL, O_SIGNAL },
		{ "recv-inline", required_argument, NULL, O_RECVINL },
		{ "link", required_argument, NULL, O_LINK },
		{ "pcie-gen", required_argument, NULL, O_GEN },
		{ "lanes", required_argument, NULL, O_LANES },
		{ "mps", required_argument, NULL, O_MPS },
		{ "mrrs", required_argument, NULL, O_MRRS },
		{ "rcb", required_argument, NULL, O_RCB },
		{ "cacheline", required_argument, NULL, O_CL },
		{ "cqe", required_argument, NULL, O_CQE },
		{ "cqe-inline", required_argument, NULL, O_CQEINL },
		{ "mmio-rate", required_argument, NULL, O_MMIORATE },
		{ "dma-rate", required_argument, NULL, O_DMARATE },
		{ "csv", no_argument, NULL, O_CSV },
		{ "figure2", required_argument, NULL, O_FIG2 },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int o, bad = 0, li = -1;
	while ((o = getopt_long(argc, argv, "h", opts, &li)) != -1) {
		if (o >= O_VERB && o <= O_RECVINL && !a->config_opt && li >= 0)
			a->config_opt = opts[li].name;
		li = -1;
		if (o == 'h') {
			usage(stdout);
			return 1;
		}
		if (o < O_VERB) {
			usage(stderr);
			return 2;
		}
		bad |= parse_one(o, optarg, &c, &l, a) != 0;
	}
	if (bad)
		return 2;
	if (optind < argc) {
		model_error("unexpected argument \"%s\" (options only; see --help)", argv[optind]);
		return 2;
	}
	if (a->fig2 && a->config_opt) {
		model_error("--%s with --figure2 %s: Figure 2 depends on the LINK options "
			"only; drop --%s (or drop --figure2 for one configuration)", a->config_opt,
			a->fig2, a->config_opt);
		return 2;
	}
	c.wqe_by_mmio = a->mmio >= 0 ? a->mmio : pm_wqe_by_mmio_default(a->bf, c.postlist, c.inline_payload);
	*cfg = c;
	*link = l;
	return 0;
}

/* The human summary of one configuration's result. */
static void print_summary(const struct pm_config *c, const struct pm_link *l,
			  const struct pm_result *r, const struct model_args *a)
{
	printf("%s %s, %lu B%s, %s, signal every %u%s; PCIe %u.0 x%u, MPS %u, C_rc %u, "
	       "MMIO %.4g M lines/s, DMA read %.0f MB/s\n",
	       verb_name(c->verb), transport_name(c->transport), c->size_bytes,
	       c->inline_payload ? " inline" : "", c->wqe_by_mmio ? "WQE-by-MMIO" : "doorbell",
	       c->signal_interval, c->recv_inline ? ", RECV inline" : "", l->gen, l->lanes, l->mps,
	       l->rcb, pm_mmio_lines_per_s(l) / 1e6, pm_dma_read_bps(l) / 1e6);
	if (!c->wqe_by_mmio && c->postlist > 1)
		printf("postlist %u: one doorbell per %u WQEs\n", c->postlist, c->postlist);
	else if (!c->wqe_by_mmio && a->mmio < 0)
		printf("postlist 1 by doorbell: --blueflame %s writes %s by MMIO\n",
		       pm_bf_rule_name(a->bf), a->bf == PM_BF_INLINE ? "only inline WQEs" : "no WQE");
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
	struct pm_config c = pm_config_default();
	struct pm_link l = pm_link_paper();
	struct model_args a = { .csv = 0, .fig2 = NULL, .mmio = -1, .bf = PM_BF_INLINE,
				.config_opt = NULL };
	int rc = parse_args(argc, argv, &c, &l, &a);

	if (rc != 0)
		return rc == 1 ? 0 : 2;
	char err[320];
	struct pm_result r;
	if (pm_run(&c, &l, &r, err, sizeof(err)) != 0) {
		model_error("%s", err);
		return 2;
	}
	if (a.fig2 != NULL) {
		if (strcmp(a.fig2, "lanes") == 0)
			figure2_lanes(&l);
		else if (strcmp(a.fig2, "bytes") == 0)
			figure2_bytes(&l);
		else {
			model_error("--figure2: \"%s\" is not lanes or bytes", a.fig2);
			return 2;
		}
		return 0;
	}
	if (a.csv) {
		print_csv(&c, &l, &r);
		return 0;
	}
	print_summary(&c, &l, &r, &a);
	return 0;
}
