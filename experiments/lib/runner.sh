# shellcheck shell=bash source-path=SCRIPTDIR source-path=SCRIPTDIR/lib
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
# The parts, one file each (this file sources them):
#   params.sh  the parameter file, the knob-to-flag table, the grid
#   hosts.sh   the hosts file; running, starting and stopping by PID, on a host
#   check.sh   step 2 (env/check on every host) and step 3 (deploy)
#   prereq.sh  each host's ssh without a password, the deployed binary
#              starting there, its device with an ACTIVE port
#   job.sh     one job: server, clients, rows, progress line
#   manifest.sh  the hosts' load before and after each point (columns),
#              manifest.json (what the run was measured on)
#   slurm.sh   the Slurm launcher: the allocation's nodes as the hosts,
#              every process one job step (srun-ssh), scancel of the
#              run's own steps
#   sweep.sh   step 4 (GNU parallel or the runner's own loop, resume) and 5
#              (merge, aggregate: rbcsv.py tag, merge and aggregate;
#              joblog_failed.awk with csv.awk's quoting)
#
# Layout of a run folder, results/<experiment>/<run-id>/:
#   params hosts            copies of the files the run was made with
#   params.sha256           the parameter file's hash at run start (--resume checks it)
#   params.effective        the parameters after QUICK and --set (--resume reads them)
#   grid.tsv(.args)         one line per point: index and knob=value (the jobs' values)
#   env-<host>.json         env/check output per host
#   joblog                  GNU parallel's job log
#   points/<seq>/           logs and rows.csv of job <seq>
#   raw.csv summary.csv     all rows; one row per point
#   manifest.json           git revision, command, QUICK, repetitions, hosts,
#                           the VM bed (manifest.sh); vm-run: the bed's run folder
#   run.log                 everything printed

# Portable to the soft-RoCE VM (bash and busybox, no /dev/fd): no process
# substitution, POSIX awk only, short options of timeout.

# ---- messages ----------------------------------------------------------------
rb_log()  { printf '%s\n' "$*" >&2; [ ! -d "${RB_RUN_DIR:-/nonexistent}" ] || printf '%s\n' "$*" 2> /dev/null >> "$RB_RUN_DIR/run.log" || true; }
# errors and warnings name the script that says them, as
# "experiments/run: error: ..." (die and warn: common.sh); the runner's
# refusals are all bad input or usage: exit 2 (docs/CONTRACTS.md)
rb_warn() { warn "$@"; }
rb_die()  { die 2 "$@"; }

# rb_quick_env: QUICK from the environment as 1 (1|yes|true|on) or 0
# (0|no|false|off|empty), any case, exported; anything else refused (exit 2)
rb_quick_env() {
  case ${QUICK:-} in
    [Oo][Nn] | 1 | [Yy][Ee][Ss] | [Tt][Rr][Uu][Ee]) QUICK=1 ;;
    "" | 0 | [Nn][Oo] | [Ff][Aa][Ll][Ss][Ee] | [Oo][Ff][Ff]) QUICK=0 ;;
    *) rb_die "QUICK=$QUICK: not a yes/no value; use QUICK=1 (or yes, true, on) for the reduced grid, or QUICK=0 (or no, false, off, empty) for the full one" ;;
  esac
  export QUICK
}

# ---- validation: nothing read from a file reaches a shell unchecked ------------
RB_WORD_RE='^[A-Za-z0-9._+-]+$'
# (the next two are read by hosts.sh, which this file sources)
# shellcheck disable=SC2034
RB_HOST_RE='^[A-Za-z0-9._:-]+$'
# shellcheck disable=SC2034
RB_USER_RE='^[A-Za-z_][A-Za-z0-9_.-]*$'

# rb_check_word VALUE WHAT: die unless VALUE is a plain word.
rb_check_word() {
  [[ $1 =~ $RB_WORD_RE ]] ||
    rb_die "$2: '$1' is not a plain word (letters, digits, . _ + - only); shell metacharacters are refused"
}

