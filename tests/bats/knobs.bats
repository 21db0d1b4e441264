#!/usr/bin/env bats
# The knob table (bench/lib/options.c) is the one place a knob is written: the
# runner's copy is the binary's --list-knobs output, the docs name exactly
# the options it has (with its defaults and CSV columns), and no other file
# of the program spells a knob's column or option name.

ROOT=$(cd "$BATS_TEST_DIRNAME/../.." && pwd)

setup() {
  [ -x "$ROOT/rdma_bench" ] || { echo "build rdma_bench first (make)"; return 1; }
  "$ROOT/rdma_bench" --list-knobs > "$BATS_TEST_TMPDIR/knobs.tsv"
}

# field N of every --list-knobs line, one per line, "-" left out
knob_field() { awk -F'\t' -v f="$1" '$f != "-" { print $f }' "$BATS_TEST_TMPDIR/knobs.tsv"; }

@test "--list-knobs: ten tab-separated fields per option, every option once" {
  awk -F'\t' 'NF != 10 { print "line " NR " has " NF " fields: " $0; bad = 1 } END { exit bad }' \
    "$BATS_TEST_TMPDIR/knobs.tsv"
  [ "$(knob_field 1 | sort | uniq -d)" = "" ]
  [ "$(knob_field 1 | wc -l)" -gt 60 ]
  grep -q $'^--ack-timeout\t-\tV\tnum\t14\t0..31\tack_timeout\tack_timeout\tsent\tclient$' \
    "$BATS_TEST_TMPDIR/knobs.tsv"
  grep -q $'^--duration\t-D\tSECS\tsecs\t0\t0.001..86400.000\tduration_req_s\tduration_s\tsent\tclient$' \
    "$BATS_TEST_TMPDIR/knobs.tsv"
}

@test "experiments/lib/knobs.tsv is the binary's --list-knobs output (make writes it)" {
  diff -u "$ROOT/experiments/lib/knobs.tsv" "$BATS_TEST_TMPDIR/knobs.tsv"
}

@test "docs/rdma_bench.md's synopsis names every option, and no option that does not exist" {
  awk '/^```/ { n++; next } n == 1' "$ROOT/docs/rdma_bench.md" > "$BATS_TEST_TMPDIR/synopsis"
  grep -q 'rdma_bench -s' "$BATS_TEST_TMPDIR/synopsis"
  local opt short missing="" unknown="" w
  while IFS=$'\t' read -r opt short _; do
    grep -qE -- "(^|[[ |])($opt|$short)([] |]|$)" "$BATS_TEST_TMPDIR/synopsis" ||
      missing="$missing $opt"
  done < "$BATS_TEST_TMPDIR/knobs.tsv"
  for w in $(grep -oE -- '(^|[[ |])--?[a-zA-Z][a-z0-9-]*' "$BATS_TEST_TMPDIR/synopsis" | tr -d '[| '); do
    awk -F'\t' -v w="$w" '$1 == w || $2 == w { f = 1 } END { exit !f }' \
      "$BATS_TEST_TMPDIR/knobs.tsv" || unknown="$unknown $w"
  done
  [ -z "$missing" ] || { echo "options missing from the synopsis:$missing"; return 1; }
  [ -z "$unknown" ] || { echo "the synopsis names options rdma_bench lacks:$unknown"; return 1; }
}

@test "docs/rdma_bench.md's server limits table: every flag exists and its default agrees" {
  local rows=0 flag def want
  while IFS='|' read -r _ flag def _; do
    flag=$(grep -oE -- '--[a-z-]+' <<< "$flag") def=$(tr -d ' ' <<< "$def")
    want=$(awk -F'\t' -v o="$flag" '$1 == o { print $5 }' "$BATS_TEST_TMPDIR/knobs.tsv")
    [ -n "$want" ] || { echo "$flag: not an option"; return 1; }
    if [[ $def =~ ^[0-9]+$ ]]; then
      [ "$def" = "$want" ] || { echo "$flag: documented default $def, the table's $want"; return 1; }
    else
      [ "$want" = auto ] || { echo "$flag: documented '$def', the table's default $want"; return 1; }
    fi
    rows=$((rows + 1))
  done < <(grep -E '^\| `--max-|^\| `--client-timeout' "$ROOT/docs/rdma_bench.md")
  [ "$rows" -ge 9 ]
}

@test "docs/csv.md documents every knob's column; its configuration table holds only written columns" {
  local col missing="" extra="" name
  # first cells of csv.md's tables, one column name per line
  awk -F'|' '/^\| / { gsub(/ /, "", $2); n = split($2, a, ","); for (i = 1; i <= n; i++) print a[i] }' \
    "$ROOT/docs/csv.md" > "$BATS_TEST_TMPDIR/documented"
  for col in $(knob_field 7); do
    grep -qx "$col" "$BATS_TEST_TMPDIR/documented" || missing="$missing $col"
  done
  [ -z "$missing" ] || { echo "knob columns csv.md lacks:$missing"; return 1; }
  # the configuration section: a knob's column, or a derived one report.c writes
  for name in $(awk -F'|' '/^## / { s = ($0 ~ /^## Configuration/) } s && /^\| [a-z]/ && $2 !~ /^ column / {
        gsub(/ /, "", $2); n = split($2, a, ","); for (i = 1; i <= n; i++) print a[i] }' \
        "$ROOT/docs/csv.md"); do
    knob_field 7 | grep -qx "$name" || grep -qF "\"$name\"" "$ROOT/bench/rdma_bench/report.c" ||
      extra="$extra $name"
  done
  [ -z "$extra" ] || { echo "csv.md configuration columns rdma_bench does not write:$extra"; return 1; }
}

