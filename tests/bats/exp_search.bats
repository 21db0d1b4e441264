#!/usr/bin/env bats
# experiments/search/run on a planted cliff: a fake rdma_bench whose
# throughput falls to 0.3x only when window > 64 and size 1025..2048 and
# postlist > 1, in a space of nine moving knobs (fixtures/search/space).
# With seed 7 and 200 points the search must report that cliff shrunk to
# exactly those three knobs, and nothing on the smooth fake. These two run
# in direct mode (--server: one client invocation per point, the fake's
# client needs no server; 240 jobs in seconds); the resume test goes
# through the runner (experiments/run per batch), which gives the same
# points for the same seed (checked on a short search below).

load fixtures/exp/helpers
bats_require_minimum_version 1.5.0

SFIX=$ROOT/tests/bats/fixtures/search
export FAKE_RB_SLEEP=0

# search [ARGS...]: the search on the fixture space, measured through the
# runner (experiments/run --local)
search() {
  run "$ROOT/experiments/search/run" "${SPACE:-$SFIX/space}" --local --out "$BATS_TEST_TMPDIR/results" \
    --bin "$SFIX/fake_cliff_rdma_bench" "$@"
}

# direct [ARGS...]: the same in direct mode (no runner)
direct() {
  run "$ROOT/experiments/search/run" "${SPACE:-$SFIX/space}" --server 127.0.0.1 --out "$BATS_TEST_TMPDIR/results" \
    --bin "$SFIX/fake_cliff_rdma_bench" "$@"
}

# small_space: the fixture space with batches of 10 (a search of 30 points
# is 3 batches) in $SPACE
small_space() {
  SPACE=$BATS_TEST_TMPDIR/space
  sed 's/^batch .*/batch        = 10/' "$SFIX/space" > "$SPACE"
}

# the fake's Mops for a client command line (SERVER -> the loopback)
fake_mops() {
  FAKE_RB_SLEEP=0 "$SFIX/fake_cliff_rdma_bench" "${@/SERVER/127.0.0.1}" | sed -n 's/.*: \([0-9.]*\) Mops$/\1/p'
}

@test "the planted cliff is found and shrunk to window, size_bytes, postlist; fewer points than the grid" {
  direct --run-id planted
  [ "$status" -eq 0 ]
  local sout=$output
  local d=$BATS_TEST_TMPDIR/results/search/planted
  [ -s "$d/anomalies.md" ]
  grep -q '^1 anomaly;' "$d/anomalies.md"
  # exactly the three knobs of the cliff (in the space file's order)
  grep -qx '## 1. cliff: size_bytes, postlist, window' "$d/anomalies.md"
  # the reproducer sits inside the cliff, its neighbour outside
  local rep nb
  rep=$(grep -A2 '^Reproducer' "$d/anomalies.md" | sed -n 's/^    //p')
  nb=$(grep -A2 '^Neighbour' "$d/anomalies.md" | sed -n 's/^    //p')
  read -r -a rw <<< "$rep"
  read -r -a nw <<< "$nb"
  awk -v c="$rep" 'BEGIN { n = split(c, w, " "); for (i = 1; i < n; i++) v[w[i]] = w[i + 1]
                           exit !(v["-w"] > 64 && v["-m"] >= 1025 && v["-m"] <= 2048 && v["-l"] > 1) }'
  run ! awk -v c="$nb" 'BEGIN { n = split(c, w, " "); for (i = 1; i < n; i++) v[w[i]] = w[i + 1]
                            exit !(v["-w"] > 64 && v["-m"] >= 1025 && v["-m"] <= 2048 && v["-l"] > 1) }'
  # no other knob left away from its default: the client line holds only
  # -c SERVER, the three knobs, the fixed duration and signal interval
  [[ $rep =~ ^rdma_bench\ -c\ SERVER\ -m\ [0-9]+\ -l\ [0-9]+\ -w\ [0-9]+\ --signal-interval\ 1\ -D\ 0.5$ ]]
  # re-run by hand: the reproducer shows the drop, its neighbour does not
  local a b
  a=$(fake_mops "${rw[@]:1}")
  b=$(fake_mops "${nw[@]:1}")
  awk -v a="$a" -v b="$b" 'BEGIN { exit !(a > 0 && a < 0.6 * b) }'
  # the counts: the search's points against the full grid's
  local grid searched
  grid=$(awk '/^\[/ { s = $0; next } s == "[space]" && NF > 2 { n = NF - 2; p = (p ? p : 1) * n } END { print p }' "$SFIX/space")
  searched=$(($(wc -l < "$d/points.csv") - 1))
  echo "planted cliff: search measured $searched points, the full grid has $grid" >&3
  [[ $sout == *"points measured (full grid $grid)"* ]]
  [ "$searched" -lt "$grid" ]
  [ "$searched" -le 400 ]
  # every measured point's rows: one client row per point and repetition
  [ "$(csv_col "$d/raw.csv" role | grep -c client)" -ge "$searched" ]
  [[ $sout == *"explore: 200/200 points"*"best score"* ]]
  # the figure is part of the run: gnuplot is a test dependency (make deps)
  command -v gnuplot > /dev/null || { echo "gnuplot is not installed (make deps): the search's figure is not checked"; false; }
  [ -s "$d/figure.png" ]
}

