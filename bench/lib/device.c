/*
 * device.c - open the RDMA device, choose port and GID, read limits and the
 * sysfs counters (rules in device.h).
 */
#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <net/if.h>
#include <netdb.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "errbuf.h"
#include "device.h"
#include "gid.h"
#include "log.h"

/* sysfs root of the RDMA devices (gid_attrs of the old-rdma-core path) */
#define RB_SYSFS_IB "/sys/class/infiniband"

enum ibv_mtu dev_mtu_enum(uint32_t bytes)
{
	switch (bytes) {
	case 256: return IBV_MTU_256;
	case 512: return IBV_MTU_512;
	case 1024: return IBV_MTU_1024;
	case 2048: return IBV_MTU_2048;
	case 4096: return IBV_MTU_4096;
	default: return (enum ibv_mtu)0;
	}
}

uint32_t dev_mtu_bytes(enum ibv_mtu m)
{
	switch (m) {
	case IBV_MTU_256: return 256;
	case IBV_MTU_512: return 512;
	case IBV_MTU_1024: return 1024;
	case IBV_MTU_2048: return 2048;
	case IBV_MTU_4096: return 4096;
	default: return 0;
	}
}

const char *dev_gid_type_name(uint8_t t)
{
	return t == 2 ? "RoCE v2" : t == 1 ? "RoCE v1" : "IB";
}

const char *dev_link_layer_name(uint8_t ll)
{
	return ll == 2 ? "Ethernet" : "IB";
}

bool dev_gid_link_local(const uint8_t gid[16])
{
	return gid[0] == 0xfe && (gid[1] & 0xc0) == 0x80;
}

bool dev_gid_v4mapped(const uint8_t gid[16])
{
	static const uint8_t pfx[12] = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff };
	return memcmp(gid, pfx, 12) == 0;
}

const char *dev_gid_str(const uint8_t gid[16], char *buf, size_t len)
{
	if (!inet_ntop(AF_INET6, gid, buf, (socklen_t)len))
		snprintf(buf, len, "?");
	return buf;
}

static int port_active(struct ibv_context *ctx, uint8_t port, struct ibv_port_attr *pa)
{
	return ibv_query_port(ctx, port, pa) == 0 && pa->state == IBV_PORT_ACTIVE;
}

/* One GID table entry with its type and netdev: ibv_query_gid_ex where the
 * build has it (rdma-core >= v32), else ibv_query_gid and sysfs gid_attrs
 * (RB_OLD_RDMA_CORE; gid.h). 0, or -1 (errno set) for an entry that cannot
 * be read. */
static int read_gid(const struct rb_dev *d, int i, struct rb_gid_cand *c)
{
	memset(c, 0, sizeof(*c));
	c->index = i;
#if RB_HAVE_QUERY_GID_EX
	struct ibv_gid_entry e;
	if (ibv_query_gid_ex(d->ctx, d->port, (uint32_t)i, &e, 0))
		return -1;
	memcpy(c->gid, e.gid.raw, 16);
	c->type = e.gid_type == IBV_GID_TYPE_ROCE_V2 ? 2 : e.gid_type == IBV_GID_TYPE_ROCE_V1 ? 1 : 0;
	char ifname[IF_NAMESIZE];
	if (e.ndev_ifindex && if_indextoname(e.ndev_ifindex, ifname))
		snprintf(c->netdev, sizeof(c->netdev), "%s", ifname);
#else
	union ibv_gid g;
	if (ibv_query_gid(d->ctx, d->port, i, &g))
		return -1;
	memcpy(c->gid, g.raw, 16);
	/* without the types file (kernel < 4.10): RoCE v1, the only type then */
	c->type = 1;
	(void)gid_sysfs_attrs(RB_SYSFS_IB, d->name, d->port, i, &c->type, c->netdev);
#endif
	return 0;
}

/* The address this host sends from to reach host (the kernel's route: a
 * UDP socket connected to it, never sent on), as a GID; 0, or -1 when
 * unknown or loopback. */
