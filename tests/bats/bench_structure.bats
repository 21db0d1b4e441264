#!/usr/bin/env bats
# The structure rules of bench/: what a verb is lives in the verb table
# (bench/lib/verb.c, include/verb.h) only, and no two bench/*.c files call
# each other in a circle (tests/call-cycles).

ROOT=$(cd "$BATS_TEST_DIRNAME/../.." && pwd)

# Lines of C files under $1/bench (but bench/lib/verb.c; rdma_seq's
# applications in bench/apps/ pick the verb of each of their variants) that decide on a verb by name:
# a switch on a verb, a case label of a verb, or a verb code other than
# RB_VERB_COUNT (the table's size). The PCIe model (bench/model/) reads the
# table's rows like every other file.
verb_decisions() {
  grep -rnE --include='*.c' 'switch *\([^)]*verb|case +RB_VERB_|RB_VERB_[A-Z_]+' "$1"/bench --exclude-dir=apps \
    | grep -vE '^[^:]*/bench/lib/verb\.c:' | sed 's/RB_VERB_COUNT//g' \
    | grep -E 'switch *\([^)]*verb|case +RB_VERB_|RB_VERB_[A-Z_]+' || true
}

setup() {
  TMP=$(mktemp -d)
}

teardown() {
  rm -rf "$TMP"
}

@test "verb table: no switch, case or verb code outside bench/lib/verb.c" {
  run verb_decisions "$ROOT"
  [ "$status" -eq 0 ]
  [ -z "$output" ] || { echo "verb decided outside the table:"; echo "$output"; false; }
}

@test "verb table: the check finds a switch on the verb planted in a copy of bench/" {
  cp -r "$ROOT/bench" "$TMP/bench"
  printf 'int f(int verb)\n{\n\tswitch (verb) {\n\tdefault: return 0;\n\t}\n}\n' >> "$TMP/bench/lib/post.c"
  run verb_decisions "$TMP"
  [[ $output == *"post.c:"*"switch (verb)"* ]] || { echo "$output"; false; }
  cp "$ROOT"/bench/lib/post.c "$TMP/bench/lib/post.c"
  printf 'int g(int v) { return v == RB_VERB_READ; }\n' >> "$TMP/bench/lib/qp.c"
  run verb_decisions "$TMP"
  [[ $output == *"qp.c:"*"RB_VERB_READ"* ]] || { echo "$output"; false; }
}

@test "call cycles: none between the objects of bench/" {
  cd "$ROOT"
  make -s all > /dev/null
  local -a objs=()
  local f
  for f in bench/*/*.c bench/apps/*/*.c; do
    case $f in bench/rdma_bench/main.c | bench/model/model_main.c | bench/apps/seq/seq_main.c) continue ;; esac
    f=${f#bench/}
    objs+=("build/obj/${f%.c}.o")
  done
  run tests/call-cycles "${objs[@]}"
  [ "$status" -eq 0 ] || { echo "$output"; false; }
  [[ $output == "no circular call dependency between ${#objs[@]} objects" ]] || { echo "$output"; false; }
}

@test "call cycles: a circle through three files is found and printed" {
  printf 'int b(void);\nint a(void) { return b(); }\n' > "$TMP/a.c"
  printf 'int c(void);\nint b(void) { return c(); }\n' > "$TMP/b.c"
  printf 'int d(void) { return 1; }\n' > "$TMP/c.c"
  for f in a b c; do cc -c -o "$TMP/$f.o" "$TMP/$f.c"; done
  run "$ROOT/tests/call-cycles" "$TMP/a.o" "$TMP/b.o" "$TMP/c.o"
  [ "$status" -eq 0 ] || { echo "a -> b -> c is no circle: $output"; false; }
  printf 'int a(void);\nint c(void) { return a(); }\n' > "$TMP/c.c"
  cc -c -o "$TMP/c.o" "$TMP/c.c"
  run "$ROOT/tests/call-cycles" "$TMP/a.o" "$TMP/b.o" "$TMP/c.o"
  [ "$status" -eq 1 ]
  # the search may start at any of the three files
  case $output in
    "circular call dependency: a.o -> b.o -> c.o -> a.o "*) ;;
    "circular call dependency: b.o -> c.o -> a.o -> b.o "*) ;;
    "circular call dependency: c.o -> a.o -> b.o -> c.o "*) ;;
    *) echo "$output"; false ;;
  esac
}

