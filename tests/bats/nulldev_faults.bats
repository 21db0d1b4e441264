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

@test "--read-completion poll: --validate checks every READ slot (clean passes; a flipped READ byte names its slot)" {
  validated "" read -w 16 --read-completion poll
  passes_check
  [ "$(col ops)" = 1000 ]
  validated flip=100 read -w 16 --read-completion poll
  fails_check
  grep -q "READ slot(s) hold data that differs from the server's pattern: thread 0 READ slot [0-9]* (last filled by QP 0) byte 0 is 0x" <<< "$output"
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
  # the server sums every counter, --stride apart: 3 of them, 128 B apart,
  # 1000 adds spread 334/333/333 (a sum of one counter three times is 1002)
  validated "" fetch_add --atomic-counters 3 --stride 128
  passes_check
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

@test "remote=count: atomics return the original values of a shadow word (self-test passes, cmp_swap as with copy); a skipped update is caught" {
  local copy_success
  # remote=copy: the server's words; with one cmp_swap outstanding each
  # expects the original value its predecessor returned, so all succeed
  # only when every original value comes back
  validated "" cmp_swap -w 1
  passes_check
  copy_success=$(col atomic_success)
  [ "$copy_success" = 1000 ]
  # remote=count (both processes): the server's memory is not touched, the
  # client's shadow words give the same replies (the counter sum of
  # --validate is the server's, so these points run without it)
  export RB_NULLDEV=remote=count
  rm -f "$CSV"
  run "$PAIR" -- --verb fetch_add -n 1000 --csv "$CSV"
  echo "$output"
  [ "$status" = 0 ]
  [ "$(col status)" = ok ]
  [ "$(col atomic_order)" = host ]
  rm -f "$CSV"
  run "$PAIR" -- --verb cmp_swap -w 1 -n 1000 --csv "$CSV"
  echo "$output"
  [ "$status" = 0 ]
  [ "$(col atomic_order)" = host ]
  [ "$(col atomic_success)" = "$copy_success" ]
  # a shadow word left unchanged by every atomic: the self-test's second
  # fetch_add gets 0 back, not its first operand
  rm -f "$CSV"
  run "$PAIR" --client-env RB_NULLDEV_FAULTS=atomic_skip=1 -- --verb fetch_add -n 1000 --csv "$CSV"
  echo "$output"
  [ "$status" = 1 ]
  grep -q "atomic self-test: the second fetch_add of 0x0102030405060708 on null0 returned 0x0000000000000000" <<< "$output"
  # every 100th update lost (10 of 1000): the cmp_swap after each finds
  # the old value and fails
  rm -f "$CSV"
  run "$PAIR" --client-env RB_NULLDEV_FAULTS=atomic_skip=100 -- --verb cmp_swap -w 1 -n 1000 --csv "$CSV"
  echo "$output"
  [ "$status" = 0 ]
  [ "$(col atomic_success)" = 990 ]
}

@test "an error completion names its status and the hint, and the row is failed" {
  run "$PAIR" --client-env RB_NULLDEV_FAULTS=err_wr=50,err_status=rem_access -- \
    --verb write -n 1000 --csv "$CSV"
  echo "$output"
  [ "$status" = 1 ]
  grep -q "write completion error on qpn 0x[0-9a-f]*: remote access error (status 10" <<< "$output"
  grep -q "(remote access refused: rkey or address outside the peer's MR)" <<< "$output"
  [ "$(col status)" = failed ]
  # READ with --read-completion poll: the SQ's error completion is reaped
  # while the loop watches the slots, and ends the point the same way
  run "$PAIR" --client-env RB_NULLDEV_FAULTS=err_wr=50,err_status=rem_access -- \
    --verb read -w 16 --read-completion poll -n 1000 --csv "$CSV"
  echo "$output"
  [ "$status" = 1 ]
  grep -q "read completion error on qpn 0x[0-9a-f]*: remote access error (status 10" <<< "$output"
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

@test "UD: receives from a source QP not of the point are counted in srv_foreign_recvs, not in server_recvs" {
  run "$PAIR" --client-env RB_NULLDEV_FAULTS=foreign_src=10 -- --verb send --transport ud -n 2000 --csv "$CSV"
  echo "$output"
  [ "$status" = 0 ]
  [ "$(col srv_foreign_recvs)" = 200 ]
  [ "$(col server_recvs)" = 1800 ]
  rm -f "$CSV"
  run "$PAIR" -- --verb send --transport ud -n 2000 --csv "$CSV"
  [ "$status" -eq 0 ] || { echo "$output"; false; }
  [ "$(col srv_foreign_recvs)" = 0 ]
  [ "$(col server_recvs)" = 2000 ]
  # not a UD point: the column is empty
  rm -f "$CSV"
  run "$PAIR" -- --verb send -n 100 --csv "$CSV"
  [ "$status" -eq 0 ] || { echo "$output"; false; }
  [ "$(col srv_foreign_recvs)" = "" ]
  # a run without -R: the null device's refusal of rdma_cm (the server's
  # -R listener at start) is not shown
  ! grep -q "rdma_cm" <<< "$output" || false
}

@test "no server at the port: the client says at once whom it waits for and how long (one INFO line), and retries" {
  local log=$BATS_TEST_TMPDIR/client.log c rc=0
  # port 1: nothing listens; --connect-timeout 30 s, stopped after the line
  LD_PRELOAD=$ROOT/build/libnulldev.so "$ROOT/rdma_bench" -c 127.0.0.1 -p 1 --connect-timeout 30 \
    -n 10 > "$log" 2>&1 &
  c=$!
  for _ in $(seq 40); do grep -q "^INFO no server" "$log" && break; sleep 0.05; done
  kill -TERM "$c"
  wait "$c" || rc=$?
  cat "$log"
  [ "$rc" = 143 ]
  [ "$(grep -c '^INFO no server at 127.0.0.1:1 yet (connect: Connection refused): retrying every 200 ms for up to 30 s (--connect-timeout), for a server that is still starting$' "$log")" = 1 ]
  grep -q "interrupted by SIGTERM while connecting to 127.0.0.1:1" "$log"
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

# a server on the null device that keeps serving (not --once), on a random
# port; sets SPID and SPORT, its log in $BATS_TEST_TMPDIR/server.log;
# SRV_BIN: the program (default rdma_bench)
serve_on_nulldev() {
  local try
  for try in 1 2 3 4; do
    SPORT=$((20000 + (RANDOM * 32768 + RANDOM) % 40000))
    LD_PRELOAD=$ROOT/build/libnulldev.so "${SRV_BIN:-$ROOT/rdma_bench}" -s --bind 127.0.0.1 -p "$SPORT" "$@" \
      > "$BATS_TEST_TMPDIR/server.log" 2>&1 &
    SPID=$!
    for _ in $(seq 100); do
      grep -q "listening on" "$BATS_TEST_TMPDIR/server.log" && return 0
      kill -0 "$SPID" 2> /dev/null || break
      sleep 0.05
    done
    kill "$SPID" 2> /dev/null || true
  done
  echo "no server after $try tries: $(tail -n 3 "$BATS_TEST_TMPDIR/server.log")"
  return 1
}

# one client process of run R on the null device, in the background
nd_client() { # LOG ARGS...
  local log=$1
  shift
  LD_PRELOAD=$ROOT/build/libnulldev.so timeout 60 "$ROOT/rdma_bench" -c 127.0.0.1 -p "$SPORT" \
    --verb write -D 0.3 --run-id R "$@" > "$log" 2>&1 &
}

@test "start barrier: a peer with the run id but not the run key neither fails nor joins the run's barrier" {
  serve_on_nulldev
  local key=$BATS_TEST_TMPDIR/key a v0 v1 r0=0 r1=0 ra=0 t0
  (umask 077 && echo 0123456789abcdef0123456789abcdef > "$key")
  # the stranger arrives first, saying --procs 3 (without the key the run's
  # processes were refused: "this process says --procs 2, the 1 already at
  # the start barrier said 3")
  nd_client "$BATS_TEST_TMPDIR/stranger.log" --procs 3 --timeout 6
  a=$!
  sleep 1
  t0=$(date +%s%N)
  nd_client "$BATS_TEST_TMPDIR/p0.log" --procs 2 --proc-index 0 --run-key-file "$key"
  v0=$!
  nd_client "$BATS_TEST_TMPDIR/p1.log" --procs 2 --proc-index 1 --run-key-file "$key"
  v1=$!
  wait "$v0" || r0=$?
  wait "$v1" || r1=$?
  echo "run served in $(( ($(date +%s%N) - t0) / 1000000 )) ms"
  wait "$a" || ra=$?
  kill "$SPID"
  cat "$BATS_TEST_TMPDIR/p0.log" "$BATS_TEST_TMPDIR/server.log"
  [ "$r0" = 0 ]
  [ "$r1" = 0 ]
  [ "$(grep -c "run 'R' point 0: released 2 processes at the start barrier .*keyed by the run key" "$BATS_TEST_TMPDIR/server.log")" = 2 ]
  # the stranger waited at a barrier of its own and timed out there
  [ "$ra" = 1 ]
  grep -q "1 of 3 processes of run 'R' point 0 ready after" "$BATS_TEST_TMPDIR/server.log"
  ! grep -q 0123456789abcdef "$BATS_TEST_TMPDIR/server.log"
}

# one rdma_seq client point against the server of serve_on_nulldev
seq_point() { # ARGS...
  LD_PRELOAD=$ROOT/build/libnulldev.so timeout 60 "$ROOT/rdma_seq" -c 127.0.0.1 -p "$SPORT" -D 0.3 "$@"
}

@test "rdma_seq -s --max-mem: a client's --drtm items and --kv keys above it refused by name, before any allocation; a small point served" {
  SRV_BIN=$ROOT/rdma_seq serve_on_nulldev --max-mem 64M
  run seq_point --variant drtm-kv --drtm items=2000000
  echo "$output"
  [ "$status" = 2 ]
  [[ $output == *"refused by the server: 122.1 MiB above what the server's --max-mem 64.0 MiB leaves"*"--drtm items 2000000"* ]]
  run seq_point --variant herd-kv --kv keys=4000000
  echo "$output"
  [ "$status" = 2 ]
  [[ $output == *"above what the server's --max-mem 64.0 MiB leaves"*"MICA partition of server thread 0 (--kv keys 4000000"* ]]
  run seq_point --variant drtm-kv --drtm items=10000
  [ "$status" = 0 ] || { echo "$output"; false; }
  kill "$SPID"
  grep -q "limits: --max-mem 64 MiB (given)" "$BATS_TEST_TMPDIR/server.log"
  grep -q "point: [0-9.]* MiB charged to --max-mem 64.0 MiB" "$BATS_TEST_TMPDIR/server.log"
}

@test "rdma_seq -s --allow: a client outside the list refused at admission; inside it served" {
  SRV_BIN=$ROOT/rdma_seq serve_on_nulldev --allow 10.0.0.0/8
  run seq_point --variant atomics
  echo "$output"
  [ "$status" != 0 ]
  kill "$SPID"
  SRV_BIN=$ROOT/rdma_seq serve_on_nulldev --allow 127.0.0.0/8
  run seq_point --variant atomics
  [ "$status" = 0 ] || { echo "$output"; false; }
  kill "$SPID"
  grep -q -- "--allow 127.0.0.0/8" "$BATS_TEST_TMPDIR/server.log"
}

@test "a client at the other program's server: each names that program and its own port, exit 2" {
  # rdma_seq at rdma_bench's server: its HELLO in place of rdma_seq's SETUP
  serve_on_nulldev --once
  run seq_point --variant atomics
  [ "$status" = 2 ] || { echo "$output"; false; }
  [[ $output == *"the server at 127.0.0.1:$SPORT is rdma_bench's ('rdma_bench -s' answers with HELLO), not the sequencer's: 'rdma_seq -s' listens on port 18516 by default; give -p"* ]] || { echo "$output"; false; }
  kill "$SPID" 2> /dev/null || true
  wait "$SPID" 2> /dev/null || true
  # rdma_bench at rdma_seq's server, which hangs up on a session with no
  # rdma_seq point
  SRV_BIN=$ROOT/rdma_seq serve_on_nulldev
  LD_PRELOAD=$ROOT/build/libnulldev.so run timeout 60 "$ROOT/rdma_bench" -c 127.0.0.1 -p "$SPORT" --verb write -n 100
  kill "$SPID"
  [ "$status" = 2 ] || { echo "$output"; false; }
  [[ $output == *"while we waited for the server's HELLO; is 'rdma_bench -s' what listens at 127.0.0.1:$SPORT? an 'rdma_seq -s' (port 18516 by default) hangs up"* ]] || { echo "$output"; false; }
}

@test "--max-peer-threads: one address's second SEND point beyond it refused by name while its first runs; served after" {
  serve_on_nulldev --max-threads 8 --max-peer-threads 2
  local bg rb=0
  nd_client "$BATS_TEST_TMPDIR/first.log" --verb send --threads 2 -D 3
  bg=$!
  for _ in $(seq 100); do grep -q "session 1: client" "$BATS_TEST_TMPDIR/server.log" && break; sleep 0.05; done
  sleep 1
  run env LD_PRELOAD="$ROOT/build/libnulldev.so" timeout 60 "$ROOT/rdma_bench" -c 127.0.0.1 -p "$SPORT" --verb send --threads 1 -n 100
  echo "$output"
  wait "$bg" || rb=$?
  [ "$status" = 2 ]
  [[ $output == *"refused by the server: --threads 1 above what the server's --max-peer-threads 2 leaves free for 127.0.0.1 (2 worker threads in use by its sessions)"* ]]
  [ "$rb" = 0 ]
  run env LD_PRELOAD="$ROOT/build/libnulldev.so" timeout 60 "$ROOT/rdma_bench" -c 127.0.0.1 -p "$SPORT" --verb send --threads 2 -n 100
  kill "$SPID"
  [ "$status" = 0 ] || { echo "$output"; false; }
  grep -q -- "--max-threads 8 (all sessions, 2 per address)" "$BATS_TEST_TMPDIR/server.log"
}
