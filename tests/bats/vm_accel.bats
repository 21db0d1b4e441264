#!/usr/bin/env bats
# ci/vm-accel: the VM bed's choice of accelerator, with a fake qemu (no VM
# boots): the KVM probe, its time limit, its cache, and --accel tcg|kvm.

setup() {
  ROOT=$(cd "$BATS_TEST_DIRNAME/../.." && pwd)
  C=$BATS_TEST_TMPDIR/cache
  mkdir -p "$C" "$BATS_TEST_TMPDIR/bin"
  echo "kernel linux-image-9.9-amd64 9.9-1" > "$C/image.key"
  : > "$C/vmlinuz"; : > "$C/initrd.cpio.gz"
  # a usable "/dev/kvm" for the probe
  export RB_KVM_DEV=$BATS_TEST_TMPDIR/kvm
  : > "$RB_KVM_DEV"
  export FAKE_QEMU_LOG=$BATS_TEST_TMPDIR/qemu.log FAKE_QEMU_VERSION="QEMU emulator version 9.9.9 (fake)"
  # the fake: --version, else one "boot": FAKE_QEMU=boots prints the probe's
  # line on the serial file, FAKE_QEMU=hangs prints nothing; both run until
  # they are stopped, and write their PID to FAKE_QEMU_LOG
  cat > "$BATS_TEST_TMPDIR/bin/qemu-system-x86_64" << 'FAKE'
#!/usr/bin/env bash
[ "${1:-}" != --version ] || { echo "$FAKE_QEMU_VERSION"; echo "Copyright (c) fake"; exit 0; }
serial=""
while [ $# -gt 0 ]; do
  case $1 in -serial) serial=${2#file:}; shift ;; esac
  shift
done
echo "boot $$ $FAKE_QEMU" >> "$FAKE_QEMU_LOG"
: > "$serial"
[ "$FAKE_QEMU" != boots ] || echo "rb-vm: probe ok" >> "$serial"
trap 'exit 0' TERM
while :; do sleep 0.1; done
FAKE
  chmod +x "$BATS_TEST_TMPDIR/bin/qemu-system-x86_64"
  export PATH=$BATS_TEST_TMPDIR/bin:$PATH
}

boots() { if [ -f "$FAKE_QEMU_LOG" ]; then grep -c '^boot ' "$FAKE_QEMU_LOG" || true; else echo 0; fi; }

@test "auto: KVM that reaches user space is chosen, and the verdict is cached" {
  FAKE_QEMU=boots run "$ROOT/ci/vm-accel" "$C" auto
  [ "$status" -eq 0 ]
  [ "${lines[-1]}" = kvm ]
  [[ $output == *"KVM booted the kernel to user space"* ]]
  [ "$(boots)" -eq 1 ]
  # the probe's qemu is stopped by its PID
  ! kill -0 "$(awk '{ print $2 }' "$FAKE_QEMU_LOG")" 2> /dev/null
  # second time: the cache answers, nothing boots
  FAKE_QEMU=hangs run "$ROOT/ci/vm-accel" "$C" auto
  [ "${lines[-1]}" = kvm ]
  [[ $output == *"cached probe"* ]]
  [ "$(boots)" -eq 1 ]
}

@test "auto: KVM that hangs with no console output gives TCG within the time limit" {
  local t0=$SECONDS
  FAKE_QEMU=hangs RB_KVM_PROBE_S=1 run "$ROOT/ci/vm-accel" "$C" auto
  [ "$status" -eq 0 ]
  [ "${lines[-1]}" = tcg ]
  [[ $output == *"KVM did not reach user space within 1 s"* ]]
  # 1 s of probe and up to 3 s to stop it (3x margin for a loaded machine)
  [ $((SECONDS - t0)) -le 12 ]
  ! kill -0 "$(awk '{ print $2 }' "$FAKE_QEMU_LOG")" 2> /dev/null
  grep -q $'\ttcg\t' "$C/accel-probe"
  # a new qemu version probes again (this time KVM boots)
  FAKE_QEMU=boots FAKE_QEMU_VERSION="QEMU emulator version 10.0 (fake)" run "$ROOT/ci/vm-accel" "$C" auto
  [ "${lines[-1]}" = kvm ] || { echo "$output"; false; }
  [ "$(boots)" -eq 2 ]
  # and the old version's verdict stays what it was
  FAKE_QEMU=boots run "$ROOT/ci/vm-accel" "$C" auto
  [ "${lines[-1]}" = tcg ]
  [ "$(boots)" -eq 2 ]
}

@test "auto without a usable /dev/kvm: TCG, no boot" {
  rm -f "$RB_KVM_DEV"
  FAKE_QEMU=boots run "$ROOT/ci/vm-accel" "$C" auto
  [ "${lines[-1]}" = tcg ]
  [[ $output == *"no usable $RB_KVM_DEV"* ]]
  [ "$(boots)" -eq 0 ]
}

@test "tcg never probes; kvm insists on a usable /dev/kvm; other values are refused" {
  FAKE_QEMU=boots run "$ROOT/ci/vm-accel" "$C" tcg
  [ "$output" = tcg ]
  [ "$(boots)" -eq 0 ]
  run "$ROOT/ci/vm-accel" "$C" kvm
  [ "$output" = kvm ]
  rm -f "$RB_KVM_DEV"
  run "$ROOT/ci/vm-accel" "$C" kvm
  [ "$status" -eq 2 ]
  [[ $output == *"--accel kvm: $RB_KVM_DEV is missing or not usable here (fix: --accel tcg or auto)"* ]]
  run "$ROOT/ci/vm-accel" "$C" fast
  [ "$status" -eq 2 ]
  [[ $output == *"--accel 'fast': give auto, tcg or kvm"* ]]
  run "$ROOT/ci/vm" run --accel fast -- true
  [ "$status" -eq 2 ]
  [[ $output == *"--accel 'fast'"* ]]
}
