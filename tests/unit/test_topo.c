/*
 * test_topo.c - the workers' CPUs and the buffers' pages (topo.h) on a
 * fake sysfs tree: kernel CPU lists parsed and refused, SMT siblings put
 * after every core's first thread, the device's local_cpulist before its
 * NUMA node's CPUs before every allowed CPU (the cpu_source column says
 * which), --numa and --cpus overriding, a --cpus CPU outside the
 * affinity mask refused, and --hugepages' mapping naming what it got.
 */
#include "unit.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "topo.h"

/* ROOT/rel with text (its folders made). */
static void put(const char *root, const char *rel, const char *text)
{
	char path[512], cmd[600];

	snprintf(path, sizeof(path), "%s/%s", root, rel);
	snprintf(cmd, sizeof(cmd), "mkdir -p \"$(dirname '%s')\"", path);
	assert_int_equal(system(cmd), 0);
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

/* A host of 8 CPUs, 4 cores of 2 SMT threads (0-1, 2-3, 4-5, 6-7), nodes
 * 0 (CPUs 0-3) and 1 (4-7); device mlx5_0 on node 1 with local_cpulist
 * 4-7 unless told otherwise (local NULL: no such file; node NULL: no
 * numa_node file). */
static char *fake_host(const char *local, const char *node)
{
	static char root[64];
	char rel[128], sib[16];

	snprintf(root, sizeof(root), "/tmp/rb_topo_XXXXXX");
	assert_non_null(mkdtemp(root));
	for (int c = 0; c < 8; c++) {
		snprintf(rel, sizeof(rel), "devices/system/cpu/cpu%d/topology/thread_siblings_list", c);
		snprintf(sib, sizeof(sib), "%d-%d\n", c & ~1, (c & ~1) + 1);
		put(root, rel, sib);
	}
	put(root, "devices/system/cpu/online", "0-7\n");
	put(root, "devices/system/node/node0/cpulist", "0-3\n");
	put(root, "devices/system/node/node1/cpulist", "4-7\n");
	if (local)
		put(root, "class/infiniband/mlx5_0/device/local_cpulist", local);
	if (node)
		put(root, "class/infiniband/mlx5_0/device/numa_node", node);
	return root;
}

static void rm_tree(const char *root)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	assert_int_equal(system(cmd), 0);
}

static void assert_cpus(const struct rb_place *p, const int *want, int n)
{
	char got[256];

	topo_cpus_text(p, got, sizeof(got));
	assert_int_equal(p->ncpus, n);
	for (int i = 0; i < n; i++)
		if (p->cpus[i] != want[i])
			fail_msg("CPU %d: got %d, want %d (list %s)", i, p->cpus[i], want[i], got);
}

static void cpulists_parse_and_bad_ones_are_named(void **state)
{
	(void)state;
	int out[16], n = -1;
	char err[256];

	assert_int_equal(topo_parse_cpulist("0-3,8,10-11\n", "f", out, 16, &n, err, sizeof(err)), 0);
	const int want[] = { 0, 1, 2, 3, 8, 10, 11 };
	assert_int_equal(n, 7);
	assert_memory_equal(out, want, sizeof(want));
	assert_int_equal(topo_parse_cpulist("5", "f", out, 16, &n, err, sizeof(err)), 0);
	assert_int_equal(n, 1);
	assert_int_equal(out[0], 5);
	assert_int_equal(topo_parse_cpulist("", "f", out, 16, &n, err, sizeof(err)), 0);
	assert_int_equal(n, 0);
	assert_int_equal(topo_parse_cpulist("3-1", "node1/cpulist", out, 16, &n, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "node1/cpulist: '3-1' is not a CPU list"));
	assert_int_equal(topo_parse_cpulist("0,x", "f", out, 16, &n, err, sizeof(err)), -1);
	assert_int_equal(topo_parse_cpulist("0-20", "f", out, 16, &n, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "more than 16 CPUs"));
}

static void smt_siblings_go_last(void **state)
{
	(void)state;
	char *root = fake_host("4-7\n", "1\n");
	int cpus[] = { 0, 1, 2, 3, 4, 5, 6, 7, 9 };  /* 9: no topology file, a first thread */

	topo_smt_order(root, cpus, 9);
	const int want[] = { 0, 2, 4, 6, 9, 1, 3, 5, 7 };
	assert_memory_equal(cpus, want, sizeof(want));
	rm_tree(root);
}

