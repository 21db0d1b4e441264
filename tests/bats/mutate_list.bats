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
  mkdir -p "$tmp/experiments/lib"; cp "$ROOT/experiments/lib/common.sh" "$tmp/experiments/lib/"
  run "$tmp/tests/mutate" --list
  [ "$status" -eq 0 ] || { rm -rf "$tmp"; echo "the copy itself fails: $output"; false; }
  printf 'bench/lib/ctrl.c\tno such text here\td->recvs\n' >> "$tmp/tests/mutate.swaps"
  run "$tmp/tests/mutate" --list
  rm -rf "$tmp"
  [ "$status" -ne 0 ]
}

@test "tests/mutate generates each operator on a planted source: && ||, ! removed, arithmetic, return values, a statement deleted" {
  mkdir -p "$BATS_TEST_TMPDIR/t/bench" "$BATS_TEST_TMPDIR/t/tests" "$BATS_TEST_TMPDIR/t/include"
  touch "$BATS_TEST_TMPDIR/t/Makefile"
  mkdir -p "$BATS_TEST_TMPDIR/t/tests/unit" "$BATS_TEST_TMPDIR/t/tests/bats"; touch "$BATS_TEST_TMPDIR/t/tests/call-cycles"
  cp "$ROOT/tests/mutate" "$ROOT/tests/mutate.map" "$BATS_TEST_TMPDIR/t/tests/"
  mkdir -p "$BATS_TEST_TMPDIR/t/experiments/lib"; cp "$ROOT/experiments/lib/common.sh" "$BATS_TEST_TMPDIR/t/experiments/lib/"
  cat > "$BATS_TEST_TMPDIR/t/bench/p.c" << 'EOC'
int f(int a, int b)
{
	int c = a * b;
	c = a + b;
	g(c);
	if (a && !b)
		return 0;
	if (a || b)
		return -1;
	return c;
}
EOC
  cd "$BATS_TEST_TMPDIR/t"
  run tests/mutate --list --max 1000 bench/p.c
  [ "$status" -eq 0 ] || { echo "$output"; false; }
  grep -qF 'bench/p.c:3: arith "*" -> "/"' <<< "$output"
  grep -qF 'bench/p.c:4: arith "+" -> "-"' <<< "$output"
  grep -qF 'bench/p.c:4: del "c = a + b;" -> ";"' <<< "$output"
  grep -qF 'bench/p.c:5: del "g(c);" -> ";"' <<< "$output"
  grep -qF 'bench/p.c:6: logic "&&" -> "||"' <<< "$output"
  grep -qF 'bench/p.c:6: not "!" -> ""' <<< "$output"
  grep -qF 'bench/p.c:7: ret "0" -> "-1"' <<< "$output"
  grep -qF 'bench/p.c:8: logic "||" -> "&&"' <<< "$output"
  grep -qF 'bench/p.c:9: ret "-1" -> "0"' <<< "$output"
  # a declaration and a return are never deleted; a brace-less if body neither
  run grep -cE ':(3|7|9|10): del ' <<< "$output"
  [ "$output" = 0 ]
}

@test "tests/mutate --seed: the same seed (or commit) draws the same sample, another seed another" {
  run "$ROOT/tests/mutate" --list --seed 0123abc --max 40
  [ "$status" -eq 0 ]
  local a=$output
  run "$ROOT/tests/mutate" --list --seed 0123abc --max 40
  [ "$output" = "$a" ]
  run "$ROOT/tests/mutate" --list --seed 7 --max 40
  [ "$status" -eq 0 ]
  [ "$output" != "$a" ]
  [ "$(grep -c ' (pinned)' <<< "$output")" -ge 4 ]   # the pinned ones in every sample
  run "$ROOT/tests/mutate" --list --seed 'x y' --max 40
  [ "$status" -eq 2 ]
}

@test "tests/mutate --per-file K: K mutants of each file named, drawn by the seed" {
  run "$ROOT/tests/mutate" --list --per-file 3 --seed 11 bench/rdma_bench/post.c bench/apps/seq/seq.c bench/lib/units.c
  [ "$status" -eq 0 ]
  [[ $output == *"running "*"--per-file 3"* ]] || { echo "$output"; false; }
  # 3 of each, the pinned ones apart
  for f in bench/rdma_bench/post.c bench/apps/seq/seq.c bench/lib/units.c; do
    [ "$(grep -v ' (pinned)' <<< "$output" | grep -c "^$f:")" -eq 3 ] || { echo "$f: $output"; false; }
  done
  local a=$output
  run "$ROOT/tests/mutate" --list --per-file 3 --seed 12 bench/rdma_bench/post.c bench/apps/seq/seq.c bench/lib/units.c
  [ "$output" != "$a" ]
  run "$ROOT/tests/mutate" --list --per-file x bench/lib/units.c
  [ "$status" -eq 2 ]
  [[ $output == *"'x' is not a whole number"* ]]
}
