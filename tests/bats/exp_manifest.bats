#!/usr/bin/env bats
# What a run was measured on: every host's load before and after each point
# (columns of the rows), rep = exp_rep, and results/<exp>/<run>/manifest.json.

load fixtures/exp/helpers

# a JSON file parsed by a strict parser (no NaN, no duplicate keys)
json_ok() { python3 "$ROOT/tests/unit/json_check.py" "$1"; }
# one value of a JSON file: json_get FILE PYTHON-EXPRESSION-ON-m
json_get() { python3 -c 'import json, sys; m = json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$1" "$2"; }

@test "rows carry the 1-minute load of every host before and after their point" {
  run_exp "$FIX/tiny" --quick --run-id load1
  [ "$status" -eq 0 ] || { echo "$output"; false; }
  local d=$BATS_TEST_TMPDIR/results/tiny/load1 v
  head -n 1 "$d/raw.csv" | tr ',' '\n' | grep -qx load1_before_h1
  head -n 1 "$d/raw.csv" | tr ',' '\n' | grep -qx load1_after_h1
  # a number on every row (this machine's /proc/loadavg)
  for v in $(csv_col "$d/raw.csv" load1_before_h1) $(csv_col "$d/raw.csv" load1_after_h1); do
    [[ $v =~ ^[0-9]+\.[0-9]+$ ]] || { echo "load value '$v'"; false; }
  done
  [ "$(csv_col "$d/raw.csv" load1_before_h1 | wc -l)" -eq 4 ]
}

@test "remote hosts: one load column per host of the hosts file, from one monitor per host over ssh" {
  export RB_SSH="$FIX/fake_ssh -o BatchMode=yes" FAKE_SSH_LOG=$BATS_TEST_TMPDIR/ssh.log
  printf 'node1 rxe0 1 - root\nnode2 rxe0 1 - root\n' > "$BATS_TEST_TMPDIR/hosts"
  run_exp "$FIX/tiny" --quick --hosts "$BATS_TEST_TMPDIR/hosts" --run-id load2
  [ "$status" -eq 0 ] || { echo "$output"; false; }
  local d=$BATS_TEST_TMPDIR/results/tiny/load2 c
  for c in load1_before_h1 load1_before_h2 load1_after_h1 load1_after_h2; do
    [[ $(csv_col "$d/raw.csv" "$c" | head -n 1) =~ ^[0-9]+\.[0-9]+$ ]] || { echo "$c: $(csv_col "$d/raw.csv" "$c")"; false; }
  done
  # one monitor per remote host for the whole sweep (not an ssh call per
  # point), stopped at the end
  [ "$(grep -c '^root@node1 while read -r l _ < /proc/loadavg' "$FAKE_SSH_LOG")" -eq 1 ]
  [ "$(grep -c '^root@node2 while read -r l _ < /proc/loadavg' "$FAKE_SSH_LOG")" -eq 1 ]
  [ "$(grep -c 'cat /proc/loadavg' "$FAKE_SSH_LOG")" -eq 0 ]
  [ ! -e "$d/load-monitors" ]
  [[ $(tail -n 1 "$d/load-h2.log") =~ ^[0-9]+\.[0-9]+$ ]]
}

@test "raw.csv: rep is the runner's repetition number, exp_rep" {
  run_exp "$FIX/tiny" --run-id reps1
  [ "$status" -eq 0 ] || { echo "$output"; false; }
  local d=$BATS_TEST_TMPDIR/results/tiny/reps1
  [ "$(csv_col "$d/raw.csv" rep | sort -u | tr '\n' ' ')" = "1 2 " ]
  diff <(csv_col "$d/raw.csv" rep) <(csv_col "$d/raw.csv" exp_rep)
}

@test "manifest.json: valid JSON with the command, QUICK, repetitions and every host's facts" {
  command -v python3 > /dev/null || skip "python3 is not installed"
  MLX5_SHUT_UP_BF=1 MLX4_SINGLE_THREADED=1 run_exp "$FIX/tiny" --quick --run-id man1
  [ "$status" -eq 0 ] || { echo "$output"; false; }
  local m=$BATS_TEST_TMPDIR/results/tiny/man1/manifest.json
  json_ok "$m"
  [ "$(json_get "$m" 'm["quick"]')" = True ]
  [ "$(json_get "$m" 'm["repetitions"]')" = 1 ]
  [ "$(json_get "$m" 'm["command"][-1]')" = --no-plot ]
  [ "$(json_get "$m" '"--quick" in m["command"]')" = True ]
  [ "$(json_get "$m" 'm["git_rev"]')" = "$(git -C "$ROOT" rev-parse HEAD)" ]
  [[ $(json_get "$m" 'm["git_dirty"]') =~ ^(True|False)$ ]]
  [ "$(json_get "$m" 'len(m["hosts"])')" = 1 ]
  [ "$(json_get "$m" 'm["hosts"][0]["cores"]')" = "$(grep -c ^processor /proc/cpuinfo)" ]
  [ "$(json_get "$m" 'm["hosts"][0]["kernel"]')" = "$(uname -r)" ]
  [ "$(json_get "$m" 'm["hosts"][0]["mem_kib"] > 0')" = True ]
  [ "$(json_get "$m" 'm["vm_bed"]')" = None ]
  # the providers' tuning variables are recorded
  [ "$(json_get "$m" 'm["env"]["MLX5_SHUT_UP_BF"]')" = 1 ]
  [ "$(json_get "$m" 'm["env"]["MLX4_SINGLE_THREADED"]')" = 1 ]
}

@test "manifest.json on the VM bed: the bed's facts (bed.env), a link to its run folder" {
  command -v python3 > /dev/null || skip "python3 is not installed"
  local bed=$BATS_TEST_TMPDIR/vmrun
  mkdir -p "$bed"
  printf '%s\n' "vm_run=$bed" vms=2 git_rev=0123456789abcdef git_dirty=true accel=tcg accel_requested=auto 'qemu=QEMU emulator version 7.2.22 (Debian "x")' \
    vcpus_per_vm=2 mem_mib_per_vm=2048 host_cores=2 'host_cpu_model=Some CPU \ with a backslash' 'host_load=3.5 2.0 1.0' > "$bed/bed.env"
  RB_VM_RUN=$bed run_exp "$FIX/tiny" --quick --run-id man2
  [ "$status" -eq 0 ] || { echo "$output"; false; }
  local d=$BATS_TEST_TMPDIR/results/tiny/man2
  json_ok "$d/manifest.json"
  [ "$(json_get "$d/manifest.json" 'm["vm_bed"]["accel"]')" = tcg ]
  [ "$(json_get "$d/manifest.json" 'm["vm_bed"]["vcpus_per_vm"]')" = 2 ]
  [ "$(json_get "$d/manifest.json" 'm["vm_bed"]["qemu"]')" = 'QEMU emulator version 7.2.22 (Debian "x")' ]
  [ "$(json_get "$d/manifest.json" 'm["vm_bed"]["host_cpu_model"]')" = 'Some CPU \ with a backslash' ]
  [ "$(json_get "$d/manifest.json" 'm["vm_bed"]["host_load"]')" = "3.5 2.0 1.0" ]
  # a runner without git (one VM) takes the revision the bed read on the host
  mkdir -p "$BATS_TEST_TMPDIR/nogit"
  printf '#!/bin/sh\nexit 127\n' > "$BATS_TEST_TMPDIR/nogit/git"
  chmod +x "$BATS_TEST_TMPDIR/nogit/git"
  PATH=$BATS_TEST_TMPDIR/nogit:$PATH RB_VM_RUN=$bed run_exp "$FIX/tiny" --quick --run-id man3
  [ "$status" -eq 0 ] || { echo "$output"; false; }
  [ "$(json_get "$BATS_TEST_TMPDIR/results/tiny/man3/manifest.json" 'm["git_rev"]')" = 0123456789abcdef ]
  [ "$(json_get "$BATS_TEST_TMPDIR/results/tiny/man3/manifest.json" 'm["git_dirty"]')" = True ]
  [ "$(readlink "$d/vm-run")" = "$bed" ]
}

@test "the manifest's JSON comes from an encoder: quotes, backslashes and control characters read back, bad records refused" {
  local s=$'a "quoted" \\ back\tslash\nnew line \x01 \x1f end'
  run bash -c 'RB_LIB=$1; . "$1/runner.sh"; { rb_jrec s s "$2"; rb_jrec n n 007; rb_jrec l l false; } | python3 "$1/jsondoc.py"' _ "$LIB" "$s"
  [ "$status" -eq 0 ]
  printf '%s\n' "$output" > "$BATS_TEST_TMPDIR/s.json"
  json_ok "$BATS_TEST_TMPDIR/s.json"
  [ "$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["s"] == sys.argv[2])' "$BATS_TEST_TMPDIR/s.json" "$s")" = True ]
  [ "$(json_get "$BATS_TEST_TMPDIR/s.json" 'm["n"]')" = None ]
  [ "$(json_get "$BATS_TEST_TMPDIR/s.json" 'm["l"]')" = False ]
  run bash -c 'printf "%s\0" quick l yes | python3 "$1/jsondoc.py"' _ "$LIB"
  [ "$status" -eq 2 ]
  [[ $output == *"quick: literal 'yes' is not true, false or null"* ]]
}
