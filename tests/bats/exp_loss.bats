#!/usr/bin/env bats
# The fault-loss experiment (experiments/fault-loss): its grid, the runner's
# per-point hook ([run] hook), the netem-loss hook itself (fake sysfs and a
# fake tc: nothing touches a real qdisc), aggregation of a golden raw.csv
# and the figure drawn from its summary.

load fixtures/exp/helpers

EXP=$ROOT/experiments/fault-loss

# ---- the grid -------------------------------------------------------------------
@test "fault-loss: full grid is 5 losses x 6 series, QUICK 2 x 5 (3 repetitions), loss outermost" {
  run_exp fault-loss --dry-run
  [ "$status" -eq 0 ] || { echo "$output"; false; }
  [[ $output == *"grid: 30 points x 3 repetitions"* ]]
  [[ $output == *$'1\tloss_pct=0\tverb=write\ttransport=rc\t--retry-cnt=7\t--ack-timeout=14\tsize_bytes=64'* ]]
  [[ $output == *$'30\tloss_pct=5\tverb=write\ttransport=rc\t--retry-cnt=0\t--ack-timeout=18'* ]]
  [ "$(grep -c $'^[0-9]*\tloss_pct=' <<< "$output")" -eq 30 ]
  [ "$(grep -o $'loss_pct=[0-9.]*' <<< "$output" | sort -u | tr '\n' ' ')" = "loss_pct=0 loss_pct=0.1 loss_pct=0.5 loss_pct=1 loss_pct=5 " ]
  run_exp fault-loss --dry-run --quick
  [ "$status" -eq 0 ]
  [[ $output == *"grid: 10 points x 3 repetitions, expected 3:15"* ]]
  [ "$(grep -c $'\tduration_s=0.5\t' <<< "$output")" -eq 10 ]
  run_exp fault-loss --dry-run --quick --set loss_pct=0,2,10
  [[ $output == *$'loss_pct=10\tverb=send\ttransport=ud'* ]]
}

@test "fault-loss: the figure-loss target runs the experiment and accepts its failed points" {
  run make -C "$ROOT" -n figure-loss QUICK=1
  [ "$status" -eq 0 ]
  [[ $output == *"QUICK=1 HOSTS= VMS= experiments/reproduce fault-loss "*"|| [ \$? = 3 ]"* ]]
  [[ $output != *"--dry-run"* ]]
  run make -C "$ROOT" -n figure-loss QUICK=1 DRY_RUN=1
  [ "$status" -eq 0 ]
  [[ $output == *"experiments/reproduce fault-loss --dry-run || [ \$? = 3 ]"* ]]
}

@test "hook settings: a hook knob must be a knob, needs a hook, and roles are client/server" {
  local d
  d=$(tiny_copy)
  sed -i 's/^\[run\]/[run]\nhook_knobs = loss_pct/' "$d/params"
  run_exp "$d" --dry-run
  [ "$status" -eq 2 ]
  [[ $output == *"hook_knobs names 'loss_pct', which is not a knob"* ]]
  sed -i 's/^\[knobs\]/[knobs]\nloss_pct = 0 1/' "$d/params"
  run_exp "$d" --dry-run
  [ "$status" -eq 2 ]
  [[ $output == *"hook_knobs without a hook"* ]]
  sed -i 's/^\[run\]/[run]\nhook = h\nhook_roles = client peer/' "$d/params"
  printf '#!/bin/sh\nexit 0\n' > "$d/h"
  chmod +x "$d/h"
  run_exp "$d" --dry-run
  [ "$status" -eq 2 ]
  [[ $output == *"hook_roles: 'peer' is not client or server"* ]]
  sed -i 's/^hook_roles = .*/hook_roles = client server/' "$d/params"
  run_exp "$d" --dry-run
  [ "$status" -eq 0 ]
  # without a hook knob declared, an unknown knob is still refused
  sed -i '/^hook_knobs/d' "$d/params"
  run_exp "$d" --dry-run
  [ "$status" -eq 2 ]
  [[ $output == *"unknown knob 'loss_pct'"* ]]
}

