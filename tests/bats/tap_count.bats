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
}

@test "1..0 is a suite that ran nothing: a failure, unless the suite is declared optional (then one skip)" {
  tap_count '1..0 # SKIP nothing to test here\n' --rc 0 --name unit
  [ "$status" -eq 0 ]
  [ "${lines[0]}" = "not ok - unit: ran nothing (a plan of 1..0); a suite that may run nothing is declared optional" ]
  [ "${lines[1]}" = "counts 0 1 0" ]
  tap_count '1..0\n' --rc 0
  [ "${lines[1]}" = "counts 0 1 0" ]
  tap_count '1..0 # SKIP no device\n' --rc 0 --optional
  [ "$output" = "counts 0 0 1" ]
}

@test "only numbered results count: a program's own \"ok\" in the stream adds no pass and is a problem" {
  # a unit binary whose code under test printed "ok" lines of its own
  tap_count '1..2\nok 1 a\nok all good\nok - fine\nok 2 b\n' --rc 0 --name test_x
  [ "$status" -eq 0 ]
  [ "${lines[0]}" = "not ok - test_x: 2 unnumbered result line(s), not counted (a program's own output in the TAP stream?), the first: ok all good" ]
  [ "${lines[1]}" = "counts 2 1 0" ]
  # an unnumbered "not ok" cannot hide either
  tap_count '1..1\nok 1 a\nnot ok - stray\n' --rc 0
  [ "${lines[1]}" = "counts 1 1 0" ]
}

@test "--limit: a suite killed by its time limit (timeout's 124, or 137 after -k) fails by name, besides its unrun tests" {
  tap_count '1..3\nok 1 a\n' --rc 124 --limit 120 --name test_hang
  [ "$status" -eq 0 ]
  [ "${lines[0]}" = "not ok - test_hang: did not finish within its time limit of 120 s (exit status 124)" ]
  [ "${lines[1]}" = "not ok - test_hang: planned 3 tests, 1 reported: 2 never ran (exit status 124)" ]
  [ "${lines[2]}" = "counts 1 3 0" ]
  # bats prints its plan first; a hang in its last test: all reported but one
  tap_count '1..1\n' --rc 137 --limit 600 --name bats/x.bats
  [ "${lines[0]}" = "not ok - bats/x.bats: did not finish within its time limit of 600 s (exit status 137)" ]
  [ "${lines[2]}" = "counts 0 2 0" ]
  # the same exit status without --limit: no time-limit line
  tap_count '1..1\nok 1 a\n' --rc 124
  [ "${lines[0]}" = "not ok - suite: exited with status 124 without a failing test (crash?)" ]
  run "$ROOT/ci/tap-count" --limit 1x "$FIX/matrix"
  [ "$status" -eq 2 ]
}

@test "cmocka's own TAP (skip, failure, its comment lines) counts as 1 passed, 1 failed, 1 skipped" {
  # what a cmocka 1.1.5 binary prints with CMOCKA_MESSAGE_OUTPUT=TAP
  tap_count '1..3\nok 1 - t_ok\nnot ok 2 # SKIP t_skip\nnot ok 3 - t_fail\n# t.c:8: error: Failure!\n# not ok - t\n' --rc 1
  [ "$output" = "counts 1 1 1" ]
}

