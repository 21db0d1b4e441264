#!/usr/bin/env bats
# Experiment runner: merging rows and aggregating them per point.

load fixtures/exp/helpers
bats_require_minimum_version 1.5.0

@test "aggregation of the golden raw.csv gives the golden summary.csv" {
  # point 1: per-rep sums 3, 4, 5 Mops -> median 4 [3..5]; latency: per-rep
  # mean over processes 3, 4, 15 us -> median 4; the server row is ignored.
  # point 2: rep 2 has a failed row -> partial, median of 20 and 22 = 21.
  # point 3: every row failed -> failed, empty metrics, reason kept.
  run python3 "$LIB/rbcsv.py" aggregate "$FIX/golden-raw.csv"
  [ "$status" -eq 0 ]
  diff <(printf '%s\n' "$output") "$FIX/golden-summary.csv"
}

@test "summary columns: medians, extremes and status of each point" {
  # the aggregator's own output, not the golden file
  local s=$BATS_TEST_TMPDIR/summary.csv
  python3 "$LIB/rbcsv.py" aggregate "$FIX/golden-raw.csv" > "$s"
  [ "$(csv_col "$s" mops_median | tr '\n' ' ')" = "4 21  " ]
  [ "$(csv_col "$s" mops_min | tr '\n' ' ')" = "3 20  " ]
  [ "$(csv_col "$s" mops_max | tr '\n' ' ')" = "5 22  " ]
  [ "$(csv_col "$s" lat_p50_us_median | head -n 1)" = 4 ]
  [ "$(csv_col "$s" status | tr '\n' ' ')" = "ok partial failed " ]
  [ "$(csv_col "$s" reps_ok | tr '\n' ' ')" = "3 2 0 " ]
  [ "$(csv_col "$s" reason | sed -n 3p)" = 'remote said: "UC has no READ", closed' ]
  [ "$(csv_col "$s" device | sed -n 2p)" = "rxe0+rxe1" ]
}

@test "merge unions columns of files whose headers differ" {
  printf 'a,b,status\n1,2,ok\n' > "$BATS_TEST_TMPDIR/x.csv"
  printf 'b,c,status\n3,"4,5",failed\n' > "$BATS_TEST_TMPDIR/y.csv"
  run python3 "$LIB/rbcsv.py" merge "$BATS_TEST_TMPDIR/x.csv" "$BATS_TEST_TMPDIR/y.csv"
  [ "$status" -eq 0 ]
  [ "${lines[0]}" = "a,b,status,c" ]
  [ "${lines[1]}" = "1,2,ok," ]
  [ "${lines[2]}" = ',3,failed,"4,5"' ]
}

@test "the median of an even number of repetitions is the mean of the middle two" {
  {
    echo "verb,exp_point,exp_rep,status,mops"
    for r in 1 2 3 4; do echo "read,1,$r,ok,$((r * r))"; done
  } > "$BATS_TEST_TMPDIR/raw.csv"
  run python3 "$LIB/rbcsv.py" aggregate "$BATS_TEST_TMPDIR/raw.csv"
  printf '%s\n' "$output" > "$BATS_TEST_TMPDIR/s.csv"
  # 1 4 9 16 -> (4 + 9) / 2
  [ "$(csv_col "$BATS_TEST_TMPDIR/s.csv" mops_median)" = 6.5 ]
  [ "$(csv_col "$BATS_TEST_TMPDIR/s.csv" mops_max)" = 16 ]
}

@test "per-thread rows are not counted twice: only a process's thread 'all' row" {
  {
    echo "verb,exp_point,exp_rep,proc_index,thread,status,mops"
    echo "read,1,1,0,0,ok,1"
    echo "read,1,1,0,1,ok,2"
    echo "read,1,1,0,all,ok,3"
    echo "read,1,1,1,all,ok,4"
  } > "$BATS_TEST_TMPDIR/raw.csv"
  run python3 "$LIB/rbcsv.py" aggregate "$BATS_TEST_TMPDIR/raw.csv"
  printf '%s\n' "$output" > "$BATS_TEST_TMPDIR/s.csv"
  [ "$(csv_col "$BATS_TEST_TMPDIR/s.csv" mops_median)" = 7 ]
}

