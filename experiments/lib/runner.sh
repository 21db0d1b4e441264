# shellcheck shell=bash
# experiments/lib/runner.sh: the sweep runner shared by every experiment.
#
# Sourced by experiments/run (the whole run) and experiments/lib/point (one
# job of the sweep); it only defines functions. A run goes through these
# steps, in order, each one logged:
#
#   1. read    the experiment's parameter file and the hosts file; every
#              value must be a plain word (no shell metacharacters), so
#              nothing read from a file ever reaches a shell unchecked
#   2. check   env/check --json on every host, stored with the results;
#              a failing host stops the run
#   3. deploy  the rdma_bench binary to every host (GNU parallel over ssh,
#              `ssh HOST 'cat > FILE' < FILE`)
#   4. sweep   GNU parallel: the cartesian product (`:::`) of the knobs,
#              repetitions outermost, one job at a time (-j1: one point on
#              the NIC at a time), a timeout per job, a job log so that
#              --resume skips every finished job
#   5. merge   every process's rows into raw.csv, then aggregate per point
#              (sum over processes, median/min/max over repetitions) into
#              summary.csv
#
# One job (rb_point): start the server, wait until it says it listens,
# start every client process of the point at once, wait for them, stop the
# server; every process is stopped by the PID we got when we started it, on
# every exit path.
#
# Layout of a run folder, results/<experiment>/<run-id>/:
#   params hosts settings   copies the run was made with (--resume reads them)
#   grid.tsv                one line per point: index and knob values
#   env-<host>.json         env/check output per host
#   joblog                  GNU parallel's job log
#   points/<seq>/           logs and rows.csv of job <seq>
#   raw.csv summary.csv     all rows; one row per point
#   run.log                 everything printed

# Portable to the soft-RoCE VM (bash and busybox, no /dev/fd): no process
# substitution, POSIX awk only, short options of timeout.

# ---- messages ----------------------------------------------------------------
rb_log()  { printf '%s\n' "$*" >&2; [ -z "${RB_RUN_DIR:-}" ] || printf '%s\n' "$*" >> "$RB_RUN_DIR/run.log" 2>/dev/null || true; }
rb_warn() { rb_log "warning: $*"; }
rb_die()  { rb_log "error: $*"; exit 2; }

# ---- validation: nothing read from a file reaches a shell unchecked ------------
RB_WORD_RE='^[A-Za-z0-9._+-]+$'
RB_HOST_RE='^[A-Za-z0-9._:-]+$'
RB_USER_RE='^[A-Za-z_][A-Za-z0-9_.-]*$'

# rb_check_word VALUE WHAT: die unless VALUE is a plain word.
rb_check_word() {
  [[ $1 =~ $RB_WORD_RE ]] ||
    rb_die "$2: '$1' is not a plain word (letters, digits, . _ + - only); shell metacharacters are refused"
}

# rb_fmt_time SECONDS -> H:MM:SS or M:SS
rb_fmt_time() {
  local s=${1%.*}
  [ -n "$s" ] || s=0
  if [ "$s" -ge 3600 ]; then
    printf '%d:%02d:%02d' $((s / 3600)) $((s % 3600 / 60)) $((s % 60))
  else
    printf '%d:%02d' $((s / 60)) $((s % 60))
  fi
}

# ---- the parameter file ----------------------------------------------------------
# INI-like, read line by line (never sourced):
#   [experiment]  title, reproduces, figure ...      free text, for people
#   [roles]       server = N, clients = N M ...      hosts-file line numbers
#   [run]         repetitions, timeout_s, point_s, overhead_s, port,
#                 ready_timeout_s, ready_pattern
#   [knobs]       NAME = V1 V2 ...                   swept (cartesian product);
#                 A:B = a1:b1 a2:b2                  knobs swept together
#   [quick]       same keys as [knobs] or [run]; replaces them when QUICK=1
#   [compare]     tolerance and reference keys (read by experiments/compare)
# A knob name is a CSV column (mapped to its flag by rb_knob_flag), the
# runner's own `procs` (client processes per point), or a literal long
# option (--name) passed through as it is.
declare -gA RB_CONF=()
declare -ga RB_KNOB_NAMES=() RB_KNOB_VALUES=()