@test "several TAP streams in one file add their plans" {
  tap_count 'ok 1 a\n1..1\nok 1 b\nok 2 c\n1..2\nnot ok 1 - x (no result: the VM run ended)\n1..1\n' --rc 1
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

@test "SMOKE=0: ci/smoke --count follows the plans a whole run follows (a .tap case as many as its sub-suite plans), and test-all skips that many" {
  export FIX
  # the planted matrix's whole run: smoke-run's results, one bed.cleanup
  # (one VM count), the figure run's 5
  RB_OUT=$BATS_TEST_TMPDIR RB_SMOKE_MATRIX=$FIX/matrix "$ROOT/ci/smoke-run" 1 > "$BATS_TEST_TMPDIR/smoke.log" 2> /dev/null
  run "$ROOT/ci/tap-count" --rc 1 "$BATS_TEST_TMPDIR/smoke.log"
  [ "$output" = "counts 4 5 3" ]
  RB_SMOKE_MATRIX=$FIX/matrix run "$ROOT/ci/smoke" --count
  [ "$status" -eq 0 ]
  # 2 plain + 3 + 2 + 4 planned by the .tap cases, 1 bed.cleanup, 5 figure
  [ "$output" -eq $((2 + 3 + 2 + 4 + 1 + 5)) ]
  # the real matrix: more than its lines (its .tap cases hold ~60 results)
  run "$ROOT/ci/smoke" --count
  [ "$status" -eq 0 ]
  [ "$output" -gt "$(grep -cvE '^[[:space:]]*(#|$)' "$ROOT/ci/smoke.matrix")" ]
  run grep -c 'skip=$((skip + n))' "$ROOT/ci/test-all"
  [ "$output" = 1 ]
}

@test "smoke-run: a .tap case whose sub-suite plans another number than its RB_TAP_COUNT fails (SMOKE=0 would skip a wrong count)" {
  export FIX
  printf '%s\n' 'sub.three.tap  1  30  if [ -n "${RB_TAP_COUNT:-}" ]; then echo 5; else "$FIX/three-suite"; fi' > "$BATS_TEST_TMPDIR/m"
  RB_OUT=$BATS_TEST_TMPDIR RB_SMOKE_MATRIX=$BATS_TEST_TMPDIR/m run "$ROOT/ci/smoke-run" 1
  [ "$status" -eq 0 ]
  [ "${lines[3]}" = "not ok 4 sub.three.tap: its sub-suite planned 3 results, its command with RB_TAP_COUNT=1 says '5' (ci/smoke --count, the skip count of SMOKE=0, uses that: make them agree)" ] || { echo "$output"; false; }
  # agreeing: no such line
  printf '%s\n' 'sub.three.tap  1  30  "$FIX/three-suite"' > "$BATS_TEST_TMPDIR/m"
  RB_OUT=$BATS_TEST_TMPDIR RB_SMOKE_MATRIX=$BATS_TEST_TMPDIR/m run "$ROOT/ci/smoke-run" 1
  [ "$status" -eq 0 ]
  [ "${lines[3]}" = "1..3" ] || { echo "$output"; false; }
}

# a planted unit binary: prints TAP on stdout; $1 says what else it does
fake_suite() {
  cat > "$BATS_TEST_TMPDIR/suite" << EOF
#!/usr/bin/env bash
echo 1..2
echo "ok 1 - first"
case "$1" in
  hang) sleep 60 ;;
  stderr) echo "ok 9 - printed by the code under test" >&2; echo "ok 2 - second" ;;
  stdout) echo "ok - printed by the code under test"; echo "ok 2 - second" ;;
  *) echo "ok 2 - second" ;;
esac
EOF
  chmod +x "$BATS_TEST_TMPDIR/suite"
}

@test "ci/suite: a suite that hangs fails by name at its time limit, and the run goes on" {
  fake_suite hang
  SECONDS=0
  run "$ROOT/ci/suite" test_hang 2 "$BATS_TEST_TMPDIR/h.log" -- "$BATS_TEST_TMPDIR/suite"
  [ "$status" -eq 0 ]
  [ "$SECONDS" -lt 30 ]
  [ "${lines[0]}" = "not ok - test_hang: did not finish within its time limit of 2 s (exit status 124)" ] || { echo "$output"; false; }
  [ "${lines[1]}" = "not ok - test_hang: planned 2 tests, 1 reported: 1 never ran (exit status 124)" ]
  [ "${lines[-1]}" = "counts 1 2 0" ]
}

