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

#include "pcie_model.h"
#include "units.h"

static void usage(FILE *f)
{
	fprintf(f,
		"usage: rb_model [CONFIG] [LINK] [--csv]\n"
		"       rb_model --figure2 lanes|bytes [LINK]\n"
		"The PCIe cost of one RDMA operation (Kalia et al., ATC 2016, Sections 2.1-2.2\n"
		"and Appendix A): bytes host->NIC (down) and NIC->host (up) per operation by\n"
		"cause, on the requester and on the responder, and the throughput the DMA\n"
		"read rate, the NIC's MMIO rate and the link allow. Defaults: the paper's\n"
		"Connect-IB hosts.\n"
		"CONFIG:\n"
		"  --verb write|read|send|send_imm   (write; send_imm with --size 0 is header-only)\n"
		"  --transport rc|uc|ud              (rc)\n"
		"  --size BYTES                      payload, 0..1 GiB (32)\n"
		"  --inline on|off                   payload inside the WQE, the WQE at most\n"
		"                                    1024 B: 988 B of payload on rc/uc, 956 on ud (off)\n"
		"  --postlist N                      WQEs per doorbell, 1..4096 (1)\n"
		"  --wqe-by-mmio on|off              the CPU writes WQEs by MMIO (default: on for\n"
		"                                    postlist 1, off above, as rdma_bench's rows;\n"
		"                                    on needs postlist 1)\n"
		"  --signal-interval N               WQEs per CQE, 1..1048576 (1)\n"
		"  --recv-inline on|off              small payloads in the RECV CQE, send and\n"
		"                                    send_imm only (off)\n"
		"LINK:\n"
		"  --pcie-gen 1..5 (3)  --lanes N (16)  --mps BYTES (128)  --mrrs BYTES (512)\n"
		"  --rcb 64|128 (64)  --cacheline BYTES (64)  --cqe BYTES (64)\n"
		"  --cqe-inline BYTES (32)  --mmio-rate MLINES/S, 1..100000 (175)\n"
		"  --dma-rate MB/S, 1..1000000 (0: derived from the link, 13443 for the defaults)\n"
		"OUTPUT:\n"
		"  --csv                             a header line and one row; a resource the\n"
		"                                    operation does not use has an empty limit\n"
		"                                    (unbounded; \"unused\" in the text)\n"
		"  --figure2 lanes                   per PCIe generation: lane rate, headers\n"
		"  --figure2 bytes                   bytes on the bus vs transfer size: DMA read, MMIO\n");
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
	char dma[24], mmio[24], link[24], lim[24];
	printf("  limits (Mops): dma %s, mmio %s, link %s -> %s (%s-bound)\n",
	       limit_text(s->dma_mops, dma, sizeof(dma)), limit_text(s->mmio_mops, mmio, sizeof(mmio)),
	       limit_text(s->link_mops, link, sizeof(link)),
	       limit_text(s->limit_mops, lim, sizeof(lim)), pm_bound_name(s->bound));
}

