#!/usr/bin/env bats
# rdma_bench's data path (bench/rdma_bench/post.c, bench/rdma_bench/client.c and
# server.c) on the null device (tests/nulldev/), two processes on this
# host: the knobs' effects as the device counts them (RB_NULLDEV_STATS:
# WRs per ibv_post_send, outstanding WRs, signaled WRs, CQEs polled, WRs
# left outstanding at teardown) against the rows rdma_bench writes.
# poll_delay=N (RB_NULLDEV) holds each CQE back for N polls of its CQ, so
# the window fills as on a device with a round trip; without it every CQE
# is ready at once and the signal interval alone bounds what is outstanding.

load nulldev

setup() {
  nulldev_setup
  STATS=$BATS_TEST_TMPDIR/client.stats
}

# point [RB_NULLDEV] -- ARGS: one client point with the device's counters
point() {
  local dev=$1
  shift 2
  rm -f "$STATS" "$CSV"
  run "$PAIR" --client-env "RB_NULLDEV=$dev" --client-env "RB_NULLDEV_STATS=$STATS" -- \
    --csv "$CSV" "$@"
  echo "$output" | grep -E "ERROR|^all" || true
  [ "$status" = 0 ]
  cat "$STATS"
}

col() { "$ROOT/tests/nulldev/csvcol" "$CSV" "$1"; }
# stat KEY: the client's counter (one process wrote the file)
stat() { sed -n "s/^$1=//p" "$STATS"; }
# qps: the per-QP lines
qps() { grep '^qp=' "$STATS"; }

@test "postlist 8: every ibv_post_send carries 8 WRs (125 doorbells for 1000 WRITEs)" {
  point "" -- --verb write -n 1000 -l 8
  [ "$(stat max_wrs_per_call)" = 8 ]
  [ "$(stat post_send_calls)" = 125 ]
  [ "$(stat send_wrs)" = 1000 ]
  point "" -- --verb write -n 1000 -l 1
  [ "$(stat max_wrs_per_call)" = 1 ]
  [ "$(stat post_send_calls)" = 1000 ]
}

@test "window 32 and 8: the most WRs outstanding on the QP is the window" {
  point poll_delay=200 -- --verb write -n 1000 -w 32
  [ "$(stat max_outstanding)" = 32 ]
  point poll_delay=200 -- --verb write -n 1000 -w 8 --signal-interval 4
  [ "$(stat max_outstanding)" = 8 ]
  point poll_delay=200 -- --verb read -n 1000 -w 16
  [ "$(stat max_outstanding)" = 16 ]
}

@test "signal interval 16, 4, 1 and 6 with postlist 16: one signaled WR per interval, the last WR signaled for the drain" {
  point "" -- --verb write -n 1000 --signal-interval 16
  # WRs 16, 32, ..., 992 and the 1000th
  [ "$(stat signaled)" = 63 ]
  [ "$(stat unsignaled)" = 937 ]
  [ "$(col signal_interval)" = 16 ]
  point "" -- --verb write -n 1000 --signal-interval 4
  [ "$(stat signaled)" = 250 ]
  point "" -- --verb write -n 1000 --signal-interval 1
  [ "$(stat signaled)" = 1000 ]
  [ "$(stat unsignaled)" = 0 ]
  # postlist 16, interval 6: the signaled WR moves within the list from one
  # post to the next and is unsignaled again after it (post_batch): WRs 6,
  # 12, ..., 996 and the 1000th
  point "" -- --verb write -n 1000 -l 16 --signal-interval 6
  [ "$(stat signaled)" = 167 ]
  [ "$(stat unsignaled)" = 833 ]
}

@test "drain at the end: every signaled WR's CQE is polled and no WR is left outstanding" {
  point poll_delay=50 -- --verb write -n 1000 -w 64
  [ "$(stat cqes)" = "$(stat signaled)" ]
  [ "$(stat undrained)" = 0 ]
  point poll_delay=50 -- --verb fetch_add -n 999 -w 16
  [ "$(stat cqes)" = "$(stat signaled)" ]
  [ "$(stat undrained)" = 0 ]
}

# selftest VERB: the WRs of the atomics' startup self-test (two fetch-and-adds)
selftest() { case $1 in fetch_add|cmp_swap) echo 2 ;; *) echo 0 ;; esac; }

