#!/usr/bin/env bats
# Shape claims: experiments/compare judges the paper's claims ([compare]
# claim.NAME of each params) on the measured points themselves, and exits 3
# when one fails.

load fixtures/exp/helpers
bats_require_minimum_version 1.5.0

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

# fig11 DIR BATCHED NONBATCHED [DEVICE]: a figure-11 summary of one payload,
# not batched with one QP and batched with two (where Section 5.2.1 shows
# the gain)
fig11() {
  local dev=${4:-rxe0}
  {
    echo "$HDR"
    echo "figure-11,1,send,ud,bw,32,1,1,1,16,auto,64,1,2,3,3,0,ok,,no,$3,$3,$3,1.0,,,,,$dev,vm2"
    echo "figure-11,2,send,ud,bw,32,1,2,16,16,auto,64,1,2,3,3,0,ok,,no,$2,$(awk "BEGIN{print $2*0.9}"),$(awk "BEGIN{print $2*1.1}"),5.0,,,,,$dev,vm2"
  } > "$1/summary.csv"
}

@test "a summary that breaks a claim: FAILS, with the numbers, and exit 3" {
  local d=$BATS_TEST_TMPDIR/r
  manifest "$d" localhost localhost
  fig11 "$d" 4 4
  run "$ROOT/experiments/compare" figure-11 "$d"
  [ "$status" -eq 3 ]
  # soft-RoCE on one host: the shape is judged, and says it is the shape only
  [[ $output == *"FAILS on soft-RoCE (shape only) batching"*"ratio 1 [0.9..1.1] >= 1.1 (the threshold is within the spread)"* ]]
  [[ $output == *"paper: Section 5.2.1 (Figure 11)"* ]]
  [[ $output == *"postlist=16 qps_per_thread=2: 4 [3.6..4.4] cv 5.0%  over  postlist=1 qps_per_thread=1: 4 [4..4] cv 1.0%  = 1 [0.9..1.1]"* ]]
  [[ $output == *"figure-11: 4 claims: 0 hold, 1 fail, 3 not measured"* ]]
}

@test "a summary that satisfies the claim: HOLDS and exit 0" {
  local d=$BATS_TEST_TMPDIR/r
  manifest "$d" localhost localhost
  fig11 "$d" 8 4
  run "$ROOT/experiments/compare" figure-11 "$d"
  [ "$status" -eq 0 ]
  [[ $output == *"HOLDS on soft-RoCE (shape only) batching"*"ratio 2 [1.8..2.2] >= 1.1"* ]]
  [[ $output != *"within the spread"* ]]
  [[ $output == *"4 claims: 1 hold, 0 fail, 3 not measured"* ]]
  # on a Mellanox NIC the same rule gives a plain verdict
  fig11 "$d" 8 4 mlx5_0
  run "$ROOT/experiments/compare" figure-11 "$d"
  [ "$status" -eq 0 ]
  [[ $output == *"  HOLDS        batching           ratio 2 [1.8..2.2] >= 1.1"* ]] || { echo "$output"; false; }
  [[ $output != *"shape only"* ]]
}

