#!/usr/bin/env bats
# figures/plot with a gnuplot built without cairo: the plain png and
# postscript terminals with a one-line note, or a refusal before anything is
# written; never a stray *.log.

load fixtures/exp/helpers

setup() {
  command -v gnuplot > /dev/null || skip "gnuplot is not installed"
  REAL_GNUPLOT=$(command -v gnuplot)
  export REAL_GNUPLOT
  mkdir -p "$BATS_TEST_TMPDIR/bin"
  ln -s "$FIX/gnuplot_nocairo" "$BATS_TEST_TMPDIR/bin/gnuplot"
}

nocairo() { PATH=$BATS_TEST_TMPDIR/bin:$PATH "$@"; }

# only NAME.png and NAME.eps in DIR, a PNG and an EPS file
plain_pair() {
  local d=$1 n=$2
  [ "$(cd "$d" && find . -type f | sort | tr '\n' ' ')" = "./$n.eps ./$n.png " ] || { ls -la "$d"; false; }
  [ "$(head -c 4 "$d/$n.png" | tail -c 3)" = PNG ]
  head -n 1 "$d/$n.eps" | grep -q '^%!PS-Adobe-.* EPSF'
}

@test "no pngcairo/pdfcairo: plain png and postscript, one note, nothing stray" {
  nocairo run "$ROOT/figures/plot" figure-12 "$FIX/summary-figure-12.csv" --out "$BATS_TEST_TMPDIR/out"
  [ "$status" -eq 0 ] || { echo "$output"; ls -la "$BATS_TEST_TMPDIR/out"; false; }
  [ "$(grep -c 'no cairo terminals' <<< "$output")" -eq 1 ]
  plain_pair "$BATS_TEST_TMPDIR/out" figure-12
  [[ $output == *"figures/plot: $BATS_TEST_TMPDIR/out/figure-12.png $BATS_TEST_TMPDIR/out/figure-12.eps"* ]]
}

@test "no cairo, another script and the reference data alone: figure-14 --reference-only" {
  nocairo run "$ROOT/figures/plot" figure-14 --reference-only --out "$BATS_TEST_TMPDIR/ref"
  [ "$status" -eq 0 ] || { echo "$output"; false; }
  plain_pair "$BATS_TEST_TMPDIR/ref" figure-14
}

@test "no cairo and no plain png/postscript either: refused before anything is written" {
  FAKE_GNUPLOT_PLAIN=0 nocairo run "$ROOT/figures/plot" figure-12 "$FIX/summary-figure-12.csv" --out "$BATS_TEST_TMPDIR/none"
  [ "$status" -eq 2 ]
  [[ $output == *"neither the cairo terminals (pngcairo, pdfcairo) nor the plain png and postscript ones"* ]]
  [ ! -e "$BATS_TEST_TMPDIR/none" ]
}

@test "with cairo: PNG and PDF, no note, no log file left" {
  run "$ROOT/figures/plot" figure-12 "$FIX/summary-figure-12.csv" --out "$BATS_TEST_TMPDIR/c"
  [ "$status" -eq 0 ]
  [[ $output != *"no cairo"* ]]
  [ "$(cd "$BATS_TEST_TMPDIR/c" && find . -type f | sort | tr '\n' ' ')" = "./figure-12.pdf ./figure-12.png " ]
}
