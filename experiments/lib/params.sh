# shellcheck shell=bash
# experiments/lib/params.sh: the parameter file: reading and validating it, the knob-to-flag table, the grid.
# Sourced by runner.sh; functions only.

# ---- the parameter file ----------------------------------------------------------
# INI-like, read line by line (never sourced):
#   [experiment]  title, reproduces, section (the paper's), hardware (what the
#                 full grid needs: printed by --dry-run), figure ...  free text, for people
#   [roles]       server = N, clients = N M ...      hosts-file line numbers
#   [run]         bin (a program of the checkout to run instead of rdma_bench:
#                 experiments/run), repetitions, noisy_cv_pct (a point whose CV over its
#                 repetitions exceeds it is noisy: rbcsv.py aggregate), client_bound_pct
#                 (a rise above it at the next-higher load marks a point
#                 client-bound: rbcsv.py aggregate), timeout_s, point_s, overhead_s, qp_setup_ms, port,
#                 server_scope (sweep: one server for all jobs, restarted
#                 after a failed job; point: one per job), ready_timeout_s, ready_pattern; hook, hook_roles,
#                 hook_knobs (a per-point hook: see job.sh); summary_keys,
#                 summary_metrics (extra summary.csv columns, summed over a
#                 point's processes: see sweep.sh), summary_means (extra
#                 columns averaged over them: per-operation counts such as
#                 pcie_rd_per_op)
#   [knobs]       NAME = V1 V2 ...                   swept (cartesian product);
#                 A:B = a1:b1 a2:b2                  knobs swept together
#   [quick]       same keys as [knobs] or [run]; replaces them when QUICK=1
#   [compare]     tolerance and reference keys (read by experiments/compare)
# A knob name is a CSV column (mapped to its flag by rb_knob_flag), the
# runner's own `procs` (client processes per point), a literal long
# option (--name) passed through as it is, or a knob named in [run]
# hook_knobs (given to the hook, never to rdma_bench; a column of the rows).
declare -gA RB_CONF=()
declare -ga RB_KNOB_NAMES=() RB_KNOB_VALUES=()