rb_params_load() {
  local file=$1 quick=${2:-0} section="" line key val n=0 i
  local -a qnames=() qvalues=()
  [ -r "$file" ] || rb_die "parameter file $file not found"
  RB_CONF=() RB_KNOB_NAMES=() RB_KNOB_VALUES=()
  while IFS= read -r line || [ -n "$line" ]; do
    n=$((n + 1))
    line=${line%%#*}
    line=$(printf '%s' "$line" | sed -e 's/^[[:space:]]*//' -e 's/[[:space:]]*$//')
    [ -n "$line" ] || continue
    if [[ $line =~ ^\[([a-z]+)\]$ ]]; then
      section=${BASH_REMATCH[1]}
      continue
    fi
    [[ $line == *=* ]] || rb_die "$file:$n: expected 'key = value' or '[section]', got '$line'"
    key=$(printf '%s' "${line%%=*}" | sed 's/[[:space:]]*$//')
    val=$(printf '%s' "${line#*=}" | sed 's/^[[:space:]]*//')
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
        for i in $val; do
          rb_check_word "${i//:/}" "$file:$n: value of $key"
          [ "$(rb_count_parts "$i")" = "$(rb_count_parts "$key")" ] ||
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
      rb_knob_flag "$part" > /dev/null || rb_die "$file: unknown knob '$part' (known: $(rb_known_knobs); or a literal --long-option)"
      all="$all $part"
    done
  done
}

rb_count_parts() { local s=${1//[^:]/}; echo $(( ${#s} + 1 )); }

# rb_known_setting SECTION [KEY]: is KEY a setting of [roles] or [run]?
# (without KEY: print the known ones)
rb_known_setting() {
  local known
  case $1 in
    roles) known="server clients" ;;
    run) known="repetitions timeout_s point_s overhead_s port ready ready_timeout_s ready_pattern" ;;
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

# The one table from knob (CSV column) to rdma_bench's flag.
rb_knob_flag() {
  case $1 in
    verb) echo --verb ;;             transport) echo --transport ;;
    test) echo --test ;;             size_bytes) echo -m ;;
    iters) echo -n ;;                duration_s) echo -D ;;
    postlist) echo -l ;;             signal_interval) echo --signal-interval ;;
    inline) echo --inline ;;         window) echo -w ;;
    qps) echo -q ;;                  threads) echo --threads ;;
    qps_per_thread) echo --qps-per-thread ;;
    emulated_peers) echo --emulated-peers ;;
    atomic_counters) echo --atomic-counters ;;
    stride_bytes) echo --stride ;;   access) echo --access ;;
    procs) echo "" ;;                # the runner's: client processes per point
    --*) echo "$1" ;;
    *) return 1 ;;
  esac
}
rb_known_knobs() {
  echo "verb transport test size_bytes iters duration_s postlist signal_interval inline window qps threads qps_per_thread emulated_peers atomic_counters stride_bytes access procs"
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
# the grid (one repetition) and of its longest point: [run] point_s if
# given, else the point's duration_s (2 if none) plus overhead_s (3).
rb_grid_expected() {
  awk -F'\t' -v p="$(rb_conf run.point_s "")" -v o="$(rb_conf run.overhead_s 3)" '
    { d = 2; for (i = 2; i <= NF; i++) if ($i ~ /^duration_s=/) d = substr($i, 12) + 0
      e = (p != "") ? p + 0 : int(d + o + 0.5); t += e; if (e > m) m = e }
    END { printf "%d %d\n", t, m }' "$1"
}

# ---- the hosts file ---------------------------------------------------------------
# One line per host: ADDRESS DEVICE [GID_INDEX] [NUMA_NODE] [USER]; '-' for
# an empty field; '#' starts a comment. key=value (gid= numa= user=) is also
# accepted after the device. ADDRESS localhost / 127.0.0.1 runs without ssh.
declare -ga RB_H_ADDR=() RB_H_DEV=() RB_H_GID=() RB_H_NUMA=() RB_H_USER=()

rb_hosts_load() {
  local file=$1 line n=0 addr dev f pos
  RB_H_ADDR=() RB_H_DEV=() RB_H_GID=() RB_H_NUMA=() RB_H_USER=()
  [ -r "$file" ] || rb_die "hosts file $file not found"
  while IFS= read -r line || [ -n "$line" ]; do
    n=$((n + 1))
    line=${line%%#*}
    read -r -a f <<< "$line"
    [ "${#f[@]}" -gt 0 ] || continue
    [ "${#f[@]}" -ge 2 ] || rb_die "$file:$n: need at least ADDRESS DEVICE"
    [ "${#f[@]}" -le 5 ] || rb_die "$file:$n: at most ADDRESS DEVICE GID NUMA USER"
    addr=${f[0]} dev=${f[1]}
    [[ $addr =~ $RB_HOST_RE ]] || rb_die "$file:$n: address '$addr' refused (letters, digits, . _ : - only)"
    [[ $dev =~ $RB_WORD_RE ]] || [ "$dev" = - ] || rb_die "$file:$n: device '$dev' is not a plain word"
    local gid=- numa=- user=-
    pos=2
    for f in "${f[@]:2}"; do
      case $f in
        gid=*) gid=${f#gid=} ;; numa=*) numa=${f#numa=} ;; user=*) user=${f#user=} ;;
        *) case $pos in 2) gid=$f ;; 3) numa=$f ;; 4) user=$f ;; esac ;;
      esac
      pos=$((pos + 1))
    done
    [[ $gid =~ ^([0-9]+|-)$ ]] || rb_die "$file:$n: GID index '$gid' is not a number"
    [[ $numa =~ ^([0-9]+|-)$ ]] || rb_die "$file:$n: NUMA node '$numa' is not a number"
    [[ $user =~ $RB_USER_RE ]] || [ "$user" = - ] || rb_die "$file:$n: user '$user' refused"
    RB_H_ADDR+=("$addr") RB_H_DEV+=("$dev") RB_H_GID+=("$gid") RB_H_NUMA+=("$numa") RB_H_USER+=("$user")
  done < "$file"
  [ "${#RB_H_ADDR[@]}" -gt 0 ] || rb_die "hosts file $file lists no host"
}

