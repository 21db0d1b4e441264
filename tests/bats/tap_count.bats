#!/usr/bin/env bats
# ci/tap-count, the counter behind ci/test-all's closing line, and the .tap
# cases of ci/smoke-run, on planted TAP output: a crash mid-suite, no plan,
# skips in each runner's dialect, a failing mid-test check, a sub-suite that
# ran nothing, sub-tests counted once.

ROOT=$(cd "$BATS_TEST_DIRNAME/../.." && pwd)
FIX=$ROOT/tests/bats/fixtures/tap

# tap_count TAP [ARGS...]: ci/tap-count ARGS on a suite log holding TAP
# (printf escapes: \n ends a line)
tap_count() {
  # shellcheck disable=SC2059  # the planted TAP is the format
  printf "$1" > "$BATS_TEST_TMPDIR/suite.log"
  shift
  run "$ROOT/ci/tap-count" "$@" "$BATS_TEST_TMPDIR/suite.log"
}

bats_require_minimum_version 1.5.0

@test "all passed: counts only, no problem line" {
  tap_count '1..3\nok 1 a\nok 2 b\nok 3 c\n' --rc 0
  [ "$status" -eq 0 ]
  [ "$output" = "counts 3 0 0" ]
}

@test "a crash mid-suite: the planned-but-unrun tests count as failed (plan 6, 2 ok, exit 137: 4 failed)" {
  tap_count '1..6\nok 1 a\nok 2 b\n' --rc 137 --name unit
  [ "$status" -eq 0 ]
  [ "${lines[0]}" = "not ok - unit: planned 6 tests, 2 reported: 4 never ran (exit status 137)" ]
  [ "${lines[1]}" = "counts 2 4 0" ]
  # with exit status 0 the unrun tests still count
  tap_count '1..6\nok 1 a\nok 2 b\n' --rc 0
  [ "${lines[1]}" = "counts 2 4 0" ]
  # a plan at the end that the crash never printed is "no plan"
  tap_count 'ok 1 a\nnot ok 2 b\n' --rc 139
  [ "${lines[0]}" = "not ok - suite: no plan line (1..N): the suite did not finish, exit status 139" ]
  [ "${lines[1]}" = "counts 1 2 0" ]
}

@test "no plan is a failure of the suite, also with exit status 0" {
  tap_count 'ok 1 a\nok 2 b\n' --rc 0
  [ "${lines[0]}" = "not ok - suite: no plan line (1..N): the suite did not finish" ]
  [ "${lines[1]}" = "counts 2 1 0" ]
  tap_count '' --rc 0
  [ "${lines[1]}" = "counts 0 1 0" ]
}

@test "a non-zero exit without a failing test is one failure; more results than planned is one" {
  tap_count '1..2\nok 1 a\nok 2 b\n' --rc 1
  [ "${lines[0]}" = "not ok - suite: exited with status 1 without a failing test (crash?)" ]
  [ "${lines[1]}" = "counts 2 1 0" ]
  tap_count '1..1\nok 1 a\nok 2 b\n' --rc 0
  [ "${lines[0]}" = "not ok - suite: reported 2 numbered tests, planned 1" ]
  [ "${lines[1]}" = "counts 2 1 0" ]
}

@test "a SKIP directive is a skip in every dialect: bats, cmocka 1.1 (not ok N, SKIP), plain, any case" {
  tap_count '1..6
ok 1 bats test # skip gnuplot is not installed
not ok 2 # SKIP test_cmocka_skipped
ok 3 # SKIP
ok 4 - dead peer # Skip no ACTIVE RDMA port here
ok 5 - passes
not ok 6 - fails
' --rc 1
  [ "$output" = "counts 1 1 4" ]
  # a whole suite skipped
  tap_count '1..0 # SKIP nothing to test here\n' --rc 0
  [ "$output" = "counts 0 0 1" ]
}

@test "cmocka's own TAP (skip, failure, its comment lines) counts as 1 passed, 1 failed, 1 skipped" {
  # what a cmocka 1.1.5 binary prints with CMOCKA_MESSAGE_OUTPUT=TAP
  tap_count '1..3\nok 1 - t_ok\nnot ok 2 # SKIP t_skip\nnot ok 3 - t_fail\n# t.c:8: error: Failure!\n# not ok - t\n' --rc 1
  [ "$output" = "counts 1 1 1" ]
}

