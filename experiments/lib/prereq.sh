# shellcheck shell=bash
# experiments/lib/prereq.sh: what every host of a run needs before the
# sweep, every host at once, each failure naming the host and the fix:
#   ssh        a session opens without a password (BatchMode=yes: the
#              runner's sessions cannot answer a prompt): rb_prereq_ssh,
#              before the environment check
# and after the deploy, rb_prereq_check:
#   binary     the deployed binary starts there (`rdma_bench --version`): a
#              host whose rdma-core or glibc does not match the build
#              fails here, with the loader's message, not in the sweep
#   device     the hosts line's device, when it names one, exists and has
#              an ACTIVE port (rdma_bench picks the first ACTIVE one unless
#              -i says otherwise); its GID index, when the line gives one,
#              is a valid entry of that port (a line with device "-" leaves
#              the choice to rdma_bench and to env/check)
# Skipped with the environment check (--no-env-check, RB_NO_ENV_CHECK=1):
# the same hosts were checked a moment before (a companion run), or the
# caller takes the risk, which env-check.txt records. Sourced by
# runner.sh; functions only.

# RB_PREREQ_SH: the script each host runs (bash, POSIX tools only: it runs
# on hosts where only the binary was deployed). Arguments: BINARY DEVICE
# GID ("-" for none). It prints one line per problem, "KIND: WHAT", and
# nothing when the host is ready. RB_SYSFS_IB (the tests' fake tree)
# replaces /sys/class/infiniband.
# shellcheck disable=SC2016  # expanded by the host's shell
RB_PREREQ_SH='
bin=$1 dev=$2 gid=$3
sys=${RB_SYSFS_IB:-/sys/class/infiniband}
if ! out=$(timeout 10 "$bin" --version 2>&1 < /dev/null); then
  printf "binary: %s --version failed: %s\n" "$bin" "$(printf "%s" "$out" | tr "\n" " " | cut -c1-240)"
fi
[ "$dev" != - ] || exit 0
if [ ! -d "$sys/$dev" ]; then
  printf "device: %s not found (devices: %s)\n" "$dev" "$(ls "$sys" 2> /dev/null | tr "\n" " " | sed "s/ *$//")"
  exit 0
fi
act="" states=""
for p in "$sys/$dev"/ports/*; do
  [ -r "$p/state" ] || continue
  s=$(cat "$p/state")
  states="$states ${p##*/}:${s#*: }"
  case $s in *ACTIVE*) [ -n "$act" ] || act=${p##*/} ;; esac
done
if [ -z "$act" ]; then
  printf "device: %s has no ACTIVE port (ports:%s)\n" "$dev" "${states:- none}"
elif [ "$gid" != - ]; then
  g=$(cat "$sys/$dev/ports/$act/gids/$gid" 2> /dev/null)
  case $g in
    "" | 0000:0000:0000:0000:0000:0000:0000:0000 | *:0000:0000:0000:0000)
      printf "gid: %s port %s has no GID at index %s\n" "$dev" "$act" "$gid" ;;
  esac
fi
'

# rb_prereq_fix KIND HOST: the fix for a failure of that kind on HOST
rb_prereq_fix() {
  case $1 in
    ssh) echo "give the runner a key without a passphrase prompt: ssh-copy-id $2 (or an ssh-agent), then check: ssh -o BatchMode=yes $2 true" ;;
    binary) echo "build on a host with the same rdma-core and glibc as $2 (or install them there: env/install-deps; env/check --host $2), or give --bin a binary built for it" ;;
    device) echo "name an existing device with an ACTIVE port in the hosts line (ibv_devinfo on $2; env/check --host $2 tells why a port is down)" ;;
    gid) echo "use a valid GID index for that port in the hosts line (show_gids or env/check --host $2), or - to let rdma_bench pick" ;;
  esac
}