@test "ops in the row equal the WRs the device executed (WRITE, READ, SEND, atomics)" {
  for v in write read send fetch_add cmp_swap; do
    point "" -- --verb "$v" -n 777
    [ "$(col ops)" = 777 ]
    [ "$(stat send_wrs)" = $((777 + $(selftest "$v"))) ]
  done
}

@test "ops in the row, appended: a second point adds its row under the CSV's one header; a CSV of other columns is refused before any test" {
  point "" -- --verb write -n 100
  run "$PAIR" -- --csv "$CSV" --verb read -n 100
  [ "$status" = 0 ] || { echo "$output"; false; }
  [ "$(wc -l < "$CSV")" = 3 ]                         # one header, two rows
  [ "$(grep -c '^schema_version,' "$CSV")" = 1 ]
  [ "$(cut -d, -f8 "$CSV" | tail -n 2 | paste -sd ' ')" = "write read" ]
  # another program's file: refused by name before a point runs (exit 2)
  printf 'when,what\n1,2\n' > "$CSV"
  run "$PAIR" -- --csv "$CSV" --verb write -n 100
  [ "$status" = 2 ] || { echo "$output"; false; }
  [[ $output == *"its header differs from this rdma_bench's columns at column 1 (file: 'when'"* ]] || { echo "$output"; false; }
  [ "$(wc -l < "$CSV")" = 2 ]                         # left as it was
  # an empty file is written from its first line
  : > "$CSV"
  run "$PAIR" -- --csv "$CSV" --verb write -n 100
  [ "$status" = 0 ] || { echo "$output"; false; }
  [ "$(wc -l < "$CSV")" = 2 ]
}

@test "per-thread and per-QP accounting: 2 threads x 2 QPs, 1000 ops per thread" {
  point "" -- --verb write -n 1000 --threads 2 -q 2
  [ "$(col ops)" = 2000 ]
  [ "$(stat send_wrs)" = 2000 ]
  # per-thread rows: 1000 each
  run awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
               $c["thread"] ~ /^[0-9]+$/ { print $c["thread"], $c["ops"] }' "$CSV"
  [ "$output" = "0 1000
1 1000" ]
  # four QPs, 500 WRs each, 32 signaled each (WRs 16..496 and the 500th)
  [ "$(qps | wc -l)" = 4 ]
  [ "$(qps | grep -c ' send_wrs=500 signaled=32 ')" = 4 ]
}

@test "the latency loop takes one sample per op (READ, WRITE, SEND, fetch-and-add)" {
  for v in read write send fetch_add; do
    point "" -- --verb "$v" --test lat -n 300
    [ "$(col lat_samples)" = 300 ]
    [ "$(col ops)" = 300 ]
    [ "$(stat signaled)" = $((300 + $(selftest "$v"))) ]
    [ "$(stat max_outstanding)" = 1 ]
  done
}

@test "the server's receive accounting: SEND and WRITE-with-immediate each consume one RECV" {
  for v in send send_imm write_imm; do
    run "$PAIR" --server-env "RB_NULLDEV_STATS=$STATS" -- --verb "$v" -n 500 --csv "$CSV"
    [ "$status" = 0 ]
    [ "$(col server_recvs)" = 500 ]
    [ "$(stat recvs_done)" = 500 ]
    rm -f "$STATS"
  done
}

@test "rdma_seq's request loops (herd-rpc, spec-s0, herd-kv): every request answered once, numbers unique, doorbells as batched" {
  for v in herd-rpc spec-s0 herd-kv; do
    rm -f "$CSV"
    RB_BIN=$ROOT/rdma_seq run "$PAIR" -- --variant "$v" -D 0.5 --warmup 0.05 --csv "$CSV"
    echo "$output"
    [ "$status" = 0 ]
    [ "$(col status)" = ok ]
    [ "$(col unique)" = exact ]
    # the server handed out one number per request, the client received
    # each once, none left outstanding
    n=$(col server_requests)
    [ "$n" -gt 0 ]
    [ "$(col handed_out)" = "$n" ]
    [ "$(col received)" = "$n" ]
    [ "$(col outstanding)" = 0 ]
    grep -q "^server: INFO point done: $n numbers handed out, $n requests, $n responses in [0-9]* doorbells" <<< "$output"
    # the latency samples are the responses the window counted
    [ "$(col lat_samples)" = "$(col responses)" ]
    [ "$(col responses)" -gt 0 ]
  done
  # herd-kv: every request a GET or a PUT, hits only among GETs
  [ "$(( $(col gets) + $(col puts) ))" = "$(col server_requests)" ]
  [ "$(col get_hits)" -le "$(col gets)" ]
  [ "$(col puts)" -gt 0 ]
  # batched, one doorbell per poll pass (window 4, one client: 4 responses
  # each); unbatched, one doorbell per response
  rm -f "$CSV"
  RB_BIN=$ROOT/rdma_seq run "$PAIR" -- --variant herd-rpc -D 0.5 --warmup 0.05 --batch off --csv "$CSV"
  [ "$status" = 0 ]
  [ "$(col doorbells)" = "$(col server_requests)" ]
  [ "$(col resp_per_doorbell)" = 1.000 ]
}

@test "rdma_seq placement: --cpus 0 pins its threads to CPU 0 and its row says so, with the buffer's page size; --hugepages names the pages it got" {
  local pg
  pg=$(getconf PAGESIZE)
  rm -f "$CSV"
  RB_BIN=$ROOT/rdma_seq run "$PAIR" -- --variant atomics --threads 2 -D 0.2 --warmup 0.02 \
    --cpus 0 --csv "$CSV"
  echo "$output"
  [ "$status" = 0 ]
  [ "$(col status)" = ok ]
  [ "$(col cpus)" = 0 ]
  [ "$(col cpus_used)" = 0 ]
  [ "$(col cpu_source)" = cpus ]
  [ "$(col page_size)" = "$pg" ]
  [ "$(col page_source)" = base ]
  # the null device has no sysfs entry: its node is unknown (NA)
  [ -z "$(col numa_node)" ]
  # --hugepages: 2 MiB pages (hugetlb, or THP seen in smaps), else the
  # base page and a WARN naming why
  rm -f "$CSV"
  RB_BIN=$ROOT/rdma_seq run "$PAIR" -- --variant herd-rpc -D 0.2 --warmup 0.02 --hugepages \
    --csv "$CSV"
  [ "$status" = 0 ]
  case "$(col page_source)" in
    hugetlb|thp) [ "$(col page_size)" = 2097152 ] ;;
    base-fallback) [ "$(col page_size)" = "$pg" ]; grep -q "WARN --hugepages" <<< "$output" ;;
    *) echo "page_source '$(col page_source)'"; false ;;
  esac
}

