#!/usr/bin/env bats
# tests/mutate's lists (tests/mutate.pinned, tests/mutate.swaps,
# tests/mutate.equivalent) name text in the sources; an edit of bench/ can
# leave an entry pointing at text that no longer exists. `make mutate` is too
# long for the test run, but its --list reads every entry against the tree.

ROOT=$(cd "$BATS_TEST_DIRNAME/../.." && pwd)

@test "tests/mutate --list: every pinned, swap and equivalent entry matches the sources" {
  run "$ROOT/tests/mutate" --list
  [ "$status" -eq 0 ] || { echo "$output" | tail -5; false; }
  [ "$(grep -c ' swap ' <<< "$output")" -ge 2 ]
}

@test "tests/mutate --list fails on a swap entry whose text is gone" {
  local tmp
  tmp=$(mktemp -d)
  cp -r "$ROOT/tests" "$ROOT/bench" "$ROOT/include" "$ROOT/Makefile" "$tmp/"
  run "$tmp/tests/mutate" --list
  [ "$status" -eq 0 ] || { rm -rf "$tmp"; echo "the copy itself fails: $output"; false; }
  printf 'bench/lib/ctrl.c\tno such text here\td->recvs\n' >> "$tmp/tests/mutate.swaps"
  run "$tmp/tests/mutate" --list
  rm -rf "$tmp"
  [ "$status" -ne 0 ]
}
