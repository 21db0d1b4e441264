#!/usr/bin/env bats
# experiments/report: the evaluator's page, built from results folders alone
# and checked in headless Chromium (tests/report-check) on fixture runs.

ROOT=$(cd "$BATS_TEST_DIRNAME/../.." && pwd)
FIX=$ROOT/tests/bats/fixtures/exp

# a results folder: figure-12 with a finished QUICK run, figure-7 with a
# finished full run; $2 = "bad" adds a failed run of figure-11 (a job log,
# no summary) and a figure-12 point skipped with a reason that holds markup
results_fixture() {
  local r=$1
  mkdir -p "$r/figure-12/q1" "$r/figure-7/f1"
  cp "$FIX/summary-figure-12.csv" "$r/figure-12/q1/summary.csv"
  cp "$FIX/golden-raw.csv" "$r/figure-12/q1/raw.csv"
  printf '{"quick": true, "run_id": "q1", "hosts": [{"line": 1, "address": "vm1"}]}\n' > "$r/figure-12/q1/manifest.json"
  printf 'Seq\tHost\tExitval\n1\t:\t0\n' > "$r/figure-12/q1/joblog"
  ln -s q1 "$r/figure-12/latest-quick"
  cp "$FIX/summary-figure-7.csv" "$r/figure-7/f1/summary.csv"
  printf 'Seq\tHost\tExitval\n' > "$r/figure-7/f1/joblog"
  ln -s f1 "$r/figure-7/latest"
  if [ "${2:-}" = bad ]; then
    mkdir -p "$r/figure-11/broken"
    printf 'Seq\tHost\tExitval\n1\t:\t1\n' > "$r/figure-11/broken/joblog"
    python3 - "$r/figure-12/q1/summary.csv" <<'EOF'
import csv, sys
p = sys.argv[1]
rows = list(csv.DictReader(open(p)))
rows[0]["status"] = "skipped"
rows[0]["reason"] = "<script>alert(1)</script> size over the <b>MTU</b>"
with open(p, "w", newline="") as f:
    w = csv.DictWriter(f, fieldnames=list(rows[0].keys()))
    w.writeheader()
    w.writerows(rows)
EOF
  fi
}

have_chromium() {
  command -v chromium > /dev/null || command -v chromium-browser > /dev/null
}

@test "report: two finished runs give a page whose figures load, claims have verdicts and links resolve (Chromium)" {
  have_chromium || skip "Chromium is not installed (env/install-deps --test installs Debian's chromium)"
  local r=$BATS_TEST_TMPDIR/results
  results_fixture "$r"
  run "$ROOT/experiments/report" --results "$r"
  [ "$status" -eq 0 ] || { echo "$output"; false; }
  [[ $output =~ "$r/report/index.html ("[0-9]+" experiments, 2 runs)" ]]
  run "$ROOT/tests/report-check" "$r/report" --screenshot "$BATS_TEST_TMPDIR/shot.png"
  [ "$status" -eq 0 ] || { echo "$output"; false; }
  # two figures drawn (figure-12's QUICK run, figure-7's full run), each with a size
  [ "$(python3 -c 'import json,sys; print(len(json.loads(sys.argv[1])["images"]))' "$output")" -eq 2 ]
  # each of figure-12's claims is listed (report-check asserted each has a verdict)
  local n
  n=$(grep -cE '^claim\.[A-Za-z0-9_-]+ *=' "$ROOT/experiments/figure-12/params")
  [ "$n" -gt 0 ]
  [ "$(python3 -c 'import json,sys; print(sum(c["name"].startswith("read_") for c in json.loads(sys.argv[1])["claims"]))' "$output")" -eq "$n" ]
  # two summaries and the paper map, one row per row of docs/paper.md
  [[ $output == *'"sortable_tables": 3'* ]]
  [ "$(python3 -c 'import json,sys; print(json.loads(sys.argv[1])["map_rows"])' "$output")" -eq \
    "$(python3 -c 'import importlib.machinery as m,sys; print(len(m.SourceFileLoader("p", sys.argv[1]).load_module().read_map(sys.argv[2])))' "$ROOT/experiments/paper-status" "$ROOT/docs/paper.md")" ]
  [ -s "$BATS_TEST_TMPDIR/shot.png" ]
}

