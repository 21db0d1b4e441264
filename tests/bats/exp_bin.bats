#!/usr/bin/env bats
# Experiment runner: [run] bin = NAME runs a program of the checkout other
# than rdma_bench (e.g. rdma_seq): it is the one deployed (under its own
# name) and started as server and clients; --bin and RB_BIN still win.
# The checkout is a copy of experiments/ with the fake binary beside it.

load fixtures/exp/helpers

setup() {
  CO=$BATS_TEST_TMPDIR/co
  mkdir -p "$CO"
  cp -r "$ROOT/experiments" "$CO/experiments"
  cp "$FIX/fake_rdma_bench" "$CO/fake_seq"
  mkdir -p "$CO/experiments/seqtiny"
  sed 's/^\[run\]$/[run]\nbin = fake_seq/' "$FIX/tiny/params" > "$CO/experiments/seqtiny/params"
  export FAKE_RB_LOG=$BATS_TEST_TMPDIR/calls
  unset RB_BIN
}

run_co() { run "$CO/experiments/run" seqtiny --quick --out "$BATS_TEST_TMPDIR/results" --no-plot "$@"; }

@test "bin = NAME: the checkout's NAME is deployed under its own name and runs both roles" {
  grep -qx 'bin = fake_seq' "$CO/experiments/seqtiny/params"
  export RB_SSH="$FIX/fake_ssh -o BatchMode=yes" FAKE_SSH_LOG=$BATS_TEST_TMPDIR/ssh.log
  printf '# address device gid numa user\nnode1 rxe0 1 - root\nnode2 rxe0 1 - root\n' > "$BATS_TEST_TMPDIR/hosts"
  run_co --hosts "$BATS_TEST_TMPDIR/hosts" --run-id bin1
  [ "$status" -eq 0 ] || { echo "$output"; false; }
  [[ $output == *"deploy: $CO/fake_seq -> "* ]] || { echo "$output"; false; }
  grep -q "^root@node1 cat > /tmp/rdma_bench\.[A-Za-z0-9]*/fake_seq " "$FAKE_SSH_LOG" || { cat "$FAKE_SSH_LOG"; false; }
  grep -q "^root@node1 echo RB_PID .*/fake_seq -s " "$FAKE_SSH_LOG" || { cat "$FAKE_SSH_LOG"; false; }
  grep -q "^root@node2 exec 2>&1; .*/fake_seq -c node1 " "$FAKE_SSH_LOG" || { cat "$FAKE_SSH_LOG"; false; }
  [ "$(grep -c '/rdma_bench -[sc] ' "$FAKE_SSH_LOG")" = 0 ]
  # the rows came back, all ok
  [ "$(csv_col "$BATS_TEST_TMPDIR/results/seqtiny/bin1/raw.csv" status | sort -u)" = ok ]
  grep -q '"binary": "'"$CO"'/fake_seq"' "$BATS_TEST_TMPDIR/results/seqtiny/bin1/manifest.json"
}

@test "bin = NAME on this machine: the checkout's NAME is started; --bin and RB_BIN win over it" {
  run_co --local --run-id bin2
  [ "$status" -eq 0 ] || { echo "$output"; false; }
  grep -q "^server " "$FAKE_RB_LOG"
  grep -q '"binary": "'"$CO"'/fake_seq"' "$BATS_TEST_TMPDIR/results/seqtiny/bin2/manifest.json"
  cp "$FIX/fake_rdma_bench" "$BATS_TEST_TMPDIR/other_bin"
  run_co --local --run-id bin3 --bin "$BATS_TEST_TMPDIR/other_bin"
  [ "$status" -eq 0 ] || { echo "$output"; false; }
  grep -q '"binary": "'"$BATS_TEST_TMPDIR"'/other_bin"' "$BATS_TEST_TMPDIR/results/seqtiny/bin3/manifest.json"
  RB_BIN=$BATS_TEST_TMPDIR/other_bin run_co --local --run-id bin4
  [ "$status" -eq 0 ] || { echo "$output"; false; }
  grep -q '"binary": "'"$BATS_TEST_TMPDIR"'/other_bin"' "$BATS_TEST_TMPDIR/results/seqtiny/bin4/manifest.json"
}

@test "bin = a path or a missing program is refused by name" {
  sed -i 's|^bin = fake_seq$|bin = ../fake_seq|' "$CO/experiments/seqtiny/params"
  run_co --local --run-id bad1
  [ "$status" -ne 0 ]
  [[ $output == *"bin: '../fake_seq' is not a plain word"* ]] || { echo "$output"; false; }
  # a plain word that names a folder, not a program
  sed -i 's|^bin = ../fake_seq$|bin = ..|' "$CO/experiments/seqtiny/params"
  run_co --local --run-id bad3
  [ "$status" -ne 0 ]
  [[ $output == *"[run] bin = ..: the name of a program in the checkout"* ]] || { echo "$output"; false; }
  sed -i 's|^bin = ..$|bin = no_such_seq|' "$CO/experiments/seqtiny/params"
  run_co --local --run-id bad2
  [ "$status" -ne 0 ]
  [[ $output == *"no binary at $CO/no_such_seq"* ]] || { echo "$output"; false; }
}

