# shellcheck shell=bash
# experiments/lib/hosts.sh: the hosts file, and running, starting and stopping commands on a host (locally or over ssh), every process by its own PID.
# Sourced by runner.sh; functions only.

# ---- the hosts file ---------------------------------------------------------------
# One line per host: ADDRESS DEVICE [GID_INDEX] [NUMA_NODE] [USER]; '-' for
# an empty field; '#' starts a comment. key=value (gid= numa= user=) is also
# accepted after the device. ADDRESS localhost / 127.0.0.1 runs without ssh.
# rb_hosts_load FILE [WHAT]: read it into RB_H_*; WHAT names it in errors
declare -ga RB_H_ADDR=() RB_H_DEV=() RB_H_GID=() RB_H_NUMA=() RB_H_USER=()

# rb_hosts_file_check FILE [WHAT]: die (exit 2) unless FILE is a file this
# user can read, naming WHAT (--hosts, RB_HOSTS; default "hosts file"),
# the path, what is wrong and what a hosts file is
rb_hosts_file_check() {
  local file=$1 what=${2:-hosts file} why=""
  if [ -d "$file" ]; then why="a folder, not a file"
  elif [ ! -e "$file" ]; then why="no such file"
  elif [ ! -r "$file" ]; then why="cannot be read (permissions)"
  fi
  [ -z "$why" ] ||
    rb_die "$what $file: $why; a hosts file is a readable text file, one host a line: ADDRESS DEVICE [GID] [NUMA] [USER] (experiments/hosts.example)"
}