# rb_check_path PATH WHAT: spaces and shell metacharacters ($ ; ' " { } ...)
# in a path are fine (every use is quoted; GNU parallel gets the runner's own
# path through the environment, sweep.sh); a backslash or a control
# character (newline, tab) is refused by name before anything is written:
# awk -v reads backslashes as escapes, and a run's files list paths one a line
rb_check_path() {
  [[ $1 != *\\* && $1 != *[[:cntrl:]]* ]] ||
    rb_die "$2 $(printf '%q' "$1"): a path with a backslash or a control character (newline, tab) is refused; use a folder without them (spaces and other characters are fine)"
}

# rb_check_run_id ID: a plain word that names a folder of its own (not . or
# .., not starting with - or .)
rb_check_run_id() {
  rb_check_word "$1" "run id"
  [[ $1 != .* && $1 != -* ]] || rb_die "run id '$1': must not start with '.' or '-' (it names a folder under results/NAME/)"
}

# rb_run_lock: one experiments/run per run folder. $RB_RUN_DIR/lock (a
# folder: mkdir is atomic) holds the owner's PID; a lock whose owner is
# gone is taken over. Another live owner: stop with its PID (a second
# `make figure-N` would otherwise resume the same run beside it and stop
# its server as "left behind").
RB_LOCKED=0
rb_run_lock() {
  local d=$RB_RUN_DIR/lock pid
  if ! mkdir "$d" 2> /dev/null; then
    pid=$(cat "$d/pid" 2> /dev/null || true)
    if [[ $pid =~ ^[0-9]+$ ]] && [ "$pid" != $$ ] && kill -0 "$pid" 2> /dev/null; then
      rb_die "run $(basename "$RB_RUN_DIR") is in use by experiments/run PID $pid (its sweep is running); wait for it, or start a separate run (RESUME=0, or without --resume)"
    fi
    rm -rf "$d"
    mkdir "$d" 2> /dev/null || rb_die "cannot lock $RB_RUN_DIR (another run took it just now?)"
  fi
  echo $$ > "$d/pid"
  RB_LOCKED=1
}
rb_run_unlock() {
  [ "$RB_LOCKED" = 1 ] || return 0
  [ "$(cat "$RB_RUN_DIR/lock/pid" 2> /dev/null)" != $$ ] || rm -rf "$RB_RUN_DIR/lock"
  RB_LOCKED=0
}

# rb_usec_v VAR TIME: TIME ($EPOCHREALTIME's "SECONDS.FRACTION", C locale)
# as whole microseconds into VAR, in this shell (no awk, no subshell)
rb_usec_v() {
  local t=$2 s f
  s=${t%.*} f=${t#*.}
  [ "$f" != "$t" ] || f=0
  f=${f}000000
  printf -v "$1" '%d' $(( s * 1000000 + 10#${f:0:6} ))
}

# rb_count_lines VAR FILE: the number of lines of FILE into VAR (0 if it
# cannot be read), in this shell (no wc, no subshell)
rb_count_lines() {
  local -a l=()
  { mapfile -t l < "$2"; } 2> /dev/null || true
  printf -v "$1" '%d' "${#l[@]}"
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

# ---- the parts, one file each -----------------------------------------------------
RB_LIB=${RB_LIB:-$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)}
# shellcheck source=common.sh
. "$RB_LIB/common.sh"
# python3 (a base dependency) runs the CSV tools (rbcsv.py) and writes the
# manifest (jsondoc.py). Its path is looked up once and exported: a version
# manager's shim (pyenv runs a shell script per call) would otherwise start
# again for every job. The tools need the standard library only: callers
# run them with -S (no site packages to import at every start).
if [ -z "${RB_PY:-}" ]; then
  RB_PY=$(python3 -c 'import sys; print(sys.executable)' 2> /dev/null) || RB_PY=python3
  export RB_PY
fi
# shellcheck source=params.sh
. "$RB_LIB/params.sh"
# shellcheck source=hosts.sh
. "$RB_LIB/hosts.sh"
# shellcheck source=check.sh
. "$RB_LIB/check.sh"
# shellcheck source=prereq.sh
. "$RB_LIB/prereq.sh"
# shellcheck source=job.sh
. "$RB_LIB/job.sh"
# shellcheck source=sweep.sh
. "$RB_LIB/sweep.sh"
# shellcheck source=manifest.sh
. "$RB_LIB/manifest.sh"
# shellcheck source=slurm.sh
. "$RB_LIB/slurm.sh"
