#!/usr/bin/env bats
# The add-an-application recipe (docs/ARCHITECTURE.md), walked in a scratch
# copy of the tree: a dummy program, one file with its knob table
# (tests/recipes/hello_main.c) in its own folder bench/apps/hello/, its
# program id (one line of CTRL_PROGRAMS in include/ctrl.h) and its target
# in the Makefile. It must build, parse with the shared rows, print its
# --help and --list-knobs from its table, and carry its knob through its
# own CONFIG message; and the recipe must touch at most 3 files outside
# its folder.

ROOT=$(cd "$BATS_TEST_DIRNAME/../.." && pwd)

setup() {
  CO=$BATS_TEST_TMPDIR/co
  mkdir -p "$CO/tests/fuzz"
  cp -rp "$ROOT/Makefile" "$ROOT/bench" "$ROOT/include" "$CO/"
  cp -p "$ROOT/tests/fuzz/fuzz.mk" "$CO/tests/fuzz/"
  git -C "$CO" init -q
  git -C "$CO" add -A
  git -C "$CO" -c user.name=recipe -c user.email=recipe@localhost commit -qm base
}

# the recipe's steps, as a newcomer follows them
add_hello() {
  mkdir -p "$CO/bench/apps/hello"
  cp "$ROOT/tests/recipes/hello_main.c" "$CO/bench/apps/hello/hello_main.c"
  # 1. its program id: one line of CTRL_PROGRAMS (ctrl.h)
  sed -i -E '/^\tX\(RDMA_SEQ, 2, .*\*\/$/ s/$/ \\/' "$CO/include/ctrl.h"
  sed -i -E '/^\tX\(RDMA_SEQ, 2, / a\	X(RDMA_HELLO, 3, "rdma_hello")' "$CO/include/ctrl.h"
  # 2. its target in the Makefile, linked with the library
  printf '\nrdma_hello: $(OBJ)/apps/hello/hello_main.o $(BUILD)/librdmabench.a\n\t$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $^ $(LDLIBS)\n' >> "$CO/Makefile"
}

@test "add an application: one file and its table, 2 files outside its folder, built and run" {
  add_hello
  run make -C "$CO" -j2 -s rdma_hello
  [ "$status" -eq 0 ] || { echo "$output"; false; }
  # its command line comes from its table, with the shared rows
  run "$CO/rdma_hello" --help
  [ "$status" -eq 0 ]
  [[ $output == *"--greetings N"*"greetings per point, 1..9 (default 2)"* ]] || { echo "$output"; false; }
  [[ $output == *"-p, --port N"*"(default 18600)"* ]] || { echo "$output"; false; }
  run "$CO/rdma_hello" --list-knobs
  [[ $output == *$'--greetings\t-\tN\tnum\t2\t1..9\tgreetings\tgreetings\tsent\tclient'* ]] || { echo "$output"; false; }
  run "$CO/rdma_hello" -c h --greetings 10
  [ "$status" -eq 2 ]
  [[ $output == *"--greetings: 10 is above the maximum 9"* ]] || { echo "$output"; false; }
  run "$CO/rdma_hello" -s --greetings 3
  [ "$status" -eq 2 ]
  [[ $output == *"--greetings given to the server"* ]] || { echo "$output"; false; }
  # its knob through its own message, named by its program id
  run "$CO/rdma_hello" -c h --greetings 7 --dry-run
  [ "$status" -eq 0 ]
  [ "$output" = "rdma_hello: greetings 7 through CONFIG (program 3 rdma_hello, version 1)" ]
  # the files it took outside its own folder
  run bash -c "cd '$CO' && git status --porcelain | grep -v ' bench/apps/hello/' | grep -v 'build/\|rdma_hello$'"
  echo "$output"
  [ "${#lines[@]}" -le 3 ]
  [ "${#lines[@]}" -eq 2 ]
}

# The add-a-knob recipe in a scratch copy: a sent knob of rdma_bench is its
# field at the end of RB_TEST_FIELDS (options.h) and its row in knobs[]
# (options.c); the parser, its range, --help, --list-knobs and the TEST
# message carry it with no other change (tests/unit/knob_dummy.c walks the
# same recipe in the unit tests, with its TEST round trip).
@test "add a knob: 2 files, and rdma_bench parses, lists and refuses it" {
  sed -i -E 's/^(\tX\(seed\) X\(timeout_ms\) X\(read_completion\))/\1 X(greeting)/' "$CO/include/options.h"
  grep -q 'X(greeting)' "$CO/include/options.h"
  sed -i -E '/^\tRB_ROW_LIST_KNOBS\(\),$/ i\	{ .name = "greeting", .arg = "N", NUM, T(greeting), .hi = 5, .def = 1,\n\t  .col = "greeting", .help = "the recipe'"'"'s knob, 0..5 (%D)" },' "$CO/bench/lib/options.c"
  grep -q '"greeting"' "$CO/bench/lib/options.c"
  run make -C "$CO" -j2 -s rdma_bench
  [ "$status" -eq 0 ] || { echo "$output"; false; }
  run "$CO/rdma_bench" --help
  [[ $output == *"--greeting N"*"the recipe's knob, 0..5 (1)"* ]] || { echo "$output"; false; }
  run "$CO/rdma_bench" --list-knobs
  [[ $output == *$'--greeting\t-\tN\tnum\t1\t0..5\tgreeting\tgreeting\tsent\tclient'* ]] || { echo "$output"; false; }
  run "$CO/rdma_bench" -c h --greeting 6
  [ "$status" -eq 2 ]
  [[ $output == *"--greeting: 6 is above the maximum 5"* ]] || { echo "$output"; false; }
  run "$CO/rdma_bench" -c h --greeting 4 --dry-run
  [ "$status" -eq 0 ] || { echo "$output"; false; }
  run bash -c "cd '$CO' && git status --porcelain | grep -v 'build/\|rdma_bench$'"
  echo "$output"
  [ "${#lines[@]}" -eq 2 ]
}