# ---- the runner's per-point hook, with the fake binary ---------------------------
# hook_exp: the tiny experiment with a hook that logs its calls, reports
# columns at teardown and skips (FAKE_HOOK_SKIP) or fails (FAKE_HOOK_FAIL)
# the setup of that loss
hook_exp() {
  local d=$BATS_TEST_TMPDIR/hooked
  mkdir -p "$d"
  cat > "$d/params" << 'EOF'
[experiment]
title = hook test
[roles]
server  = 1
clients = 2
[run]
repetitions     = 1
timeout_s       = 8
point_s         = 1
overhead_s      = 0
ready_timeout_s = 3
hook            = fake-hook
hook_roles      = client server
hook_knobs      = loss_pct
summary_metrics = ops hk_pkts
[knobs]
loss_pct       = 0 1 5
verb:transport = write:rc
size_bytes     = 64
procs          = 1
duration_s     = 1
EOF
  cat > "$d/fake-hook" << 'EOF'
#!/usr/bin/env bash
echo "$*" >> "$FAKE_HOOK_LOG"
phase=$1 role="" loss=""
for a; do case $a in role=*) role=${a#*=} ;; loss_pct=*) loss=${a#*=} ;; esac; done
if [ "$phase" = setup ] && [ "$role" = client ]; then
  [ "${FAKE_HOOK_SKIP:-}" != "$loss" ] || { echo "noise"; echo "cannot drop packets here" >&2; exit 2; }
  [ "${FAKE_HOOK_FAIL:-}" != "$loss" ] || { echo "tc exploded" >&2; exit 1; }
fi
if [ "$phase" = teardown ]; then echo "hk_pkts=10"; echo "hk_$role=1"; echo "not a column"; echo 'bad=$(x)'; fi
exit 0
EOF
  chmod +x "$d/fake-hook"
  # a point's timeout: 30 s (a loaded machine, load 21, once needed over 8 s
  # for a fake point over the fake ssh); HOOK_TIMEOUT_S for the timeout test
  sed -i "s/^timeout_s .*/timeout_s       = ${HOOK_TIMEOUT_S:-30}/" "$d/params"
  echo "$d"
}

@test "hook: setup before the clients, teardown after, on every host role; knobs reach the hook, not rdma_bench" {
  export FAKE_HOOK_LOG=$BATS_TEST_TMPDIR/hook.log FAKE_RB_LOG=$BATS_TEST_TMPDIR/rb.log
  run_exp "$(hook_exp)"
  [ "$status" -eq 0 ] || { echo "$output"; false; }
  local d
  d=$(run_dir hooked)
  [ -x "$d/hook" ]
  # clean before and after the sweep; per point: setup and teardown on both roles
  [ "$(grep -c '^clean ' "$FAKE_HOOK_LOG")" -eq 4 ]
  [ "$(grep -c '^setup role=client device=- server_here=1 state=.* loss_pct=' "$FAKE_HOOK_LOG")" -eq 3 ]
  [ "$(grep -c '^setup role=server .* loss_pct=' "$FAKE_HOOK_LOG")" -eq 3 ]
  [ "$(grep -c '^teardown role=client .* loss_pct=5$' "$FAKE_HOOK_LOG")" -eq 1 ]
  [ "$(head -n 1 "$FAKE_HOOK_LOG" | cut -d' ' -f1)" = clean ]
  [ "$(tail -n 1 "$FAKE_HOOK_LOG" | cut -d' ' -f1)" = clean ]
  [[ $output == *"loss_pct"* ]]
  # rdma_bench never sees the hook's knob (it was called, and never with it)
  grep -q '^client' "$FAKE_RB_LOG"
  [ "$(cat "$FAKE_RB_LOG" "$d"/points/*/client-0.log | grep -c -e 'loss_pct' -e 'loss-pct')" -eq 0 ]
  # rows: the knob and what teardown reported (both roles' hk_pkts added up;
  # lines that are not NAME=PLAIN_WORD ignored)
  [ "$(csv_col "$d/raw.csv" loss_pct | tr '\n' ' ')" = "0 1 5 " ]
  [ "$(csv_col "$d/raw.csv" hk_pkts | sort -u)" = 20 ]
  [ "$(csv_col "$d/raw.csv" hk_client | sort -u)" = 1 ]
  [ "$(head -n 1 "$d/raw.csv" | grep -c -e bad -e 'not a column')" -eq 0 ]
  # summary: loss_pct beside the knobs, the extra metric summed
  [ "$(csv_col "$d/summary.csv" loss_pct | tr '\n' ' ')" = "0 1 5 " ]
  [ "$(csv_col "$d/summary.csv" hk_pkts_median | sort -u)" = 20 ]
  [ "$(csv_col "$d/summary.csv" ops_median | sort -u)" = 1000 ]
  grep -q '^== teardown role=server host=localhost loss_pct=0: exit 0$' "$d/points/1/hook.log"
}