@test "several TAP streams in one file add their plans; unnumbered results count unplanned" {
  tap_count 'ok 1 a\n1..1\nok 1 b\nok 2 c\n1..2\nnot ok - x (no result: the VM run ended)\n' --rc 1
  [ "$output" = "counts 3 1 0" ]
  # the second stream died before its plan and its second result
  tap_count 'ok 1 a\n1..1\nok 1 b\n1..2\n' --rc 1
  [ "${lines[1]}" = "counts 2 1 0" ]
}

@test "--need-run: a suite whose every test was skipped is a failure" {
  tap_count 'ok 1 - a # SKIP no port\nok 2 - b # SKIP no port\n1..2\n' --rc 0 --need-run --name dp
  [ "${lines[0]}" = "not ok - dp: ran nothing: 2 skipped, none passed" ]
  [ "${lines[1]}" = "counts 0 1 2" ]
}

@test "bad usage: exit 2 with the reason" {
  run "$ROOT/ci/tap-count" --rc x "$FIX/matrix"
  [ "$status" -eq 2 ]
  [[ $output == *"--rc x is not an exit status"* ]]
  run "$ROOT/ci/tap-count" "$BATS_TEST_TMPDIR/none"
  [ "$status" -eq 2 ]
}

@test "a failing mid-test check in a bats suite is counted as a failure" {
  bats --tap "$FIX/midtest.bats" > "$BATS_TEST_TMPDIR/bats.log" 2>&1 && rc=0 || rc=$?
  [ "$rc" -ne 0 ]
  run "$ROOT/ci/tap-count" --rc "$rc" "$BATS_TEST_TMPDIR/bats.log"
  [ "$output" = "counts 1 1 0" ] || { cat "$BATS_TEST_TMPDIR/bats.log"; echo "$output"; false; }
}

@test "smoke-run: each sub-test of a .tap case counted once; a sub-suite that ran nothing or crashed fails" {
  export FIX
  RB_OUT=$BATS_TEST_TMPDIR RB_SMOKE_MATRIX=$FIX/matrix "$ROOT/ci/smoke-run" 1 > "$BATS_TEST_TMPDIR/smoke.log" 2> /dev/null
  # a case's seconds depend on the host's load (0 or 1 s here): read as N
  run bash -c "grep -E '^(not )?ok |^1\.\.' '$BATS_TEST_TMPDIR/smoke.log' | sed -E 's/\(([0-9]+) s\)$/(N s)/'"
  [ "$output" = "$(cat << 'EOF2'
ok 1 plain.ok (N s)
not ok 2 plain.fail (exit 1)
ok 3 sub.three.tap: first
ok 4 sub.three.tap: second # skip not here
ok 5 sub.three.tap: third
ok 6 sub.allskip.tap: server killed in handshake # SKIP no ACTIVE RDMA port here
ok 7 sub.allskip.tap: client killed in handshake # SKIP no ACTIVE RDMA port here
not ok 8 sub.allskip.tap: ran nothing: 2 skipped, none passed (N s)
ok 9 sub.crash.tap: first
not ok 10 sub.crash.tap: planned 4 tests, 1 reported: 3 never ran (exit status 137) (N s)
not ok 11 sub.crash.tap: one more planned test that never ran
not ok 12 sub.crash.tap: one more planned test that never ran
1..12
EOF2
)" ] || { cat "$BATS_TEST_TMPDIR/smoke.log"; false; }
  # the closing line's numbers: 4 passed, 5 failed (1 + all-skip + 3 unrun), 3 skipped
  run "$ROOT/ci/tap-count" --rc 1 "$BATS_TEST_TMPDIR/smoke.log"
  [ "$output" = "counts 4 5 3" ]
}

