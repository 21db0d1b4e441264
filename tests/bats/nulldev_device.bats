#!/usr/bin/env bats
# The null device's own semantics (tests/nulldev/README.md) in loopback:
# two QPs of one process, build/nulldev-selftest under LD_PRELOAD; then the
# device as programs see it (device list, ports, GIDs, refusals).

ROOT=$(cd "$BATS_TEST_DIRNAME/../.." && pwd)
LIB=$ROOT/build/libnulldev.so
SELF=$ROOT/build/nulldev-selftest

setup() {
  [ -f "$LIB" ] && [ -x "$SELF" ] || { echo "build first: make unit"; return 1; }
}

# selftest CASE [VAR=VALUE...]: one self-test case under the device
selftest() {
  local c=$1
  shift
  run env LD_PRELOAD="$LIB" "$@" "$SELF" "$c"
  echo "$output"
}

@test "loopback: WRITE, READ and atomics act on the peer QP's MR" {
  for CASE in write read atomics; do
    selftest "$CASE"
    [ "$status" = 0 ]
  done
}

@test "loopback: a SEND waits for a RECV and lands in it; UD after the GRH" {
  for CASE in send ud; do
    selftest "$CASE"
    [ "$status" = 0 ]
  done
}

@test "completion rules: unsignaled WRs give no CQE, poll returns at most N, errors always complete" {
  for CASE in unsignaled access sqfull; do
    selftest "$CASE"
    [ "$status" = 0 ]
  done
}

@test "loopback faults: a flipped WRITE byte and a wrong atomic original are seen by the self-test" {
  selftest write RB_NULLDEV_FAULTS=flip=1
  [ "$status" = 1 ]
  [[ $output == *"WRITE did not land at the remote address"* ]]
  selftest atomics RB_NULLDEV_FAULTS=atomic_wrong=1
  [ "$status" = 1 ]
  [[ $output == *"fetch-and-add: original 43 (want 42)"* ]]
  selftest send RB_NULLDEV_FAULTS=lose_recv=1
  [ "$status" = 1 ]
  [[ $output == *"ibv_poll_cq returned 0 CQEs, expected 1"* ]]
}

@test "the device as rdma_bench sees it: IB link with a LID, RoCE with the v4-mapped GID, a down port refused" {
  run env LD_PRELOAD="$LIB" RB_NULLDEV=link=ib,mtu=4096 "$ROOT/tests/nulldev/run-pair" -- --verb write -n 10
  echo "$output"
  [ "$status" = 0 ]
  [[ $output == *"device null0 port 1 (IB, active MTU 4096), GID index 0 (IB, auto) fe80::2:c903:a0:b000, lid 0x2"* ]]
  run "$ROOT/tests/nulldev/run-pair" -- --verb write -n 10
  [[ $output == *"GID index 1 (RoCE v2, auto) ::ffff:127.0.0.1"* ]]
  run "$ROOT/tests/nulldev/run-pair" --client-env RB_NULLDEV=state=down -- --verb write -n 10
  echo "$output"
  [ "$status" != 0 ]
  [[ $output == *"null0 has no ACTIVE port"* ]]
}

@test "bad configuration is refused naming the key, the value and the fix" {
  run env LD_PRELOAD="$LIB" RB_NULLDEV=mtu=999 "$SELF" write
  [ "$status" = 2 ]
  [[ $output == *"RB_NULLDEV: mtu=999: use 256, 512, 1024, 2048 or 4096"* ]]
  run env LD_PRELOAD="$LIB" RB_NULLDEV_FAULTS=bogus=1 "$SELF" write
  [ "$status" = 2 ]
  [[ $output == *"RB_NULLDEV_FAULTS: unknown key 'bogus'"* ]]
}

@test "run-pair --help prints its own usage; a client usage error (exit 2) stops the server at once" {
  run "$ROOT/tests/nulldev/run-pair" --help
  [ "$status" = 0 ]
  [[ $output == "tests/nulldev/run-pair: one rdma_bench server and client"*"run-pair [--bin PROG] [--server-env VAR=VAL]"* ]] || { echo "$output"; false; }
  local t0=$SECONDS
  run "$ROOT/tests/nulldev/run-pair" -- --verb foo
  [ "$status" = 2 ] && [[ $output == *"--verb 'foo': unknown"* ]] || { echo "$output"; false; }
  # the server used to be given 5 s to exit by itself
  [ $(( SECONDS - t0 )) -le 3 ] || { echo "took $(( SECONDS - t0 )) s"; false; }
}

@test "run-pair says first that it runs on the null device; --explain names the null device, not just 'no PCI device'" {
  run "$ROOT/tests/nulldev/run-pair" -- --verb write -n 10 --explain
  [ "$status" = 0 ] || { echo "$output"; false; }
  [ "${lines[0]}" = "run-pair: the null device (no RDMA hardware): the rates below are this host's software cost, not a network's; see tests/nulldev/README.md" ] || { echo "$output"; false; }
  [[ $output == *"EXPLAIN write rc bw 64 B rep 0: "*" Mops; the null device (no RDMA hardware): the rate is this host's software cost, not a network's; no PCI device: CPU/software-bound"* ]] || { echo "$output"; false; }
}

@test "rdma_seq's no-hardware hint runs as given: run-pair --bin rdma_seq; its doc's -q agrees with rdma_seq" {
  # no RDMA stack here (no LD_PRELOAD): the hint names the command to try
  run "$ROOT/rdma_seq" -c 127.0.0.1 --variant atomics
  [ "$status" != 0 ]
  local hint=${output##*try the options on the null device: }
  hint=${hint%% -- ARGS*}
  [ "$hint" = "tests/nulldev/run-pair --bin rdma_seq" ] || { echo "$output"; false; }
  # shellcheck disable=SC2086  # the hint's words
  run $ROOT/$hint -- --variant atomics -D 0.2
  [ "$status" = 0 ] && [[ $output == *"atomics "*" exact   ok"* ]] || { echo "$output"; false; }
  # rdma_seq refuses -q: docs/rdma_seq.md must not call it --quiet
  run "$ROOT/rdma_seq" -q
  [ "$status" = 2 ] && [[ $output == *"unknown option '-q'"* ]] || { echo "$output"; false; }
  ! grep -q '`-q` is `--quiet`' "$ROOT/docs/rdma_seq.md"
}
