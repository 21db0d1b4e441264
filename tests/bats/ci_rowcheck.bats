#!/usr/bin/env bats
# ci/rowcheck: the smoke cases' row checker. Fixture rows (rows.csv) and the
# same rows with the columns in another order (shuffled.csv): every check
# reads columns by name, so both files give the same verdicts. Each
# predicate kind is shown to hold on a good row and to fail on a bad one.

ROOT=$(cd "$BATS_TEST_DIRNAME/../.." && pwd)
FIX=$ROOT/tests/bats/fixtures/rowcheck
RC=$ROOT/ci/rowcheck

# rc_both ARGS...: run ci/rowcheck on both fixtures; both statuses must be
# equal (then $status and $output are those of the shuffled file)
rc_both() {
  run "$RC" "$FIX/rows.csv" "$@"
  local s1=$status
  run "$RC" "$FIX/shuffled.csv" "$@"
  [ "$status" = "$s1" ] || { echo "rows.csv gave $s1, shuffled.csv $status: $output"; return 1; }
}

@test "all predicate kinds hold on good rows: exit 0 and a summary line" {
  rc_both --where thread=all --where verb=write --rows 2 --values size_bytes=64,4096 \
    verb=write transport=rc 'inline_mode!=off' 'mops>0' '0<mops<10' 'qps_total==6' \
    'ctr_xmit_pkts>=2*ops'
  [ "$status" -eq 0 ]
  [[ "$output" == *"2 row(s) --where thread=all --where verb=write, 7 check(s) each, all hold"* ]]
  rc_both --where 'thread!=all' --rows 2 '1000*lat_p50_us>clock_read_ns'
  [ "$status" -eq 0 ]
}

@test "COL=VALUE fails on another value and names the row and the value" {
  rc_both --where thread=all --where verb=write inline=on
  [ "$status" -eq 1 ]
  [[ "$output" == *"line 5 (verb=write transport=rc test=bw size_bytes=4096 thread=all rep=0): 'inline=on' does not hold: inline=off"* ]]
  [[ "$output" != *"line 4"* ]]
}

@test "COL= selects or checks an empty (NA) value; a measured value fails it" {
  rc_both --where thread=all --where size_bytes=4096 lat_p50_us=
  [ "$status" -eq 0 ]
  rc_both --where thread=all --where size_bytes=64 --where verb=write lat_p50_us=
  [ "$status" -eq 1 ]
  [[ "$output" == *"'lat_p50_us=' does not hold: lat_p50_us=36"* ]]
}

@test "COL!=VALUE fails on that value" {
  rc_both --where thread=all 'transport!=ud'
  [ "$status" -eq 1 ]
  [[ "$output" == *"line 6 (verb=send transport=ud"*"'transport!=ud' does not hold: transport=ud"* ]]
}

@test "COL>X fails at the boundary and below" {
  rc_both --where thread=all --where verb=send 'server_recvs>0'
  [ "$status" -eq 1 ]
  [[ "$output" == *"'server_recvs>0' does not hold: server_recvs=0"* ]]
  # the failed row's status and reason come with it
  [[ "$output" == *"status=failed reason=--validate: ud: delivered 0 of 300 messages"* ]]
  rc_both --where thread=all --where verb=send 'server_recvs>=0'
  [ "$status" -eq 0 ]
}

@test "COL<X, COL<=X and A==B fail when they do not hold" {
  rc_both --where thread=all --where size_bytes=4096 'path_mtu<512'
  [ "$status" -eq 1 ]
  rc_both --where thread=all --where size_bytes=4096 'path_mtu<=512'
  [ "$status" -eq 0 ]
  rc_both --where thread=all --where size_bytes=4096 'path_mtu==1024'
  [ "$status" -eq 1 ]
  [[ "$output" == *"'path_mtu==1024' does not hold: path_mtu=512"* ]]
}

@test "a band lo<COL<hi fails above and below, and at an open edge" {
  rc_both --where thread=all --where verb=write '0<mops<0.02'
  [ "$status" -eq 1 ]
  [[ "$output" == *"size_bytes=64 thread=all"*"'0<mops<0.02' does not hold: mops=0.04"* ]]
  [[ "$output" != *"mops=0.011"* ]]
  rc_both --where thread=all --where verb=write '0.02<mops<10'
  [ "$status" -eq 1 ]
  [[ "$output" == *"'0.02<mops<10' does not hold: mops=0.011"* ]]
  rc_both --where thread=all --where size_bytes=4096 '0.011<mops<1'
  [ "$status" -eq 1 ]
  rc_both --where thread=all --where size_bytes=4096 '0.011<=mops<1'
  [ "$status" -eq 0 ]
}