# rb_host_index N -> 0-based index of hosts-file host N (wraps: with one host,
# every role runs on it)
rb_host_index() { echo $(( ($1 - 1) % ${#RB_H_ADDR[@]} )); }
rb_host_is_local() { case ${RB_H_ADDR[$1]} in localhost|127.0.0.1|::1) return 0 ;; *) return 1 ;; esac; }
rb_host_target() {
  local h=$1
  if [ "${RB_H_USER[h]}" != - ]; then echo "${RB_H_USER[h]}@${RB_H_ADDR[h]}"; else echo "${RB_H_ADDR[h]}"; fi
}
rb_host_name() { echo "${RB_H_ADDR[$1]}"; }

# rb_ssh_argv: the ssh command as an array (RB_SSH from the VM bed, or ssh)
rb_ssh_argv() {
  read -r -a RB_SSH_ARGV <<< "${RB_SSH:-ssh -o BatchMode=yes -o ConnectTimeout=10}"
}

# rb_on HOST_INDEX WORD...: run a command on a host and wait for it. Every
# word was validated, so joining them for the remote shell is safe.
rb_on() {
  local h=$1; shift
  if rb_host_is_local "$h"; then
    "$@"
  else
    rb_ssh_argv
    "${RB_SSH_ARGV[@]}" "$(rb_host_target "$h")" "$*"
  fi
}

# rb_spawn HOST_INDEX LOG WORD...: start a command in the background. Sets
# RB_SPAWNED to "host:local_pid:remote_pid_file" and records it in RB_PROCS.
# Remote commands print their own PID first (the shell exec's into the
# program, keeping the PID), so they can be stopped by that PID.
declare -ga RB_PROCS=()
rb_spawn() {
  local h=$1 log=$2; shift 2
  if rb_host_is_local "$h"; then
    "$@" > "$log" 2>&1 < /dev/null &
  else
    rb_ssh_argv
    "${RB_SSH_ARGV[@]}" "$(rb_host_target "$h")" "echo RB_PID \$\$; exec $*" > "$log" 2>&1 < /dev/null &
  fi
  RB_SPAWNED="$h:$!:$log"
  RB_PROCS+=("$RB_SPAWNED")
  [ -z "${RB_PIDFILE:-}" ] || echo "$RB_SPAWNED" >> "$RB_PIDFILE"
}

# rb_alive PID: the process exists and is not a zombie waiting to be reaped
rb_alive() {
  kill -0 "$1" 2>/dev/null || return 1
  [ "$(sed -n 's/^State:[[:space:]]*\([A-Z]\).*/\1/p' "/proc/$1/status" 2>/dev/null)" != Z ]
}

# rb_stop "host:pid:log": stop one started process by its PID (remote: the
# PID it printed; local: ours), TERM first, KILL after a grace period.
rb_stop() {
  local h pid log rpid="" i
  IFS=: read -r h pid log <<< "$1"
  if ! rb_host_is_local "$h"; then
    rpid=$(sed -n 's/^RB_PID \([0-9][0-9]*\)$/\1/p' "$log" 2>/dev/null | head -n 1)
    if [ -n "$rpid" ] && rb_alive "$pid"; then
      rb_on "$h" kill -TERM "$rpid" > /dev/null 2>&1 || true
    fi
  fi
  if rb_alive "$pid"; then
    kill -TERM "$pid" 2>/dev/null || true
    for i in $(seq 50); do
      rb_alive "$pid" || break
      sleep 0.1
    done
    if rb_alive "$pid"; then
      [ -z "$rpid" ] || rb_on "$h" kill -KILL "$rpid" > /dev/null 2>&1 || true
      kill -KILL "$pid" 2>/dev/null || true
    fi
  fi
  wait "$pid" 2>/dev/null || true
}

# rb_reap_stale: before a resumed sweep, stop what an earlier, killed run of
# it left running: every PID recorded in points/*/pids that is still alive
# and still runs our binary (its command line names it; a reused PID does
# not), remote ones by the PID they printed. Nothing is stopped by name.
rb_reap_stale() {
  local f h pid log rpid base n=0
  base=$(basename "$RB_BIN")
  for f in "$RB_RUN_DIR"/points/*/pids; do
    [ -r "$f" ] || continue
    while IFS=: read -r h pid log; do
      [[ $h =~ ^[0-9]+$ && $pid =~ ^[0-9]+$ ]] || continue
      [ "$h" -lt "${#RB_H_ADDR[@]}" ] || continue
      if ! rb_host_is_local "$h"; then
        rpid=$(sed -n 's/^RB_PID \([0-9][0-9]*\)$/\1/p' "$log" 2>/dev/null | head -n 1)
        if [ -n "$rpid" ] && rb_on "$h" grep -q "$base" "/proc/$rpid/cmdline" > /dev/null 2>&1; then
          rb_on "$h" kill -KILL "$rpid" > /dev/null 2>&1 && n=$((n + 1))
        fi
      fi
      if kill -0 "$pid" 2>/dev/null && tr '\0' ' ' < "/proc/$pid/cmdline" 2>/dev/null | grep -q -F "$base"; then
        kill -KILL "$pid" 2>/dev/null && n=$((n + 1))
      fi
    done < "$f"
  done
  [ "$n" = 0 ] || rb_log "resume: stopped $n process(es) left running by the interrupted run (by their recorded PIDs)"
}

rb_stop_all() {
  local p
  for p in "${RB_PROCS[@]}"; do rb_stop "$p"; done
  RB_PROCS=()
}

# ---- step 2: environment check ----------------------------------------------------
# env/check --json on every host (remote hosts: env/check --host, which runs
# itself there over $RB_SSH), output stored as env-<host>.json. A host that
# fails stops the run unless RB_NO_ENV_CHECK=1 (--no-env-check), which is
# recorded. RB_ENV_CHECK names another checker (tests).
rb_env_check() {
  local check=${RB_ENV_CHECK:-$RB_ROOT/env/check} h name rc failed=0
  local -a dev
  if [ "${RB_NO_ENV_CHECK:-0}" = 1 ]; then
    rb_warn "environment check skipped by --no-env-check (recorded in env-check.txt)"
    echo "environment not checked: skipped by --no-env-check" > "$RB_RUN_DIR/env-check.txt"
    return 0
  fi
  if [ ! -x "$check" ]; then
    echo "environment not checked: $check is absent" > "$RB_RUN_DIR/env-check.txt"
    rb_die "$check is absent: cannot check the hosts (give --no-env-check to go on anyway; that is recorded with the results)"
  fi
  for h in "${!RB_H_ADDR[@]}"; do
    name=$(rb_host_name "$h")
    dev=()
    [ "${RB_H_DEV[h]}" = - ] || dev=(--device "${RB_H_DEV[h]}")
    rc=0
    if rb_host_is_local "$h"; then
      "$check" "${dev[@]}" --json > "$RB_RUN_DIR/env-$name.json" 2> "$RB_RUN_DIR/env-$name.err" || rc=$?
    else
      "$check" --host "$(rb_host_target "$h")" "${dev[@]}" --json > "$RB_RUN_DIR/env-$name.json" 2> "$RB_RUN_DIR/env-$name.err" || rc=$?
    fi
    if [ "$rc" = 0 ]; then
      rb_log "check: $name ok (env-$name.json)"
    else
      rb_log "check: $name FAILED (exit $rc; see $RB_RUN_DIR/env-$name.json and env-$name.err; the table: env/check${dev[*]:+ ${dev[*]}})"
      failed=1
    fi
  done
  echo "checked: see env-*.json" > "$RB_RUN_DIR/env-check.txt"
  [ "$failed" = 0 ] || rb_die "the environment check failed on a host; fix it, or give --no-env-check to go on anyway"
}

# ---- step 3: deploy -----------------------------------------------------------------
# Copies the binary to RB_REMOTE_DIR on every remote host, all hosts at once
# with GNU parallel; local hosts use the binary where it is.
rb_deploy() {
  local -a remote=() h
  for h in "${!RB_H_ADDR[@]}"; do rb_host_is_local "$h" || remote+=("$(rb_host_target "$h")"); done
  if [ "${#remote[@]}" = 0 ]; then
    rb_log "deploy: all hosts are local; using $RB_BIN"
    return 0
  fi
  rb_ssh_argv
  if ! rb_have_parallel; then
    for h in "${remote[@]}"; do
      "${RB_SSH_ARGV[@]}" "$h" "mkdir -p $RB_REMOTE_DIR && cat > $RB_REMOTE_DIR/rdma_bench && chmod +x $RB_REMOTE_DIR/rdma_bench && echo deployed" \
        < "$RB_BIN" >> "$RB_RUN_DIR/deploy.log" 2>&1 || rb_die "deploy to $h failed (see $RB_RUN_DIR/deploy.log)"
    done
    rb_log "deploy: $RB_BIN -> ${remote[*]}:$RB_REMOTE_DIR/rdma_bench (one host after the other: no GNU parallel)"
    return 0
  fi
  local ssh_q
  ssh_q=$(printf '%q ' "${RB_SSH_ARGV[@]}")
  # {} is a validated host word; parallel quotes it as well
  if ! parallel -j0 --tag --halt now,fail=1 \
      "$ssh_q {} 'mkdir -p $RB_REMOTE_DIR && cat > $RB_REMOTE_DIR/rdma_bench && chmod +x $RB_REMOTE_DIR/rdma_bench && echo deployed' < $(printf '%q' "$RB_BIN")" \
      ::: "${remote[@]}" >> "$RB_RUN_DIR/deploy.log" 2>&1; then
    rb_die "deploy failed (see $RB_RUN_DIR/deploy.log)"
  fi
  rb_log "deploy: $RB_BIN -> ${remote[*]}:$RB_REMOTE_DIR/rdma_bench"
}

# rb_bin_on HOST_INDEX -> path of the binary on that host
rb_bin_on() { if rb_host_is_local "$1"; then echo "$RB_BIN"; else echo "$RB_REMOTE_DIR/rdma_bench"; fi; }

# rb_dev_args HOST_INDEX -> -d DEV [-x GID] and the NUMA prefix (as words)
rb_dev_args() {
  local h=$1
  [ "${RB_H_DEV[h]}" = - ] || printf '%s\n' -d "${RB_H_DEV[h]}"
  [ "${RB_H_GID[h]}" = - ] || printf '%s\n' -x "${RB_H_GID[h]}"
}
rb_numa_prefix() {
  local h=$1
  [ "${RB_H_NUMA[h]}" = - ] || printf '%s\n' numactl "--cpunodebind=${RB_H_NUMA[h]}" "--membind=${RB_H_NUMA[h]}"
}

# ---- one job of the sweep -----------------------------------------------------------
# rb_server_ready HOST_INDEX LOG PORT: the server said it listens (a line
# matching ready_pattern), or (ready = port|any) its TCP port accepts.
rb_server_ready() {
  local h=$1 log=$2 port=$3 mode pattern addr
  mode=$(rb_conf run.ready any)
  pattern=$(rb_conf run.ready_pattern '[Ll]istening')
  if [ "$mode" != port ] && grep -q -e "$pattern" "$log" 2>/dev/null; then return 0; fi
  [ "$mode" != line ] || return 1
  addr=${RB_H_ADDR[h]}
  if rb_host_is_local "$h"; then addr=127.0.0.1; fi
  timeout 2 bash -c "exec 3<>/dev/tcp/$addr/$port" 2>/dev/null
}

# shellcheck disable=SC2153  # RB_RUN_ID is exported by experiments/run
# rb_point SEQ REP VALUE...: one job (RB_RUN_ID, RB_RUN_DIR, RB_EXP, RB_LIB,
# RB_BIN, RB_REMOTE_DIR and RB_SWEEP_T0 come from experiments/run); VALUEs in the order of RB_KNOB_NAMES.
# Writes points/SEQ/rows.csv (every client's rows plus the runner's columns
# exp_name exp_point exp_rep exp_procs exp_seq); a client that left no row
# gets a failed row naming why. Exit status 0 only if every client did.
rb_point() {
  local seq=$1 rep=$2; shift 2
  local npoints point pdir t0 name val i j
  npoints=$(wc -l < "$RB_RUN_DIR/grid.tsv")
  point=$(( (seq - 1) % npoints + 1 ))
  pdir="$RB_RUN_DIR/points/$seq"
  rm -rf "$pdir"
  mkdir -p "$pdir"
  t0=$EPOCHREALTIME
  RB_PROCS=()
  RB_PIDFILE="$pdir/pids"
  trap 'rb_stop_all' EXIT
  trap 'echo "terminated (point timeout or interrupt)" > "$pdir/reason"; exit 143' TERM INT HUP

  # knob values -> client flags
  local -a cargs=() names vals
  local procs=1 desc=""
  for i in "${!RB_KNOB_NAMES[@]}"; do
    IFS=: read -r -a names <<< "${RB_KNOB_NAMES[i]}"
    IFS=: read -r -a vals <<< "$1"
    shift
    for j in "${!names[@]}"; do
      name=${names[j]} val=${vals[j]}
      rb_check_word "$val" "value of $name"
      desc="$desc $name=$val"
      if [ "$name" = procs ]; then procs=$val; continue; fi
      cargs+=("$(rb_knob_flag "$name")" "$val")
    done
  done
  [[ $procs =~ ^[1-9][0-9]*$ ]] || rb_die "procs must be a positive number, got $procs"

  local rc=0 k
  rb_point_run || rc=$?

  # rows of this job, with the runner's columns, written atomically
  # a client that left no row: failed, or skipped when rdma_bench refused
  # the point's knobs up front (exit 2, "rdma_bench: error: ...")
  local -a files=() missing=()
  local crc refused
  for ((k = 0; k < procs; k++)); do
    crc=$(cat "$pdir/client-$k.rc" 2>/dev/null || echo '?')
    refused=$(grep -m 1 '^rdma_bench: error: ' "$pdir/client-$k.log" 2>/dev/null | tr -d ',"\n' || true)
    if [ -s "$pdir/client-$k.csv" ]; then
      files+=("$pdir/client-$k.csv")
    elif [ -f "$pdir/reason" ]; then
      missing+=("$k=failed=$(tr -d ',"\n' < "$pdir/reason")")
    elif [ "$crc" = 2 ] && [ -n "$refused" ]; then
      missing+=("$k=skipped=refused by ${refused#rdma_bench: error: }")
    else
      missing+=("$k=failed=client $k exited $crc without a row: $(tail -n 1 "$pdir/client-$k.log" 2>/dev/null | tr -d ',"\n')")
    fi
  done
  awk -f "$RB_LIB/csv.awk" -f "$RB_LIB/tag.awk" \
    -v exp_name="$RB_EXP" -v exp_point="$point" -v exp_rep="$rep" -v exp_procs="$procs" -v exp_seq="$seq" \
    -v run_id="$RB_RUN_ID" -v knobs="$desc" -v missing="$(printf '%s|' "${missing[@]}")" \
    "${files[@]}" < /dev/null > "$pdir/rows.tmp"
  mv "$pdir/rows.tmp" "$pdir/rows.csv"
  [ "${#missing[@]}" = 0 ] || rc=1
  local status=ok
  [ "$rc" = 0 ] || status=FAILED
  if [ "${#missing[@]}" -gt 0 ] && [ "${#files[@]}" = 0 ] && [[ " ${missing[*]}" != *"=failed="* ]]; then
    status="skipped (${missing[0]#*=skipped=})"
  fi

  # progress: job i/N, elapsed, ETA
  local now dt total elapsed done_n eta
  now=$EPOCHREALTIME
  total=$(cat "$RB_RUN_DIR/njobs")
  echo "$seq" >> "$RB_RUN_DIR/progress"
  done_n=$(wc -l < "$RB_RUN_DIR/progress")
  read -r dt elapsed eta <<< "$(awk -v t0="$t0" -v now="$now" -v s0="$RB_SWEEP_T0" -v d="$done_n" -v left=$((total - seq)) \
    'BEGIN { e = now - s0; printf "%.1f %d %d\n", now - t0, e, e / d * left }')"
  rb_log "[$RB_EXP] job $seq/$total (point $point/$npoints, rep $rep):$desc: $status in ${dt} s | elapsed $(rb_fmt_time "$elapsed") | ETA $(rb_fmt_time "$eta")"
  return "$rc"
}

# rb_point_run: the processes of one job (uses rb_point's locals)
rb_point_run() {
  local srv port ready_s
  srv=$(rb_host_index "$(rb_conf roles.server 1)")
  port=$(rb_conf run.port 18515)
  ready_s=$(rb_conf run.ready_timeout_s 20)

  # server first; wait (bounded) until it is ready
  local -a sargs
  mapfile -t sargs <<< "$(rb_numa_prefix "$srv"; rb_bin_on "$srv"; echo -s; echo -p; echo "$port"; rb_dev_args "$srv")"
  rb_spawn "$srv" "$pdir/server.log" "${sargs[@]}"
  local server_proc=$RB_SPAWNED server_pid=${RB_SPAWNED#*:}
  server_pid=${server_pid%%:*}
  local deadline=$(( $(date +%s) + ready_s ))
  until rb_server_ready "$srv" "$pdir/server.log" "$port"; do
    if ! rb_alive "$server_pid"; then
      echo "server exited before it was ready: $(tail -n 3 "$pdir/server.log" | tr '\n' ' ')" > "$pdir/reason"
      rb_log "job $seq: $(cat "$pdir/reason")"
      return 1
    fi
    if [ "$(date +%s)" -ge "$deadline" ]; then
      echo "server not ready within ${ready_s} s" > "$pdir/reason"
      rb_log "job $seq: $(cat "$pdir/reason") (log: $pdir/server.log)"
      return 1
    fi
    sleep 0.1
  done

  # every client process of the point at once
  local -a clients client_procs=() chosts=() ca
  read -r -a clients <<< "$(rb_conf roles.clients 2)"
  local saddr ch csv
  saddr=${RB_H_ADDR[srv]}
  if rb_host_is_local "$srv"; then saddr=127.0.0.1; fi
  for ((k = 0; k < procs; k++)); do
    ch=$(rb_host_index "${clients[k % ${#clients[@]}]}")
    if rb_host_is_local "$ch"; then csv="$pdir/client-$k.csv"; else csv="$RB_REMOTE_DIR/p$seq-k$k.csv"; fi
    mapfile -t ca <<< "$(rb_numa_prefix "$ch"; rb_bin_on "$ch"; echo -c; echo "$saddr"; echo -p; echo "$port"; rb_dev_args "$ch")"
    ca+=("${cargs[@]}" --run-id "$RB_RUN_ID" --proc-index "$k" --csv "$csv")
    rb_spawn "$ch" "$pdir/client-$k.log" "${ca[@]}"
    client_procs+=("$RB_SPAWNED") chosts+=("$ch")
  done
  local crc p cpid rc=0
  for k in "${!client_procs[@]}"; do
    p=${client_procs[k]#*:}
    cpid=${p%%:*}
    crc=0
    wait "$cpid" || crc=$?
    echo "$crc" > "$pdir/client-$k.rc"
    [ "$crc" = 0 ] || rc=1
    if ! rb_host_is_local "${chosts[k]}"; then
      rb_on "${chosts[k]}" cat "$RB_REMOTE_DIR/p$seq-k$k.csv" > "$pdir/client-$k.csv" 2>/dev/null || rm -f "$pdir/client-$k.csv"
      rb_on "${chosts[k]}" rm -f "$RB_REMOTE_DIR/p$seq-k$k.csv" > /dev/null 2>&1 || true
    fi
  done
  rb_stop "$server_proc"
  rb_stop_all
  return "$rc"
}

# ---- step 5: merge and aggregate -------------------------------------------------------
# rb_merge: raw.csv from every job's rows.csv (in job order); a job that
# the joblog shows as failed or killed without any rows gets one failed row.
rb_merge() {
  local files=() seq d
  while read -r seq; do
    [ -f "$RB_RUN_DIR/points/$seq/rows.csv" ] && files+=("$RB_RUN_DIR/points/$seq/rows.csv")
  done <<< "$(for d in "$RB_RUN_DIR"/points/*/; do [ -d "$d" ] && basename "$d"; done | sort -n)"
  # killed jobs without rows: a row from the joblog
  awk -f "$RB_LIB/csv.awk" -f "$RB_LIB/joblog_failed.awk" -v run_dir="$RB_RUN_DIR" \
    -v exp_name="$RB_EXP" -v run_id="$RB_RUN_ID" -v timeout_s="$(rb_timeout_s)" \
    "$RB_RUN_DIR/grid.tsv" "$RB_RUN_DIR/joblog" > "$RB_RUN_DIR/killed.csv"
  [ -s "$RB_RUN_DIR/killed.csv" ] && files+=("$RB_RUN_DIR/killed.csv")
  if [ "${#files[@]}" = 0 ]; then
    rb_warn "no rows at all"
    : > "$RB_RUN_DIR/raw.csv"
    return 0
  fi
  awk -f "$RB_LIB/csv.awk" -f "$RB_LIB/merge.awk" "${files[@]}" > "$RB_RUN_DIR/raw.csv"
}

rb_aggregate() {
  awk -f "$RB_LIB/csv.awk" -f "$RB_LIB/aggregate.awk" "$1" > "$2"
}

rb_timeout_s() {
  local t total max
  t=$(rb_conf run.timeout_s "")
  if [ -z "$t" ]; then
    read -r total max <<< "$(rb_grid_expected "$RB_RUN_DIR/grid.tsv")"
    t=$(( max * 3 + 30 ))
  fi
  echo "$t"
}

# rb_joblog_drop_interrupted TIMEOUT: before --resume, forget the jobs that
# were interrupted (stopped early by a signal, no rows written) so that they
# run again; a job that ran into its timeout stays failed and is not re-run.
rb_joblog_drop_interrupted() {
  local t=$1 seq
  awk -F'\t' -v t="$t" -v dir="$RB_RUN_DIR/points" '
    NR == 1 { print; next }
    {
      f = dir "/" $1 "/rows.csv"
      has = (getline x < f) > 0; close(f)
      if (($7 != 0 || $8 != 0) && !has && $4 + 1 < t) { print $1 > "/dev/stderr"; next }
      print
    }' "$RB_RUN_DIR/joblog" > "$RB_RUN_DIR/joblog.tmp" 2> "$RB_RUN_DIR/joblog.dropped"
  mv "$RB_RUN_DIR/joblog.tmp" "$RB_RUN_DIR/joblog"
  while read -r seq; do
    rb_log "resume: job $seq was interrupted; it runs again"
  done < "$RB_RUN_DIR/joblog.dropped"
}

# rb_have_parallel: GNU parallel is here (RB_NO_PARALLEL=1 pretends not)
rb_have_parallel() { [ "${RB_NO_PARALLEL:-0}" != 1 ] && command -v parallel > /dev/null; }

# rb_sweep_sequential TIMEOUT REPS: where GNU parallel is missing (the
# one-VM bed has perl but not parallel), the same jobs in the same order
# (repetitions outermost, {#} numbering), one at a time, each under
# `timeout`, written to a job log of parallel's format so that --resume
# works the same.
rb_sweep_sequential() {
  local t=$1 reps=$2 seq=0 rep args t0 t1 rc sig
  local log=$RB_RUN_DIR/joblog
  [ -s "$log" ] || printf 'Seq\tHost\tStarttime\tJobRuntime\tSend\tReceive\tExitval\tSignal\tCommand\n' > "$log"
  for ((rep = 1; rep <= reps; rep++)); do
    while IFS= read -r args; do
      seq=$((seq + 1))
      if awk -F'\t' -v s="$seq" 'NR > 1 && $1 == s { f = 1 } END { exit !f }' "$log"; then continue; fi
      t0=$EPOCHREALTIME
      rc=0
      # shellcheck disable=SC2086  # args: validated plain words, one per knob
      timeout -s TERM -k 10 "$t" "$RB_LIB/point" "$seq" "$rep" $args || rc=$?
      t1=$EPOCHREALTIME
      sig=0
      # killed at the timeout (GNU timeout: 124; busybox: the signal's 143, 137)
      case $rc in 124|137|143) rc=-1 sig=15 ;; esac
      awk -v s="$seq" -v a="$t0" -v b="$t1" -v rc="$rc" -v sig="$sig" -v cmd="point $seq $rep $args" \
        'BEGIN { printf "%d\t:\t%.3f\t%.3f\t0\t0\t%d\t%d\t%s\n", s, a, b - a, rc, sig, cmd }' >> "$log"
    done < "$RB_RUN_DIR/grid.tsv.args"
  done
}

