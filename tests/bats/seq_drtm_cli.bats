#!/usr/bin/env bats
# rdma_seq --variant drtm-kv's command line: bad knobs are refused before
# the device is opened (exit 2, a message naming the value, the limit and
# the fix), so no RDMA device is needed. SEQ_BIN (default ./rdma_seq) lets
# the same cases run against another build.

ROOT=$(cd "$BATS_TEST_DIRNAME/../.." && pwd)
SEQ=${SEQ_BIN:-$ROOT/rdma_seq}

setup() {
  [ -x "$SEQ" ] || { echo "build rdma_seq first (make)"; return 1; }
}

# refused ARGS... : exit 2, no device was opened (no ibv_ message)
refused() {
  run "$SEQ" -c localhost "$@"
  echo "$output"
  [ "$status" = 2 ]
  ! grep -q "ibv_\|device" <<< "$output" || false
}

@test "a PUT fraction outside 0..1 is refused, naming the value and the range" {
  refused --variant drtm-kv --drtm put=1.2
  grep -qF -- "--drtm put=1.2 is outside 0..1: give the share of PUTs, e.g. 0.1" <<< "$output"
  refused --variant drtm-kv --drtm put=-0.5
  grep -qF -- "--drtm put=-0.5 is outside 0..1" <<< "$output"
  refused --variant drtm-kv --drtm put=half
  grep -qF -- "--drtm put='half' is not a number" <<< "$output"
  # the sweeps' one-word form (experiments/figure-10)
  refused --variant drtm-kv --put-fraction 1.01
  grep -qF -- "--put-fraction 1.01 is outside 0..1: give the share of PUTs" <<< "$output"
}

@test "items=0 and too many items are refused with the fix" {
  refused --variant drtm-kv --drtm items=0
  grep -qF -- "--drtm items=0: the store needs at least 1 item; use items=1..33554432 (the paper's hardware setting: 16777216)" <<< "$output"
  refused --variant drtm-kv --drtm items=33554433
  grep -qF -- "--drtm items=33554433 is above 33554432" <<< "$output"
}

@test "--drtm belongs to drtm-kv, which has no server threads" {
  refused --variant atomics --drtm put=0.5
  grep -qF -- "--drtm/--put-fraction with --variant atomics: only drtm-kv uses them" <<< "$output"
  refused --variant herd-kv --put-fraction 0.5
  grep -qF -- "--drtm/--put-fraction with --variant herd-kv: only drtm-kv uses them" <<< "$output"
  refused --variant drtm-kv --server-threads 1
  grep -qF -- "--server-threads 1 with --variant drtm-kv: it uses no server CPU" <<< "$output"
  refused --variant drtm-kv --drtm dist=pareto
  grep -qF -- "--drtm dist=pareto: use uniform or zipf" <<< "$output"
  refused --variant drtm-kv --drtm put-write
  grep -qF -- "--drtm put-write: give NAME=VALUE (put, items, dist, theta), put-writes or validate" <<< "$output"
}

@test "--help names drtm-kv and its knobs" {
  run "$SEQ" --help
  [ "$status" = 0 ]
  grep -qF -- "--drtm LIST" <<< "$output"
  grep -qF -- "put-writes (WRITE the value between the atomics)" <<< "$output"
}