@test "a band of three columns checks their order" {
  rc_both --where 'thread!=all' 'ops<=lat_p50_us<=clock_read_ns'
  [ "$status" -eq 1 ]
  [[ "$output" == *"does not hold: ops=300 lat_p50_us=35.5 clock_read_ns=75.0"* ]]
  rc_both --where 'thread!=all' 'lat_p50_us<=clock_read_ns<=ops'
  [ "$status" -eq 0 ]
}

@test "N*COL scales a column: packets per op (path MTU) can fail" {
  # 4096-byte row: 2700 packets for 300 ops = 9 per op (MTU 512: 8 + ACKs)
  rc_both --where thread=all --where size_bytes=4096 'ctr_xmit_pkts>=8*ops'
  [ "$status" -eq 0 ]
  rc_both --where thread=all --where size_bytes=4096 'ctr_xmit_pkts>=10*ops'
  [ "$status" -eq 1 ]
  [[ "$output" == *"does not hold: ctr_xmit_pkts=2700 ops=300"* ]]
}

@test "a numeric check on an empty (NA) value fails, whatever the comparison" {
  rc_both --where thread=all --where size_bytes=4096 'lat_p50_us>0'
  [ "$status" -eq 1 ]
  [[ "$output" == *"'lat_p50_us>0' does not hold: lat_p50_us=NA"* ]]
  rc_both --where thread=all --where size_bytes=4096 'lat_p50_us<1'
  [ "$status" -eq 1 ]
  rc_both --where thread=all --where size_bytes=4096 '1000*lat_p50_us>clock_read_ns'
  [ "$status" -eq 1 ]
}

@test "a quoted reason with commas does not shift the columns after it" {
  rc_both --where thread=all --where size_bytes=64 --where verb=write device=rxe0 'mops==0.04'
  [ "$status" -eq 0 ]
  rc_both --where 'reason=note: a reason, with commas, in quotes' --rows 1 'ops==600'
  [ "$status" -eq 0 ]
}

@test "--rows N fails on another count; no selected row fails without it" {
  rc_both --where 'thread!=all' --rows 3 'ops>0'
  [ "$status" -eq 1 ]
  [[ "$output" == *"2 row(s) selected --where thread!=all, 3 expected"* ]]
  rc_both --where thread=7 'ops>0'
  [ "$status" -eq 1 ]
  [[ "$output" == *"no row selected --where thread=7"* ]]
}

@test "--values fails on a missing, extra or reordered value" {
  rc_both --where thread=all --where verb=write --values size_bytes=64,4096
  [ "$status" -eq 0 ]
  rc_both --where thread=all --where verb=write --values size_bytes=4096,64
  [ "$status" -eq 1 ]
  [[ "$output" == *"size_bytes of the selected rows is '64,4096', expected '4096,64'"* ]]
  rc_both --where thread=all --where verb=write --values size_bytes=64
  [ "$status" -eq 1 ]
  rc_both --where thread=all --where verb=write --values size_bytes=64,4096,8
  [ "$status" -eq 1 ]
}

@test "usage errors exit 2: unknown column, bad predicate, no file, nothing to check" {
  rc_both 'mpos>0'
  [ "$status" -eq 2 ]
  [[ "$output" == *"column 'mpos' is not in the header"* ]]
  rc_both --where nosuch=1 'mops>0'
  [ "$status" -eq 2 ]
  rc_both 'mops>>1'
  [ "$status" -eq 2 ]
  rc_both 'mops'
  [ "$status" -eq 2 ]
  [[ "$output" == *"'mops' is not a predicate"* ]]
  rc_both 'x*mops>1'
  [ "$status" -eq 2 ]
  rc_both 'a<b<c<d'
  [ "$status" -eq 2 ]
  run "$RC" "$BATS_TEST_TMPDIR/none.csv" 'mops>0'
  [ "$status" -eq 2 ]
  [[ "$output" == *"no file"* ]]
  run "$RC" "$FIX/rows.csv"
  [ "$status" -eq 2 ]
  [[ "$output" == *"nothing to check"* ]]
}

@test "a header-only or empty file fails" {
  head -n 1 "$FIX/rows.csv" > "$BATS_TEST_TMPDIR/h.csv"
  run "$RC" "$BATS_TEST_TMPDIR/h.csv" 'mops>0'
  [ "$status" -eq 1 ]
  [[ "$output" == *"no row selected"* ]]
  : > "$BATS_TEST_TMPDIR/e.csv"
  run "$RC" "$BATS_TEST_TMPDIR/e.csv" 'mops>0'
  [ "$status" -eq 1 ]
}