@test "hook: a setup that exits 2 skips the point with its reason; exit 1 fails it; teardown still runs; the sweep goes on" {
  export FAKE_HOOK_LOG=$BATS_TEST_TMPDIR/hook.log FAKE_HOOK_SKIP=1 FAKE_HOOK_FAIL=5 FAKE_RB_LOG=$BATS_TEST_TMPDIR/rb.log
  run_exp "$(hook_exp)"
  [ "$status" -eq 3 ]
  local d
  d=$(run_dir hooked)
  paste -d' ' <(csv_col "$d/summary.csv" loss_pct) <(csv_col "$d/summary.csv" status) > "$BATS_TEST_TMPDIR/st"
  [ "$(cat "$BATS_TEST_TMPDIR/st")" = "$(printf '0 ok\n1 skipped\n5 failed')" ]
  [ "$(csv_col "$d/summary.csv" reason | sed -n 2p)" = "hook setup on localhost (client): cannot drop packets here" ]
  [ "$(csv_col "$d/summary.csv" reason | sed -n 3p)" = "hook setup on localhost (client): tc exploded" ]
  # no client ran for the refused points; both roles were torn down
  [ "$(grep -c '^client' "$FAKE_RB_LOG")" -eq 1 ]
  [ "$(grep -c '^teardown ' "$FAKE_HOOK_LOG")" -eq 6 ]
}

@test "hook: a point killed at its timeout is torn down too" {
  export FAKE_HOOK_LOG=$BATS_TEST_TMPDIR/hook.log FAKE_RB_HANG_SIZE=64 HOOK_TIMEOUT_S=5
  run_exp "$(hook_exp)" --set loss_pct=5
  [ "$status" -eq 1 ]
  grep -q '^setup role=client .*loss_pct=5' "$FAKE_HOOK_LOG"
  grep -q '^teardown role=client .*loss_pct=5' "$FAKE_HOOK_LOG"
  grep -q '^teardown role=server .*loss_pct=5' "$FAKE_HOOK_LOG"
  csv_col "$(run_dir hooked)/summary.csv" reason | grep -q 'point timeout 5 s'
}

@test "hook on remote hosts: deployed beside the binary, run over ssh with the host's device" {
  export RB_SSH="$FIX/fake_ssh -o BatchMode=yes" FAKE_SSH_LOG=$BATS_TEST_TMPDIR/ssh.log FAKE_HOOK_LOG=$BATS_TEST_TMPDIR/hook.log
  printf '# address device gid numa user\nnode1 rxe0 1 - root\nnode2 rxe0 1 - root\n' > "$BATS_TEST_TMPDIR/hosts"
  run_exp "$(hook_exp)" --hosts "$BATS_TEST_TMPDIR/hosts" --run-id hookremote --set loss_pct=1
  [ "$status" -eq 0 ] || { echo "$output"; false; }
  # into each host's private folder of the run (mktemp -d: /tmp/rdma_bench.XXXXXX)
  local r='/tmp/rdma_bench\.[A-Za-z0-9]\{6\}'
  grep -q "^root@node1 cat > $r/hook && chmod 700 $r/hook" "$FAKE_SSH_LOG"
  grep -q "^root@node2 cat > $r/hook && chmod 700 $r/hook" "$FAKE_SSH_LOG"
  grep -q "^root@node2 $r/hook setup role=client device=rxe0 server_here=0 state=$r/hook-1-client.state loss_pct=1\$" "$FAKE_SSH_LOG"
  grep -q "^root@node1 $r/hook teardown role=server device=rxe0 server_here=1 " "$FAKE_SSH_LOG"
  grep -q '^root@node2 exec 2>&1; .*rdma_bench -c ' "$FAKE_SSH_LOG"
  [ "$(grep '^root@node2 exec 2>&1; .*rdma_bench -c ' "$FAKE_SSH_LOG" | grep -c loss)" -eq 0 ]
}

