#!/usr/bin/env bats
# Experiment runner: sweeps with a fake rdma_bench (local and over a fake
# ssh), resume after a kill, per-point timeout, PID-only cleanup.

load fixtures/exp/helpers
bats_require_minimum_version 1.5.0   # run ! (a bare ! is not an assertion in bats)

# assert_gone PID...: none of these processes exists any more (at least one PID)
assert_gone() {
  [ "$#" -gt 0 ] || { echo "assert_gone: no PID given (nothing would be checked)"; return 1; }
  local p
  for p in "$@"; do
    if kill -0 "$p" 2> /dev/null; then
      echo "process $p still exists"
      return 1
    fi
  done
}

@test "a local sweep runs every job and writes raw.csv and summary.csv" {
  export FAKE_RB_LOG=$BATS_TEST_TMPDIR/calls
  run_exp "$FIX/tiny"
  [ "$status" -eq 0 ]
  local d
  d=$(run_dir tiny)
  # every client process is told the point's process count and the job's
  # run id (the server's start barrier counts them per run id)
  [ "$(grep -c '^client' "$FAKE_RB_LOG")" -eq 16 ]
  [ "$(grep '^client' "$FAKE_RB_LOG" | grep -c ' procs=2 run_id=[^ ]*-j[0-9]* pid=')" -eq 16 ]
  [ "$(grep '^client' "$FAKE_RB_LOG" | sed 's/.*run_id=//; s/ pid=.*//' | sort | uniq -c | awk '{ print $1 }' | sort -u)" = 2 ]
  # 4 points x 2 repetitions x 2 client processes
  [ "$(tail -n +2 "$d/raw.csv" | wc -l)" -eq 16 ]
  [ "$(tail -n +2 "$d/summary.csv" | wc -l)" -eq 4 ]
  [ "$(csv_col "$d/summary.csv" status | sort -u)" = ok ]
  # fake: proc 0 does 1.5 Mops, proc 1 2.5 Mops -> 4 per point
  [ "$(csv_col "$d/summary.csv" mops_median | sort -u)" = 4 ]
  [ "$(csv_col "$d/summary.csv" reps_ok | sort -u)" = 2 ]
  # progress lines, expected vs actual time
  [[ $output == *"job 8/8 (point 4/4, rep 2)"* ]]
  [[ $output == *"ETA"* ]]
  [[ $output == *"expected 0:08"* ]]
  [[ $output == *"sweep: done in"* ]]
}

@test "the environment check runs on every host, is stored, and a failure stops the run" {
  printf '#!/bin/sh\necho "{\\"can_run\\":true,\\"args\\":\\"$*\\"}"\n' > "$BATS_TEST_TMPDIR/check-ok"
  printf '#!/bin/sh\necho "{\\"can_run\\":false}"\nexit 1\n' > "$BATS_TEST_TMPDIR/check-fail"
  chmod +x "$BATS_TEST_TMPDIR"/check-*
  RB_NO_ENV_CHECK=0 RB_ENV_CHECK=$BATS_TEST_TMPDIR/check-ok run_exp "$FIX/tiny" --quick --run-id check-ok
  [ "$status" -eq 0 ]
  grep -q '"can_run":true' "$(run_dir tiny)/env-localhost.json"
  RB_NO_ENV_CHECK=0 RB_ENV_CHECK=$BATS_TEST_TMPDIR/check-fail run_exp "$FIX/tiny" --quick --run-id check-fail
  [ "$status" -eq 2 ]
  [[ $output == *"check: localhost FAILED"* ]]
  [ ! -e "$(run_dir tiny)/joblog" ]
  # the failed checks are named on the console, with their fix
  printf '#!/bin/sh
echo "{\\"can_run\\":false,\\"checks\\":[{\\"id\\":\\"a\\",\\"status\\":\\"ok\\",\\"item\\":\\"kernel\\",\\"value\\":\\"6.1\\",\\"fix\\":null},{\\"id\\":\\"device\\",\\"status\\":\\"fail\\",\\"item\\":\\"device\\",\\"value\\":\\"no device mlx9\\",\\"fix\\":\\"give -d\\"}]}"
exit 1
' > "$BATS_TEST_TMPDIR/check-why"
  chmod +x "$BATS_TEST_TMPDIR/check-why"
  RB_NO_ENV_CHECK=0 RB_ENV_CHECK=$BATS_TEST_TMPDIR/check-why run_exp "$FIX/tiny" --quick --run-id check-why
  [ "$status" -eq 2 ]
  [[ $output == *"localhost: device: no device mlx9 (fix: give -d)"* ]] || { echo "$output"; false; }
  [[ $output != *"kernel: 6.1"* ]]
}

