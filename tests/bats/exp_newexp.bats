#!/usr/bin/env bats
# A new experiment folder plots with no code change: copied from figure-14
# with a wider grid, with no figure script of its own (the generic
# sweep.gp) or with `plot = figure-14`; title, x range and scales come from
# its params and its data.

load fixtures/exp/helpers
bats_require_minimum_version 1.5.0

setup() {
  command -v gnuplot > /dev/null || skip "gnuplot is not installed"
  # a copy of the suite's experiments and figures: the new folder goes there
  R=$BATS_TEST_TMPDIR/repo
  mkdir -p "$R" "$BATS_TEST_TMPDIR/bin"
  cp -r "$ROOT/experiments" "$ROOT/figures" "$R/"
  rm -rf "$R/figures/out"
  mkdir "$R/experiments/atomics-wide"
  sed -e 's/^atomic_counters = .*/atomic_counters = 1 4 16 64 256 1024 4096/' \
      -e 's/^title .*/title      = Atomics on up to 4096 counters/' \
      "$ROOT/experiments/figure-14/params" > "$R/experiments/atomics-wide/params"
  # its summary: 1, 256 and 4096 counters, 1 to 40 Mops
  awk -F, -v OFS=, 'NR > 1 { $1 = "atomics-wide" } NR == 3 { $14 = 256 } NR == 4 { $14 = 4096 }
                    NR > 1 { m = (NR == 2 ? 1 : NR == 3 ? 4 : 40); $23 = m; $24 = m; $25 = m } { print }' \
    "$FIX/summary-figure-14.csv" > "$BATS_TEST_TMPDIR/summary.csv"
  REAL_GNUPLOT=$(command -v gnuplot)
  export REAL_GNUPLOT GNUPLOT_LOG=$BATS_TEST_TMPDIR/gnuplot.log
  ln -s "$FIX/gnuplot_log" "$BATS_TEST_TMPDIR/bin/gnuplot"
}

@test "the summary planted for the copy holds the new grid" {
  [ "$(csv_col "$BATS_TEST_TMPDIR/summary.csv" atomic_counters | tr '\n' ' ')" = "1 256 4096 " ]
  [ "$(csv_col "$BATS_TEST_TMPDIR/summary.csv" mops_median | tr '\n' ' ')" = "1 4 40 " ]
}

@test "a copied experiment without a figure script: the generic sweep figure, log axes from the data" {
  PATH=$BATS_TEST_TMPDIR/bin:$PATH run "$R/figures/plot" atomics-wide "$BATS_TEST_TMPDIR/summary.csv" --out "$BATS_TEST_TMPDIR/out"
  [ "$status" -eq 0 ] || { echo "$output"; false; }
  [ -s "$BATS_TEST_TMPDIR/out/atomics-wide.png" ]
  grep -q "^SCRIPT $R/figures/sweep.gp$" "$GNUPLOT_LOG"
  grep -q "figtitle='atomics-wide: Atomics on up to 4096 counters'" "$GNUPLOT_LOG"
  # the x axis in a reader's words, not the column name
  grep -q "xlab='atomic counters (distinct 8 B targets)'" "$GNUPLOT_LOG"
  grep -q "dxlo=1; dxhi=4096; dxlog=1; dylog=1" "$GNUPLOT_LOG"
  # gnuplot's own account of the axes it drew
  grep -q "logscaling on  x (base 2) y" "$GNUPLOT_LOG"
  # the whole grid drawn: x up to 4096 at least
  awk '$1 == "XRANGE" && $3 >= 4096 { ok = 1 } END { exit !ok }' "$GNUPLOT_LOG"
  # the total over the point's processes, labelled so (no per= in its params)
  grep -q "per=''" "$GNUPLOT_LOG"
}

@test "the same copy with a narrow grid: linear axes" {
  awk -F, -v OFS=, 'NR > 1 { $14 = NR - 1; $23 = $24 = $25 = NR } { print }' "$BATS_TEST_TMPDIR/summary.csv" > "$BATS_TEST_TMPDIR/narrow.csv"
  PATH=$BATS_TEST_TMPDIR/bin:$PATH run "$R/figures/plot" atomics-wide "$BATS_TEST_TMPDIR/narrow.csv" --out "$BATS_TEST_TMPDIR/out"
  [ "$status" -eq 0 ] || { echo "$output"; false; }
  grep -q "dxlo=1; dxhi=3; dxlog=0; dylog=0" "$GNUPLOT_LOG"
  grep -q "logscaling on none" "$GNUPLOT_LOG"
  run ! grep -qE "logscaling on +[xy]" "$GNUPLOT_LOG"
}

@test "a copy with plot = figure-14: its own title, and x not clipped at the paper's 1024" {
  sed -i 's/^title .*/&\nplot       = figure-14/' "$R/experiments/atomics-wide/params"
  PATH=$BATS_TEST_TMPDIR/bin:$PATH run "$R/figures/plot" atomics-wide "$BATS_TEST_TMPDIR/summary.csv" --out "$BATS_TEST_TMPDIR/out"
  [ "$status" -eq 0 ] || { echo "$output"; false; }
  [ -s "$BATS_TEST_TMPDIR/out/atomics-wide.png" ]
  grep -q "^SCRIPT $R/figures/figure-14.gp$" "$GNUPLOT_LOG"
  grep -q "figtitle='atomics-wide: Atomics on up to 4096 counters'" "$GNUPLOT_LOG"
  awk '$1 == "XRANGE" && $3 >= 4096 { ok = 1 } END { exit !ok }' "$GNUPLOT_LOG"
}

@test "the shipped figure keeps its paper title; an unknown name is still refused" {
  PATH=$BATS_TEST_TMPDIR/bin:$PATH run "$R/figures/plot" figure-14 "$FIX/summary-figure-14.csv" --out "$BATS_TEST_TMPDIR/out"
  [ "$status" -eq 0 ]
  grep -q "figtitle='Figure 14 (Section 5.4): Atomics throughput vs number of counters'" "$GNUPLOT_LOG"
  run "$R/figures/plot" no-such-experiment --out "$BATS_TEST_TMPDIR/out"
  [ "$status" -eq 2 ]
  [[ $output == *"no figure script for no-such-experiment"* ]]
  # the names that would work, the copied experiment among them; no helper script
  [[ $output == *"; known: "*"atomics-wide"*"figure-14"*"table-5"* ]] || { echo "$output"; false; }
  run ! grep -qE 'known:.* (sweep|common)( |$)' <<< "$output"
}
