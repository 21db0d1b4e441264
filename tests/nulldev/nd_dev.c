/* tests/nulldev/nd_dev.c: the null device's configuration (RB_NULLDEV,
 * RB_NULLDEV_FAULTS), device list, open/close and the query calls; the
 * statistics file at exit (RB_NULLDEV_STATS). README.md describes the
 * variables. Defaults are a ConnectX-5-like device (mlx5 caps as
 * ibv_devinfo -v prints them for one). */
#include "nd.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

struct nd_devcfg nd_devs[ND_MAX_DEVS];
int nd_ndevs;
struct nd_faults nd_fault;
bool nd_faults_on;
_Atomic int nd_opened;
static struct ibv_device nd_ibdev[ND_MAX_DEVS];
static pthread_once_t nd_once = PTHREAD_ONCE_INIT;

void nd_log(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	fputs("nulldev: ", stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
}

static void nd_die(const char *fmt, const char *a, const char *b)
{
	fputs("nulldev: ", stderr);
	fprintf(stderr, fmt, a, b);
	fputc('\n', stderr);
	exit(2);
}

static void dev_defaults(struct nd_devcfg *d, int i)
{
	struct ibv_device_attr *a = &d->attr;
	snprintf(d->name, sizeof(d->name), "null%d", i);
	d->link = IBV_LINK_LAYER_ETHERNET;
	d->ports = 1;
	d->mtu = IBV_MTU_1024;
	d->state = IBV_PORT_ACTIVE;
	d->max_inline = 256;
	d->gids = 2;
	d->guid = 0x0002c90300a0b000ULL + (uint64_t)i;
	d->remote_copy = true;
	memset(a, 0, sizeof(*a));
	snprintf(a->fw_ver, sizeof(a->fw_ver), "16.35.0000-null");
	a->node_guid = d->guid;
	a->sys_image_guid = d->guid;
	a->max_mr_size = ~0ULL;
	a->page_size_cap = 0xfffffffffffff000ULL;
	a->vendor_id = 0x02c9;
	a->vendor_part_id = 4119;
	a->max_qp = 262144;
	a->max_qp_wr = 32768;
	a->device_cap_flags = IBV_DEVICE_BAD_PKEY_CNTR | IBV_DEVICE_BAD_QKEY_CNTR |
			      IBV_DEVICE_AUTO_PATH_MIG | IBV_DEVICE_CHANGE_PHY_PORT |
			      IBV_DEVICE_PORT_ACTIVE_EVENT | IBV_DEVICE_SYS_IMAGE_GUID |
			      IBV_DEVICE_RC_RNR_NAK_GEN | IBV_DEVICE_MEM_WINDOW |
			      IBV_DEVICE_MEM_MGT_EXTENSIONS;
	a->max_sge = 30;
	a->max_sge_rd = 30;
	a->max_cq = 16777216;
	a->max_cqe = 4194303;
	a->max_mr = 16777216;
	a->max_pd = 16777216;
	a->max_qp_rd_atom = 16;
	a->max_res_rd_atom = 4194304;
	a->max_qp_init_rd_atom = 16;
	a->atomic_cap = IBV_ATOMIC_HCA;
	a->max_srq = 8388608;
	a->max_srq_wr = 32767;
	a->max_srq_sge = 31;
	a->max_pkeys = 128;
	a->local_ca_ack_delay = 16;
	a->phys_port_cnt = 1;
}

static uint64_t num(const char *k, const char *v)
{
	char *end;
	errno = 0;
	unsigned long long x = strtoull(v, &end, 0);
	if (errno || end == v || *end)
		nd_die("RB_NULLDEV: %s=%s is not a number", k, v);
	return x;
}

static enum ibv_mtu mtu_enum(const char *v)
{
	static const char *const m[] = { "256", "512", "1024", "2048", "4096" };
	for (int i = 0; i < 5; i++)
		if (!strcmp(v, m[i]))
			return (enum ibv_mtu)(i + 1);
	nd_die("RB_NULLDEV: mtu=%s%s: use 256, 512, 1024, 2048 or 4096", v, "");
	return IBV_MTU_1024;
}

static void dev_set(struct nd_devcfg *d, const char *k, const char *v)
{
	struct ibv_device_attr *a = &d->attr;
	if (!strcmp(k, "name"))
		snprintf(d->name, sizeof(d->name), "%s", v);
	else if (!strcmp(k, "link")) {
		d->iwarp = !strcmp(v, "iwarp");
		if (!strcmp(v, "ib"))
			d->link = IBV_LINK_LAYER_INFINIBAND;
		else if (!strcmp(v, "roce") || d->iwarp)
			d->link = IBV_LINK_LAYER_ETHERNET;
		else
			nd_die("RB_NULLDEV: link=%s%s: use ib, roce or iwarp", v, "");
	} else if (!strcmp(k, "ports")) {
		d->ports = (int)num(k, v);
		if (d->ports < 1 || d->ports > ND_MAX_PORTS)
			nd_die("RB_NULLDEV: ports=%s: use 1..4%s", v, "");
		a->phys_port_cnt = (uint8_t)d->ports;
	} else if (!strcmp(k, "mtu"))
		d->mtu = mtu_enum(v);
	else if (!strcmp(k, "state")) {
		if (!strcmp(v, "active"))
			d->state = IBV_PORT_ACTIVE;
		else if (!strcmp(v, "down"))
			d->state = IBV_PORT_DOWN;
		else if (!strcmp(v, "init"))
			d->state = IBV_PORT_INIT;
		else
			nd_die("RB_NULLDEV: state=%s%s: use active, down or init", v, "");
	} else if (!strcmp(k, "max_inline"))
		d->max_inline = (uint32_t)num(k, v);
	else if (!strcmp(k, "gids"))
		d->gids = (int)num(k, v);
	else if (!strcmp(k, "max_qp_wr"))
		a->max_qp_wr = (int)num(k, v);
	else if (!strcmp(k, "max_cqe"))
		a->max_cqe = (int)num(k, v);
	else if (!strcmp(k, "max_sge"))
		a->max_sge = (int)num(k, v);
	else if (!strcmp(k, "max_rd_atom"))
		a->max_qp_rd_atom = a->max_qp_init_rd_atom = (int)num(k, v);
	else if (!strcmp(k, "poll_delay"))
		d->poll_delay = (uint32_t)num(k, v);
	else if (!strcmp(k, "max_ctx"))
		d->max_ctx = (int)num(k, v);
	else if (!strcmp(k, "td")) {
		if (strcmp(v, "on") && strcmp(v, "off"))
			nd_die("RB_NULLDEV: td=%s%s: use on or off", v, "");
		d->td = !strcmp(v, "on");
	}
	else if (!strcmp(k, "remote")) {
		if (strcmp(v, "copy") && strcmp(v, "count"))
			nd_die("RB_NULLDEV: remote=%s%s: use copy or count", v, "");
		d->remote_copy = !strcmp(v, "copy");
	} else if (!strcmp(k, "atomic"))
		a->atomic_cap = !strcmp(v, "none") ? IBV_ATOMIC_NONE :
				!strcmp(v, "glob") ? IBV_ATOMIC_GLOB : IBV_ATOMIC_HCA;
	else
		nd_die("RB_NULLDEV: unknown key '%s' (value %s); see tests/nulldev/README.md", k, v);
}

/* RB_NULLDEV: devices separated by ';', keys by ',' (README.md). */
static void parse_devs(const char *env)
{
	char buf[1024];
	snprintf(buf, sizeof(buf), "%s", env ? env : "");
	nd_ndevs = 0;
	char *sd, *dev = strtok_r(buf, ";", &sd);
	do {
		struct nd_devcfg *d = &nd_devs[nd_ndevs];
		dev_defaults(d, nd_ndevs);
		char *sk, *kv = dev ? strtok_r(dev, ",", &sk) : NULL;
		for (; kv; kv = strtok_r(NULL, ",", &sk)) {
			char *eq = strchr(kv, '=');
			if (!eq)
				nd_die("RB_NULLDEV: '%s' is not key=value%s", kv, "");
			*eq = 0;
			dev_set(d, kv, eq + 1);
		}
		nd_ndevs++;
	} while (nd_ndevs < ND_MAX_DEVS && (dev = strtok_r(NULL, ";", &sd)));
}

static enum ibv_wc_status status_by_name(const char *v)
{
	for (int s = 0; s <= IBV_WC_TM_RNDV_INCOMPLETE; s++) {
		const char *n = ibv_wc_status_str((enum ibv_wc_status)s);
		if (!strcasecmp(v, n))
			return (enum ibv_wc_status)s;
	}
	if (!strcmp(v, "rem_access"))
		return IBV_WC_REM_ACCESS_ERR;
	if (!strcmp(v, "retry_exc"))
		return IBV_WC_RETRY_EXC_ERR;
	if (!strcmp(v, "loc_prot"))
		return IBV_WC_LOC_PROT_ERR;
	return (enum ibv_wc_status)num("err_status", v);
}

static void parse_faults(const char *env)
{
	char buf[512];
	if (!env || !*env)
		return;
	snprintf(buf, sizeof(buf), "%s", env);
	nd_fault.err_status = IBV_WC_REM_ACCESS_ERR;
	char *s, *kv = strtok_r(buf, ",", &s);
	for (; kv; kv = strtok_r(NULL, ",", &s)) {
		char *eq = strchr(kv, '=');
		if (!eq)
			nd_die("RB_NULLDEV_FAULTS: '%s' is not key=value%s", kv, "");
		*eq = 0;
		const char *k = kv, *v = eq + 1;
		if (!strcmp(k, "err_wr"))
			nd_fault.err_wr = num(k, v);
		else if (!strcmp(k, "err_status"))
			nd_fault.err_status = status_by_name(v);
		else if (!strcmp(k, "lose_recv"))
			nd_fault.lose_recv = num(k, v);
		else if (!strcmp(k, "foreign_src"))
			nd_fault.foreign_src = num(k, v);
		else if (!strcmp(k, "flip"))
			nd_fault.flip = num(k, v);
		else if (!strcmp(k, "atomic_wrong"))
			nd_fault.atomic_wrong = num(k, v);
		else if (!strcmp(k, "atomic_skip"))
			nd_fault.atomic_skip = num(k, v);
		else if (!strcmp(k, "atomic_bswap"))
			nd_fault.atomic_bswap = num(k, v);
		else if (!strcmp(k, "qp_error"))
			nd_fault.qp_error = num(k, v);
		else if (!strcmp(k, "post_enomem"))
			nd_fault.post_enomem = num(k, v);
		else if (!strcmp(k, "recv_enomem"))
			nd_fault.recv_enomem = num(k, v);
		else
			nd_die("RB_NULLDEV_FAULTS: unknown key '%s' (value %s); see tests/nulldev/README.md",
			       k, v);
	}
	nd_faults_on = true;
}

static void init_once(void)
{
	parse_devs(getenv("RB_NULLDEV"));
	parse_faults(getenv("RB_NULLDEV_FAULTS"));
	for (int i = 0; i < nd_ndevs; i++) {
		struct ibv_device *d = &nd_ibdev[i];
		d->node_type = nd_devs[i].iwarp ? IBV_NODE_RNIC : IBV_NODE_CA;
		d->transport_type = nd_devs[i].iwarp ? IBV_TRANSPORT_IWARP : IBV_TRANSPORT_IB;
		snprintf(d->name, sizeof(d->name), "%.60s", nd_devs[i].name);
		snprintf(d->dev_name, sizeof(d->dev_name), "uverbs%d", i);
		snprintf(d->dev_path, sizeof(d->dev_path), "/nonexistent/nulldev/uverbs%d", i);
		snprintf(d->ibdev_path, sizeof(d->ibdev_path), "/nonexistent/nulldev/%.60s",
			 nd_devs[i].name);
	}
}

void nd_init(void)
{
	pthread_once(&nd_once, init_once);
}

static int dev_index(struct ibv_device *dev)
{
	nd_init();
	for (int i = 0; i < nd_ndevs; i++)
		if (dev == &nd_ibdev[i])
			return i;
	return -1;
}

struct ibv_device **ibv_get_device_list(int *num_devices)
{
	nd_init();
	struct ibv_device **l = calloc((size_t)nd_ndevs + 1, sizeof(*l));
	if (!l) {
		errno = ENOMEM;
		return NULL;
	}
	for (int i = 0; i < nd_ndevs; i++)
		l[i] = &nd_ibdev[i];
	if (num_devices)
		*num_devices = nd_ndevs;
	return l;
}

void ibv_free_device_list(struct ibv_device **list)
{
	free(list);
}

const char *ibv_get_device_name(struct ibv_device *device)
{
	return device ? device->name : NULL;
}

__be64 ibv_get_device_guid(struct ibv_device *device)
{
	int i = dev_index(device);
	return i < 0 ? 0 : htobe64(nd_devs[i].guid);
}

struct ibv_context *ibv_open_device(struct ibv_device *device)
{
	int i = dev_index(device);
	if (i < 0) {
		errno = ENODEV;
		return NULL;
	}
	/* max_ctx: a device whose contexts ran out (mlx5 fails ENOMEM when
	 * no UAR is left for another context) */
	if (atomic_fetch_add(&nd_devs[i].open_ctx, 1) >= nd_devs[i].max_ctx &&
	    nd_devs[i].max_ctx) {
		atomic_fetch_sub(&nd_devs[i].open_ctx, 1);
		nd_log("ibv_open_device(%s): %d contexts open, its max_ctx", nd_devs[i].name,
		       nd_devs[i].max_ctx);
		errno = ENOMEM;
		return NULL;
	}
	struct nd_ctx *c = calloc(1, sizeof(*c));
	if (!c) {
		atomic_fetch_sub(&nd_devs[i].open_ctx, 1);
		errno = ENOMEM;
		return NULL;
	}
	c->dev = i;
	atomic_fetch_add(&nd_opened, 1);
	struct ibv_context *x = &c->vctx.context;
	x->device = device;
	x->cmd_fd = -1;
	x->async_fd = -1;
	x->num_comp_vectors = 1;
	/* td=on: a verbs_context with the thread-domain calls (nd_obj.c);
	 * else not extended: every inline uses the plain calls */
	x->abi_compat = nd_devs[i].td ? __VERBS_ABI_IS_EXTENDED : NULL;
	c->vctx.sz = sizeof(c->vctx);
	if (nd_devs[i].td)
		nd_td_ops(&c->vctx);
	pthread_mutex_init(&x->mutex, NULL);
	x->ops.post_send = nd_post_send;
	x->ops.post_recv = nd_post_recv;
	x->ops.poll_cq = nd_poll_cq;
	x->ops.req_notify_cq = nd_req_notify_cq;
	x->ops.post_srq_recv = nd_post_srq_recv;
	return x;
}

int ibv_close_device(struct ibv_context *context)
{
	atomic_fetch_sub(&nd_devs[ND_CTX(context)->dev].open_ctx, 1);
	pthread_mutex_destroy(&context->mutex);
	free(ND_CTX(context));
	return 0;
}

static struct nd_devcfg *cfg_of(struct ibv_context *c)
{
	return &nd_devs[ND_CTX(c)->dev];
}

int ibv_query_device(struct ibv_context *context, struct ibv_device_attr *device_attr)
{
	*device_attr = cfg_of(context)->attr;
	return 0;
}

#undef ibv_query_port
int ibv_query_port(struct ibv_context *context, uint8_t port_num,
		   struct _compat_ibv_port_attr *port_attr)
{
	struct nd_devcfg *d = cfg_of(context);
	struct ibv_port_attr *p = (struct ibv_port_attr *)port_attr;
	if (port_num < 1 || port_num > d->ports)
		return EINVAL;
	/* only the fields of the compat struct (the caller cleared the rest) */
	p->state = d->state;
	p->max_mtu = IBV_MTU_4096;
	p->active_mtu = d->mtu;
	p->gid_tbl_len = d->link == IBV_LINK_LAYER_ETHERNET ? d->gids : 1;
	p->port_cap_flags = 0x04010000;
	p->max_msg_sz = 1U << 30;
	p->pkey_tbl_len = 128;
	p->lid = d->link == IBV_LINK_LAYER_INFINIBAND ? (uint16_t)(1 + 16 * (d - nd_devs) + port_num) : 0;
	p->sm_lid = d->link == IBV_LINK_LAYER_INFINIBAND ? 1 : 0;
	p->max_vl_num = 4;
	p->active_width = 2;          /* 4X */
	p->active_speed = 32;         /* EDR */
	p->phys_state = d->state == IBV_PORT_ACTIVE ? 5 : 3;
	p->link_layer = (uint8_t)d->link;
	return 0;
}

/* GID i of a port: IB: fe80::guid; RoCE: 0 link-local (v1 type), 1 the
 * IPv4-mapped 127.0.0.1 (RoCE v2), further entries empty. */
static int gid_of(struct ibv_context *c, uint32_t port, uint32_t i, struct ibv_gid_entry *e)
{
	struct nd_devcfg *d = cfg_of(c);
	memset(e, 0, sizeof(*e));
	bool eth = d->link == IBV_LINK_LAYER_ETHERNET;
	if (port < 1 || port > (uint32_t)d->ports || i >= (uint32_t)(eth ? d->gids : 1))
		return ENODATA;
	e->gid_index = i;
	e->port_num = port;
	if (eth && i >= 2)
		return ENODATA;
	if (eth && i == 1) {
		e->gid.raw[10] = e->gid.raw[11] = 0xff;
		e->gid.raw[12] = 127;
		e->gid.raw[15] = 1;
		e->gid_type = IBV_GID_TYPE_ROCE_V2;
	} else {
		e->gid.raw[0] = 0xfe;
		e->gid.raw[1] = 0x80;
		e->gid.global.interface_id = htobe64(d->guid);
		e->gid_type = eth ? IBV_GID_TYPE_ROCE_V1 : IBV_GID_TYPE_IB;
	}
	e->ndev_ifindex = eth ? 1 : 0;
	return 0;
}

int ibv_query_gid(struct ibv_context *context, uint8_t port_num, int index, union ibv_gid *gid)
{
	struct ibv_gid_entry e;
	int rc = index < 0 ? ENODATA : gid_of(context, port_num, (uint32_t)index, &e);
	if (rc) {
		errno = rc;
		return -1;
	}
	*gid = e.gid;
	return 0;
}

int _ibv_query_gid_ex(struct ibv_context *context, uint32_t port_num, uint32_t gid_index,
		      struct ibv_gid_entry *entry, uint32_t flags, size_t entry_size)
{
	struct ibv_gid_entry e;
	(void)flags;
	int rc = gid_of(context, port_num, gid_index, &e);
	if (rc) {
		errno = rc;
		return rc;
	}
	memcpy(entry, &e, entry_size < sizeof(e) ? entry_size : sizeof(e));
	return 0;
}

ssize_t _ibv_query_gid_table(struct ibv_context *context, struct ibv_gid_entry *entries,
			     size_t max_entries, uint32_t flags, size_t entry_size)
{
	struct nd_devcfg *d = cfg_of(context);
	size_t n = 0;
	(void)flags;
	for (int p = 1; p <= d->ports; p++)
		for (uint32_t i = 0; i < (uint32_t)d->gids; i++) {
			struct ibv_gid_entry e;
			if (gid_of(context, (uint32_t)p, i, &e))
				continue;
			if (n == max_entries)
				return -ENOMEM;
			memcpy((char *)entries + n * entry_size, &e,
			       entry_size < sizeof(e) ? entry_size : sizeof(e));
			n++;
		}
	return (ssize_t)n;
}

/* rdma_cm is not modelled: refuse at its first call, by name. */
struct rdma_event_channel;
struct rdma_event_channel *rdma_create_event_channel(void)
{
	nd_log("rdma_cm (rdma_bench -R, perftest -R) is not modelled by the null device; "
	       "use the verbs path (out-of-band QP exchange)");
	errno = ENOSYS;
	return NULL;
}
