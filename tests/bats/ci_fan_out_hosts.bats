#!/usr/bin/env bats
# ci/fan-out-hosts --check: the checks of the smoke case exp.3vm-fan-out-hosts
# (client processes round robin over the client hosts vm2, vm3; every host's
# rows in the point) on the rows of a real 3-VM bed run (fixtures/fan-out:
# figure-12, RC READ 64 B, 3 processes, server on vm1). They hold there, and
# each check fails on the same rows altered the way a broken placement or
# aggregate would leave them.

ROOT=$(cd "$BATS_TEST_DIRNAME/../.." && pwd)
FIX=$ROOT/tests/bats/fixtures/fan-out

setup() {
  export RB_HOSTS=$FIX/hosts
  D=$BATS_TEST_TMPDIR/run
  mkdir -p "$D"
  cp "$FIX/raw.csv" "$FIX/summary.csv" "$D/"
}

check() { run "$ROOT/ci/fan-out-hosts" --check "$D" --procs 3; }

@test "the bed's rows pass: processes 0,2 on vm2, 1 on vm3, summary host vm2+vm3, mops the sum" {
  check
  [ "$status" -eq 0 ]
  [[ $output == *"wanted (process:host): 0:vm2 1:vm3 2:vm2"* ]]
  [[ $output == *"placement and aggregate hold: 3 processes over vm2 vm3"* ]]
}

@test "every process on vm2 (the client list not spread): placement and vm3 named" {
  sed -i 's/,client,vm3,/,client,vm2,/' "$D/raw.csv"
  check
  [ "$status" -eq 1 ]
  [[ $output == *"FAIL placement: rows say '0:vm2 1:vm2 2:vm2 '"* ]]
  [[ $output == *"FAIL no client process ran on vm3"* ]]
}

@test "process 2 on vm3 (not round robin) fails the placement" {
  sed -i '4s/,client,vm2,/,client,vm3,/' "$D/raw.csv"
  check
  [ "$status" -eq 1 ]
  [[ $output == *"FAIL placement"* ]]
  [[ $output != *"no client process ran"* ]]
}

@test "a missing process row fails the placement" {
  sed -i '4d' "$D/raw.csv"
  check
  [ "$status" -eq 1 ]
  [[ $output == *"FAIL placement: rows say '0:vm2 1:vm3 '"* ]]
}

@test "a failed client row fails" {
  sed -i '3s/,client,vm3,\(.*\),ok,/,client,vm3,\1,failed,/' "$D/raw.csv"
  grep -q ',failed,' "$D/raw.csv"
  check
  [ "$status" -eq 1 ]
  [[ $output == *"FAIL a client row is not ok"* ]]
}

@test "the summary's host without vm3 (rows of one host left out) fails" {
  sed -i '2s/,vm2+vm3,/,vm2,/' "$D/summary.csv"
  check
  [ "$status" -eq 1 ]
  [[ $output == *"FAIL summary host 'vm2': want the client hosts vm2 vm3"* ]]
}

@test "mops_median not the sum of the processes' mops fails" {
  sed -i '2s/,ok,,,0.000608,/,ok,,,0.000320,/' "$D/summary.csv"
  check
  [ "$status" -eq 1 ]
  [[ $output == *"FAIL mops_median 0.00032 is not the sum of the processes' mops 0.000608"* ]]
}

@test "overlap_flag low: the rate must be empty (the aggregate's rule); a rate there fails, so does an unknown flag" {
  sed -i '2s/,$/,low/' "$D/summary.csv"
  check
  [ "$status" -eq 1 ]
  [[ $output == *"FAIL overlap_flag low, yet mops_median is 0.000608"* ]]
  sed -i '2s/,ok,,,0.000608,0.000608,0.000608,/,ok,,,,,,/' "$D/summary.csv"
  check
  [ "$status" -eq 0 ]
  [[ $output == *"note: the windows overlapped by less than 0.99"* ]]
  cp "$FIX/summary.csv" "$D/"
  sed -i '2s/,$/,unknown/' "$D/summary.csv"
  check
  [ "$status" -eq 1 ]
  [[ $output == *"FAIL overlap_flag 'unknown'"* ]]
}

@test "a low-overlap point (its one repetition below 0.99, no rate) passes with flag low, fails without it" {
  sed -i '2s/,ok,,,0.000608,0.000608,0.000608,/,low-overlap,overlap 0.98 < 0.99: rate not trusted (1 of 1 repetitions),,,,,/; 2s/,$/,low/' "$D/summary.csv"
  grep -q ',low-overlap,' "$D/summary.csv"
  check
  [ "$status" -eq 0 ]
  [[ $output == *"note: the windows overlapped by less than 0.99"* ]]
  sed -i '2s/,low$/,/' "$D/summary.csv"
  check
  [ "$status" -eq 1 ]
  [[ $output == *"FAIL summary status 'low-overlap' (overlap_flag ''), want ok, or low-overlap with overlap_flag low"* ]]
}

@test "a failed point fails, no point fails" {
  sed -i '2s/,1,1,0,ok,/,1,0,3,failed,/' "$D/summary.csv"
  check
  [ "$status" -eq 1 ]
  [[ $output == *"FAIL summary status 'failed' (overlap_flag ''), want ok, or low-overlap with overlap_flag low"* ]]
  head -n 1 "$FIX/summary.csv" > "$D/summary.csv"
  check
  [ "$status" -eq 1 ]
  [[ $output == *"FAIL summary.csv: want one point"* ]]
}

@test "fewer than 3 hosts is refused with the fix" {
  head -n 3 "$FIX/hosts" > "$BATS_TEST_TMPDIR/hosts2"
  RB_HOSTS=$BATS_TEST_TMPDIR/hosts2 run "$ROOT/ci/fan-out-hosts" --check "$D"
  [ "$status" -eq 2 ]
  [[ $output == *"lists 2 hosts; need 3 or more (ci/vm run --vms 3)"* ]]
}