static void print_csv(const struct pm_config *c, const struct pm_link *l, const struct pm_result *r)
{
	const struct pm_side *sides[2] = { &r->requester, &r->responder };
	const char *prefix[2] = { "req", "resp" };
	printf("verb,transport,size_bytes,inline,postlist,wqe_by_mmio,signal_interval,recv_inline,"
	       "pcie_gen,lanes,mps,wqe_bytes,wqe_lines");
	for (int s = 0; s < 2; s++) {
		for (int i = 0; i < PM_NCAUSE; i++)
			printf(",%s_down_%s,%s_up_%s", prefix[s], pm_cause_name((enum pm_cause)i),
			       prefix[s], pm_cause_name((enum pm_cause)i));
		printf(",%s_down_bytes,%s_up_bytes,%s_dma_mops,%s_mmio_mops,%s_link_mops,%s_limit_mops,%s_bound",
		       prefix[s], prefix[s], prefix[s], prefix[s], prefix[s], prefix[s], prefix[s]);
	}
	printf(",limit_mops,limit_side\n");
	printf("%s,%s,%lu,%d,%u,%d,%u,%d,%u,%u,%u,%u,%u", pm_verb_name(c->verb),
	       pm_transport_name(c->transport), c->size_bytes, c->inline_payload, c->postlist,
	       c->wqe_by_mmio, c->signal_interval, c->recv_inline, l->gen, l->lanes, l->mps,
	       r->wqe_bytes, r->wqe_lines);
	for (int s = 0; s < 2; s++) {
		const struct pm_side *p = sides[s];
		for (int i = 0; i < PM_NCAUSE; i++)
			printf(",%.6g,%.6g", p->down[i], p->up[i]);
		/* an unused resource has no limit: an empty field */
		printf(",%.6g,%.6g", p->down_total, p->up_total);
		const double lim[4] = { p->dma_mops, p->mmio_mops, p->link_mops, p->limit_mops };
		for (int k = 0; k < 4; k++) {
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

/* Figure 2 (a): per generation, one lane's payload rate and the TLP
 * overheads. */
static void figure2_lanes(const struct pm_link *l)
{
	static const double gts[] = { 0, 2.5, 5, 8, 16, 32 };
	printf("gen,gt_per_s,lane_mb_per_s,request_header_bytes,completion_header_bytes,"
	       "x%u_mb_per_s,x%u_dma_read_mb_per_s\n", l->lanes, l->lanes);
	for (unsigned g = 1; g <= 5; g++) {
		struct pm_link k = *l;
		k.gen = g;
		k.dma_read_bps = 0;
		printf("%u,%g,%.1f,%u,%u,%.1f,%.1f\n", g, gts[g], pm_lane_bps(g) / 1e6,
		       pm_tlp_header_bytes(g, 1), pm_tlp_header_bytes(g, 0),
		       pm_link_bps(&k) / 1e6, pm_dma_read_bps(&k) / 1e6);
	}
}

/* Figure 2 (b): bytes on the bus to move N bytes from host memory to the
 * NIC by DMA read (request up + completions down) or by MMIO (write-
 * combined cache lines, one TLP each). */
static void figure2_bytes(const struct pm_link *l)
{
	unsigned req = pm_tlp_header_bytes(l->gen, 1), cpl = pm_tlp_header_bytes(l->gen, 0);
	printf("transfer_bytes,dma_read_bus_bytes,mmio_bus_bytes,dma_read_efficiency,mmio_efficiency\n");
	for (unsigned n = 8; n <= 1024; n *= 2) {
		unsigned long reqs = (n + l->mrrs - 1) / l->mrrs, cpls = (n + l->mps - 1) / l->mps;
		unsigned long lines = (n + l->cacheline - 1) / l->cacheline;
		double dma = (double)reqs * req + n + (double)cpls * cpl;
		double mmio = (double)lines * (l->cacheline + req);
		printf("%u,%.0f,%.0f,%.4f,%.4f\n", n, dma, mmio, n / dma, n / mmio);
	}
}

/* getopt_long's codes of rb_model's options. */
enum {
	O_VERB = 1000, O_TRANSPORT, O_SIZE, O_INLINE, O_POSTLIST, O_MMIO, O_SIGNAL,
	O_RECVINL, O_GEN, O_LANES, O_MPS, O_MRRS, O_RCB, O_CL, O_CQE, O_CQEINL,
	O_MMIORATE, O_DMARATE, O_CSV, O_FIG2,
};

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
	case O_RCB: return parse_size_u("--rcb", arg, 64, 128, &l->rcb);
	case O_CL: return parse_size_u("--cacheline", arg, 16, 256, &l->cacheline);
	case O_CQE: return parse_size_u("--cqe", arg, 16, 4096, &l->cqe_bytes);
	case O_CQEINL: return parse_size_u("--cqe-inline", arg, 0, 4095, &l->cqe_inline_bytes);
	case O_MMIORATE:
		/* the paper's NIC: 175 M lines/s; 1..100000 covers any NIC */
		if (parse_rate("--mmio-rate", arg, 1, 1e5, 0, "M cache lines/s", &d) != 0)
			return -1;
		l->mmio_lines_per_s = d * 1e6;
		return 0;
	case O_DMARATE:
		/* the paper's link: 13443 MB/s; a PCIe 5.0 x32 link is ~126000 */
		if (parse_rate("--dma-rate", arg, 1, 1e6, 1, "MB/s", &d) != 0)
			return -1;
		l->dma_read_bps = d * 1e6;
		return 0;
	default:
		return -1;
	}
}

/* The command line into *cfg, *link, *csv and *fig2: 0 to go on, 1 after
 * --help (printed), 2 on bad input (said on stderr). */
static int parse_args(int argc, char **argv, struct pm_config *cfg, struct pm_link *link,
		      int *csv, const char **fig2)
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
		{ "signal-interval", required_argument, NULL, O_SIGNAL },
		{ "recv-inline", required_argument, NULL, O_RECVINL },
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
	int o, bad = 0, mmio_given = 0;
	const char *config_opt = NULL; /* the first CONFIG option (refused with --figure2) */
	uint64_t u = 0;
	int li = -1;
	while ((o = getopt_long(argc, argv, "h", opts, &li)) != -1) {
		if (o >= O_VERB && o <= O_RECVINL && !config_opt && li >= 0)
			config_opt = opts[li].name;
		li = -1;
		switch (o) {
		case O_VERB:
			if (pm_verb_parse(optarg, &c.verb) != 0) {
				model_error("--verb: \"%s\" is not write, read, send or send_imm", optarg);
				bad = 1;
			}
			break;
		case O_TRANSPORT:
			if (pm_transport_parse(optarg, &c.transport) != 0) {
				model_error("--transport: \"%s\" is not rc, uc or ud", optarg);
				bad = 1;
			}
			break;
		case O_SIZE:
			if (parse_bytes("--size", optarg, 0, UINT64_C(1) << 30, &u) == 0)
				c.size_bytes = (unsigned long)u;
			else
				bad = 1;
			break;
		case O_INLINE: bad |= parse_onoff("--inline", optarg, &c.inline_payload) != 0; break;
		case O_POSTLIST: bad |= parse_count("--postlist", optarg, 1, 4096, &c.postlist) != 0; break;
		case O_MMIO:
			bad |= parse_onoff("--wqe-by-mmio", optarg, &c.wqe_by_mmio) != 0;
			mmio_given = 1;
			break;
		case O_SIGNAL: bad |= parse_count("--signal-interval", optarg, 1, 1u << 20, &c.signal_interval) != 0; break;
		case O_RECVINL: bad |= parse_onoff("--recv-inline", optarg, &c.recv_inline) != 0; break;
		case O_GEN: case O_LANES: case O_MPS: case O_MRRS: case O_RCB: case O_CL:
		case O_CQE: case O_CQEINL: case O_MMIORATE: case O_DMARATE:
			bad |= parse_link_opt(o, optarg, &l) != 0;
			break;
		case O_CSV: *csv = 1; break;
		case O_FIG2: *fig2 = optarg; break;
		case 'h': usage(stdout); return 1;
		default: usage(stderr); return 2;
		}
	}
	if (bad)
		return 2;
	if (optind < argc) {
		model_error("unexpected argument \"%s\" (options only; see --help)", argv[optind]);
		return 2;
	}
	if (*fig2 && config_opt) {
		model_error("--%s with --figure2 %s: Figure 2 depends on the LINK options "
			"only; drop --%s (or drop --figure2 for one configuration)", config_opt, *fig2,
			config_opt);
		return 2;
	}
	if (!mmio_given)
		c.wqe_by_mmio = pm_wqe_by_mmio_default(c.postlist);
	*cfg = c;
	*link = l;
	return 0;
}

