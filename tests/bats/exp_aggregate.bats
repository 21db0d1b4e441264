#!/usr/bin/env bats
# Experiment runner: merging rows and aggregating them per point.

load fixtures/exp/helpers

@test "aggregation of the golden raw.csv gives the golden summary.csv" {
  # point 1: per-rep sums 3, 4, 5 Mops -> median 4 [3..5]; latency: per-rep
  # mean over processes 3, 4, 15 us -> median 4; the server row is ignored.
  # point 2: rep 2 has a failed row -> partial, median of 20 and 22 = 21.
  # point 3: every row failed -> failed, empty metrics, reason kept.
  run awk -f "$LIB/csv.awk" -f "$LIB/aggregate.awk" "$FIX/golden-raw.csv"
  [ "$status" -eq 0 ]
  diff <(printf '%s\n' "$output") "$FIX/golden-summary.csv"
}

@test "summary columns: medians, extremes and status of each point" {
  # the aggregator's own output, not the golden file
  local s=$BATS_TEST_TMPDIR/summary.csv
  awk -f "$LIB/csv.awk" -f "$LIB/aggregate.awk" "$FIX/golden-raw.csv" > "$s"
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
  run awk -f "$LIB/csv.awk" -f "$LIB/merge.awk" "$BATS_TEST_TMPDIR/x.csv" "$BATS_TEST_TMPDIR/y.csv"
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
  run awk -f "$LIB/csv.awk" -f "$LIB/aggregate.awk" "$BATS_TEST_TMPDIR/raw.csv"
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
  run awk -f "$LIB/csv.awk" -f "$LIB/aggregate.awk" "$BATS_TEST_TMPDIR/raw.csv"
  printf '%s\n' "$output" > "$BATS_TEST_TMPDIR/s.csv"
  [ "$(csv_col "$BATS_TEST_TMPDIR/s.csv" mops_median)" = 7 ]
}

@test "the runner's awk programs work with busybox awk (the VM has no other)" {
  command -v busybox > /dev/null || skip "busybox is not installed"
  run busybox awk -f "$LIB/csv.awk" -f "$LIB/aggregate.awk" "$FIX/golden-raw.csv"
  [ "$status" -eq 0 ]
  diff <(printf '%s\n' "$output") "$FIX/golden-summary.csv"
  printf 'a,b\n1,"x,y"\n' > "$BATS_TEST_TMPDIR/x.csv"
  run busybox awk -f "$LIB/csv.awk" -f "$LIB/merge.awk" "$BATS_TEST_TMPDIR/x.csv" "$BATS_TEST_TMPDIR/x.csv"
  [ "${lines[2]}" = '1,"x,y"' ]
}

@test "a failed row without config values joins its point (same exp_point), not a point of its own" {
  {
    echo "verb,size_bytes,test,exp_name,exp_point,exp_rep,exp_procs,status,reason,mops"
    echo "read,64,bw,e,1,1,1,ok,,2"
    echo "read,64,,e,1,2,1,failed,killed,"
  } > "$BATS_TEST_TMPDIR/raw.csv"
  run awk -f "$LIB/csv.awk" -f "$LIB/aggregate.awk" "$BATS_TEST_TMPDIR/raw.csv"
  printf '%s\n' "$output" > "$BATS_TEST_TMPDIR/s.csv"
  [ "$(tail -n +2 "$BATS_TEST_TMPDIR/s.csv" | wc -l)" -eq 1 ]
  [ "$(csv_col "$BATS_TEST_TMPDIR/s.csv" status)" = partial ]
  [ "$(csv_col "$BATS_TEST_TMPDIR/s.csv" test)" = bw ]
}
