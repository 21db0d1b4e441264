#!/usr/bin/env bats
# tests/bad-input-run --needs: the test run splits the bad-input matrix
# between the host (cases refused while parsing, needs "-") and the VM bed
# (needs "rdma"); each side must run exactly its own cases.

ROOT=$(cd "$BATS_TEST_DIRNAME/../.." && pwd)

setup() {
  # a binary that refuses everything with exit 2 and a fixed message
  # (the runner copies it and runs --help first: that must work)
  FAKE=$BATS_TEST_TMPDIR/fake_rb
  printf '#!/bin/sh\n[ "$1" = --help ] && exit 0\necho "refused: $*" >&2\nexit 2\n' > "$FAKE"
  chmod +x "$FAKE"
  M=$BATS_TEST_TMPDIR/matrix
  {
    echo '# two parse cases and one that needs a device'
    echo 'p.one | - | 2 | 10 | refused: .*--verb x | $RB -c $HOST --verb x'
    echo 'd.dev | rdma | 2 | 10 | refused | $RB -c $HOST -p $PORT'
    echo 'p.two | - | 2 | 10 | refused: .*--size y | $RB -c $HOST --size y'
  } > "$M"
}

run_matrix() { # ARGS...
  RB_BIN=$FAKE RB_OUT=$BATS_TEST_TMPDIR/out run "$ROOT/tests/bad-input-run" "$@"
}

@test "--needs -: only the parse cases run, numbered 1..2, and pass" {
  run_matrix --needs - "$M"
  [ "$status" -eq 0 ]
  [ "$(grep -c '^ok' <<< "$output")" -eq 2 ]
  grep -qx 'ok 1 - p.one' <<< "$output"
  grep -qx 'ok 2 - p.two' <<< "$output"
  run grep -c 'd.dev' <<< "$output"
  [ "$output" = 0 ]
}

@test "--needs rdma on a host without a device: only the device case, skipped" {
  run_matrix --needs rdma "$M"
  [ "$status" -eq 0 ]
  [ "$(grep -c '^ok' <<< "$output")" -eq 1 ]
  grep -qx 'ok 1 - d.dev # SKIP no ACTIVE RDMA port here' <<< "$output"
}

@test "no --needs: every case; a parse case that fails is reported not ok" {
  sed -i 's/--size y$/--size z/' "$M"   # the binary now names z, the case expects y
  run_matrix "$M"
  [ "$status" -eq 1 ]
  grep -qx 'ok 1 - p.one' <<< "$output"
  grep -q '^ok 2 - d.dev # SKIP' <<< "$output"
  grep -qx 'not ok 3 - p.two' <<< "$output"
}

@test "--needs with another value is a usage error naming the choices" {
  run_matrix --needs device "$M"
  [ "$status" -eq 2 ]
  [[ $output == *"--needs 'device': give rdma or - (the matrix's needs column)"* ]]
}
