#!/usr/bin/env bats
# The VM bed's count of VMs (ci/vm run --vms 1..4, make figure-N VMS=1..4)
# and each VM's memory (--mem): a value outside the limits is refused
# before anything boots, naming the value, the limit and the fix.

ROOT=$(cd "$BATS_TEST_DIRNAME/../.." && pwd)

@test "ci/vm run --vms 5 and --vms 0 are refused (exit 2) naming the bed's 1 to 4 VMs" {
  for n in 5 0 x; do
    run "$ROOT/ci/vm" run --vms "$n" -- true
    [ "$status" -eq 2 ]
    [[ $output == *"--vms $n: the bed has 1 to 4 VMs (vm1..vm4 on 198.18.0.1-4)"* ]]
  done
}

@test "make figure-N VMS=5 is refused by experiments/reproduce (exit non-zero) naming VMS=2..4, the counts a figure runs on" {
  VMS=5 run "$ROOT/experiments/reproduce" figure-12
  [ "$status" -ne 0 ]
  [[ $output == *"VMS=5: a figure's VM bed has 2 to 4 VMs (make VMS=2, 3 or 4; VMS=2 is the default)"* ]]
  VMS=abc run "$ROOT/experiments/reproduce" figure-12
  [ "$status" -ne 0 ]
  [[ $output == *"VMS=abc: a figure's VM bed has 2 to 4 VMs"* ]]
}

@test "ci/vm run: an option given without its value is a usage error (exit 2) naming what it takes" {
  local o
  for o in --timeout --vms --mem --smp --out --accel; do
    run "$ROOT/ci/vm" run "$o"
    [ "$status" -eq 2 ] || { echo "$o: exit $status: $output"; false; }
    [[ $output == *"$o needs "* ]]
  done
}

# a qemu that only says it was started: nothing may boot before the refusal
fake_qemu() {
  mkdir -p "$BATS_TEST_TMPDIR/bin"
  printf '#!/bin/sh\necho "$*" >> "%s/qemu.calls"\n[ "$1" != --version ] || { echo "QEMU emulator version 0.0 (fake)"; exit 0; }\nexit 1\n' \
    "$BATS_TEST_TMPDIR" > "$BATS_TEST_TMPDIR/bin/qemu-system-x86_64"
  chmod +x "$BATS_TEST_TMPDIR/bin/qemu-system-x86_64"
  export PATH=$BATS_TEST_TMPDIR/bin:$PATH
}

@test "ci/vm run --mem below the guest's 300 MiB or above the host's MemAvailable is refused (exit 2) before anything boots" {
  fake_qemu
  local avail
  avail=$(awk '/^MemAvailable:/ { print int($2 / 1024) }' /proc/meminfo)
  for m in 10 299; do
    run "$ROOT/ci/vm" run --mem "$m" --accel tcg --out "$BATS_TEST_TMPDIR/out" -- true
    [ "$status" -eq 2 ] || { echo "$m: exit $status: $output"; false; }
    [[ $output == *"ci/vm: error: --mem $m: a guest needs at least 300 MiB (it boots in ~300 MiB; a figure run takes 420-510 MiB); give --mem 300 or more (default 2048)"* ]] || { echo "$m: $output"; false; }
  done
  # twice what is available (it moves between two reads), and beyond any host
  for m in $((avail * 2)) 99999999999999999999; do
    run "$ROOT/ci/vm" run --mem "$m" --vms 2 --accel tcg --out "$BATS_TEST_TMPDIR/out" -- true
    [ "$status" -eq 2 ] || { echo "$m: exit $status: $output"; false; }
    [[ $output == *"ci/vm: error: --mem $m: more than this host has available ("[0-9]*" MiB, MemAvailable in /proc/meminfo); give --mem "[0-9]*" or less (each VM takes --mem MiB)"* ]] || { echo "$output"; false; }
  done
  # RB_VM_MEM, the default's override, the same
  RB_VM_MEM=10 run "$ROOT/ci/vm" run --accel tcg --out "$BATS_TEST_TMPDIR/out" -- true
  [ "$status" -eq 2 ]
  [[ $output == *"ci/vm: error: RB_VM_MEM=10: a guest needs at least 300 MiB"* ]] || { echo "$output"; false; }
  # nothing booted, no run folder written
  [ ! -e "$BATS_TEST_TMPDIR/qemu.calls" ] || { cat "$BATS_TEST_TMPDIR/qemu.calls"; false; }
  [ ! -e "$BATS_TEST_TMPDIR/out" ]
}

@test "make figure-N VMS=1 is refused before a VM boots: the one-VM runner would need python3 in the VM image" {
  RB_TARGET=vm1 VMS=1 run "$ROOT/experiments/reproduce" figure-12
  [ "$status" -eq 2 ] || { echo "$output"; false; }
  [[ $output == *"VMS=1 runs the runner inside the one VM, whose image (ci/vm-image) has no python3"*"use VMS=2"* ]] || { echo "$output"; false; }
  [[ $output != *"ci/vm: "* ]] || { echo "$output"; false; }
}
