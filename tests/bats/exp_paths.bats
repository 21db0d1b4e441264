#!/usr/bin/env bats
# Paths with spaces and shell metacharacters (project checkout, results,
# hosts file, --bin, --out) work with GNU parallel; a path that cannot work
# (a backslash, a control character) is refused up front by name.

load fixtures/exp/helpers

setup() {
  command -v parallel > /dev/null || skip "GNU parallel is not installed (these tests are about the parallel path)"
  unset RB_NO_PARALLEL
}

# copy_tree DIR: the parts of the project a sweep of the tiny experiment needs
copy_tree() {
  mkdir -p "$1/tests/bats/fixtures"
  cp -r "$ROOT/experiments" "$ROOT/figures" "$ROOT/env" "$1/"
  cp -r "$FIX" "$1/tests/bats/fixtures/exp"
  rm -rf "$1/results" "$1/figures/out"
}

# tiny_ok RUN_DIR: both QUICK points ok with the fake's 1.5 + 2.5 Mops
tiny_ok() {
  [ "$(csv_col "$1/summary.csv" status | sort -u)" = ok ]
  [ "$(csv_col "$1/summary.csv" mops_median | sort -u)" = 4 ]
  [ "$(awk -F'\t' 'NR > 1 && $7 == 0' "$1/joblog" | wc -l)" -eq 2 ]
}

@test "a checkout under 'sp ace/rb' runs the tiny experiment with GNU parallel (relative paths, as in a shell there)" {
  local c="$BATS_TEST_TMPDIR/sp ace/rb"
  copy_tree "$c"
  cd "$c"
  run experiments/run tests/bats/fixtures/exp/tiny --quick --bin tests/bats/fixtures/exp/fake_rdma_bench --no-plot --run-id s1
  [ "$status" -eq 0 ] || { echo "$output"; false; }
  [[ $output != *"GNU parallel is not installed"* ]]
  tiny_ok "$c/results/tiny/s1"
}

@test "\$ ; ' \" { } and spaces in the project, --out, --hosts and --bin paths; figures/plot --out too" {
  local p="$BATS_TEST_TMPDIR/a\$b;c d'e\"f{1}{#}/rb"
  copy_tree "$p"
  local hosts="$BATS_TEST_TMPDIR/ho sts;\$x" out="$BATS_TEST_TMPDIR/re sults;\$(x)'"
  printf 'localhost - - - -\n' > "$hosts"
  run "$p/experiments/run" "$p/tests/bats/fixtures/exp/tiny" --quick --bin "$p/tests/bats/fixtures/exp/fake_rdma_bench" \
    --hosts "$hosts" --out "$out" --no-plot --run-id m1
  [ "$status" -eq 0 ] || { echo "$output"; false; }
  tiny_ok "$out/tiny/m1"
  # the dry run shows the same jobs
  run "$p/experiments/run" "$p/tests/bats/fixtures/exp/tiny" --quick --out "$out" --dry-run
  [ "$status" -eq 0 ]
  [[ $output == *"/point' 2 1 'write:uc' 32 2 1"* ]] || { echo "$output"; false; }
  command -v gnuplot > /dev/null || return 0
  run "$p/figures/plot" figure-12 "$FIX/summary-figure-12.csv" --out "$BATS_TEST_TMPDIR/fig ;\$x'q"
  [ "$status" -eq 0 ] || { echo "$output"; false; }
  [ -s "$BATS_TEST_TMPDIR/fig ;\$x'q/figure-12.png" ]
}

@test "a backslash or a newline in a path is refused by name before anything is written" {
  run "$ROOT/experiments/run" "$FIX/tiny" --quick --out "$BATS_TEST_TMPDIR/back\\slash" --bin "$FIX/fake_rdma_bench" --no-plot
  [ "$status" -eq 2 ]
  [[ $output == *"--out "*"back"*"slash: a path with a backslash or a control character"* ]] || { echo "$output"; false; }
  [ ! -e "$BATS_TEST_TMPDIR/back\\slash" ]
  run "$ROOT/experiments/run" "$FIX/tiny" --quick --out "$BATS_TEST_TMPDIR/results" --bin "$BATS_TEST_TMPDIR/new
line" --no-plot
  [ "$status" -eq 2 ]
  [[ $output == *"--bin (or RB_BIN) "*"a path with a backslash or a control character"* ]]
  [ ! -e "$BATS_TEST_TMPDIR/results/tiny" ]
}
