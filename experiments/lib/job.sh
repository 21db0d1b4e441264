# shellcheck shell=bash
# experiments/lib/job.sh: one job of the sweep: the server, then every client process of the point at once; their rows; the progress line.
# Sourced by runner.sh; functions only.

# ---- one job of the sweep -----------------------------------------------------------
# rb_stamp PHASE: "PHASE EPOCH_SECONDS" into points/SEQ/stamps (where the
# job's time went: ci/harness-overhead reads them)
rb_stamp() { [ -z "${RB_STAMPS:-}" ] || printf '%s %s\n' "$1" "$EPOCHREALTIME" >> "$RB_STAMPS"; }

# rb_server_ready HOST_INDEX LOG PORT [WAITED_S]: the server said it listens
# (a line matching ready_pattern), or (ready = port; ready = any after 2 s
# without the line) its TCP port accepts. The probe opens and closes a
# control connection, which rdma_bench logs as a session without HELLO: the
# line, when there is one, is the quiet way.
rb_server_ready() {
  local h=$1 log=$2 port=$3 waited=${4:-0} mode pattern addr
  mode=${RB_CONF[run.ready]:-any}
  pattern=${RB_CONF[run.ready_pattern]:-[Ll]istening}
  if [ "$mode" != port ] && grep -q -e "$pattern" "$log" 2>/dev/null; then return 0; fi
  [ "$mode" != line ] || return 1
  [ "$mode" = port ] || [ "$waited" -ge 2 ] || return 1
  addr=${RB_H_ADDR[h]}
  if rb_host_is_local "$h"; then addr=127.0.0.1; fi
  timeout 2 bash -c "exec 3<>/dev/tcp/$addr/$port" 2>/dev/null
}