@test "the environment check runs on all hosts at once, and reports them in host order" {
  export RB_SSH="$FIX/fake_ssh -o BatchMode=yes"
  printf '# address device gid numa user\nnode1 rxe0 1 - root\nnode2 rxe0 1 - root\n' > "$BATS_TEST_TMPDIR/hosts"
  mkdir -p "$BATS_TEST_TMPDIR/met"
  # each host's check waits (up to 10 s) until the other host's has started:
  # one host after the other, the first would give up and fail the run
  printf '#!/bin/sh
touch "%s/met/$2"
i=0
while [ "$(ls "%s/met" | wc -l)" -lt 2 ]; do
  i=$((i + 1)); [ "$i" -le 100 ] || { echo "{\\"can_run\\":false}"; exit 1; }
  sleep 0.1
done
echo "{\\"can_run\\":true,\\"host\\":\\"$2\\"}"
' "$BATS_TEST_TMPDIR" "$BATS_TEST_TMPDIR" > "$BATS_TEST_TMPDIR/check-meet"
  chmod +x "$BATS_TEST_TMPDIR/check-meet"
  # the hosts' rxe0 for the prerequisites' device check (prereq.sh)
  export RB_SYSFS_IB=$BATS_TEST_TMPDIR/ib
  mkdir -p "$RB_SYSFS_IB/rxe0/ports/1/gids"
  echo '4: ACTIVE' > "$RB_SYSFS_IB/rxe0/ports/1/state"
  echo 0000:0000:0000:0000:0000:ffff:c612:0001 > "$RB_SYSFS_IB/rxe0/ports/1/gids/1"
  RB_NO_ENV_CHECK=0 RB_ENV_CHECK=$BATS_TEST_TMPDIR/check-meet run_exp "$FIX/tiny" --quick \
    --hosts "$BATS_TEST_TMPDIR/hosts" --run-id check-both
  [ "$status" -eq 0 ] || { echo "$output"; false; }
  local d
  d=$(run_dir tiny)
  grep -q '"host":"root@node1"' "$d/env-node1.json"
  grep -q '"host":"root@node2"' "$d/env-node2.json"
  [[ $output == *"check: node1 ok"*"check: node2 ok"* ]]
  rm -rf /tmp/rdma_bench.check-both
}

@test "without a checker and without the override the run stops; with it, that is recorded" {
  RB_NO_ENV_CHECK=0 RB_ENV_CHECK=$BATS_TEST_TMPDIR/none run_exp "$FIX/tiny" --quick
  [ "$status" -eq 2 ]
  [[ $output == *"is absent"* ]]
  [[ $output == *"--no-env-check"* ]]
  RB_NO_ENV_CHECK=0 RB_ENV_CHECK=$BATS_TEST_TMPDIR/none run_exp "$FIX/tiny" --quick --no-env-check
  [ "$status" -eq 0 ]
  grep -q "skipped by --no-env-check" "$(run_dir tiny)/env-check.txt"
}