static void auto_takes_local_cpulist_then_node_then_online(void **state)
{
	(void)state;
	struct rb_place p;
	char err[256];
	const int all[] = { 0, 1, 2, 3, 4, 5, 6, 7 };

	char *root = fake_host("4-7\n", "1\n");
	assert_int_equal(topo_place(root, "mlx5_0", RB_PIN_AUTO, NULL, 0, -1, all, 8, &p, err,
				    sizeof(err)), 0);
	assert_string_equal(p.source, "local_cpulist");
	assert_int_equal(p.node, 1);
	assert_cpus(&p, (const int[]){ 4, 6, 5, 7 }, 4);
	rm_tree(root);

	root = fake_host(NULL, "0\n");  /* no local_cpulist: the node's CPUs */
	assert_int_equal(topo_place(root, "mlx5_0", RB_PIN_AUTO, NULL, 0, -1, all, 8, &p, err,
				    sizeof(err)), 0);
	assert_string_equal(p.source, "numa_node");
	assert_int_equal(p.node, 0);
	assert_cpus(&p, (const int[]){ 0, 2, 1, 3 }, 4);
	rm_tree(root);

	root = fake_host(NULL, "-1\n"); /* single-node host, or soft-RoCE: every allowed CPU */
	assert_int_equal(topo_place(root, "rxe0", RB_PIN_AUTO, NULL, 0, -1, all, 6, &p, err,
				    sizeof(err)), 0);
	assert_string_equal(p.source, "online");
	assert_int_equal(p.node, -1);
	assert_cpus(&p, (const int[]){ 0, 2, 4, 1, 3, 5 }, 6);
	rm_tree(root);
}

static void only_allowed_cpus_are_taken(void **state)
{
	(void)state;
	struct rb_place p;
	char err[256];
	char *root = fake_host("4-7\n", "1\n");

	/* taskset 5,7: the local list keeps those */
	assert_int_equal(topo_place(root, "mlx5_0", RB_PIN_AUTO, NULL, 0, -1, (const int[]){ 5, 7 }, 2,
				    &p, err, sizeof(err)), 0);
	assert_string_equal(p.source, "local_cpulist");
	assert_cpus(&p, (const int[]){ 5, 7 }, 2);
	/* taskset 0,1 (the other node): neither list has one, every allowed CPU */
	assert_int_equal(topo_place(root, "mlx5_0", RB_PIN_AUTO, NULL, 0, -1, (const int[]){ 0, 1 }, 2,
				    &p, err, sizeof(err)), 0);
	assert_string_equal(p.source, "online");
	assert_cpus(&p, (const int[]){ 0, 1 }, 2);
	rm_tree(root);
}

static void numa_and_cpus_override(void **state)
{
	(void)state;
	struct rb_place p;
	char err[256];
	char *root = fake_host("4-7\n", "1\n");

	assert_int_equal(topo_place(root, "mlx5_0", RB_PIN_AUTO, NULL, 0, 0, NULL, 0, &p, err,
				    sizeof(err)), 0);
	assert_string_equal(p.source, "numa");
	assert_int_equal(p.node, 0);
	assert_cpus(&p, (const int[]){ 0, 2, 1, 3 }, 4);
	assert_int_equal(topo_place(root, "mlx5_0", RB_PIN_AUTO, NULL, 0, 5, NULL, 0, &p, err,
				    sizeof(err)), -1);
	assert_non_null(strstr(err, "--numa 5: no such NUMA node"));
	assert_int_equal(topo_place(root, "mlx5_0", RB_PIN_AUTO, NULL, 0, 1, (const int[]){ 0 }, 1, &p,
				    err, sizeof(err)), -1);
	assert_non_null(strstr(err, "--numa 1: none of the node's CPUs is allowed"));
	/* --cpus LIST: as given, in its order, SMT siblings included */
	assert_int_equal(topo_place(root, "mlx5_0", RB_PIN_LIST, (const int[]){ 3, 1 }, 2, -1, NULL, 0,
				    &p, err, sizeof(err)), 0);
	assert_string_equal(p.source, "cpus");
	assert_int_equal(p.node, 1);   /* the device's, for the row */
	assert_cpus(&p, (const int[]){ 3, 1 }, 2);
	assert_int_equal(topo_place(root, "mlx5_0", RB_PIN_SPREAD, NULL, 0, -1, NULL, 0, &p, err,
				    sizeof(err)), 0);
	assert_string_equal(p.source, "spread");
	assert_cpus(&p, (const int[]){ 0, 1, 2, 3, 4, 5, 6, 7 }, 8);
	assert_int_equal(topo_place(root, "mlx5_0", RB_PIN_NONE, NULL, 0, -1, NULL, 0, &p, err,
				    sizeof(err)), 0);
	assert_string_equal(p.source, "none");
	assert_int_equal(p.ncpus, 0);
	rm_tree(root);
}

