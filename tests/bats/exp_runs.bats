#!/usr/bin/env bats
# QUICK and full runs keep their own pointers and figures; a run's
# summary.csv can be rebuilt from its raw.csv (experiments/aggregate).

load fixtures/exp/helpers
bats_require_minimum_version 1.5.0

@test "a QUICK run moves latest-quick, a full run latest: neither hides the other" {
  run_exp "$FIX/tiny" --quick --run-id q1
  [ "$status" -eq 0 ]
  [ "$(readlink "$BATS_TEST_TMPDIR/results/tiny/latest-quick")" = q1 ]
  [ ! -e "$BATS_TEST_TMPDIR/results/tiny/latest" ]
  run_exp "$FIX/tiny" --run-id f1
  [ "$status" -eq 0 ]
  [ "$(readlink "$BATS_TEST_TMPDIR/results/tiny/latest")" = f1 ]
  run_exp "$FIX/tiny" --quick --run-id q2
  [ "$status" -eq 0 ]
  [ "$(readlink "$BATS_TEST_TMPDIR/results/tiny/latest-quick")" = q2 ]
  [ "$(readlink "$BATS_TEST_TMPDIR/results/tiny/latest")" = f1 ]
}

@test "a QUICK run's figure is NAME-quick.png, a full run's NAME.png" {
  command -v gnuplot > /dev/null || skip "gnuplot is not installed"
  local r=$BATS_TEST_TMPDIR/res/figure-14 out=$BATS_TEST_TMPDIR/out
  mkdir -p "$r/q1" "$r/f1"
  cp "$FIX/summary-figure-14.csv" "$r/q1/summary.csv"
  echo quick > "$r/q1/grid.kind"
  cp "$FIX/summary-figure-14.csv" "$r/f1/summary.csv"
  echo full > "$r/f1/grid.kind"
  run "$ROOT/figures/plot" figure-14 "$r/q1/summary.csv" --out "$out"
  [ "$status" -eq 0 ]
  [ -s "$out/figure-14-quick.png" ]
  [ ! -e "$out/figure-14.png" ]
  run "$ROOT/figures/plot" figure-14 "$r/f1/summary.csv" --out "$out"
  [ "$status" -eq 0 ]
  [ -s "$out/figure-14.png" ]
  [[ $output == *"$out/figure-14.png"* ]]
}

@test "compare reads latest, latest-quick with QUICK=1 or --quick, and says when only a QUICK run exists" {
  command -v python3 > /dev/null || skip "python3 is not installed"
  local r=$BATS_TEST_TMPDIR/res/figure-14
  mkdir -p "$r/q1"
  cp "$FIX/summary-figure-14.csv" "$r/q1/summary.csv"
  ln -s q1 "$r/latest-quick"
  RB_RESULTS=$BATS_TEST_TMPDIR/res run "$ROOT/experiments/compare" figure-14
  [ "$status" -eq 0 ]
  [[ $output == *"no full run of figure-14: the latest QUICK run ($r/latest-quick/summary.csv)"* ]]
  [[ $output == *"measured 4 [4..4]"* ]]
  RB_RESULTS=$BATS_TEST_TMPDIR/res run "$ROOT/experiments/compare" figure-14 --quick
  [ "$status" -eq 0 ]
  [[ $output != *"no full run"* ]]
  [[ $output == *"measured 4 [4..4]"* ]]
  # a full run beside it: latest is read, unless QUICK=1
  mkdir -p "$r/f1"
  sed 's/,4,4,4,2.048/,8,8,8,2.048/' "$FIX/summary-figure-14.csv" > "$r/f1/summary.csv"
  ln -s f1 "$r/latest"
  RB_RESULTS=$BATS_TEST_TMPDIR/res run "$ROOT/experiments/compare" figure-14
  [[ $output == *"measured 8 [8..8]"* ]]
  QUICK=1 RB_RESULTS=$BATS_TEST_TMPDIR/res run "$ROOT/experiments/compare" figure-14
  [[ $output == *"measured 4 [4..4]"* ]]
  RB_RESULTS=$BATS_TEST_TMPDIR/res run make -s -C "$ROOT" compare-14 QUICK=1
  [[ $output == *"measured 4 [4..4]"* ]]
}