@test "a sweep killed midway resumes without re-running finished jobs" {
  export FAKE_RB_LOG=$BATS_TEST_TMPDIR/calls FAKE_RB_SLEEP=0.6
  # a complete QUICK run first: latest-quick stays on it while the killed
  # full run is unfinished, and latest is set only when that one finishes
  FAKE_RB_SLEEP=0.05 run_exp "$FIX/tiny" --quick --run-id complete1
  [ "$status" -eq 0 ]
  [ "$(readlink "$BATS_TEST_TMPDIR/results/tiny/latest-quick")" = complete1 ]
  [ ! -e "$BATS_TEST_TMPDIR/results/tiny/unfinished" ]
  setsid "$ROOT/experiments/run" "$FIX/tiny" --out "$BATS_TEST_TMPDIR/results" \
    --bin "$FIX/fake_rdma_bench" --no-plot > "$BATS_TEST_TMPDIR/first.log" 2>&1 &
  local pid=$!
  # wait until the job log holds 3 finished jobs (the log line of a job
  # comes before its job-log line), then kill the whole run (its own group)
  local i n
  for i in $(seq 600); do
    n=$(awk -F'\t' 'NR > 1 && $7 == 0' "$(run_dir tiny 2>/dev/null)/joblog" 2>/dev/null | wc -l)
    [ "$n" -ge 3 ] && break
    sleep 0.1
  done
  kill -TERM -- "-$pid"
  wait "$pid" || true
  sleep 1
  local d
  d=$(run_dir tiny)
  local done_before
  done_before=$(awk -F'\t' 'NR > 1 && $7 == 0' "$d/joblog" | wc -l)
  [ "$done_before" -ge 3 ]
  [ "$done_before" -lt 8 ]
  [ "$(readlink "$BATS_TEST_TMPDIR/results/tiny/latest-quick")" = complete1 ]
  [ ! -e "$BATS_TEST_TMPDIR/results/tiny/latest" ]
  [ "$(readlink "$BATS_TEST_TMPDIR/results/tiny/unfinished")" = "$(basename "$d")" ]
  : > "$FAKE_RB_LOG"
  # the interrupted run said how to go on, and no false alarm about its server
  grep -q "interrupted: run the same command again" "$BATS_TEST_TMPDIR/first.log"
  run ! grep -q "the sweep's server had stopped" "$BATS_TEST_TMPDIR/first.log"
  FAKE_RB_SLEEP=0.05 run_exp "$FIX/tiny" --resume
  [ "$status" -eq 0 ] || { echo "$output"; false; }
  [[ $output == *"8 jobs, $(( 8 - done_before )) of them left (resumed)"* ]]
  # its time set against the jobs it ran, not the whole grid's
  [[ $output == *"sweep: done in "*" for the $(( 8 - done_before )) job(s) it ran, "*" for the whole grid)"* ]] || { echo "$output"; false; }
  # only the unfinished jobs ran again (2 client processes each)
  [ "$(grep -c '^client' "$FAKE_RB_LOG")" -eq $(( (8 - done_before) * 2 )) ]
  [ "$(tail -n +2 "$d/raw.csv" | wc -l)" -eq 16 ]
  [ "$(csv_col "$d/summary.csv" status | sort -u)" = ok ]
  [ "$(awk -F'\t' 'NR > 1 && $7 == 0' "$d/joblog" | wc -l)" -eq 8 ]
  # finished: latest moved to it, nothing unfinished
  [ "$(readlink "$BATS_TEST_TMPDIR/results/tiny/latest")" = "$(basename "$d")" ]
  [ ! -e "$BATS_TEST_TMPDIR/results/tiny/unfinished" ]
}

# tiny_short: the tiny experiment with a 4 s point timeout (a normal job
# takes 0.4-1 s; 4 s is 4x that under load)
tiny_short() {
  local d
  d=$(tiny_copy)
  sed -i 's/^timeout_s .*/timeout_s = 4/' "$d/params"
  echo "$d"
}

