#!/usr/bin/env bats
# Table 3 of the sequencer (figures/table-3.awk, figures/table-3.gp) on a
# golden figure-7 summary (a QUICK run on the two-VM bed: 6 points, spec-s0
# at 1 and 2 server threads): the peak per series over the server threads,
# Mrps per thread, the paper's peak, cores and per-core rate beside, the
# Ratios with their spread, and the CSV and Markdown written beside the
# figure by figures/plot.

load fixtures/exp/helpers

S7=$FIX/summary-figure-7.csv
PAPER=$ROOT/figures/reference/paper-atc16.csv

table() { awk -f "$LIB/csv.awk" -f "$ROOT/figures/table-3.awk" -v fmt="$1" "$S7" "$PAPER"; }

@test "table-3 CSV: one row per series, the peak over the server threads, per thread, the paper's beside" {
  run table csv
  [ "$status" -eq 0 ]
  [ "${#lines[@]}" -eq 6 ] || { echo "$output"; false; }
  [[ ${lines[0]} == series,server_threads_at_peak,peak_mrps,* ]]
  # atomics: no server thread, so no per-thread rate; the paper's 2.24 Mrps
  [ "${lines[1]}" = "atomics,0,0.001468,0.001264,0.001612,12.1,3,,,,2.24,,CIB" ] || { echo "${lines[1]}"; false; }
  # the paper states the 1-QP batched sequencer at 1 core only (Section
  # 4.2, 16.6 Mrps): no paper peak, its per-core rate beside
  [ "${lines[3]}" = "herd-rpc-batching,1,0.000334,0.000314,0.000504,27.2,3,0.000334,11.043,,,16.60,CIB" ] || { echo "${lines[3]}"; false; }
  # spec-s0: the peak is at 1 server thread (0.00047), not the 2-thread point
  # (0.000266); the paper's only point: 122 Mrps on 10 cores
  [ "${lines[5]}" = "spec-s0,1,0.00047,0.00032,0.000542,25.5,3,0.000470,9.941,10,122,12.20,CIB" ] || { echo "${lines[5]}"; false; }
}

@test "table-3 Markdown: the table and the Ratios, each with its spread and the paper's ratio" {
  run table md
  [ "$status" -eq 0 ]
  [[ $output == *"| herd-rpc + doorbell batching | 0.000334 [0.000314..0.000504], 27 % | 1 | 0.000334 | 11.0 | not stated | - | 16.6 |"* ]] || { echo "$output"; false; }
  [[ $output == *"| atomics (FETCH_AND_ADD) | 0.00147 [0.00126..0.00161], 12 % | 0 | - | - | 2.24 | no server CPU | - |"* ]] || { echo "$output"; false; }
  # 0.000334 / 0.00022; 0.000314 / 0.000466 .. 0.000504 / 0.000206; paper 16.6 / 7.0
  [[ $output == *"| herd-rpc batched / not, 1 server thread(s) | 1.52 [0.67..2.45] | 2.37 |"* ]] || { echo "$output"; false; }
  # no paper ratio of peaks where the paper states no peak (the baseline: 1 core only)
  [[ $output == *"| peak spec-s0 / herd-rpc baseline | 2.14 [0.69..2.63] | - |"* ]] || { echo "$output"; false; }
  [[ $output == *"| peak atomics / spec-s0 | 3.12 [2.33..5.04] | 0.02 |"* ]] || { echo "$output"; false; }
}

@test "table-3 from a summary without a series says 'not measured' for it" {
  grep -v '^[^,]*,[^,]*,[^,]*,spec-s0\|,spec-s0,' "$S7" > "$BATS_TEST_TMPDIR/s.csv"
  [ "$(grep -c spec-s0 "$BATS_TEST_TMPDIR/s.csv")" = 0 ]
  run awk -f "$LIB/csv.awk" -f "$ROOT/figures/table-3.awk" -v fmt=md "$BATS_TEST_TMPDIR/s.csv" "$PAPER"
  [[ $output == *"| spec-s0 | not measured | - | - | - | 122 | 10 | 12.2 |"* ]] || { echo "$output"; false; }
  [[ $output == *"| peak atomics / spec-s0 | not measured | 0.02 |"* ]] || { echo "$output"; false; }
}

@test "figures/plot table-3 writes the PNG, the PDF and the table as CSV and Markdown beside them" {
  sed 's/figure-7/table-3/g' "$S7" > "$BATS_TEST_TMPDIR/summary.csv"
  run "$ROOT/figures/plot" table-3 "$BATS_TEST_TMPDIR/summary.csv" --out "$BATS_TEST_TMPDIR/out"
  [ "$status" -eq 0 ] || { echo "$output"; false; }
  local o=$BATS_TEST_TMPDIR/out/table-3
  [ "$(head -c 5 "$o.pdf")" = "%PDF-" ]
  [ -s "$o.png" ]
  [ "$(wc -l < "$o.csv")" -eq 6 ]
  # the Markdown opens with the figure's title and the subtitle's soft-RoCE label
  [ "$(head -n 1 "$o.md")" = "# Table 3 (Section 4.2): Sequencer summary: peak and per-thread throughput per variant" ] || { head -n 3 "$o.md"; false; }
  grep -q 'soft-RoCE (functional, not a hardware claim)' "$o.md"
  grep -q '^| peak atomics / spec-s0 |' "$o.md"
}

@test "figure-7 and figure-8 draw a run of 1 repetition (no CV of mrps to state)" {
  # blank every mrps_cv_pct, as a 1-repetition run leaves it (the golden
  # summary has no quoted field, so a plain comma split is exact)
  [ "$(grep -c '"' "$S7")" = 0 ]
  local k
  k=$(head -n 1 "$S7" | tr ',' '\n' | grep -nx mrps_cv_pct | cut -d: -f1)
  [ -n "$k" ]
  awk -F, -v OFS=, -v k="$k" 'NR > 1 { $k = "" } { print }' "$S7" > "$BATS_TEST_TMPDIR/s1.csv"
  [ "$(python3 "$LIB/rbcsv.py" col -v want=mrps_cv_pct "$BATS_TEST_TMPDIR/s1.csv" | sort -u)" = "" ]
  [ "$(python3 "$LIB/rbcsv.py" col -v want=mrps_median "$BATS_TEST_TMPDIR/s1.csv" | head -n 1)" = 0.001468 ]
  run "$ROOT/figures/plot" figure-7 "$BATS_TEST_TMPDIR/s1.csv" --out "$BATS_TEST_TMPDIR/o1"
  [ "$status" -eq 0 ] || { echo "$output"; false; }
  [ "$(head -c 5 "$BATS_TEST_TMPDIR/o1/figure-7.pdf")" = "%PDF-" ]
  sed 's/figure-7/figure-8/g' "$BATS_TEST_TMPDIR/s1.csv" > "$BATS_TEST_TMPDIR/s8.csv"
  run "$ROOT/figures/plot" figure-8 "$BATS_TEST_TMPDIR/s8.csv" --out "$BATS_TEST_TMPDIR/o1"
  [ "$status" -eq 0 ] || { echo "$output"; false; }
  [ "$(head -c 5 "$BATS_TEST_TMPDIR/o1/figure-8.pdf")" = "%PDF-" ]
}
