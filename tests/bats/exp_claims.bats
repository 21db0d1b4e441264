#!/usr/bin/env bats
# Shape claims: experiments/compare judges the paper's claims ([compare]
# claim.NAME of each params) on the measured points themselves, and exits 3
# when one fails.

load fixtures/exp/helpers

setup() { command -v python3 > /dev/null || skip "python3 is not installed"; }

HDR=exp_name,exp_point,verb,transport,test,size_bytes,threads,qps_per_thread,postlist,signal_interval,inline,window,atomic_counters,exp_procs,reps,reps_ok,rows_failed,status,reason,noisy,mops_median,mops_min,mops_max,mops_cv_pct,gbps_median,gbps_min,gbps_max,gbps_cv_pct,device,host

# run_folder DIR ADDRESS1 ADDRESS2 [VMS]: a manifest.json saying where the
# server (line 1) and the client (line 2) ran
manifest() {
  local vm=null
  [ -z "${4:-}" ] || vm="{\"vms\": $4}"
  mkdir -p "$1"
  cat > "$1/manifest.json" <<JSON
{"roles": {"server": "1", "clients": "2"},
 "hosts": [{"line": 1, "address": "$2"}, {"line": 2, "address": "$3"}],
 "vm_bed": $vm}
JSON
}

# fig11 DIR BATCHED NONBATCHED [DEVICE]: a figure-11 summary of one payload
fig11() {
  local dev=${4:-rxe0}
  {
    echo "$HDR"
    echo "figure-11,1,send,ud,bw,32,1,1,1,16,auto,64,1,2,3,3,0,ok,,no,$3,$3,$3,1.0,,,,,$dev,vm2"
    echo "figure-11,2,send,ud,bw,32,1,1,16,16,auto,64,1,2,3,3,0,ok,,no,$2,$(awk "BEGIN{print $2*0.9}"),$(awk "BEGIN{print $2*1.1}"),5.0,,,,,$dev,vm2"
  } > "$1/summary.csv"
}

@test "a summary that breaks a claim: FAILS, with the numbers, and exit 3" {
  local d=$BATS_TEST_TMPDIR/r
  manifest "$d" localhost localhost
  fig11 "$d" 4 4
  run "$ROOT/experiments/compare" figure-11 "$d"
  [ "$status" -eq 3 ]
  [[ $output == *"FAILS        batching"*"ratio 1 [0.9..1.1] >= 1.1 (the threshold is within the spread)"* ]]
  [[ $output == *"paper: Figure 11(a) text"* ]]
  [[ $output == *"postlist=16: 4 [3.6..4.4] cv 5.0%  over  postlist=1: 4 [4..4] cv 1.0%  = 1 [0.9..1.1]"* ]]
  [[ $output == *"figure-11: 1 claims: 0 hold, 1 fail, 0 not measured"* ]]
}

@test "a summary that satisfies the claim: HOLDS and exit 0" {
  local d=$BATS_TEST_TMPDIR/r
  manifest "$d" localhost localhost
  fig11 "$d" 8 4
  run "$ROOT/experiments/compare" figure-11 "$d"
  [ "$status" -eq 0 ]
  [[ $output == *"HOLDS        batching"*"ratio 2 [1.8..2.2] >= 1.1"* ]]
  [[ $output != *"within the spread"* ]]
  [[ $output == *"1 claims: 1 hold, 0 fail, 0 not measured"* ]]
}

@test "a verdict read from noisy or partial points says so, also in --verdicts (the figure's caption); steady points add nothing" {
  local d=$BATS_TEST_TMPDIR/r
  manifest "$d" localhost localhost
  fig11 "$d" 8 4
  run "$ROOT/experiments/compare" figure-11 "$d" --verdicts
  [ "$output" = "batching	HOLDS" ] || { echo "$output"; false; }
  # the non-batched point noisy, the batched one partial
  sed -i '2s/,ok,,no,/,ok,,yes,/; 3s/,3,3,0,ok,,no,/,3,2,0,partial,,no,/' "$d/summary.csv"
  run "$ROOT/experiments/compare" figure-11 "$d"
  [ "$status" -eq 0 ]
  [[ $output == *"HOLDS        batching           ratio 2 [1.8..2.2] >= 1.1; on 1 of 2 points noisy, 1 partial: a verdict on shaky data"* ]] || { echo "$output"; false; }
  run "$ROOT/experiments/compare" figure-11 "$d" --verdicts
  [ "$output" = "batching	HOLDS	1 of 2 points noisy, 1 partial" ] || { echo "$output"; false; }
  # a failing verdict keeps its exit status with the caveat
  fig11 "$d" 4 4
  sed -i '2s/,ok,,no,/,ok,,yes,/' "$d/summary.csv"
  run "$ROOT/experiments/compare" figure-11 "$d"
  [ "$status" -eq 3 ]
  [[ $output == *"FAILS        batching"*"; on 1 of 2 points noisy: a verdict on shaky data"* ]]
}