@test "a hung point is killed at its timeout, marked failed, and the sweep goes on" {
  export FAKE_RB_HANG_SIZE=256
  local t0=$SECONDS
  # the hung job first, then one that must still run
  run_exp "$(tiny_short)" --quick --set size_bytes=256,32 --set verb:transport=read:rc
  [ "$status" -eq 3 ]
  # one hung job: a 4 s timeout, plus the rest: well under a minute
  [ $((SECONDS - t0)) -lt 60 ]
  local d
  d=$(run_dir tiny)
  paste -d' ' <(csv_col "$d/summary.csv" size_bytes) <(csv_col "$d/summary.csv" status) > "$BATS_TEST_TMPDIR/st"
  grep -q '^32 ok$' "$BATS_TEST_TMPDIR/st"
  grep -q '^256 failed$' "$BATS_TEST_TMPDIR/st"
  csv_col "$d/summary.csv" reason | grep -q 'point timeout 4 s'
  # nothing of the hung point is left running
  # shellcheck disable=SC2046  # one PID a word
  assert_gone $(cut -d: -f2 "$d"/points/*/pids)
}

@test "a server that never gets ready fails its point with the reason" {
  export FAKE_RB_NOREADY=1
  local d
  d=$(tiny_copy)
  sed -i 's/^\[run\]/[run]\nready = line/' "$d/params"
  # one point: each waits its 3 s for the server
  run_exp "$d" --quick --set verb:transport=read:rc
  [ "$status" -eq 1 ]
  csv_col "$(run_dir tiny)/summary.csv" reason | grep -q 'server not ready within 3 s'
}

@test "a failing client keeps its row in raw.csv and fails the point in summary.csv" {
  export FAKE_RB_FAIL_SIZE=256
  run_exp "$FIX/tiny" --reps 1
  [ "$status" -eq 3 ]
  local d
  d=$(run_dir tiny)
  [ "$(csv_col "$d/raw.csv" status | grep -c failed)" -eq 4 ]
  [ "$(csv_col "$d/summary.csv" status | grep -c failed)" -eq 2 ]
  [ "$(csv_col "$d/summary.csv" rows_failed | sort -u | tr '\n' ' ')" = "0 2 " ]
}

@test "cleanup stops only the PIDs it started: a process of the same name lives on" {
  mkdir -p "$BATS_TEST_TMPDIR/bin"
  cp "$FIX/fake_rdma_bench" "$BATS_TEST_TMPDIR/bin/rdma_bench"
  "$BATS_TEST_TMPDIR/bin/rdma_bench" -s -p 9999 > /dev/null 2>&1 &
  local bystander=$!
  FAKE_RB_HANG_SIZE=256 run "$ROOT/experiments/run" "$(tiny_short)" --quick --set size_bytes=32,256 \
    --set verb:transport=read:rc --out "$BATS_TEST_TMPDIR/results" --bin "$BATS_TEST_TMPDIR/bin/rdma_bench" --no-plot
  [ "$status" -eq 3 ]
  kill -0 "$bystander"
  # every process the sweep started is gone
  local d
  d=$(run_dir tiny)
  # shellcheck disable=SC2046  # one PID a word
  assert_gone $(cut -d: -f2 "$d"/points/*/pids)
  kill "$bystander"
}

@test "remote hosts: deploy, server and clients over ssh, rows collected, remote PIDs stopped" {
  export RB_SSH="$FIX/fake_ssh -o BatchMode=yes" FAKE_SSH_LOG=$BATS_TEST_TMPDIR/ssh.log
  printf '# address device gid numa user\nnode1 rxe0 1 - root\nnode2 rxe0 1 - root\n' > "$BATS_TEST_TMPDIR/hosts"
  run_exp "$FIX/tiny" --quick --hosts "$BATS_TEST_TMPDIR/hosts" --run-id remote1
  [ "$status" -eq 0 ] || { echo "$output"; false; }
  local d
  d=$(run_dir tiny)
  [ "$(tail -n +2 "$d/raw.csv" | wc -l)" -eq 4 ]
  # deploy to both hosts (a private folder each), server on node1, clients on node2 against node1
  grep -q '^root@node1 d=$(mktemp -d /tmp/rdma_bench.XXXXXX)' "$FAKE_SSH_LOG"
  grep -q '^root@node2 d=$(mktemp -d /tmp/rdma_bench.XXXXXX)' "$FAKE_SSH_LOG"
  grep -q '^root@node1 echo RB_PID .*/tmp/rdma_bench\.[A-Za-z0-9]*/fake_rdma_bench -s -p 18515 -d rxe0 -x 1 --bind node1 --token-file /tmp/rdma_bench\.[A-Za-z0-9]*/token' "$FAKE_SSH_LOG"
  grep -q '^root@node2 exec 2>&1; .*rdma_bench -c node1 -p 18515 -d rxe0 -x 1 --verb read.*--token-file /tmp/rdma_bench\.[A-Za-z0-9]*/token.* & echo RB_PID' "$FAKE_SSH_LOG"
  # the remote server was stopped by the PID it printed
  grep -q '^root@node1 kill -TERM [0-9]' "$FAKE_SSH_LOG"
  # and the folders are gone
  [ ! -s "$d/remote-dirs" ]
  # the rows came back in each client's own session: no second call fetched
  # them, the client logs keep only what the client said, the remote files are gone
  [ "$(grep -c '^root@node2 cat [^>]*/p[0-9]*-k[0-9]*\.csv' "$FAKE_SSH_LOG")" = 0 ]
  [ "$(cat "$d"/points/*/client-*.log | grep -c -e RB_ROWS -e '^schema_version')" = 0 ]
  grep -q '^RB_PID [0-9]' "$d/points/1/client-0.log"
  [ "$(head -c 14 "$d/points/1/client-0.csv")" = schema_version ]
}