rb_params_load() {
  local file=$1 quick=${2:-0} section="" line key val n=0 i colons
  local -a qnames=() qvalues=()
  [ -r "$file" ] || rb_die "parameter file $file not found"
  RB_CONF=() RB_KNOB_NAMES=() RB_KNOB_VALUES=()
  while IFS= read -r line || [ -n "$line" ]; do
    n=$((n + 1))
    line=${line%%#*}
    # trim (parameter expansion: no process per line)
    line=${line#"${line%%[![:space:]]*}"}
    line=${line%"${line##*[![:space:]]}"}
    [ -n "$line" ] || continue
    if [[ $line =~ ^\[([a-z]+)\]$ ]]; then
      section=${BASH_REMATCH[1]}
      continue
    fi
    [[ $line == *=* ]] || rb_die "$file:$n: expected 'key = value' or '[section]', got '$line'"
    key=${line%%=*} val=${line#*=}
    key=${key%"${key##*[![:space:]]}"}
    val=${val#"${val%%[![:space:]]*}"}
    case $section in
      experiment|compare)
        RB_CONF[$section.$key]=$val ;;
      roles|run)
        rb_known_setting "$section" "$key" || rb_die "$file:$n: unknown [$section] setting '$key' (known: $(rb_known_setting "$section"))"
        for i in $val; do rb_check_word "$i" "$file:$n: $key"; done
        RB_CONF[$section.$key]=$val ;;
      knobs|quick)
        [[ $key =~ ^(--)?[a-z][a-z0-9_-]*(:(--)?[a-z][a-z0-9_-]*)*$ ]] ||
          rb_die "$file:$n: knob name '$key' is not a plain name"
        [ -n "$val" ] || rb_die "$file:$n: knob $key has no values"
        # one part per knob: as many ':' in each value as in the name,
        # counted without a process (every job of a sweep loads this file,
        # and experiments/search's combined knob lists a batch's points)
        colons=${key//[^:]/}
        for i in $val; do
          rb_check_word "${i//:/}" "$file:$n: value of $key"
          [ "${i//[^:]/}" = "$colons" ] ||
            rb_die "$file:$n: value '$i' of $key needs one part per knob (separated by ':')"
        done
        if [ "$section" = knobs ]; then
          RB_KNOB_NAMES+=("$key") RB_KNOB_VALUES+=("$val")
        else
          qnames+=("$key") qvalues+=("$val")
        fi ;;
      "") rb_die "$file:$n: '$key' is outside any [section]" ;;
      *) rb_die "$file:$n: unknown section [$section] (known: experiment roles run knobs quick compare)" ;;
    esac
  done < "$file"
  [ "${#RB_KNOB_NAMES[@]}" -gt 0 ] || rb_die "$file: no [knobs]"
  # QUICK=1: [quick] replaces knobs of the same name, or [run] settings
  for i in "${!qnames[@]}"; do
    rb_has_knob "${qnames[i]}" || rb_known_setting run "${qnames[i]}" ||
      rb_die "$file: [quick] ${qnames[i]} is neither a knob of [knobs] nor a [run] setting"
    [ "$quick" = 1 ] || continue
    rb_set_knob "${qnames[i]}" "${qvalues[i]}" || RB_CONF[run.${qnames[i]}]=${qvalues[i]}
  done
  # knob names are unique, including the parts of combined knobs
  local all="" part
  for key in "${RB_KNOB_NAMES[@]}"; do
    for part in ${key//:/ }; do
      [[ " $all " != *" $part "* ]] || rb_die "$file: knob $part is given twice"
      rb_knob_flag "$part" > /dev/null || rb_is_hook_knob "$part" ||
        rb_die "$file: unknown knob '$part' (known: $(rb_known_knobs); or a literal --long-option; or one named in [run] hook_knobs)"
      all="$all $part"
    done
  done
  # the hook's knobs are knobs, and need a hook; its roles are client/server
  for part in ${RB_CONF[run.hook_knobs]:-}; do
    [[ " $all " == *" $part "* ]] || rb_die "$file: [run] hook_knobs names '$part', which is not a knob of [knobs]"
    [[ $part =~ ^[a-z][a-z0-9_]*$ ]] || rb_die "$file: hook knob '$part' must be a plain column name (a-z, 0-9, _)"
  done
  [ -z "${RB_CONF[run.hook_knobs]:-}" ] || [ -n "${RB_CONF[run.hook]:-}" ] ||
    rb_die "$file: [run] hook_knobs without a hook"
  case ${RB_CONF[run.server_scope]:-sweep} in
    sweep|point) ;;
    *) rb_die "$file: [run] server_scope = ${RB_CONF[run.server_scope]:-}: use sweep (one server for the jobs, restarted after a failed one) or point (a server per job)" ;;
  esac
  for part in ${RB_CONF[run.hook_roles]:-}; do
    [[ $part == client || $part == server ]] || rb_die "$file: [run] hook_roles: '$part' is not client or server"
  done
}

# rb_size_hint TYPE VALUE: for a size knob given with a unit (64K, 4KiB,
# 1MB), the text that says how to write it: the parameter files and --set
# take bytes (size_bytes is the figures' x and the CSV's column), though
# rdma_bench's -m takes the units
rb_size_hint() {
  [ "$1" = size ] && [[ $2 =~ ^([0-9]+)(K|KiB|M|MiB|G|GiB|KB|MB|GB)$ ]] || return 0
  local n=${BASH_REMATCH[1]} m
  case ${BASH_REMATCH[2]} in
    K | KiB) m=1024 ;; M | MiB) m=1048576 ;; G | GiB) m=1073741824 ;;
    KB) m=1000 ;; MB) m=1000000 ;; GB) m=1000000000 ;;
  esac
  printf '; write it in bytes: %s is %s (the parameter files and --set take bytes, the x of the figures; rdma_bench -m takes the units)' "$2" "$((n * m))"
}