static int route_source(const char *host, uint8_t out[16])
{
	struct addrinfo hints = { .ai_socktype = SOCK_DGRAM }, *res = NULL;
	struct sockaddr_storage ss;
	socklen_t sl = sizeof(ss);
	int rc = -1;

	if (!host || !*host || getaddrinfo(host, "4791", &hints, &res))
		return -1;
	int fd = socket(res->ai_family, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd >= 0 && connect(fd, res->ai_addr, res->ai_addrlen) == 0 &&
	    getsockname(fd, (struct sockaddr *)&ss, &sl) == 0) {
		char txt[INET6_ADDRSTRLEN];
		const void *a = ss.ss_family == AF_INET ?
				(const void *)&((struct sockaddr_in *)&ss)->sin_addr :
				(const void *)&((struct sockaddr_in6 *)&ss)->sin6_addr;
		if (inet_ntop(ss.ss_family, a, txt, sizeof(txt)))
			rc = gid_parse_ip(txt, out);
	}
	if (fd >= 0)
		close(fd);
	freeaddrinfo(res);
	/* a loopback peer (the same host) says nothing about which netdev */
	static const uint8_t v4lo[12] = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff };
	static const uint8_t v6lo[16] = { [15] = 1 };
	if (rc == 0 && ((memcmp(out, v4lo, 12) == 0 && out[12] == 127) ||
			memcmp(out, v6lo, 16) == 0))
		rc = -1;
	return rc;
}

/* -x N: that entry, non-empty; 0 or -1 with err. */
static int pick_gid_given(struct rb_dev *d, int want, char *err, size_t errlen)
{
	struct rb_gid_cand c;

	if (want >= d->pattr.gid_tbl_len)
		return rb_fail(err, errlen, "-x/--gid-index %d: port %u of %s has %d GID entries "
			    "(0..%d); see 'ibv_devinfo -v' for the valid (non-empty) indexes",
			    want, d->port, d->name, d->pattr.gid_tbl_len, d->pattr.gid_tbl_len - 1);
	if (read_gid(d, want, &c))
		return rb_fail(err, errlen, "-x/--gid-index %d: reading GID %d of %s port %u failed: "
			    "%s (empty entry?); see 'ibv_devinfo -v' for valid indexes", want, want,
			    d->name, d->port, strerror(errno));
	if (gid_score(&c) < 0)
		return rb_fail(err, errlen, "-x/--gid-index %d: entry is empty on %s port %u",
			    want, d->name, d->port);
	d->gid_index = want;
	d->gid_type = c.type;
	memcpy(d->gid.raw, c.gid, 16);
	return 0;
}

/* What the hint asks of the automatic choice (gid.h); *routed: the wish
 * is only the peer's route (a fallback is allowed). 0 or -1 with err. */
static int gid_wish(const struct rb_gid_hint *h, struct rb_gid_want *w, bool *routed,
		    char *err, size_t errlen)
{
	memset(w, 0, sizeof(*w));
	*routed = false;
	if (!h)
		return 0;
	if (h->gid_ip && h->gid_ip[0]) {
		if (gid_parse_ip(h->gid_ip, w->ip))
			return rb_fail(err, errlen, "--gid-ip %s: not an IPv4 or IPv6 address",
				    h->gid_ip);
		w->has_ip = true;
	}
	if (h->netdev && h->netdev[0])
		snprintf(w->netdev, sizeof(w->netdev), "%s", h->netdev);
	if (!w->has_ip && !w->netdev[0] && route_source(h->peer, w->ip) == 0)
		w->has_ip = *routed = true;
	return 0;
}

/* Log every candidate equal to the chosen one (a tie the index broke). */
static void warn_ties(const struct rb_dev *d, const struct rb_gid_cand *c, int n, int best)
{
	char list[256] = "", g[64];
	size_t off = 0;

	for (int i = 0; i < n && off < sizeof(list); i++)
		if (gid_score(&c[i]) == gid_score(&c[best]))
			off += (size_t)snprintf(list + off, sizeof(list) - off, "%s %d %s%s%s",
						off ? "," : "", c[i].index,
						dev_gid_str(c[i].gid, g, sizeof(g)),
						c[i].netdev[0] ? " on " : "", c[i].netdev);
	rb_warn("%s port %u: several GIDs fit equally well (index, GID, netdev:%s); took the "
		"lowest index %d; the peer must pick the same kind: give -x N, --gid-ip ADDR or "
		"--netdev IF on both ends to be sure", d->name, d->port, list, c[best].index);
}