@test "without GNU parallel the runner's own loop gives the same jobs, job log, timeout and resume" {
  export RB_NO_PARALLEL=1 FAKE_RB_HANG_SIZE=256 FAKE_RB_LOG=$BATS_TEST_TMPDIR/calls
  local d
  d=$(tiny_short)
  # one hung job (256 B) before one that must still run
  run_exp "$d" --reps 1 --set size_bytes=256,32 --set verb:transport=read:rc
  [ "$status" -eq 3 ]
  [[ $output == *"the runner's own loop"* ]]
  d=$(run_dir tiny)
  [ "$(head -n 1 "$d/joblog" | cut -f1,7,8)" = "$(printf 'Seq\tExitval\tSignal')" ]
  [ "$(tail -n +2 "$d/joblog" | wc -l)" -eq 2 ]
  paste -d' ' <(csv_col "$d/summary.csv" size_bytes) <(csv_col "$d/summary.csv" status) | sort -u > "$BATS_TEST_TMPDIR/st"
  [ "$(cat "$BATS_TEST_TMPDIR/st")" = "$(printf '256 failed\n32 ok')" ]
  csv_col "$d/summary.csv" reason | grep -q 'point timeout 4 s'
  # resume: nothing left to run, nothing runs again
  : > "$FAKE_RB_LOG"
  run_exp "$BATS_TEST_TMPDIR/tiny" --resume
  [ ! -s "$FAKE_RB_LOG" ]
}

@test "resume stops processes a killed run left behind, by recorded PID and only if they still run the binary" {
  mkdir -p "$BATS_TEST_TMPDIR/bin"
  cp "$FIX/fake_rdma_bench" "$BATS_TEST_TMPDIR/bin/rdma_bench"
  run "$ROOT/experiments/run" "$FIX/tiny" --quick --out "$BATS_TEST_TMPDIR/results" \
    --bin "$BATS_TEST_TMPDIR/bin/rdma_bench" --no-plot
  [ "$status" -eq 0 ]
  local d
  d=$(run_dir tiny)
  # a leftover server of that run, and an unrelated process whose PID is recorded too
  "$BATS_TEST_TMPDIR/bin/rdma_bench" -s -p 9997 > /dev/null 2>&1 &
  local stale=$!
  sleep 300 &
  local other=$!
  printf '0:%s:%s\n0:%s:%s\n' "$stale" "$d/points/1/server.log" "$other" "$d/points/1/server.log" >> "$d/points/1/pids"
  # (a QUICK run is resumed with --quick: its pointer is latest-quick)
  run "$ROOT/experiments/run" "$FIX/tiny" --quick --resume --out "$BATS_TEST_TMPDIR/results" \
    --bin "$BATS_TEST_TMPDIR/bin/rdma_bench" --no-plot
  [[ $output == *"stopped 1 process(es) left running"* ]]
  # stopped by the resume; gone once reaped (up to 5 s)
  for _ in $(seq 50); do kill -0 "$stale" 2> /dev/null || break; sleep 0.1; done
  assert_gone "$stale"
  kill -0 "$other"
  kill "$other"
}

@test "a point whose knobs rdma_bench refuses is skipped with its reason, and the run goes on" {
  export FAKE_RB_REFUSE_SIZE=256
  run_exp "$FIX/tiny" --reps 1
  [ "$status" -eq 0 ]
  [[ $output == *"skipped (refused by -m 256: refused by the fake"* ]]
  [[ $output == *"4 points, 2 ok, 0 failed, 2 skipped"* ]]
  local d
  d=$(run_dir tiny)
  paste -d' ' <(csv_col "$d/summary.csv" size_bytes) <(csv_col "$d/summary.csv" status) | sort -u > "$BATS_TEST_TMPDIR/st"
  [ "$(cat "$BATS_TEST_TMPDIR/st")" = "$(printf '256 skipped\n32 ok')" ]
  [ "$(csv_col "$d/summary.csv" rows_failed | sort -u)" = 0 ]
  [ "$(csv_col "$d/raw.csv" status | sort | uniq -c | tr -s ' ' | tr '\n' ';')" = " 4 ok; 4 skipped;" ]
  # the reason whole, '|' included (the runner's list of clients without
  # rows once split on it: "use -m 32" and a row with no status, failed)
  [ "$(csv_col "$d/raw.csv" reason | sort -u | grep -c 'refused by the fake use -m 32|64$')" = 1 ]
  [[ $(csv_col "$d/summary.csv" reason) == *"use -m 32|64"* ]]
}