# ---- the netem-loss hook: fake sysfs, fake tc -------------------------------------
# fake_bed: a sysfs tree with rxe0 on eth0 and a tc that keeps the root
# qdisc in a file and logs its calls
fake_bed() {
  local s=$BATS_TEST_TMPDIR/sys c
  mkdir -p "$s/rxe0/ports/1/gid_attrs/ndevs" "$s/rxe0/ports/1/hw_counters"
  echo eth0 > "$s/rxe0/ports/1/gid_attrs/ndevs/1"
  for c in sent_pkts rcvd_pkts completer_retry_err retry_exceeded_err rcvd_seq_err out_of_seq_request duplicate_request; do
    echo 100 > "$s/rxe0/ports/1/hw_counters/$c"
  done
  cat > "$BATS_TEST_TMPDIR/tc" << 'EOF'
#!/usr/bin/env bash
echo "$*" >> "$FAKE_TC_LOG"
st=$FAKE_TC_STATE
case "$*" in
  "-s qdisc show dev eth0 root") cat "$st" 2> /dev/null || echo "qdisc fq_codel 0: root refcnt 2" ;;
  "qdisc replace dev eth0 root handle 5a1: netem loss "*)
    printf 'qdisc netem 5a1: root refcnt 2 limit 1000 loss %s\n Sent 4200 bytes 60 pkt (dropped 7, overlimits 0 requeues 0)\n' "${*##* }" > "$st" ;;
  "qdisc del dev eth0 root") rm -f "$st" ;;
  *) echo "fake tc: unexpected $*" >&2; exit 1 ;;
esac
EOF
  chmod +x "$BATS_TEST_TMPDIR/tc"
  export RB_SYSFS_IB=$s RB_NETEM_TC=$BATS_TEST_TMPDIR/tc FAKE_TC_LOG=$BATS_TEST_TMPDIR/tc.log FAKE_TC_STATE=$BATS_TEST_TMPDIR/qdisc
}

@test "netem-loss: setup puts netem on the RDMA device's netdev; teardown removes it and reports drops and counter deltas" {
  fake_bed
  local st=$BATS_TEST_TMPDIR/state
  run "$EXP/netem-loss" setup role=client device=rxe0 server_here=0 state="$st" loss_pct=0.5
  [ "$status" -eq 0 ] || { echo "$output"; false; }
  grep -q '^qdisc replace dev eth0 root handle 5a1: netem loss 0.5%$' "$FAKE_TC_LOG"
  echo 160 > "$RB_SYSFS_IB/rxe0/ports/1/hw_counters/sent_pkts"
  echo 103 > "$RB_SYSFS_IB/rxe0/ports/1/hw_counters/completer_retry_err"
  rm "$RB_SYSFS_IB/rxe0/ports/1/hw_counters/rcvd_seq_err"
  run "$EXP/netem-loss" teardown role=client device=rxe0 server_here=0 state="$st" loss_pct=0.5
  [ "$status" -eq 0 ]
  [ "$output" = "$(printf 'cli_sent_pkts=60\ncli_rcvd_pkts=0\ncli_retry=3\ncli_retry_exceeded=0\ncli_seq_err=\ncli_netem_drops=7')" ]
  grep -q '^qdisc del dev eth0 root$' "$FAKE_TC_LOG"
  [ ! -e "$FAKE_TC_STATE" ]
  [ ! -e "$st" ]
  # the server role only counts
  run "$EXP/netem-loss" setup role=server device=rxe0 server_here=1 state="$st" loss_pct=5
  [ "$status" -eq 0 ]
  echo 150 > "$RB_SYSFS_IB/rxe0/ports/1/hw_counters/rcvd_pkts"
  run "$EXP/netem-loss" teardown role=server device=rxe0 server_here=1 state="$st" loss_pct=5
  [ "$output" = "$(printf 'srv_rcvd_pkts=50\nsrv_sent_pkts=0\nsrv_seq_err=0\nsrv_dup=0')" ]
  [ "$(grep -c replace "$FAKE_TC_LOG")" -eq 1 ]
}

