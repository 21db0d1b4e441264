/*
 * test_gid.c - the GID choice of a RoCE port (gid.h) on fake GID tables: a
 * host with several netdevs (a VLAN), IPv4-mapped, global and link-local
 * IPv6 GIDs of both RoCE versions; the sysfs reader of the old-rdma-core
 * path on a fake sysfs tree; which path this build takes (built twice by
 * make unit: build/tests/test_gid and, with RB_OLD_RDMA_CORE's switch,
 * build/tests/test_gid_old).
 */
#include "unit.h"

#include <sys/stat.h>
#include <unistd.h>

#include "device.h"
#include "gid.h"

/* A candidate from text: index, GID (IPv6 text; IPv4 as a mapped GID),
 * type, netdev. */
static struct rb_gid_cand cand(int index, const char *ip, uint8_t type, const char *netdev)
{
	struct rb_gid_cand c = { .index = index, .type = type };
	if (ip)
		assert_int_equal(gid_parse_ip(ip, c.gid), 0);
	snprintf(c.netdev, sizeof(c.netdev), "%s", netdev);
	return c;
}

/* What a RoCE host with eth0 and the VLAN eth0.100 shows (rxe and mlx5 list
 * each address once per RoCE version). */
static size_t multi_netdev_table(struct rb_gid_cand *c)
{
	size_t n = 0;
	c[n++] = cand(0, "fe80::1", 1, "eth0");
	c[n++] = cand(1, "fe80::1", 2, "eth0");
	c[n++] = cand(2, "10.0.0.1", 1, "eth0");
	c[n++] = cand(3, "10.0.0.1", 2, "eth0");
	c[n++] = cand(4, "2001:db8::1", 2, "eth0");
	c[n++] = cand(5, NULL, 0, "");            /* an empty slot */
	c[n++] = cand(6, "10.1.0.1", 2, "eth0.100");
	c[n++] = cand(7, "fe80::2", 2, "eth0.100");
	return n;
}

static void v2_ipv4_first_and_a_tie_is_counted(void **state)
{
	(void)state;
	struct rb_gid_cand c[8];
	size_t n = multi_netdev_table(c);
	unsigned ties = 0;

	/* no wish: RoCE v2 IPv4-mapped; eth0's and the VLAN's fit equally */
	int best = gid_rank(c, n, NULL, &ties);
	assert_int_equal(c[best].index, 3);
	assert_int_equal(ties, 2);
	/* the VLAN's netdev: its own v4 GID, unambiguous */
	struct rb_gid_want w = { .has_ip = false };
	snprintf(w.netdev, sizeof(w.netdev), "eth0.100");
	best = gid_rank(c, n, &w, &ties);
	assert_int_equal(c[best].index, 6);
	assert_int_equal(ties, 1);
	/* the address the route leaves from (or --gid-ip) */
	w = (struct rb_gid_want){ .has_ip = true };
	assert_int_equal(gid_parse_ip("2001:db8::1", w.ip), 0);
	best = gid_rank(c, n, &w, &ties);
	assert_int_equal(c[best].index, 4);
	assert_int_equal(ties, 1);
	/* an address no GID holds, a netdev without GIDs: none */
	assert_int_equal(gid_parse_ip("192.0.2.9", w.ip), 0);
	assert_int_equal(gid_rank(c, n, &w, &ties), -1);
	w = (struct rb_gid_want){ .has_ip = false };
	snprintf(w.netdev, sizeof(w.netdev), "eth9");
	assert_int_equal(gid_rank(c, n, &w, &ties), -1);
}

static void global_before_link_local_and_v2_before_v1(void **state)
{
	(void)state;
	unsigned ties = 0;
	/* IPv6-only routed fabric: link-local first in the table, global later */
	struct rb_gid_cand c[] = {
		cand(0, "fe80::a", 2, "eth1"),
		cand(1, "2001:db8::a", 1, "eth1"),
		cand(2, "2001:db8::a", 2, "eth1"),
	};
	int best = gid_rank(c, 3, NULL, &ties);
	assert_int_equal(c[best].index, 2);
	assert_int_equal(ties, 1);
	assert_true(gid_score(&c[2]) > gid_score(&c[0]));   /* global v2 over link-local v2 */
	assert_true(gid_score(&c[2]) > gid_score(&c[1]));   /* v2 over v1 */
	assert_true(gid_score(&c[0]) > gid_score(&c[1]));   /* the version weighs most */
	/* a netdev with only a link-local GID: that one */
	struct rb_gid_cand d[] = { cand(0, "fe80::b", 2, "eth2"), cand(1, "10.2.0.1", 2, "eth3") };
	struct rb_gid_want w = { .has_ip = false };
	snprintf(w.netdev, sizeof(w.netdev), "eth2");
	assert_int_equal(gid_rank(d, 2, &w, &ties), 0);
	/* an empty table, or one of empty entries */
	struct rb_gid_cand e[] = { cand(0, NULL, 2, "eth0"), cand(1, NULL, 2, "eth0") };
	assert_int_equal(gid_rank(e, 0, NULL, &ties), -1);
	assert_int_equal(gid_rank(e, 2, NULL, &ties), -1);
	assert_int_equal(gid_score(&e[0]), -1);
}