@test "rdma_seq refuses a --cpus list naming a CPU this process may not use, on either side, by its number; both programs refuse a --numa node the host lacks before opening a device" {
  local bad node
  bad=$(nproc --all)
  run "$ROOT/rdma_seq" -c 127.0.0.1 --variant atomics --cpus "0,$bad"
  [ "$status" = 2 ]
  grep -q "error: --cpus: CPU $bad is not available to this process (allowed: " <<< "$output"
  run "$ROOT/rdma_seq" -s --cpus "$bad" --once
  [ "$status" = 2 ]
  grep -q "CPU $bad is not available to this process" <<< "$output"
  # no null device here: a device opened first would say "no RDMA stack"
  # (or name the host's device) instead of the node
  node=$(find /sys/devices/system/node -maxdepth 1 -name 'node[0-9]*' | wc -l)
  for argv in "rdma_bench -c 127.0.0.1" "rdma_bench -s --once" "rdma_seq -c 127.0.0.1 --variant atomics"; do
    # shellcheck disable=SC2086  # the program and its words
    run "$ROOT"/$argv --numa "$node"
    [ "$status" = 2 ]
    [ "${lines[0]}" = "${argv%% *}: error: --numa $node: no such NUMA node (/sys/devices/system/node/node$node/cpulist unreadable); give a node of /sys/devices/system/node (lscpu lists them)" ] || { echo "$argv: $output"; false; }
  done
}

