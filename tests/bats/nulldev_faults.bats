#!/usr/bin/env bats
# Faults injected on purpose through the null device (tests/nulldev/,
# RB_NULLDEV_FAULTS): rdma_bench's checks must see each one. Server and
# client are two processes on this host (tests/nulldev/run-pair); no RDMA
# device or VM. Each fault test has a clean twin that must pass, so a
# check that always fails cannot pass here either.

load nulldev

setup() {
  nulldev_setup
}

# col NAME: the process row's (thread=all) column NAME of the last point in $CSV
col() {
  "$ROOT/tests/nulldev/csvcol" "$CSV" "$1"
}

# validated FAULTS VERB [ARGS...]: a --validate point with client faults
validated() {
  local faults=$1 verb=$2
  shift 2
  run "$PAIR" --client-env "RB_NULLDEV_FAULTS=$faults" -- --verb "$verb" --validate \
    -n 1000 --csv "$CSV" "$@"
  echo "$output"
}

# fails_check: exit 1, check=fail, status=failed in the row
fails_check() {
  [ "$status" = 1 ]
  [ "$(col check)" = fail ]
  [ "$(col status)" = failed ]
}

passes_check() {
  [ "$status" = 0 ]
  [ "$(col check)" = pass ]
  [ "$(col status)" = ok ]
}

@test "--validate passes on the null device with no fault (WRITE, READ, SEND, atomics)" {
  for v in write read send fetch_add cmp_swap; do
    rm -f "$CSV"
    validated "" "$v"
    passes_check
  done
}

@test "a flipped byte in WRITE: --validate reports check=fail, status=failed, exit 1" {
  validated flip=100 write
  fails_check
  grep -q "server check failed: QP 0 byte 0 is" <<< "$output"
}

@test "a flipped byte in READ: --validate reports check=fail, exit 1" {
  validated flip=100 read
  fails_check
  grep -q "differs from the server's pattern" <<< "$output"
}

@test "a flipped byte in a SEND's payload: --validate reports check=fail, exit 1" {
  validated flip=100 send
  fails_check
  grep -q "received payloads differ from the client's pattern" <<< "$output"
}

@test "a lost fetch-and-add (remote word unchanged): --validate reports the counter sum" {
  validated atomic_skip=100 fetch_add
  fails_check
  grep -q "counter sum 990 != 1000 fetch_adds completed" <<< "$output"
}

@test "a wrong compare-and-swap original value: --validate reports check=fail" {
  validated atomic_wrong=100 cmp_swap
  fails_check
  grep -q "counter sum .* successful cmp_swaps" <<< "$output"
}

@test "atomics self-test: replies in the other byte order are swapped back (default) or refused by name" {
  local ok_success
  # every reply in this host's order: host, cmp_swap's successes as counted
  validated "" cmp_swap
  passes_check
  [ "$(col atomic_order)" = host ]
  ok_success=$(col atomic_success)
  [ "$ok_success" -gt 0 ]
  # every reply byte-swapped: found, said, swapped back: the same successes
  # and the counter check passes
  validated atomic_bswap=1 cmp_swap
  passes_check
  [ "$(col atomic_order)" = swapped ]
  [ "$(col atomic_success)" = "$ok_success" ]
  grep -q "^WARN null0 replies to atomics in the other byte order (self-test); the replies are swapped back" <<< "$output"
  validated atomic_bswap=1 fetch_add
  passes_check
  [ "$(col atomic_order)" = swapped ]
  # --atomic-order refuse: the point is refused naming both values, exit 2
  validated atomic_bswap=1 fetch_add --atomic-order refuse
  [ "$status" = 2 ]
  [ "$(col status)" = skipped ]
  [ "$(col atomic_order)" = swapped ]
  grep -q "refused by the client: atomic self-test: null0 replies to fetch_add in the other byte order (0x0807060504030201 back for 0x0102030405060708); --atomic-order swap" <<< "$output"
  # a reply that is neither: refused as a device fault
  validated atomic_wrong=1 fetch_add
  [ "$status" = 1 ]
  grep -q "atomic self-test: the second fetch_add of 0x0102030405060708 on null0 returned 0x0102030405060709" <<< "$output"
}

