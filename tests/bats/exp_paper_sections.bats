#!/usr/bin/env bats
# The paper's section numbers (Kalia, Kaminsky, Andersen, ATC 2016): each
# figure's and table's target names the section that states it, in its
# params ([experiment] section), in its figure's title and in every
# claim's sentence; no case study is cited as Section 5.1 or 5.2 (the
# sequencer is Section 4.2, the key-value stores 4.3; 5.1 is the PCIe
# models, 5.2 SENDs and RECVs).

load fixtures/exp/helpers
bats_require_minimum_version 1.5.0

# target:section, from the paper's text: 4.2 the sequencer (Figure 7,
# Table 3; 4.2.2 its latency, Figure 8), 4.3.1 HERD (Figure 9), 4.3.2
# DrTM-KV (Figure 10), 5.2.1 UD SENDs (Figure 11), 5.2.2 UD RECVs (Table 5),
# 5.3.1 inbound (Figure 12), 5.3.2 outbound (Figure 13), 5.4 atomics (Figure 14)
SECTIONS="figure-7:4.2 table-3:4.2 figure-8:4.2.2 figure-9:4.3.1 figure-10:4.3.2 figure-11:5.2.1 table-5:5.2.2 figure-12:5.3.1 figure-13:5.3.2 figure-14:5.4"

@test "each target's params name its section; its figure script's own title names the same" {
  local p n s num kind
  for p in $SECTIONS; do
    n=${p%%:*} s=${p#*:}
    grep -qx "section *= *$s" "$ROOT/experiments/$n/params" || { echo "$n: no 'section = $s'"; false; }
    num=${n#*-} kind=Figure
    [[ $n != table-* ]] || kind=Table
    grep -qF "\"$kind $num (Section $s): " "$ROOT/figures/$n.gp" || { echo "$n.gp: no title naming Section $s"; false; }
  done
}

@test "every claim's sentence starts with a section of its target (or one below it)" {
  local p n s bad
  for p in $SECTIONS; do
    n=${p%%:*} s=${p#*:}
    # figure-7 and table-3 (Section 4.2) cite 4.2 and 4.2.1 (Spec-S0)
    bad=$(awk -F ' *= *' -v s="$s" '$1 ~ /^claim\.[a-z0-9_]+\.paper$/ {
            if (index($2, "Section " s) != 1) print FILENAME ": " $1 ": " substr($2, 1, 40) }' "$ROOT/experiments/$n/params")
    [ -z "$bad" ] || { echo "$bad"; false; }
  done
  # the check finds a planted claim citing the old number
  printf 'claim.x.paper = Section 5.1: the sequencer\n' > "$BATS_TEST_TMPDIR/params"
  bad=$(awk -F ' *= *' -v s=4.2 '$1 ~ /^claim\.[a-z0-9_]+\.paper$/ { if (index($2, "Section " s) != 1) print $1 }' "$BATS_TEST_TMPDIR/params")
  [ "$bad" = claim.x.paper ]
}

@test "no case study cited as Section 5.1 or 5.2 outside the paper map" {
  # 5.2.1 (UD SENDs) and 5.2.2 (UD RECVs) are what they mean
  run bash -c "cd '$ROOT' && grep -rn 'Section 5\\.1\\|Section 5\\.2' README.md experiments docs figures |
               grep -v '^docs/paper.md:' | grep -v 'Section 5\\.2\\.[12]'"
  [ "$status" -eq 1 ] || { echo "$output"; false; }
  [ -z "$output" ]
}

@test "the drawn title names the section (gnuplot): a figure and a table" {
  command -v gnuplot > /dev/null || skip "gnuplot is not installed"
  mkdir -p "$BATS_TEST_TMPDIR/bin"
  REAL_GNUPLOT=$(command -v gnuplot)
  export REAL_GNUPLOT GNUPLOT_LOG=$BATS_TEST_TMPDIR/gnuplot.log
  ln -s "$FIX/gnuplot_log" "$BATS_TEST_TMPDIR/bin/gnuplot"
  PATH=$BATS_TEST_TMPDIR/bin:$PATH run "$ROOT/figures/plot" figure-12 --reference-only --out "$BATS_TEST_TMPDIR/out"
  [ "$status" -eq 0 ] || { echo "$output"; false; }
  grep -qF 'TEXT (Figure 12 \(Section 5.3.1\): Inbound READ' "$GNUPLOT_LOG" || { grep '^TEXT (Fig' "$GNUPLOT_LOG"; false; }
  : > "$GNUPLOT_LOG"
  PATH=$BATS_TEST_TMPDIR/bin:$PATH run "$ROOT/figures/plot" table-5 --reference-only --out "$BATS_TEST_TMPDIR/out"
  [ "$status" -eq 0 ] || { echo "$output"; false; }
  grep -qF 'TEXT (Table 5 \(Section 5.2.2\): Header-only' "$GNUPLOT_LOG" || { grep '^TEXT (Tab' "$GNUPLOT_LOG"; false; }
}