# rb_params_check_values: the values of [run] settings and of numeric knobs
# are numbers in range, checked before a run writes anything, dry run or
# not. A knob value outside rdma_bench's own range or choices (its
# --list-knobs table, lib/knobs.tsv: rb_knob_range_check) would have every
# point with it refused: refused here (experiments that run rdma_bench;
# another [run] bin has its own ranges). What depends on the other knobs
# of a point, rdma_bench checks itself: such a point is skipped with its
# reason.
rb_params_check_values() {
  local k v lim part i table=1
  # a program with its own table (lib/knobs-BIN.tsv) is checked against it
  case ${RB_CONF[run.bin]:-rdma_bench} in
    rdma_bench) ;;
    *) [ -r "$RB_LIB/knobs-${RB_CONF[run.bin]}.tsv" ] || table=0 ;;
  esac
  for k in repetitions:1:9999 timeout_s:1:864000 ready_timeout_s:1:3600 port:1:65535; do
    IFS=: read -r k v lim <<< "$k"
    part=${RB_CONF[run.$k]:-}
    [ -n "$part" ] || continue
    [[ $part =~ ^[0-9]+$ ]] && [ "$part" -ge "$v" ] && [ "$part" -le "$lim" ] ||
      rb_die "[run] $k = $part: must be a whole number from $v to $lim"
  done
  for k in point_s overhead_s qp_setup_ms noisy_cv_pct client_bound_pct; do
    part=${RB_CONF[run.$k]:-}
    [ -z "$part" ] || [[ $part =~ ^[0-9]+(\.[0-9]+)?$ ]] ||
      rb_die "[run] $k = $part: must be a number of seconds (ms for qp_setup_ms, percent for noisy_cv_pct and client_bound_pct), e.g. 1 or 0.5"
  done
  case ${RB_CONF[run.ready]:-any} in line|port|any) ;; *) rb_die "[run] ready = ${RB_CONF[run.ready]}: use line, port or any" ;; esac
  for i in "${!RB_KNOB_NAMES[@]}"; do
    local -a names vals
    IFS=: read -r -a names <<< "${RB_KNOB_NAMES[i]}"
    for v in ${RB_KNOB_VALUES[i]}; do
      IFS=: read -r -a vals <<< "$v"
      # a knob swept together (verb:transport): one value per name
      [ "${#vals[@]}" = "${#names[@]}" ] && [[ $v != *: ]] ||
        rb_die "knob ${RB_KNOB_NAMES[i]} = $v: give ${#names[@]} values joined by ':', one per name: ${RB_KNOB_NAMES[i]^^}"
      for k in "${!names[@]}"; do
        part=${vals[k]:-}
        case ${names[k]} in
          procs)
            [[ $part =~ ^[1-9][0-9]{0,3}$ ]] || rb_die "knob procs = $part: client processes per point must be a whole number from 1 to 9999" ;;
          *)
            rb_knobs_load
            case ${RB_KNOB_TYPE[${names[k]}]:-} in
              num|size) [[ $part =~ ^[0-9]+$ ]] || rb_die "knob ${names[k]} = $part: must be a whole number$([ "${RB_KNOB_RANGE[${names[k]}]:--}" = - ] || echo " in ${RB_KNOB_RANGE[${names[k]}]}") (rdma_bench --help)$(rb_size_hint "${RB_KNOB_TYPE[${names[k]}]}" "$part")" ;;
              secs) [[ $part =~ ^[0-9]+(\.[0-9]+)?$ ]] || rb_die "knob ${names[k]} = $part: must be a number of seconds (e.g. 2 or 0.5)" ;;
            esac
            [ "$table" = 0 ] || rb_knob_range_check "${names[k]}" "$part" ;;
        esac
      done
    done
  done
}

# rb_knob_range_check NAME VALUE: die (exit 2) when rdma_bench's table
# (lib/knobs.tsv column 6: LO..HI, or the choices A|B|C) refuses VALUE for
# the knob NAME (the runner's name, or a literal --long-option of the
# table); a value not of the knob's type (a size with a suffix, given as a
# literal option) is left to rdma_bench
rb_knob_range_check() {
  local name=$1 v=$2 type range lo hi
  rb_knobs_load
  type=${RB_KNOB_RTYPE[$name]:-} range=${RB_KNOB_RANGE[$name]:-}
  [ -n "$range" ] && [ "$range" != - ] || return 0
  case $type in
    enum) [[ "|$range|" == *"|$v|"* ]] && return 0 ;;
    num|size|secs)
      [[ $v =~ ^[0-9]+(\.[0-9]+)?$ ]] || return 0
      [ "$type" = secs ] || [[ $v =~ ^[0-9]+$ ]] || return 0
      lo=${range%%..*} hi=${range##*..}
      ! rb_dec_le "$lo" "$v" || ! rb_dec_le "$v" "$hi" || return 0 ;;
    *) return 0 ;;
  esac
  rb_die "knob $name = $v: rdma_bench accepts $range (${RB_KNOB_FLAGS[$name]}); every point with it would be refused (rdma_bench --help)"
}