@test "experiments/aggregate RUN-FOLDER rebuilds the runner's summary.csv from raw.csv" {
  run_exp "$FIX/tiny" --run-id a1
  [ "$status" -eq 0 ]
  local d=$BATS_TEST_TMPDIR/results/tiny/a1
  cp "$d/summary.csv" "$BATS_TEST_TMPDIR/runner-summary.csv"
  rm "$d/summary.csv"
  run "$ROOT/experiments/aggregate" "$d"
  [ "$status" -eq 0 ]
  [[ $output == *"$d/summary.csv (4 points) from $d/raw.csv"* ]]
  cmp "$d/summary.csv" "$BATS_TEST_TMPDIR/runner-summary.csv"
  # a changed raw.csv (repetition 2 three times faster): a different
  # summary, the previous one kept; its noisy threshold is the run's own
  # (params.effective): 1000 % says no point is noisy
  awk -F, -v OFS=, 'NR == 1 { for (i = 1; i <= NF; i++) { if ($i == "mops") c = i; if ($i == "exp_rep") r = i }; print; next }
                    $r == 2 { $c = $c * 3 } { print }' "$d/raw.csv" > "$d/raw.tmp" && mv "$d/raw.tmp" "$d/raw.csv"
  sed -i 's/^\[run\]$/[run]\nnoisy_cv_pct = 1000/' "$d/params.effective"
  run "$ROOT/experiments/aggregate" "$d"
  [ "$status" -eq 0 ]
  [[ $output == *"kept as $d/summary.csv.old"* ]]
  cmp "$d/summary.csv.old" "$BATS_TEST_TMPDIR/runner-summary.csv"
  run ! cmp -s "$d/summary.csv" "$BATS_TEST_TMPDIR/runner-summary.csv"
  [ "$(csv_col "$d/summary.csv" noisy | sort -u)" = no ]
  [ "$(csv_col "$d/summary.csv" mops_cv_pct | sort -u | wc -l)" -eq 1 ]
  [ "$(csv_col "$d/summary.csv" mops_cv_pct | sort -u)" != 0.0 ]
  # the default threshold (20 %): every point is noisy
  sed -i '/^noisy_cv_pct = 1000$/d' "$d/params.effective"
  run "$ROOT/experiments/aggregate" "$d"
  [ "$status" -eq 0 ]
  [ "$(csv_col "$d/summary.csv" noisy | sort -u)" = yes ]
  # --out: elsewhere, the run's summary untouched
  run "$ROOT/experiments/aggregate" "$d" --out "$BATS_TEST_TMPDIR/s.csv"
  [ "$status" -eq 0 ]
  cmp "$d/summary.csv" "$BATS_TEST_TMPDIR/s.csv"
}

@test "experiments/aggregate refuses what is not a run folder, naming what is missing" {
  run "$ROOT/experiments/aggregate" "$BATS_TEST_TMPDIR/none"
  [ "$status" -eq 2 ]
  [[ $output == *"no folder $BATS_TEST_TMPDIR/none"* ]]
  mkdir -p "$BATS_TEST_TMPDIR/r"
  run "$ROOT/experiments/aggregate" "$BATS_TEST_TMPDIR/r"
  [ "$status" -eq 2 ]
  [[ $output == *"has no raw.csv"* ]]
  cp "$FIX/golden-raw.csv" "$BATS_TEST_TMPDIR/r/raw.csv"
  run "$ROOT/experiments/aggregate" "$BATS_TEST_TMPDIR/r"
  [ "$status" -eq 2 ]
  [[ $output == *"has no params.effective"* ]]
}
