# shellcheck shell=bash
# shellcheck disable=SC2034  # exit_rc and tracked_pids are read by the sourcing script
# tests/lib/tap.sh: the helpers the suite's test scripts share (sourced,
# never run): TAP output, bounded waits, and processes stopped by PID.
# Used by tests/*-run, ci/await, ci/pair, ci/figure-smoke, ci/fan-in-window
# and ci/vm-accel; a helper needed by two scripts belongs here, not in both
# (tests/dupcheck checks).
#
#   . "$here/lib/tap.sh"      (from tests/)
#   . "$here/../tests/lib/tap.sh"   (from ci/)
#
# TAP (https://testanything.org, version 12 as bats and ci/tap-count read it)
#   tap STATUS NAME [DIAG...]   one line "ok N - NAME" or "not ok N - NAME",
#                               each DIAG below it as "#   " comment lines;
#                               a "not ok" sets tap_failed=1
#   check NAME [PROBLEM...]     ok when every PROBLEM is empty, else not ok
#                               with the problems as diagnostics
#   tap_done                    prints the plan "1..N" and exits tap_failed
#
# Waits: every wait has a limit in seconds and, when it gives up, prints on
# stderr "# gave up after S s waiting for WHAT" and returns 1 (the "#" is
# $wait_prefix: a command may put its own name there). Give limits 3x
# what the state takes on a loaded 2-core machine (the VM bed under TCG is
# slow): a limit is for a state that never comes.
#   wait_until [-i STEP] SECONDS WHAT CMD...   poll CMD every STEP s (0.05)
#   wait_line FILE REGEX SECONDS               a line of FILE matches (grep -E)
#   wait_listen PID PORT SECONDS               PID's server listens on PORT;
#                                              fails at once if PID exited
#   wait_exit PID SECONDS                      PID exited; its status in
#                                              exit_rc (reaped if a child)
#   listening PORT                  a TCP socket listens on PORT here
#   tcp_listens PORT                the same, reading /proc/net/tcp{,6} text
#                                   on stdin (for another host's tables)
#
# Processes: stopped by the PIDs this script started, never by name.
#   pid_track PID...      remember PIDs for pids_cleanup and pids_left
#   pid_stop PID [SECS]   SIGCONT, SIGTERM, up to SECS (5) s to exit, then
#                         SIGKILL; reaped; status in exit_rc; returns 1 when
#                         SIGKILL was needed
#   pid_kill PID          SIGCONT, SIGKILL, reaped (for kill -9 scenarios)
#   pids_cleanup          pid_stop with 0.2 s grace for every tracked PID
#                         (an EXIT trap: trap pids_cleanup EXIT)
#   pids_left             the tracked PIDs still alive, space-separated
#
# The server under test ($RB, on $PORT)
#   start_server LOG [ARGS...]  "$RB -s -p $PORT ARGS..." in the background,
#                         output in LOG, its PID in server_pid (tracked);
#                         1 when it does not listen within 20 s
#   stop_server           pid_stop of server_pid (if any); server_pid=""
#
# Others
#   now_us                monotonic-enough wall time in microseconds
#   nap SECONDS           sleep in this shell (no process: polled waits)
#   has_rdma_port         an ACTIVE RDMA port is here (ibv_devinfo)
#   sanitizer_logs FILE...  names the files holding a sanitizer report
#   private_binary DIR    copies $RB into DIR and points RB at the copy (a
#                         make elsewhere relinks ./rdma_bench, and a binary
#                         replaced under a running process crashes it);
#                         1 when the copy does not run

tap_n=0
tap_failed=0
exit_rc=""
tracked_pids=()
wait_prefix="#"

tap() { # STATUS NAME [DIAG...]
  local status=$1 name=$2 d
  shift 2
  tap_n=$((tap_n + 1))
  echo "$status $tap_n - $name"
  [ "$status" = ok ] || tap_failed=1
  for d in "$@"; do
    printf '%s\n' "$d" | sed 's/^/#   /'
  done
}

check() { # NAME [PROBLEM...]
  local name=$1 p probs=()
  shift
  for p in "$@"; do [ -n "$p" ] && probs+=("$p"); done
  if [ "${#probs[@]}" = 0 ]; then tap ok "$name"; else tap "not ok" "$name" "${probs[@]}"; fi
}

tap_done() {
  echo "1..$tap_n"
  exit "$tap_failed"
}

now_us() { echo "${EPOCHREALTIME/./}"; }