@test "a claim whose every point is noisy is NOT MEASURED (nothing steady to judge on), with what it computed; a failing one then exits 0" {
  local d=$BATS_TEST_TMPDIR/r
  manifest "$d" localhost localhost
  fig11 "$d" 4 4
  sed -i '2,3s/,ok,,no,/,ok,,yes,/' "$d/summary.csv"
  run "$ROOT/experiments/compare" figure-11 "$d"
  [ "$status" -eq 0 ] || { echo "$output"; false; }
  [[ $output == *"NOT MEASURED batching           all 2 points noisy (CV above the run's noisy_cv_pct) (computed, not judged: ratio 1 [0.9..1.1] >= 1.1"* ]] || { echo "$output"; false; }
  run "$ROOT/experiments/compare" figure-11 "$d" --verdicts
  [ "$output" = "batching	NOT MEASURED	all 2 points noisy" ] || { echo "$output"; false; }
}

@test "a software-path claim on the two-VM bed is NOT MEASURED, even when it would fail" {
  local d=$BATS_TEST_TMPDIR/r
  manifest "$d" vm1 vm2 2
  fig11 "$d" 4 4
  run "$ROOT/experiments/compare" figure-11 "$d"
  [ "$status" -eq 0 ]
  [[ $output == *"NOT MEASURED batching"*"emulated wire flattens"*"computed, not judged: ratio 1 "* ]]
  # no manifest: where it ran is unknown, said so
  rm "$d/manifest.json"
  run "$ROOT/experiments/compare" figure-11 "$d"
  [ "$status" -eq 0 ]
  [[ $output == *"NOT MEASURED batching"*"no manifest.json beside the summary"* ]]
  # hardware across two hosts: judged
  manifest "$d" node1 node2
  fig11 "$d" 4 4 mlx5_0
  run "$ROOT/experiments/compare" figure-11 "$d"
  [ "$status" -eq 3 ]
}

# fig12 DIR DEVICE MOPS@32 MOPS@64 MOPS@1024
fig12() {
  {
    echo "$HDR"
    local i=0 s m
    for s in 32 64 1024; do
      i=$((i + 1))
      case $s in 32) m=$3 ;; 64) m=$4 ;; *) m=$5 ;; esac
      echo "figure-12,$i,read,rc,bw,$s,1,1,1,16,auto,16,1,4,3,3,0,ok,,no,$m,$m,$m,0,$(awk "BEGIN{print $m*$s*8/1000}"),$(awk "BEGIN{print $m*$s*8/1000}"),$(awk "BEGIN{print $m*$s*8/1000}"),0,$2,vm2"
    done
  } > "$1/summary.csv"
}

@test "flat, trend and knee rules: each judged from the points, each able to fail" {
  local d=$BATS_TEST_TMPDIR/r
  manifest "$d" node1 node2
  # the paper's shape on hardware: flat at small sizes, Gb/s growing, a knee
  fig12 "$d" mlx5_0 100 95 20
  run "$ROOT/experiments/compare" figure-12 "$d"
  [ "$status" -eq 0 ]
  [[ $output == *"HOLDS        read_flat_small"*"max/min - 1 = 0.05263 (band 0.3)"* ]]
  [[ $output == *"HOLDS        read_gbps_grows"*"last/first 6.4 "* ]]
  [[ $output == *"HOLDS        read_knee"*"at size_bytes=1024 0.2051 of the level (needs <= 0.7)"* ]]
  # no knee and not flat: two claims fail
  fig12 "$d" mlx5_0 100 50 50
  run "$ROOT/experiments/compare" figure-12 "$d"
  [ "$status" -eq 3 ]
  [[ $output == *"FAILS        read_flat_small"* ]]
  [[ $output == *"FAILS        read_knee"* ]]
  # Gb/s falling along the sweep: the trend is not monotonic
  fig12 "$d" mlx5_0 100 95 0.1
  run "$ROOT/experiments/compare" figure-12 "$d"
  [ "$status" -eq 3 ]
  [[ $output == *"FAILS        read_gbps_grows"*"not monotonic"* ]]
  # soft-RoCE: the hardware knee is not judged, the others are
  fig12 "$d" rxe0 100 50 50
  run "$ROOT/experiments/compare" figure-12 "$d"
  [ "$status" -eq 3 ]
  [[ $output == *"NOT MEASURED read_knee"*"a claim about mlx4/mlx5 devices; measured on rxe0"* ]]
}

@test "every shipped figure and table-5 states claims, each with the paper's sentence" {
  local e n
  for e in figure-7 figure-8 figure-11 figure-12 figure-13 figure-14 table-3 table-5; do
    n=$(grep -cE '^claim\.[a-z0-9_]+ *=' "$ROOT/experiments/$e/params")
    [ "$n" -ge 1 ] || { echo "$e: no claim"; false; }
    [ "$(grep -cE '^claim\.[a-z0-9_]+\.paper *=' "$ROOT/experiments/$e/params")" -eq "$n" ] ||
      { echo "$e: a claim without its .paper sentence"; false; }
  done
}

@test "a claim with bad grammar is refused, naming it" {
  local e=$BATS_TEST_TMPDIR/exp
  mkdir -p "$e"
  cp -r "$ROOT/experiments/figure-11" "$e/"
  printf 'claim.broken = ratio postlist=16 postlist=1 >= 1\n' >> "$e/figure-11/params"
  # experiments/compare reads experiments/NAME: a copy of the script beside the copy
  cp "$ROOT/experiments/compare" "$e/compare"
  mkdir -p "$e/../figures" && cp -r "$ROOT/figures/reference" "$e/../figures/"
  run "$e/compare" figure-11 "$FIX/golden-summary.csv"
  [ "$status" -eq 2 ]
  [[ $output == *"claim.broken: expected 'ratio NUM / DEN'"* ]]
}