/* The automatic choice (gid.h's rule); 0 or -1 with err. */
static int pick_gid_auto(struct rb_dev *d, const struct rb_gid_hint *h, bool quiet, char *err,
			 size_t errlen)
{
	int n = d->pattr.gid_tbl_len, best;
	unsigned ties = 0;
	struct rb_gid_want w;
	bool routed;
	char ip[64];

	if (gid_wish(h, &w, &routed, err, errlen))
		return -1;
	struct rb_gid_cand *c = calloc(n > 0 ? (size_t)n : 1, sizeof(*c));
	if (!c)
		return rb_fail(err, errlen, "out of memory for %d GID entries", n);
	for (int i = 0; i < n; i++)
		if (read_gid(d, i, &c[i]))
			memset(c[i].gid, 0, 16);  /* unreadable: as empty */
	best = gid_rank(c, (size_t)n, &w, &ties);
	if (best < 0 && routed) {  /* the route's source has no GID here: any */
		best = gid_rank(c, (size_t)n, NULL, &ties);
		if (best >= 0 && !quiet)
			rb_warn("%s port %u: no GID holds %s, the address the route to %s leaves "
				"from; choosing among all GIDs (give --gid-ip or --netdev)", d->name,
				d->port, dev_gid_str(w.ip, ip, sizeof(ip)), h->peer);
	}
	if (best < 0) {
		free(c);
		if (w.has_ip || w.netdev[0])
			return rb_fail(err, errlen, "%s port %u has no GID %s%s%s%s (see 'ibv_devinfo "
				    "-v' and gid_attrs/ndevs in sysfs); fix --gid-ip/--netdev or give "
				    "-x N", d->name, d->port, w.has_ip ? "equal to " : "",
				    w.has_ip ? dev_gid_str(w.ip, ip, sizeof(ip)) : "",
				    w.netdev[0] ? " on netdev " : "", w.netdev);
		return rb_fail(err, errlen, "%s port %u has no usable GID (is the netdev up with an "
			    "address?); give -x N", d->name, d->port);
	}
	if (ties > 1 && !quiet)
		warn_ties(d, c, n, best);
	d->gid_index = c[best].index;
	d->gid_type = c[best].type;
	memcpy(d->gid.raw, c[best].gid, 16);
	free(c);
	return 0;
}

/* GID choice for an Ethernet port (device.h); 0 or -1 with err. The
 * automatic choice is kept (auto_gid_index) to suggest it in errors. */
static int pick_gid(struct rb_dev *d, int want, const struct rb_gid_hint *h, char *err,
		    size_t errlen)
{
	d->auto_gid_index = -1;
	if (want >= 0) {
		/* what the automatic rule would take, to suggest in errors */
		struct rb_dev a = *d;
		char e2[256];
		if (pick_gid_auto(&a, h, true, e2, sizeof(e2)) == 0)
			d->auto_gid_index = a.gid_index;
		return pick_gid_given(d, want, err, errlen);
	}
	if (pick_gid_auto(d, h, false, err, errlen))
		return -1;
	d->auto_gid_index = d->gid_index;
	return 0;
}

