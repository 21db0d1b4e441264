# shellcheck shell=bash
# experiments/lib/sweep.sh: step 4 and 5 of a run: the sweep (GNU parallel, or the runner's own loop without it), resume, merge and aggregation.
# Sourced by runner.sh; functions only.

# ---- step 5: merge and aggregate -------------------------------------------------------
# rb_merge: raw.csv from every job's rows.csv (in job order); a job that
# the joblog shows as failed or killed without any rows gets one failed row.
rb_merge() {
  local files=() seq d
  while read -r seq; do
    [ -f "$RB_RUN_DIR/points/$seq/rows.csv" ] && files+=("$RB_RUN_DIR/points/$seq/rows.csv")
  done <<< "$(for d in "$RB_RUN_DIR"/points/*/; do [ -d "$d" ] && d=${d%/} && echo "${d##*/}"; done | sort -n)"
  # killed jobs without rows: a row from the joblog
  awk -f "$RB_LIB/csv.awk" -f "$RB_LIB/joblog_failed.awk" -v run_dir="$RB_RUN_DIR" \
    -v exp_name="$RB_EXP" -v run_id="$RB_RUN_ID" -v timeout_s="$(rb_timeout_s)" \
    "$RB_RUN_DIR/grid.tsv" "$([ -s "$RB_RUN_DIR/jobs.tsv" ] && echo "$RB_RUN_DIR/jobs.tsv" || echo /dev/null)" \
    "$RB_RUN_DIR/joblog" > "$RB_RUN_DIR/killed.csv"
  [ -s "$RB_RUN_DIR/killed.csv" ] && files+=("$RB_RUN_DIR/killed.csv")
  if [ "${#files[@]}" = 0 ]; then
    rb_warn "no rows at all"
    : > "$RB_RUN_DIR/raw.csv"
    return 0
  fi
  "$RB_PY" -S "$RB_LIB/rbcsv.py" merge "${files[@]}" > "$RB_RUN_DIR/raw.csv"
}

rb_aggregate() {
  "$RB_PY" -S "$RB_LIB/rbcsv.py" aggregate -v keys_extra="$(rb_summary_keys)" \
    -v sums_extra="${RB_CONF[run.summary_metrics]:-}" -v means_extra="${RB_CONF[run.summary_means]:-}" -v noisy_cv_pct="${RB_CONF[run.noisy_cv_pct]:-20}" \
    -v client_bound_pct="${RB_CONF[run.client_bound_pct]:-10}" "$1" > "$2"
}

# rb_summary_keys: config columns summary.csv adds to its own: the hook's
# knobs, [run] summary_keys (e.g. retry_cnt) and the swept knobs
rb_summary_keys() {
  local k n part
  k="${RB_CONF[run.hook_knobs]:-} ${RB_CONF[run.summary_keys]:-}"
  # every swept knob that is a CSV column is a key too (rbcsv.py aggregate
  # skips the ones it has already: e.g. sq_depth, read_completion are added)
  for n in "${RB_KNOB_NAMES[@]}"; do
    for part in ${n//:/ }; do
      case $part in --*|procs|duration_s|iters|test|qps) ;; *) k="$k $part" ;; esac
    done
  done
  # shellcheck disable=SC2086  # plain words: one space between them
  echo $k
}

rb_timeout_s() {
  local t max
  t=${RB_CONF[run.timeout_s]:-}
  if [ -z "$t" ]; then
    read -r _ max <<< "$(rb_grid_expected "$RB_RUN_DIR/grid.tsv")"
    # a job of several points (group_sizes): its points' times together
    if [ -s "$RB_RUN_DIR/jobs.tsv" ]; then
      max=$(rb_grid_point_s "$RB_RUN_DIR/grid.tsv" | awk -F'\t' '
        FILENAME ~ /jobs.tsv$/ { n = split($2, p, " "); s = 0; for (i = 1; i <= n; i++) s += e[p[i]]; if (s > m) m = s; next }
        { e[$1] = $2 }
        END { printf "%d\n", m + 0.999 }' - "$RB_RUN_DIR/jobs.tsv")
    fi
    t=$(( max * 3 + 30 ))
  fi
  echo "$t"
}

# rb_grid_point_s GRID [FORMAT]: "POINT<TAB>SECONDS" per point, the
# expected time of each (the rule above rb_grid_expected in params.sh);
# SECONDS printed with FORMAT (default %.3f)
rb_grid_point_s() {
  awk -F'\t' -v fmt="${2:-%.3f}" -v p="${RB_CONF[run.point_s]:-}" -v o="${RB_CONF[run.overhead_s]:-1}" -v q="${RB_CONF[run.qp_setup_ms]:-10}" '
    { d = 2; n["procs"] = n["threads"] = n["qps_per_thread"] = n["emulated_peers"] = n["qps"] = 1
      for (i = 2; i <= NF; i++) {
        k = $i; sub(/=.*/, "", k); v = substr($i, length(k) + 2)
        if (k == "duration_s") d = v + 0
        else if (k in n) n[k] = v + 0
      }
      qps = n["procs"] * n["threads"] * n["qps_per_thread"] * n["emulated_peers"] * n["qps"]
      printf "%s\t" fmt "\n", $1, (p != "") ? p + 0 : d + o + qps * q / 1000 }' "$1"
}

# rb_group_sizes: 0 or 1, [run] group_sizes (no or yes; default no): the
# points of the grid that differ only in size_bytes run as one job, one
# client invocation with the size list (-m 32,64,...: the client runs the
# sizes one after another, each with its own start barrier and its own
# rows), instead of one job per point. Only when size_bytes is a knob of
# its own ([knobs] size_bytes = ..., not joined with another as a:b).
rb_group_sizes() {
  local g i
  g=${RB_CONF[run.group_sizes]:-no}
  case $g in
    yes) ;;
    no) echo 0; return ;;
    *) rb_die "[run] group_sizes = $g: yes or no" ;;
  esac
  for i in "${!RB_KNOB_NAMES[@]}"; do
    if [ "${RB_KNOB_NAMES[i]}" = size_bytes ]; then echo 1; return; fi
  done
  echo 0
}

