#!/usr/bin/env bats
# make compare-N: measured vs reference per point, with the tolerance.

load fixtures/exp/helpers

setup() { command -v python3 > /dev/null || skip "python3 is not installed"; }

@test "paper values: ratio printed and points outside the tolerance flagged" {
  run "$ROOT/experiments/compare" figure-14 "$FIX/summary-figure-14.csv"
  [ "$status" -eq 0 ]
  [[ $output == *"soft-RoCE (functional, not a hardware claim)"* ]]
  # the unit beside both values, the x and the cluster in words
  [[ $output == *"fig14 atomics at any number of counters (ConnectX-3)"*"ref 2.7 Mops"*"measured 4 [4..4] Mops"*"ratio 1.481"*OUTSIDE* ]]
  [[ $output == *"fig14 atomics at the most counters (Connect-IB)"*"ref 52 Mops"* ]]
  [[ $output != *"x="* && $output != *"(CIB"* && $output != *"(CX3"* ]]
  [[ $output == *"2 points compared, 2 outside the tolerance, 0 not measured"* ]]
  # one reference point: "1 point", not "1 points"
  run "$ROOT/experiments/compare" figure-12 "$FIX/summary-figure-12.csv"
  [[ $output == *"figure-12: 1 point compared, "* ]] || { echo "$output"; false; }
  run "$ROOT/experiments/compare" figure-14 "$FIX/summary-figure-14.csv" --strict
  [ "$status" -eq 1 ]
}

@test "a point within the tolerance is not flagged" {
  # 4 Mops measured vs 2.7: inside with a 50% tolerance
  run "$ROOT/experiments/compare" figure-14 "$FIX/summary-figure-14.csv" --tolerance 0.5
  [ "$status" -eq 0 ]
  [[ $output == *"ratio 1.481    "* ]]
  [[ $output != *"ratio 1.481    OUTSIDE"* ]]
}

@test "sweep references: the imported log compared with itself is within any tolerance" {
  run "$ROOT/experiments/compare" swarm-16b_uc_write "$ROOT/figures/reference/imported/swarm-16b_uc_write.csv" --tolerance 0.001 --strict
  [ "$status" -eq 0 ]
  [[ $output == *"25 points compared, 0 outside the tolerance, 0 not measured"* ]]
  [[ $output == *"window=8 signal_interval=4"*"ref 99.87"*"ratio 1 "* ]]
}