static int open_one(struct rb_dev *d, struct ibv_device *dev, unsigned port, int gid_index,
		    const struct rb_gid_hint *h, char *err, size_t errlen)
{
	d->ctx = ibv_open_device(dev);
	if (!d->ctx)
		return rb_fail(err, errlen, "ibv_open_device(%s) failed: %s", ibv_get_device_name(dev),
			    strerror(errno));
	snprintf(d->name, sizeof(d->name), "%s", ibv_get_device_name(dev));
	if (dev->transport_type == IBV_TRANSPORT_IWARP) {
		rb_fail(err, errlen, "%s is an iWARP device: it lacks what this suite measures "
			"with, UD and UC QPs, atomics (on most iWARP NICs) and QPs connected by "
			"an exchange of QP numbers (iWARP RC connects only through rdma_cm's TCP "
			"handshake); use an InfiniBand or RoCE device (-d)", d->name);
		goto clean_ctx;
	}
	if (ibv_query_device(d->ctx, &d->attr)) {
		rb_fail(err, errlen, "ibv_query_device(%s) failed: %s", d->name, strerror(errno));
		goto clean_ctx;
	}
	if (port) {
		if (port > d->attr.phys_port_cnt) {
			rb_fail(err, errlen, "-i/--ib-port %u: %s has %u port(s); use -i 1..%u, or "
			     "leave -i out (its first ACTIVE port)", port, d->name,
			     d->attr.phys_port_cnt, d->attr.phys_port_cnt);
			goto clean_ctx;
		}
		if (!port_active(d->ctx, (uint8_t)port, &d->pattr)) {
			rb_fail(err, errlen, "-i/--ib-port %u of %s is not ACTIVE (state %s); check "
			     "'ibv_devinfo' and the link", port, d->name,
			     ibv_port_state_str(d->pattr.state));
			goto clean_ctx;
		}
		d->port = (uint8_t)port;
	} else {
		for (unsigned p = 1; p <= d->attr.phys_port_cnt; p++)
			if (port_active(d->ctx, (uint8_t)p, &d->pattr)) {
				d->port = (uint8_t)p;
				break;
			}
		if (!d->port) {
			rb_fail(err, errlen, "%s has no ACTIVE port", d->name);
			goto clean_ctx;
		}
	}
	d->link_layer = d->pattr.link_layer == IBV_LINK_LAYER_ETHERNET ? 2 : 1;
	d->auto_gid_index = 0;
	d->active_mtu = dev_mtu_bytes(d->pattr.active_mtu);
	if (d->link_layer == 2) {
		if (pick_gid(d, gid_index, h, err, errlen))
			goto clean_ctx;
	} else {
		d->gid_index = gid_index >= 0 ? gid_index : 0;
		d->gid_type = 0;
		if (ibv_query_gid(d->ctx, d->port, d->gid_index, &d->gid)) {
			rb_fail(err, errlen, "ibv_query_gid(%s port %u index %d) failed: %s", d->name,
			     d->port, d->gid_index, strerror(errno));
			goto clean_ctx;
		}
	}
	d->caps = (struct rb_caps){
		.max_qp_wr = (uint32_t)d->attr.max_qp_wr,
		.max_cqe = (uint32_t)d->attr.max_cqe,
		.max_qp = (uint32_t)d->attr.max_qp,
		.max_cq = (uint32_t)d->attr.max_cq,
		.max_qp_rd_atom = (uint32_t)d->attr.max_qp_rd_atom,
		.max_qp_init_rd_atom = (uint32_t)d->attr.max_qp_init_rd_atom,
		.max_msg_sz = d->pattr.max_msg_sz,
		.active_mtu = d->active_mtu,
		.atomics = d->attr.atomic_cap != IBV_ATOMIC_NONE,
	};
	return 0;

clean_ctx:
	ibv_close_device(d->ctx);
	d->ctx = NULL;
	return -1;
}

int dev_open(struct rb_dev *d, const char *name, unsigned port, int gid_index,
	     char *err, size_t errlen)
{
	return dev_open_hint(d, name, port, gid_index, NULL, err, errlen);
}

int dev_open_hint(struct rb_dev *d, const char *name, unsigned port, int gid_index,
		  const struct rb_gid_hint *h, char *err, size_t errlen)
{
	int n = 0, rc = -1;
	struct ibv_device **list;

	memset(d, 0, sizeof(*d));
	list = ibv_get_device_list(&n);
	if (!list)
		return rb_fail(err, errlen, "no RDMA stack on this host (ibv_get_device_list: %s): "
			    "load the NIC's driver (mlx5_ib ...), or without RDMA hardware run inside "
			    "the soft-RoCE VM bed: ci/vm run -- ./%s ..., or try the options on the null "
			    "device: tests/nulldev/run-pair --bin %s -- ARGS (README.md; env/check says "
			    "what this host has)", strerror(errno), program_invocation_short_name,
			    program_invocation_short_name);
	if (n == 0) {
		rb_fail(err, errlen, "no RDMA devices found (for soft-RoCE: rdma link add rxe0 type rxe "
		     "netdev IF, or the VM bed: ci/vm run -- ./%s ...; env/check says what this host "
		     "has)", program_invocation_short_name);
		goto clean_list;
	}
	if (name && *name) {
		for (int i = 0; i < n; i++)
			if (strcmp(ibv_get_device_name(list[i]), name) == 0) {
				rc = open_one(d, list[i], port, gid_index, h, err, errlen);
				goto clean_list;
			}
		char names[256] = "";
		for (int i = 0; i < n; i++) {
			strncat(names, " ", sizeof(names) - strlen(names) - 1);
			strncat(names, ibv_get_device_name(list[i]), sizeof(names) - strlen(names) - 1);
		}
		rb_fail(err, errlen, "-d/--ib-dev %s: no such device; present:%s", name, names);
		goto clean_list;
	}
	char first_err[512] = "";
	for (int i = 0; i < n; i++) {
		rc = open_one(d, list[i], port, gid_index, h, err, errlen);
		if (rc == 0)
			goto clean_list;
		if (!first_err[0])
			snprintf(first_err, sizeof(first_err), "%s", err);
	}
	/* One device: its own reason says it all (bad -i, -x, no ACTIVE port). */
	if (n == 1)
		snprintf(err, errlen, "%s", first_err);
	else
		rb_fail(err, errlen, "none of the %d RDMA devices could be used (first: %s); pick one "
		     "with -d", n, first_err);
clean_list:
	ibv_free_device_list(list);
	return rc;
}

