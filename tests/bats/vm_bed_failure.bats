#!/usr/bin/env bats
# ci/vm says when the bed broke: a guest console that shows a kernel panic,
# its "Kernel Offset:" trailer, a soft lockup, a BUG or an RCU stall turns
# any run's exit status into 121 with "ci/vm: the bed failed: LINE", and
# ci/smoke boots again on 121 as on a freeze. Checked on planted consoles
# with ci/vm's own functions (a planted panic in a real VM run,
# `ci/vm run -- sh -c 'echo c > /proc/sysrq-trigger'`, gave exit 121 and
# "the bed failed: [ 32.77] Kernel panic - not syncing: sysrq triggered
# crash (console-vm.log)").

ROOT=$(cd "$BATS_TEST_DIRNAME/../.." && pwd)

# vm_funcs: ci/vm's bed_failure, vm_exit, show_console_tail and log, with
# $run a planted run folder
vm_funcs() {
  run=$BATS_TEST_TMPDIR/run
  mkdir -p "$run"
  # shellcheck disable=SC1090
  source <(sed -n -e '/^log() {/p' -e '/^bed_failure() {/,/^}/p' -e '/^vm_exit() {/,/^}/p' \
    -e '/^show_console_tail() {/,/^}/p' -e '/^boot_froze() {/,/^}/p' "$ROOT/ci/vm")
}

@test "bed_failure finds each sign of a broken guest kernel, and nothing on a clean console" {
  vm_funcs
  printf '[    1.0] Linux version 6.1\nrb-vm: ready\n' > "$run/console-vm1.log"
  run bed_failure
  [ "$status" -eq 1 ]
  [ -z "$output" ]
  local sign
  for sign in 'Kernel panic - not syncing: sysrq triggered crash' 'Kernel Offset: disabled' \
      'watchdog: BUG: soft lockup - CPU#1 stuck for 71s! [rdma_bench:311]' \
      'BUG: kernel NULL pointer dereference, address: 0000000000000008' \
      'rcu: INFO: rcu_sched detected stalls on CPUs/tasks:'; do
    printf '[    1.0] Linux version 6.1\n[   32.7] %s\r\n' "$sign" > "$run/console-vm2.log"
    run bed_failure
    [ "$status" -eq 0 ]
    [ "$output" = "[   32.7] $sign (console-vm2.log)" ] || { echo "$output"; false; }
  done
}

@test "boot_froze: a node that said ready, answers no ssh and wrote no heartbeat for RB_VM_HEARTBEAT_S froze (exit 123); a live or unready one did not" {
  vm_funcs
  local -a ready_seen=()
  export RB_VM_HEARTBEAT_S=60
  # not ready yet: nothing to judge
  printf '[    1.0] Linux version 6.1\n' > "$run/console-vm1.log"
  run boot_froze 1
  [ "$status" -eq 0 ]
  [ -z "$output" ]
  # ready, its heartbeat written 2 s ago: alive
  printf 'rb-vm: ready\n' >> "$run/console-vm1.log"
  date +%s > "$run/heartbeat-vm1"
  touch -d '-2 seconds' "$run/heartbeat-vm1"
  run boot_froze 1
  [ "$status" -eq 0 ]
  [ -z "$output" ]
  # ready, its heartbeat file created 90 s ago and never written since
  : > "$run/heartbeat-vm1"
  touch -d '-90 seconds' "$run/heartbeat-vm1"
  ready_seen[1]=$(( $(date +%s) - 90 ))
  run boot_froze 1
  [ "$status" -eq 123 ]
  [[ ${lines[0]} == "ci/vm: vm1 said ready but answers no ssh, and its heartbeat ($run/heartbeat-vm1) is 9"*" s old (limit RB_VM_HEARTBEAT_S=60): the guest froze while it booted; the bed's failure" ]] || { echo "$output"; false; }
  # ready 30 s ago, no heartbeat file at all: not yet
  rm -f "$run/heartbeat-vm1"
  ready_seen[1]=$(( $(date +%s) - 30 ))
  run boot_froze 1
  [ "$status" -eq 0 ]
}

@test "vm_exit: a run whose guest panicked exits 121 saying the bed failed, whatever the command's status; else the status" {
  vm_funcs
  printf '[   32.7] Kernel panic - not syncing: sysrq triggered crash\n[   32.8] Kernel Offset: disabled\n' > "$run/console-vm.log"
  run vm_exit 0
  [ "$status" -eq 121 ]
  [[ ${lines[0]} == "ci/vm: the bed failed: [   32.7] Kernel panic - not syncing: sysrq triggered crash (console-vm.log); the command's status 0 is the bed's, not the measurement's"* ]] || { echo "$output"; false; }
  [[ $output == *"--- last lines of $run/console-vm.log ---"* ]]
  run vm_exit 125
  [ "$status" -eq 121 ]
  printf 'rb-vm: ready\n' > "$run/console-vm.log"
  run vm_exit 3
  [ "$status" -eq 3 ]
  [ -z "$output" ]
}

@test "every exit of a VM run goes through vm_exit; ci/smoke and figure-smoke boot again on 121" {
  run grep -cE '^\s+exit (12[345]|"\$rc")' "$ROOT/ci/vm"
  [ "$output" = 0 ]
  run grep -cE 'vm_exit (12[345]|"\$rc")' "$ROOT/ci/vm"
  [ "$output" -ge 7 ]
  run grep -c '"$rc" != 121' "$ROOT/ci/smoke"
  [ "$output" = 1 ]
  run grep -c 'exit 12\[135\]' "$ROOT/ci/figure-smoke"
  [ "$output" = 1 ]
}