@test "a verdict read from noisy or partial points says so, also in --verdicts (the figure's caption); steady points add nothing" {
  local d=$BATS_TEST_TMPDIR/r
  manifest "$d" localhost localhost
  fig11 "$d" 8 4
  run "$ROOT/experiments/compare" figure-11 "$d" --verdicts
  [ "${lines[0]}" = "batching	HOLDS on soft-RoCE (shape only)" ] || { echo "$output"; false; }
  [ "${lines[1]}" = "batching_one_qp	NOT MEASURED	needs an RDMA NIC" ] || { echo "$output"; false; }
  # the non-batched point noisy, the batched one partial
  sed -i '2s/,ok,,no,/,ok,,yes,/; 3s/,3,3,0,ok,,no,/,3,2,0,partial,,no,/' "$d/summary.csv"
  run "$ROOT/experiments/compare" figure-11 "$d"
  [ "$status" -eq 0 ]
  [[ $output == *"HOLDS on soft-RoCE (shape only) batching           ratio 2 [1.8..2.2] >= 1.1; on 1 of 2 points noisy, 1 partial: a verdict on shaky data"* ]] || { echo "$output"; false; }
  run "$ROOT/experiments/compare" figure-11 "$d" --verdicts
  [ "${lines[0]}" = "batching	HOLDS on soft-RoCE (shape only)	1 of 2 points noisy, 1 partial" ] || { echo "$output"; false; }
  # a failing verdict keeps its exit status with the caveat
  fig11 "$d" 4 4
  sed -i '2s/,ok,,no,/,ok,,yes,/' "$d/summary.csv"
  run "$ROOT/experiments/compare" figure-11 "$d"
  [ "$status" -eq 3 ]
  [[ $output == *"FAILS on soft-RoCE (shape only) batching"*"; on 1 of 2 points noisy: a verdict on shaky data"* ]]
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
  [ "${lines[0]}" = "batching	NOT MEASURED	all 2 points noisy" ] || { echo "$output"; false; }
}

