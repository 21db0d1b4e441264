#!/usr/bin/env bats
# Client-bound points: a load series (exp_procs x threads x window at the
# same other knobs) whose next-higher load still raised the rate marks the
# point client_bound = yes (rbcsv.py aggregate); compare does not judge a
# hardware claim on such points; figure-12 marks them.

load fixtures/exp/helpers
bats_require_minimum_version 1.5.0

# the planted raw rows (fixtures/exp/client-bound-raw.csv), 3 repetitions:
#   READ 64 B:  2 procs 4 Mops, 4 procs 8 Mops (+100 %), 8 procs 8.4 (+5 %)
#   WRITE 64 B: 2 procs 6 Mops, 4 procs 6.4 Mops (+6.7 %)
setup() {
  S=$BATS_TEST_TMPDIR/summary.csv
  python3 "$LIB/rbcsv.py" aggregate "$FIX/client-bound-raw.csv" > "$S"
}

@test "doubling the load raised the rate by more than 10 %: client_bound yes; by less: no; the highest load: empty" {
  [ "$(head -n 1 "$S" | awk -F, '{ print $NF }')" = client_bound ]
  [ "$(csv_col "$S" exp_procs | tr '\n' ' ')" = "2 4 8 2 4 " ]
  [ "$(csv_col "$S" mops_median | tr '\n' ' ')" = "4 8 8.4 6 6.4 " ]
  [ "$(csv_col "$S" client_bound | tr '\n' ' ')" = "yes no  no  " ]
}

@test "the threshold is the run's client_bound_pct: at 120 % the +100 % step is no longer client-bound" {
  python3 "$LIB/rbcsv.py" aggregate -v client_bound_pct=120 "$FIX/client-bound-raw.csv" > "$S"
  [ "$(csv_col "$S" client_bound | tr '\n' ' ')" = "no no  no  " ]
  # and at 5 %, WRITE's +6.7 % step is
  python3 "$LIB/rbcsv.py" aggregate -v client_bound_pct=5 "$FIX/client-bound-raw.csv" > "$S"
  [ "$(csv_col "$S" client_bound | tr '\n' ' ')" = "yes no  yes  " ]
}

@test "the window is load too: a doubled window at the same procs counts as the next-higher load" {
  { echo "exp_name,exp_point,exp_rep,exp_procs,verb,transport,size_bytes,threads,window,status,mops"
    for r in 1 2; do
      echo "w,1,$r,4,read,rc,64,1,8,ok,3"
      echo "w,2,$r,4,read,rc,64,1,16,ok,5"
      echo "w,3,$r,4,read,rc,128,1,8,ok,3"
    done; } > "$BATS_TEST_TMPDIR/raw.csv"
  python3 "$LIB/rbcsv.py" aggregate "$BATS_TEST_TMPDIR/raw.csv" > "$S"
  # 128 B has no other load: its own series, empty
  [ "$(csv_col "$S" client_bound | tr '\n' ' ')" = "yes   " ]
}

@test "no load series in the run: no client_bound column (the golden summary stays as it was)" {
  run python3 "$LIB/rbcsv.py" aggregate "$FIX/golden-raw.csv"
  [ "$status" -eq 0 ]
  [[ ${lines[0]} != *client_bound* ]]
}

@test "a point without a rate is neither yes nor no" {
  sed 's/^\(figure-12,2,[0-9],4,[0-9],read,.*\),ok,2,/\1,failed,,/' "$FIX/client-bound-raw.csv" > "$BATS_TEST_TMPDIR/raw.csv"
  python3 "$LIB/rbcsv.py" aggregate "$BATS_TEST_TMPDIR/raw.csv" > "$S"
  [ "$(csv_col "$S" status | sed -n 2p)" = failed ]
  # 2 procs: its next-higher load has no rate; 4 procs: none itself
  [ "$(csv_col "$S" client_bound | tr '\n' ' ')" = "   no  " ]
}

@test "compare: a hardware claim read on a client-bound point is NOT MEASURED, with the reason" {
  run "$ROOT/experiments/compare" figure-12 "$S"
  [[ $output == *"NOT MEASURED"*"read_flat_small"*"1 of 3 points client-bound"*"the requesters, not the NIC's peak inbound READ rate, limited them"* ]]
  run "$ROOT/experiments/compare" figure-12 "$S" --verdicts
  [[ $output == *$'read_flat_small\tNOT MEASURED\t1 point client-bound'* ]]
}

