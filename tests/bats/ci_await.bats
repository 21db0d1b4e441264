#!/usr/bin/env bats
# ci/await: the tests' wait for a state (a listening port, a log line)
# instead of a sleep; a state that never comes ends in its time limit with
# what it waited for.

ROOT=$(cd "$BATS_TEST_DIRNAME/../.." && pwd)

@test "line: returns as soon as the line is written, not at the limit" {
  local f=$BATS_TEST_TMPDIR/log
  : > "$f"
  ( sleep 0.5; echo "INFO memory registered: addr 0x1" >> "$f" ) 3>&- &
  local t0=$SECONDS
  run "$ROOT/ci/await" 30 line "$f" "memory registered"
  [ "$status" -eq 0 ]
  [ "$output" = "" ]
  [ $((SECONDS - t0)) -lt 20 ]
}

@test "line: a line that never comes ends in the limit, exit 1, naming what it waited for" {
  local f=$BATS_TEST_TMPDIR/log
  echo "INFO connected" > "$f"
  run "$ROOT/ci/await" 1 line "$f" "memory registered"
  [ "$status" -eq 1 ]
  [ "$output" = "ci/await: gave up after 1 s waiting for a line matching /memory registered/ in $f" ]
  # a file that does not exist yet is waited for too
  run "$ROOT/ci/await" 1 line "$BATS_TEST_TMPDIR/none" "x"
  [ "$status" -eq 1 ]
}

@test "listen: a listening TCP port is seen (/proc/net/tcp), a closed one is not" {
  command -v busybox > /dev/null || skip "busybox (nc) is not installed"
  local port=$(( 20000 + RANDOM % 20000 ))
  busybox nc -l -p "$port" > /dev/null 3>&- &
  local nc=$!
  run "$ROOT/ci/await" 30 listen "$port"
  kill "$nc" 2> /dev/null || true
  wait "$nc" 2> /dev/null || true
  [ "$status" -eq 0 ]
  run "$ROOT/ci/await" 1 listen "$port"
  [ "$status" -eq 1 ]
  [ "$output" = "ci/await: gave up after 1 s waiting for a TCP socket listening on port $port" ]
}

@test "bad usage: exit 2 with the reason" {
  run "$ROOT/ci/await" 0 line x y
  [ "$status" -eq 2 ]
  [[ $output == *"SECONDS '0' must be a whole number above 0"* ]]
  run "$ROOT/ci/await" 5 listen 70000
  [ "$status" -eq 2 ]
  [[ $output == *"listen needs a TCP port 1-65535, got '70000'"* ]]
  run "$ROOT/ci/await" 5 sleep 3
  [ "$status" -eq 2 ]
}