@test "call cycles: a missing object is a usage error, not a pass" {
  run "$ROOT/tests/call-cycles" "$TMP/none.o"
  [ "$status" -eq 2 ]
  [[ $output == *"no object"* ]]
}

@test "PSNs and nonces: no libc pseudo-random generator in bench/ (getrandom only)" {
  run grep -rnE --include='*.c' '\b(lrand48|drand48|srand48|srand|rand|random|srandom)\(' "$ROOT"/bench
  [ "$status" -eq 1 ] || { echo "$output"; false; }
  run grep -c 'getrandom(' "$ROOT/bench/lib/guard.c"
  [ "$output" -ge 1 ]
}

@test "function length: none over 100 lines in bench/ and bench/apps/" {
  local -a files=("$ROOT"/bench/*/*.c "$ROOT"/bench/apps/*/*.c)
  [ "${#files[@]}" -gt 25 ]
  run "$ROOT/tests/func-lengths" -n 100 "${files[@]}"
  [ "$status" -eq 0 ]
  [ -z "$output" ] || { echo "$output"; false; }
}

@test "function length: the lister finds a 101-line function and names it" {
  { printf 'static int longest(void)\n{\n'; for _ in $(seq 98); do printf '\t;\n'; done; printf '}\n'; } > "$TMP/f.c"
  run "$ROOT/tests/func-lengths" -n 100 "$TMP/f.c"
  [ "$status" -eq 0 ]
  [[ $output == " 101 $TMP/f.c:1 static int longest(void)" ]] || { echo "$output"; false; }
  run "$ROOT/tests/func-lengths" -n 101 "$TMP/f.c"
  [ -z "$output" ]
}

# Files of $1 that use rdma_bench's context although the library boundary
# says they must not: the QP stages and the layout (bench/lib/qp.c,
# layout.c and their headers) and the applications (bench/apps/).
ctx_leaks() {
  grep -lE 'struct rb_ctx\b|#include "ctx\.h"' "$1"/bench/lib/qp.c "$1"/bench/lib/layout.c \
    "$1"/include/qp.h "$1"/include/layout.h || true
  grep -rlE 'struct rb_ctx\b' "$1"/bench/apps || true
}

@test "library boundary: qp.c, layout.c and the applications never take struct rb_ctx" {
  run ctx_leaks "$ROOT"
  [ "$status" -eq 0 ]
  [ -z "$output" ] || { echo "struct rb_ctx used past the boundary in:"; echo "$output"; false; }
}

@test "library boundary: the check finds a struct rb_ctx planted in qp.c and in an application" {
  mkdir -p "$TMP/bench/lib" "$TMP/include" "$TMP/bench/apps/rt"
  cp "$ROOT"/bench/lib/qp.c "$ROOT"/bench/lib/layout.c "$TMP/bench/lib/"
  cp "$ROOT"/include/qp.h "$ROOT"/include/layout.h "$TMP/include/"
  cp "$ROOT"/bench/apps/rt/seq_rt.c "$TMP/bench/apps/rt/"
  run ctx_leaks "$TMP"
  [ -z "$output" ]
  printf 'int f(struct rb_ctx *c);\n' >> "$TMP/bench/lib/qp.c"
  printf 'static struct rb_ctx shell;\n' >> "$TMP/bench/apps/rt/seq_rt.c"
  run ctx_leaks "$TMP"
  [[ $output == *"bench/lib/qp.c"* && $output == *"bench/apps/rt/seq_rt.c"* ]] || { echo "$output"; false; }
}
