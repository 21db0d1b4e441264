/*
 * device.h - open an RDMA device, pick its port and GID, read its limits and
 * its sysfs counters.
 *
 * Selection rules (the same on both ends, so two hosts agree without flags):
 *  - device: -d NAME, else the first device (ibv_get_device_list order)
 *    that has an ACTIVE port;
 *  - port: -i N, else the device's first ACTIVE port;
 *  - GID index (Ethernet link layer only; IB uses the LID): -x N, else
 *    among the GIDs equal to --gid-ip ADDR, or of --netdev IF, or else
 *    equal to the address the route to the peer leaves from (client: -c
 *    HOST; no such GID: all, with a WARN), the best by gid.h's rule: RoCE
 *    v2 before v1, global before link-local, IPv4-mapped before IPv6, the
 *    lowest index; a WARN names the candidates when several fit equally.
 *    On IB, -x N or 0.
 *  - GID types and netdevs: ibv_query_gid_ex (rdma-core >= v32), else
 *    ibv_query_gid and sysfs gid_attrs (built with RB_OLD_RDMA_CORE=1, or
 *    when the headers lack ibv_query_gid_ex: the Makefile detects it).
 */
#ifndef RDMA_BENCH_DEVICE_H
#define RDMA_BENCH_DEVICE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <infiniband/verbs.h>

#include "options.h"

struct rb_dev {
	struct ibv_context *ctx;
	char name[64];
	uint8_t port;
	struct ibv_device_attr attr;
	struct ibv_port_attr pattr;
	int gid_index;
	int auto_gid_index;       /* what the automatic rule picks (-1 none): suggested in errors */
	union ibv_gid gid;
	uint8_t gid_type;         /* 0 IB, 1 RoCE v1, 2 RoCE v2 (ctrl.h SETUP encoding) */
	uint8_t link_layer;       /* 1 IB, 2 Ethernet */
	uint32_t active_mtu;      /* bytes */
	struct rb_caps caps;
};

/*
 * Open by the rules above (name "" / port 0 / gid_index -1 = auto). Returns 0
 * or -1 with err naming the failing call, errno text and the refused value.
 */
int dev_open(struct rb_dev *d, const char *name, unsigned port, int gid_index,
	     char *err, size_t errlen);
/* What the automatic GID choice should fit (device.h rules; NULL or ""
 * fields ask nothing): --gid-ip, --netdev, and the peer's host name or
 * address (its route's source address). */
struct rb_gid_hint {
	const char *gid_ip;
	const char *netdev;
	const char *peer;
};
/* dev_open with a hint for the automatic GID choice (h may be NULL). */
int dev_open_hint(struct rb_dev *d, const char *name, unsigned port, int gid_index,
		  const struct rb_gid_hint *h, char *err, size_t errlen);
void dev_close(struct rb_dev *d);

/* "IB", "RoCE v1", "RoCE v2"; "IB" / "Ethernet". */
const char *dev_gid_type_name(uint8_t t);
const char *dev_link_layer_name(uint8_t ll);
/* fe80::/10 and ::ffff:a.b.c.d GIDs. */
bool dev_gid_link_local(const uint8_t gid[16]);
bool dev_gid_v4mapped(const uint8_t gid[16]);
/* GID as text (inet_ntop IPv6 form) into buf (>= 46 bytes). */
const char *dev_gid_str(const uint8_t gid[16], char *buf, size_t len);

/* -R on an InfiniBand port: rdma_cm needs an IPoIB netdev of dev that is
 * up (sysfs/class/infiniband/DEV/device/net/IF: type 32, operstate up;
 * sysfs is "/sys", or a fake tree in tests). 0, or -1 with err naming the
 * netdevs seen and the fix. */
int dev_ipoib_check(const char *sysfs, const char *dev, char *err, size_t errlen);

/* Where GID types and netdevs come from in this build: "ibv_query_gid_ex"
 * or "ibv_query_gid + sysfs gid_attrs" (the old-rdma-core path). */
const char *dev_gid_source(void);

/* The INFO line both roles print once the device is open: device, port,
 * link layer, active MTU, GID index and type (gid_auto: chosen, not given
 * with -x), GID and LID. */
void dev_log_banner(const struct rb_dev *d, bool gid_auto);

/* 256..4096 <-> enum ibv_mtu. 0 for an invalid value. */
enum ibv_mtu dev_mtu_enum(uint32_t bytes);
uint32_t dev_mtu_bytes(enum ibv_mtu m);

/*
 * Port counters from sysfs: counters/ (IB PMA: port_xmit_data etc., in
 * 4-byte words) and hw_counters/ (driver specific), read by name from
 * dev_counter_names (NULL-terminated, at most RB_MAX_COUNTERS names; which
 * exist on rxe, mlx4 and mlx5: docs/csv.md). A snapshot holds the named
 * values read; a name whose file is absent or unreadable is left out (its
 * delta is then NA, never 0).
 */
#define RB_MAX_COUNTERS 64
struct rb_counters {
	unsigned n;
	char name[RB_MAX_COUNTERS][48];   /* "counters/port_xmit_data", "hw_counters/..." */
	uint64_t val[RB_MAX_COUNTERS];
};
extern const char *const dev_counter_names[];
/* The number of names in dev_counter_names (<= RB_MAX_COUNTERS). */
unsigned dev_counter_count(void);
/* The index of name ("hw_counters/out_of_buffer") in dev_counter_names; -1 if absent. */
int dev_counter_index(const char *name);
/* Snapshot of dev's port counters under /sys/class/infiniband. */
void dev_counters_read(const char *dev, unsigned port, struct rb_counters *c);
/* The same under root (root/DEV/ports/PORT/counters/...: a test's fake tree). */
void dev_counters_read_at(const char *root, const char *dev, unsigned port,
			  struct rb_counters *c);
/* after - before for name; -1 if it is missing in either snapshot. */
int dev_counter_delta(const struct rb_counters *before, const struct rb_counters *after,
		      const char *name, uint64_t *delta);

/*
 * A snapshot pair as (index into dev_counter_names, after - before) pairs,
 * for the wire (ctrl.h DONE): the names present in both snapshots, at most
 * cap of them, their count in *n.
 */
void dev_counters_pack(const struct rb_counters *before, const struct rb_counters *after,
		       uint16_t *idx, uint64_t *delta, unsigned cap, uint16_t *n);
/*
 * The reverse: n (index, delta) pairs into a snapshot pair whose
 * dev_counter_delta is the delta (zero: every value 0; d: the deltas); an
 * index beyond dev_counter_names (a peer with a longer list) is skipped.
 */
void dev_counters_unpack(const uint16_t *idx, const uint64_t *delta, unsigned n,
			 struct rb_counters *zero, struct rb_counters *d);

/* Firmware version string of the device (ibv_query_device fw_ver). */
static inline const char *dev_fw_ver(const struct rb_dev *d) { return d->attr.fw_ver; }

#endif /* RDMA_BENCH_DEVICE_H */
