# shellcheck shell=bash
# What the null-device bats files share (load nulldev): the project root,
# tests/nulldev/run-pair (a server and a client on this host under
# LD_PRELOAD=build/libnulldev.so), and a setup that needs both built.

ROOT=$(cd "$BATS_TEST_DIRNAME/../.." && pwd)
# shellcheck disable=SC2034  # read by the test files that load this
PAIR=$ROOT/tests/nulldev/run-pair

# nulldev_setup: refuses (names make) when rdma_bench or the null device
# is not built; CSV: this test's rows file
nulldev_setup() {
  [ -x "$ROOT/rdma_bench" ] && [ -f "$ROOT/build/libnulldev.so" ] ||
    { echo "build first: make"; return 1; }
  # shellcheck disable=SC2034  # read by the test files that load this
  CSV=$BATS_TEST_TMPDIR/rows.csv
}