# rb_dec_le A B: A <= B for non-negative decimals of any length (20-digit
# ranges are beyond shell arithmetic): whole parts by length then digits,
# then the fractions padded to one length
rb_dec_le() {
  local ai=${1%%.*} bi=${2%%.*} af bf
  af=${1#"$ai"} bf=${2#"$bi"}
  af=${af#.} bf=${bf#.}
  while [[ $ai == 0?* ]]; do ai=${ai#0}; done
  while [[ $bi == 0?* ]]; do bi=${bi#0}; done
  [ "${#ai}" = "${#bi}" ] || { [ "${#ai}" -lt "${#bi}" ]; return; }
  [ "$ai" = "$bi" ] || { [[ $ai < $bi ]]; return; }
  while [ "${#af}" -lt "${#bf}" ]; do af=${af}0; done
  while [ "${#bf}" -lt "${#af}" ]; do bf=${bf}0; done
  [[ ! $af > $bf ]]
}

# rb_is_hook_knob NAME: a knob handed to the hook, not to rdma_bench (no
# subshell: every job calls it per knob)
rb_is_hook_knob() { [[ " ${RB_CONF[run.hook_knobs]:-} " == *" $1 "* ]]; }

# rb_known_setting SECTION [KEY]: is KEY a setting of [roles] or [run]?
# (without KEY: print the known ones)
rb_known_setting() {
  local known
  case $1 in
    roles) known="server clients" ;;
    run) known="bin repetitions noisy_cv_pct client_bound_pct timeout_s point_s overhead_s qp_setup_ms port server_scope ready ready_timeout_s ready_pattern hook hook_roles hook_knobs summary_keys summary_metrics summary_means group_sizes companion" ;;
  esac
  if [ $# -eq 1 ]; then echo "$known"; return 0; fi
  [[ " $known " == *" $2 "* ]]
}

rb_has_knob() {
  local k
  for k in "${RB_KNOB_NAMES[@]}"; do [ "$k" != "$1" ] || return 0; done
  return 1
}

# rb_set_knob NAME VALUES: replace a knob's values; fails if there is no such knob
rb_set_knob() {
  local i
  for i in "${!RB_KNOB_NAMES[@]}"; do
    if [ "${RB_KNOB_NAMES[i]}" = "$1" ]; then RB_KNOB_VALUES[i]=$2; return 0; fi
  done
  return 1
}

# rb_conf KEY DEFAULT
rb_conf() { local v=${RB_CONF[$1]:-}; printf '%s' "${v:-$2}"; }

# The knob table: rdma_bench's own (bench/lib/options.c), as `rdma_bench
# --list-knobs` prints it, kept in lib/knobs.tsv by make (tests/bats/
# knobs.bats checks that the file is the binary's output); an experiment
# whose [run] bin is another program of the checkout reads that program's
# table, lib/knobs-BIN.tsv (rdma_seq: bench/apps/seq/seq_opts.c), in the
# same format. Column 8 is the
# runner's name of a knob the runner may sweep (its CSV column, or
# duration_s, inline, qps); columns 1 and 2 its long and short flag; 4 its
# type (num, secs, size, enum). RB_KNOBS_FILE overrides the file.
# Column 6 is the values rdma_bench takes (LO..HI, or A|B|C):
# RB_KNOB_RANGE, RB_KNOB_RTYPE and RB_KNOB_FLAGS (for messages) by the
# runner's name and by the long option (a literal --long-option knob).
declare -gA RB_KNOB_FLAG=() RB_KNOB_TYPE=() RB_KNOB_RANGE=() RB_KNOB_RTYPE=() RB_KNOB_FLAGS=()
rb_knobs_load() {
  local file=$RB_LIB/knobs.tsv opt short type range knob flags bin=${RB_CONF[run.bin]:-rdma_bench}
  [ "$bin" = rdma_bench ] || [ ! -r "$RB_LIB/knobs-$bin.tsv" ] || file=$RB_LIB/knobs-$bin.tsv
  file=${RB_KNOBS_FILE:-$file}
  [ "${#RB_KNOB_FLAG[@]}" -eq 0 ] || return 0
  [ -r "$file" ] || rb_die "knob list $file not found: make writes it from rdma_bench --list-knobs"
  while IFS=$'\t' read -r opt short _ type _ range _ knob _; do
    flags=$opt
    [ "$short" = - ] || flags=$short/$opt
    RB_KNOB_RANGE[$opt]=$range RB_KNOB_RTYPE[$opt]=$type RB_KNOB_FLAGS[$opt]=$flags
    [ "$knob" != - ] || continue
    if [ "$short" != - ]; then RB_KNOB_FLAG[$knob]=$short; else RB_KNOB_FLAG[$knob]=$opt; fi
    RB_KNOB_TYPE[$knob]=$type
    RB_KNOB_RANGE[$knob]=$range RB_KNOB_RTYPE[$knob]=$type RB_KNOB_FLAGS[$knob]=$flags
  done < "$file"
}

# rb_knob_flag KNOB: its rdma_bench flag ("" for the runner's own procs:
# client processes per point; a literal --long-option passes as it is).
# printf, not echo: echo would take iters' flag -n as its own option.
rb_knob_flag() {
  rb_knobs_load
  case $1 in
    procs) echo "" ;;
    --*) printf '%s\n' "$1" ;;
    *) [ -n "${RB_KNOB_FLAG[$1]:-}" ] || return 1; printf '%s\n' "${RB_KNOB_FLAG[$1]}" ;;
  esac
}
rb_known_knobs() {
  rb_knobs_load
  echo "${!RB_KNOB_FLAG[*]} procs" | tr ' ' '\n' | sort | tr '\n' ' ' | sed 's/ $//'
  echo
}