# rb_jobs_write: with group_sizes, jobs.tsv (one line per job of one
# repetition: the job's index, a tab, its grid points separated by spaces,
# in grid order) and grid.tsv.args rewritten with one line per job (the
# size_bytes value the job's sizes joined by commas). Without it, neither
# file changes (one job per point) and jobs.tsv is removed. A job of one
# repetition J runs as jobs SEQ = (REP - 1) x JOBS + J.
rb_jobs_write() {
  local i si=-1
  rm -f "$RB_RUN_DIR/jobs.tsv"
  [ "$(rb_group_sizes)" = 1 ] || return 0
  for i in "${!RB_KNOB_NAMES[@]}"; do [ "${RB_KNOB_NAMES[i]}" != size_bytes ] || si=$i; done
  # grid.tsv fields: index, then name=value per knob (a:b knobs give two)
  awk -F'\t' '
    { key = ""; for (i = 2; i <= NF; i++) if ($i !~ /^size_bytes=/) key = key "\t" $i
      if (!(key in job)) { job[key] = ++n; pts[n] = $1 } else pts[job[key]] = pts[job[key]] " " $1 }
    END { for (j = 1; j <= n; j++) printf "%d\t%s\n", j, pts[j] }' "$RB_RUN_DIR/grid.tsv" > "$RB_RUN_DIR/jobs.tsv"
  # the jobs' values: the cartesian product with the sizes as one value
  local -a args=("") nargs
  local c v vals
  for i in "${!RB_KNOB_NAMES[@]}"; do
    vals=${RB_KNOB_VALUES[i]}
    [ "$i" != "$si" ] || { vals=$(tr -s ' ' ',' <<< "$vals"); vals=${vals#,}; vals=${vals%,}; }
    nargs=()
    for c in "${args[@]}"; do
      for v in $vals; do nargs+=("${c:+$c }$v"); done
    done
    args=("${nargs[@]}")
  done
  printf '%s\n' "${args[@]}" > "$RB_RUN_DIR/grid.tsv.args"
}

# rb_job_args REPS: GNU parallel's input sources for the sweep's jobs in
# RB_JOB_ARGS (::: the repetitions, then ::: each knob's values; with
# group_sizes the size_bytes values as one, joined by commas) and the
# replacement strings {2} {3} ... in RB_JOB_REPL
rb_job_args() {
  local reps=$1 i grouped
  local -a rep_list=() sz
  for ((i = 1; i <= reps; i++)); do rep_list+=("$i"); done
  RB_JOB_ARGS=(::: "${rep_list[@]}") RB_JOB_REPL=()
  grouped=$(rb_group_sizes)
  for i in "${!RB_KNOB_NAMES[@]}"; do
    if [ "$grouped" = 1 ] && [ "${RB_KNOB_NAMES[i]}" = size_bytes ]; then
      # one job for all sizes (rb_jobs_write)
      # shellcheck disable=SC2206  # values are validated plain words
      sz=(${RB_KNOB_VALUES[i]})
      RB_JOB_ARGS+=(::: "$(IFS=,; echo "${sz[*]}")")
    else
      # shellcheck disable=SC2206  # values are validated plain words
      RB_JOB_ARGS+=(::: ${RB_KNOB_VALUES[i]})
    fi
    RB_JOB_REPL+=("{$((i + 2))}")
  done
}

# rb_jobs_per_rep: jobs of one repetition (grid points, or jobs.tsv lines)
rb_jobs_per_rep() {
  local n
  if [ -s "$RB_RUN_DIR/jobs.tsv" ]; then rb_count_lines n "$RB_RUN_DIR/jobs.tsv"; else rb_count_lines n "$RB_RUN_DIR/grid.tsv"; fi
  echo "$n"
}

# rb_joblog_drop_interrupted TIMEOUT: before --resume, forget the jobs that
# were interrupted (stopped early by a signal, or by a stopped sweep: no
# rows written) and those whose client host did not answer ssh (a marker
# points/SEQ/unreachable) so that they run again; a job that ran into its
# timeout stays failed and is not re-run.
rb_joblog_drop_interrupted() {
  local t=$1 seq
  awk -F'\t' -v t="$t" -v dir="$RB_RUN_DIR/points" '
    NR == 1 { print; next }
    {
      f = dir "/" $1 "/rows.csv"
      has = (getline x < f) > 0; close(f)
      # a job whose host did not answer ssh (job.sh, rb_unreachable_track):
      # the bed failed, not the point; it runs again too
      u = dir "/" $1 "/unreachable"
      lost = (getline x < u) >= 0; close(u)
      if (($7 != 0 || $8 != 0) && ((!has && $4 + 1 < t) || lost)) { print $1 > "/dev/stderr"; next }
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

# rb_overhead_report: how long the jobs took beyond their measured window
# (job log run time minus the point's duration_s), mean and median over
# the jobs that ran, against what the expected time assumed (overhead_s + QPs x
# qp_setup_ms); the overhead_s that would have made the estimate right
rb_overhead_report() {
  local line
  line=$(awk -F'\t' -v o="${RB_CONF[run.overhead_s]:-1}" -v q="${RB_CONF[run.qp_setup_ms]:-10}" -v p="${RB_CONF[run.point_s]:-}" '
    FILENAME ~ /grid.tsv$/ {
      d = 2; n["procs"] = n["threads"] = n["qps_per_thread"] = n["emulated_peers"] = n["qps"] = 1
      for (i = 2; i <= NF; i++) { k = $i; sub(/=.*/, "", k); v = substr($i, length(k) + 2)
        if (k == "duration_s") d = v + 0; else if (k in n) n[k] = v + 0 }
      dur[++np] = d; qs[np] = n["procs"] * n["threads"] * n["qps_per_thread"] * n["emulated_peers"] * n["qps"] * q / 1000
      next }
    # group_sizes: a job runs several points; per point its share of the
    # time beyond the windows of its points
    FILENAME ~ /jobs.tsv$/ { nj++; jn[nj] = split($2, jp, " "); jd[nj] = jq[nj] = 0
      for (i = 1; i <= jn[nj]; i++) { jd[nj] += dur[jp[i]]; jq[nj] += qs[jp[i]] }
      next }
    FNR > 1 && $7 == 0 && $8 == 0 {
      if (!nj) { nj = np; for (i = 1; i <= np; i++) { jn[i] = 1; jd[i] = dur[i]; jq[i] = qs[i] } }
      j = ($1 - 1) % nj + 1; x[++nx] = ($4 - jd[j]) / jn[j]; sum += x[nx]; assumed += o + jq[j] / jn[j] }
    END {
      if (!nx || p != "") exit
      for (i = 1; i <= nx; i++) for (j = i + 1; j <= nx; j++) if (x[j] < x[i]) { t = x[i]; x[i] = x[j]; x[j] = t }
      m = (nx % 2) ? x[(nx + 1) / 2] : (x[nx / 2] + x[nx / 2 + 1]) / 2
      # the mean is what adds up to the sweep time
      sug = o + (sum - assumed) / nx; if (sug < 0) sug = 0
      printf "%.2f %.2f %.2f %.1f %d\n", sum / nx, m, assumed / nx, sug, nx }' "$RB_RUN_DIR/grid.tsv" \
      "$([ -s "$RB_RUN_DIR/jobs.tsv" ] && echo "$RB_RUN_DIR/jobs.tsv" || echo /dev/null)" "$RB_RUN_DIR/joblog")
  [ -n "$line" ] || return 0
  local mean m a sug n
  read -r mean m a sug n <<< "$line"
  echo "$mean" > "$RB_RUN_DIR/overhead_s"
  local per=""
  [ ! -s "$RB_RUN_DIR/jobs.tsv" ] || per=", per point of the job,"
  rb_log "sweep: the jobs took $mean s each$per beyond their measured window (mean of $n ok jobs, median $m s; the estimate assumed $a s); [run] overhead_s = $sug would match this bed"
}

# ---- step 4: the sweep -----------------------------------------------------------------
rb_sweep() {
  local reps npoints njobs timeout expected per
  reps=${RB_CONF[run.repetitions]:-3}
  [[ $reps =~ ^[1-9][0-9]*$ ]] || rb_die "repetitions must be a positive number, got $reps"
  rb_grid_write "$RB_RUN_DIR/grid.tsv"
  rb_jobs_write
  rb_count_lines npoints "$RB_RUN_DIR/grid.tsv"
  per=$(rb_jobs_per_rep)
  njobs=$((per * reps))
  echo "$njobs" > "$RB_RUN_DIR/njobs"
  timeout=$(rb_timeout_s)
  read -r expected _ <<< "$(rb_grid_expected "$RB_RUN_DIR/grid.tsv")"
  expected=$((expected * reps))
  echo "$expected" > "$RB_RUN_DIR/expected_s"
  # with group_sizes a job holds several points: the count says how many
  # jobs, not a product
  local left what="$npoints points x $reps repetitions = $njobs jobs"
  [ ! -s "$RB_RUN_DIR/jobs.tsv" ] ||
    what="$npoints points x $reps repetitions in $njobs jobs ($per per repetition: group_sizes runs the points that differ only in size_bytes as one job)"
  left=$(awk -F'\t' 'NR > 1 && !d[$1]++ { n++ } END { print n + 0 }' "$RB_RUN_DIR/joblog" 2> /dev/null || echo 0)
  left=$((njobs - left))
  if [ "$left" -lt "$njobs" ]; then
    rb_log "sweep: $what, $left of them left (resumed), one at a time; expected $(rb_fmt_time $((expected * left / njobs))) for those ($(rb_fmt_time "$expected") for the whole grid); timeout ${timeout} s per job"
  else
    rb_log "sweep: $what, one at a time; expected $(rb_fmt_time "$expected"); timeout ${timeout} s per job"
  fi

  rb_job_args "$reps"
  local -a args=("${RB_JOB_ARGS[@]}") repl=("${RB_JOB_REPL[@]}")
  local -a resume=()
  if [ -s "$RB_RUN_DIR/joblog" ] || [ -d "$RB_RUN_DIR/points" ]; then
    rb_reap_stale
  fi
  if [ -s "$RB_RUN_DIR/joblog" ]; then
    resume=(--resume)
    rb_joblog_drop_interrupted "$timeout"
  fi
  : > "$RB_RUN_DIR/progress"
  # a sweep stopped for an unreachable host (job.sh) starts afresh on --resume
  rm -rf "$RB_RUN_DIR/halt" "$RB_RUN_DIR/unreachable"
  rb_hook_clean
  rb_shared_server_start
  rb_load_monitor_start
  export RB_SWEEP_T0
  RB_SWEEP_T0=$EPOCHREALTIME
  local rc=0 t0
  t0=$EPOCHSECONDS
  if ! rb_have_parallel; then
    rb_log "sweep: GNU parallel is not installed here: the runner's own loop runs the same jobs, in the same order, with the same job log"
    rb_sweep_sequential "$timeout" "$reps"
  else
  # {#} is the job number: stable across --resume for the same grid.
  # parallel runs the command through a shell: the path of `point` goes in
  # as "$RB_LIB" (exported), expanded by that shell, so a project path with
  # spaces or shell metacharacters is one word and never parsed by parallel;
  # the values are validated plain words that parallel quotes
  # shellcheck disable=SC2016  # $RB_LIB: expanded by the job's shell
  parallel --joblog "$RB_RUN_DIR/joblog" "${resume[@]}" -j1 --ungroup \
    --timeout "$timeout" --termseq TERM,10000,KILL,25 --halt never \
    '"$RB_LIB/point"' '{#}' '{1}' "${repl[@]}" "${args[@]}" || rc=$?
  fi
  rb_shared_server_stop
  rb_load_monitor_stop
  rb_hook_clean
  local actual=$(( EPOCHSECONDS - t0 ))
  echo "$actual" > "$RB_RUN_DIR/actual_s"
  local failed
  failed=$(awk -F'\t' 'NR > 1 && ($7 != 0 || $8 != 0) { n++ } END { print n + 0 }' "$RB_RUN_DIR/joblog")
  # a resumed sweep ran only the jobs left: its time is set against theirs
  local exp_text
  exp_text="expected $(rb_fmt_time "$expected") for the whole grid"
  [ "$left" -ge "$njobs" ] ||
    exp_text="expected $(rb_fmt_time $((expected * left / njobs))) for the $left job(s) it ran, $(rb_fmt_time "$expected") for the whole grid"
  rb_log "sweep: done in $(rb_fmt_time "$actual") ($exp_text); $failed job(s) did not end ok in the job log (failed, or skipped: the summary says which)"
  rb_overhead_report
  return 0
}