@test "one server serves the sweep's jobs, also after a failed job; none is left at the end" {
  export FAKE_RB_LOG=$BATS_TEST_TMPDIR/calls
  run_exp "$FIX/tiny" --reps 1
  [ "$status" -eq 0 ]
  [[ $output == *"sweep: one server for the jobs"* ]]
  # 4 jobs, one server
  [ "$(grep -c '^server' "$FAKE_RB_LOG")" -eq 1 ]
  [ "$(grep -c '^client' "$FAKE_RB_LOG")" -eq 8 ]
  local d pid
  d=$(run_dir tiny)
  [ ! -e "$d/server.proc" ]
  pid=$(sed -n 's/^server .* pid=//p' "$FAKE_RB_LOG")
  assert_gone "$pid"
  grep -q "^0:$pid:" "$d/pids"
  # every job has its part of the server's log
  for s in 1 2 3 4; do [ -f "$d/points/$s/server.log" ]; done
  # failing jobs (size 256) end only their own sessions: the server serves on
  : > "$FAKE_RB_LOG"
  FAKE_RB_FAIL_SIZE=256 run_exp "$FIX/tiny" --reps 1
  [ "$status" -eq 3 ]
  [ "$(grep -c '^server' "$FAKE_RB_LOG")" -eq 1 ]
}

@test "when the sweep's server dies, each later job starts and stops its own" {
  export FAKE_RB_LOG=$BATS_TEST_TMPDIR/calls FAKE_RB_SLEEP=0.5
  local d
  d=$(tiny_copy)
  "$ROOT/experiments/run" "$d" --reps 1 --out "$BATS_TEST_TMPDIR/results" --bin "$FIX/fake_rdma_bench" \
    --no-plot > "$BATS_TEST_TMPDIR/run.out" 2>&1 &
  local runner=$! rc=0 nok
  # kill the sweep's server once the first client ran
  for _ in $(seq 100); do grep -q '^client' "$FAKE_RB_LOG" 2>/dev/null && break; sleep 0.1; done
  kill "$(sed -n 's/^server .* pid=//p' "$FAKE_RB_LOG" | head -n 1)"
  wait "$runner" || rc=$?
  d=$(run_dir tiny)
  # the first job may fail with its server; the others ran with their own
  [ "$(grep -c '^server' "$FAKE_RB_LOG")" -ge 4 ]
  nok=$(csv_col "$d/summary.csv" status | grep -c ok)
  [ "$nok" -ge 3 ]
  # the runner's status says the same: 0 when all 4 points are ok, 3 when one failed
  if [ "$nok" = 4 ]; then [ "$rc" -eq 0 ]; else [ "$rc" -eq 3 ]; fi || { cat "$BATS_TEST_TMPDIR/run.out"; false; }
  grep -q "the sweep's server had stopped" "$d/run.log"
  # shellcheck disable=SC2046  # one PID a word
  assert_gone $(sed -n 's/^server .* pid=//p' "$FAKE_RB_LOG")
}