@test "compare: with no client-bound point the claim is judged, not held back" {
  # READ at 2 procs: 7.8 Mops (then +2.6 % and +5 %): no point is client-bound
  sed 's/^\(figure-12,1,[0-9],2,[0-9],read,.*\),ok,2,/\1,ok,3.9,/' "$FIX/client-bound-raw.csv" > "$BATS_TEST_TMPDIR/raw.csv"
  python3 "$LIB/rbcsv.py" aggregate "$BATS_TEST_TMPDIR/raw.csv" > "$S"
  [ "$(csv_col "$S" client_bound | tr '\n' ' ')" = "no no  no  " ]
  run "$ROOT/experiments/compare" figure-12 "$S"
  [[ $output != *"client-bound ("* ]]
  [[ $output != *"points client-bound"* ]]
}

@test "figure-12 draws an open triangle over exactly the client-bound points, with a key entry" {
  # the figure's own plot commands carry the mark on both panels
  [ "$(grep -c 'cbound(column("mops_median"))) with points ls 21 title cbtitle' "$ROOT/figures/figure-12.gp")" -eq 1 ]
  [ "$(grep -c 'cbound(column("gbps_median"))) with points ls 21' "$ROOT/figures/figure-12.gp")" -eq 1 ]
  # the mark's data: common.gp's cbound() on the summary, as gnuplot reads it
  gnuplot -e "figdir='$ROOT/figures'; data='$S'; anycb=1; out='$BATS_TEST_TMPDIR/x'" \
    -e 'load figdir."/common.gp"; set table "'"$BATS_TEST_TMPDIR"'/tab"; plot data using (column("size_bytes")):(cbound(column("mops_median"))) with points; unset table; print cbtitle' \
    2> "$BATS_TEST_TMPDIR/err"
  grep -q 'open triangle: client-bound' "$BATS_TEST_TMPDIR/err"
  # one drawn point (2 procs READ, 4 Mops), the others NaN
  [ "$(awk '$3 == "i" { print $1 ":" $2 }' "$BATS_TEST_TMPDIR/tab")" = "64:4" ]
  [ "$(awk '$3 == "u"' "$BATS_TEST_TMPDIR/tab" | wc -l)" -ge 3 ]
  # figures/plot passes the count, so the key entry appears only with such points
  mkdir -p "$BATS_TEST_TMPDIR/run"
  cp "$S" "$BATS_TEST_TMPDIR/run/summary.csv"
  run "$ROOT/figures/plot" figure-12 "$BATS_TEST_TMPDIR/run/summary.csv" --out "$BATS_TEST_TMPDIR/out"
  [ "$status" -eq 0 ]
  [ -s "$BATS_TEST_TMPDIR/out/figure-12.png" ]
  grep -q 'anycb=${anycb:-0}' "$ROOT/figures/plot"
}

# ---- experiments/saturate: doubling the client load until the rate stops rising

@test "saturate: procs doubled until the rate rose by 10 % or less; still rising at --max: client-bound, exit 3" {
  # a planted NIC limit of 5 Mops (fake_rdma_bench FAKE_RB_CAP): 2 procs
  # 1.5 + 2.5 = 4.0 Mops, 4 procs 5.0 (+25 %), 8 procs 5.0 (+0 %)
  local o=$BATS_TEST_TMPDIR/results r=$BATS_TEST_TMPDIR/results/tiny/sat-saturation.csv
  local -a ro=(-- --quick --bin "$FIX/fake_rdma_bench" --set verb:transport=read:rc)
  FAKE_RB_CAP=5 run "$ROOT/experiments/saturate" "$FIX/tiny" --max 16 --out "$o" --run-id sat "${ro[@]}"
  [ "$status" -eq 0 ] || { echo "$output"; false; }
  [ "$(head -n 1 "$r")" = "point,knob,load_reached,mops_at_load,rise_pct,saturated" ]
  [[ $(sed -n 2p "$r") == '"verb=read transport=rc test=bw size_bytes=32 threads=1 '*'",procs,4,5,0.0,yes' ]] || { cat "$r"; false; }
  # from the experiment's own procs (2), one run per load, none beyond the
  # one that showed no rise
  [ -s "$o/tiny/sat-procs-2/summary.csv" ]
  [ -s "$o/tiny/sat-procs-8/summary.csv" ]
  [ ! -e "$o/tiny/sat-procs-1" ]
  [ ! -e "$o/tiny/sat-procs-16" ]
  # stopped at --max 4 (the runs read again): still rising, client-bound
  FAKE_RB_CAP=5 run "$ROOT/experiments/saturate" "$FIX/tiny" --max 4 --out "$o" --run-id sat --reuse "${ro[@]}"
  [ "$status" -eq 3 ] || { echo "$output"; false; }
  [[ $output == *"procs = 4: run sat-procs-4 read again (--reuse)"* ]]
  [[ $(sed -n 2p "$r") == *'",procs,4,5,25.0,no' ]] || { cat "$r"; false; }
  run "$ROOT/experiments/saturate" "$FIX/tiny" --knob threads
  [ "$status" -eq 2 ]
  [[ $output == *"--knob 'threads': the load is procs (client processes) or window"* ]]
}
