#!/usr/bin/env bats
# Every shell script of the project is shellcheck-clean at warning level
# (the runner library, the experiment and figure drivers, ci/, env/, the
# test helpers). Info-level notes are not failures.

ROOT=$(cd "$BATS_TEST_DIRNAME/../.." && pwd)

@test "shellcheck: no warning or error in any shell script" {
  command -v shellcheck > /dev/null || skip "shellcheck is not installed (make deps installs it)"
  cd "$ROOT"
  local f n=0
  local -a files=()
  while IFS= read -r f; do
    [ -f "$f" ] || continue
    case $f in *.sh|*.bash) files+=("$f"); continue ;; esac
    if head -n 1 "$f" | grep -qE '^#!.*(bash|/sh)'; then files+=("$f"); fi
  done < <(git ls-files)
  [ "${#files[@]}" -gt 30 ]
  run shellcheck -x -S warning "${files[@]}"
  [ "$status" -eq 0 ] || { echo "$output"; false; }
}