# rb_grid_write FILE: enumerate the cartesian product in GNU parallel's order
# (first knob outermost); one line per point: index, then name=value pairs.
rb_grid_write() {
  local out=$1 i
  local -a cur=("")
  for i in "${!RB_KNOB_NAMES[@]}"; do
    local -a next=()
    local c v pair names vals j
    for c in "${cur[@]}"; do
      for v in ${RB_KNOB_VALUES[i]}; do
        IFS=: read -r -a names <<< "${RB_KNOB_NAMES[i]}"
        IFS=: read -r -a vals <<< "$v"
        pair=""
        for j in "${!names[@]}"; do pair="$pair	${names[j]}=${vals[j]}"; done
        next+=("$c$pair")
      done
    done
    cur=("${next[@]}")
  done
  : > "$out"
  for i in "${!cur[@]}"; do printf '%d%s\n' "$((i + 1))" "${cur[i]}" >> "$out"; done
  # the same points as each knob's value (what the jobs get), one line each
  local -a args=("")
  for i in "${!RB_KNOB_NAMES[@]}"; do
    local -a nargs=()
    for c in "${args[@]}"; do
      for v in ${RB_KNOB_VALUES[i]}; do nargs+=("${c:+$c }$v"); done
    done
    args=("${nargs[@]}")
  done
  printf '%s\n' "${args[@]}" > "$out.args"
}

# rb_grid_expected GRID -> "TOTAL MAX": expected seconds of one pass over
# the grid (one repetition) and of its longest point. Per point: [run]
# point_s if given, else duration_s (2 if none) + overhead_s (default 1:
# the runner's own cost per job, as ci/harness-overhead measures it, plus
# process start and connection of the clients) + the point's QPs x
# qp_setup_ms (default 10: soft-RoCE's cost to create and connect a QP as
# `make bench` measures it; hardware's is far below). The defaults sit above
# the measured costs (experiments/README.md, "Measured costs") so that an
# estimate errs long: re-measure when the runner or the bed changes.
# QPs of a point: procs x threads x qps_per_thread x emulated_peers (or
# procs x qps).
rb_grid_expected() {
  # each point's time by rb_grid_point_s (sweep.sh), at full precision
  rb_grid_point_s "$1" %.17g |
    awk -F'\t' '{ t += $2; if ($2 > m) m = $2 } END { printf "%d %d\n", t + 0.5, m + 0.999 }'
}

# rb_params_dump: the effective parameters (after QUICK and --set), in the
# parameter file's own format; the run folder keeps them for --resume.
rb_params_dump() {
  local sec k i
  for sec in experiment roles run compare; do
    printf '[%s]\n' "$sec"
    for k in "${!RB_CONF[@]}"; do
      [ "${k%%.*}" = "$sec" ] || continue
      printf '%s = %s\n' "${k#*.}" "${RB_CONF[$k]}"
    done | sort
  done
  printf '[knobs]\n'
  for i in "${!RB_KNOB_NAMES[@]}"; do printf '%s = %s\n' "${RB_KNOB_NAMES[i]}" "${RB_KNOB_VALUES[i]}"; done
}