@test "every experiment's [compare] section is valid" {
  local p n
  for p in "$ROOT"/experiments/*/params; do
    n=$(basename "$(dirname "$p")")
    run "$ROOT/experiments/compare" "$n" "$FIX/golden-summary.csv"
    [ "$status" -eq 0 ] || { echo "$n: $output"; false; }
  done
}

@test "an unknown experiment is refused" {
  run "$ROOT/experiments/compare" 'figure-99'
  [ "$status" -eq 2 ]
  run "$ROOT/experiments/compare" '../etc'
  [ "$status" -eq 2 ]
}

@test "make targets: compare-N, figure-N and the presets are defined" {
  # nothing measured: the reference alone; compare exits 1, make says so and exits 2
  RB_RESULTS=$BATS_TEST_TMPDIR/none run make -s -C "$ROOT" compare-14
  [ "$status" -eq 2 ]
  [[ $output == *"compare-14] Error 1"* ]] || { echo "$output"; false; }
  [[ $output == *"figure-14: "*"points compared"* ]]
  [[ $output == *"nothing measured to compare"* ]]
  mkdir -p "$BATS_TEST_TMPDIR/res/table-5/r1"
  cp "$FIX/golden-summary.csv" "$BATS_TEST_TMPDIR/res/table-5/r1/summary.csv"
  ln -s r1 "$BATS_TEST_TMPDIR/res/table-5/latest"
  RB_RESULTS=$BATS_TEST_TMPDIR/res run make -s -C "$ROOT" compare-table-5
  [ "$status" -eq 0 ]
  [[ $output == *"points compared"* ]]
  local t
  for t in figure-7 figure-8 figure-11 figure-12 figure-13 figure-14 table-3 table-5 swarm-32b_read allsig-varsize_reads \
           swarm-16b_uc_write swarm-48b_read swarm-384b_read swarm-32b_rc_write_allsig allsig-32b_reads-varnum_vms; do
    run make -n -C "$ROOT" "$t" QUICK=1
    [ "$status" -eq 0 ] || { echo "$t: $output"; false; }
    [[ $output == *"QUICK=1 HOSTS= VMS= LAUNCHER= experiments/reproduce $t"* ]]
  done
}

@test "a reference point whose measured point was skipped says so, with the reason" {
  run "$ROOT/experiments/compare" swarm-16b_uc_write "$FIX/summary-skipped.csv"
  [ "$status" -eq 0 ]
  [[ $output == *"window=8 signal_interval=4"*"(skipped: refused by -w/--window 8"* ]]
  [[ $output == *"25 points compared, 0 outside the tolerance, 25 not measured"* ]]
}

@test "compare refuses what is not a summary of that experiment, and a negative tolerance" {
  run "$ROOT/experiments/compare" figure-12 /etc/passwd
  [ "$status" -eq 2 ]
  [[ $output == *"is not a summary.csv of experiments/run"* ]]
  run "$ROOT/experiments/compare" figure-12 "$FIX/summary-figure-14.csv"
  [ "$status" -eq 2 ]
  [[ $output == *"holds figure-14, not figure-12"* ]]
  run "$ROOT/experiments/compare" figure-12 "$FIX/summary-figure-12.csv" --tolerance -1
  [ "$status" -eq 2 ]
  [[ $output == *"--tolerance -1: a relative tolerance from 0 to 10"* ]]
}

@test "a point with no trusted rate (low-overlap) says why: the reference line and the claim's evidence" {
  # figure 12: READ 64 B's windows overlapped 0.96 only: no rate
  local s=$BATS_TEST_TMPDIR/summary.csv
  {
    head -n 1 "$FIX/summary-figure-12.csv" | sed 's/$/,reps_rated,note,overlap,overlap_flag/'
    sed -n 2p "$FIX/summary-figure-12.csv" | sed 's/$/,2,,1.0000,/'
    echo "figure-12,3,read,rc,bw,64,1,1,1,1,16,auto,16,1,8,sequential,2,3,3,0,low-overlap,overlap 0.96 < 0.99: rate not trusted (3 of 3 repetitions),,,,,,,,,,,,,rxe0,6.1.0-28-amd64,vm2,0,overlap 0.96 < 0.99 in 3 of 3 repetitions: no trusted rate,0.9600,low"
  } > "$s"
  run "$ROOT/experiments/compare" figure-12 "$s"
  # one point measured, no claim FAILS: exit 0 (the claims NOT MEASURED)
  [ "$status" -eq 0 ]
  [[ $output == *"fig12 inbound-read"*"(low-overlap: overlap 0.96 < 0.99: rate not trusted"* ]] || { echo "$output"; false; }
  # 5.3.1's 112 Gb/s is the link's (headers included), the run's gbps payload only
  [[ $output == *"fig12 inbound-read"*"the paper's Gb/s is the InfiniBand link's, headers included"* ]] || { echo "$output"; false; }
  [[ $output != *"(not measured)"* ]]
  [[ $output == *"NOT MEASURED"*"read_flat_small"*"1 point(s) without a trusted rate: overlap 0.96 < 0.99: rate not trusted"* ]] || { echo "$output"; false; }
  [[ $output == *"left out: "*"size_bytes=64"*"overlap 0.96 < 0.99"* ]]
}

@test "ci/verdict-check: the bed's expected verdicts pass; another verdict, a claim not listed or missing, and compare's refusal fail naming it" {
  run "$ROOT/ci/verdict-check" figure-14 "$FIX/summary-figure-14.csv"
  [ "$status" -eq 0 ] || { echo "$output"; false; }
  [[ $output == *"# counters_parallel"$'\t'"NOT MEASURED"$'\t'"needs an RDMA NIC"* ]]
  # a planted expectation: counters_parallel HOLDS, cx3_flat not listed, a claim compare does not print
  local e=$BATS_TEST_TMPDIR/verdicts.expect
  printf 'figure-14 counters_parallel HOLDS on soft-RoCE (shape only)\nfigure-14 gone NOT MEASURED: needs an RDMA NIC\n' > "$e"
  run "$ROOT/ci/verdict-check" figure-14 "$FIX/summary-figure-14.csv" --expect "$e"
  [ "$status" -eq 1 ]
  [[ $output == *"verdict-check: figure-14 counters_parallel: expected 'HOLDS on soft-RoCE (shape only)', got 'NOT MEASURED'"* ]] || { echo "$output"; false; }
  [[ $output == *"verdict-check: figure-14 cx3_flat: not listed in the expectations (got NOT MEASURED: needs an RDMA NIC)"* ]] || { echo "$output"; false; }
  [[ $output == *"verdict-check: figure-14 gone: expected 'NOT MEASURED: needs an RDMA NIC', compare printed no verdict"* ]] || { echo "$output"; false; }
  # NOT MEASURED for another reason is another verdict
  printf 'figure-14 counters_parallel NOT MEASURED: soft-RoCE: one host only\nfigure-14 cx3_flat NOT MEASURED: needs an RDMA NIC\n' > "$e"
  run "$ROOT/ci/verdict-check" figure-14 "$FIX/summary-figure-14.csv" --expect "$e"
  [ "$status" -eq 1 ]
  [[ $output == *"counters_parallel: expected 'NOT MEASURED: soft-RoCE: one host only', got 'NOT MEASURED: needs an RDMA NIC'"* ]] || { echo "$output"; false; }
  # compare refuses the summary (exit 2): not the contracted 0
  run "$ROOT/ci/verdict-check" figure-12 "$FIX/summary-figure-14.csv"
  [ "$status" -eq 1 ]
  [[ $output == *"experiments/compare figure-12 exited 2, expected 0"* ]] || { echo "$output"; false; }
  run "$ROOT/ci/verdict-check" figure-14
  [ "$status" -eq 2 ]
  [[ $output == *"usage: ci/verdict-check NAME SUMMARY"* ]]
}
