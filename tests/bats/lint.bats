#!/usr/bin/env bats
# Every shell script of the project is shellcheck-clean at warning level
# (the runner library, the experiment and figure drivers, ci/, env/, the
# test helpers). Info-level notes are not failures.

ROOT=$(cd "$BATS_TEST_DIRNAME/../.." && pwd)

@test "shellcheck: no warning or error in any shell script" {
  command -v shellcheck > /dev/null || skip "shellcheck is not installed (make deps installs it)"
  cd "$ROOT"
  local f l n=0
  local -a files=()
  while IFS= read -r f; do
    [ -f "$f" ] || continue
    case $f in *.sh|*.bash) files+=("$f"); continue ;; esac
    l=""
    { IFS= read -r l < "$f"; } 2> /dev/null || true
    if [[ $l =~ ^#!.*(bash|/sh) ]]; then files+=("$f"); fi
  done < <(git ls-files)
  [ "${#files[@]}" -gt 30 ]
  # two shellcheck processes, half of the files each: both cores (xargs
  # exits non-zero when either found something)
  n=$(( (${#files[@]} + 1) / 2 ))
  run bash -c 'printf "%s\0" "$@" | xargs -0 -P 2 -n "$0" shellcheck -x -S warning' "$n" "${files[@]}"
  [ "$status" -eq 0 ] || { echo "$output"; false; }
}

# ---- assertions that cannot fail (tests/lint-bats) ------------------------------

@test "every assertion can fail: tests/lint-bats finds nothing in tests/bats/*.bats" {
  cd "$ROOT"
  run tests/lint-bats tests/bats/*.bats
  [ "$status" -eq 0 ] || { echo "$output"; false; }
  [ -z "$output" ]
}

@test "tests/lint-bats flags exactly the planted forms that bats ignores" {
  cd "$ROOT"
  local planted=tests/bats/fixtures/lint/planted.bats
  run tests/lint-bats "$planted"
  [ "$status" -eq 1 ]
  # the flagged lines are the ones marked FLAG, each at least once, no other
  [ "$(printf '%s\n' "$output" | cut -d: -f2 | sort -nu | tr '\n' ' ')" = \
    "$(grep -n '# FLAG$' "$planted" | cut -d: -f1 | tr '\n' ' ')" ] || { echo "$output"; false; }
  [ "$(grep -c '# FLAG$' "$planted")" -eq 5 ]
}

@test "the premise holds on this bats: the flagged forms pass although false, the accepted forms fail" {
  cd "$ROOT"
  run bats --tap tests/bats/fixtures/lint/planted.bats
  # every "ignored:" test passed although its check is false; every
  # "fails:" test failed
  [ "$(grep -cE '^ok [0-9]+ ignored: ' <<< "$output")" -eq 5 ] || { echo "$output"; false; }
  [ "$(grep -cE '^not ok [0-9]+ fails: ' <<< "$output")" -eq 8 ] || { echo "$output"; false; }
  [ "$(grep -cE '^(not )?ok ' <<< "$output")" -eq 13 ]
}

@test "tests/lint-bats reports a test body it cannot close, and bad usage" {
  printf '@test "open quote" {\n  echo "never closed\n}\n' > "$BATS_TEST_TMPDIR/open.bats"
  run "$ROOT/tests/lint-bats" "$BATS_TEST_TMPDIR/open.bats"
  [ "$status" -eq 1 ]
  [[ $output == *"open.bats:1: the @test body starting here has no closing }"* ]]
  run "$ROOT/tests/lint-bats"
  [ "$status" -eq 2 ]
  run "$ROOT/tests/lint-bats" "$BATS_TEST_TMPDIR/none.bats"
  [ "$status" -eq 2 ]
  [[ $output == *"cannot read"* ]]
}

# ---- grep -q under pipefail (tests/lint-pipes) -----------------------------

@test "no grep -q ends a pipeline in a pipefail script (tests/lint-pipes finds nothing)" {
  cd "$ROOT"
  run tests/lint-pipes
  [ "$status" -eq 0 ] || { echo "$output"; false; }
  [ -z "$output" ]
}

@test "tests/lint-pipes flags a planted grep -q after a pipe, across a continuation, and not a here-string or a comment" {
  cat > "$BATS_TEST_TMPDIR/s" << 'EOS'
#!/usr/bin/env bash
set -euo pipefail
ip netns list | grep -qw -- "$ns" && echo left
printf '%s\n' "$@" |
  grep -qxF "$f" || continue
grep -q x <<< "$v"
# a | grep -q in a comment
ip netns list | grep -w -- "$ns" > /dev/null
EOS
  run "$ROOT/tests/lint-pipes" "$BATS_TEST_TMPDIR/s"
  [ "$status" -eq 1 ]
  [ "$(cut -d: -f2 <<< "$output" | tr '\n' ' ')" = "3 4 " ] || { echo "$output"; false; }
  # the race itself, as a writer that outlives grep -q under pipefail
  run bash -c 'set -o pipefail; { echo x; sleep 0.2; seq 100000; } | grep -q x'
  [ "$status" -eq 141 ]
  run bash -c 'set -o pipefail; { echo x; sleep 0.2; seq 100000; } | grep x > /dev/null'
  [ "$status" -eq 0 ]
}

# ---- smoke predicates that cannot fail (ci/smoke-lint) ----------------------

@test "every smoke predicate on a copied option or one histogram is listed with its reason (ci/smoke-lint finds nothing)" {
  run "$ROOT/ci/smoke-lint"
  [ "$status" -eq 0 ] || { echo "$output"; false; }
  [ -z "$output" ]
  # no self-comparison left that only says lat < rtt, nor any other of the
  # latency histogram with itself: rtt_p50_us is lat_p50_us doubled or not
  # (report.c); the latency is checked against the loop's period instead
  # (lat_mean_us*mops: two clocks apart)
  run grep -c "rtt_p50_us" "$ROOT/ci/smoke.matrix"
  [ "$output" = 0 ]
  run grep -c "lat_mean_us\*mops" "$ROOT/ci/smoke.matrix"
  [ "$output" -ge 15 ]
}

@test "ci/smoke-lint flags a planted copied-option predicate, a same-histogram one, an entry without reason and one that allows nothing" {
  local m=$BATS_TEST_TMPDIR/matrix a=$BATS_TEST_TMPDIR/allowed
  printf '%s\n' \
    'x.bw  1  60  ci/rowcheck "$c" --expect bw verb=write postlist==8 mops>0' \
    "x.lat 1  60  ci/rowcheck \"\$c\" --expect lat 'lat_p50_us<rtt_p50_us' path_mtu==1024" > "$m"
  printf 'verb=*\t*\tidentity\n' > "$a"
  run "$ROOT/ci/smoke-lint" "$m" "$a"
  [ "$status" -eq 1 ]
  [ "${lines[0]}" = "$m: x.bw: postlist==8: the column postlist is copied from an option (proves parsing, not the knob's effect)" ] || { echo "$output"; false; }
  [ "${lines[1]}" = "$m: x.lat: lat_p50_us<rtt_p50_us: both sides come from one latency histogram" ] || { echo "$output"; false; }
  [ "${#lines[@]}" -eq 2 ]   # mops>0 and path_mtu==1024 (negotiated) are not flagged
  printf 'verb=*\t*\tidentity\npostlist==8\tx.bw\tparsing only\nlat_p50_us<rtt_p50_us\t*\tone histogram\n' > "$a"
  run "$ROOT/ci/smoke-lint" "$m" "$a"
  [ "$status" -eq 0 ] || { echo "$output"; false; }
  printf 'verb=*\t*\tidentity\npostlist==8\tx.bw\n' > "$a"
  run "$ROOT/ci/smoke-lint" "$m" "$a"
  [ "$status" -eq 1 ]
  [[ $output == *"an entry with no reason: postlist==8"* ]] || { echo "$output"; false; }
  printf 'verb=*\t*\tidentity\npostlist==8\t*\tp\nlat_p50_us<rtt_p50_us\t*\to\nwindow==32\t*\tw\n' > "$a"
  run "$ROOT/ci/smoke-lint" "$m" "$a"
  [ "$status" -eq 1 ]
  [[ $output == *"allows nothing in the matrix: window==32"* ]] || { echo "$output"; false; }
}

@test "tests/lint-bats flags a run whose status and output are never read, a skip without reason, a check behind if command -v" {
  # tests/bats/fixtures/lint/planted-run.bats: lines 2, 16, 17, 18 planted
  run "$ROOT/tests/lint-bats" "$ROOT/tests/bats/fixtures/lint/planted-run.bats"
  [ "$status" -eq 1 ]
  [ "$(cut -d: -f2 <<< "$output" | tr '\n' ' ')" = "2 16 17 18 " ] || { echo "$output"; false; }
  [[ ${lines[0]} == *":2: run without a \$status or output check after it"* ]]
  [[ ${lines[1]} == *":16: skip without a reason" ]]
  [[ ${lines[2]} == *":17: a check done only if a tool or a build exists"* ]]
}
