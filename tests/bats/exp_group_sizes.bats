#!/usr/bin/env bats
# [run] group_sizes: the points that differ only in size_bytes run as one
# job, one client invocation per process with the size list (-m 32,256);
# rows stay one per point (a fake rdma_bench that runs size lists).

load fixtures/exp/helpers
bats_require_minimum_version 1.5.0

# grouped DIR: the tiny experiment's copy with group_sizes = yes
grouped() { sed -i 's/^\[run\]$/[run]\ngroup_sizes     = yes/' "$1/params"; grep -q '^group_sizes *= yes' "$1/params"; }

@test "grouped sizes: one client invocation per job with the size list, the same summary as one job per point" {
  local d g
  export FAKE_RB_LOG=$BATS_TEST_TMPDIR/calls
  d=$(tiny_copy)
  run_exp "$d" --run-id plain
  [ "$status" -eq 0 ] || { echo "$output"; false; }
  [ "$(grep -c '^client' "$FAKE_RB_LOG")" -eq 16 ]
  : > "$FAKE_RB_LOG"
  grouped "$d"
  run_exp "$d" --run-id grouped
  [ "$status" -eq 0 ] || { echo "$output"; false; }
  g=$BATS_TEST_TMPDIR/results/tiny/grouped
  # 2 verb:transport x 2 repetitions = 4 jobs of 2 processes, each with both sizes
  [ "$(grep -c '^client' "$FAKE_RB_LOG")" -eq 8 ]
  [ "$(grep '^client' "$FAKE_RB_LOG" | grep -c -- '-m 32,256 ')" -eq 8 ]
  [ "$(tail -n +2 "$g/joblog" | wc -l)" -eq 4 ]
  [[ $output == *"4 points x 2 repetitions in 4 jobs (2 per repetition: group_sizes"* ]] || { echo "$output"; false; }
  [[ $output == *"job 4/4 (points 3,4/4, rep 2)"* ]]
  # rows one per point, process and repetition, each with its point's number
  [ "$(tail -n +2 "$g/raw.csv" | wc -l)" -eq 16 ]
  [ "$(awk -F, 'NR > 1 { print $0 }' "$g/raw.csv" | wc -l)" -eq 16 ]
  paste -d' ' <(csv_col "$g/raw.csv" size_bytes) <(csv_col "$g/raw.csv" verb) <(csv_col "$g/raw.csv" exp_point) | sort -u > "$BATS_TEST_TMPDIR/pts"
  printf '%s\n' "256 read 2" "256 write 4" "32 read 1" "32 write 3" | diff - "$BATS_TEST_TMPDIR/pts"
  # the summary is the one of the run with one job per point
  diff "$BATS_TEST_TMPDIR/results/tiny/plain/summary.csv" "$g/summary.csv"
}

@test "grouped sizes: a process that stops before a size gets a failed row for that size only" {
  local d g
  d=$(tiny_copy)
  grouped "$d"
  FAKE_RB_QUIT_SIZE=256 run_exp "$d" --run-id quit
  g=$BATS_TEST_TMPDIR/results/tiny/quit
  [ -s "$g/summary.csv" ] || { echo "$output"; false; }
  # 32 B points ok, 256 B points failed, with the reason
  paste -d' ' <(csv_col "$g/summary.csv" size_bytes) <(csv_col "$g/summary.csv" status) | sort -u > "$BATS_TEST_TMPDIR/st"
  printf '%s\n' "256 failed" "32 ok" | diff - "$BATS_TEST_TMPDIR/st"
  grep -q "client 0 left no row for size 256 (its other sizes have rows)" "$g/raw.csv"
  [ "$(grep -c 'left no row for size 256' "$g/raw.csv")" -eq 8 ]
}

@test "grouped sizes: a job killed at its timeout gives a failed row for each of its points" {
  local d g
  d=$(tiny_copy)
  grouped "$d"
  sed -i 's/^timeout_s *= .*/timeout_s       = 3/; s/^verb:transport *= .*/verb:transport = read:rc/; s/^repetitions *= .*/repetitions     = 1/' "$d/params"
  FAKE_RB_HANG_SIZE=256 run_exp "$d" --run-id hang
  g=$BATS_TEST_TMPDIR/results/tiny/hang
  [ -s "$g/summary.csv" ] || { echo "$output"; false; }
  [ "$(tail -n +2 "$g/joblog" | wc -l)" -eq 1 ]
  [ "$(csv_col "$g/summary.csv" status | sort -u)" = failed ]
  [ "$(tail -n +2 "$g/summary.csv" | wc -l)" -eq 2 ]
  grep -q "killed (signal" "$g/raw.csv"
}

@test "group_sizes must be yes or no" {
  local d
  d=$(tiny_copy)
  sed -i 's/^\[run\]$/[run]\ngroup_sizes     = maybe/' "$d/params"
  run_exp "$d"
  [ "$status" -ne 0 ]
  [[ $output == *"group_sizes = maybe: yes or no"* ]]
}
