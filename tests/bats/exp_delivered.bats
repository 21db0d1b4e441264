#!/usr/bin/env bats
# The responder's delivered rate: rbcsv.py aggregate derives srv_delivered_mops
# from the server's port counters (srv_ctr_rcv_pkts over srv_ctr_span_s),
# figure-12 draws it beside the requesters' Mops, and compare judges
# figure-12's Mops claims on it ([compare] delivered).

load fixtures/exp/helpers
bats_require_minimum_version 1.5.0

# raw rows of figure-12: READ at 16, 32, 64 B and a UC WRITE of 4096 B
# (MTU 1024: 4 packets), 2 processes x 3 repetitions; the requesters
# complete 1 Mops each (2 per point), the server's port received PKTS
# packets in 2 s. $1: "srv" to give the counter columns, else none.
raw() {
  local srv=$1 sz pk
  if [ "$srv" = srv ]; then
    echo "exp_name,exp_point,exp_rep,exp_procs,proc_index,verb,transport,test,size_bytes,path_mtu,threads,window,status,mops,device,srv_ctr_rcv_pkts,srv_ctr_span_s"
  else
    echo "exp_name,exp_point,exp_rep,exp_procs,proc_index,verb,transport,test,size_bytes,path_mtu,threads,window,status,mops,device"
  fi
  for r in 1 2 3; do
    for sz in 16 32 64; do
      pk=$(( sz * 125000 ))   # 16 B: 1 Mops delivered, 32 B: 2, 64 B: 4
      for p in 0 1; do
        echo "figure-12,$sz,$r,2,$p,read,rc,bw,$sz,1024,1,16,ok,1,mlx5_0${srv:+,$pk,2}"
      done
    done
    for p in 0 1; do
      echo "figure-12,w,$r,2,$p,write,uc,bw,4096,1024,1,16,ok,1,mlx5_0${srv:+,8000000,2}"
    done
  done
}

@test "srv_delivered_mops: the server's received packets per second, in operations, not summed over processes" {
  raw srv > "$BATS_TEST_TMPDIR/raw.csv"
  python3 "$LIB/rbcsv.py" aggregate "$BATS_TEST_TMPDIR/raw.csv" > "$BATS_TEST_TMPDIR/s.csv"
  [ "$(csv_col "$BATS_TEST_TMPDIR/s.csv" mops_median | tr '\n' ' ')" = "2 2 2 2 " ]
  # READ: one request packet per READ; WRITE 4096 B: 4 packets of 1024
  [ "$(csv_col "$BATS_TEST_TMPDIR/s.csv" srv_delivered_mops_median | tr '\n' ' ')" = "1 2 4 1 " ]
  # rows without the server's counters: no such column
  raw none > "$BATS_TEST_TMPDIR/raw.csv"
  python3 "$LIB/rbcsv.py" aggregate "$BATS_TEST_TMPDIR/raw.csv" > "$BATS_TEST_TMPDIR/s.csv"
  ! head -n 1 "$BATS_TEST_TMPDIR/s.csv" | grep -q srv_delivered
}

@test "compare judges figure-12's Mops claim on the delivered rate when the rows have it" {
  raw srv > "$BATS_TEST_TMPDIR/raw.csv"
  python3 "$LIB/rbcsv.py" aggregate "$BATS_TEST_TMPDIR/raw.csv" > "$BATS_TEST_TMPDIR/s.csv"
  run "$ROOT/experiments/compare" figure-12 "$BATS_TEST_TMPDIR/s.csv"
  # delivered 1, 2, 4 Mops: not flat, though the requesters' 2 Mops are
  [[ $output == *"FAILS"*"read_flat_small"*"judged on the responder's delivered rate (srv_delivered_mops)"* ]]
  raw none > "$BATS_TEST_TMPDIR/raw.csv"
  python3 "$LIB/rbcsv.py" aggregate "$BATS_TEST_TMPDIR/raw.csv" > "$BATS_TEST_TMPDIR/s.csv"
  run "$ROOT/experiments/compare" figure-12 "$BATS_TEST_TMPDIR/s.csv"
  [[ $output == *"HOLDS"*"read_flat_small"* ]]
  [[ $output != *"delivered rate"* ]]
}

@test "figure-12 draws the delivered rate beside the completion rate where the summary has it" {
  grep -q 'sel(column("srv_delivered_mops_median"), "read", "rc")' "$ROOT/figures/figure-12.gp"
  grep -q 'sel(column("srv_delivered_mops_median"), "write", "uc")' "$ROOT/figures/figure-12.gp"
  raw srv > "$BATS_TEST_TMPDIR/raw.csv"
  mkdir -p "$BATS_TEST_TMPDIR/run"
  python3 "$LIB/rbcsv.py" aggregate "$BATS_TEST_TMPDIR/raw.csv" > "$BATS_TEST_TMPDIR/run/summary.csv"
  # the delivered points as gnuplot reads them (hasdeliv from figures/plot)
  gnuplot -e "figdir='$ROOT/figures'; data='$BATS_TEST_TMPDIR/run/summary.csv'; hasdeliv=1; out='$BATS_TEST_TMPDIR/x'" \
    -e 'load figdir."/common.gp"; sel(v, vb, tr) = (strcol("verb") eq vb && strcol("transport") eq tr) ? okv(v) : NaN; set table "'"$BATS_TEST_TMPDIR"'/tab"; plot data using (column("size_bytes")):(hasdeliv ? sel(column("srv_delivered_mops_median"), "read", "rc") : NaN) with points; unset table' 2> /dev/null
  [ "$(awk '$3 == "i" { print $1 ":" $2 }' "$BATS_TEST_TMPDIR/tab" | tr '\n' ' ')" = "16:1 32:2 64:4 " ]
  run "$ROOT/figures/plot" figure-12 "$BATS_TEST_TMPDIR/run/summary.csv" --out "$BATS_TEST_TMPDIR/out"
  [ "$status" -eq 0 ]
  [ -s "$BATS_TEST_TMPDIR/out/figure-12.png" ]
  # without the column the figure still draws (hasdeliv 0)
  raw none > "$BATS_TEST_TMPDIR/raw.csv"
  python3 "$LIB/rbcsv.py" aggregate "$BATS_TEST_TMPDIR/raw.csv" > "$BATS_TEST_TMPDIR/run/summary.csv"
  run "$ROOT/figures/plot" figure-12 "$BATS_TEST_TMPDIR/run/summary.csv" --out "$BATS_TEST_TMPDIR/out2"
  [ "$status" -eq 0 ]
}