@test "netem-loss: loss 0 is netem 0%; a device without its own link, or a hardware one, is refused above 0 and untouched at 0" {
  fake_bed
  local st=$BATS_TEST_TMPDIR/state
  run "$EXP/netem-loss" setup role=client device=rxe0 server_here=0 state="$st" loss_pct=0
  [ "$status" -eq 0 ]
  grep -q 'netem loss 0%$' "$FAKE_TC_LOG"
  "$EXP/netem-loss" teardown role=client device=rxe0 server_here=0 state="$st" loss_pct=0 > /dev/null
  : > "$FAKE_TC_LOG"
  # client and server on one host: rxe loops back inside the device
  run "$EXP/netem-loss" setup role=client device=rxe0 server_here=1 state="$st" loss_pct=1
  [ "$status" -eq 2 ]
  [[ $output == *"loss injection needs the server on another host"* ]]
  run "$EXP/netem-loss" setup role=client device=rxe0 server_here=1 state="$st" loss_pct=0
  [ "$status" -eq 0 ]
  # hardware RDMA (a parent device): its packets bypass the qdisc
  ln -s /dev/null "$RB_SYSFS_IB/rxe0/device"
  run "$EXP/netem-loss" setup role=client device=rxe0 server_here=0 state="$st" loss_pct=1
  [ "$status" -eq 2 ]
  [[ $output == *"hardware RDMA device"* ]]
  run "$EXP/netem-loss" setup role=client device=rxe0 server_here=0 state="$st" loss_pct=0
  [ "$status" -eq 0 ]
  [ ! -s "$FAKE_TC_LOG" ] || grep -qv replace "$FAKE_TC_LOG"
  run "$EXP/netem-loss" setup role=client device=rxe0 server_here=0 state="$st" loss_pct='1;reboot'
  [ "$status" -eq 2 ]
}

@test "netem-loss: clean removes only the qdisc it put there" {
  fake_bed
  echo 'qdisc netem 8001: root refcnt 2 limit 1000 loss 3%' > "$FAKE_TC_STATE"
  run "$EXP/netem-loss" clean role=client device=rxe0 server_here=0 state=x
  [ "$status" -eq 0 ]
  [ -e "$FAKE_TC_STATE" ]
  echo 'qdisc netem 5a1: root refcnt 2 limit 1000 loss 3%' > "$FAKE_TC_STATE"
  run "$EXP/netem-loss" clean role=client device=rxe0 server_here=0 state=x
  [ "$status" -eq 0 ]
  [ ! -e "$FAKE_TC_STATE" ]
  # with device - (none in the hosts file): the first RDMA device
  echo 'qdisc netem 5a1: root refcnt 2 limit 1000 loss 3%' > "$FAKE_TC_STATE"
  run "$EXP/netem-loss" clean role=client device=- server_here=0 state=x
  [ "$status" -eq 0 ]
  [ ! -e "$FAKE_TC_STATE" ]
}