/* The human summary of one configuration's result. */
static void print_summary(const struct pm_config *cp, const struct pm_link *lp,
			  const struct pm_result *rp)
{
	const struct pm_config c = *cp;
	const struct pm_link l = *lp;
	const struct pm_result r = *rp;

	printf("%s %s, %lu B%s, %s, signal every %u%s; PCIe %u.0 x%u, MPS %u, MMIO %.4g M lines/s, DMA read %.0f MB/s\n",
	       pm_verb_name(c.verb), pm_transport_name(c.transport), c.size_bytes,
	       c.inline_payload ? " inline" : "", c.wqe_by_mmio ? "WQE-by-MMIO" : "doorbell",
	       c.signal_interval, c.recv_inline ? ", RECV inline" : "", l.gen, l.lanes, l.mps,
	       l.mmio_lines_per_s / 1e6, pm_dma_read_bps(&l) / 1e6);
	if (!c.wqe_by_mmio)
		printf("postlist %u: one doorbell per %u WQEs\n", c.postlist, c.postlist);
	printf("WQE: %u B = %u cache line%s\n", r.wqe_bytes, r.wqe_lines, r.wqe_lines == 1 ? "" : "s");
	print_side("requester", &r.requester);
	print_side("responder", &r.responder);
	char lim[24];
	printf("limit: %s Mops, %s side %s-bound\n", limit_text(r.limit_mops, lim, sizeof(lim)),
	       r.limit_is_responder ? "responder" : "requester",
	       pm_bound_name(r.limit_is_responder ? r.responder.bound : r.requester.bound));
}

int main(int argc, char **argv)
{
	struct pm_config c = pm_config_default();
	struct pm_link l = pm_link_paper();
	int csv = 0;
	const char *fig2 = NULL;
	int rc = parse_args(argc, argv, &c, &l, &csv, &fig2);

	if (rc != 0)
		return rc == 1 ? 0 : 2;
	char err[256];
	struct pm_result r;
	if (pm_run(&c, &l, &r, err, sizeof(err)) != 0) {
		model_error("%s", err);
		return 2;
	}
	if (fig2 != NULL) {
		if (strcmp(fig2, "lanes") == 0)
			figure2_lanes(&l);
		else if (strcmp(fig2, "bytes") == 0)
			figure2_bytes(&l);
		else {
			model_error("--figure2: \"%s\" is not lanes or bytes", fig2);
			return 2;
		}
		return 0;
	}
	if (csv) {
		print_csv(&c, &l, &r);
		return 0;
	}
	print_summary(&c, &l, &r);
	return 0;
}