rb_hosts_load() {
  local file=$1 line n=0 addr dev f pos
  RB_H_ADDR=() RB_H_DEV=() RB_H_GID=() RB_H_NUMA=() RB_H_USER=()
  rb_hosts_file_check "$file" "${2:-hosts file}"
  while IFS= read -r line || [ -n "$line" ]; do
    n=$((n + 1))
    line=${line%%#*}
    read -r -a f <<< "$line"
    [ "${#f[@]}" -gt 0 ] || continue
    [ "${#f[@]}" -ge 2 ] || rb_die "$file:$n: need at least ADDRESS DEVICE"
    [ "${#f[@]}" -le 5 ] || rb_die "$file:$n: at most ADDRESS DEVICE GID NUMA USER"
    addr=${f[0]} dev=${f[1]}
    [[ $addr =~ $RB_HOST_RE ]] || rb_die "$file:$n: address '$addr' refused (letters, digits, . _ : - only)"
    [[ $addr != -* ]] || rb_die "$file:$n: address '$addr' refused: it must not start with '-' (ssh would read it as an option)"
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
rb_host_index() { local i; rb_host_index_v i "$1"; echo "$i"; }
# rb_host_index_v VAR N: the same into VAR, without a subshell (a fork costs
# 5-20 ms on a loaded 2-core machine; the job's path calls it per process)
rb_host_index_v() { printf -v "$1" '%d' $(( ($2 - 1) % ${#RB_H_ADDR[@]} )); }
# rb_client_hosts: the hosts-file line numbers of the client role; `others`
# (the default) means every host but the server's (a line number past the
# end wraps; one host: it takes every role)
rb_client_hosts() {
  local c n srv out=""
  c=${RB_CONF[roles.clients]:-others}
  if [ "$c" != others ]; then echo "$c"; return; fi
  srv=${RB_CONF[roles.server]:-1}
  for ((n = 1; n <= ${#RB_H_ADDR[@]}; n++)); do [ "$n" = "$srv" ] || out="$out $n"; done
  echo "${out:-$srv}"
}
# rb_hosts_roles_log: one line per hosts-file host with its role (server,
# clients, or none), then a WARN for every host that gets no role (it sits
# idle: --clients or [roles] left it out), naming the line and the fix
rb_hosts_roles_log() {
  local h n srv cl role c idle=""
  srv=$(( $(rb_host_index "${RB_CONF[roles.server]:-1}") + 1 ))
  cl=" "
  for c in $(rb_client_hosts); do cl="$cl$(( $(rb_host_index "$c") + 1 )) "; done
  for h in "${!RB_H_ADDR[@]}"; do
    n=$((h + 1)) role=""
    [ "$n" != "$srv" ] || role="server"
    [[ $cl != *" $n "* ]] || role="${role:+$role + }clients"
    [ -n "$role" ] || { role="none"; idle="$idle $n"; }
    rb_log "host $n: ${RB_H_ADDR[h]} device ${RB_H_DEV[h]} gid ${RB_H_GID[h]} numa ${RB_H_NUMA[h]} user ${RB_H_USER[h]}: $role"
  done
  for n in $idle; do
    rb_warn "hosts line $n (${RB_H_ADDR[n - 1]}) gets no role: server = host $srv, clients = host(s)$cl- it sits idle; give --clients others (or list it) to use it, or remove the line"
  done
}
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

# rb_ssh_master_start: one ssh connection per remote host for the whole run
# (OpenSSH connection sharing: -M -N, a control socket in a private folder
# under /tmp); every later rb_on/rb_spawn/env check/deploy opens a session
# on it instead of a new connection (a key exchange and login per call,
# several calls per point: experiments/README.md, "Measured costs"). Exports RB_SSH with the socket option
# added; records the masters' PIDs in RB_SSH_MASTERS and
# $RB_RUN_DIR/ssh-masters. A master that does not come up within 10 s is
# stopped and that host goes on with plain connections. RB_SSH_SHARE=0
# turns sharing off. rb_ssh_master_stop stops them by those PIDs.
declare -ga RB_SSH_MASTERS=()
rb_ssh_master_start() {
  local h t pid ok n=0
  [ "${RB_SSH_SHARE:-1}" != 0 ] || return 0
  [ -z "${RB_SSH_CTL:-}" ] || return 0
  for h in "${!RB_H_ADDR[@]}"; do rb_host_is_local "$h" || n=$((n + 1)); done
  [ "$n" -gt 0 ] || return 0
  rb_ssh_argv
  RB_SSH_CTL=$(mktemp -d /tmp/rbssh.XXXXXX) || { rb_warn "no folder for ssh control sockets: one connection per call"; return 0; }
  local -a ctl=(-o "ControlPath=$RB_SSH_CTL/%C")
  for h in "${!RB_H_ADDR[@]}"; do
    rb_host_is_local "$h" && continue
    t=$(rb_host_target "$h")
    "${RB_SSH_ARGV[@]}" "${ctl[@]}" -o ControlMaster=yes -o ControlPersist=no -o ServerAliveInterval=15 -N "$t" \
      < /dev/null >> "$RB_RUN_DIR/ssh-masters.log" 2>&1 &
    pid=$!
    RB_SSH_MASTERS+=("$pid")
    echo "$pid $t" >> "$RB_RUN_DIR/ssh-masters"
    ok=0
    for _ in $(seq 100); do
      if "${RB_SSH_ARGV[@]}" "${ctl[@]}" -O check "$t" > /dev/null 2>&1; then ok=1; break; fi
      kill -0 "$pid" 2> /dev/null || break
      sleep 0.1
    done
    if [ "$ok" = 0 ]; then
      rb_warn "ssh connection sharing with $t did not come up within 10 s (see $RB_RUN_DIR/ssh-masters.log): plain connections"
      kill -TERM "$pid" 2> /dev/null || true
      wait "$pid" 2> /dev/null || true
    fi
  done
  rb_log "ssh: one shared connection per remote host for this run (control sockets in $RB_SSH_CTL)"
  RB_SSH="${RB_SSH:-ssh -o BatchMode=yes -o ConnectTimeout=10} -o ControlPath=$RB_SSH_CTL/%C -o ControlMaster=no"
  export RB_SSH RB_SSH_CTL
}

# rb_ssh_master_stop: stop the masters rb_ssh_master_start started (by PID)
# and remove their socket folder
rb_ssh_master_stop() {
  local pid
  for pid in "${RB_SSH_MASTERS[@]}"; do kill -TERM "$pid" 2> /dev/null || true; done
  for pid in "${RB_SSH_MASTERS[@]}"; do wait "$pid" 2> /dev/null || true; done
  RB_SSH_MASTERS=()
  [ -z "${RB_SSH_CTL:-}" ] || rm -rf "$RB_SSH_CTL"
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
    "${RB_SSH_ARGV[@]}" "$(rb_host_target "$h")" "echo RB_PID \$\$; export LC_ALL=C; exec $*" > "$log" 2>&1 < /dev/null &
  fi
  RB_SPAWNED="$h:$!:$log"
  RB_PROCS+=("$RB_SPAWNED")
  [ -z "${RB_PIDFILE:-}" ] || echo "$RB_SPAWNED" >> "$RB_PIDFILE"
}

# rb_alive PID: the process exists and is not a zombie waiting to be reaped
# (read in this shell: no subshell, no sed; called in every stop's wait loop).
# The state is field 3 of /proc/PID/stat, one line read whole: a loop of
# `read` over /proc/PID/status that returned at the State line, on a process
# exiting meanwhile, left the rest of that file in bash's input buffer, and
# the job's next `read` from another file (client-K.host) got "Tgid: ..."
# (seen once in ~60 runs of exp_sweep.bats "server_scope = point").
rb_alive() {
  local line
  kill -0 "$1" 2>/dev/null || return 1
  { read -r line < "/proc/$1/stat"; } 2> /dev/null || return 1
  # after the command name "(...)", which may hold spaces: "S ..."
  line=${line##*) }
  [ "${line%% *}" != Z ]
}

# rb_remote_pid_v VAR LOG: the PID a remote process printed first in its
# LOG (the line "RB_PID N" of rb_spawn and rb_spawn_rows) into VAR, empty
# if there is none; read in this shell (no sed and head per stop)
rb_remote_pid_v() {
  local line
  printf -v "$1" '%s' ""
  while IFS= read -r line || [ -n "$line" ]; do
    if [[ $line =~ ^RB_PID\ ([0-9]+)$ ]]; then
      printf -v "$1" '%s' "${BASH_REMATCH[1]}"
      return 0
    fi
  done 2> /dev/null < "$2"
  return 0
}

# rb_stop "host:pid:log": stop one started process by its PID (remote: the
# PID it printed; local: ours), TERM first, KILL after a grace period.
rb_stop() {
  local h pid log rpid=""
  IFS=: read -r h pid log <<< "$1"
  if ! rb_host_is_local "$h"; then
    rb_remote_pid_v rpid "$log"
    if [ -n "$rpid" ] && rb_alive "$pid"; then
      rb_on "$h" kill -TERM "$rpid" > /dev/null 2>&1 || true
    fi
  fi
  if rb_alive "$pid"; then
    kill -TERM "$pid" 2>/dev/null || true
    # 20 ms steps first (the usual case: gone at once), then 100 ms; 5 s in all
    local i
    for ((i = 0; i < 25; i++)); do rb_alive "$pid" || break; sleep 0.02; done
    for ((i = 0; i < 45; i++)); do rb_alive "$pid" || break; sleep 0.1; done
    if rb_alive "$pid"; then
      [ -z "$rpid" ] || rb_on "$h" kill -KILL "$rpid" > /dev/null 2>&1 || true
      kill -KILL "$pid" 2>/dev/null || true
    fi
  fi
  wait "$pid" 2>/dev/null || true
}

# rb_reap_stale: before a resumed sweep, stop what an earlier, killed run of
# it left running: every PID recorded in pids (the sweep's server) and
# points/*/pids that is still alive
# and still runs our binary (its command line names it; a reused PID does
# not), remote ones by the PID they printed. Nothing is stopped by name.
rb_reap_stale() {
  local f n=0
  for f in "$RB_RUN_DIR"/pids "$RB_RUN_DIR"/points/*/pids; do
    [ -r "$f" ] || continue
    n=$(( n + $(rb_reap_pidfile "$f") ))
  done
  [ "$n" = 0 ] || rb_log "resume: stopped $n process(es) left running by the interrupted run (by their recorded PIDs)"
}

# rb_reap_pidfile FILE: kill what FILE ("host:pid:log" lines) records and
# still runs our binary (remote: the PID it printed); prints how many
rb_reap_pidfile() {
  local f=$1 h pid log rpid base n=0
  base=$(basename "$RB_BIN")
  while IFS=: read -r h pid log; do
    [[ $h =~ ^[0-9]+$ && $pid =~ ^[0-9]+$ ]] || continue
    [ "$h" -lt "${#RB_H_ADDR[@]}" ] || continue
    if ! rb_host_is_local "$h"; then
      rb_remote_pid_v rpid "$log"
      if [ -n "$rpid" ] && rb_on "$h" grep -q "$base" "/proc/$rpid/cmdline" > /dev/null 2>&1; then
        rb_on "$h" kill -KILL "$rpid" > /dev/null 2>&1 && n=$((n + 1))
      fi
    fi
    if kill -0 "$pid" 2>/dev/null && tr '\0' ' ' < "/proc/$pid/cmdline" 2>/dev/null | grep -F "$base" > /dev/null; then
      kill -KILL "$pid" 2>/dev/null && n=$((n + 1))
    fi
  done < "$f"
  echo "$n"
}

# rb_procs_forget "host:pid:log": take a process off RB_PROCS (it outlives
# the job: the sweep's server)
rb_procs_forget() {
  local p
  local -a keep=()
  for p in "${RB_PROCS[@]}"; do [ "$p" = "$1" ] || keep+=("$p"); done
  RB_PROCS=("${keep[@]}")
}

rb_stop_all() {
  local p
  for p in "${RB_PROCS[@]}"; do rb_stop "$p"; done
  RB_PROCS=()
}


# rb_rdir HOST_INDEX -> this run's private folder on a remote host, made by
# the deploy step (rb_remote_dir_make, check.sh) and listed in
# $RB_RUN_DIR/remote-dirs as "HOST_INDEX PATH"; status 1 if there is none
rb_rdir() {
  local d
  rb_rdir_v d "$1" || return 1
  echo "$d"
}
# rb_rdir_v VAR HOST_INDEX: the same into VAR, in this shell (no subshell)
rb_rdir_v() {
  local i p
  if [ -r "$RB_RUN_DIR/remote-dirs" ]; then
    while read -r i p; do [ "$i" != "$2" ] || { printf -v "$1" '%s' "$p"; return 0; }; done < "$RB_RUN_DIR/remote-dirs"
  fi
  echo "rdma_bench: no deployed folder for host $(( $2 + 1 )) (${RB_H_ADDR[$2]})" >&2
  return 1
}
# rb_token_on HOST_INDEX -> this run's token file (--token-file) on that host
rb_token_on() { if rb_host_is_local "$1"; then echo "$RB_RUN_DIR/token"; else echo "$(rb_rdir "$1")/token"; fi; }
# rb_bind_addr HOST_INDEX -> the address the clients reach the server at,
# which it listens on alone (--bind): the hosts file's address, 127.0.0.1 here
rb_bind_addr() { if rb_host_is_local "$1"; then echo 127.0.0.1; else echo "${RB_H_ADDR[$1]}"; fi; }

# rb_argv_v ARRAY HOST_INDEX WORD...: ARRAY = the command of a process
# (server or client) on that host: numactl --cpunodebind/--membind when the
# hosts file gives a NUMA node, the binary's path there (this run's private
# folder on a remote host), WORDs, then -d DEV [-x GID] from the hosts file;
# built in this shell (the job's path: no subshell per process).
rb_argv_v() {
  local -n _a=$1
  local h=$2 d
  shift 2
  _a=()
  [ "${RB_H_NUMA[h]}" = - ] || _a+=(numactl "--cpunodebind=${RB_H_NUMA[h]}" "--membind=${RB_H_NUMA[h]}")
  # (no folder: rb_rdir_v's message, and a path that does not exist)
  if rb_host_is_local "$h"; then _a+=("$RB_BIN"); else rb_rdir_v d "$h" || d=""; _a+=("$d/${RB_BIN##*/}"); fi
  _a+=("$@")
  [ "${RB_H_DEV[h]}" = - ] || _a+=(-d "${RB_H_DEV[h]}")
  [ "${RB_H_GID[h]}" = - ] || _a+=(-x "${RB_H_GID[h]}")
  return 0
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

# rb_pick_target: where `make figure-N` / `make search` run, printed as one
# word: RB_TARGET when set; vm1 for VMS=1 (one VM, the RDMA software path);
# hosts with HOSTS=FILE; local when this machine has an ACTIVE RDMA port
# (said on stderr); else vm (the two-VM soft-RoCE bed).
rb_pick_target() {
  local ad
  if [ -n "${RB_TARGET:-}" ]; then echo "$RB_TARGET"
  elif [ "${VMS:-2}" = 1 ]; then echo vm1
  elif [ -n "${HOSTS:-}" ]; then echo hosts
  elif ad=$(rb_active_device); then
    rb_log "reproduce: local RDMA port ACTIVE (${ad% *} port ${ad#* })"
    echo local
  else echo vm
  fi
}