secs_us_v() { # VAR SECONDS (e.g. 5 or 0.2): microseconds into VAR, in this shell
  local i=${2%.*} f=""
  [[ $2 == *.* ]] && f=${2#*.}
  f=${f}000000
  printf -v "$1" '%d' $(( 10#${i:-0} * 1000000 + 10#${f:0:6} ))
}

# nap SECONDS: sleep without a process: a `read -t` on a descriptor that
# never gets data (a pipe whose write end this shell holds, opened at the
# first nap). The waits below poll through it: under TCG a fork or an exec
# of sleep per poll kept a wait at ~40 % of a vCPU (5 s of wait_until:
# 1.96 s of guest CPU with `sleep`, 0.17 s with nap; docs/testing.md)
tap_never=""
nap() { # SECONDS
  [ -n "$tap_never" ] || exec {tap_never}<> <(:)
  read -r -t "$1" -u "$tap_never" _ || :
}

wait_until() { # [-i STEP] SECONDS WHAT CMD...
  local step=0.05
  if [ "$1" = -i ]; then step=$2; shift 2; fi
  local secs=$1 what=$2 end
  shift 2
  secs_us_v end "$secs"
  end=$(( ${EPOCHREALTIME/./} + end ))
  until "$@"; do
    if [ "${EPOCHREALTIME/./}" -ge "$end" ]; then
      echo "$wait_prefix gave up after $secs s waiting for $what" >&2
      return 1
    fi
    nap "$step"
  done
}

line_in() { grep -qE -- "$2" "$1" 2> /dev/null; } # FILE REGEX

wait_line() { # FILE REGEX SECONDS
  wait_until -i 0.02 "$3" "a line matching /$2/ in $1" line_in "$1" "$2"
}

# (bash builtins only: these are polled, and a fork costs tens of ms in
# the VM bed under TCG)
tcp_listens() { # PORT, /proc/net/tcp{,6} text on stdin
  local hex l st found=1
  printf -v hex ':%04X' "$1"
  # fields: sl local_address rem_address st ...; 0A = LISTEN. All of the
  # input is read: returning at the first match would kill a writer still
  # writing (SIGPIPE: under pipefail a listing that matched reads as false)
  while read -r _ l _ st _; do
    if [ "$st" = 0A ] && [ "${l: -5}" = "$hex" ]; then found=0; fi
  done
  return "$found"
}

# a TCP connection of this host to PORT has bytes its peer has not
# acknowledged (tx_queue): a process here is trying to tell its peer
tcp_unsent() { # PORT
  local hex f r q
  printf -v hex ':%04X' "$1"
  for f in /proc/net/tcp /proc/net/tcp6; do
    [ -r "$f" ] || continue
    # fields: sl local_address rem_address st tx_queue:rx_queue ...
    while read -r _ _ r _ q _; do
      [ "${r: -5}" = "$hex" ] && [ "${q%%:*}" != 00000000 ] && return 0
    done < "$f"
  done
  return 1
}

listening() { # PORT
  local f
  for f in /proc/net/tcp /proc/net/tcp6; do
    [ -r "$f" ] && tcp_listens "$1" < "$f" && return 0
  done
  return 1
}

# listening, or 2 when the server PID has exited (ends wait_until's poll)
listening_or_gone() { # PID PORT
  listening "$2" && return 0
  kill -0 "$1" 2> /dev/null || { echo "# process $1 exited before listening on port $2" >&2; return 0; }
  return 1
}

wait_listen() { # PID PORT SECONDS
  wait_until -i 0.1 "$3" "a TCP socket listening on port $2 (process $1)" listening_or_gone "$1" "$2" &&
    listening "$2"
}

gone() { ! kill -0 "$1" 2> /dev/null; }

wait_exit() { # PID SECONDS
  exit_rc=""
  wait_until "$2" "process $1 to exit" gone "$1" || return 1
  exit_rc=0
  wait "$1" 2> /dev/null || exit_rc=$?
}

pid_track() { tracked_pids+=("$@"); }

pid_stop() { # PID [SECONDS]
  local pid=$1 secs=${2:-5}
  [ -n "$pid" ] || return 0
  kill -CONT "$pid" 2> /dev/null || true
  kill -TERM "$pid" 2> /dev/null || true
  local end
  secs_us_v end "$secs"
  end=$(( ${EPOCHREALTIME/./} + end ))
  while kill -0 "$pid" 2> /dev/null && [ "${EPOCHREALTIME/./}" -lt "$end" ]; do nap 0.05; done
  if kill -0 "$pid" 2> /dev/null; then
    pid_kill "$pid"
    return 1
  fi
  exit_rc=0
  wait "$pid" 2> /dev/null || exit_rc=$?
}

pid_kill() { # PID
  kill -CONT "$1" 2> /dev/null || true
  kill -KILL "$1" 2> /dev/null || true
  exit_rc=0
  wait "$1" 2> /dev/null || exit_rc=$?
}

# shellcheck disable=SC2317  # called by EXIT traps
pids_cleanup() {
  local p
  for p in "${tracked_pids[@]}"; do
    kill -0 "$p" 2> /dev/null && pid_stop "$p" 0.2
  done
  return 0
}

pids_left() {
  local p alive=()
  for p in "${tracked_pids[@]}"; do
    kill -0 "$p" 2> /dev/null && alive+=("$p")
  done
  echo "${alive[*]}"
}

server_pid=""
start_server() { # LOG [ARGS...]
  local log=$1
  shift
  "$RB" -s -p "$PORT" "$@" > "$log" 2>&1 &
  server_pid=$!
  pid_track "$server_pid"
  wait_listen "$server_pid" "$PORT" 20
}

# shellcheck disable=SC2317  # also called by EXIT traps
stop_server() {
  pid_stop "$server_pid" || true
  server_pid=""
}

has_rdma_port() { ibv_devinfo 2> /dev/null | grep PORT_ACTIVE > /dev/null; }

sanitizer_logs() { # FILE...
  grep -lE 'ERROR: (Address|Leak)Sanitizer|runtime error:' "$@" 2> /dev/null
}

private_binary() { # DIR
  cp "$RB" "$1/rdma_bench" || return 1
  RB=$1/rdma_bench
  "$RB" --help > /dev/null 2>&1
}
