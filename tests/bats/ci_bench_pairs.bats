#!/usr/bin/env bats
# ci/ratio-interval.awk: the median of the pair ratios of `make bench` and
# its distribution-free 95 % interval (sign test / order statistics), and
# ci/bench-run's refusal of too few pairs.

setup() {
  ROOT=$(cd "$BATS_TEST_DIRNAME/../.." && pwd)
  AWKF=$ROOT/ci/ratio-interval.awk
}

@test "7 ratios: the median, min..max as the interval (98.4 %)" {
  run awk -f "$AWKF" <<< $'1.2\n0.9\n1.1\n1.0\n1.3\n0.95\n1.05'
  [ "$status" -eq 0 ]
  [ "$output" = "7 1.05 0.9 1.3 0.984" ]
}

@test "9 ratios: the 2nd and the 8th smallest (96.1 %); an interval below 1 shows" {
  run awk -f "$AWKF" <<< $'0.80\n0.82\n0.84\n0.86\n0.88\n0.90\n0.92\n0.94\n1.30'
  [ "$status" -eq 0 ]
  [ "$output" = "9 0.88 0.82 0.94 0.961" ]
}

@test "12 ratios: the 3rd and the 10th (P(Bin(12,1/2) <= 2) = 79/4096)" {
  run awk -f "$AWKF" < <(seq 1 12 | awk '{print $1 / 10}')
  [ "$output" = "12 0.65 0.3 1 0.961" ]
}

@test "fewer than 6 ratios give no interval; failed pairs (not numbers) are left out" {
  run awk -f "$AWKF" <<< $'1.0\nNA\n\n1.1\n-3\n0.9\n1.2\n1.3'
  [ "$output" = "5 1.1 NA NA NA" ]
  run awk -f "$AWKF" < /dev/null
  [ "$output" = "0 NA NA NA NA" ]
}

@test "ci/bench-run refuses fewer than 7 pairs, a fractional window and an ACK timeout out of 1..31, naming the value and the fix" {
  PAIRS=5 run "$ROOT/ci/bench-run"
  [ "$status" -eq 2 ]
  [[ $output == *"PAIRS=5"*"at least 7"*"PAIRS=9"* ]]
  BW_SECS=0.5 run "$ROOT/ci/bench-run"
  [ "$status" -eq 2 ]
  [[ $output == *"BW_SECS=0.5"*"whole seconds"* ]]
  for v in 0 32 x; do
    ACK_TIMEOUT=$v run "$ROOT/ci/bench-run"
    [ "$status" -eq 2 ]
    [[ $output == *"ACK_TIMEOUT=$v: need 1..31"* ]]
  done
}

@test "make bench's settings are refused on the host, before a VM boots" {
  for v in "PAIRS=3" "ACK_TIMEOUT=40" "BW_SECS=0.5" "CLIENT_CPU=x" "CLIENT_CPU=99" "CG_REPS=0"; do
    run env "$v" "$ROOT/ci/bench"
    [ "$status" -eq 2 ]
    [[ $output == *"ci/bench-run: ${v%%=*}="* ]]
    [[ $output != *"ci/vm"* ]]
  done
  # a CPU the VM will not have: named with the VM's vCPUs and the knob
  run env CLIENT_CPU=4 RB_VM_SMP=4 "$ROOT/ci/bench"
  [ "$status" -eq 2 ]
  [[ $output == *"CLIENT_CPU=4: the VM gets 4 vCPUs (RB_VM_SMP), CPUs 0..3"* ]]
  [[ $output != *"ci/vm"* ]]
}

@test "ci/harness-overhead sends every size through the binary's option checks before it boots anything" {
  [ -x "$ROOT/rdma_bench" ] || skip "rdma_bench not built (make)"
  run "$ROOT/ci/harness-overhead" --sizes 32,0,64
  [ "$status" -eq 2 ]
  [[ $output == *"zero-byte READ moves nothing"* ]]
  [[ $output == *"--sizes 32,0,64: 0 is refused"* ]]
  [[ $output != *"ci/vm"* ]]
}

