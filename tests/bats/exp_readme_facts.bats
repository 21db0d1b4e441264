#!/usr/bin/env bats
# READMEs' point counts and times come from the params and a run record
# (experiments/readme-facts), and --check fails when one disagrees.

load fixtures/exp/helpers
bats_require_minimum_version 1.5.0

# a copy of figure-12 under another name (no row of its own in the table
# of experiments/README.md), whose params and README the test may edit
copy12() {
  local d=$BATS_TEST_TMPDIR/copy-12
  mkdir -p "$d"
  cp "$ROOT/experiments/figure-12/params" "$ROOT/experiments/figure-12/README.md" "$d/"
  echo "$d"
}

@test "every shipped README agrees with its params (and the table of experiments/README.md)" {
  run "$ROOT/experiments/readme-facts" --check
  [ "$status" -eq 0 ] || { echo "$output"; false; }
  # every experiment (a folder with params; experiments/search is a tool)
  [ "$(grep -c 'README agrees with params' <<< "$output")" -eq "$(ls "$ROOT"/experiments/*/params | wc -l)" ]
  # the main job's estimate in the project's README is the dry run's
  grep -q "^experiments/readme-facts: figure-12: $ROOT/README.md's make figure-12 line agrees (sweep expected [0-9]*:[0-9][0-9], QUICK=1 [0-9]*:[0-9][0-9])$" <<< "$output"
}

@test "a README whose point count disagrees with its params fails the check, naming both; writing it again fixes it" {
  local d
  d=$(copy12)
  # a project README whose main-job line has another estimate than the dry run's
  export RB_README=$BATS_TEST_TMPDIR/README.md
  echo 'make copy-12   # the main job (sweep expected 9:59, QUICK=1 0:01, from the dry run)' > "$RB_README"
  # the copy's block still names figure-12: the check says so, writing fixes it
  run "$ROOT/experiments/readme-facts" --check "$d"
  [ "$status" -eq 1 ]
  [[ $output == *"experiments/run copy-12 --dry-run"*"the block says '- full grid: 18 points x 3 repetitions; sweep expected 3:21 (201 s; \`experiments/run figure-12 --dry-run"* ]]
  [[ $output == *"the make copy-12 line of $RB_README says 'sweep expected 9:59, QUICK=1 0:01'; experiments/run copy-12 --dry-run gives 'sweep expected 3:21, QUICK=1 0:48'"* ]] || { echo "$output"; false; }
  "$ROOT/experiments/readme-facts" "$d"
  [ "$(cat "$RB_README")" = 'make copy-12   # the main job (sweep expected 3:21, QUICK=1 0:48, from the dry run)' ]
  run "$ROOT/experiments/readme-facts" --check "$d"
  [ "$status" -eq 0 ] || { echo "$output"; false; }
  unset RB_README
  # a hand-written count in the text that is neither grid's
  echo "The QUICK grid runs 4 points." >> "$d/README.md"
  run "$ROOT/experiments/readme-facts" --check "$d"
  [ "$status" -eq 1 ]
  [[ $output == *"the text says '4 points'; the params give 18 (full) and 6 (QUICK)"* ]]
  sed -i '$d' "$d/README.md"
  # one payload fewer: 16 points, not 18
  sed -i '/^\[knobs\]/,/^\[/s/^size_bytes\( *\)= 4 8 /size_bytes\1= 8 /' "$d/params"
  grep -q '^size_bytes *= 8 16' "$d/params"
  run "$ROOT/experiments/readme-facts" --check "$d"
  [ "$status" -eq 1 ]
  [[ $output == *"the params give '- full grid: 16 points x 3 repetitions;"*"the block says '- full grid: 18 points x 3 repetitions;"* ]]
  run "$ROOT/experiments/readme-facts" "$d"
  [ "$status" -eq 0 ]
  grep -q '^- full grid: 16 points x 3 repetitions; sweep expected' "$d/README.md"
  # the counts agree now; the full grid's measured run (18 points) is stale
  run "$ROOT/experiments/readme-facts" --check "$d"
  [ "$status" -eq 1 ]
  [[ $output != *"the params give '- full grid"* ]]
  [[ $output == *"measured full grid on another grid than the params' 16 points x 3 repetitions (measure again)"* ]]
}

@test "a README without the block fails the check; writing puts it in the 'What runs' section" {
  local d
  d=$(copy12)
  sed -i '/^<!-- readme-facts/,/^<!-- \/readme-facts -->/d' "$d/README.md"
  run "$ROOT/experiments/readme-facts" --check "$d"
  [ "$status" -eq 1 ]
  [[ $output == *"no facts block"* ]]
  run "$ROOT/experiments/readme-facts" "$d"
  [ "$status" -eq 0 ]
  # between "## What runs" and the next heading
  awk '/^## What runs/ { s = 1; next } /^## / { s = 0 } s && /^- QUICK=1: 6 points x 3 repetitions/ { f = 1 } END { exit !f }' "$d/README.md"
}

@test "--run writes the measured line from a run record; a later change of the grid asks to measure again" {
  local d r
  d=$(copy12)
  r=$BATS_TEST_TMPDIR/results/copy-12/20260101-000000
  mkdir -p "$r"
  echo quick > "$r/grid.kind"
  for i in 1 2 3 4 5 6; do printf '%s\tverb=read\n' "$i"; done > "$r/grid.tsv"
  printf 'repetitions = 3\n' > "$r/params.effective"
  echo 48 > "$r/actual_s"; echo 21 > "$r/expected_s"; echo 1.9 > "$r/overhead_s"
  run "$ROOT/experiments/readme-facts" "$d" --run "$r"
  [ "$status" -eq 0 ] || { echo "$output"; false; }
  grep -qF -- '- measured, QUICK: 6 points x 3 repetitions, sweep 48 s (expected 21 s), 1.9 s per job beyond its measured window; run 20260101-000000, where: not recorded (no manifest.json)' "$d/README.md"
  run "$ROOT/experiments/readme-facts" --check "$d"
  [ "$status" -eq 0 ] || { echo "$output"; false; }
  # a run record of another grid is refused
  echo "7	verb=read" >> "$r/grid.tsv"
  run "$ROOT/experiments/readme-facts" "$d" --run "$r"
  [ "$status" -eq 2 ]
  [[ $output == *"ran another grid than copy-12's params give now (quick: 6 points x 3 repetitions)"* ]]
  # the QUICK grid changes: the README is rewritten, the measured line is stale
  sed -i '/^\[quick\]/,/^\[/s/^size_bytes\( *\)= .*/size_bytes\1= 32 256/' "$d/params"
  run "$ROOT/experiments/readme-facts" "$d"
  [ "$status" -eq 0 ]
  run "$ROOT/experiments/readme-facts" --check "$d"
  [ "$status" -eq 1 ]
  [[ $output == *"measured QUICK on another grid than the params' 4 points x 3 repetitions (measure again)"* ]]
}