@test "merge and tag keep a field with commas and quotes as written (one CSV reader, rbcsv.py)" {
  printf 'a,b\n1,"x,y"\n2,"say ""hi"""\n' > "$BATS_TEST_TMPDIR/x.csv"
  printf 'b,c\n"p,q",3\n' > "$BATS_TEST_TMPDIR/y.csv"
  run python3 "$LIB/rbcsv.py" merge "$BATS_TEST_TMPDIR/x.csv" "$BATS_TEST_TMPDIR/y.csv"
  [ "$status" -eq 0 ]
  [ "$output" = 'a,b,c
1,"x,y",
2,"say ""hi""",
,"p,q",3' ]
  run python3 "$LIB/rbcsv.py" tag -v exp_name='e,1' -v exp_point=2 -v exp_rep=1 -v exp_procs=1 -v exp_seq=3 \
    -v extra='note=a"b' "$BATS_TEST_TMPDIR/x.csv"
  [ "$status" -eq 0 ]
  [ "${lines[0]}" = 'a,b,exp_name,exp_point,exp_rep,exp_procs,exp_seq,note' ]
  [ "${lines[2]}" = '2,"say ""hi""","e,1",2,1,1,3,"a""b"' ]
  run python3 "$LIB/rbcsv.py" nosuch "$BATS_TEST_TMPDIR/x.csv"
  [ "$status" -eq 2 ]
  [[ $output == *"usage: rbcsv.py aggregate|"* ]]
}

@test "a failed row without config values joins its point (same exp_point), not a point of its own" {
  {
    echo "verb,size_bytes,test,exp_name,exp_point,exp_rep,exp_procs,status,reason,mops"
    echo "read,64,bw,e,1,1,1,ok,,2"
    echo "read,64,,e,1,2,1,failed,killed,"
  } > "$BATS_TEST_TMPDIR/raw.csv"
  run python3 "$LIB/rbcsv.py" aggregate "$BATS_TEST_TMPDIR/raw.csv"
  printf '%s\n' "$output" > "$BATS_TEST_TMPDIR/s.csv"
  [ "$(tail -n +2 "$BATS_TEST_TMPDIR/s.csv" | wc -l)" -eq 1 ]
  [ "$(csv_col "$BATS_TEST_TMPDIR/s.csv" status)" = partial ]
  [ "$(csv_col "$BATS_TEST_TMPDIR/s.csv" test)" = bw ]
}

@test "common window: rates of a repetition are summed only when the processes' windows overlap >= 99 %" {
  # point 1, rep 1: latest start 100.004, earliest end 101.000, longest
  # window 1.001 s -> 0.995: summed (1+2+3+4 = 10); rep 2: one process
  # started 0.3 s late -> 0.7: its rates are left out (not 20), the
  # latency is not a rate and stays (mean of 10 and 30); the point says
  # overlap 0.7000, low. Point 2: thread rows do not count, 1.0000.
  # Point 3: no window times for 2 processes -> unknown, still summed.
  # Point 4: one process -> 1.0000.
  run python3 "$LIB/rbcsv.py" aggregate "$FIX/overlap-raw.csv"
  [ "$status" -eq 0 ]
  printf '%s\n' "$output" > "$BATS_TEST_TMPDIR/s.csv"
  local s=$BATS_TEST_TMPDIR/s.csv
  [ "$(head -n 1 "$s" | awk -F, '{ print $(NF - 1) "," $NF }')" = "overlap,overlap_flag" ]
  [ "$(csv_col "$s" overlap | tr '\n' ' ')" = "0.7000 1.0000  1.0000 " ]
  [ "$(csv_col "$s" overlap_flag | tr '\n' ' ')" = "low  unknown  " ]
  [ "$(csv_col "$s" mops_median | tr '\n' ' ')" = "10 13 3 8 " ]
  [ "$(csv_col "$s" gbps_median | head -n 1)" = 1 ]
  [ "$(csv_col "$s" lat_p50_us_median | head -n 1)" = 20 ]
  [ "$(csv_col "$s" status | tr '\n' ' ')" = "ok ok ok ok " ]
}

@test "common window: the 99 % line is a threshold (0.995 passes, just below 0.99 does not)" {
  {
    echo "exp_name,exp_point,exp_rep,exp_procs,verb,proc_index,thread,status,mops,win_start_srv_s,win_end_srv_s"
    # 0.995 s common of a 1.000 s longest window
    echo "f,1,1,2,read,0,all,ok,1,10.000,11.000"
    echo "f,1,1,2,read,1,all,ok,2,10.005,11.000"
    # 0.989 s common of 1.000 s
    echo "f,2,1,2,read,0,all,ok,1,10.000,11.000"
    echo "f,2,1,2,read,1,all,ok,2,10.011,11.011"
  } > "$BATS_TEST_TMPDIR/raw.csv"
  run python3 "$LIB/rbcsv.py" aggregate "$BATS_TEST_TMPDIR/raw.csv"
  printf '%s\n' "$output" > "$BATS_TEST_TMPDIR/s.csv"
  [ "$(csv_col "$BATS_TEST_TMPDIR/s.csv" overlap | tr '\n' ' ')" = "0.9950 0.9890 " ]
  [ "$(csv_col "$BATS_TEST_TMPDIR/s.csv" mops_median | tr '\n' ' ')" = "3  " ]
  [ "$(csv_col "$BATS_TEST_TMPDIR/s.csv" overlap_flag | tr '\n' ' ')" = " low " ]
}

@test "common window: the clock offset's error bound counts against the overlap" {
  {
    echo "exp_name,exp_point,exp_rep,exp_procs,verb,proc_index,thread,status,mops,win_start_srv_s,win_end_srv_s,clock_err_us"
    # the same 1 s window, each end possibly 6 ms off: sure overlap 0.988
    echo "f,1,1,2,read,0,all,ok,1,10.000,11.000,6000.0"
    echo "f,1,1,2,read,1,all,ok,2,10.000,11.000,0.5"
    # 4 ms: 0.992
    echo "f,2,1,2,read,0,all,ok,1,10.000,11.000,4000.0"
    echo "f,2,1,2,read,1,all,ok,2,10.000,11.000,"
  } > "$BATS_TEST_TMPDIR/raw.csv"
  run python3 "$LIB/rbcsv.py" aggregate "$BATS_TEST_TMPDIR/raw.csv"
  printf '%s\n' "$output" > "$BATS_TEST_TMPDIR/s.csv"
  [ "$(csv_col "$BATS_TEST_TMPDIR/s.csv" overlap | tr '\n' ' ')" = "0.9880 0.9920 " ]
  [ "$(csv_col "$BATS_TEST_TMPDIR/s.csv" overlap_flag | tr '\n' ' ')" = "low  " ]
  [ "$(csv_col "$BATS_TEST_TMPDIR/s.csv" mops_median | tr '\n' ' ')" = " 3 " ]
}

@test "spread: the CV of each metric over the ok repetitions (sample stdev / mean)" {
  # mops per rep 9, 10, 11: mean 10, sample stdev 1 -> 10.0 %; one rep: no CV
  {
    echo "verb,exp_point,exp_rep,status,mops,lat_p50_us"
    echo "read,1,1,ok,9,2"
    echo "read,1,2,ok,10,2"
    echo "read,1,3,ok,11,4"
    echo "read,2,1,ok,5,1"
  } > "$BATS_TEST_TMPDIR/raw.csv"
  run python3 "$LIB/rbcsv.py" aggregate "$BATS_TEST_TMPDIR/raw.csv"
  [ "$status" -eq 0 ]
  printf '%s\n' "$output" > "$BATS_TEST_TMPDIR/s.csv"
  [ "$(csv_col "$BATS_TEST_TMPDIR/s.csv" mops_cv_pct | tr '\n' ' ')" = "10.0  " ]
  # 2 2 4: mean 2.667, stdev 1.155 -> 43.3 %
  [ "$(csv_col "$BATS_TEST_TMPDIR/s.csv" lat_p50_us_cv_pct | head -n 1)" = 43.3 ]
  # the headline metric is mops: 10 % is not noisy (latency's 43 % does not count)
  [ "$(csv_col "$BATS_TEST_TMPDIR/s.csv" noisy | tr '\n' ' ')" = "no  " ]
}

@test "noisy: a point whose CV exceeds the threshold (default 20 %, noisy_cv_pct)" {
  # point 1: 1, 2, 3 -> CV 50 %; point 2: 10, 11, 12 -> 9.1 %; point 3:
  # latency only, 10 20 30 -> 50 %; point 4: a failed rep leaves one ok rep
  {
    echo "verb,exp_point,exp_rep,status,mops,lat_p50_us"
    for r in 1 2 3; do echo "read,1,$r,ok,$r,"; done
    for r in 1 2 3; do echo "read,2,$r,ok,$((r + 9)),"; done
    for r in 1 2 3; do echo "read,3,$r,ok,,$((r * 10))"; done
    echo "read,4,1,ok,1,"
    echo "read,4,2,failed,,"
  } > "$BATS_TEST_TMPDIR/raw.csv"
  run python3 "$LIB/rbcsv.py" aggregate "$BATS_TEST_TMPDIR/raw.csv"
  printf '%s\n' "$output" > "$BATS_TEST_TMPDIR/s.csv"
  [ "$(csv_col "$BATS_TEST_TMPDIR/s.csv" noisy | tr '\n' ' ')" = "yes no yes  " ]
  [ "$(csv_col "$BATS_TEST_TMPDIR/s.csv" mops_cv_pct | sed -n 2p)" = 9.1 ]
  # a threshold above 50 %: nothing is noisy; below 9.1 %: both rate points are
  run python3 "$LIB/rbcsv.py" aggregate -v noisy_cv_pct=60 "$BATS_TEST_TMPDIR/raw.csv"
  printf '%s\n' "$output" > "$BATS_TEST_TMPDIR/s.csv"
  [ "$(csv_col "$BATS_TEST_TMPDIR/s.csv" noisy | tr '\n' ' ')" = "no no no  " ]
  run python3 "$LIB/rbcsv.py" aggregate -v noisy_cv_pct=5 "$BATS_TEST_TMPDIR/raw.csv"
  printf '%s\n' "$output" > "$BATS_TEST_TMPDIR/s.csv"
  [ "$(csv_col "$BATS_TEST_TMPDIR/s.csv" noisy | tr '\n' ' ')" = "yes yes yes  " ]
}

@test "noisy: rdma_seq's points (Mrps, no Mops) are judged by Mrps, as the subtitle's spread is" {
  # point 1: mrps 1, 2, 3 (CV 50 %) with a steady latency; point 2: mrps
  # steady (9.1 %) with a latency CV of 50 % (mrps is a metric of the
  # sequencer's experiments: [run] summary_metrics -> sums_extra)
  {
    echo "app,variant,exp_point,exp_rep,status,mrps,lat_p50_us"
    for r in 1 2 3; do echo "seq,spec-s0,1,$r,ok,$r,100"; done
    for r in 1 2 3; do echo "seq,spec-s0,2,$r,ok,$((r + 9)),$((r * 10))"; done
  } > "$BATS_TEST_TMPDIR/raw.csv"
  run python3 "$LIB/rbcsv.py" aggregate -v sums_extra=mrps "$BATS_TEST_TMPDIR/raw.csv"
  [ "$status" -eq 0 ]
  printf '%s\n' "$output" > "$BATS_TEST_TMPDIR/s.csv"
  [ "$(csv_col "$BATS_TEST_TMPDIR/s.csv" mrps_cv_pct | tr '\n' ' ')" = "50.0 9.1 " ]
  [ "$(csv_col "$BATS_TEST_TMPDIR/s.csv" noisy | tr '\n' ' ')" = "yes no " ]
}

@test "[run] noisy_cv_pct must be a number" {
  run bash -c 'RB_LIB=$1; . "$1/runner.sh"; RB_CONF=([run.noisy_cv_pct]=lots); RB_KNOB_NAMES=(); rb_params_check_values' _ "$LIB"
  [ "$status" -ne 0 ]
  [[ $output == *"noisy_cv_pct = lots"* ]]
}

@test "receiver side: recv_loss_pct per repetition from the summed sender and server rates" {
  # a UD point, 2 processes, 3 repetitions: senders 2+2, 3+3, 4+4 Mops,
  # the server received 1+1, 1.5+1.5, 3+3 Mops: lost 50, 50, 25 %
  {
    echo "exp_name,exp_point,exp_procs,exp_rep,role,thread,verb,transport,size_bytes,status,mops,server_recv_mops"
    echo "e,1,2,1,client,all,send,ud,32,ok,2,1"
    echo "e,1,2,1,client,all,send,ud,32,ok,2,1"
    echo "e,1,2,2,client,all,send,ud,32,ok,3,1.5"
    echo "e,1,2,2,client,all,send,ud,32,ok,3,1.5"
    echo "e,1,2,3,client,all,send,ud,32,ok,4,3"
    echo "e,1,2,3,client,all,send,ud,32,ok,4,3"
  } > "$BATS_TEST_TMPDIR/raw.csv"
  local s=$BATS_TEST_TMPDIR/summary.csv
  python3 "$LIB/rbcsv.py" aggregate -v sums_extra=server_recv_mops "$BATS_TEST_TMPDIR/raw.csv" > "$s"
  [ "$(csv_col "$s" server_recv_mops_median)" = 3 ]
  [ "$(csv_col "$s" mops_median)" = 6 ]
  [ "$(csv_col "$s" recv_loss_pct_median)" = 50 ]
  [ "$(csv_col "$s" recv_loss_pct_min)" = 25 ]
  [ "$(csv_col "$s" recv_loss_pct_max)" = 50 ]
  # without the server's rate among the summed metrics: no such column
  python3 "$LIB/rbcsv.py" aggregate "$BATS_TEST_TMPDIR/raw.csv" > "$s"
  [ "$(grep -c recv_loss_pct "$s")" -eq 0 ]
}

@test "no point is silently empty: a point with no repetition above 99 % overlap is low-overlap, with the reason" {
  # point 1: both repetitions overlap 0.96 (0.04 s of 1 s late): no trusted
  # rate -> status low-overlap, reason names the overlap; point 2: rep 1
  # at 0.96, rep 2 and 3 at 1.0 -> ok, the median of the 2 trusted reps,
  # reps_rated 2 and a note saying which were left out
  {
    echo "exp_name,exp_point,exp_rep,exp_procs,verb,proc_index,thread,status,mops,win_start_srv_s,win_end_srv_s"
    for r in 1 2; do
      echo "f,1,$r,2,write,0,all,ok,1,10.00,11.00"
      echo "f,1,$r,2,write,1,all,ok,2,10.04,11.04"
    done
    echo "f,2,1,2,write,0,all,ok,1,10.00,11.00"
    echo "f,2,1,2,write,1,all,ok,9,10.04,11.04"
    for r in 2 3; do
      echo "f,2,$r,2,write,0,all,ok,1,10.00,11.00"
      echo "f,2,$r,2,write,1,all,ok,$r,10.00,11.00"
    done
  } > "$BATS_TEST_TMPDIR/raw.csv"
  local s=$BATS_TEST_TMPDIR/s.csv
  python3 "$LIB/rbcsv.py" aggregate "$BATS_TEST_TMPDIR/raw.csv" > "$s"
  [ "$(csv_col "$s" status | tr '\n' ' ')" = "low-overlap ok " ]
  [ "$(csv_col "$s" reason | head -n 1)" = "overlap 0.9600 < 0.99: rate not trusted (2 of 2 repetitions)" ]
  [ "$(csv_col "$s" mops_median | tr '\n' ' ')" = " 3.5 " ]
  [ "$(csv_col "$s" reps_rated | tr '\n' ' ')" = "0 2 " ]
  [ "$(csv_col "$s" note | sed -n 2p)" = "overlap 0.9600 < 0.99 in 1 of 3 repetitions: rates from the other 2" ]
  # the console table says why the first point has no rate, and notes the second's
  run python3 "$LIB/rbcsv.py" show "$s"
  [[ ${lines[1]} == *"low-overlap"*"(overlap 0.9600 < 0.99: rate not trusted"* ]] || { echo "$output"; false; }
  [[ ${lines[2]} == *"ok"*"(overlap 0.9600 < 0.99 in 1 of 3 repetitions: rates from the other 2)"* ]] || { echo "$output"; false; }
  # counted apart from ok and failed: points ok failed low-overlap
  run python3 "$LIB/rbcsv.py" show -v count=1 "$s"
  [ "$output" = "2 1 0 1" ]
}

@test "receiver side: a repetition's loss outside [-5, 100] % is left out (NA) with the reason, not a -760000 % median" {
  # rep 3: the server saw a short burst (64 receives) at 2.4 Mops against
  # senders' 0.0003 Mops: 100 x (1 - 2.4 / 0.0003) = -799900 %
  {
    echo "exp_name,exp_point,exp_procs,exp_rep,role,thread,verb,transport,size_bytes,status,mops,server_recv_mops"
    echo "e,1,1,1,client,all,send,ud,32,ok,2,1.5"
    echo "e,1,1,2,client,all,send,ud,32,ok,2,1"
    echo "e,1,1,3,client,all,send,ud,32,ok,0.0003,2.4"
  } > "$BATS_TEST_TMPDIR/raw.csv"
  local s=$BATS_TEST_TMPDIR/summary.csv
  python3 "$LIB/rbcsv.py" aggregate -v sums_extra=server_recv_mops "$BATS_TEST_TMPDIR/raw.csv" > "$s"
  [ "$(csv_col "$s" recv_loss_pct_min)" = 25 ]
  [ "$(csv_col "$s" recv_loss_pct_max)" = 50 ]
  [ "$(csv_col "$s" recv_loss_pct_median)" = 37.5 ]
  [[ $(csv_col "$s" note) == "recv_loss_pct of repetition 3 (-799900 %) outside [-5, 100] %: left out"* ]]
}

@test "an ok row whose window completed no operation (ops 0) does not count: the repetition fails, with the reason" {
  {
    echo "exp_name,exp_point,exp_procs,exp_rep,role,thread,verb,transport,size_bytes,status,reason,ops,mops,server_recv_mops"
    echo "e,1,1,1,client,all,send,ud,32,ok,,1000,2,1.5"
    echo "e,1,1,2,client,all,send,ud,32,ok,,1000,2,1"
    echo "e,1,1,3,client,all,send,ud,32,ok,,0,0,2.43893"
  } > "$BATS_TEST_TMPDIR/raw.csv"
  local s=$BATS_TEST_TMPDIR/summary.csv
  python3 "$LIB/rbcsv.py" aggregate -v sums_extra=server_recv_mops "$BATS_TEST_TMPDIR/raw.csv" > "$s"
  [ "$(csv_col "$s" status)" = partial ]
  [ "$(csv_col "$s" reps_ok)" = 2 ]
  [ "$(csv_col "$s" reason)" = "no operation completed in the window (ops 0)" ]
  [ "$(csv_col "$s" mops_min)" = 2 ]
}

@test "the console table shows Mrps for rdma_seq's summaries (no Mops column there), with min..max" {
  local s=$ROOT/tests/bats/fixtures/exp/summary-figure-7.csv
  run python3 "$LIB/rbcsv.py" show "$s"
  [ "$status" -eq 0 ]
  [[ ${lines[0]} == *"Mrps median [min..max]"* ]] || { echo "${lines[0]}"; false; }
  # every ok point shows its rate, none a bare "-"
  run ! grep -E ' ok +- ' <<< "$output"
}

@test "a job killed at its timeout (job log: signal 0, exit 143, no rows) gets a failed row naming TERM, not signal 0" {
  local d=$BATS_TEST_TMPDIR/run
  mkdir -p "$d/points/1" "$d/points/2"
  printf '1\tsize_bytes=32\tprocs=1\n2\tsize_bytes=64\tprocs=1\n' > "$d/grid.tsv"
  printf 'Seq\tHost\tStarttime\tJobRuntime\tSend\tReceive\tExitval\tSignal\tCommand\n' > "$d/joblog"
  printf '1\t:\t1.0\t43.753\t0\t0\t143\t0\tpoint 1 1 32\n' >> "$d/joblog"
  printf '2\t:\t2.0\t5.000\t0\t0\t0\t9\tpoint 2 1 64\n' >> "$d/joblog"
  run awk -f "$LIB/csv.awk" -f "$LIB/joblog_failed.awk" -v run_dir="$d" -v exp_name=t -v run_id=r -v timeout_s=42 \
    "$d/grid.tsv" /dev/null "$d/joblog"
  [ "$status" -eq 0 ]
  [[ $output == *'"killed (signal 15, exit 143) after 43.753 s; point timeout 42 s"'* ]] || { echo "$output"; false; }
  [[ $output == *'"killed (signal 9, exit 0) after 5.000 s; point timeout 42 s"'* ]] || { echo "$output"; false; }
  [[ $output != *"signal 0"* ]]
}