@test "ci/harness-overhead --ud refuses a size above the bed's path MTU (1024 B) before it boots anything" {
  [ -x "$ROOT/rdma_bench" ] || skip "rdma_bench not built (make)"
  run "$ROOT/ci/harness-overhead" --ud --sizes 64,2048
  [ "$status" -eq 2 ]
  [[ $output == *"--size 2048 with --transport ud --mtu 1024"* ]] || { echo "$output"; false; }
  [[ $output == *"--sizes 64,2048: 2048 is refused"* ]]
  [[ $output != *"ci/vm"* ]]
}

@test "ci/harness-overhead refuses a bad process count before it boots anything" {
  run "$ROOT/ci/harness-overhead" --procs 0
  [ "$status" -eq 2 ]
  [[ $output == *"--procs 0: client processes per point, 1 to 99; give e.g. --procs 4"* ]] || { echo "$output"; false; }
  run "$ROOT/ci/harness-overhead" --procs x4
  [ "$status" -eq 2 ]
}

@test "ci/harness-overhead refuses a missing value, too many repetitions and a size given twice before it boots anything" {
  local a
  for a in --reps --procs --sizes; do
    run "$ROOT/ci/harness-overhead" "$a"
    [ "$status" -eq 2 ]
    [[ $output == "ci/harness-overhead: $a needs a value (see --help)" ]] || { echo "$output"; false; }
  done
  run "$ROOT/ci/harness-overhead" --sizes ""
  [ "$status" -eq 2 ]
  run "$ROOT/ci/harness-overhead" --reps 10000
  [ "$status" -eq 2 ]
  [[ $output == *"--reps 10000: at most 9999"* ]] || { echo "$output"; false; }
  run "$ROOT/ci/harness-overhead" --sizes 64,32,64
  [ "$status" -eq 2 ]
  [[ $output == *"--sizes 64,32,64: 64 is given twice"* ]] || { echo "$output"; false; }
}

@test "ci/slow-mode.awk counts each tool's runs in the bed's slow mode (below 0.75x its best rate, above 1.33x its best latency) and the pairs in one mode; failed runs left out" {
  # a run of make bench (32 B READ, 9 pairs): 7 and 6 slow, 4 pairs alike
  run awk -v kind=bw -v a="0.0176 0.0164 0.0175 0.0176 0.0175 0.0318 0.0172 0.0170 0.0324" \
    -v b="0.0176 0.0168 0.0306 0.0327 0.0171 0.0189 0.0181 0.0328 0.0179" -f "$ROOT/ci/slow-mode.awk"
  [ "$status" -eq 0 ]
  [ "$(echo $output)" = "7/9 6/9 4/9" ] || { echo "$output"; false; }
  # latency: 1.33x the smallest; 20 is slow against 15, 19.9 is not
  run awk -v kind=lat -v a="15 20 19.9" -v b="30 30 NA" -f "$ROOT/ci/slow-mode.awk"
  [ "$(echo $output)" = "1/3 0/2 1/2" ] || { echo "$output"; false; }
}

@test "ci/cg-calls.awk sums the inclusive cost of every call of a function, its name given once (callgrind's name compression)" {
  local f=$BATS_TEST_TMPDIR/cg.out
  # qsort named at its first use (as a callee of main), called again from
  # fn 7 by id only; another callee's cost and qsort's own self cost and
  # its callee (qsort_r) must not count
  cat > "$f" <<'CG'
events: Ir
fn=(1) main
10 5
cfn=(2) qsort
calls=1 0
11 1000
cfn=(3) other
calls=2 0
12 77
fn=(2)
0 2
cfn=(4) qsort_r
calls=1 0
0 998
fn=(7) 0x00000000000004c870
3 4
cfn=(2)
calls=3 0
+1 300
CG
  run awk -v name=qsort -f "$ROOT/ci/cg-calls.awk" "$f" "$f"
  [ "$status" -eq 0 ]
  [ "$output" = 1300 ] || { echo "$output"; false; }
  run awk -v name=memcpy -f "$ROOT/ci/cg-calls.awk" "$f" "$f"
  [ "$output" = 0 ]
}