@test "smoke-run: a case that fails while a guest of the bed froze gets no result; the run exits 123 so that ci/smoke runs it again" {
  export FIX
  mkdir -p "$BATS_TEST_TMPDIR/bed"
  # vm2's heartbeat 100 s old (the guest rewrites it every 5 s), vm1's fresh
  touch "$BATS_TEST_TMPDIR/bed/heartbeat-vm1"
  touch -d '-100 seconds' "$BATS_TEST_TMPDIR/bed/heartbeat-vm2"
  RB_VM_RUN=$BATS_TEST_TMPDIR/bed RB_OUT=$BATS_TEST_TMPDIR RB_SMOKE_MATRIX=$FIX/matrix run "$ROOT/ci/smoke-run" 1
  [ "$status" -eq 123 ] || { echo "$output"; false; }
  local out=$output
  [[ ${lines[0]} =~ ^ok\ 1\ plain\.ok\ \([0-9]+\ s\)$ ]] || { echo "$out"; false; }
  # plain.fail: no result, the reason instead; nothing after it ran
  [[ ${lines[1]} == "# smoke-run: plain.fail ended with status 1 after "*" s while vm2's heartbeat is 10"?" s old (RB_SMOKE_FROZEN_S=45): the guest froze; no result for plain.fail here"* ]] || { echo "$out"; false; }
  run ! grep -qE 'plain.fail \(exit|sub\.three' <<< "$out"
  # every heartbeat fresh: the failure is the case's own, as before
  touch "$BATS_TEST_TMPDIR/bed/heartbeat-vm2"
  RB_VM_RUN=$BATS_TEST_TMPDIR/bed RB_OUT=$BATS_TEST_TMPDIR RB_SMOKE_MATRIX=$FIX/matrix run "$ROOT/ci/smoke-run" 1
  [ "$status" -eq 0 ]
  [ "${lines[1]}" = "not ok 2 plain.fail (exit 1)" ]
}

@test "smoke-run --from/--base: a resumed run starts at the named case, numbers on, and its plan counts the results before it" {
  export FIX
  # the first boot printed results 1 and 2, then its guest froze in sub.three.tap
  printf 'ok 1 plain.ok (0 s)\nnot ok 2 plain.fail (exit 1)\n' > "$BATS_TEST_TMPDIR/smoke.log"
  RB_OUT=$BATS_TEST_TMPDIR RB_SMOKE_MATRIX=$FIX/matrix "$ROOT/ci/smoke-run" --from sub.three.tap --base 2 1 \
    >> "$BATS_TEST_TMPDIR/smoke.log" 2> /dev/null
  run grep -cE '^(not )?ok [0-9]+ plain\.' "$BATS_TEST_TMPDIR/smoke.log"
  [ "$output" = 2 ]    # the cases before --from did not run again
  run grep -E '^ok 3 |^1\.\.' "$BATS_TEST_TMPDIR/smoke.log"
  [ "${lines[0]}" = "ok 3 sub.three.tap: first" ]
  [ "${lines[1]}" = "1..12" ]
  # counted as one run: the same numbers as the uninterrupted run above
  run "$ROOT/ci/tap-count" --rc 1 "$BATS_TEST_TMPDIR/smoke.log"
  [ "$output" = "counts 4 5 3" ]
  # a --from naming no case is a failure of its own, not a silent empty run
  RB_OUT=$BATS_TEST_TMPDIR RB_SMOKE_MATRIX=$FIX/matrix run "$ROOT/ci/smoke-run" --from no.such.case 1
  [ "${lines[0]}" = "not ok 1 smoke-run: --from no.such.case names no case of this matrix, VM count and pattern" ]
  [ "${lines[1]}" = "1..1" ]
}

@test "SMOKE=0: ci/smoke --count gives the matrix's cases, one bed cleanup check per VM count and the figure run, counted as skipped" {
  local cases beds
  cases=$(grep -cvE '^[[:space:]]*(#|$)' "$ROOT/ci/smoke.matrix")
  beds=$(grep -vE '^[[:space:]]*(#|$)' "$ROOT/ci/smoke.matrix" | awk '{print $2}' | sort -u | wc -l)
  [ "$cases" -gt 50 ]
  [ "$beds" -ge 2 ]
  run "$ROOT/ci/smoke" --count
  [ "$status" -eq 0 ]
  [ "$output" -eq $((cases + beds + 1)) ]
  grep -q 'skip=$((skip + n))' "$ROOT/ci/test-all"
}