@test "ci/suite: stderr is kept apart from the TAP (a program's \"ok\" there adds nothing); on stdout it is a problem" {
  fake_suite stderr
  run "$ROOT/ci/suite" test_x 30 "$BATS_TEST_TMPDIR/x.log" -- "$BATS_TEST_TMPDIR/suite"
  [ "$status" -eq 0 ]
  [ "$output" = "counts 2 0 0" ]
  run grep -c 'printed by the code' "$BATS_TEST_TMPDIR/x.err"
  [ "$output" = 1 ]
  run grep -c 'printed by the code' "$BATS_TEST_TMPDIR/x.log"
  [ "$output" = 0 ]
  fake_suite stdout
  run "$ROOT/ci/suite" test_x 30 "$BATS_TEST_TMPDIR/x.log" -- "$BATS_TEST_TMPDIR/suite"
  [ "${lines[-1]}" = "counts 2 1 0" ]
  [[ ${lines[0]} == "not ok - test_x: 1 unnumbered result line(s), not counted"* ]] || { echo "$output"; false; }
  # a failing suite shows its stderr's last lines
  printf '#!/bin/sh\necho 1..1\necho "not ok 1 - t"\necho "# t.c:8: error"\necho "boom on stderr" >&2\nexit 1\n' > "$BATS_TEST_TMPDIR/suite"
  run "$ROOT/ci/suite" test_y 30 "$BATS_TEST_TMPDIR/y.log" -- "$BATS_TEST_TMPDIR/suite"
  [ "${lines[0]}" = "test_y: not ok 1 - t" ]
  [ "${lines[1]}" = "# t.c:8: error" ]
  [[ $output == *"#   boom on stderr"* ]] || { echo "$output"; false; }
  [ "${lines[-1]}" = "counts 0 1 0" ]
}

@test "ci/suite: 1..0 fails unless --optional; bad usage exits 2" {
  printf '#!/bin/sh\necho "1..0 # SKIP nothing here"\n' > "$BATS_TEST_TMPDIR/suite"
  chmod +x "$BATS_TEST_TMPDIR/suite"
  run "$ROOT/ci/suite" empty 30 "$BATS_TEST_TMPDIR/e.log" -- "$BATS_TEST_TMPDIR/suite"
  [ "${lines[-1]}" = "counts 0 1 0" ]
  run "$ROOT/ci/suite" empty 30 "$BATS_TEST_TMPDIR/e.log" --optional -- "$BATS_TEST_TMPDIR/suite"
  [ "$output" = "counts 0 0 1" ]
  run "$ROOT/ci/suite" empty 0 "$BATS_TEST_TMPDIR/e.log" -- true
  [ "$status" -eq 2 ]
}

@test "test-all runs every unit binary and every bats file through ci/suite, from \$BUILD/tests (BUILD= honoured)" {
  run grep -c 'suite "$(basename "$t")" "$unit_limit"' "$ROOT/ci/test-all"
  [ "$output" = 1 ]
  run grep -c 'ci/suite "bats/$n.bats" "$2" ' "$ROOT/ci/test-all"
  [ "$output" = 1 ]
  # the files beside the VM bed and the others, through that one function
  run grep -cE '^ *bats_group ' "$ROOT/ci/test-all"
  [ "$output" = 2 ]
  # every bats file's counts are added, in name order, after the parallel runs
  run grep -c 'for b in tests/bats/\*.bats; do' "$ROOT/ci/test-all"
  [ "$output" = 1 ]
  run grep -cF 'for t in "$build"/tests/test_*' "$ROOT/ci/test-all"
  [ "$output" = 1 ]
  run grep -c 'make -s -j"[^"]*" all unit-bins BUILD="$build"' "$ROOT/ci/test-all"
  [ "$output" = 1 ]
  run grep -cE "(^|[^$])build/tests" "$ROOT/ci/test-all"
  [ "$output" = 0 ]
}