@test "an error completion names its status and the hint, and the row is failed" {
  run "$PAIR" --client-env RB_NULLDEV_FAULTS=err_wr=50,err_status=rem_access -- \
    --verb write -n 1000 --csv "$CSV"
  echo "$output"
  [ "$status" = 1 ]
  grep -q "write completion error on qpn 0x[0-9a-f]*: remote access error (status 10" <<< "$output"
  grep -q "(remote access refused: rkey or address outside the peer's MR)" <<< "$output"
  [ "$(col status)" = failed ]
}

@test "an error status given by name (retry_exc) reaches the message with its hint" {
  run "$PAIR" --client-env RB_NULLDEV_FAULTS=err_wr=3,err_status=retry_exc -- --verb read -n 100
  echo "$output"
  [ "$status" = 1 ]
  grep -q "read completion error on qpn 0x[0-9a-f]*: transport retry counter exceeded (status 12" <<< "$output"
  grep -q "no ACK from the peer within --ack-timeout" <<< "$output"
}

@test "a QP moved to ERROR: the flushed WR is named with its hint" {
  run "$PAIR" --client-env RB_NULLDEV_FAULTS=qp_error=20 -- --verb read -n 1000
  echo "$output"
  [ "$status" = 1 ]
  grep -q "Work Request Flushed Error (status 5" <<< "$output"
  grep -q "QP in error state after an earlier failure" <<< "$output"
}

@test "a post failing with ENOMEM names the verb, the post and its WRs" {
  run "$PAIR" --client-env RB_NULLDEV_FAULTS=post_enomem=3 -- --verb write -n 1000 -l 4
  echo "$output"
  [ "$status" = 1 ]
  grep -q "write rc bw 64 B rep 0: thread 0: ibv_post_send(4 WRs, qpn 0x[0-9a-f]*, [0-9]* outstanding on it) failed: Cannot allocate memory" <<< "$output"
}

@test "lost receives are counted in server_recvs (every 10th of 1000 SENDs lost)" {
  run "$PAIR" --server-env RB_NULLDEV_FAULTS=lose_recv=10 -- --verb send -n 1000 --csv "$CSV"
  echo "$output"
  [ "$status" = 0 ]
  [ "$(col ops)" = 1000 ]
  [ "$(col server_recvs)" = 900 ]
  rm -f "$CSV"
  run "$PAIR" -- --verb send -n 1000 --csv "$CSV"
  [ "$status" -eq 0 ] || { echo "$output"; false; }
  [ "$(col server_recvs)" = 1000 ]
}

@test "rdma_cm is refused by name on the null device" {
  run "$PAIR" -- --verb write -n 10 -R
  echo "$output"
  [ "$status" != 0 ]
  grep -q "rdma_cm (rdma_bench -R, perftest -R) is not modelled by the null device" <<< "$output"
}

@test "rdma_seq: a wrong fetch-and-add original fails its uniqueness check; clean runs pass" {
  RB_BIN=$ROOT/rdma_seq run "$PAIR" -- --variant atomics --threads 2
  echo "$output"
  [ "$status" = 0 ]
  grep -q "^atomics .* exact *ok" <<< "$output"
  RB_BIN=$ROOT/rdma_seq run "$PAIR" --client-env RB_NULLDEV_FAULTS=atomic_wrong=50 -- --variant atomics
  echo "$output"
  [ "$status" = 1 ]
  grep -q "uniqueness check failed: value [0-9]* handed out twice" <<< "$output"
  RB_BIN=$ROOT/rdma_seq run "$PAIR" -- --variant drtm-kv
  [ "$status" = 0 ]
}
