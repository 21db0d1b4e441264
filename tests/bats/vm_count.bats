#!/usr/bin/env bats
# The VM bed's count of VMs (ci/vm run --vms 1..4, make figure-N VMS=1..4):
# a count outside it is refused before anything boots, naming the value,
# the limit and the fix.

ROOT=$(cd "$BATS_TEST_DIRNAME/../.." && pwd)

@test "ci/vm run --vms 5 and --vms 0 are refused (exit 2) naming the bed's 1 to 4 VMs" {
  for n in 5 0 x; do
    run "$ROOT/ci/vm" run --vms "$n" -- true
    [ "$status" -eq 2 ]
    [[ $output == *"--vms $n: the bed has 1 to 4 VMs (vm1..vm4 on 198.18.0.1-4)"* ]]
  done
}

@test "make figure-N VMS=5 is refused by experiments/reproduce (exit non-zero) naming VMS=1..4" {
  VMS=5 run "$ROOT/experiments/reproduce" figure-12
  [ "$status" -ne 0 ]
  [[ $output == *"VMS=5: the VM bed has 1 to 4 VMs (make VMS=1, 2, 3 or 4)"* ]]
}

@test "ci/vm run: an option given without its value is a usage error (exit 2) naming what it takes" {
  local o
  for o in --timeout --vms --mem --smp --out --accel; do
    run "$ROOT/ci/vm" run "$o"
    [ "$status" -eq 2 ] || { echo "$o: exit $status: $output"; false; }
    [[ $output == *"$o needs "* ]]
  done
}