@test "a claim whose every point is noisy keeps a firm verdict (every repetition agrees), and only that one" {
  local d=$BATS_TEST_TMPDIR/r
  manifest "$d" localhost localhost
  # ratio 2 [1.8..2.2] >= 1.1: no repetition could turn it
  fig11 "$d" 8 4
  sed -i '2,3s/,ok,,no,/,ok,,yes,/' "$d/summary.csv"
  run "$ROOT/experiments/compare" figure-11 "$d" --verdicts
  [ "${lines[0]}" = "batching	HOLDS on soft-RoCE (shape only)	2 of 2 points noisy" ] || { echo "$output"; false; }
  run "$ROOT/experiments/compare" figure-11 "$d"
  [[ $output == *"ratio 2 [1.8..2.2] >= 1.1; the verdict stands over the repetitions' whole spread; on 2 of 2 points noisy"* ]] || { echo "$output"; false; }
  # ratio 0.5 [0.45..0.55]: a firm failure, exit status 3
  fig11 "$d" 4 8
  sed -i '2,3s/,ok,,no,/,ok,,yes,/' "$d/summary.csv"
  run "$ROOT/experiments/compare" figure-11 "$d"
  [ "$status" -eq 3 ] || { echo "$output"; false; }
  [[ $output == *"FAILS on soft-RoCE (shape only) batching"*"ratio 0.5 [0.45..0.55] >= 1.1; the verdict stands"* ]] || { echo "$output"; false; }
  # ratio 1.15 [1.035..1.265]: holds on the medians, the spread straddles 1.1
  fig11 "$d" 4.6 4
  sed -i '2,3s/,ok,,no,/,ok,,yes,/' "$d/summary.csv"
  run "$ROOT/experiments/compare" figure-11 "$d" --verdicts
  [ "${lines[0]}" = "batching	NOT MEASURED	all 2 points noisy" ] || { echo "$output"; false; }
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
  [[ $output == *"HOLDS        read_knee_cib"*"at size_bytes=1024 0.2051 of the level (needs <= 0.7)"* ]]
  [[ $output == *"NOT MEASURED read_knee_cx3"*"a claim about ConnectX-3 (mlx4) NICs; measured on mlx5_0"* ]]
  # no knee and not flat: two claims fail
  fig12 "$d" mlx5_0 100 50 50
  run "$ROOT/experiments/compare" figure-12 "$d"
  [ "$status" -eq 3 ]
  [[ $output == *"FAILS        read_flat_small"* ]]
  [[ $output == *"FAILS        read_knee_cib"* ]]
  # Gb/s falling along the sweep: the trend is not monotonic
  fig12 "$d" mlx5_0 100 95 0.1
  run "$ROOT/experiments/compare" figure-12 "$d"
  [ "$status" -eq 3 ]
  [[ $output == *"FAILS        read_gbps_grows"*"not monotonic"* ]]
  # soft-RoCE: the claims about the NIC (its peak, the link's knee) are not
  # judged whatever the shape (the same points failed read_flat_small on
  # mlx5 above); the Gb/s trend is judged, as a shape only
  fig12 "$d" rxe0 100 50 50
  run "$ROOT/experiments/compare" figure-12 "$d"
  [ "$status" -eq 0 ] || { echo "$output"; false; }
  [[ $output == *"NOT MEASURED read_flat_small    a claim about NIC hardware (the NIC's peak inbound READ rate): soft-RoCE (rxe0) has none, whatever the shape (computed, not judged: "* ]] || { echo "$output"; false; }
  [[ $output == *"NOT MEASURED read_knee_cib      a claim about NIC hardware"* ]]
  [[ $output == *"HOLDS on soft-RoCE (shape only) read_gbps_grows"* ]]
  # no bare verdict on soft-RoCE: every HOLDS or FAILS is followed by its qualifier
  run ! grep -E '^  (HOLDS|FAILS) {2,}' <<< "$output"
  # the caption's words (--verdicts) say the same
  run "$ROOT/experiments/compare" figure-12 "$d" --verdicts
  [ "$status" -eq 0 ]
  [[ $output == *"read_flat_small	NOT MEASURED	needs an RDMA NIC"* ]] || { echo "$output"; false; }
  [[ $output == *"read_gbps_grows	HOLDS on soft-RoCE (shape only)"* ]]
  run ! grep -E '	(HOLDS|FAILS)(	|$)' <<< "$output"
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

@test "figure-12 on soft-RoCE ends with what to run next, naming the NICs in words" {
  local d=$BATS_TEST_TMPDIR/r
  manifest "$d" localhost localhost
  fig12 "$d" rxe0 100 95 20
  run "$ROOT/experiments/compare" figure-12 "$d"
  [ "$status" -eq 0 ] || { echo "$output"; false; }
  [[ $output == *"next, to judge what was not measured:"*"read_flat_small, read_knee_cib, read_knee_cx3: run \`make figure-12 HOSTS=hosts\` on hosts with ConnectX-3 (mlx4) or Connect-IB or newer (mlx5) NICs"* ]] || { echo "$output"; false; }
  # on a Mellanox NIC every claim is judged: nothing left to run
  fig12 "$d" mlx5_0 100 95 20
  run "$ROOT/experiments/compare" figure-12 "$d"
  [[ $output == *"read_knee_cx3: run \`make figure-12 HOSTS=hosts\` on hosts with ConnectX-3 (mlx4) NICs"* ]] || { echo "$output"; false; }
  [[ $output != *"read_flat_small: run"* && $output != *"read_flat_small,"* ]]
}

# seqsum DIR DEVICE ROWS...: a summary of rdma_seq's knobs (variant, batch,
# server_threads) with mrps and lat_mean_us; each ROW
# "variant,batch,server_threads,mrps,lat_us"
seqsum() {
  local d=$1 dev=$2 i=0 r
  shift 2
  {
    echo "exp_name,exp_point,variant,batch,server_threads,window,reps,reps_ok,rows_failed,status,reason,noisy,mrps_median,mrps_min,mrps_max,mrps_cv_pct,lat_mean_us_median,lat_mean_us_min,lat_mean_us_max,lat_mean_us_cv_pct,device,host"
    for r in "$@"; do
      i=$((i + 1))
      IFS=, read -r v b t m l <<< "$r"
      echo "x,$i,$v,$b,$t,8,3,3,0,ok,,no,$m,$m,$m,1,$l,$l,$l,1,$dev,node2"
    done
  } > "$d/summary.csv"
}

@test "diff: figure-8's latency bound in us, judged on a NIC, able to fail on its number" {
  local d=$BATS_TEST_TMPDIR/r
  manifest "$d" node1 node1
  seqsum "$d" mlx5_0 spec-s0,on,1,10,3.5 spec-s0,off,1,8,3.0
  run "$ROOT/experiments/compare" figure-8 "$d"
  [ "$status" -eq 0 ] || { echo "$output"; false; }
  [[ $output == *"HOLDS        batching_latency_us difference (lat_mean_us) 0.5 [0.5..0.5] <= 1"* ]] || { echo "$output"; false; }
  # 2 us more: the paper's "at most about 1 us" fails
  seqsum "$d" mlx5_0 spec-s0,on,1,10,5 spec-s0,off,1,8,3.0
  run "$ROOT/experiments/compare" figure-8 "$d"
  [ "$status" -eq 3 ]
  [[ $output == *"FAILS        batching_latency_us difference (lat_mean_us) 2 [2..2] <= 1"* ]]
  # soft-RoCE's latency is tens of us: the bound is not judged there
  seqsum "$d" rxe0 spec-s0,on,1,10,5 spec-s0,off,1,8,3.0
  run "$ROOT/experiments/compare" figure-8 "$d"
  [[ $output == *"NOT MEASURED batching_latency_us a claim about NIC hardware"* ]] || { echo "$output"; false; }
}

@test "peak: figure-9 compares each series' best core count; one core count is no peak" {
  local d=$BATS_TEST_TMPDIR/r
  manifest "$d" node1 node2
  # batched peaks at 2 threads (12), not batched at 4 (10): 1.2 >= 1.08
  seqsum "$d" mlx5_0 herd-kv,on,1,7,0 herd-kv,on,2,12,0 herd-kv,on,4,11,0 herd-kv,off,1,4,0 herd-kv,off,2,8,0 herd-kv,off,4,10,0
  run "$ROOT/experiments/compare" figure-9 "$d"
  [[ $output == *"HOLDS        batching_peak      ratio 1.2 [1.2..1.2] >= 1.08"* ]] || { echo "$output"; false; }
  [[ $output == *"batch=on server_threads=2: 12 "*"over  batch=off server_threads=4: 10 "* ]]
  # one core count only (a QUICK grid): not measured, not judged at one core
  seqsum "$d" mlx5_0 herd-kv,on,1,7,0 herd-kv,off,1,4,0
  run "$ROOT/experiments/compare" figure-9 "$d"
  [[ $output == *"NOT MEASURED batching_peak"*"no pair of measured points"* ]] || { echo "$output"; false; }
  [[ $output == *"HOLDS        batching_per_core  ratio 1.75 "* ]]
}

@test "a claim needing a knob the summary has no column for is NOT MEASURED, on any device, and says so" {
  local d=$BATS_TEST_TMPDIR/r
  manifest "$d" node1 node2
  {
    echo "$HDR"
    echo "table-5,1,send,ud,bw,32,1,1,16,16,off,64,1,2,3,3,0,ok,,no,22,22,22,1,,,,,mlx4_0,vm2"
    echo "table-5,2,send,ud,bw,32,1,1,16,16,on,64,1,2,3,3,0,ok,,no,26,26,26,1,,,,,mlx4_0,vm2"
  } > "$d/summary.csv"
  run "$ROOT/experiments/compare" table-5 "$d"
  [[ $output == *"NOT MEASURED inline_recv        no run of this suite can vary recv_inline yet; the summary has no column recv_inline"* ]] || { echo "$output"; false; }
  [[ $output == *"inline_recv: needs the knob recv_inline, which the suite does not have yet: no run can judge it"* ]]
  # the sender's inline flag (the inline column) is not taken for it
  [[ $output != *"HOLDS        inline"* ]]
}

@test "claim.NAME.kind: shape or hardware; anything else is refused, naming it" {
  local e=$BATS_TEST_TMPDIR/exp
  mkdir -p "$e"
  cp -r "$ROOT/experiments/figure-11" "$e/"
  printf 'claim.batching.kind = magic\n' >> "$e/figure-11/params"
  cp "$ROOT/experiments/compare" "$e/compare"
  mkdir -p "$e/../figures" && cp -r "$ROOT/figures/reference" "$e/../figures/"
  run "$e/compare" figure-11 "$FIX/golden-summary.csv"
  [ "$status" -eq 2 ]
  [[ $output == *"claim.batching.kind = magic: shape, or hardware followed by the NIC mechanism it is about"* ]]
}

# seq7 DIR DEVICE ROWS...: a figure-7 summary, each ROW
# "variant,batch,ud_qps,server_threads,mrps" (atomics: batch and ud_qps empty)
seq7() {
  local d=$1 dev=$2 i=0 r
  shift 2
  {
    echo "exp_name,exp_point,variant,batch,ud_qps,server_threads,reps,reps_ok,rows_failed,status,reason,noisy,mrps_median,mrps_min,mrps_max,mrps_cv_pct,device,host"
    for r in "$@"; do
      i=$((i + 1))
      IFS=, read -r v b q t m <<< "$r"
      echo "figure-7,$i,$v,$b,$q,$t,3,3,0,ok,,no,$m,$m,$m,1,$dev,node2"
    done
  } > "$d/summary.csv"
}

@test "figure-7 on Connect-IB: Spec-S0 below HERD on one core, above it at the peaks; atomics 50x and 12.2x below" {
  local d=$BATS_TEST_TMPDIR/r
  manifest "$d" node1 node2
  # the paper's shape: spec-s0 16 on one core (HERD 27.4), 122 at its peak
  # (10 cores), HERD's peak 97.2 at 6, 84 at 10; atomics 2.24
  seq7 "$d" mlx5_0 atomics,,,0,2.24 herd-rpc,on,3,1,27.4 herd-rpc,on,3,6,97.2 herd-rpc,on,3,10,84 \
    spec-s0,on,1,1,16 spec-s0,on,1,6,90 spec-s0,on,1,10,122
  run "$ROOT/experiments/compare" figure-7 "$d"
  [[ $output == *"HOLDS        spec_peak          ratio 1.255 "* ]] || { echo "$output"; false; }
  [[ $output == *"HOLDS        spec_single_core   ratio 0.5839 "* ]]
  [[ $output == *"HOLDS        past_peak          ratio 0.8642 "* ]]
  [[ $output == *"HOLDS        atomics_50x        ratio 54.46 "* ]]
  [[ $output == *"HOLDS        atomics_one_core   ratio 12.23 "* ]]
  # Spec-S0 above HERD on one core (the old rule's expectation): fails
  seq7 "$d" mlx5_0 atomics,,,0,2.24 herd-rpc,on,3,1,27.4 herd-rpc,on,3,6,97.2 spec-s0,on,1,1,30 spec-s0,on,1,10,122
  run "$ROOT/experiments/compare" figure-7 "$d"
  [ "$status" -eq 3 ]
  [[ $output == *"FAILS        spec_single_core   ratio 1.095 "* ]] || { echo "$output"; false; }
}

# fig11b DIR DEVICE NB1 NB2 NB4 B1 B2 B4: a figure-11b summary (60 B, one
# core): Mops not batched (postlist 1) and batched (16) at 1, 2, 4 QPs
fig11b() {
  local d=$1 dev=$2 i=0 p q m
  shift 2
  {
    echo "$HDR"
    for p in 1 16; do
      for q in 1 2 4; do
        m=$1; shift; i=$((i + 1))
        echo "figure-11b,$i,send,ud,bw,60,1,$q,$p,16,auto,64,,1,3,3,0,ok,,no,$m,$m,$m,1.0,,,,,$dev,node2"
      done
    done
  } > "$d/summary.csv"
}

@test "figure-11b (Figure 11b as published): its grid, and its four claims judged on Connect-IB, each able to fail" {
  run "$ROOT/experiments/run" figure-11b --dry-run
  [ "$status" -eq 0 ]
  [[ $output == *"grid: 6 points x 3 repetitions"* ]] || { echo "$output"; false; }
  for q in 1 2 4; do for p in 1 16; do
    grep -q "size_bytes=60.*postlist=$p.*qps_per_thread=$q\|size_bytes=60.*qps_per_thread=$q.*postlist=$p" <<< "$output" || { echo "no 60 B point postlist=$p qps=$q: $output"; false; }
  done; done
  local d=$BATS_TEST_TMPDIR/r
  manifest "$d" node1 node2
  # the paper's shape: batching below non-batched at one QP, ~2x with 2
  # QPs, 3x with 4; non-batched flat (CPU-bound)
  fig11b "$d" mlx5_0 10 10.5 10.8 8 16 24
  run "$ROOT/experiments/compare" figure-11b "$d"
  [ "$status" -eq 0 ] || { echo "$output"; false; }
  [[ $output == *"HOLDS        batching_one_qp    ratio 0.8 "* ]] || { echo "$output"; false; }
  [[ $output == *"HOLDS        batched_2qps       ratio 2 "* ]]
  [[ $output == *"HOLDS        batched_4qps       ratio 3 "* ]]
  [[ $output == *"HOLDS        nonbatched_flat    ratio 1.08 "* ]]
  [[ $output == *"figure-11b: 4 claims: 4 hold, 0 fail, 0 not measured"* ]]
  # batching that helps at one QP, QPs that do not, non-batched that scales
  fig11b "$d" mlx5_0 10 20 30 12 12 12
  run "$ROOT/experiments/compare" figure-11b "$d"
  [ "$status" -eq 3 ]
  [[ $output == *"figure-11b: 4 claims: 0 hold, 4 fail, 0 not measured"* ]] || { echo "$output"; false; }
  # soft-RoCE has no PUs and no MMIOs: NOT MEASURED, whatever the shape
  fig11b "$d" rxe0 10 10.5 10.8 8 16 24
  run "$ROOT/experiments/compare" figure-11b "$d"
  [ "$status" -eq 0 ]
  [[ $output == *"figure-11b: 4 claims: 0 hold, 0 fail, 4 not measured"* ]] || { echo "$output"; false; }
}

@test "outbound-peaks (Section 5.3.2): READ's best over UC WRITE's on Connect-IB, able to fail; the paper's 80 and 88 Mops beside each verb's most threads" {
  local d=$BATS_TEST_TMPDIR/r i=0 r v t n m
  manifest "$d" node1 node2
  # outbound VERB,THREADS,MOPS ...: a summary of the preset's points
  outbound() {
    {
      echo "$HDR"
      for r in "$@"; do
        i=$((i + 1))
        IFS=, read -r v t m <<< "$r"
        if [ "$v" = read ]; then n="rc,off"; else n="uc,on"; fi
        echo "outbound-peaks,$i,$v,${n%,*},bw,32,$t,1,1,16,${n#*,},16,,1,3,3,0,ok,,no,$m,$m,$m,1.0,,,,,mlx5_0,node2"
      done
    } > "$d/summary.csv"
  }
  # the paper: READs up to 88 Mops, UC WRITEs up to 80
  outbound write,1,20 write,14,80 read,1,25 read,14,88
  run "$ROOT/experiments/compare" outbound-peaks "$d"
  [ "$status" -eq 0 ] || { echo "$output"; false; }
  [[ $output == *"HOLDS        read_above_write   ratio 1.1 "* ]] || { echo "$output"; false; }
  [[ $output == *"outbound uc-write at small payloads (Connect-IB) ref 80 Mops    measured 80 "* ]] || { echo "$output"; false; }
  [[ $output == *"outbound read at small payloads (Connect-IB)   ref 88 Mops    measured 88 "* ]]
  outbound write,1,20 write,14,90 read,1,25 read,14,70
  run "$ROOT/experiments/compare" outbound-peaks "$d"
  [ "$status" -eq 3 ]
  [[ $output == *"FAILS        read_above_write   ratio 0.7778 "* ]] || { echo "$output"; false; }
}