void dev_close(struct rb_dev *d)
{
	if (d->ctx)
		ibv_close_device(d->ctx);
	d->ctx = NULL;
}

/*
 * The counters a row reads, by name (docs/csv.md, "Port counters": which
 * device has which). counters/: the IB PMA port counters (IBA 16.1.3.5,
 * PortCounters; mlx4 and mlx5, not rxe). hw_counters/: rxe's (the kernel's
 * rxe_hw_counters.c), mlx5's (mlx5/counters.c: the Q counters, the
 * congestion and the extended ones) and mlx4's (mlx4/main.c, the diag
 * counters). A fixed list, not a directory walk: a row has the same
 * counters whatever order sysfs lists them in, and a driver with more than
 * RB_MAX_COUNTERS files cannot push one out.
 */
const char *const dev_counter_names[] = {
	/* IB PMA (mlx4, mlx5) */
	"counters/port_xmit_data", "counters/port_rcv_data", "counters/port_xmit_packets",
	"counters/port_rcv_packets", "counters/port_xmit_discards", "counters/port_xmit_wait",
	"counters/port_rcv_errors", "counters/symbol_error", "counters/link_downed",
	"counters/excessive_buffer_overrun_errors",
	/* rxe */
	"hw_counters/sent_pkts", "hw_counters/rcvd_pkts", "hw_counters/duplicate_request",
	"hw_counters/out_of_seq_request", "hw_counters/rcvd_rnr_err", "hw_counters/send_rnr_err",
	"hw_counters/rcvd_seq_err", "hw_counters/ack_deferred", "hw_counters/retry_exceeded_err",
	"hw_counters/retry_rnr_exceeded_err", "hw_counters/completer_retry_err",
	"hw_counters/send_err",
	/* mlx5 (duplicate_request above too) */
	"hw_counters/out_of_buffer", "hw_counters/out_of_sequence", "hw_counters/rnr_nak_retry_err",
	"hw_counters/packet_seq_err", "hw_counters/implied_nak_seq_err",
	"hw_counters/local_ack_timeout_err", "hw_counters/req_cqe_error",
	"hw_counters/req_remote_invalid_request", "hw_counters/req_remote_access_errors",
	"hw_counters/resp_cqe_error", "hw_counters/resp_local_length_error",
	"hw_counters/resp_remote_access_errors", "hw_counters/roce_adp_retrans",
	"hw_counters/roce_adp_retrans_to", "hw_counters/roce_slow_restart",
	"hw_counters/rp_cnp_handled", "hw_counters/rp_cnp_ignored", "hw_counters/np_cnp_sent",
	"hw_counters/np_ecn_marked_roce_packets", "hw_counters/rx_read_requests",
	"hw_counters/rx_write_requests", "hw_counters/rx_atomic_requests",
	/* mlx4 */
	"hw_counters/rq_num_rnr", "hw_counters/sq_num_rnr", "hw_counters/rq_num_oos",
	"hw_counters/sq_num_oos", "hw_counters/sq_num_tree", "hw_counters/sq_num_rree",
	"hw_counters/rq_num_udsdprd", "hw_counters/rq_num_ucsdprd",
	NULL,
};

unsigned dev_counter_count(void)
{
	unsigned n = 0;

	while (dev_counter_names[n])
		n++;
	return n;
}

int dev_counter_index(const char *name)
{
	for (unsigned i = 0; dev_counter_names[i]; i++)
		if (strcmp(dev_counter_names[i], name) == 0)
			return (int)i;
	return -1;
}

void dev_counters_read_at(const char *root, const char *dev, unsigned port,
			  struct rb_counters *c)
{
	c->n = 0;
	for (unsigned i = 0; dev_counter_names[i] && c->n < RB_MAX_COUNTERS; i++) {
		char file[512];
		char line[64];
		unsigned long long v;
		FILE *f;

		snprintf(file, sizeof(file), "%s/%s/ports/%u/%s", root, dev, port,
			 dev_counter_names[i]);
		f = fopen(file, "r");
		if (!f)
			continue;
		if (fgets(line, sizeof(line), f) && sscanf(line, "%llu", &v) == 1) {
			snprintf(c->name[c->n], sizeof(c->name[0]), "%s", dev_counter_names[i]);
			c->val[c->n] = v;
			c->n++;
		}
		fclose(f);
	}
}