@test "server_scope = point: a server per job" {
  export FAKE_RB_LOG=$BATS_TEST_TMPDIR/calls
  local d
  d=$(tiny_copy)
  sed -i 's/^\[run\]/[run]\nserver_scope = point/' "$d/params"
  run_exp "$d" --reps 1
  # on a failure, what the runner and the jobs said (a failure once seen
  # only in a loaded test run)
  [ "$status" -eq 0 ] || { echo "$output"; tail -n +1 "$(run_dir tiny)"/points/*/*.log; false; }
  [ "$(grep -c '^server' "$FAKE_RB_LOG")" -eq 4 ]
  sed -i 's/^server_scope = point/server_scope = always/' "$d/params"
  run_exp "$d" --reps 1
  [ "$status" -eq 2 ]
  [[ $output == *"server_scope = always: use sweep"* ]]
}

@test "remote hosts share one ssh connection each for the run, stopped at the end; without it, plain connections" {
  export RB_SSH="$FIX/fake_ssh -o BatchMode=yes" FAKE_SSH_LOG=$BATS_TEST_TMPDIR/ssh.log
  printf 'node1 rxe0 1 - root\nnode2 rxe0 1 - root\n' > "$BATS_TEST_TMPDIR/hosts"
  run_exp "$FIX/tiny" --quick --hosts "$BATS_TEST_TMPDIR/hosts" --run-id share1
  [ "$status" -eq 0 ]
  [ "$(grep -c '^root@node1 master' "$FAKE_SSH_LOG")" -eq 1 ]
  [ "$(grep -c '^root@node2 master' "$FAKE_SSH_LOG")" -eq 1 ]
  local d
  d=$(run_dir tiny)
  # shellcheck disable=SC2046  # one PID a word
  assert_gone $(cut -d' ' -f1 "$d/ssh-masters")
  # the socket folder is gone
  local ctl
  ctl=$(sed -n 's/.*(control sockets in \(.*\))$/\1/p' "$d/run.log")
  [[ $ctl == /tmp/rbssh.* ]]
  [ ! -e "$ctl" ]
  rm -rf /tmp/rdma_bench.share1
  # a master that does not come up: a warning, and the run goes on
  FAKE_SSH_NO_MASTER=1 run_exp "$FIX/tiny" --quick --hosts "$BATS_TEST_TMPDIR/hosts" --run-id share2
  [ "$status" -eq 0 ]
  [[ $output == *"ssh connection sharing with root@node1 did not come up"* ]]
  rm -rf /tmp/rdma_bench.share2
}

@test "the end of a sweep reports the jobs' time beyond their window against the estimate" {
  local d
  d=$(tiny_copy)
  sed -i '/^point_s/d; s/^overhead_s .*/overhead_s = 0.2/' "$d/params"
  FAKE_RB_SLEEP=1.3 run_exp "$d" --quick
  [ "$status" -eq 0 ]
  [[ $output == *"expected 0:02"* ]]
  [[ $output =~ the\ jobs\ took\ ([0-9.]+)\ s\ each\ beyond\ their\ measured\ window\ \(mean\ of\ 2\ ok\ jobs,\ median\ [0-9.]+\ s\;\ the\ estimate\ assumed\ 0.22\ s\) ]]
  # a fake client runs 1.3 s for a 1 s window: at least 0.3 s beyond it
  awk -v m="${BASH_REMATCH[1]}" 'BEGIN { exit !(m >= 0.3 && m < 5) }'
  [ "$(cat "$(run_dir tiny)/overhead_s")" = "${BASH_REMATCH[1]}" ]
}

@test "one experiments/run per run folder: a second one on a running run is refused, with the PID" {
  export FAKE_RB_SLEEP=1
  # the QUICK grid: 2 jobs of over a second each, time enough to be refused
  "$ROOT/experiments/run" "$FIX/tiny" --quick --run-id busy --out "$BATS_TEST_TMPDIR/results" \
    --bin "$FIX/fake_rdma_bench" --no-plot > "$BATS_TEST_TMPDIR/first.log" 2>&1 &
  local first=$!
  for _ in $(seq 100); do [ -s "$BATS_TEST_TMPDIR/results/tiny/busy/joblog" ] && break; sleep 0.1; done
  run_exp "$FIX/tiny" --resume busy
  [ "$status" -eq 2 ]
  [[ $output == *"run busy is in use by experiments/run PID $first"* ]]
  wait "$first"
  # the lock is gone with its owner: resuming now works (nothing left to run)
  [ ! -e "$BATS_TEST_TMPDIR/results/tiny/busy/lock" ]
  run_exp "$FIX/tiny" --resume busy
  [ "$status" -eq 0 ]
}

@test "a lock left by a run that died is taken over" {
  run_exp "$FIX/tiny" --quick --run-id died
  [ "$status" -eq 0 ]
  mkdir "$BATS_TEST_TMPDIR/results/tiny/died/lock"
  echo 999999999 > "$BATS_TEST_TMPDIR/results/tiny/died/lock/pid"
  run_exp "$FIX/tiny" --resume died
  [ "$status" -eq 0 ]
  [ ! -e "$BATS_TEST_TMPDIR/results/tiny/died/lock" ]
}

@test "two runs started in the same second get two run folders" {
  local t
  t=$(date -u +%Y%m%d-%H%M%S)
  mkdir -p "$BATS_TEST_TMPDIR/results/tiny/$t-quick" "$BATS_TEST_TMPDIR/results/tiny/$t-quick-2"
  # the default id of this second is taken twice over: the run takes -3 (or a later second)
  run_exp "$FIX/tiny" --quick
  [ "$status" -eq 0 ]
  local folder
  folder=$(sed -n 's/^.*run folder: \([^ ]*\) (QUICK grid)$/\1/p' <<< "$output")
  # a new folder: -3 of this second, or the plain id of a later second
  [ "$folder" = "$BATS_TEST_TMPDIR/results/tiny/$t-quick-3" ] ||
    [[ $folder == "$BATS_TEST_TMPDIR/results/tiny/"*-quick && $folder > "$BATS_TEST_TMPDIR/results/tiny/$t-quick" ]] ||
    { echo "run folder '$folder'"; false; }
  [ -s "$folder/joblog" ]
  [ ! -e "$BATS_TEST_TMPDIR/results/tiny/$t-quick/joblog" ]
  [ ! -e "$BATS_TEST_TMPDIR/results/tiny/$t-quick-2/joblog" ]
}

@test "latest stays on the last run that measured something when every point of a new run fails" {
  run_exp "$FIX/tiny" --quick --run-id good1
  [ "$status" -eq 0 ]
  FAKE_RB_FAIL_SIZE=32 run_exp "$FIX/tiny" --quick --run-id bad1
  [ "$status" -eq 1 ]
  [[ $output == *"no point of this run was measured: results/tiny/latest-quick stays good1"* ]]
  [ "$(readlink "$BATS_TEST_TMPDIR/results/tiny/latest-quick")" = good1 ]
  [ -s "$BATS_TEST_TMPDIR/results/tiny/bad1/summary.csv" ]
  [ ! -e "$BATS_TEST_TMPDIR/results/tiny/unfinished" ]
}

@test "a client host that stops answering ssh: named in the reason, the sweep stops after 2 jobs and a check, resumable" {
  export RB_SSH="$FIX/fake_ssh -o BatchMode=yes" FAKE_SSH_LOG=$BATS_TEST_TMPDIR/ssh.log
  printf '# address device gid numa user\nnode1 rxe0 1 - root\nnode2 rxe0 1 - root\n' > "$BATS_TEST_TMPDIR/hosts"
  # 4 points x 2 repetitions, 2 client processes each on node2: node2
  # answers job 1's two clients, then nothing
  export FAKE_SSH_DOWN=root@node2 FAKE_SSH_DOWN_AFTER=2 FAKE_SSH_DOWN_COUNT=$BATS_TEST_TMPDIR/down.count
  run_exp "$FIX/tiny" --hosts "$BATS_TEST_TMPDIR/hosts" --run-id down1
  [ "$status" -eq 4 ] || { echo "$output"; false; }
  local d
  d=$(run_dir tiny)
  [[ $output == *"the sweep stopped early: node2 did not answer ssh in 2 jobs in a row nor at a check after them (job 3: ssh to node2 failed (exit 255: host unreachable or connection lost): ssh: connect to host node2 port 22: No route to host)"* ]] || { echo "$output"; false; }
  [[ $output == *"--resume"* ]]
  # the reason of the failed jobs is ssh's, not the client's last line
  grep -q "client 0: ssh to node2 failed (exit 255: host unreachable or connection lost): ssh: connect to host node2 port 22: No route to host" "$d/points/2/rows.csv"
  # job 1's rows are kept; jobs 4..8 did not run (no client session to node2 after the check)
  grep -q ",ok," "$d/points/1/rows.csv"
  [ ! -e "$d/points/4" ]
  [ "$(grep -c '^root@node2 down .*rdma_bench -c ' "$FAKE_SSH_LOG")" -eq 4 ]
  [ "$(grep -c '^root@node2 down true$' "$FAKE_SSH_LOG")" -eq 1 ]
  # the host is back: --resume runs jobs 2..8, not job 1, and the run completes
  unset FAKE_SSH_DOWN
  : > "$FAKE_SSH_LOG"
  run_exp "$FIX/tiny" --resume
  [ "$status" -eq 0 ] || { echo "$output"; false; }
  [ "$(grep -c '^root@node2 .*rdma_bench -c ' "$FAKE_SSH_LOG")" -eq 14 ]
  [ "$(tail -n +2 "$d/raw.csv" | wc -l)" -eq 16 ]
  [ "$(csv_col "$d/summary.csv" status | sort -u)" = ok ]
}
