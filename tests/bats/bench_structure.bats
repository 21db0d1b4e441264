#!/usr/bin/env bats
# The structure rules of bench/: what a verb is lives in the verb table
# (bench/lib/verb.c, include/verb.h) only, and no two bench/*.c files call
# each other in a circle (tests/call-cycles); one program reads no field
# of another's control message, there is one option parser, the library's
# functions take no struct rb_ctx outside ctx.c, an application includes
# no header of another program, and no JSON is written by printf; shell
# scripts keep their work in functions of at most 100 lines, at most 30
# lines of code outside them, and one die and warn (experiments/lib/
# common.sh). Known
# exceptions, each with its reason: bench_structure.allow (a new one
# fails until it is listed there).

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

ALLOW=$BATS_TEST_DIRNAME/bench_structure.allow

# allowed RULE WHERE: is WHERE an exception to RULE in the allow-list?
allowed() {
  grep -qxF -- "$1"$'\t'"$2" < <(grep -v '^#' "$ALLOW" | cut -f1,2)
}

# Lines of code (not comments) of C files under $1/$2 matching the ERE $3.
code_grep() {
  grep -rnE --include='*.c' --include='*.h' -- "$3" "$1/$2" 2>/dev/null |
    grep -vE '^[^:]*:[0-9]+:[[:space:]]*(/?\*|//)' || true
}

# One program's code reading another's control message: rdma_seq (bench/apps/)
# touching rdma_bench's TEST fields (struct rb_test, RB_TEST_FIELDS, a TEST
# encoder, a knob row stored in the TEST), or the library and rdma_bench
# touching rdma_seq's (SEQ_CFG_FIELDS, struct seq_wire, struct seq_cfg).
message_crossings() {
  code_grep "$1" bench/apps 'struct rb_test\b|u\.test\b|ctrl_encode_test|RB_TEST_(FIELDS|NFIELDS)|RB_AT_TEST|RB_KW_TEST|\.t\.[a-z_]+'
  code_grep "$1" bench/lib 'SEQ_CFG_|seq_wire|seq_cfg'
  code_grep "$1" bench/rdma_bench 'SEQ_CFG_|seq_wire|seq_cfg|u\.config\b'
}

# getopt_long calls outside the one parser (bench/lib/options.c), less the
# allow-list's.
second_parsers() {
  local f
  for f in $(grep -rlE --include='*.c' 'getopt_long *\(' "$1"/bench); do
    f=${f#"$1"/}
    [ "$f" = bench/lib/options.c ] || allowed parser "$f" || grep -nE 'getopt_long *\(' "$1/$f" | sed "s|^|$f:|"
  done
}

# Library functions (bench/lib/*.c but ctx.c) with a struct rb_ctx *
# parameter: FILE:LINE: NAME, less the allow-list's FILE:NAME.
ctx_params() {
  local f line
  for f in "$1"/bench/lib/*.c; do
    case ${f##*/} in ctx.c | ctx_qp.c) continue ;; esac  # the context and its QP stage
    awk -f "$BATS_TEST_DIRNAME/../lib/c-ctx-params.awk" "$f" | while IFS= read -r line; do
      local rel=${f#"$1"/} name=${line##* }
      allowed ctx-param "$rel:$name" || echo "$rel:$line"
    done
  done
}