# figure_tree: a copy of ci/figure-smoke and the TAP helpers in a temporary
# tree, with a fake make in PATH: each call appends to make.calls; a call
# whose number is listed in $FREEZE says what ci/vm and experiments/reproduce
# say of a frozen guest and exits 2 as make does, any other writes the
# figure, the grid and the CSVs
figure_tree() {
  T=$BATS_TEST_TMPDIR/tree
  mkdir -p "$T/ci" "$T/tests/lib" "$T/bin"
  cp "$ROOT/ci/figure-smoke" "$T/ci/"
  cp "$ROOT/tests/lib/tap.sh" "$T/tests/lib/"
  cat > "$T/bin/make" <<'MAKE'
#!/usr/bin/env bash
echo x >> make.calls
n=$(wc -l < make.calls)
name=$2
if [[ " $FREEZE " == *" $n "* ]]; then
  echo "ci/vm: vm2: its heartbeat is 130 s old (limit RB_VM_HEARTBEAT_S=120): the VM froze; stopping the command, then the VMs" >&2
  echo "[  101.1] watchdog: BUG: soft lockup - CPU#1 stuck for 71s! [rdma_bench:311]"
  # as experiments/reproduce says it, and make's own status for a failed recipe
  echo "reproduce: $name finished in 2:46 (exit 123)"
  exit 2
fi
if [[ " ${LOSTNET:-} " == *" $n "* ]]; then
  # a guest's network lost in the last job: the point timeout killed it,
  # and the run's clean-up could not reach vm2 (its deploy.log)
  r=results/$name/20261202-044419-quick
  mkdir -p "$r"
  echo "sweep: one server for the jobs on vm1 port 18515 (pid 9200; log $PWD/$r/server.log)"
  echo "write      uc         32         on         partial     0.012096 [0.011392..0.0128]  0.00309657  (killed (signal 0, exit 143) after 43.753 s; point timeout 42 s)"
  if [ -n "${LOSTBEAT:-}" ]; then
    printf 'root@vm2 /tmp/rdma_bench.x\tdeployed\n' > "$r/deploy.log"
    echo "ci/vm: vm1: its heartbeat is 61 s old (limit RB_VM_HEARTBEAT_S=30): the guest froze during the command; its failures are the bed's, not the measurement's: run the command again"
  else
    printf 'root@vm2 /tmp/rdma_bench.x\tdeployed\nssh: connect to host %s port 22: Connection timed out\n' "${LOSTHOST:-vm2}" > "$r/deploy.log"
  fi
  echo "reproduce: $name finished in 2:14 (exit 3)"
  exit 2
fi
mkdir -p figures/out "results/$name/latest-quick"
echo png > "figures/out/$name-quick.png"; echo pdf > "figures/out/$name-quick.pdf"
printf 'p1\np2\n' > "results/$name/latest-quick/grid.tsv"
printf 'h\nr1\nr2\n' > "results/$name/latest-quick/summary.csv"
printf 'h\nr1\nr2\nr3\n' > "results/$name/latest-quick/raw.csv"
MAKE
  chmod +x "$T/bin/make"
}

@test "figure-smoke: a figure run that a frozen guest ended (reproduce's exit 123, make's 2) runs again, and passes on a good second boot" {
  figure_tree
  FREEZE=1 PATH=$T/bin:$PATH run "$T/ci/figure-smoke" figure-14
  [ "$status" -eq 0 ] || { echo "$output"; false; }
  [ "$(wc -l < "$T/make.calls")" -eq 2 ]
  [[ ${lines[0]} == "# figure-smoke: make figure-14 QUICK=1 ended with status 2 after "*" s (the bed: 123 a guest froze, 125 it stopped); its log kept as build/test-logs/figure-smoke-figure-14.log.boot1, booting the bed again" ]] || { echo "$output"; false; }
  # the guest's and the watchdog's words for it follow, as comments
  [[ ${lines[1]} == "#   ci/vm: vm2: its heartbeat is 130 s old"* ]] || { echo "$output"; false; }
  [[ ${lines[2]} == "#   "*"soft lockup"* ]] || { echo "$output"; false; }
  [[ ${lines[3]} =~ ^ok\ 1\ -\ figure\.figure-14-quick:\ make\ figure-14\ QUICK=1\ \([0-9]+\ s\)$ ]] || { echo "$output"; false; }
  [ "$(grep -c '^ok ' <<< "$output")" -eq 4 ]
  [ "${lines[-1]}" = "1..4" ]
  [ -s "$T/build/test-logs/figure-smoke-figure-14.log.boot1" ]
}

