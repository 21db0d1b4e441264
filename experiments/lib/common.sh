# shellcheck shell=bash
# experiments/lib/common.sh: the messages every shell script of the project
# prints on the way out (sourced, never run; it only defines functions).
# The one definition of die and warn: tests/bats/bench_structure.bats fails
# on a second one.
#
#   . "$here/../experiments/lib/common.sh"   (from ci/, env/, tests/)
#   . "$here/common.sh"                      (from experiments/lib/)
#
#   die STATUS MSG...   "PROG: error: MSG" on stderr, then exit STATUS
#                       (docs/CONTRACTS.md: 1 the work failed, 2 bad usage
#                       or input; each script's header lists its own)
#   warn MSG...         "PROG: warning: MSG" on stderr; the script goes on
#   rb_nearest WORD NAME...  the NAME closest to WORD (edit distance at
#                       most 2, or a third of WORD's length if longer), for a
#                       "did you mean" after an unknown name; prints nothing
#                       when none is that close or two are equally close
#   rb_usage [FILE]     FILE's (default: the running script's) header
#                       comment, line 2 up to its `set -euo` line, without
#                       the "# ": the --help text (the one copy of that sed)
#
# PROG is the script's path from the checkout's top (ci/vm, env/check,
# experiments/run), so a message says which script refused what; a script
# may set RB_PROG before sourcing this file to name itself otherwise.
# While a run folder exists (RB_RUN_DIR, experiments/lib/runner.sh) every
# message also goes to its run.log.
#
# Portable to the soft-RoCE VM's busybox (no process substitution).

# rb_dir_v VAR PATH: the folder of PATH into VAR as dirname prints it (.
# for a bare name, / for a name in /), for a path without a trailing slash;
# in this shell (no dirname process, no subshell)
rb_dir_v() {
  case $2 in
    */*) printf -v "$1" '%s' "${2%/*}"; [ -n "${!1}" ] || printf -v "$1" / ;;
    *) printf -v "$1" . ;;
  esac
}

# rb_prog_name: the running script's path from the checkout's top (the folder
# two levels above this file), or its base name when it runs from elsewhere.
# Run in one subshell ($(rb_prog_name)): its cd's change only that one (a
# subshell per cd was two forks more for every script that sources this
# file, tens of ms each in the VM bed under TCG)
rb_prog_name() {
  local top dir here=$PWD
  rb_dir_v top "${BASH_SOURCE[0]}"
  rb_dir_v dir "$0"
  { CDPATH='' cd -P -- "$dir" 2> /dev/null && dir=$PWD; } || dir=
  { CDPATH='' cd -P -- "$here" 2> /dev/null && CDPATH='' cd -P -- "$top/../.." 2> /dev/null && top=$PWD; } || top=
  case $dir/ in
    "$top"/?*) printf '%s' "${dir#"$top"/}/${0##*/}" ;;
    *) printf '%s' "${0##*/}" ;;
  esac
}
: "${RB_PROG:=$(rb_prog_name)}"

# rb_say KIND MSG: one line "PROG: KIND: MSG" on stderr and in the run's log
rb_say() {
  local line="$RB_PROG: $1: $2"
  printf '%s\n' "$line" >&2
  if [ -n "${RB_RUN_DIR:-}" ] && [ -d "$RB_RUN_DIR" ]; then
    printf '%s\n' "$line" 2> /dev/null >> "$RB_RUN_DIR/run.log" || true
  fi
}

warn() { rb_say warning "$*"; }

die() {
  local status=$1
  case $status in
    [0-9] | [0-9][0-9] | 1[0-9][0-9] | 2[0-5][0-9]) shift ;;
    *) rb_say error "die: the first argument must be an exit status 0..255, not '$status' (message: $*)"; exit 70 ;;
  esac
  rb_say error "$*"
  exit "$status"
}

rb_nearest() {
  awk -v w="$1" 'BEGIN {
    lim = length(w) / 3; if (lim < 2) lim = 2
    best = lim + 1
    for (k = 2; k < ARGC; k++) {
      n = ARGV[k]; a = length(w); b = length(n)
      for (j = 0; j <= b; j++) d[0, j] = j
      for (i = 1; i <= a; i++) {
        d[i, 0] = i
        for (j = 1; j <= b; j++) {
          c = d[i - 1, j - 1] + (substr(w, i, 1) != substr(n, j, 1))
          if (d[i - 1, j] + 1 < c) c = d[i - 1, j] + 1
          if (d[i, j - 1] + 1 < c) c = d[i, j - 1] + 1
          d[i, j] = c
        }
      }
      if (d[a, b] < best) { best = d[a, b]; out = n; ties = 0 }
      else if (d[a, b] == best) ties++
    }
    if (out != "" && !ties) print out
  }' "$@"
}

rb_usage() {
  sed -n '2,/^set -euo/{/^set -euo/d;s/^# \{0,1\}//;p}' "${1:-$0}"
}