static void ip_text_becomes_a_gid(void **state)
{
	(void)state;
	uint8_t g[16];
	const uint8_t v4[16] = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 192, 168, 1, 2 };
	assert_int_equal(gid_parse_ip("192.168.1.2", g), 0);
	assert_memory_equal(g, v4, 16);
	assert_int_equal(gid_parse_ip("fe80::1", g), 0);
	assert_int_equal(g[0], 0xfe);
	assert_int_equal(g[15], 1);
	assert_int_equal(gid_parse_ip("eth0", g), -1);
	assert_int_equal(gid_parse_ip("", g), -1);
}

static void put(const char *dir, const char *file, const char *text)
{
	char path[512];
	snprintf(path, sizeof(path), "%s/%s", dir, file);
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

/* The old-rdma-core path's source: sysfs gid_attrs as the kernel writes it. */
static void sysfs_gid_attrs_give_type_and_netdev(void **state)
{
	(void)state;
	char root[] = "/tmp/rb_gid_XXXXXX", dir[256], cmd[300];
	assert_non_null(mkdtemp(root));
	const char *sub[] = { "/mlx5_0", "/mlx5_0/ports", "/mlx5_0/ports/1",
			      "/mlx5_0/ports/1/gid_attrs", "/mlx5_0/ports/1/gid_attrs/types",
			      "/mlx5_0/ports/1/gid_attrs/ndevs" };
	for (size_t i = 0; i < sizeof(sub) / sizeof(sub[0]); i++) {
		snprintf(dir, sizeof(dir), "%s%s", root, sub[i]);
		assert_int_equal(mkdir(dir, 0700), 0);
	}
	snprintf(dir, sizeof(dir), "%s/mlx5_0/ports/1/gid_attrs", root);
	put(dir, "types/0", "IB/RoCE v1\n");
	put(dir, "types/1", "RoCE v2\n");
	put(dir, "ndevs/1", "eth0.100\n");
	uint8_t type = 9;
	char nd[RB_NETDEV_LEN];
	assert_int_equal(gid_sysfs_attrs(root, "mlx5_0", 1, 0, &type, nd), 0);
	assert_int_equal(type, 1);
	assert_string_equal(nd, "");        /* no ndevs entry: unknown */
	assert_int_equal(gid_sysfs_attrs(root, "mlx5_0", 1, 1, &type, nd), 0);
	assert_int_equal(type, 2);
	assert_string_equal(nd, "eth0.100");
	type = 9;
	assert_int_equal(gid_sysfs_attrs(root, "mlx5_0", 1, 2, &type, nd), -1);
	assert_int_equal(type, 9);          /* left alone */
	assert_int_equal(gid_sysfs_attrs(root, "mlx5_0", 2, 0, &type, nd), -1);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	assert_int_equal(system(cmd), 0);
}

/* -R on IB: an IPoIB netdev (type 32) that is up, else a refusal naming
 * what was seen; a fake sysfs tree (mkdir -p of the device's net/ dir). */
static void ipoib_up_is_needed_for_rdma_cm_on_ib(void **state)
{
	(void)state;
	char root[] = "/tmp/rb_ipoib_XXXXXX", dir[300], cmd[400], err[512];
	assert_non_null(mkdtemp(root));
	/* no net/ directory at all: none */
	assert_int_equal(dev_ipoib_check(root, "mlx4_0", err, sizeof(err)), -1);
	assert_err_has(err, "mlx4_0 has no IPoIB netdev up (none)");
	assert_err_has(err, "ib_ipoib");
	snprintf(cmd, sizeof(cmd), "mkdir -p '%s/class/infiniband/mlx4_0/device/net/ib0' "
		 "'%s/class/infiniband/mlx4_0/device/net/eth2'", root, root);
	assert_int_equal(system(cmd), 0);
	snprintf(dir, sizeof(dir), "%s/class/infiniband/mlx4_0/device/net", root);
	put(dir, "ib0/type", "32\n");
	put(dir, "ib0/operstate", "down\n");
	put(dir, "eth2/type", "1\n");          /* the Ethernet port of a VPI card */
	put(dir, "eth2/operstate", "up\n");
	assert_int_equal(dev_ipoib_check(root, "mlx4_0", err, sizeof(err)), -1);
	assert_err_has(err, "(ib0 down)");
	put(dir, "ib0/operstate", "up\n");
	assert_int_equal(dev_ipoib_check(root, "mlx4_0", err, sizeof(err)), 0);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	assert_int_equal(system(cmd), 0);
}

/* Which source this build reads GIDs from: the build switch decides. */
static void build_switch_picks_the_gid_source(void **state)
{
	(void)state;
#if RB_HAVE_QUERY_GID_EX
	assert_string_equal(dev_gid_source(), "ibv_query_gid_ex");
#else
	assert_string_equal(dev_gid_source(), "ibv_query_gid + sysfs gid_attrs");
#endif
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(v2_ipv4_first_and_a_tie_is_counted),
		cmocka_unit_test(global_before_link_local_and_v2_before_v1),
		cmocka_unit_test(ip_text_becomes_a_gid),
		cmocka_unit_test(sysfs_gid_attrs_give_type_and_netdev),
		cmocka_unit_test(ipoib_up_is_needed_for_rdma_cm_on_ib),
		cmocka_unit_test(build_switch_picks_the_gid_source),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
