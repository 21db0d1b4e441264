/*
 * gid.h - the GID choice of an Ethernet (RoCE) port as a pure function of
 * the port's GID table (bench/lib/gid.c), so that both ends pick by the
 * same rule and the rule is unit-tested on fake tables (tests/unit/test_gid.c).
 *
 * A GID's type and netdev come from ibv_query_gid_ex (rdma-core >= v32),
 * else from sysfs (ports/P/gid_attrs/types/I and ndevs/I, kernel >= 4.10),
 * which is what older rdma-core and MLNX_OFED 4.x leave to the caller.
 *
 * Rule (device.h): among the non-empty GIDs that fit the wish (the GID equal
 * to --gid-ip, or the address this host routes to the peer from; the GIDs
 * of --netdev, or of the netdev that routes to the peer), the best by, in
 * order: RoCE v2 before v1 (v2 is routable, IP/UDP; IB spec annex A17),
 * global before link-local (fe80::/10 does not cross a router), IPv4-mapped
 * before IPv6, the lowest index. Candidates equal on all but the index are
 * a tie: the lowest index wins and the caller warns, naming them.
 */
#ifndef RDMA_BENCH_GID_H
#define RDMA_BENCH_GID_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define RB_NETDEV_LEN 32   /* IFNAMSIZ with room */

/* One entry of a port's GID table. */
struct rb_gid_cand {
	int index;                  /* GID table index */
	uint8_t gid[16];            /* all zero: an empty entry (never chosen) */
	uint8_t type;               /* 0 IB, 1 RoCE v1, 2 RoCE v2 (ctrl.h SETUP encoding) */
	char netdev[RB_NETDEV_LEN]; /* its netdev, "" unknown */
};

/* What the caller wants of the choice; an empty field asks nothing. */
struct rb_gid_want {
	uint8_t ip[16];             /* the GID equal to this address (IPv4 as ::ffff:a.b.c.d) */
	bool has_ip;
	char netdev[RB_NETDEV_LEN]; /* a GID of this netdev */
};

/*
 * The best of c[0..n-1] for w by the rule above: its position in c, or -1
 * when none fits (every entry empty, or none has w's address or netdev).
 * *ties: how many candidates (the chosen one included) are equal to it on
 * everything but the index; 1 = the choice is unambiguous.
 */
int gid_rank(const struct rb_gid_cand *c, size_t n, const struct rb_gid_want *w, unsigned *ties);

/* The score gid_rank orders by (higher is better; -1: empty entry). */
int gid_score(const struct rb_gid_cand *c);

/*
 * Type and netdev of GID index i of port p of device dev from sysfs under
 * root ("/sys/class/infiniband" on a host; a fake tree in tests):
 * root/dev/ports/p/gid_attrs/types/i ("IB/RoCE v1", "RoCE v2") and
 * .../ndevs/i (the netdev's name). 0, or -1 when the types file is missing
 * or unreadable (then *type is left alone); a missing ndevs file leaves
 * netdev "" (an IB port has none).
 */
int gid_sysfs_attrs(const char *root, const char *dev, unsigned port, int i, uint8_t *type,
		    char netdev[RB_NETDEV_LEN]);

/* Parse ADDR (IPv4 or IPv6 text) into a GID-shaped address; 0 or -1. */
int gid_parse_ip(const char *addr, uint8_t out[16]);

#endif /* RDMA_BENCH_GID_H */