@test "no anomaly on the smooth fake" {
  FAKE_SHAPE=smooth direct --run-id smooth --budget 100 --no-plot
  [ "$status" -eq 0 ]
  local d=$BATS_TEST_TMPDIR/results/search/smooth
  grep -q '^0 anomalies;' "$d/anomalies.md"
  [[ $output == *"explore: 100/100 points"* ]]
}

@test "through the runner and in direct mode, the same seed measures the same points with the same numbers" {
  small_space
  search --run-id viarun --budget 30 --no-plot
  [ "$status" -eq 0 ] || { echo "$output"; false; }
  direct --run-id direct --budget 30 --no-plot
  [ "$status" -eq 0 ] || { echo "$output"; false; }
  local r=$BATS_TEST_TMPDIR/results/search
  [ "$(wc -l < "$r/viarun/points.csv")" -gt 30 ]
  cmp "$r/viarun/points.csv" "$r/direct/points.csv"
  # the runner's rows carry its columns; both have one client row per job
  [ "$(csv_col "$r/viarun/raw.csv" thread | grep -c all)" -eq "$(csv_col "$r/direct/raw.csv" thread | grep -c all)" ]
}

@test "direct mode: a point the binary refuses (exit 2) is skipped with its reason, a crashing one failed; the search goes on" {
  FAKE_REFUSE_WINDOW=256 FAKE_CRASH_SIZE=8192 direct --run-id bad --budget 50 --no-plot
  [ "$status" -eq 0 ] || { echo "$output"; false; }
  local d=$BATS_TEST_TMPDIR/results/search/bad
  awk -F, 'NR > 1 && $2 == "skipped"' "$d"/runs/*/m/summary.csv | grep -q 'refused by rdma_bench: -w/--window 256: planted refusal'
  awk -F, 'NR > 1 && $2 == "failed"' "$d"/runs/*/m/summary.csv | grep -q 'exit 3: planted crash at -m 8192'
  # neither kind is reported as an anomaly of the fake's smooth-or-cliff shape
  run ! grep -q '8192\|-w 256' "$d/anomalies.md"
  # refused and crashed points are in points.csv with their status
  [ "$(csv_col "$d/points.csv" status | sort -u | tr '\n' ' ')" = "failed ok skipped " ]
  # direct mode refuses what it cannot do, naming why
  run "$ROOT/experiments/search/run" "$SFIX/space" --server 127.0.0.1 --local --out "$BATS_TEST_TMPDIR/results"
  [ "$status" -eq 2 ]
  [[ $output == *"not both"* ]]
  run "$ROOT/experiments/search/run" "$SFIX/space" --client-args '-p 1' --local --out "$BATS_TEST_TMPDIR/results"
  [ "$status" -eq 2 ]
  [[ $output == *"--client-args goes with --server"* ]]
}

@test "a search goes on after an interruption: measured batches are read back, not run again" {
  small_space
  FAKE_SHAPE=smooth search --run-id r1 --budget 30 --no-plot
  [ "$status" -eq 0 ]
  local d=$BATS_TEST_TMPDIR/results/search/r1
  cp "$d/points.csv" "$BATS_TEST_TMPDIR/points-before.csv"
  # the last batch as if never run, the one before as if interrupted after
  # its jobs (its run has a joblog, no summary)
  local -a b
  mapfile -t b < <(ls "$d/runs")
  [ "${#b[@]}" -ge 3 ]
  local n=${#b[@]} jobs
  jobs=$(($(wc -l < "$d/runs/${b[n - 1]}/m/joblog") - 1))
  [ "$jobs" -gt 0 ]
  rm -r "${d:?}/runs/${b[n - 1]}"
  rm "$d/runs/${b[n - 2]}/m/summary.csv" "$d/anomalies.md"
  export FAKE_RB_LOG=$BATS_TEST_TMPDIR/fake.log
  FAKE_SHAPE=smooth search --resume r1 --budget 30 --no-plot
  [ "$status" -eq 0 ]
  [ -s "$d/anomalies.md" ]
  [ -s "$d/runs/${b[n - 2]}/m/summary.csv" ]
  cmp "$d/points.csv" "$BATS_TEST_TMPDIR/points-before.csv"
  # only the batch never run measured again (its jobs: one client each):
  # the interrupted one's finished jobs were kept by experiments/run --resume
  [ "$(grep -c '^client' "$FAKE_RB_LOG")" -eq "$jobs" ]
  # other settings on the same run are refused
  FAKE_SHAPE=smooth search --resume r1 --budget 40 --no-plot
  [ "$status" -eq 2 ]
  [[ $output == *"was started with other settings"* ]]
}