# the flags the runner gives a client for the knobs the sequencer's
# experiments sweep by name (window, threads, duration_s: from rdma_seq's
# own table, lib/knobs-rdma_seq.tsv, as [run] bin = rdma_seq selects),
# and its own words; rdma_seq must take each (a flag it did not know
# would be refused before --help is reached)
@test "rdma_seq takes every word the runner gives it, with the knob table's flags" {
  [ -x "$ROOT/rdma_seq" ] || make -s -C "$ROOT" all > /dev/null
  local k flag n=0
  # shellcheck source=/dev/null
  RB_LIB=$ROOT/experiments/lib
  . "$ROOT/experiments/lib/params.sh"
  RB_CONF[run.bin]=rdma_seq
  for k in window threads duration_s; do
    for e in figure-7 figure-8 table-3; do grep -qE "(^|:)$k( |:|=)" "$ROOT/experiments/$e/params" && n=$((n + 1)); done
    flag=$(rb_knob_flag "$k")
    [ -n "$flag" ]
    run "$ROOT/rdma_seq" -c 127.0.0.1 --variant spec-s0 "$flag" 1 --help
    [ "$status" -eq 0 ] || { echo "$k -> $flag: $output"; false; }
  done
  [ "$n" -ge 3 ]
  run "$ROOT/rdma_seq" -c 127.0.0.1 -p 18515 -d rxe0 -x 1 --rep-first 2 --run-id r-j1 --proc-index 0 --procs 1 --csv /dev/null --token-file /dev/null --help
  [ "$status" -eq 0 ] || { echo "$output"; false; }
  run "$ROOT/rdma_seq" -s -p 18515 -d rxe0 -x 1 --bind 127.0.0.1 --token-file /dev/null --help
  [ "$status" -eq 0 ] || { echo "$output"; false; }
  # and a word it does not know is refused by name
  run "$ROOT/rdma_seq" -c 127.0.0.1 --postlist 4 --help
  [ "$status" -eq 2 ]
  [[ $output == *"unknown option '--postlist'"* ]]
  # the map came from rdma_seq's table: its window is the sequencer's, 1..1024
  rb_knobs_load
  [ "${RB_KNOB_RANGE[window]}" = 1..1024 ]
}

@test "companion = DIR: run after the sweep with its own binary, on the same hosts and grid kind, into RUN/companion/DIR/ID" {
  cp "$FIX/fake_rdma_bench" "$CO/rdma_bench"
  sed -i 's/^bin = fake_seq$/bin = fake_seq\ncompanion = rb/' "$CO/experiments/seqtiny/params"
  mkdir -p "$CO/experiments/seqtiny/rb"
  cp "$FIX/tiny/params" "$CO/experiments/seqtiny/rb/params"
  run_co --local --run-id comp1
  [ "$status" -eq 0 ] || { echo "$output"; false; }
  local c=$BATS_TEST_TMPDIR/results/seqtiny/comp1/companion/rb
  [ "$(readlink "$c/latest-quick")" = comp1 ]
  [ "$(cat "$c/comp1/grid.kind")" = quick ]
  [ "$(csv_col "$c/comp1/summary.csv" status | sort -u)" = ok ]
  # its own binary (rdma_bench of the checkout), not the run's fake_seq
  grep -q '"binary": "'"$CO"'/rdma_bench"' "$c/comp1/manifest.json"
  grep -q '"binary": "'"$CO"'/fake_seq"' "$BATS_TEST_TMPDIR/results/seqtiny/comp1/manifest.json"
  # a companion that fails: a warning, the run's own result stands
  rm "$CO/rdma_bench"
  run_co --local --run-id comp2
  [ "$status" -eq 0 ] || { echo "$output"; false; }
  [[ $output == *"warning: companion rb ended with status 2"* ]] || { echo "$output"; false; }
  # a companion folder without params: refused before the sweep
  rm -r "$CO/experiments/seqtiny/rb"
  run_co --local --run-id comp3
  [ "$status" -eq 2 ]
  [[ $output == *"[run] companion = rb: no $CO/experiments/seqtiny/rb/params"* ]] || { echo "$output"; false; }
  [ ! -e "$BATS_TEST_TMPDIR/results/seqtiny/comp3/joblog" ]
}

@test "lib/knobs-rdma_seq.tsv is rdma_seq's --list-knobs (make keeps it)" {
  [ -x "$ROOT/rdma_seq" ] || make -s -C "$ROOT" all > /dev/null
  run bash -c "'$ROOT/rdma_seq' --list-knobs | diff - '$ROOT/experiments/lib/knobs-rdma_seq.tsv'"
  [ "$status" -eq 0 ] || { echo "$output (make rewrites it)"; false; }
  # ten fields a line, as rdma_bench's (params.sh reads both alike)
  run awk -F'\t' 'NF != 10 {print NR": "NF" fields"}' "$ROOT/experiments/lib/knobs-rdma_seq.tsv"
  [ -z "$output" ] || { echo "$output"; false; }
}