@test "figure-smoke: a third freeze fails the case; a failure that is no freeze is not run again" {
  figure_tree
  FREEZE="1 2" PATH=$T/bin:$PATH run "$T/ci/figure-smoke" figure-14
  [ "$status" -eq 0 ] || { echo "$output"; false; }
  [ "$(wc -l < "$T/make.calls")" -eq 3 ]
  [ -s "$T/build/test-logs/figure-smoke-figure-14.log.boot2" ]
  rm -f "$T/make.calls"
  FREEZE="1 2 3" PATH=$T/bin:$PATH run "$T/ci/figure-smoke" figure-14
  [ "$status" -ne 0 ]
  [ "$(wc -l < "$T/make.calls")" -eq 3 ]
  [[ ${lines[6]} == "not ok 1 - figure.figure-14-quick: make figure-14 QUICK=1" ]] || { echo "$output"; false; }
  # status 123 without ci/vm's word for a frozen guest: the figure's own failure
  rm -f "$T/make.calls"
  sed -i 's/the VM froze; stopping/the command failed;/' "$T/bin/make"
  FREEZE=1 PATH=$T/bin:$PATH run "$T/ci/figure-smoke" figure-14
  [ "$status" -ne 0 ]
  [ "$(wc -l < "$T/make.calls")" -eq 1 ]
  [[ ${lines[0]} == "not ok 1 - figure.figure-14-quick: make figure-14 QUICK=1" ]] || { echo "$output"; false; }
}

@test "figure-smoke: a run in which ssh lost a guest (vm2's port 22 timed out, the run's deploy.log) runs again; a point failure without that does not" {
  figure_tree
  LOSTNET=1 PATH=$T/bin:$PATH run "$T/ci/figure-smoke" figure-12
  [ "$status" -eq 0 ] || { echo "$output"; false; }
  [ "$(wc -l < "$T/make.calls")" -eq 2 ]
  [[ ${lines[0]} == "# figure-smoke: make figure-12 QUICK=1 ended with status 2 after "*" s: a guest of the bed stopped answering (ssh: connect to host vm2 port 22: Connection timed out); its log kept as build/test-logs/figure-smoke-figure-12.log.boot1, booting the bed again" ]] || { echo "$output"; false; }
  [ -s "$T/build/test-logs/figure-smoke-figure-12.log.boot1" ]
  # ci/vm's word that a guest's heartbeat stopped during the command: run again too
  rm -f "$T/make.calls"
  LOSTNET=1 LOSTBEAT=1 PATH=$T/bin:$PATH run "$T/ci/figure-smoke" figure-12
  [ "$status" -eq 0 ] || { echo "$output"; false; }
  [ "$(wc -l < "$T/make.calls")" -eq 2 ]
  [[ ${lines[0]} == *"a guest of the bed stopped answering (ci/vm: vm1: its heartbeat is 61 s old"* ]] || { echo "$output"; false; }
  # ssh to a host that is not a VM of the bed: the figure's own failure, not run again
  rm -f "$T/make.calls"
  LOSTNET=1 LOSTHOST=node2 PATH=$T/bin:$PATH run "$T/ci/figure-smoke" figure-12
  [ "$status" -ne 0 ]
  [ "$(wc -l < "$T/make.calls")" -eq 1 ]
  [[ ${lines[0]} == "not ok 1 - figure.figure-12-quick: make figure-12 QUICK=1" ]] || { echo "$output"; false; }
}
