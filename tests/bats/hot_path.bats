#!/usr/bin/env bats
# The data path divides nowhere per WR: the signal interval is a per-QP
# countdown, the per-SQ-slot rings are a power of two (layout.h sq_ring)
# and the atomic counter index is a wrapping counter or a multiply-shift
# (bench/rdma_bench/post_int.h). Checked on the object the build makes from
# bench/rdma_bench/post_req.c, compiled here with the Makefile's flags.

ROOT=$(cd "$BATS_TEST_DIRNAME/../.." && pwd)

setup() {
  TMP=$(mktemp -d)
}

teardown() {
  rm -rf "$TMP"
}

# The div/idiv instructions of the named functions of object $1, one line
# each: "function: instruction".
divs_in() {
  local obj=$1
  shift
  local fns
  fns=$(printf '%s|' "$@")
  objdump -d --no-show-raw-insn "$obj" \
    | awk -v re="^(${fns%|})(\\.[a-z0-9.]+)?\$" '
        /^[0-9a-f]+ <.*>:$/ { f = substr($2, 2, length($2) - 3); next }
        f ~ re && /\t(div|idiv)[a-z]*[ \t]/ { print f ": " $0 }'
}

# Compile bench/rdma_bench/post_req.c as the Makefile does (-O2, the same -I list).
build_post_req() {
  # shellcheck disable=SC2046
  cc -std=c11 -D_GNU_SOURCE -O2 -g -Wall -Wextra -Werror -I"$ROOT/include" \
    -I"$ROOT/bench/apps/rt" -I"$ROOT/bench/apps/seq" -I"$ROOT/bench/apps/kv" \
    $(pkg-config --cflags libibverbs librdmacm 2>/dev/null) \
    -c -o "$TMP/post_req.o" "$ROOT/bench/rdma_bench/post_req.c"
}

@test "hot path: no division in the bw and lat loops (bw_phase, bw_phase_poll, lat_phase)" {
  build_post_req
  run objdump -d "$TMP/post_req.o"
  [[ $output == *"<bw_phase>:"* && $output == *"<lat_phase>:"* ]] || { echo "loop functions not found"; false; }
  run divs_in "$TMP/post_req.o" bw_phase bw_phase_poll lat_phase atomic_results
  [ "$status" -eq 0 ]
  [ -z "$output" ] || { echo "division on the data path:"; echo "$output"; false; }
}

@test "hot path: the check finds a division planted in a function named bw_phase" {
  printf 'unsigned long bw_phase(unsigned long a, unsigned long b) { return a %% b; }\n' > "$TMP/d.c"
  cc -O2 -c -o "$TMP/d.o" "$TMP/d.c"
  run divs_in "$TMP/d.o" bw_phase lat_phase
  [[ $output == "bw_phase: "*div* ]] || { echo "$output"; false; }
}