@test "a knob's column and option are defined in the knob table only" {
  # defined: a long option's getopt entry, a CSV column written by hand, a
  # case label of the runner's map. (Messages that name an option, and code
  # that reads a column by name, such as the human table's column list, use
  # the name: the CSV contract is to read columns by name. bench/model/model_main.c
  # is rb_model, the PCIe model's own program: its options describe a
  # modelled configuration, not a run of rdma_bench.)
  local col opt hits bad=""
  while IFS=$'\t' read -r opt _ _ _ _ _ col _; do
    hits=$(grep -lE -- "\\{ *\"${opt#--}\"," "$ROOT"/bench/lib/*.c "$ROOT"/bench/rdma_bench/*.c "$ROOT"/bench/model/*.c "$ROOT"/include/*.h |
      grep -vE '/bench/(lib/options|model/model_main)\.c$' || true)
    [ -z "$hits" ] || bad="$bad $opt:$hits"
    [ "$col" != - ] || continue
    hits=$(grep -lE -- "row_set_[a-z0-9]+\\([^,]*, *\"$col\"" "$ROOT"/bench/lib/*.c "$ROOT"/bench/rdma_bench/*.c "$ROOT"/bench/model/*.c | grep -v '/bench/lib/options\.c$' || true)
    [ -z "$hits" ] || bad="$bad $col:$hits"
    [ "$col" = procs ] || ! grep -qE "^[[:space:]]*$col\)" "$ROOT/experiments/lib/params.sh" ||
      bad="$bad $col:params.sh"
  done < "$BATS_TEST_TMPDIR/knobs.tsv"
  [ -z "$bad" ] || { echo "defined outside the knob table:$bad"; return 1; }
}

@test "ack_timeout: in the wire order, its table row, its uses and its documentation line only" {
  run bash -c "cd '$ROOT' && grep -rn 'ack_timeout' bench include docs experiments/lib \
    | grep -v 'local_ack_timeout_err' | grep -vE -- '(->|\\.)ack_timeout\\b|RB_TEST_COL\\(ack_timeout\\)'"
  echo "$output"
  [[ $output == *"include/options.h:"*"X(ack_timeout)"* ]]
  [[ $output == *"bench/lib/options.c:"*"T(ack_timeout)"* ]]
  [[ $output == *"docs/csv.md:"*"| ack_timeout | code v"* ]]
  # nothing else: the table (bench/lib/options.c), the wire order (options.h),
  # csv.md's line, the runner's generated copy, and the comments of rdma_seq
  # that say which TEST field carries which of its knobs (seq.h, drtm.h)
  [ -z "$(grep -vE '^(bench/lib/options\.c|include/options\.h|docs/csv\.md|experiments/lib/knobs\.tsv):|^bench/apps/(seq/seq|kv/drtm)\.h:[0-9]+: \*' <<< "$output")" ]
}

@test "the runner maps a knob to its flag from the table (iters -> -n: echo took it for its own option)" {
  run bash -c "RB_LIB='$ROOT/experiments/lib'; rb_die() { echo \"die: \$*\"; exit 1; }
    . '$ROOT/experiments/lib/params.sh'
    for k in iters duration_s size_bytes qps qps_per_thread inline ack_timeout --any-flag procs; do
      printf '%s=%s\n' \"\$k\" \"\$(rb_knob_flag \"\$k\")\"
    done
    rb_knob_flag no_such_knob || echo 'no_such_knob refused'"
  [ "$status" -eq 0 ]
  [ "${lines[0]}" = "iters=-n" ]
  [ "${lines[1]}" = "duration_s=-D" ]
  [ "${lines[2]}" = "size_bytes=-m" ]
  [ "${lines[3]}" = "qps=-q" ]
  [ "${lines[4]}" = "qps_per_thread=--qps-per-thread" ]
  [ "${lines[5]}" = "inline=--inline" ]
  [ "${lines[6]}" = "ack_timeout=--ack-timeout" ]
  [ "${lines[7]}" = "--any-flag=--any-flag" ]
  [ "${lines[8]}" = "procs=" ]
  [ "${lines[9]}" = "no_such_knob refused" ]
}

# The new-knob recipe (docs/ARCHITECTURE.md): build/tests/test_knob_dummy is
# the suite built with one more row (tests/unit/knob_dummy.c checks its
# parser, --help, --list-knobs and TEST sides); the runner maps it from that
# list with no edit of experiments/lib.
@test "a new knob row reaches the runner's map from --list-knobs alone" {
  local bin=$ROOT/build/tests/test_knob_dummy list=$BATS_TEST_TMPDIR/dummy-knobs.tsv
  [ -x "$bin" ] || { echo "build $bin first (make unit)"; false; }
  "$bin" --list-knobs > "$list"
  run bash -c "RB_LIB='$ROOT/experiments/lib'; RB_KNOBS_FILE='$list'
    rb_die() { echo \"die: \$*\"; exit 1; }
    . '$ROOT/experiments/lib/params.sh'
    printf 'flag=%s\n' \"\$(rb_knob_flag dummy_knob)\"
    printf 'known=%s\n' \"\$(rb_known_knobs)\"
    RB_KNOB_FLAG=(); RB_KNOBS_FILE='$BATS_TEST_TMPDIR/knobs.tsv'
    rb_knob_flag dummy_knob || echo 'not in the shipped table'"
  [ "$status" -eq 0 ] || { echo "$output"; false; }
  [ "${lines[0]}" = "flag=--dummy-knob" ]
  [[ " ${lines[1]#known=} " == *" dummy_knob "* ]]
  [ "${lines[2]}" = "not in the shipped table" ]
}