# ---- aggregation of a golden raw.csv, and the figure from its summary ------------
# golden_raw: rows as the runner writes them for fault-loss (the columns the
# summary and the figure read; the real rows have every column of csv.md)
golden_raw() {
  cat << 'EOF'
schema_version,run_id,proc_index,role,host,rep,thread,verb,transport,test,size_bytes,retry_cnt,ack_timeout,duration_s,ops,mops,gbps,lat_p50_us,lat_p99_us,server_recvs,ctr_xmit_pkts,ctr_retry,ctr_seq_err,status,reason,device,kernel,exp_name,exp_point,exp_rep,exp_procs,exp_seq,loss_pct,cli_sent_pkts,cli_retry,cli_netem_drops,srv_rcvd_pkts,srv_seq_err
1,g,0,client,vm2,0,all,write,rc,bw,64,7,14,2.0,4000,0.002,0.001,500,20000,,4000,0,0,ok,,rxe0,6.1.0-28-amd64,fault-loss,1,1,1,1,0,4000,0,0,4000,0
1,g,0,client,vm2,0,all,write,rc,bw,64,7,14,2.0,4800,0.0024,0.0012,450,18000,,4800,1,0,ok,,rxe0,6.1.0-28-amd64,fault-loss,1,2,1,4,0,4800,1,0,4800,0
1,g,0,client,vm2,0,all,write,rc,bw,64,7,14,2.0,4400,0.0022,0.0011,480,30000,,4400,0,0,ok,,rxe0,6.1.0-28-amd64,fault-loss,1,3,1,7,0,4400,0,0,4400,0
1,g,0,client,vm2,0,all,write,rc,bw,64,7,14,2.0,1600,0.0008,0.0004,900,240000,,2500,100,0,ok,,rxe0,6.1.0-28-amd64,fault-loss,2,1,1,2,5,2500,100,125,2300,95
1,g,0,client,vm2,0,all,write,rc,bw,64,7,14,2.0,1400,0.0007,0.00035,950,260000,,2300,120,0,ok,,rxe0,6.1.0-28-amd64,fault-loss,2,2,1,5,5,2300,120,115,2100,110
1,g,0,client,vm2,0,all,write,rc,bw,64,7,14,2.0,1800,0.0009,0.00045,850,200000,,2700,80,0,ok,,rxe0,6.1.0-28-amd64,fault-loss,2,3,1,8,5,2700,80,135,2500,75
1,g,0,client,vm2,0,all,write,rc,bw,64,0,18,,,,,,,,,,,failed,"thread 0: write completion error on qpn 0x1a: transport retry counter exceeded (status 12, v...",rxe0,6.1.0-28-amd64,fault-loss,3,1,1,3,5,16,0,1,15,1
1,g,0,client,vm2,0,all,write,rc,bw,64,0,18,,,,,,,,,,,failed,"thread 0: write completion error on qpn 0x1b: transport retry counter exceeded (status 12, v...",rxe0,6.1.0-28-amd64,fault-loss,3,2,1,6,5,30,0,2,28,1
1,g,0,client,vm2,0,all,send,ud,bw,64,7,14,2.0,12000,0.006,0.003,300,10000,11000,12000,0,0,ok,,rxe0,6.1.0-28-amd64,fault-loss,4,1,1,9,5,12000,0,600,11400,0
1,g,0,client,vm2,0,all,send,ud,bw,64,7,14,2.0,10000,0.005,0.0025,310,11000,9000,10000,0,0,ok,,rxe0,6.1.0-28-amd64,fault-loss,4,2,1,10,5,10000,0,500,9500,0
,g,0,client,,,,,,,,,,,,,,,,,,,,failed,"killed (signal 15, exit -1) after 48.0 s; point timeout 48 s",,,fault-loss,4,3,1,11,5,,,,,
1,g,0,client,vm2,0,all,write,uc,bw,64,7,14,2.0,123456789,61.728,31.6,5,9,,123456789,0,0,ok,,rxe0,6.1.0-28-amd64,fault-loss,5,1,1,12,1,123456789,0,1234567,122222222,0
EOF
}

aggregate_golden() {
  golden_raw > "$BATS_TEST_TMPDIR/raw.csv"
  python3 "$LIB/rbcsv.py" aggregate -v keys_extra="loss_pct retry_cnt" \
    -v sums_extra="ops server_recvs ctr_retry cli_sent_pkts cli_netem_drops srv_rcvd_pkts srv_seq_err" \
    "$BATS_TEST_TMPDIR/raw.csv" > "$BATS_TEST_TMPDIR/summary.csv"
}

