#!/usr/bin/env bats
# ci/smoke.expect's `seq` kind on a real rdma_seq row from the VM bed
# (fixtures/rowcheck/bed-seq.csv: spec-s0 across 2^32, one VM): the row
# passes; a failed uniqueness check, a lost response, a zeroed rate or a
# latency count that does not match the responses each fail, naming the
# column.

ROOT=$(cd "$BATS_TEST_DIRNAME/../.." && pwd)
FIX=$ROOT/tests/bats/fixtures/rowcheck
RC=$ROOT/ci/rowcheck

# breaks FIXTURE KIND COL VALUE TEXT (fixtures/rowcheck/helper.bash)
load fixtures/rowcheck/helper

@test "seq: the bed's spec-s0 row passes --expect seq" {
  run "$RC" "$FIX/bed-seq.csv" --rows 1 --expect seq variant=spec-s0 'handed_out>96'
  [ "$status" -eq 0 ]
}

@test "seq: a failed check, a lost value, a zero rate or a short sample count fails" {
  breaks bed-seq.csv seq unique failed "'unique=exact' does not hold: unique=failed"
  breaks bed-seq.csv seq outstanding 2 "'outstanding==0' does not hold"
  breaks bed-seq.csv seq received 1 "'received==handed_out' does not hold"
  breaks bed-seq.csv seq mrps 0 "'0<mrps<10' does not hold: mrps=0"
  breaks bed-seq.csv seq lat_samples 1 "'lat_samples==responses' does not hold"
}