@test "workers' CPUs on one host: the server's from the list's end, client process k from entry k x threads" {
  local -a l0 l1
  [ "$(nproc)" -ge 2 ] || skip "one CPU: a client and its server cannot be apart"
  # the null device knows no locality: the list is every allowed CPU;
  # process 0: its worker on the list's first entry, the server's on its last
  point "" -- --verb send -n 200
  [ "$(col cpu_source)" = online ]
  read -r -a l0 <<< "$(col cpus_used)"
  [ "${#l0[@]}" -ge 2 ]
  grep -q "^server: INFO session 1: workers on CPUs ${l0[-1]} (its client process's entries of the list, counted from the end" <<< "$output"
  # process 1 (one thread each): the list from entry 1 on, the server's
  # worker on the entry before the last
  point "" -- --verb send -n 200 --proc-index 1
  read -r -a l1 <<< "$(col cpus_used)"
  [ "${l1[*]}" = "${l0[*]:1} ${l0[0]}" ]
  grep -q "^server: INFO session 1: workers on CPUs ${l0[-2]} (" <<< "$output"
  # two threads of process 1: entries 2 and 3, mod the list's length
  point "" -- --verb send -n 200 --threads 2 --proc-index 1
  run python3 -c 'import csv, sys
print(" ".join(r["cpus_used"] for r in csv.DictReader(open(sys.argv[1])) if r["thread"] != "all"))' "$CSV"
  [ "$output" = "${l0[2 % ${#l0[@]}]} ${l0[3 % ${#l0[@]}]}" ]
}