static void buffers_name_their_pages(void **state)
{
	(void)state;
	struct rb_buf b;
	long pg = sysconf(_SC_PAGESIZE);

	assert_int_equal(topo_buf_map(&b, 10000, false), 0);
	assert_string_equal(b.source, "base");
	assert_int_equal(b.page_size, (size_t)pg);
	assert_true(b.len >= 10000 && b.len % (size_t)pg == 0);
	assert_int_equal(b.p[0] | b.p[9999], 0);
	assert_string_equal(b.why, "");
	topo_buf_unmap(&b);
	assert_null(b.p);

	/* --hugepages: what this host gives, named; 2 MiB pages only for
	 * hugetlb and THP, a reason whenever hugetlb failed */
	assert_int_equal(topo_buf_map(&b, 3u << 20, true), 0);
	assert_int_equal(b.len % RB_HUGE_PAGE, 0);
	assert_true(b.len >= 3u << 20);
	assert_int_equal((uintptr_t)b.p % RB_HUGE_PAGE, 0);
	if (strcmp(b.source, "hugetlb") == 0) {
		assert_int_equal(b.page_size, RB_HUGE_PAGE);
		assert_string_equal(b.why, "");
	} else {
		assert_non_null(strstr(b.why, "MAP_HUGETLB: "));
		if (strcmp(b.source, "thp") == 0)
			assert_int_equal(b.page_size, RB_HUGE_PAGE);
		else
			assert_string_equal(b.source, "base-fallback");
	}
	b.p[b.len - 1] = 1;
	topo_buf_unmap(&b);
}

/* --cpus LIST against the affinity mask (topo_check_cpus): the CPUs this
 * process may use pass, one beyond the mask is refused by its number with
 * the allowed list; an empty list passes. */
static void cpus_outside_the_mask_are_refused_by_number(void **state)
{
	(void)state;
	int allowed[RB_MAX_CPUS], n = topo_allowed(allowed, RB_MAX_CPUS);
	char err[512] = "", want[64];

	assert_true(n > 0);
	assert_int_equal(topo_check_cpus(allowed, n, err, sizeof(err)), 0);
	assert_int_equal(topo_check_cpus(NULL, 0, err, sizeof(err)), 0);
	int list[2] = { allowed[0], CPU_SETSIZE + 3 };
	assert_int_equal(topo_check_cpus(list, 2, err, sizeof(err)), -1);
	snprintf(want, sizeof(want), "--cpus: CPU %d is not available", CPU_SETSIZE + 3);
	assert_err_has(err, want);
	snprintf(want, sizeof(want), "(allowed: %d", allowed[0]);
	assert_err_has(err, want);
	assert_err_has(err, "--cpus spread");
}

/* A run's processes on one host start at entry k * T of the list, and the
 * server's workers of a session take the same entries from the list's end:
 * a client and its server on one host spin on different CPUs (topo.h). */
static void workers_of_a_run_and_its_server_take_other_cpus(void **state)
{
	(void)state;
	const struct rb_place p = { .cpus = { 8, 9, 10, 11 }, .ncpus = 4, .node = 0 };
	const struct rb_place none = { .ncpus = 0 };

	assert_int_equal(topo_worker_cpu(&p, 0, false, 0), 8);
	assert_int_equal(topo_worker_cpu(&p, 0, false, 5), 9);      /* wraps */
	assert_int_equal(topo_worker_cpu(&p, 2, false, 1), 11);     /* process 1 of 2 threads */
	assert_int_equal(topo_worker_cpu(&p, 2, false, 2), 8);
	assert_int_equal(topo_worker_cpu(&p, 0, true, 0), 11);      /* its server */
	assert_int_equal(topo_worker_cpu(&p, 2, true, 1), 8);
	assert_int_equal(topo_worker_cpu(&p, UINT64_MAX, false, 1), 8); /* 2^64-1 = 3 mod 4 */
	for (unsigned k = 0; k < 2; k++)     /* one thread each, 2 processes: 4 CPUs apart */
		assert_int_not_equal(topo_worker_cpu(&p, k, false, 0), topo_worker_cpu(&p, k, true, 0));
	char text[64];
	topo_workers_text(&p, 2, true, 3, text, sizeof(text));   /* entries 1, 0, 3 */
	assert_string_equal(text, "9 8 11");
	topo_workers_text(&none, 0, false, 3, text, sizeof(text));
	assert_string_equal(text, "");
	assert_int_equal(topo_worker_cpu(&none, 3, true, 1), -1);
	assert_int_equal(topo_worker_cpu(NULL, 0, false, 0), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(cpulists_parse_and_bad_ones_are_named),
		cmocka_unit_test(smt_siblings_go_last),
		cmocka_unit_test(auto_takes_local_cpulist_then_node_then_online),
		cmocka_unit_test(only_allowed_cpus_are_taken),
		cmocka_unit_test(numa_and_cpus_override),
		cmocka_unit_test(buffers_name_their_pages),
		cmocka_unit_test(cpus_outside_the_mask_are_refused_by_number),
		cmocka_unit_test(workers_of_a_run_and_its_server_take_other_cpus),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