void dev_counters_read(const char *dev, unsigned port, struct rb_counters *c)
{
	dev_counters_read_at("/sys/class/infiniband", dev, port, c);
}

int dev_counter_delta(const struct rb_counters *before, const struct rb_counters *after,
		      const char *name, uint64_t *delta)
{
	int ib = -1, ia = -1;

	for (unsigned i = 0; i < before->n; i++)
		if (strcmp(before->name[i], name) == 0)
			ib = (int)i;
	for (unsigned i = 0; i < after->n; i++)
		if (strcmp(after->name[i], name) == 0)
			ia = (int)i;
	if (ib < 0 || ia < 0)
		return -1;
	*delta = after->val[ia] - before->val[ib];
	return 0;
}

int dev_ipoib_check(const char *sysfs, const char *dev, char *err, size_t errlen)
{
	char path[512], line[32], seen[160] = "";
	size_t off = 0;
	DIR *dir;
	struct dirent *de;

	snprintf(path, sizeof(path), "%s/class/infiniband/%s/device/net", sysfs, dev);
	dir = opendir(path);
	while (dir && (de = readdir(dir))) {
		FILE *f;
		bool ib = false, up = false;
		if (de->d_name[0] == '.')
			continue;
		/* type 32: ARPHRD_INFINIBAND (IPoIB) */
		snprintf(path, sizeof(path), "%s/class/infiniband/%s/device/net/%s/type", sysfs, dev,
			 de->d_name);
		if ((f = fopen(path, "r"))) {
			ib = fgets(line, sizeof(line), f) && atoi(line) == 32;
			fclose(f);
		}
		snprintf(path, sizeof(path), "%s/class/infiniband/%s/device/net/%s/operstate", sysfs,
			 dev, de->d_name);
		if ((f = fopen(path, "r"))) {
			up = fgets(line, sizeof(line), f) && strncmp(line, "up", 2) == 0;
			fclose(f);
		}
		if (ib && up) {
			closedir(dir);
			return 0;
		}
		if (ib && off < sizeof(seen))
			off += (size_t)snprintf(seen + off, sizeof(seen) - off, "%s%s down",
						off ? ", " : "", de->d_name);
	}
	if (dir)
		closedir(dir);
	return rb_fail(err, errlen, "-R on InfiniBand: rdma_cm resolves addresses over IPoIB, "
		    "and %s has no IPoIB netdev up (%s); load ib_ipoib and bring its netdev up with "
		    "an address (ip link set ibN up), or drop -R", dev,
		    seen[0] ? seen : "none");
}

const char *dev_gid_source(void)
{
	return RB_HAVE_QUERY_GID_EX ? "ibv_query_gid_ex" : "ibv_query_gid + sysfs gid_attrs";
}

void dev_counters_pack(const struct rb_counters *before, const struct rb_counters *after,
		       uint16_t *idx, uint64_t *delta, unsigned cap, uint16_t *n)
{
	*n = 0;
	for (unsigned i = 0; i < after->n && *n < cap; i++) {
		int k = dev_counter_index(after->name[i]);
		uint64_t d;
		if (k < 0 || dev_counter_delta(before, after, after->name[i], &d))
			continue;
		idx[*n] = (uint16_t)k;
		delta[*n] = d;
		(*n)++;
	}
}

void dev_counters_unpack(const uint16_t *idx, const uint64_t *delta, unsigned n,
			 struct rb_counters *zero, struct rb_counters *d)
{
	unsigned cnt = dev_counter_count();

	zero->n = d->n = 0;
	for (unsigned i = 0; i < n && d->n < RB_MAX_COUNTERS; i++) {
		if (idx[i] >= cnt)
			continue;
		snprintf(d->name[d->n], sizeof(d->name[0]), "%s", dev_counter_names[idx[i]]);
		snprintf(zero->name[d->n], sizeof(zero->name[0]), "%s", dev_counter_names[idx[i]]);
		d->val[d->n] = delta[i];
		zero->val[d->n] = 0;
		d->n++;
		zero->n = d->n;
	}
}

void dev_log_banner(const struct rb_dev *d, bool gid_auto)
{
	char gid[64];

	rb_info("device %s port %u (%s, active MTU %u), GID index %d (%s%s) %s, lid 0x%x",
		d->name, d->port, dev_link_layer_name(d->link_layer), d->active_mtu, d->gid_index,
		dev_gid_type_name(d->gid_type), gid_auto ? ", auto" : "",
		dev_gid_str(d->gid.raw, gid, sizeof(gid)), d->pattr.lid);
}
