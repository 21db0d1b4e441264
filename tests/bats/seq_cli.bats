#!/usr/bin/env bats
# rdma_seq's command line: what it refuses before it opens the device, so
# that a wrong word costs no measurement. No RDMA device is needed: every
# case here must be refused first (exit 2, a message naming the value).
# SEQ_BIN (default ./rdma_seq) lets the same cases run against another build.

ROOT=$(cd "$BATS_TEST_DIRNAME/../.." && pwd)
SEQ=${SEQ_BIN:-$ROOT/rdma_seq}

setup() {
  [ -x "$SEQ" ] || { echo "build rdma_seq first (make)"; return 1; }
}

# refused ARGS... : exit 2, no device was opened (no ibv_ message), and the
# message is in $output for the caller's grep
refused() {
  run "$SEQ" "$@"
  echo "$output"
  [ "$status" = 2 ]
  ! grep -q "ibv_\|device" <<< "$output" || false
}

@test "--csv in a missing directory is refused before the point, naming the path" {
  refused -c localhost --variant atomics --csv /nonexistent/dir/x.csv
  grep -qF -- "--csv /nonexistent/dir/x.csv: cannot open for writing" <<< "$output"
  refused -c localhost --variant atomics --json /nonexistent/dir/x.json
  grep -qF -- "--json /nonexistent/dir/x.json: cannot open for writing" <<< "$output"
}

@test "-s refuses client-only options and names each" {
  refused -s -w 4
  grep -qF -- "-s takes no client options, and --window was given" <<< "$output"
  refused -s --batch off -w 2 --variant atomics
  grep -qF -- "--batch --window --variant were given" <<< "$output"
}

@test "-c without --variant is refused (no silent default)" {
  refused -c localhost
  grep -qF -- "-c needs --variant atomics, herd-rpc, spec-s0, herd-kv or drtm-kv" <<< "$output"
  run "$SEQ" --help
  grep -qF -- "--variant is required" <<< "$output"
}

@test "atomics refuses the RPC knobs it does not use, naming variant and knob" {
  refused -c localhost --variant atomics --batch off
  grep -qF -- "--batch off with --variant atomics" <<< "$output"
  refused -c localhost --variant atomics --ud-qps 3
  grep -qF -- "--ud-qps 3 with --variant atomics" <<< "$output"
  refused -c localhost --variant spec-s0 --kv get=0.5
  grep -qF -- "--kv with --variant spec-s0" <<< "$output"
}

@test "-D states its real range and echoes the value given" {
  for v in -1 0 0.0000001 86401; do
    refused -c localhost --variant atomics -D "$v"
    grep -qF -- "-D $v: expected seconds 0.001..86400" <<< "$output"
  done
  refused -c localhost --variant atomics --warmup -1
  grep -qF -- "--warmup -1: expected seconds 0..86400" <<< "$output"
}

@test "-s --bind to a bad address is refused before the device, naming it" {
  refused -s --bind 999.1.1.1
  grep -qF -- "--bind 999.1.1.1: not an address" <<< "$output"
  if [ -x "$ROOT/rdma_bench" ] && [ -z "${SEQ_BIN:-}" ]; then
    run "$ROOT/rdma_bench" -s --bind 999.1.1.1
    echo "$output"
    [ "$status" = 2 ]
    grep -qF -- "--bind 999.1.1.1: not an address" <<< "$output"
    ! grep -q "ibv_" <<< "$output" || false
  fi
}