@test "report: a failed run, a never-run figure and a skipped point are shown as such; markup from a file stays text" {
  have_chromium || skip "Chromium is not installed (env/install-deps --test installs Debian's chromium)"
  local r=$BATS_TEST_TMPDIR/results
  results_fixture "$r" bad
  run "$ROOT/experiments/report" --results "$r" --no-figures
  [ "$status" -eq 0 ] || { echo "$output"; false; }
  run "$ROOT/tests/report-check" "$r/report"
  # the only script is the page's own sorter: the reason's <script> is text
  [ "$status" -eq 0 ] || { echo "$output"; false; }
  [[ $output == *'"failed_runs": ["figure-11: run broken has no summary'* ]]
  [[ $output == *'figure-13 (Figure 13): never run; run `make figure-13 QUICK=1`'* ]]
  [[ $output == *'point 1: skipped (<script>alert(1)</script> size over the <b>MTU</b>)'* ]]
  [[ $output == *'"no_runs": false'* ]]
}

@test "report: with no runs at all the page says what to run" {
  local r=$BATS_TEST_TMPDIR/empty
  mkdir -p "$r"
  run "$ROOT/experiments/report" --results "$r" --no-figures
  [ "$status" -eq 0 ] || { echo "$output"; false; }
  [[ $output =~ \([0-9]+\ experiments,\ 0\ runs\) ]]
  run grep -c 'id="no-runs">No runs in .* yet. Run a figure first, e.g. `make figure-12 QUICK=1`' "$r/report/index.html"
  [ "$status" -eq 0 ]
  [ "$output" -eq 1 ]
}

@test "report: escaped by the serialiser, not by hand: a reason's markup appears as entities in the file" {
  local r=$BATS_TEST_TMPDIR/results
  results_fixture "$r" bad
  run "$ROOT/experiments/report" --results "$r" --no-figures
  [ "$status" -eq 0 ] || { echo "$output"; false; }
  run grep -c '&lt;script&gt;alert(1)&lt;/script&gt;' "$r/report/index.html"
  [ "$status" -eq 0 ]
  [ "$output" -ge 1 ]
  run grep -c '<script>alert' "$r/report/index.html"
  [ "$status" -eq 1 ]
}

@test "report: a results folder moved elsewhere keeps every link (relative), and nothing outside report/ changes" {
  local r=$BATS_TEST_TMPDIR/results
  results_fixture "$r" bad
  before=$(cd "$r" && find . -path ./report -prune -o -type f -print0 | sort -z | xargs -0 sha256sum)
  run "$ROOT/experiments/report" --results "$r" --no-figures
  [ "$status" -eq 0 ] || { echo "$output"; false; }
  after=$(cd "$r" && find . -path ./report -prune -o -type f -print0 | sort -z | xargs -0 sha256sum)
  [ "$before" = "$after" ]
  mv "$r" "$BATS_TEST_TMPDIR/moved"
  run python3 - "$BATS_TEST_TMPDIR/moved/report" <<'EOF'
import os, re, sys, urllib.parse
base = sys.argv[1]
page = open(os.path.join(base, "index.html")).read()
hrefs = re.findall(r'(?:href|src)="([^"#][^"]*)"', page)
bad = [h for h in hrefs if h.startswith("/") or re.match(r"^[a-z]+:", h)
       or not os.path.exists(os.path.join(base, urllib.parse.unquote(h)))]
print(len(hrefs), "links;", "bad:", bad)
sys.exit(1 if bad or not hrefs else 0)
EOF
  [ "$status" -eq 0 ] || { echo "$output"; false; }
}

@test "report: the browser check fails on an image that does not load and on a claim with no verdict" {
  have_chromium || skip "Chromium is not installed (env/install-deps --test installs Debian's chromium)"
  local d=$BATS_TEST_TMPDIR/planted
  mkdir -p "$d"
  printf '<!DOCTYPE html><html><body><img src="missing.png"><div class="claim"><code>c1</code> <span data-verdict="">?</span></div><a href="nowhere.csv">x</a><script>1</script></body></html>\n' > "$d/index.html"
  run "$ROOT/tests/report-check" "$d"
  [ "$status" -eq 1 ]
  [[ $output == *"image missing.png did not load"* ]]
  [[ $output == *"claim c1 has no verdict"* ]]
  [[ $output == *"link nowhere.csv leads nowhere"* ]]
}