@test "aggregation of a golden fault-loss raw.csv: loss and retry count as keys, counters summed, failed and partial points" {
  aggregate_golden
  local s=$BATS_TEST_TMPDIR/summary.csv
  [ "$(head -n 1 "$s" | cut -d, -f1-5)" = "exp_name,exp_point,verb,transport,test" ]
  head -n 1 "$s" | grep -q ',access,loss_pct,retry_cnt,exp_procs,'
  head -n 1 "$s" | grep -q ',lat_p99_us_max,lat_p99_us_cv_pct,ops_median,ops_min,ops_max,ops_cv_pct,server_recvs_median,'
  [ "$(tail -n +2 "$s" | wc -l)" -eq 5 ]
  [ "$(csv_col "$s" loss_pct | tr '\n' ' ')" = "0 5 5 5 1 " ]
  [ "$(csv_col "$s" retry_cnt | tr '\n' ' ')" = "7 7 0 7 7 " ]
  [ "$(csv_col "$s" status | tr '\n' ' ')" = "ok ok failed partial ok " ]
  # point 1: 0.002 0.0024 0.0022 Mops -> median 0.0022; retries 0 1 0 -> 0 [0..1]
  [ "$(csv_col "$s" mops_median | head -n 1)" = 0.0022 ]
  [ "$(csv_col "$s" ctr_retry_median | head -n 1)" = 0 ]
  [ "$(csv_col "$s" ctr_retry_max | head -n 1)" = 1 ]
  # point 2 (5% loss, RC retries for ever): retries 100 120 80 -> 100; the
  # responder's sequence errors 95 110 75 -> 95; p99 latency 240000 us
  [ "$(csv_col "$s" ctr_retry_median | sed -n 2p)" = 100 ]
  [ "$(csv_col "$s" srv_seq_err_median | sed -n 2p)" = 95 ]
  [ "$(csv_col "$s" lat_p99_us_median | sed -n 2p)" = 240000 ]
  [ "$(csv_col "$s" cli_netem_drops_median | sed -n 2p)" = 125 ]
  # point 3: RC with --retry-cnt 0 gave up both times: failed, no values, the status kept
  [ "$(csv_col "$s" mops_median | sed -n 3p)" = "" ]
  [ "$(csv_col "$s" rows_failed | sed -n 3p)" = 2 ]
  [[ "$(csv_col "$s" reason | sed -n 3p)" == *"transport retry counter exceeded (status 12"* ]]
  # point 4 (UD): the killed repetition does not count; delivered vs sent
  # from the two that ran: server_recvs 11000 9000 -> 10000 of ops 11000
  [ "$(csv_col "$s" reps_ok | sed -n 4p)" = 2 ]
  [ "$(csv_col "$s" server_recvs_median | sed -n 4p)" = 10000 ]
  [ "$(csv_col "$s" ops_median | sed -n 4p)" = 11000 ]
  [[ "$(csv_col "$s" reason | sed -n 4p)" == "killed (signal 15"* ]]
  # point 5: counts keep every digit (not 1.23457e+08)
  [ "$(csv_col "$s" ops_median | sed -n 5p)" = 123456789 ]
  [ "$(csv_col "$s" srv_rcvd_pkts_median | sed -n 5p)" = 122222222 ]
  [ "$(csv_col "$s" mops_median | sed -n 5p)" = 61.728 ]
}

@test "aggregation without extra keys and metrics is unchanged (other experiments' summaries)" {
  run python3 "$LIB/rbcsv.py" aggregate -v keys_extra= -v sums_extra= "$FIX/golden-raw.csv"
  [ "$status" -eq 0 ]
  diff <(printf '%s\n' "$output") "$FIX/golden-summary.csv"
}

@test "figure-loss renders PNG and PDF from the golden summary, and from no data" {
  command -v gnuplot > /dev/null || skip "gnuplot is not installed"
  aggregate_golden
  run "$ROOT/figures/plot" fault-loss "$BATS_TEST_TMPDIR/summary.csv" --out "$BATS_TEST_TMPDIR/out"
  [ "$status" -eq 0 ] || { echo "$output"; false; }
  [ "$(head -c 8 "$BATS_TEST_TMPDIR/out/fault-loss.png" | od -An -tx1 | tr -d ' \n')" = 89504e470d0a1a0a ]
  [ "$(head -c 5 "$BATS_TEST_TMPDIR/out/fault-loss.pdf")" = "%PDF-" ]
  # gnuplot said nothing alarming (figures/plot passes its stderr on, noise
  # filtered; it keeps no log file)
  [[ ${output,,} != *error* ]] || { echo "$output"; false; }
  [[ ${output,,} != *undefined* ]] || { echo "$output"; false; }
  [[ ${output,,} != *warning* ]] || { echo "$output"; false; }
  [ ! -e "$BATS_TEST_TMPDIR/out/fault-loss.png.log" ]
  # only failed points: every panel still draws
  awk -F, 'NR == 1 || /,failed,/' "$BATS_TEST_TMPDIR/summary.csv" > "$BATS_TEST_TMPDIR/failed.csv"
  run "$ROOT/figures/plot" fault-loss "$BATS_TEST_TMPDIR/failed.csv" --out "$BATS_TEST_TMPDIR/out"
  [ "$status" -eq 0 ] || { echo "$output"; false; }
  run "$ROOT/figures/plot" fault-loss --reference-only --out "$BATS_TEST_TMPDIR/ref"
  [ "$status" -eq 0 ] || { echo "$output"; false; }
  [ -s "$BATS_TEST_TMPDIR/ref/fault-loss.png" ]
}

@test "hook: a hook file that is missing stops the run before the sweep, naming it" {
  local d
  d=$(hook_exp)
  rm "$d/fake-hook"
  run_exp "$d"
  [ "$status" -eq 2 ]
  [[ $output == *"[run] hook = fake-hook: $d/fake-hook is not an executable file"* ]]
  [ ! -e "$(run_dir hooked)/joblog" ]
}