# rb_prereq_ssh: every remote host opens a session without a password
# (all at once, each bounded by timeout 30 and BatchMode=yes); die (exit 2)
# naming each host that does not, with the fix. Called before the
# environment check, which already talks to the hosts over ssh.
rb_prereq_ssh() {
  [ "${RB_NO_ENV_CHECK:-0}" != 1 ] || return 0
  local h t name failed=0
  local -a pids=() hs=()
  rb_ssh_argv
  for h in "${!RB_H_ADDR[@]}"; do
    rb_host_is_local "$h" && continue
    t=$(rb_host_target "$h")
    name=$(rb_host_name "$h")
    timeout 30 "${RB_SSH_ARGV[@]}" -o BatchMode=yes "$t" true < /dev/null > /dev/null 2> "$RB_RUN_DIR/prereq-$name.ssh" &
    pids+=("$!") hs+=("$h")
  done
  for h in "${!pids[@]}"; do
    wait "${pids[h]}" && continue
    t=$(rb_host_target "${hs[h]}")
    name=$(rb_host_name "${hs[h]}")
    failed=1
    rb_log "prerequisites: $name FAILED: ssh: ${RB_SSH_ARGV[*]} -o BatchMode=yes $t true: $(tr '\n' ' ' < "$RB_RUN_DIR/prereq-$name.ssh" | cut -c1-240)"
    rb_log "  fix: $(rb_prereq_fix ssh "$t")"
  done
  [ "$failed" = 0 ] || rb_die "a host does not accept ssh without a password (above: each host and the fix); nothing was measured"
}

# rb_prereq_check: after the deploy, every host's binary and device (all
# hosts at once, the script RB_PREREQ_SH on each); die (exit 2) naming each
# host that fails, what failed and the fix.
rb_prereq_check() {
  [ "${RB_NO_ENV_CHECK:-0}" != 1 ] || return 0
  local h t name d failed=0 line kind
  local -a pids=()
  rb_ssh_argv
  for h in "${!RB_H_ADDR[@]}"; do
    name=$(rb_host_name "$h")
    (
      if rb_host_is_local "$h"; then
        bash -c "$RB_PREREQ_SH" prereq "$RB_BIN" "${RB_H_DEV[h]}" "${RB_H_GID[h]}"
      elif rb_rdir_v d "$h" 2> /dev/null; then
        printf '%s' "$RB_PREREQ_SH" | timeout 60 "${RB_SSH_ARGV[@]}" "$(rb_host_target "$h")" \
          "bash -s -- $d/${RB_BIN##*/} ${RB_H_DEV[h]} ${RB_H_GID[h]}" 2>&1 || echo "binary: the check did not finish (ssh or timeout 60 s: status $?)"
      else
        echo "binary: not deployed (no private folder)"
      fi > "$RB_RUN_DIR/prereq-$name.txt"
    ) &
    pids+=("$!")
  done
  for h in "${pids[@]}"; do wait "$h" || true; done
  for h in "${!RB_H_ADDR[@]}"; do
    name=$(rb_host_name "$h")
    t=$(rb_host_target "$h")
    if [ ! -s "$RB_RUN_DIR/prereq-$name.txt" ]; then
      if [ "${RB_H_DEV[h]}" = - ]; then line="no device named: rdma_bench picks"; else line="device ${RB_H_DEV[h]}: an ACTIVE port"; fi
      rb_log "prerequisites: $name ok ($(basename "$RB_BIN") --version starts; $line)"
      continue
    fi
    failed=1
    while IFS= read -r line; do
      kind=${line%%:*}
      case $kind in binary | device | gid) ;; *) kind=binary ;; esac
      rb_log "prerequisites: $name FAILED: $line"
      rb_log "  fix: $(rb_prereq_fix "$kind" "$t")"
    done < "$RB_RUN_DIR/prereq-$name.txt"
  done
  [ "$failed" = 0 ] || rb_die "a host is not ready for the sweep (above: each host, what failed and the fix); nothing was measured"
}