# figure_tree: a copy of ci/figure-smoke and the TAP helpers in a temporary
# tree, with a fake make in PATH: each call appends to make.calls; a call
# whose number is listed in $FREEZE says what ci/vm and experiments/reproduce
# say of a frozen guest and exits 2 as make does, any other writes the
# figure, the grid and the CSVs; a fake ci/verdict-check says the verdicts
# differ when $VERDICTS_DIFFER is set (ci/verdict-check's own cases are in
# exp_compare.bats)
figure_tree() {
  T=$BATS_TEST_TMPDIR/tree
  mkdir -p "$T/ci" "$T/tests/lib" "$T/bin"
  cp "$ROOT/ci/figure-smoke" "$T/ci/"
  cat > "$T/ci/verdict-check" <<'CHECK'
#!/usr/bin/env bash
[ -r "$2" ] || { echo "no summary $2"; exit 2; }
[ -z "${VERDICTS_DIFFER:-}" ] || { echo "verdict-check: $1 read_gbps_grows: expected 'HOLDS on soft-RoCE (shape only)', got 'FAILS on soft-RoCE (shape only)'"; exit 1; }
CHECK
  chmod +x "$T/ci/verdict-check"
  # compare --verdicts: two claims, as experiments/compare prints them
  mkdir -p "$T/experiments"
  printf '#!/bin/sh\nprintf "read_flat_small\\tNOT MEASURED\\tneeds an RDMA NIC\\nread_gbps_grows\\tHOLDS on soft-RoCE (shape only)\\t\\n"\n' > "$T/experiments/compare"
  chmod +x "$T/experiments/compare"
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
# experiments/reproduce's last lines: each claim's verdict (NOVERDICTS=1: none)
[ -n "${NOVERDICTS:-}" ] || printf '%s\n' "claims of the paper judged on this run (make compare-12: ...):" \
  "  NOT MEASURED  read_flat_small (needs an RDMA NIC)" "  HOLDS on soft-RoCE (shape only)  read_gbps_grows" >&2
MAKE
  chmod +x "$T/bin/make"
}

