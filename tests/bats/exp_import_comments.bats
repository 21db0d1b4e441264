#!/usr/bin/env bats
# experiments/import sweep: C comments after a #define value are ignored (the
# original artifact's headers have them), and a refused line is quoted with
# what was expected.

load fixtures/exp/helpers

setup() { command -v python3 > /dev/null || skip "python3 is not installed"; }

imp() { "$ROOT/experiments/import" "$@"; }

# log NAME VM_LINE: a two-machine READ log whose 4th #define is VM_LINE
log() {
  printf 'Experiment settings\nOperation type = 32-byte read\n#define SIZE 32\n#define WINDOW_SIZE 8\n#define NUM_WORKERS 12\n%b\nMachine 0 average: 6.35 M/s\nMachine 1 average: 5.88 M/s\n' \
    "$2" > "$BATS_TEST_TMPDIR/$1"
  echo "$BATS_TEST_TMPDIR/$1"
}

@test "the original header line '#define VM_PER_MACHINE 1<TAB>/* Virtual machines per machine */' imports" {
  run imp sweep "$(log a '#define VM_PER_MACHINE 1\t/* Virtual machines per machine */')" -o "$BATS_TEST_TMPDIR/a.csv"
  [ "$status" -eq 0 ] || { echo "$output"; false; }
  # 2 machines x 1 VM each; the define's value, not the comment, is read
  [ "$(csv_col "$BATS_TEST_TMPDIR/a.csv" emulated_peers | sort -u)" = 2 ]
  [ "$(csv_col "$BATS_TEST_TMPDIR/a.csv" mops | tr '\n' ' ')" = "6.35 5.88 " ]
  [ "$(csv_col "$BATS_TEST_TMPDIR/a.csv" source_params | sort -u)" = "SIZE=32;WINDOW_SIZE=8;NUM_WORKERS=12;VM_PER_MACHINE=1" ]
}

@test "// comments, several /* */ comments, and a comment on a block's first #define" {
  run imp sweep "$(log b '#define VM_PER_MACHINE 3 // per machine')" -o "$BATS_TEST_TMPDIR/b.csv"
  [ "$status" -eq 0 ] || { echo "$output"; false; }
  [ "$(csv_col "$BATS_TEST_TMPDIR/b.csv" emulated_peers | sort -u)" = 6 ]
  run imp sweep "$(log c '#define VM_PER_MACHINE 5 /* VMs */ /* per machine */ // each')" -o "$BATS_TEST_TMPDIR/c.csv"
  [ "$status" -eq 0 ] || { echo "$output"; false; }
  [ "$(csv_col "$BATS_TEST_TMPDIR/c.csv" emulated_peers | sort -u)" = 10 ]
  # the first #define of the file carries the comment: its value is still read
  printf '#define SIZE 64 /* bytes */\n#define WINDOW_SIZE 4\t// outstanding\nMachine 0 average: 1.5 M/s\n' > "$BATS_TEST_TMPDIR/x-read"
  run imp sweep "$BATS_TEST_TMPDIR/x-read" -o "$BATS_TEST_TMPDIR/d.csv"
  [ "$status" -eq 0 ] || { echo "$output"; false; }
  [ "$(csv_col "$BATS_TEST_TMPDIR/d.csv" size_bytes)" = 64 ]
  [ "$(csv_col "$BATS_TEST_TMPDIR/d.csv" window)" = 4 ]
}

@test "refused lines are quoted with what was expected" {
  run imp sweep "$(log e '#define VM_PER_MACHINE 1 /* not closed')"
  [ "$status" -eq 1 ]
  [[ $output == *"line 6: expected \`*/\` closing the C comment on the same line, found '#define VM_PER_MACHINE 1 /* not closed'"* ]]
  run imp sweep "$(log f 'garbage here')"
  [ "$status" -eq 1 ]
  [[ $output == *"line 6: not a #define or Machine line: expected \`#define NAME VALUE\` or \`Machine ID average: X M/s\`, found 'garbage here'"* ]]
  run imp sweep "$(log g '#define VM_PER_MACHINE')"
  [ "$status" -eq 1 ]
  [[ $output == *"line 6: expected \`#define NAME VALUE\` (a C comment may follow), found '#define VM_PER_MACHINE'"* ]]
  run imp sweep "$(log h '#define VM_PER_MACHINE 2x')"
  [ "$status" -eq 1 ]
  [[ $output == *"#define VM_PER_MACHINE: expected a whole number, found '2x'"* ]]
}