# An application (bench/apps/) including a header that is not the
# library's (include/) or its own (bench/apps/*/), a .c file, or a header
# of the rdma_bench program (one declaring a function defined in
# bench/rdma_bench/: report.h, session.h).
app_includes() {
  local inc f fn hdr
  local -a prog=()
  # every NAME that a line of the program's sources starting in lower case
  # shows as " NAME(" or "*NAME(" (a definition or a call): one grep, not
  # one per declared function
  local -A inprog=()
  for fn in $(grep -hE '^[a-z]' "$1"/bench/rdma_bench/*.c | grep -oE '[ *][a-z_][a-z_0-9]*\(' | tr -d ' *(' | sort -u); do
    inprog[$fn]=1
  done
  for hdr in "$1"/include/*.h; do
    for fn in $(sed -nE 's/^[a-z][a-z_ 0-9]*[ *]([a-z_][a-z_0-9]*)\(.*/\1/p' "$hdr"); do
      if [ -n "${inprog[$fn]:-}" ]; then prog+=("${hdr##*/}"); break; fi
    done
  done
  grep -rnE --include='*.c' --include='*.h' '^#include "' "$1"/bench/apps | while IFS= read -r line; do
    inc=$(sed -E 's/.*#include "([^"]*)".*/\1/' <<< "$line")
    f=${line%%:*}
    case " ${prog[*]} " in *" $inc "*) echo "${line#"$1"/} (a header of the rdma_bench program)"; continue ;; esac
    if [[ $inc == *.c || $inc == */* ]] || { [ ! -e "$1/include/$inc" ] && ! ls "$1"/bench/apps/*/"$inc" > /dev/null 2>&1; }; then
      echo "${line#"$1"/} (not a library header nor the application's own)"
    fi
  done
}

# JSON written by printf/echo in scripts (experiments, ci, env, figures,
# tests/lib) or by printf in bench/ outside the JSON writer (output.c).
json_printfs() {
  local f
  for f in $(grep -rlE "(printf|echo)[^#]*\\\\?\"[a-z_]+\\\\?\": ?" "$1"/experiments "$1"/ci "$1"/env "$1"/figures "$1"/tests/lib 2>/dev/null |
             grep -vE '\.(py|bats|md|c|h|gp|awk|csv|json|tsv|txt)$' | grep -v '/fixtures/'); do
    f=${f#"$1"/}
    allowed json-printf "$f" || echo "$f"
  done
  code_grep "$1" bench 'printf *\(.*\\"[a-z_]+\\": ?' | grep -v '^[^:]*bench/lib/output\.c:' || true
}

# INFO, WARN and ERROR lines printed around the log module (bench/lib/log.c):
# --quiet and the one-write-per-line rule would not hold for them.
log_bypasses() {
  local line f
  grep -rnE --include='*.c' 'fprintf *\(stderr, *"(INFO|WARN|ERROR) ' "$1"/bench | while IFS= read -r line; do
    f=${line%%:*}
    f=${f#"$1"/}
    allowed log "$f" || echo "${line#"$1"/}"
  done
}

# ---- shell scripts ------------------------------------------------------------
# The rules, as for C: a shell function is at most SH_FUNC_MAX lines; a
# script keeps at most SH_TOP_MAX lines of code outside its functions (its
# settings, its sourcing and `main "$@"`: the work is in named functions);
# die and warn are defined once, in experiments/lib/common.sh. Lines are
# counted by tests/lib/sh-structure.awk (comments and blank lines are not
# code). Not held to the top-level rule: .bats files (a suite's work is its
# @test blocks) and tests/bats/fixtures/ (stand-ins for other programs,
# canned answers read top-down). Exceptions: bench_structure.allow,
# sh-function FILE:NAME and sh-toplevel FILE.
SH_FUNC_MAX=100 SH_TOP_MAX=30
SH_COMMON=experiments/lib/common.sh

# shell_scripts ROOT: the shell scripts under ROOT's ci, env, experiments,
# figures and tests (a bash or sh #! line, or named .sh, .bash, .bats),
# relative to ROOT
shell_scripts() {
  local f l
  (cd "$1" && find ci env experiments figures tests -type f 2> /dev/null) | sort | while IFS= read -r f; do
    case $f in *.sh | *.bash | *.bats) echo "$f"; continue ;; esac
    l=""
    { IFS= read -r l < "$1/$f"; } 2> /dev/null || true
    [[ ! $l =~ ^#!.*(bash|/sh) ]] || echo "$f"
  done
}

# sh_structure ROOT: tests/lib/sh-structure.awk over ROOT's shell scripts
sh_structure() {
  local -a files=()
  mapfile -t files < <(shell_scripts "$1")
  [ "${#files[@]}" -gt 0 ] || return 0
  (cd "$1" && awk -f "$BATS_TEST_DIRNAME/../lib/sh-structure.awk" "${files[@]}")
}

# sh_long_functions ROOT: "FILE:LINE: NAME is N lines", less the allow-list's
sh_long_functions() {
  local kind where name n
  sh_structure "$1" | while IFS=$'\t' read -r kind where name n; do
    [ "$kind" = function ] && [ "$n" -gt "$SH_FUNC_MAX" ] || continue
    allowed sh-function "${where%%:*}:$name" ||
      echo "$where: $name is $n lines (at most $SH_FUNC_MAX: split it into named steps)"
  done
}

# sh_top_level ROOT: "FILE: N lines of code outside functions", less the
# allow-list's, .bats files and fixtures; and every allow-list entry the
# script no longer needs (stale)
sh_top_level() {
  local kind where n _
  sh_structure "$1" | while IFS=$'\t' read -r kind where n _; do
    [ "$kind" = toplevel ] || continue
    case $where in *.bats | tests/bats/fixtures/*) continue ;; esac
    if [ "$n" -gt "$SH_TOP_MAX" ]; then
      allowed sh-toplevel "$where" ||
        echo "$where: $n lines of code outside functions (at most $SH_TOP_MAX: move the work into functions, main \"\$@\" at the end)"
    elif allowed sh-toplevel "$where"; then
      echo "$where: $n lines of code outside functions, within the rule: remove its sh-toplevel line from bench_structure.allow"
    fi
  done
}

# sh_die_copies ROOT: every definition of die or warn outside the shared one
sh_die_copies() {
  local kind where name
  sh_structure "$1" | while IFS=$'\t' read -r kind where name; do
    [ "$kind" = defines ] && [ "${where%%:*}" != "$SH_COMMON" ] || continue
    echo "$where: a second definition of $name (source $SH_COMMON instead)"
  done
}

# sh_usage_copies ROOT: every copy, outside rb_usage (experiments/lib/
# common.sh), of the sed that prints a script's header comment as its
# --help text (the tests' own files apart: they name the pattern)
sh_usage_copies() {
  grep -rnE --exclude-dir=.git --exclude-dir=build --exclude-dir=bats --exclude-dir=out --exclude-dir=cache \
    "sed -n '2,/\^set" "$1" | sed "s#^$1/##" | grep -v "^$SH_COMMON:" || true
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
  printf 'int f(int verb)\n{\n\tswitch (verb) {\n\tdefault: return 0;\n\t}\n}\n' >> "$TMP/bench/rdma_bench/post.c"
  run verb_decisions "$TMP"
  [[ $output == *"post.c:"*"switch (verb)"* ]] || { echo "$output"; false; }
  cp "$ROOT"/bench/rdma_bench/post.c "$TMP/bench/rdma_bench/post.c"
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

@test "messages: no program reads a field of another program's control message" {
  run message_crossings "$ROOT"
  [ -z "$output" ] || { echo "a field of another program's message:"; echo "$output"; false; }
}

@test "messages: the check finds rdma_seq reading a TEST field, and rdma_bench a CONFIG field" {
  cp -r "$ROOT/bench" "$TMP/bench"
  printf 'static unsigned long f(const struct rb_test *t) { return t->signal_interval; }\n' >> "$TMP/bench/apps/seq/seq.c"
  printf 'static int g(const struct seq_wire *w) { return (int)w->batch; }\n' >> "$TMP/bench/rdma_bench/report.c"
  run message_crossings "$TMP"
  [[ $output == *"bench/apps/seq/seq.c:"*"struct rb_test"* ]] || { echo "$output"; false; }
  [[ $output == *"bench/rdma_bench/report.c:"*"seq_wire"* ]] || { echo "$output"; false; }
}

@test "options: one parser (getopt_long in bench/lib/options.c only, less the allow-list)" {
  run second_parsers "$ROOT"
  [ -z "$output" ] || { echo "a second option parser:"; echo "$output"; false; }
  cp -r "$ROOT/bench" "$TMP/bench"
  printf '#include <getopt.h>\nint p(int c, char **v) { return getopt_long(c, v, "h", 0, 0); }\n' >> "$TMP/bench/apps/seq/seq_main.c"
  run second_parsers "$TMP"
  [[ $output == "bench/apps/seq/seq_main.c:"*"getopt_long("* ]] || { echo "$output"; false; }
}

@test "library: no function of bench/lib/ takes struct rb_ctx * outside ctx.c (less the allow-list)" {
  run ctx_params "$ROOT"
  [ -z "$output" ] || { echo "takes the benchmark's context (bench_structure.allow lists the known ones):"; echo "$output"; false; }
  cp -r "$ROOT/bench" "$TMP/bench"
  printf 'int layout_depth(const struct rb_ctx *c,\n\t\t int n)\n{\n\treturn n + (c != 0);\n}\n' >> "$TMP/bench/lib/layout.c"
  run ctx_params "$TMP"
  [[ $output == "bench/lib/layout.c:"*"layout_depth" ]] || { echo "$output"; false; }
}

@test "applications: include the library's headers and their own only" {
  run app_includes "$ROOT"
  [ -z "$output" ] || { echo "$output"; false; }
  mkdir -p "$TMP/include"
  cp -r "$ROOT/bench" "$TMP/bench"
  cp "$ROOT"/include/*.h "$TMP/include/"
  printf '#include "session.h"\n#include "../lib/post.c"\n' >> "$TMP/bench/apps/kv/zipf.c"
  run app_includes "$TMP"
  [[ $output == *"zipf.c:"*"session.h"*"rdma_bench program"* ]] || { echo "$output"; false; }
  [[ $output == *"zipf.c:"*"post.c"*"not a library header"* ]] || { echo "$output"; false; }
}

@test "JSON: written by an encoder, not printf (less the allow-list)" {
  run json_printfs "$ROOT"
  [ -z "$output" ] || { echo "JSON by printf:"; echo "$output"; false; }
  mkdir -p "$TMP/ci" "$TMP/bench/lib"
  printf '#!/bin/bash\nprintf \x27{"rows": %%d}\\n\x27 3\n' > "$TMP/ci/report"
  printf 'void j(void) { printf("{\\"mops\\": %%f}", 1.0); }\n' > "$TMP/bench/lib/x.c"
  run json_printfs "$TMP"
  [[ $output == *"ci/report"* ]] || { echo "$output"; false; }
  [[ $output == *"bench/lib/x.c:"* ]] || { echo "$output"; false; }
}

@test "JSON: an allow-list exception for a JSON printf is dropped once its file uses an encoder" {
  local rule where why
  while IFS=$'\t' read -r rule where why; do
    [ "$rule" = json-printf ] || continue
    grep -qE "(printf|echo)[^#]*\\\\?\"[a-z_]+\\\\?\": ?" "$ROOT/$where" ||
      { echo "$where prints no JSON any more: remove its json-printf line from bench_structure.allow"; false; }
  done < "$ALLOW"
}

@test "allow-list: every exception names an existing place and gives a reason" {
  local rule where why f
  while IFS=$'\t' read -r rule where why; do
    [[ $rule == \#* || -z $rule ]] && continue
    [ -n "$why" ] || { echo "no reason: $rule $where"; false; }
    f=${where%%:*}
    [ -e "$ROOT/$f" ] || { echo "$rule $where: $f does not exist (remove the line)"; false; }
    if [ "$rule" = ctx-param ]; then
      grep -qE "[ *]${where#*:}\(" "$ROOT/$f" || { echo "$where: no such function (remove the line)"; false; }
    fi
  done < "$ALLOW"
}

@test "log lines: INFO, WARN and ERROR through the log module (less the allow-list)" {
  run log_bypasses "$ROOT"
  [ -z "$output" ] || { echo "printed around log.c:"; echo "$output"; false; }
  cp -r "$ROOT/bench" "$TMP/bench"
  printf 'void w(void) { fprintf(stderr, "WARN x\\n"); }\n' >> "$TMP/bench/lib/hist.c"
  run log_bypasses "$TMP"
  [[ $output == "bench/lib/hist.c:"*"WARN x"* ]] || { echo "$output"; false; }
}

@test "shell: no function over 100 lines (less the allow-list)" {
  [ "$(shell_scripts "$ROOT" | wc -l)" -gt 100 ]
  run sh_long_functions "$ROOT"
  [ "$status" -eq 0 ]
  [ -z "$output" ] || { echo "$output"; false; }
}

@test "shell: at most 30 lines of code outside functions in a script (less the allow-list)" {
  run sh_top_level "$ROOT"
  [ "$status" -eq 0 ]
  [ -z "$output" ] || { echo "$output"; false; }
}

@test "shell: die and warn are defined once, in experiments/lib/common.sh" {
  run sh_die_copies "$ROOT"
  [ "$status" -eq 0 ]
  [ -z "$output" ] || { echo "$output"; false; }
  run grep -cE '^(die|warn)\(\) \{' "$ROOT/$SH_COMMON"
  [ "$output" = 2 ]
}

@test "shell: the --help text from the header comment is printed by rb_usage alone; a planted copy of its sed is found" {
  run sh_usage_copies "$ROOT"
  [ -z "$output" ] || { echo "$output"; false; }
  grep -q '^rb_usage() {' "$ROOT/$SH_COMMON"
  mkdir -p "$TMP/experiments/lib" "$TMP/ci"
  cp "$ROOT/$SH_COMMON" "$TMP/experiments/lib/"
  printf '#!/usr/bin/env bash\n# ci/u: a header\n#   second line\nset -euo pipefail\n. "${0%%/*}/../experiments/lib/common.sh"\nrb_usage\n' > "$TMP/ci/u"
  run bash "$TMP/ci/u"
  [ "$output" = "$(printf 'ci/u: a header\n  second line')" ] || { echo "$output"; false; }
  run sh_usage_copies "$TMP"
  [ -z "$output" ] || { echo "$output"; false; }
  printf "usage() { sed -n '2,/^set -euo/p' \"\$0\"; }\n" >> "$TMP/ci/u"
  run sh_usage_copies "$TMP"
  [[ $output == "ci/u:7:usage() { sed -n '2,/^set -euo/p'"* ]] || { echo "$output"; false; }
}

@test "shell: die exits with its status and names the script, warn goes on, a die without a status is refused" {
  mkdir -p "$TMP/experiments/lib" "$TMP/ci"
  cp "$ROOT/$SH_COMMON" "$TMP/experiments/lib/"
  printf '#!/usr/bin/env bash\n. "$(dirname "$0")/../experiments/lib/common.sh"\nwarn "low on $1"\ndie "$@"\n' > "$TMP/ci/t"
  chmod +x "$TMP/ci/t"
  run "$TMP/ci/t" 3 "no such file"
  [ "$status" -eq 3 ]
  [ "$output" = "$(printf 'ci/t: warning: low on 3\nci/t: error: no such file')" ] || { echo "$output"; false; }
  run "$TMP/ci/t" "no status"
  [ "$status" -eq 70 ]
  [[ $output == *"ci/t: error: die: the first argument must be an exit status 0..255, not 'no status'"* ]] || { echo "$output"; false; }
}

@test "shell: the checks find a 101-line function, 31 top-level lines and a die copy planted in a copy" {
  mkdir -p "$TMP/experiments/lib" "$TMP/figures" "$TMP/ci"
  cp "$ROOT/experiments/run" "$TMP/experiments/"
  cp "$ROOT/$SH_COMMON" "$TMP/experiments/lib/"
  cp "$ROOT/figures/plot" "$TMP/figures/"
  run sh_long_functions "$TMP"
  [ -z "$output" ] || { echo "$output"; false; }
  run sh_top_level "$TMP"
  [ -z "$output" ] || { echo "$output"; false; }
  run sh_die_copies "$TMP"
  [ -z "$output" ] || { echo "$output"; false; }
  # a function of 100 lines passes, one of 101 does not; a "}" at column 0
  # inside a here-document does not end it
  { printf '#!/usr/bin/env bash\nfits() {\n'; for _ in $(seq 98); do printf '  :\n'; done; printf '}\n'
    printf 'longest() {\n  cat <<EOF\n}\nEOF\n'; for _ in $(seq 96); do printf '  :\n'; done; printf '}\n'; } > "$TMP/ci/long"
  run sh_long_functions "$TMP"
  [ "$output" = "ci/long:102: longest is 101 lines (at most 100: split it into named steps)" ] || { echo "$output"; false; }
  # 30 lines of code outside functions pass (comments and blank lines do
  # not count), 31 do not
  { printf '#!/bin/sh\n# a comment\n\n'; for _ in $(seq 30); do printf 'x=1\n\n'; done; } > "$TMP/ci/top"
  run sh_top_level "$TMP"
  [ -z "$output" ] || { echo "$output"; false; }
  printf 'x=1\n' >> "$TMP/ci/top"
  run sh_top_level "$TMP"
  [[ $output == "ci/top: 31 lines of code outside functions (at most 30:"* ]] || { echo "$output"; false; }
  # run's work moved back to the top level: one line over the rule
  local n
  n=$(sh_structure "$TMP" | awk -F '\t' '$1 == "toplevel" && $2 == "experiments/run" { print $3 }')
  [ "$n" -le 30 ]
  printf 'x=1\n%.0s' $(seq $((31 - n))) >> "$TMP/experiments/run"
  run sh_top_level "$TMP"
  [[ $output == *"experiments/run: 31 lines of code outside functions"* ]] || { echo "$output"; false; }
  # die and warn: a copy in a script, one-line or not
  printf 'die() { echo "$*" >&2; exit 2; }\n' >> "$TMP/figures/plot"
  printf 'warn()\n{\n  echo "$*" >&2\n}\n' >> "$TMP/ci/top"
  printf '#!/usr/bin/env bash\n  function die() {\n    exit 1\n  }\n' > "$TMP/ci/d"
  run sh_die_copies "$TMP"
  [[ $output == *"figures/plot:"*": a second definition of die"* ]] || { echo "$output"; false; }
  [[ $output == *"ci/top:"*": a second definition of warn"* ]] || { echo "$output"; false; }
  [[ $output == *"ci/d:2: a second definition of die"* ]] || { echo "$output"; false; }
  [ "${#lines[@]}" -eq 3 ] || { echo "$output"; false; }
}