@test "figure-smoke: a figure run that a frozen guest ended (reproduce's exit 123, make's 2) runs again, and passes on a good second boot" {
  figure_tree
  FREEZE=1 PATH=$T/bin:$PATH run "$T/ci/figure-smoke" figure-14
  [ "$status" -eq 0 ] || { echo "$output"; false; }
  [ "$(wc -l < "$T/make.calls")" -eq 2 ]
  [[ ${lines[0]} == "# figure-smoke: make figure-14 QUICK=1 ended with status 2 after "*" s (the bed: 121 a guest kernel broke, 123 a guest froze, 125 it stopped); its log kept as build/test-logs/figure-smoke-figure-14.log.boot1, booting the bed again" ]] || { echo "$output"; false; }
  # the guest's and the watchdog's words for it follow, as comments
  [[ ${lines[1]} == "#   ci/vm: vm2: its heartbeat is 130 s old"* ]] || { echo "$output"; false; }
  [[ ${lines[2]} == "#   "*"soft lockup"* ]] || { echo "$output"; false; }
  [[ ${lines[3]} =~ ^ok\ 1\ -\ figure\.figure-14-quick:\ make\ figure-14\ QUICK=1\ \([0-9]+\ s\)$ ]] || { echo "$output"; false; }
  [ "$(grep -c '^ok ' <<< "$output")" -eq 5 ]
  [ "${lines[-1]}" = "1..5" ]
  [[ $output == *"ok 5 - figure.figure-14-quick: compare's verdicts as expected on the bed (ci/verdicts.expect)"* ]] || { echo "$output"; false; }
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

@test "figure-smoke: compare's verdicts other than the bed's expected ones fail the run, the difference printed" {
  figure_tree
  VERDICTS_DIFFER=1 PATH=$T/bin:$PATH run "$T/ci/figure-smoke" figure-12
  [ "$status" -eq 1 ]
  [ "$(grep -c '^ok ' <<< "$output")" -eq 4 ]
  [[ $output == *"not ok 5 - figure.figure-12-quick: compare's verdicts as expected on the bed (ci/verdicts.expect), printed at the run's end"$'\n'"#   verdict-check: figure-12 read_gbps_grows: expected 'HOLDS on soft-RoCE (shape only)', got 'FAILS on soft-RoCE (shape only)'"* ]] || { echo "$output"; false; }
  [ "${lines[-1]}" = "1..5" ]
}

@test "figure-smoke: a run whose output does not end with each claim's verdict fails, naming the missing line" {
  figure_tree
  PATH=$T/bin:$PATH run "$T/ci/figure-smoke" figure-12
  [ "$status" -eq 0 ] || { echo "$output"; false; }
  [[ $output == *"ok 5 - figure.figure-12-quick: compare's verdicts as expected on the bed (ci/verdicts.expect), printed at the run's end"* ]] || { echo "$output"; false; }
  rm -f "$T/make.calls"
  NOVERDICTS=1 PATH=$T/bin:$PATH run "$T/ci/figure-smoke" figure-12
  [ "$status" -eq 1 ]
  [[ $output == *"not ok 5 - figure.figure-12-quick: compare's verdicts as expected"*"#   make's output has no line: NOT MEASURED  read_flat_small"*"#   make's output has no line: HOLDS on soft-RoCE (shape only)  read_gbps_grows"* ]] || { echo "$output"; false; }
}

@test "the closing line's bed note counts the bed's boots and figure re-runs by status, not test failures nor quoted lines" {
  local log=$BATS_TEST_TMPDIR/smoke.log
  # as ci/smoke and ci/figure-smoke print them: three boots of the matrix
  # ended by the bed (123 twice, 121), one figure run again; a failed case, a
  # case's output quoting a bed line as a diagnostic, and a case named bed
  cat > "$log" <<'LOG'
ok 1 - rb.lat-read
# smoke: the 2-VM bed ended with status 123 during exp.2vm-slurm-point (121: a guest kernel broke; 123: the guest froze; 125: it stopped); booting it again and resuming at exp.2vm-slurm-point
# smoke: the 2-VM bed ended with status 123 during exp.2vm-figure-7-quick (121: a guest kernel broke; 123: the guest froze; 125: it stopped); booting it again and resuming at exp.2vm-figure-7-quick
not ok 2 - exp.2vm-slurm-point: exit 1
#   # smoke: the 2-VM bed ended with status 125 during x (quoted by a case)
ok 3 - bed.cleanup-2vm: no qemu or namespace left after the run
# smoke: the 1-VM bed ended with status 121 during rb.bw-write (121: a guest kernel broke; 123: the guest froze; 125: it stopped); booting it again and resuming at rb.bw-write
# smoke: make figure-12 QUICK=1 (two-VM bed)
# figure-smoke: make figure-12 QUICK=1 ended with status 2 after 301 s (the bed: 121 a guest kernel broke, 123 a guest froze, 125 it stopped); its log kept as build/test-logs/figure-smoke-figure-12.log.boot1, booting the bed again
ok 1 - figure.figure-12-quick: make figure-12 QUICK=1 (412 s)
1..3
LOG
  run "$ROOT/ci/tap-count" --bed-note "$log"
  [ "$status" -eq 0 ]
  [ "$output" = "# bed: 3 boot(s) of the matrix ended by the bed (121 a guest kernel broke: 1, 123 froze: 2, 125 stopped: 0) and 1 figure run(s), each run again; not counted as test failures" ]
  # a run the bed never broke: all zero
  grep -v -e '^# smoke: the' -e '^# figure-smoke' "$log" > "$log.clean"
  run "$ROOT/ci/tap-count" --bed-note "$log.clean"
  [ "$status" -eq 0 ]
  [ "$output" = "# bed: 0 boot(s) of the matrix ended by the bed (121 a guest kernel broke: 0, 123 froze: 0, 125 stopped: 0) and 0 figure run(s), each run again; not counted as test failures" ]
  # the bed's boots are no test results: the count is the same with or without them
  run "$ROOT/ci/tap-count" --name smoke "$log"
  [ "$status" -eq 0 ]
  [ "$output" = "$("$ROOT/ci/tap-count" --name smoke "$log.clean")" ]
  run "$ROOT/ci/tap-count" --bed-note "$BATS_TEST_TMPDIR/none"
  [ "$status" -eq 2 ]
  # ci/test-all prints this note after a smoke run
  run grep -c 'ci/tap-count --bed-note "$logdir/smoke.log"' "$ROOT/ci/test-all"
  [ "$output" = 1 ]
}