@test "ci/cg-objects.awk sums each object's own instructions: a call's inclusive line skipped, an object first named in cob= resolved, ob switches the current object" {
  local f=$BATS_TEST_TMPDIR/cg.out
  # main (tool) 5 + 7 own, its call into libc (inclusive 1000) not counted;
  # libc first named by a call (cob=), then entered by id: 2 + 3 own; the
  # provider 40 own (relative positions +1, -1 and * on cost lines)
  cat > "$f" <<'CG'
events: Ir
summary: 57
ob=(1) /usr/bin/tool
fl=(1) tool.c
fn=(1) main
10 5
cob=(2) /usr/lib/x86_64-linux-gnu/libc.so.6
cfn=(2) write
calls=1 0
11 1000
+1 7
ob=(2)
fn=(2)
0 2
* 3
ob=(3) /usr/lib/x86_64-linux-gnu/libibverbs/librxe-rdmav34.so
fn=(3) 0x3cc0
-1 40
CG
  run awk -f "$ROOT/ci/cg-objects.awk" "$f"
  [ "$status" -eq 0 ]
  sorted=$(sort <<< "$output" | tr '\n' ';')
  [ "$sorted" = "12 tool;40 librxe-rdmav34.so;5 libc.so.6;total 57;" ] || { echo "$output"; false; }
}

# ci/perftest-mean.awk: the untrimmed mean of perftest's -U samples (the
# like-for-like latency row of make bench)
@test "perftest -U samples: the mean of all of them, the two largest included; the table lines are not samples" {
  local log=$BATS_TEST_TMPDIR/pt.log
  cat > "$log" <<'LOG'
---------------------------------------------------------------------------------------
 #bytes #iterations    t_min[usec]    t_max[usec]  t_typical[usec]    t_avg[usec]    t_stdev[usec]   99% percentile[usec]   99.9% percentile[usec]
#, usec
1, 5307.04
2, 259.205
3, 30
4, 30
5, 1.5e+01
 #bytes #iterations    t_min[usec]    t_max[usec]  t_typical[usec]    t_avg[usec]    t_stdev[usec]   99% percentile[usec]   99.9% percentile[usec]
 8       6          15.00          30.00       30.00    	       25.00       	7.47   		30.00   		30.00
LOG
  run awk -f "$ROOT/ci/perftest-mean.awk" "$log"
  [ "$status" -eq 0 ]
  [ "$output" = "1128.25" ] || { echo "got '$output'"; false; }
  # a run without -U (or a failed one): no value, not 0
  run awk -f "$ROOT/ci/perftest-mean.awk" <<< ' 8  1000  15.00  30.00  30.00  25.00  7.47  30.00  30.00'
  [ "$status" -eq 0 ]
  [ -z "$output" ]
}

@test "ci/bench-null refuses bad instruction-count settings before it runs anything" {
  IR_N1=300000 IR_N2=100000 run "$ROOT/ci/bench-null"
  [ "$status" -eq 2 ]
  [[ $output == *"IR_N1=300000 IR_N2=100000: need whole operation counts, IR_N2 > IR_N1, both multiples of 16"* ]] || { echo "$output"; false; }
  IR_N1=100 run "$ROOT/ci/bench-null"
  [ "$status" -eq 2 ]
  [[ $output == *"IR_N1=100 "* ]] || { echo "$output"; false; }
  IR_REPS=0 run "$ROOT/ci/bench-null"
  [ "$status" -eq 2 ]
  [[ $output == *"IR_REPS=0: need 1..9 callgrind runs"* ]] || { echo "$output"; false; }
}