# ---- step 4: the sweep -----------------------------------------------------------------
rb_sweep() {
  local reps npoints njobs timeout expected
  reps=$(rb_conf run.repetitions 3)
  [[ $reps =~ ^[1-9][0-9]*$ ]] || rb_die "repetitions must be a positive number, got $reps"
  rb_grid_write "$RB_RUN_DIR/grid.tsv"
  npoints=$(wc -l < "$RB_RUN_DIR/grid.tsv")
  njobs=$((npoints * reps))
  echo "$njobs" > "$RB_RUN_DIR/njobs"
  timeout=$(rb_timeout_s)
  read -r expected _ <<< "$(rb_grid_expected "$RB_RUN_DIR/grid.tsv")"
  expected=$((expected * reps))
  echo "$expected" > "$RB_RUN_DIR/expected_s"
  rb_log "sweep: $npoints points x $reps repetitions = $njobs jobs, one at a time; expected $(rb_fmt_time "$expected"); timeout ${timeout} s per job"

  local -a args=() repl=()
  local -a rep_list
  mapfile -t rep_list <<< "$(seq "$reps")"
  args=(::: "${rep_list[@]}")
  local i
  for i in "${!RB_KNOB_NAMES[@]}"; do
    # shellcheck disable=SC2206  # values are validated plain words
    args+=(::: ${RB_KNOB_VALUES[i]})
    repl+=("{$((i + 2))}")
  done
  local -a resume=()
  if [ -s "$RB_RUN_DIR/joblog" ] || [ -d "$RB_RUN_DIR/points" ]; then
    rb_reap_stale
  fi
  if [ -s "$RB_RUN_DIR/joblog" ]; then
    resume=(--resume)
    rb_joblog_drop_interrupted "$timeout"
  fi
  : > "$RB_RUN_DIR/progress"
  export RB_SWEEP_T0
  RB_SWEEP_T0=$EPOCHREALTIME
  local rc=0 t0
  t0=$(date +%s)
  if ! rb_have_parallel; then
    rb_log "sweep: GNU parallel is not installed here: the runner's own loop runs the same jobs, in the same order, with the same job log"
    rb_sweep_sequential "$timeout" "$reps"
  else
  # {#} is the job number: stable across --resume for the same grid
  parallel --joblog "$RB_RUN_DIR/joblog" "${resume[@]}" -j1 --ungroup \
    --timeout "$timeout" --termseq TERM,10000,KILL,25 --halt never \
    "$RB_LIB/point" '{#}' '{1}' "${repl[@]}" "${args[@]}" || rc=$?
  fi
  local actual=$(( $(date +%s) - t0 ))
  echo "$actual" > "$RB_RUN_DIR/actual_s"
  local failed
  failed=$(awk -F'\t' 'NR > 1 && ($7 != 0 || $8 != 0)' "$RB_RUN_DIR/joblog" | wc -l)
  rb_log "sweep: done in $(rb_fmt_time "$actual") (expected $(rb_fmt_time "$expected") for the whole grid); $failed failed job(s) in the job log"
  return 0
}

# ---- helpers for experiments/run ---------------------------------------------------------
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

# rb_active_device: "DEVICE PORT" of the first local RDMA port in state
# ACTIVE (from /sys/class/infiniband; RB_SYSFS_IB overrides the folder for
# tests); nothing and status 1 if there is none.
rb_active_device() {
  local sys=${RB_SYSFS_IB:-/sys/class/infiniband} st dev port
  for st in "$sys"/*/ports/*/state; do
    [ -r "$st" ] || continue
    if grep -q ACTIVE "$st"; then
      port=${st%/state}; port=${port##*/}
      dev=${st#"$sys"/}; dev=${dev%%/*}
      echo "$dev $port"
      return 0
    fi
  done
  return 1
}