# rb_point_outcomes PDIR PROCS: each client's CSV of the job in PDIR
# (RB_PT_FILES), and for a client that left no row its failed or skipped
# reason, "K=failed=WHY" or "K=skipped=WHY" (RB_PT_MISSING)
rb_point_outcomes() {
  # a client that left no row: failed, or skipped when rdma_bench refused
  # the point's knobs up front (exit 2, "rdma_bench: error: -OPTION ...";
  # a setup failure, such as no device or no server, has the same prefix
  # and exit status but names no option first: it stays a failure)
  local pdir=$1 procs=$2 k crc refused said
  RB_PT_FILES=() RB_PT_MISSING=()
  for ((k = 0; k < procs; k++)); do
    if [ -s "$pdir/client-$k.csv" ]; then
      RB_PT_FILES+=("$pdir/client-$k.csv")
      continue
    fi
    crc='?'
    { read -r crc < "$pdir/client-$k.rc"; } 2> /dev/null || true
    refused=$(grep -m 1 -E '^rdma_(bench|seq): error: -' "$pdir/client-$k.log" 2>/dev/null | tr -d ',"\n' || true)
    if [ -f "$pdir/skip" ]; then
      RB_PT_MISSING+=("$k=skipped=$(tr -d ',"\n' < "$pdir/skip")")
    elif [ -f "$pdir/reason" ]; then
      RB_PT_MISSING+=("$k=failed=$(tr -d ',"\n' < "$pdir/reason")")
    elif [ "$crc" = 2 ] && [ -n "$refused" ]; then
      RB_PT_MISSING+=("$k=skipped=refused by ${refused#*: error: }")
    elif [ "$crc" = 255 ] && [ -s "$pdir/client-$k.host" ] && ! rb_host_is_local "$(cat "$pdir/client-$k.host")"; then
      # ssh's own failure (exit 255), not the client's: name it, with ssh's
      # words where it left them, not the client's last INFO line
      RB_PT_MISSING+=("$k=failed=$(rb_ssh_failure "$(cat "$pdir/client-$k.host")" "$pdir/client-$k.log" "client $k" | tr -d ',"\n')")
    elif [ "${RB_LAUNCHER:-ssh}" = slurm ] && said=$(rb_slurm_failure "$pdir/client-$k.log" "client $k exited $crc without a row"); then
      # the Slurm launcher: the client's step was cancelled or killed
      RB_PT_MISSING+=("$k=failed=$(tr -d ',"\n' <<< "$said")")
    else
      RB_PT_MISSING+=("$k=failed=client $k exited $crc without a row: $(tail -n 1 "$pdir/client-$k.log" 2>/dev/null | tr -d ',"\n')")
    fi
  done
}

# rb_point_progress SEQ REP POINT POINTS NPOINTS T0 DESC STATUS: the job's
# progress line: job i/N, its time, elapsed, ETA
rb_point_progress() {
  # progress: job i/N, elapsed, ETA
  # (in this shell: microseconds from EPOCHREALTIME, no awk per job)
  local seq=$1 rep=$2 point=$3 points=$4 npoints=$5 t0=$6 desc=$7 status=$8
  local now dt total elapsed done_n eta us
  now=$EPOCHREALTIME
  read -r total < "$RB_RUN_DIR/njobs"
  echo "$seq" >> "$RB_RUN_DIR/progress"
  rb_count_lines done_n "$RB_RUN_DIR/progress"
  local now_us t0_us s0_us
  rb_usec_v now_us "$now"; rb_usec_v t0_us "$t0"; rb_usec_v s0_us "$RB_SWEEP_T0"
  us=$(( now_us - t0_us + 50000 ))
  printf -v dt '%d.%d' $(( us / 1000000 )) $(( us / 100000 % 10 ))
  elapsed=$(( (now_us - s0_us) / 1000000 ))
  eta=$(( (now_us - s0_us) / (done_n > 0 ? done_n : 1) * (total - seq) / 1000000 ))
  local pname="point $point/$npoints"
  [ "$points" = "$point" ] || pname="points ${points// /,}/$npoints"
  rb_log "[$RB_EXP] job $seq/$total ($pname, rep $rep):$desc: $status in ${dt} s | elapsed $(rb_fmt_time "$elapsed") | ETA $(rb_fmt_time "$eta")"
}

# shellcheck disable=SC2153  # RB_RUN_ID is exported by experiments/run
# rb_point SEQ REP VALUE...: one job (RB_RUN_ID, RB_RUN_DIR, RB_EXP, RB_LIB,
# RB_BIN and RB_SWEEP_T0 come from experiments/run; remote folders from rb_rdir); VALUEs in the order of RB_KNOB_NAMES.
# Writes points/SEQ/rows.csv (every client's rows plus the runner's columns
# exp_name exp_point exp_rep exp_procs exp_seq); a client that left no row
# gets a failed row naming why. Exit status 0 only if every client did.
# With [run] group_sizes (sweep.sh, rb_jobs_write) a job runs the points of
# its jobs.tsv line, which differ only in size_bytes: the size_bytes VALUE
# is their sizes joined by commas (one -m list, one client invocation per
# process), and each row gets the exp_point of its size.
rb_point() {
  local seq=$1 rep=$2; shift 2
  local npoints point pdir t0 jobs_rep job points sizemap="" size_list=0
  rb_count_lines npoints "$RB_RUN_DIR/grid.tsv"
  point=$(( (seq - 1) % npoints + 1 )) points=$point
  if [ -s "$RB_RUN_DIR/jobs.tsv" ]; then
    rb_count_lines jobs_rep "$RB_RUN_DIR/jobs.tsv"
    job=$(( (seq - 1) % jobs_rep + 1 ))
    points=$(awk -F'\t' -v j="$job" '$1 == j { print $2 }' "$RB_RUN_DIR/jobs.tsv")
    point=${points%% *}
    # "SIZE=POINT ..." for rbcsv.py tag, from the grid's size_bytes of each point
    sizemap=$(awk -F'\t' -v pts=" $points " 'index(pts, " " $1 " ") {
        for (i = 2; i <= NF; i++) if ($i ~ /^size_bytes=/) printf "%s=%s ", substr($i, 12), $1 }' "$RB_RUN_DIR/grid.tsv")
  fi
  # the sweep was stopped (a host unreachable: rb_unreachable_track): this
  # job does not run; it leaves no rows and runs on --resume
  if [ -s "$RB_RUN_DIR/halt" ]; then return 75; fi
  pdir="$RB_RUN_DIR/points/$seq"
  [ ! -e "$pdir" ] || rm -rf "$pdir"
  mkdir -p "$pdir"
  t0=$EPOCHREALTIME
  RB_STAMPS="$pdir/stamps"
  rb_stamp start
  # what rb_spawn records and rb_stop_all stops (hosts.sh)
  # shellcheck disable=SC2034
  RB_PROCS=() RB_PIDFILE="$pdir/pids"
  RB_HOOK_PENDING=() RB_HOOK_ARGS=() RB_HOOK_DIR=$pdir RB_HOOK_SEQ=$seq
  trap 'rb_hook_teardown; rb_stop_all' EXIT
  trap 'echo "terminated (point timeout or interrupt)" > "$pdir/reason"; exit 143' TERM INT HUP

  # knob values -> client flags (a size list with group_sizes)
  [ -z "$sizemap" ] || size_list=1
  rb_job_flags "$size_list" "$@"
  local -a cargs=("${RB_JOB_FLAGS[@]}")
  local procs=$RB_JOB_PROCS desc=$RB_JOB_DESC
  # the rows' rep is the runner's repetition number (exp_rep)
  cargs+=(--rep-first "$rep")

  local rc=0 k
  rb_point_run || rc=$?
  rb_stamp stopped

  # rows of this job, with the runner's columns, written atomically
  local -a files=() missing=()
  rb_point_outcomes "$pdir" "$procs"
  files=("${RB_PT_FILES[@]}") missing=("${RB_PT_MISSING[@]}")
  rb_unreachable_track "$pdir" "$procs"
  # the hook's knobs and what its teardown reported: columns of every row
  local extra="${RB_HOOK_ARGS[*]}"
  # every host's load before and after the point (manifest.sh)
  if [ -s "$pdir/load.cols" ]; then
    local -a lc
    mapfile -t lc < "$pdir/load.cols"
    extra="$extra ${lc[*]} "
  fi
  [ ! -s "$pdir/hook.cols" ] || extra="$extra $(awk -F= '
    !($1 in v) { o[++n] = $1; v[$1] = $2; next }
    v[$1] ~ /^[0-9]+(\.[0-9]*)?$/ && $2 ~ /^[0-9]+(\.[0-9]*)?$/ { v[$1] += $2 }
    END { for (i = 1; i <= n; i++) printf "%s=%s ", o[i], v[o[i]] }' "$pdir/hook.cols")"
  "$RB_PY" -S "$RB_LIB/rbcsv.py" tag \
    -v exp_name="$RB_EXP" -v exp_point="$point" -v exp_rep="$rep" -v exp_procs="$procs" -v exp_seq="$seq" \
    -v run_id="$RB_RUN_ID" -v knobs="$desc" -v missing="$(printf '%s\037' "${missing[@]}")" -v extra="$extra" \
    -v size_points="$sizemap" -v procs="$procs" \
    "${files[@]}" < /dev/null > "$pdir/rows.tmp"
  mv "$pdir/rows.tmp" "$pdir/rows.csv"
  rb_stamp rows
  [ "${#missing[@]}" = 0 ] || rc=1
  local status=ok
  [ "$rc" = 0 ] || status=FAILED
  if [ "${#missing[@]}" -gt 0 ] && [ "${#files[@]}" = 0 ] && [[ " ${missing[*]}" != *"=failed="* ]]; then
    status="skipped (${missing[0]#*=skipped=})"
  fi

  rb_point_progress "$seq" "$rep" "$point" "$points" "$npoints" "$t0" "$desc" "$status"
  return "$rc"
}

# rb_ssh_failure HOST_INDEX LOG WHO: the reason of a process on a remote
# host whose ssh ended with 255 (ssh's own failure: the host unreachable,
# the connection refused or broken mid-session), with ssh's own line from
# LOG when it left one ("ssh: connect to host vm2 port 22: No route to host")
rb_ssh_failure() {
  local h=$1 log=$2 who=$3 said
  said=$(grep -m 1 -E '^(ssh: |ssh_exchange|kex_exchange|Connection (to|closed|reset|timed)|client_loop: |Timeout, server|packet_write|Read from remote)' "$log" 2> /dev/null || true)
  echo "$who: ssh to $(rb_host_name "$h") failed (exit 255: host unreachable or connection lost)${said:+: $said}"
}

# rb_unreachable_track PDIR PROCS: after a job, per client host of it: a job
# in which every ssh session to that host ended with 255 (rb_ssh_failure)
# counts one more in a row ($RB_RUN_DIR/unreachable/HOST_INDEX), and marks
# the job (PDIR/unreachable: --resume runs it again, sweep.sh); a job where
# the host answered resets the count. After [run] unreachable_jobs (default
# 2) such jobs in a row the host gets one more chance (a plain `true` over
# ssh, 20 s at most); if it does not answer either, $RB_RUN_DIR/halt says
# why and every later job of the sweep returns at once (rb_point), so that
# experiments/run stops with the finished rows kept, resumable.
rb_unreachable_track() {
  local pdir=$1 procs=$2 k h crc limit n
  local -A bad=() good=() badlog=()
  for ((k = 0; k < procs; k++)); do
    [ -s "$pdir/client-$k.host" ] || continue
    read -r h < "$pdir/client-$k.host"
    rb_host_is_local "$h" && continue
    crc='?'
    { read -r crc < "$pdir/client-$k.rc"; } 2> /dev/null || true
    if [ "$crc" = 255 ]; then bad[$h]=1 badlog[$h]=$pdir/client-$k.log; else good[$h]=1; fi
  done
  limit=${RB_CONF[run.unreachable_jobs]:-2}
  [[ $limit =~ ^[1-9][0-9]*$ ]] || rb_die "[run] unreachable_jobs = $limit: a positive number of jobs"
  # only remote hosts are tracked: a local sweep makes no folder
  [ "${#good[@]}${#bad[@]}" = 00 ] || [ -d "$RB_RUN_DIR/unreachable" ] || mkdir -p "$RB_RUN_DIR/unreachable"
  for h in "${!good[@]}"; do [ ! -e "$RB_RUN_DIR/unreachable/$h" ] || rm -f "$RB_RUN_DIR/unreachable/$h"; done
  for h in "${!bad[@]}"; do
    [ -z "${good[$h]:-}" ] || continue
    : > "$pdir/unreachable"
    n=$(( $(cat "$RB_RUN_DIR/unreachable/$h" 2> /dev/null || echo 0) + 1 ))
    echo "$n" > "$RB_RUN_DIR/unreachable/$h"
    [ "$n" -ge "$limit" ] || continue
    rb_ssh_argv
    if timeout -k 5 20 "${RB_SSH_ARGV[@]}" "$(rb_host_target "$h")" true < /dev/null > /dev/null 2>&1; then
      rb_log "job $seq: $(rb_host_name "$h") failed ssh in $n jobs in a row but answers now: the sweep goes on"
      rm -f "$RB_RUN_DIR/unreachable/$h"
      continue
    fi
    echo "$(rb_host_name "$h") did not answer ssh in $n jobs in a row nor at a check after them ($(rb_ssh_failure "$h" "${badlog[$h]}" "job $seq"))" > "$RB_RUN_DIR/halt"
  done
}

# rb_job_flags SIZE_LIST VALUE...: one job's knob values (in RB_KNOB_NAMES
# order, a:b knobs as "a:b") as the client's flags in RB_JOB_FLAGS (procs
# and the hook's knobs left out: procs into RB_JOB_PROCS, the hook's
# "name=value" into RB_HOOK_ARGS), "name=value ..." into
# RB_JOB_DESC. Every value is checked as one word (rb_check_word); with
# SIZE_LIST 1 (group_sizes) size_bytes may be a comma list. The knob table
# is loaded once in this shell (rb_knob_flag inside $(...) would read
# lib/knobs.tsv again per knob). Used by every job and by the dry run's
# check of each job (rb_dry_check).
rb_job_flags() {
  local size_list=$1 i j name val flag; shift
  local -a names vals
  RB_JOB_FLAGS=() RB_JOB_PROCS=1 RB_JOB_DESC="" RB_HOOK_ARGS=()
  rb_knobs_load
  for i in "${!RB_KNOB_NAMES[@]}"; do
    IFS=: read -r -a names <<< "${RB_KNOB_NAMES[i]}"
    IFS=: read -r -a vals <<< "$1"
    shift
    for j in "${!names[@]}"; do
      name=${names[j]} val=${vals[j]}
      if [ "$size_list" = 1 ] && [ "$name" = size_bytes ]; then
        rb_check_word "${val//,/}" "value of $name"
      else
        rb_check_word "$val" "value of $name"
      fi
      RB_JOB_DESC="$RB_JOB_DESC $name=$val"
      if [ "$name" = procs ]; then RB_JOB_PROCS=$val; continue; fi
      if rb_is_hook_knob "$name"; then RB_HOOK_ARGS+=("$name=$val"); continue; fi
      case $name in --*) flag=$name ;; *) flag=${RB_KNOB_FLAG[$name]:-} ;; esac
      [ -n "$flag" ] || rb_die "knob $name has no rdma_bench flag (lib/knobs.tsv)"
      RB_JOB_FLAGS+=("$flag" "$val")
    done
  done
  [[ $RB_JOB_PROCS =~ ^[1-9][0-9]*$ ]] || rb_die "procs must be a positive number, got $RB_JOB_PROCS"
}

# rb_dry_check: the dry run asks the binary (rdma_bench --dry-run, which
# checks the options as a run does, touching no device) about each job of
# grid.tsv.args: prints "job J (KNOBS): refused: REASON" per job it would
# refuse (a run marks those points skipped), then how many; status 0 when
# some job would run (or the binary has no --dry-run: another [run] bin,
# or an older build), 1 when it refuses every job. RB_DRY_CHECK=0 asks
# the binary nothing and says so (experiments/readme-facts: it reads only
# the grid line, and asking costs one process per job of 40 dry runs).
rb_dry_check() {
  local line n=0 nbad=0 out size_list=0
  local -a vals
  if [ "${RB_DRY_CHECK:-1}" = 0 ]; then
    rb_log "dry run: the jobs' options are not checked (RB_DRY_CHECK=0)"
    return 0
  fi
  [ -x "$RB_BIN" ] || { rb_log "dry run: no binary at $RB_BIN: the jobs' options are not checked (make)"; return 0; }
  # (its --list-knobs table, one option a line, first field the option)
  "$RB_BIN" --list-knobs 2> /dev/null | grep $'^--dry-run\t' > /dev/null ||
    { rb_log "dry run: $(basename "$RB_BIN") has no --dry-run: the jobs' options are not checked"; return 0; }
  [ ! -s "$RB_RUN_DIR/jobs.tsv" ] || size_list=1
  while IFS= read -r line; do
    n=$((n + 1))
    read -r -a vals <<< "$line"
    rb_job_flags "$size_list" "${vals[@]}"
    if ! out=$("$RB_BIN" -c 127.0.0.1 "${RB_JOB_FLAGS[@]}" --dry-run 2>&1 < /dev/null); then
      nbad=$((nbad + 1))
      rb_log "dry run: job $n (${RB_JOB_DESC# }): refused: ${out#*: error: }"
    fi
  done < "$RB_RUN_DIR/grid.tsv.args"
  if [ "$nbad" = 0 ]; then
    rb_log "dry run: $(basename "$RB_BIN") --dry-run accepts the options of all $n job(s) of a repetition"
    return 0
  fi
  rb_log "dry run: $(basename "$RB_BIN") refuses the options of $nbad of $n job(s) (a run marks their points skipped, with the reason)"
  [ "$nbad" -lt "$n" ]
}

# rb_point_run: the processes of one job (uses rb_point's locals)
rb_point_run() {
  local srv port server_proc server_pid slog own=1 log_fd="" part=""
  rb_host_index_v srv "${RB_CONF[roles.server]:-1}"
  port=${RB_CONF[run.port]:-18515}

  # the server: the sweep's (server_scope = sweep, the default: started by
  # experiments/run before the first job, see rb_shared_server_start) if it
  # still runs; else the job's own, started here and stopped at its end
  if rb_shared_server_v server_proc; then
    own=0
    slog=${server_proc#*:*:}
    # the job's part of its log: what follows its end now (a descriptor
    # read to the end, read on at the job's end: no stat and tail per job)
    { exec {log_fd}< "$slog"; } 2> /dev/null || log_fd=""
    [ -z "$log_fd" ] || IFS= read -r -d '' -u "$log_fd" _ || true
  else
    slog=$pdir/server.log
    rb_server_start "$srv" "$port" "$slog" "$pdir/reason" || { rb_log "job $seq: $(cat "$pdir/reason")"; return 1; }
    server_proc=$RB_SPAWNED
  fi
  server_pid=${server_proc#*:}
  server_pid=${server_pid%%:*}
  rb_stamp server_ready

  # the hook's setup ([run] hook) on its hosts; a skip or a failure ends
  # the job before any client starts
  rb_hook_setup "$procs" || return 1
  # every host's load average (manifest.sh)
  rb_load_sample before "$pdir"

  # every client process of the point at once
  local -a clients client_procs=() chosts=() ca
  read -r -a clients <<< "$(rb_client_hosts)"
  local saddr ch csv rd tok
  saddr=${RB_H_ADDR[srv]}
  if rb_host_is_local "$srv"; then saddr=127.0.0.1; fi
  # the job's run id for rdma_bench (the server sums the receives of a run
  # id: one per job, as one server serves many jobs); at most 64 bytes
  local rid="$RB_RUN_ID-j$seq"
  [ "${#rid}" -le 64 ] || rid=${RB_RUN_ID:0:$((63 - ${#seq}))}j$seq
  for ((k = 0; k < procs; k++)); do
    rb_host_index_v ch "${clients[k % ${#clients[@]}]}"
    if rb_host_is_local "$ch"; then
      csv="$pdir/client-$k.csv" tok=$RB_RUN_DIR/token
    else
      rb_rdir_v rd "$ch" || rd=""
      csv="$rd/p$seq-k$k.csv" tok=$rd/token
    fi
    rb_argv_v ca "$ch" -c "$saddr" -p "$port"
    # --procs: with more than one process, the server's start barrier
    # (per run id) lets them all start and end their windows together
    ca+=("${cargs[@]}" --run-id "$rid" --proc-index "$k" --procs "$procs" --csv "$csv" --token-file "$tok")
    rb_spawn_rows "$ch" "$pdir/client-$k.log" "$csv" "${ca[@]}"
    client_procs+=("$RB_SPAWNED") chosts+=("$ch")
    echo "$ch" > "$pdir/client-$k.host"
  done
  rb_stamp clients_started
  local crc p cpid rc=0
  for k in "${!client_procs[@]}"; do
    p=${client_procs[k]#*:}
    cpid=${p%%:*}
    crc=0
    wait "$cpid" || crc=$?
    echo "$crc" > "$pdir/client-$k.rc"
    [ "$crc" = 0 ] || rc=1
    rb_stamp "client_${k}_done"
    if ! rb_host_is_local "${chosts[k]}" && ! rb_rows_split "$pdir/client-$k.log" "$pdir/client-$k.csv"; then
      # the rows did not come back with the process (its ssh session
      # broke): one remote call fetches them, then the file is removed
      # (once more if the call itself failed; what it said is kept in
      # client-K.collect)
      local try rcsv
      for try in 1 2; do
        rcsv=$(rb_rdir "${chosts[k]}")/p$seq-k$k.csv
        if rb_on "${chosts[k]}" cat "$rcsv" '&&' rm -f "$rcsv" \
             > "$pdir/client-$k.csv" 2>> "$pdir/client-$k.collect" < /dev/null; then
          break
        fi
        echo "collect try $try failed" >> "$pdir/client-$k.collect"
        rm -f "$pdir/client-$k.csv"
      done
    fi
  done
  rb_stamp clients_collected
  rb_load_sample after "$pdir"
  rb_hook_teardown
  if [ "$own" = 1 ]; then
    rb_stop "$server_proc"
  else
    # this job's part of the sweep server's log, beside its other logs
    # (all of it if it could not be opened at the job's start)
    [ -n "$log_fd" ] || { exec {log_fd}< "$slog"; } 2> /dev/null || log_fd=""
    [ -z "$log_fd" ] || IFS= read -r -d '' -u "$log_fd" part || true
    printf '%s' "$part" > "$pdir/server.log" 2> /dev/null || true
    [ -z "$log_fd" ] || exec {log_fd}<&-
  fi
  rb_stop_all
  return "$rc"
}

# rb_spawn_rows HOST_INDEX LOG CSV CMD...: rb_spawn for a client process
# that writes its rows to CSV on its host. On a remote host the same ssh
# session brings them back when the process ends (a line RB_ROWS, then the
# file, which is then removed there), so no second round trip fetches them
# (an ssh session per job: experiments/README.md, "Measured costs");
# rb_rows_split takes them out of LOG.
# RB_PID is the client process itself, not the shell around it, so rb_stop
# and rb_reap_pidfile stop the client; the exit status is the client's.
rb_spawn_rows() {
  local h=$1 log=$2 csv=$3; shift 3
  if rb_host_is_local "$h"; then
    rb_spawn "$h" "$log" "$@"
    return
  fi
  rb_ssh_argv
  "${RB_SSH_ARGV[@]}" "$(rb_host_target "$h")" \
    "exec 2>&1; $* & echo RB_PID \$!; wait \$!; rc=\$?; echo RB_ROWS; cat $csv 2> /dev/null; rm -f $csv; exit \$rc" \
    > "$log" 2>&1 < /dev/null &
  RB_SPAWNED="$h:$!:$log"
  RB_PROCS+=("$RB_SPAWNED")
  [ -z "${RB_PIDFILE:-}" ] || echo "$RB_SPAWNED" >> "$RB_PIDFILE"
}

# rb_rows_split LOG CSV: the rows after the RB_ROWS line of LOG (written
# by rb_spawn_rows's session) into CSV, the lines before it kept in LOG;
# status 1 (LOG unchanged) if LOG has no RB_ROWS line
rb_rows_split() {
  local log=$1 csv=$2
  grep -q -x RB_ROWS "$log" 2> /dev/null || return 1
  awk -v csv="$csv" -v rest="$log.tmp" 'BEGIN { printf "" > rest } f { print > csv; next } $0 == "RB_ROWS" { f = 1; next } { print > rest }
    END { if (!f) exit 1; close(csv); printf "" >> csv }' "$log" &&
    mv "$log.tmp" "$log"
}

# rb_server_start HOST_INDEX PORT LOG REASON_FILE: start rdma_bench -s on
# the host and wait (bounded: [run] ready_timeout_s, 20 s) until it is
# ready; RB_SPAWNED names it (rb_spawn). Status 1 with the reason written
# to REASON_FILE if it exits first or is not ready in time (then it is
# stopped).
rb_server_start() {
  local srv=$1 port=$2 slog=$3 why=$4 ready_s pid deadline
  ready_s=${RB_CONF[run.ready_timeout_s]:-20}
  local -a sargs
  rb_argv_v sargs "$srv" -s -p "$port"
  # only the run's clients: its address alone, and the run's token
  sargs+=(--bind "$(rb_bind_addr "$srv")" --token-file "$(rb_token_on "$srv")")
  rb_spawn "$srv" "$slog" "${sargs[@]}"
  pid=${RB_SPAWNED#*:}
  pid=${pid%%:*}
  local t0
  t0=$EPOCHSECONDS
  deadline=$(( t0 + ready_s ))
  until rb_server_ready "$srv" "$slog" "$port" $(( EPOCHSECONDS - t0 )); do
    if ! rb_alive "$pid"; then
      echo "server exited before it was ready: $(tail -n 3 "$slog" | tr '\n' ' ')" > "$why"
      return 1
    fi
    if [ "$EPOCHSECONDS" -ge "$deadline" ]; then
      echo "server not ready within ${ready_s} s (log: $slog)" > "$why"
      rb_stop "$RB_SPAWNED"
      return 1
    fi
    sleep 0.02
  done
  return 0
}

# ---- the sweep's server ([run] server_scope = sweep) ----------------------------------
# One rdma_bench server serves every job of the sweep: starting and stopping
# a server costs a process start, the device open and an ssh session each
# way, per job (experiments/README.md, "Measured costs"). experiments/run starts it (so
# it stays that process's child), jobs only use it; sessions are
# independent on the server (a client that fails or is killed ends only its
# own session), so a failed job does not stop it. If it dies, each later
# job starts and stops a server of its own, as with server_scope = point.
# $RB_RUN_DIR/server.proc: its "host:pid:log" and the start time of that
# PID (/proc/PID/stat field 22), so a reused PID is never taken for it;
# $RB_RUN_DIR/pids too, for rb_reap_stale after a killed run.

# rb_proc_start_time PID -> the process's start time in clock ticks
rb_proc_start_time() { local t; rb_proc_start_time_v t "$1" && echo "$t"; }
# rb_proc_start_time_v VAR PID: the same into VAR (empty, status 1, if the
# process is gone), read in this shell: every job looks at the sweep's server
rb_proc_start_time_v() {
  local line
  local -a fields
  printf -v "$1" '%s' ""
  { read -r line < "/proc/$2/stat"; } 2> /dev/null || return 1
  # fields after the command name "(...)", which may hold spaces: the 22nd
  # field of the line is the 20th after it
  read -r -a fields <<< "${line##*) }"
  printf -v "$1" '%s' "${fields[19]:-}"
}

# rb_shared_server_start: before the sweep (scope sweep only); a server that
# does not get ready is only a warning: the jobs then start their own and
# fail with the reason
# shellcheck disable=SC2034  # RB_PROCS, RB_PIDFILE: read by rb_spawn (hosts.sh)
rb_shared_server_start() {
  local srv port pid
  [ "${RB_CONF[run.server_scope]:-sweep}" = sweep ] || return 0
  rm -f "$RB_RUN_DIR/server.proc"
  # a resumed sweep with no job left needs no server
  [ "$(awk -F'\t' 'NR > 1 && !d[$1]++ { n++ } END { print n + 0 }' "$RB_RUN_DIR/joblog" 2> /dev/null || echo 0)" -lt \
    "$(cat "$RB_RUN_DIR/njobs")" ] || return 0
  srv=$(rb_host_index "${RB_CONF[roles.server]:-1}")
  port=${RB_CONF[run.port]:-18515}
  RB_PROCS=() RB_PIDFILE=$RB_RUN_DIR/pids
  if ! rb_server_start "$srv" "$port" "$RB_RUN_DIR/server.log" "$RB_RUN_DIR/server.reason"; then
    rb_warn "the sweep's server: $(cat "$RB_RUN_DIR/server.reason"); each job starts its own"
    RB_PROCS=()
    return 0
  fi
  pid=${RB_SPAWNED#*:}
  pid=${pid%%:*}
  printf '%s\n%s\n' "$RB_SPAWNED" "$(rb_proc_start_time "$pid")" > "$RB_RUN_DIR/server.proc"
  RB_PROCS=()
  rb_log "sweep: one server for the jobs on $(rb_host_name "$srv") port $port (pid $pid; log $RB_RUN_DIR/server.log)"
}

# rb_shared_server_get: print the sweep's server ("host:pid:log") if it
# still runs; status 1 if there is none
rb_shared_server_get() { local p; rb_shared_server_v p && echo "$p"; }
# rb_shared_server_v VAR: the same into VAR, in this shell (every job asks)
rb_shared_server_v() {
  local f=$RB_RUN_DIR/server.proc proc st="" pid now
  printf -v "$1" '%s' ""
  [ -r "$f" ] || return 1
  { read -r proc; read -r st; } < "$f" || true
  pid=${proc#*:}
  pid=${pid%%:*}
  [[ $pid =~ ^[0-9]+$ ]] && [ -n "$st" ] && rb_alive "$pid" || return 1
  rb_proc_start_time_v now "$pid" && [ "$now" = "$st" ] || return 1
  printf -v "$1" '%s' "$proc"
}

# rb_shared_server_stop: after the sweep (and on every way out of
# experiments/run), stop the sweep's server by its PID
rb_shared_server_stop() {
  local proc
  [ -n "${RB_RUN_DIR:-}" ] && [ -r "$RB_RUN_DIR/server.proc" ] || return 0
  if proc=$(rb_shared_server_get); then
    rb_stop "$proc"
  else
    # (an interrupt stops it with the rest of the process group: no news)
    [ "${RB_INTERRUPTED:-0}" = 1 ] || rb_warn "the sweep's server had stopped before the end of the sweep (log: $RB_RUN_DIR/server.log)"
    # its ssh may be gone while the server still runs there
    [ ! -r "$RB_RUN_DIR/pids" ] || rb_reap_pidfile "$RB_RUN_DIR/pids" > /dev/null
  fi
  rm -f "$RB_RUN_DIR/server.proc"
  return 0
}

# ---- the per-point hook ([run] hook) -------------------------------------------------
# An experiment may name an executable file of its folder as its hook
# ([run] hook = FILE). The runner copies it into the run folder (`hook`),
# and beside the binary on every remote host, and runs it on the hosts of
# [run] hook_roles (client: each host of the point's client processes;
# server: the server's host; default client) as
#   hook PHASE role=ROLE device=DEV server_here=0|1 state=FILE KNOB=VALUE...
# PHASE setup: after the server is ready, before any client starts;
# teardown: when the clients are done, before the server is stopped, and on
# every other way out of the job (timeout, interrupt, failed setup of
# another host); clean: before and after the sweep, to undo what an
# interrupted run may have left. DEV is the host's device from the hosts
# file (- if none); server_here=1 when the host also serves; state is a file
# private to the point and role; KNOB=VALUE are the point's values of the
# knobs named in [run] hook_knobs (never given to rdma_bench; columns of
# the rows). A setup that exits 2 skips the point with the last line the
# hook wrote to stderr as the reason; any other non-zero exit fails it.
# Lines NAME=VALUE (NAME a-z0-9_, VALUE a plain word) that teardown prints
# on stdout become columns of the point's rows (the numbers of several
# client hosts are added up). Everything the hook prints is in
# points/SEQ/hook.log.
declare -ga RB_HOOK_PENDING=() RB_HOOK_ARGS=()

rb_hook_path() { if rb_host_is_local "$1"; then echo "$RB_RUN_DIR/hook"; else echo "$(rb_rdir "$1")/hook"; fi; }

# rb_hook_targets NPROCS: "host_index:role" of the hook's calls, one per
# host and role (client: the hosts of the first NPROCS client processes)
rb_hook_targets() {
  local n=$1 r h k seen=" "
  local -a clients
  [ -n "${RB_CONF[run.hook]:-}" ] || return 0
  for r in ${RB_CONF[run.hook_roles]:-client}; do
    if [ "$r" = server ]; then echo "$(rb_host_index "${RB_CONF[roles.server]:-1}"):server"; continue; fi
    read -r -a clients <<< "$(rb_client_hosts)"
    for ((k = 0; k < n && k < ${#clients[@]}; k++)); do
      h=$(rb_host_index "${clients[k]}")
      [[ $seen != *" $h "* ]] || continue
      seen="$seen$h "
      echo "$h:client"
    done
  done
}

# rb_hook_call HOST_INDEX ROLE PHASE STATE ERRFILE: run the hook there
# (RB_HOOK_ARGS: the point's hook knobs); its stdout on stdout, stderr to ERRFILE
rb_hook_call() {
  local h=$1 role=$2 phase=$3 state=$4 err=$5 here=0
  [ "$h" != "$(rb_host_index "${RB_CONF[roles.server]:-1}")" ] || here=1
  rb_on "$h" "$(rb_hook_path "$h")" "$phase" "role=$role" "device=${RB_H_DEV[h]}" "server_here=$here" \
    "state=$state" "${RB_HOOK_ARGS[@]}" 2> "$err" < /dev/null
}

rb_hook_state() {
  if rb_host_is_local "$1"; then echo "$RB_HOOK_DIR/hook-$2-$1.state"; else echo "$(rb_rdir "$1")/hook-$RB_HOOK_SEQ-$2.state"; fi
}

# rb_hook_each PHASE TARGET...: the hook's PHASE on every "host:role" at
# once; per target, its stdout, stderr and exit status in
# points/SEQ/hook-PHASE-ROLE-HOST.{out,err,rc}, and all of it in hook.log
rb_hook_each() {
  local phase=$1 t h role f p; shift
  local -a pids=()
  for t in "$@"; do
    h=${t%%:*} role=${t#*:}
    f=$RB_HOOK_DIR/hook-$phase-$role-$h
    ( rc=0; rb_hook_call "$h" "$role" "$phase" "$(rb_hook_state "$h" "$role")" "$f.err" > "$f.out" || rc=$?
      echo "$rc" > "$f.rc" ) &
    pids+=("$!")
  done
  for p in "${pids[@]}"; do wait "$p" || true; done
  for t in "$@"; do
    h=${t%%:*} role=${t#*:}
    f=$RB_HOOK_DIR/hook-$phase-$role-$h
    { echo "== $phase role=$role host=$(rb_host_name "$h") ${RB_HOOK_ARGS[*]}: exit $(cat "$f.rc" 2> /dev/null)"
      cat "$f.out" "$f.err"; } >> "$RB_HOOK_DIR/hook.log" 2> /dev/null || true
  done
}

# rb_hook_setup NPROCS: setup on every host of the hook (rb_point's job);
# status 1 (and points/SEQ/skip or reason written) if one of them refused
rb_hook_setup() {
  local t h role rc f why
  local -a targets
  # no hook: nothing to ask (rb_hook_targets in a subshell costs a fork)
  [ -n "${RB_CONF[run.hook]:-}" ] || return 0
  mapfile -t targets <<< "$(rb_hook_targets "$1")"
  [ -n "${targets[0]}" ] || return 0
  RB_HOOK_PENDING=("${targets[@]}")
  rb_hook_each setup "${targets[@]}"
  for t in "${targets[@]}"; do
    h=${t%%:*} role=${t#*:}
    f=$RB_HOOK_DIR/hook-setup-$role-$h
    rc=$(cat "$f.rc" 2> /dev/null || echo 1)
    [ "$rc" = 0 ] && continue
    why=$(grep . "$f.err" 2> /dev/null | tail -n 1 | tr -d ',"\n')
    [ -n "$why" ] || why="exit $rc"
    why="hook setup on $(rb_host_name "$h") ($role): $why"
    if [ "$rc" = 2 ]; then echo "$why" > "$RB_HOOK_DIR/skip"; else echo "$why" > "$RB_HOOK_DIR/reason"; fi
    rb_log "job $RB_HOOK_SEQ: $why"
    return 1
  done
  return 0
}

# rb_hook_teardown: teardown on every host whose setup ran (each once);
# its NAME=VALUE lines are kept in points/SEQ/hook.cols
rb_hook_teardown() {
  local t h role rc f
  local -a targets
  [ "${#RB_HOOK_PENDING[@]}" -gt 0 ] || return 0
  targets=("${RB_HOOK_PENDING[@]}")
  RB_HOOK_PENDING=()
  rb_hook_each teardown "${targets[@]}"
  for t in "${targets[@]}"; do
    h=${t%%:*} role=${t#*:}
    f=$RB_HOOK_DIR/hook-teardown-$role-$h
    rc=$(cat "$f.rc" 2> /dev/null || echo 1)
    [ "$rc" = 0 ] || rb_log "job $RB_HOOK_SEQ: hook teardown on $(rb_host_name "$h") ($role) exited $rc (see $RB_HOOK_DIR/hook.log)"
    grep -E '^[a-z][a-z0-9_]*=[A-Za-z0-9._+-]*$' "$f.out" >> "$RB_HOOK_DIR/hook.cols" 2> /dev/null || true
  done
  return 0
}

# rb_hook_clean: the hook's clean phase on all its hosts (before and after a sweep)
rb_hook_clean() {
  local t h role rc
  [ -n "${RB_CONF[run.hook]:-}" ] || return 0
  RB_HOOK_ARGS=() RB_HOOK_SEQ=0
  local -a targets
  mapfile -t targets <<< "$(rb_hook_targets "${#RB_H_ADDR[@]}")"
  [ -n "${targets[0]}" ] || return 0
  mkdir -p "$RB_RUN_DIR/hook-clean"
  RB_HOOK_DIR=$RB_RUN_DIR/hook-clean
  rb_hook_each clean "${targets[@]}"
  for t in "${targets[@]}"; do
    h=${t%%:*} role=${t#*:}
    rc=$(cat "$RB_HOOK_DIR/hook-clean-$role-$h.rc" 2> /dev/null || echo 1)
    [ "$rc" = 0 ] || rb_warn "hook clean on $(rb_host_name "$h") ($role) exited $rc (see $RB_HOOK_DIR/hook.log)"
  done
  return 0
}
