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

@test "a fatal error reads 'PROG: error: ...' in both programs, from the parser and after it (no ERROR line)" {
  [ -z "${SEQ_BIN:-}" ] || skip "SEQ_BIN names another sequencer binary: rdma_bench is checked with the tree's own build"
  refused -c localhost --variant nope
  [[ $output == "rdma_seq: error: --variant 'nope': unknown"* ]]
  refused -c localhost --variant atomics --csv /nonexistent/dir/x.csv
  [[ $output == "rdma_seq: error: --csv /nonexistent/dir/x.csv: "* ]]
  run "$ROOT/rdma_bench" -c localhost --csv /nonexistent/dir/x.csv
  [ "$status" = 2 ] && [[ $output == "rdma_bench: error: --csv /nonexistent/dir/x.csv: "* ]] || { echo "$output"; false; }
  run "$ROOT/rdma_bench" -s --token-file /nonexistent/token
  [ "$status" = 2 ] && [[ $output == "rdma_bench: error: --token-file /nonexistent/token: "* ]] || { echo "$output"; false; }
  ! grep -q '^ERROR' <<< "$output" || false
}

@test "--csv and --json naming one file are refused before the point, the CSV kept" {
  d=$BATS_TEST_TMPDIR
  printf 'a,b\n1,2\n' > "$d/rows.csv"
  cp "$d/rows.csv" "$d/before"
  refused -c localhost --variant atomics --csv "$d/rows.csv" --json "$d/rows.csv"
  grep -qF -- "are the same file" <<< "$output"
  ln "$d/rows.csv" "$d/link.json"
  refused -c localhost --variant atomics --csv "$d/rows.csv" --json "$d/link.json"
  grep -qF -- "are the same file" <<< "$output"
  cmp "$d/rows.csv" "$d/before"
}

@test "-s refuses client-only options with rdma_bench's words, naming the option" {
  refused -s -w 4
  grep -qF -- "--window given to the server: test options belong to the client (-c)" <<< "$output"
  refused -s --batch off -w 2 --variant atomics
  grep -qF -- "--batch given to the server" <<< "$output"
}

@test "rdma_bench -s refuses the same client option with the same words" {
  [ -x "$ROOT/rdma_bench" ] || { echo "rdma_bench is not built: make"; false; }
  run "$ROOT/rdma_bench" -s -w 4
  [ "$status" -eq 2 ]
  grep -qF -- "--window given to the server: test options belong to the client (-c)" <<< "$output"
}

@test "--help: the server synopsis names every option of the Server section (--allow, --max-mem), by its short letter or long name" {
  run "$SEQ" --help
  [ "$status" = 0 ]
  local syn sec opt short long n=0
  syn=$(sed -n '1,/^$/p' <<< "$output" | grep -e '-s \[' -A 1)
  sec=$(awk '/^Server:/ { f = 1; next } /^[A-Z]/ { f = 0 } f' <<< "$output")
  while read -r opt; do
    short=${opt%%,*} long=${opt##* }
    [ "$short" != "$opt" ] || short=$long
    grep -qE -- "(^| |\[)($short|$long)( |\]|$)" <<< "$syn" || { echo "$long not in: $syn"; false; }
    n=$((n + 1))
  done < <(grep -oE '^  (-[a-zA-Z], |    )--[a-z-]+' <<< "$sec" | sed 's/^ *//')
  [ "$n" -ge 6 ] || { echo "$n options in the Server section: $sec"; false; }
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

@test "-D states its real range and echoes the value given (the shared seconds parser)" {
  for v in -1 0 0.0000001 86401; do
    refused -c localhost --variant atomics -D "$v"
    grep -qF -- "-D/--duration" <<< "$output"
    grep -qF -- "$v" <<< "$output"
    grep -qE -- "0\.001(\.\.86400\.000)?" <<< "$output"
  done
  refused -c localhost --variant atomics --warmup -1
  grep -qF -- "--warmup '-1': negative" <<< "$output"
}

@test "-s --bind to a bad address is refused before the device, naming it" {
  refused -s --bind 999.1.1.1
  grep -qF -- "--bind 999.1.1.1: not an address" <<< "$output"
}

@test "rdma_bench -s --bind to a bad address is refused the same way, before the device" {
  [ -z "${SEQ_BIN:-}" ] || skip "SEQ_BIN names another sequencer binary: rdma_bench is checked with the tree's own build"
  [ -x "$ROOT/rdma_bench" ] || { echo "build rdma_bench first (make)"; false; }
  run "$ROOT/rdma_bench" -s --bind 999.1.1.1
  echo "$output"
  [ "$status" = 2 ]
  grep -qF -- "--bind 999.1.1.1: not an address" <<< "$output"
  ! grep -q "ibv_" <<< "$output" || false
}

@test "herd-kv's bad knobs are refused before the device, naming the value, the limit and the fix" {
  refused -c localhost --variant herd-kv --kv value=65
  grep -qF -- "--kv value=65 is outside 1..64: a request slot (128 B) carries at most 64 value bytes" <<< "$output"
  grep -qF -- "give 64 or less" <<< "$output"
  for g in 1.2 -0.1; do
    refused -c localhost --variant herd-kv --kv get=$g
    grep -qF -- "--kv get=$g is outside 0..1: give the share of GETs" <<< "$output"
  done
  refused -c localhost --variant herd-kv --kv get=lots
  grep -qF -- "--kv get='lots' is not a number" <<< "$output"
  refused -c localhost --variant herd-kv --kv keys=0
  grep -qF -- "--kv keys=0: the keyspace needs at least 1 key" <<< "$output"
  refused -c localhost --variant herd-kv --kv value=8,validate
  grep -qF -- "--kv validate with value=8" <<< "$output"
  # more server threads than the limit is refused by the client; more than
  # the server's CPUs by the server (test_seq, smoke seq.refuse-server-threads)
  refused -c localhost --variant herd-kv --server-threads 65
  grep -qF -- "--server-threads: 65 is above the maximum 64" <<< "$output"
}

@test "--values-cap: 2^28 accepted, one more refused naming the maximum" {
  run "$SEQ" -c localhost --variant atomics --values-cap 268435456 --dry-run
  [ "$status" = 0 ]
  grep -q "options accepted: atomics" <<< "$output"
  refused -c localhost --variant atomics --values-cap 268435457
  grep -qF -- "--values-cap: 268435457 is above the maximum 268435456" <<< "$output"
}
