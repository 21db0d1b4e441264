#!/usr/bin/env bats
# ci/smoke.expect's `seq` kind on a real rdma_seq row from the VM bed
# (fixtures/rowcheck/bed-seq.csv: spec-s0 across 2^32, one VM): the row
# passes; a failed uniqueness check, a lost response, a zeroed rate or a
# latency count that does not match the responses each fail, naming the
# column.

ROOT=$(cd "$BATS_TEST_DIRNAME/../.." && pwd)
FIX=$ROOT/tests/bats/fixtures/rowcheck
RC=$ROOT/ci/rowcheck

# set_col FILE COL VALUE (fixtures/rowcheck/helper.bash)
load fixtures/rowcheck/helper

@test "seq: the bed's spec-s0 row passes --expect seq" {
  run "$RC" "$FIX/bed-seq.csv" --rows 1 --expect seq variant=spec-s0 'handed_out>96'
  [ "$status" -eq 0 ]
}

@test "seq: a failed check, a lost value, a zero rate or a short sample count fails" {
  local t=$BATS_TEST_TMPDIR
  set_col "$FIX/bed-seq.csv" unique failed > "$t/u.csv"
  run "$RC" "$t/u.csv" --expect seq
  [ "$status" -eq 1 ]
  [[ "$output" == *"'unique=exact' does not hold: unique=failed"* ]]
  set_col "$FIX/bed-seq.csv" outstanding 2 > "$t/o.csv"
  run "$RC" "$t/o.csv" --expect seq
  [ "$status" -eq 1 ]
  [[ "$output" == *"'outstanding==0' does not hold"* ]]
  set_col "$FIX/bed-seq.csv" received 1 > "$t/r.csv"
  run "$RC" "$t/r.csv" --expect seq
  [ "$status" -eq 1 ]
  [[ "$output" == *"'received==handed_out' does not hold"* ]]
  set_col "$FIX/bed-seq.csv" mrps 0 > "$t/m.csv"
  run "$RC" "$t/m.csv" --expect seq
  [ "$status" -eq 1 ]
  [[ "$output" == *"'0<mrps<10' does not hold: mrps=0"* ]]
  set_col "$FIX/bed-seq.csv" lat_samples 1 > "$t/s.csv"
  run "$RC" "$t/s.csv" --expect seq
  [ "$status" -eq 1 ]
  [[ "$output" == *"'lat_samples==responses' does not hold"* ]]
}
