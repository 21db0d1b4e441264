#!/usr/bin/env bats
# --resume goes on with the run's own grid and settings: options that would
# change them (--set, --quick, --reps, --clients) and an edited parameter
# file are refused, naming them and the run's values, and so are --local,
# --hosts and --server (the run keeps its placement); the labels come from
# the run's recorded grid kind.

load fixtures/exp/helpers

setup() { export FAKE_RB_SLEEP=0.05 FAKE_RB_LOG=$BATS_TEST_TMPDIR/calls; }

# joblog_sum RUN: the run's job log, to show that a refused resume ran nothing
joblog_sum() { cksum < "$BATS_TEST_TMPDIR/results/tiny/$1/joblog"; }

@test "--resume r1 --set size_bytes=4096 is refused, naming the run's sizes; the same values are accepted" {
  run_exp "$FIX/tiny" --run-id r1
  [ "$status" -eq 0 ]
  local before calls
  before=$(joblog_sum r1) calls=$(wc -l < "$FAKE_RB_LOG")
  run_exp "$FIX/tiny" --resume r1 --set size_bytes=4096
  [ "$status" -eq 2 ]
  [[ $output == *"--set size_bytes=4096 (the run's size_bytes = 32 256)"* ]] || { echo "$output"; false; }
  [ "$(joblog_sum r1)" = "$before" ]
  [ "$(wc -l < "$FAKE_RB_LOG")" = "$calls" ]
  # a knob the run does not have, and several refusals at once
  run_exp "$FIX/tiny" --resume r1 --set window=8 --reps 5 --server 2
  [ "$status" -eq 2 ]
  [[ $output == *"--set window=8 (the run's window = not a knob of the run)"* ]]
  [[ $output == *"--reps 5 (the run's repetitions = 2)"* ]]
  [[ $output == *"--resume r1: --server refused: a resumed run keeps its original placement (server = host 1 of "*"/r1/hosts; --server 2 given)"* ]]
  # what the run has already: nothing to refuse
  run_exp "$FIX/tiny" --resume r1 --set size_bytes=32,256 --reps 2
  [ "$status" -eq 0 ] || { echo "$output"; false; }
}

@test "--resume r1 --quick on a full run is refused; labels follow the run's grid kind" {
  run_exp "$FIX/tiny" --run-id full1
  [ "$status" -eq 0 ]
  run_exp "$FIX/tiny" --resume full1 --quick
  [ "$status" -eq 2 ]
  [[ $output == *"--quick or QUICK=1 (the run's grid: full)"* ]] || { echo "$output"; false; }
  [[ $output != *"QUICK grid"* ]]
  QUICK=1 run_exp "$FIX/tiny" --resume full1
  [ "$status" -eq 2 ]
  run_exp "$FIX/tiny" --resume full1
  [ "$status" -eq 0 ]
  [[ $output != *"QUICK grid"* ]]
  # a QUICK run resumed without --quick is still labelled QUICK (its grid)
  run_exp "$FIX/tiny" --quick --run-id q1
  [ "$status" -eq 0 ]
  run_exp "$FIX/tiny" --resume q1
  [ "$status" -eq 0 ]
  [[ $output == *"run folder: $BATS_TEST_TMPDIR/results/tiny/q1 (QUICK grid)"* ]]
  run_exp "$FIX/tiny" --resume q1 --quick
  [ "$status" -eq 0 ]
}

@test "an edited params file is refused on --resume (its hash at run start); restored, it resumes" {
  local t
  t=$(tiny_copy)
  run_exp "$t" --quick --run-id e1
  [ "$status" -eq 0 ]
  [ -s "$BATS_TEST_TMPDIR/results/tiny/e1/params.sha256" ]
  cp "$t/params" "$BATS_TEST_TMPDIR/params.orig"
  sed -i 's/^size_bytes  = 32$/size_bytes  = 64/' "$t/params"
  run cmp -s "$t/params" "$BATS_TEST_TMPDIR/params.orig"
  [ "$status" -eq 1 ]
  run_exp "$t" --resume e1
  [ "$status" -eq 2 ]
  [[ $output == *"$t/params was edited since the run started (sha256 "*" then, "*" now; the run's copy: "*"/e1/params)"* ]] || { echo "$output"; false; }
  # a run folder of before the hash: compared with the run's copy
  rm "$BATS_TEST_TMPDIR/results/tiny/e1/params.sha256"
  run_exp "$t" --resume e1
  [ "$status" -eq 2 ]
  [[ $output == *"$t/params differs from the run's copy"* ]]
  cp "$BATS_TEST_TMPDIR/params.orig" "$t/params"
  run_exp "$t" --resume e1
  [ "$status" -eq 0 ] || { echo "$output"; false; }
}

# run_sums RUN: every file of the run folder with its sha256, and where
# the experiment's pointers point: what a refused resume must not change
run_sums() {
  local r=$BATS_TEST_TMPDIR/results/tiny
  (cd "$r/$1" && find . -type f -exec sha256sum {} + | sort -k 2)
  printf 'unfinished -> %s\nlatest -> %s\n' "$(readlink "$r/unfinished" || true)" "$(readlink "$r/latest" || true)"
}

@test "--resume r1 with --local, --hosts or --server is refused before anything runs: the run keeps its placement, its folder unchanged" {
  run_exp "$FIX/tiny" --run-id r1
  [ "$status" -eq 0 ]
  local before calls o
  before=$(run_sums r1) calls=$(wc -l < "$FAKE_RB_LOG")
  printf 'localhost rxe0 1\n' > "$BATS_TEST_TMPDIR/hosts"
  # --server 1 is the run's own server: refused all the same (placement
  # is the run's, not this command's)
  for o in --local "--hosts $BATS_TEST_TMPDIR/hosts" "--server 1" "--server 2"; do
    # shellcheck disable=SC2086  # the case's words
    run_exp "$FIX/tiny" --resume r1 $o
    [ "$status" -eq 2 ] || { echo "$o: status $status: $output"; false; }
    [[ $output == *"experiments/run: error: --resume r1: ${o%% *} refused: a resumed run keeps its original placement"* ]] || { echo "$o: $output"; false; }
    [ "$(run_sums r1)" = "$before" ] || { echo "$o changed the run folder"; diff <(echo "$before") <(run_sums r1); false; }
    [ "$(wc -l < "$FAKE_RB_LOG")" = "$calls" ]
  done
  # several at once: one error naming each; the default (no ID: the latest run) too
  run_exp "$FIX/tiny" --resume --local --server 1
  [ "$status" -eq 2 ]
  [[ $output == *"--local refused"* ]] || { echo "$output"; false; }
  [[ $output == *"--server refused"* ]] || { echo "$output"; false; }
  [ "$(run_sums r1)" = "$before" ]
}