@test "placement columns: workers' CPUs, pages and doorbells in every row; thread domains where the device has them; a fallback from the default doorbell is no WARN" {
  local pg cpu
  pg=$(getconf PAGESIZE)
  # the null device has no sysfs entry: no locality known, every allowed CPU
  point "" -- --verb write -n 200 --threads 2
  [ "$(col cpu_source)" = online ]
  [ -z "$(col numa_node)" ]
  [ -n "$(col cpus_used)" ]
  for cpu in $(col cpus_used); do [ "$cpu" -lt "$(nproc --all)" ]; done
  [ "$(col page_size)" = "$pg" ]
  [ "$(col page_source)" = base ]
  [ "$(col doorbell)" = shared:no-td ]
  [ "$(col doorbell_mode)" = td ]
  # the default td where the device has no thread domains: an INFO on each
  # side (neither user typed --doorbell), no WARN
  [ "$(grep -c "INFO doorbell shared:no-td: the default --doorbell td falls back (ibv_alloc_td: " <<< "$output")" = 2 ]
  [ "$(grep -c "WARN --doorbell" <<< "$output")" = 0 ]
  # thread rows: each worker's own CPU, the first two of the list
  run python3 -c 'import csv, sys
print(" ".join(r["cpus_used"] for r in csv.DictReader(open(sys.argv[1])) if r["thread"] != "all"))' "$CSV"
  [ "$output" = "$(col cpus_used | awk '{ print $1, ($2 == "" ? $1 : $2) }')" ]
  # a device with thread domains: each worker's QPs on its own, and its
  # (send) CQ on its parent domain (ibv_create_cq_ex)
  point "td=on" -- --verb write -n 200 --threads 2
  [ "$(col doorbell)" = td ]
  [ "$(stat cqs_on_pd)" = 2 ]
  point "td=on" -- --verb write -n 200 --doorbell shared
  [ "$(col doorbell)" = shared ]
  [ "$(stat cqs_on_pd)" = 0 ]
  # --doorbell td typed: the client's user asked for it, a WARN says it is not had
  point "" -- --verb read -n 200 --cpus none --doorbell td
  grep -q "^WARN --doorbell td: ibv_alloc_td: Operation not supported on null0; 1 of 1 workers" <<< "$output"
  [ "$(col cpu_source)" = none ]
  [ -z "$(col cpus_used)" ]
  [ "$(col cpus)" = none ]
}

# thread_ops: "THREAD OPS" of each per-thread row
thread_ops() {
  awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
           $c["thread"] ~ /^[0-9]+$/ { print $c["thread"], $c["ops"] }' "$CSV"
}

@test "--doorbell ctx: a device context per worker (2-thread WRITE and READ, --validate), each worker's lkey of its own context, every context closed" {
  # WRITE not inline: the device checks the lkey of a non-inline SGE against
  # the QP's context (a worker posting the shared MR's lkey fails loc_prot)
  for v in "write --inline off" read; do
    # shellcheck disable=SC2086  # the verb and its flag
    point "" -- --verb $v -n 1000 --threads 2 --validate --doorbell ctx
    [ "$(col doorbell_mode)" = ctx ]
    [ "$(col doorbell)" = ctx ]
    [ "$(col check)" = pass ]
    [ "$(col ops)" = 2000 ]
    [ "$(thread_ops)" = "0 1000
1 1000" ]
    [ "$(stat send_wrs)" = 2000 ]
    [ "$(stat errors)" = 0 ]
    # the device's context, and one per worker; all closed at exit
    [ "$(stat contexts_opened)" = 3 ]
    [ "$(stat contexts_left)" = 0 ]
  done
  # a failing point (an error completion) closes every context too
  rm -f "$STATS" "$CSV"
  run "$PAIR" --client-env "RB_NULLDEV_STATS=$STATS" --client-env "RB_NULLDEV_FAULTS=err_wr=700" \
    -- --csv "$CSV" --verb read -n 1000 --threads 2 --doorbell ctx
  [ "$status" = 1 ]
  [ "$(col status)" = failed ]
  [ "$(stat contexts_opened)" = 3 ]
  [ "$(stat contexts_left)" = 0 ]
  # the device lets one context more be opened: worker 1 stays on the shared
  # one, the row and a WARN say so
  point "max_ctx=2" -- --verb read -n 1000 --threads 2 --validate --doorbell ctx
  [ "$(col doorbell)" = ctx:1/2 ]
  [ "$(col doorbell_mode)" = ctx ]
  [ "$(col check)" = pass ]
  [ "$(col ops)" = 2000 ]
  grep -q "WARN --doorbell ctx: ibv_open_device: Cannot allocate memory on null0; 1 of 2 workers" <<< "$output"
  [ "$(stat contexts_left)" = 0 ]
  # a WRITE ping-pong's replies carry the one rkey the client sent: the
  # workers keep the shared context, by name
  point "" -- --verb write --test lat -n 200 --threads 2 --doorbell ctx
  [ "$(col doorbell)" = shared:no-ctx ]
  grep -q "INFO --doorbell ctx with --verb write --test lat: the peer's WRITE replies" <<< "$output"
  [ "$(stat contexts_opened)" = 1 ]
}

@test "--doorbell shared and ctx: the same ops accounting (WRITE, READ, SEND, fetch-and-add; 2 threads x 2 QPs)" {
  local v mode a b
  for v in write read send fetch_add; do
    for mode in shared ctx; do
      point "" -- --verb "$v" -n 400 --threads 2 -q 2 --doorbell "$mode"
      [ "$(col doorbell)" = "$mode" ]
      # the row's ops, each thread's, the device's WRs and CQEs, per QP
      # (its number apart: each run has its own)
      printf '%s\n' "ops=$(col ops)" "$(thread_ops)" "$(grep -E '^(send_wrs|signaled|unsignaled|cqes|errors)=' "$STATS")" \
        "$(qps | sed 's/^qp=[0-9]* //; s/ max_outstanding=[0-9]*//' | sort)" > "$BATS_TEST_TMPDIR/$mode"
    done
    a=$(cat "$BATS_TEST_TMPDIR/shared") b=$(cat "$BATS_TEST_TMPDIR/ctx")
    [ "$a" = "$b" ] || { diff "$BATS_TEST_TMPDIR/shared" "$BATS_TEST_TMPDIR/ctx"; false; }
    grep -qx "ops=800" <<< "$a"
    grep -qx "send_wrs=$((800 + $(selftest "$v")))" <<< "$a"
  done
}

@test "--hugepages: hugetlb, else transparent huge pages, else base pages, each named (a WARN for a fallback)" {
  rm -f "$CSV"
  run "$PAIR" -- --csv "$CSV" --verb write -n 200 --hugepages
  [ "$status" = 0 ]
  case $(col page_source) in
    hugetlb) [ "$(col page_size)" = 2097152 ]; [[ $output != *"WARN --hugepages"* ]] ;;
    thp) [ "$(col page_size)" = 2097152 ]; [[ $output == *"WARN --hugepages: MAP_HUGETLB: "* ]] ;;
    base-fallback) [ "$(col page_size)" = "$(getconf PAGESIZE)" ]
                   [[ $output == *"WARN --hugepages: MAP_HUGETLB: "* ]] ;;
    *) echo "page_source '$(col page_source)'"; false ;;
  esac
}
