#!/usr/bin/env bats
# The runner's fake rdma_bench (tests/bats/fixtures/exp/fake_rdma_bench,
# fixtures/search/fake_cliff_rdma_bench) and the golden raw.csv write rows
# whose columns must be the real binary's: each column of their headers is
# one rdma_bench writes (a string of bench/rdma_bench/*.c or
# bench/lib/env.c, or a knob's CSV column of experiments/lib/knobs.tsv)
# and one docs/csv.md documents, so a renamed or dropped column of the real
# rows fails here instead of passing against a fake that still has it.
# (The real header needs a device: rdma_bench writes no row without one.)

ROOT=$(cd "$BATS_TEST_DIRNAME/../.." && pwd)

# real_columns: the columns the real binary can write, one per line
real_columns() {
  cat "$ROOT"/bench/rdma_bench/*.c "$ROOT/bench/lib/env.c" | grep -oE '"[a-z][a-z0-9_]*"' | tr -d '"'
  cut -f7 "$ROOT/experiments/lib/knobs.tsv" | grep -vx -- -
}

# documented: csv.md's first table cells (before the rdma_seq section),
# "a, b" split; a range "A ... B" gives A and B and a pattern line for the
# columns between (A's prefix up to its first _, B's last _ suffix)
documented() {
  awk -F'|' '/^## rdma_seq rows/ { exit } /^\| [a-z]/ {
    c = $2; gsub(/^ +| +$/, "", c)
    if (c ~ /\.\.\./) { split(c, r, / *\.\.\. */); print r[1]; print r[2]
      p = r[1]; sub(/_.*/, "_", p); s = r[2]; sub(/.*_/, "_", s); print "~" p "[a-z0-9]+" s; next }
    gsub(/ /, "", c); n = split(c, a, ","); for (i = 1; i <= n; i++) print a[i] }' "$ROOT/docs/csv.md"
}

# check_header NAME COLUMNS...: prints the columns that are not real or
# not documented
check_header() {
  local name=$1 col
  shift
  real_columns | sort -u > "$BATS_TEST_TMPDIR/real"
  documented > "$BATS_TEST_TMPDIR/doc"
  for col in "$@"; do
    case $col in exp_*) continue ;; esac   # the runner's own columns (experiments/run)
    grep -qxF "$col" "$BATS_TEST_TMPDIR/real" || echo "$name: $col is not a column rdma_bench writes"
    if ! grep -qxF "$col" "$BATS_TEST_TMPDIR/doc"; then
      awk -v c="$col" 'substr($0, 1, 1) == "~" && c ~ ("^" substr($0, 2) "$") { f = 1 } END { exit !f }' \
        "$BATS_TEST_TMPDIR/doc" || echo "$name: $col is not documented in docs/csv.md"
    fi
  done
}

fake_header() { grep -oE 'schema_version[a-z0-9_,]*' "$1" | head -n 1 | tr ',' ' '; }

@test "the fake rdma_bench's header names only columns the real binary writes and docs/csv.md documents" {
  local cols
  cols=$(fake_header "$ROOT/tests/bats/fixtures/exp/fake_rdma_bench")
  [ "$(wc -w <<< "$cols")" -ge 30 ]
  # shellcheck disable=SC2086  # one word per column
  run check_header fake_rdma_bench $cols
  [ "$status" -eq 0 ]
  [ -z "$output" ] || { echo "$output"; false; }
}

@test "the search fake's header and the golden raw.csv's header name only real, documented columns" {
  local cols
  cols=$(fake_header "$ROOT/tests/bats/fixtures/search/fake_cliff_rdma_bench")
  [ "$(wc -w <<< "$cols")" -ge 10 ]
  # shellcheck disable=SC2086
  run check_header fake_cliff_rdma_bench $cols
  [ "$status" -eq 0 ]
  [ -z "$output" ] || { echo "$output"; false; }
  cols=$(head -n 1 "$ROOT/tests/bats/fixtures/exp/golden-raw.csv" | tr ',' ' ')
  # shellcheck disable=SC2086
  run check_header golden-raw.csv $cols
  [ "$status" -eq 0 ]
  [ -z "$output" ] || { echo "$output"; false; }
}

@test "planted: a column renamed in the fake, or one the binary does not write, is named" {
  run check_header planted schema_version lat_p50_us median_lat_us mops_total device
  [ "$status" -eq 0 ]
  [ "${lines[0]}" = "planted: median_lat_us is not a column rdma_bench writes" ] || { echo "$output"; false; }
  [ "${lines[1]}" = "planted: median_lat_us is not documented in docs/csv.md" ]
  [ "${lines[2]}" = "planted: mops_total is not a column rdma_bench writes" ]
  [ "${#lines[@]}" -eq 4 ]
}