@test "busybox awk (the VM's awk) gives the same verdicts" {
  command -v busybox > /dev/null || skip "busybox is not installed (make deps installs busybox-static)"
  mkdir -p "$BATS_TEST_TMPDIR/bb"
  ln -s "$(command -v busybox)" "$BATS_TEST_TMPDIR/bb/awk"
  PATH=$BATS_TEST_TMPDIR/bb:$PATH run "$RC" "$FIX/shuffled.csv" --where thread=all --where verb=write \
    --rows 2 '0<mops<10' 'ctr_xmit_pkts>=2*ops'
  [ "$status" -eq 0 ]
  PATH=$BATS_TEST_TMPDIR/bb:$PATH run "$RC" "$FIX/shuffled.csv" --where thread=all 'lat_p50_us>0'
  [ "$status" -eq 1 ]
  [[ "$output" == *"lat_p50_us=NA"* ]]
  PATH=$BATS_TEST_TMPDIR/bb:$PATH run "$RC" "$FIX/shuffled.csv" 'nosuch>0'
  [ "$status" -eq 2 ]
}

# breaks FIXTURE KIND COL VALUE TEXT (fixtures/rowcheck/helper.bash)
load fixtures/rowcheck/helper

@test "--expect: real bed rows pass ci/smoke.expect; a zeroed or absurd metric fails" {
  run "$RC" "$FIX/bed-bw.csv" --expect bw
  [ "$status" -eq 0 ]
  run "$RC" "$FIX/bed-lat.csv" --expect lat
  [ "$status" -eq 0 ]
  breaks bed-bw.csv bw mops 0 "'0<mops<10' does not hold: mops=0"
  breaks bed-bw.csv bw mops 42 "mops=42"
  breaks bed-bw.csv bw mops "" "mops=NA"
  # a latency below the cost of one clock read (76 ns) is not a measurement
  breaks bed-lat.csv lat lat_min_us 0.05 "'1000*lat_min_us>clock_read_ns' does not hold: lat_min_us=0.05 clock_read_ns="
  breaks bed-lat.csv lat lat_p50_us 0 "'lat_min_us<=lat_p50_us<=lat_max_us' does not hold"
  breaks bed-lat.csv lat lat_samples 99 "'lat_samples==ops' does not hold: lat_samples=99 ops=100"
  breaks bed-bw.csv bw status failed "'status=ok' does not hold: status=failed"
  # a bw row is not a lat row: its samples are the signaled WRs only
  run "$RC" "$FIX/bed-bw.csv" --expect lat
  [ "$status" -eq 1 ]
}

@test "--expect: an unknown kind or a missing expectations file is a usage error" {
  run "$RC" "$FIX/bed-bw.csv" --expect nosuch
  [ "$status" -eq 2 ]
  [[ "$output" == *"no predicate of kind 'nosuch'"* ]]
  run "$RC" "$FIX/bed-bw.csv" --expect-file "$BATS_TEST_TMPDIR/none" --expect bw
  [ "$status" -eq 2 ]
  printf '# comment\nk   0<mops<0.01\nk ops==300\n' > "$BATS_TEST_TMPDIR/e"
  run "$RC" "$FIX/bed-bw.csv" --expect-file "$BATS_TEST_TMPDIR/e" --expect k
  [ "$status" -eq 1 ]
  [[ "$output" == *"'0<mops<0.01' does not hold: mops=0.0277767"* ]]
  [[ "$output" != *"ops==300"* ]]
}

@test "COL*COL: a product of two columns (the latency over the loop's period), and N*COL*COL; NA in either fails; an unknown column is a usage error" {
  # thread 0: lat_p50_us 35.5 x mops 0.021 = 0.7455; thread 1: 36.5 x 0.019 = 0.6935
  rc_both --where 'thread!=all' --rows 2 '0.69<=lat_p50_us*mops<=0.75' '1.3<=2*lat_p50_us*mops<1.5'
  [ "$status" -eq 0 ] || { echo "$output"; false; }
  rc_both --where thread=0 'lat_p50_us*mops<0.7'
  [ "$status" -eq 1 ]
  [[ $output == *"'lat_p50_us*mops<0.7' does not hold: lat_p50_us=35.5 mops=0.021"* ]] || { echo "$output"; false; }
  # the 4096 B row has no lat_p50_us: not a number, never within a band
  rc_both --where thread=all --where size_bytes=4096 'lat_p50_us*mops>=0'
  [ "$status" -eq 1 ]
  rc_both 'lat_p50_us*nosuch>1'
  [ "$status" -eq 2 ]
  [[ $output == *"column 'nosuch' is not in the header"* ]] || { echo "$output"; false; }
  rc_both 'lat_p50_us*mops*ops>1'
  [ "$status" -eq 2 ]
}
