# shellcheck shell=bash
# experiments/lib/manifest.sh: what a run was measured on: the load of
# every host before and after each point (columns of the rows), and the
# run manifest, results/<exp>/<run>/manifest.json.
# Sourced by runner.sh; functions only.

# ---- load average per point ---------------------------------------------------------
# Every row carries the 1-minute load average (/proc/loadavg's first field)
# of every host of the hosts file just before the point's clients start and
# once they are done: columns load1_before_hN and load1_after_hN (N: the
# hosts-file line). A local host's file is read when asked. A remote host
# would cost an ssh session per read, twice per point (experiments/README.md,
# "Measured costs"), so one monitor per remote host runs for the whole sweep: a
# shell loop there prints its loadavg once a second (the kernel updates it
# every 5 s) into RB_RUN_DIR/load-hN.log, and a read takes that file's last
# line at once. A monitor that has written nothing for 5 s gives an empty
# value (never a stale one).

# rb_load_monitor_start: before the sweep, one monitor per remote host
# (its local ssh PID in RB_RUN_DIR/load-monitors; rb_load_monitor_stop
# stops it by that PID, and the loop on the host ends at its next write)
rb_load_monitor_start() {
  local h
  rb_load_monitor_stop
  rb_ssh_argv
  for h in "${!RB_H_ADDR[@]}"; do
    rb_host_is_local "$h" && continue
    # shellcheck disable=SC2016  # expanded by the host's shell
    "${RB_SSH_ARGV[@]}" "$(rb_host_target "$h")" \
      'while read -r l _ < /proc/loadavg; do echo "$l" || exit 0; sleep 1; done' \
      > "$RB_RUN_DIR/load-h$((h + 1)).log" 2> /dev/null < /dev/null &
    echo "$!" >> "$RB_RUN_DIR/load-monitors"
  done
}

# rb_load_monitor_stop: after the sweep and on every way out of the run
rb_load_monitor_stop() {
  local p
  [ -n "${RB_RUN_DIR:-}" ] && [ -r "$RB_RUN_DIR/load-monitors" ] || return 0
  while read -r p; do
    [[ $p =~ ^[0-9]+$ ]] && kill "$p" 2> /dev/null || true
  done < "$RB_RUN_DIR/load-monitors"
  rm -f "$RB_RUN_DIR/load-monitors"
}

# rb_load_sample PHASE DIR: append load1_PHASE_hN=VALUE for every host to
# DIR/load.cols (VALUE empty when unknown). PHASE: before or after. Waits
# (at most 3 s) only for a monitor's first line at the start of a sweep.
rb_load_sample() {
  local phase=$1 dir=$2 h l f i now
  for h in "${!RB_H_ADDR[@]}"; do
    l=""
    if rb_host_is_local "$h"; then
      read -r l _ < /proc/loadavg || l=""
    else
      f=$RB_RUN_DIR/load-h$((h + 1)).log
      for ((i = 0; i < 60; i++)); do [ -s "$f" ] && break; sleep 0.05; done
      now=$EPOCHSECONDS
      if [ -s "$f" ] && [ $(( now - $(stat -c %Y "$f" 2> /dev/null || echo 0) )) -le 5 ]; then
        l=$(tail -n 1 "$f")
      fi
    fi
    [[ $l =~ ^[0-9]+(\.[0-9]+)?$ ]] || l=""
    echo "load1_${phase}_h$((h + 1))=$l"
  done >> "$dir/load.cols"
}

# ---- the run manifest ---------------------------------------------------------------
# The manifest is JSON written by Python's json module (experiments/lib/
# jsondoc.py): the shell only hands it PATH TYPE VALUE records, so no value
# is ever escaped by hand.

# rb_jrec PATH TYPE VALUE: one record for jsondoc.py (TYPE s: string, n:
# number or null, l: true/false/null, o/a: empty object/list)
rb_jrec() { printf '%s\0%s\0%s\0' "$1" "$2" "$3"; }

# The facts of one host, gathered by one shell script run there (sh: the
# VMs have busybox), as KEY=VALUE lines. DEV is the host's RDMA device from
# the hosts file (- for the first one sysfs lists). Driver: the kernel
# driver of the device's PCI function, else (soft-RoCE, soft-iWARP: no
# PCI device) the device name's driver (rdma_rxe, siw); PCIe link: the
# function's current_link_speed and _width, or "none" without a PCI device.
# shellcheck disable=SC2016  # expanded by the host's shell, not here
RB_HOST_FACTS_SH='
d=$1
[ "$d" != - ] || d=$(ls /sys/class/infiniband 2>/dev/null | head -n 1)
echo "hostname=$(hostname 2>/dev/null || cat /proc/sys/kernel/hostname)"
echo "kernel=$(uname -r)"
echo "cpu_model=$(sed -n "s/^model name[[:space:]]*: *//p" /proc/cpuinfo | head -n 1)"
echo "cores=$(grep -c ^processor /proc/cpuinfo)"
echo "mem_kib=$(sed -n "s/^MemTotal: *\([0-9]*\) kB/\1/p" /proc/meminfo)"
echo "load1=$(cut -d " " -f 1 /proc/loadavg)"
echo "load=$(cut -d " " -f 1-3 /proc/loadavg)"
echo "hypervisor=$(grep -q "^flags.* hypervisor" /proc/cpuinfo && echo yes || echo no)"
echo "rdma_device=${d:-none}"
s=/sys/class/infiniband/$d
if [ -n "$d" ] && [ -d "$s" ]; then
  echo "fw_ver=$(cat "$s/fw_ver" 2>/dev/null)"
  echo "node_type=$(cat "$s/node_type" 2>/dev/null)"
  echo "link_layer=$(cat "$s/ports/1/link_layer" 2>/dev/null)"
  echo "port_rate=$(cat "$s/ports/1/rate" 2>/dev/null)"
  if [ -e "$s/device/driver" ]; then
    echo "driver=$(basename "$(readlink "$s/device/driver")")"
    sp=$(cat "$s/device/current_link_speed" 2>/dev/null)
    wd=$(cat "$s/device/current_link_width" 2>/dev/null)
    if [ -n "$sp" ]; then echo "pcie_link=$sp x$wd"; else echo "pcie_link=none"; fi
  else
    case $d in rxe*) echo "driver=rdma_rxe" ;; siw*) echo "driver=siw" ;; *) echo "driver=unknown" ;; esac
    echo "pcie_link=none"
  fi
fi
'

# rb_host_facts HOST_INDEX OUT: the host's facts into OUT (KEY=VALUE lines;
# nothing if the host did not answer)
rb_host_facts() {
  local h=$1 out=$2
  if rb_host_is_local "$h"; then
    sh -c "$RB_HOST_FACTS_SH" sh "${RB_H_DEV[h]}" > "$out" 2> /dev/null || true
  else
    rb_ssh_argv
    "${RB_SSH_ARGV[@]}" "$(rb_host_target "$h")" sh -s -- "${RB_H_DEV[h]}" \
      <<< "$RB_HOST_FACTS_SH" > "$out" 2> /dev/null || true
  fi
}

# rb_kv_load ARRAY FILE: every KEY=VALUE line of FILE into the associative
# ARRAY (the last one of a KEY wins); nothing if FILE is unreadable
rb_kv_load() {
  local -n _kv=$1
  local line
  [ -r "$2" ] || return 0
  while IFS= read -r line || [ -n "$line" ]; do
    [[ $line == [A-Za-z_]*=* ]] || continue
    _kv[${line%%=*}]=${line#*=}
  done < "$2"
}

# rb_manifest_write OUT CMDLINE...: OUT (RB_RUN_DIR/manifest.json): the suite's git
# revision (and whether the tree had changes), the exact command, QUICK,
# repetitions, the run's ids and times, per host its facts (rb_host_facts,
# gathered on all hosts at once), and on the VM test bed ($RB_VM_RUN/bed.env,
# written by ci/vm) the bed: qemu, accelerator, VMs' vCPUs and memory, the
# physical host's cores and CPU model, the VM run folder. Checked with
# `python3 -m json.tool` or jq by tests/bats/exp_manifest.bats.
rb_manifest_write() {
  local m=$1 tmp rev dirty h f k pids=() bed=${RB_VM_RUN:+$RB_VM_RUN/bed.env}
  shift
  tmp=$(mktemp -d)
  for h in "${!RB_H_ADDR[@]}"; do
    rb_host_facts "$h" "$tmp/host-$h" &
    pids+=("$!")
  done
  # the commit and whether a tracked file differs from it, in one git call
  # ("# branch.oid SHA" then a line per changed file; "(initial)": no commit)
  local st line
  rev=unknown dirty=null
  if st=$(git -C "$RB_ROOT" status --porcelain=v2 --branch --untracked-files=no 2> /dev/null); then
    dirty=false
    while IFS= read -r line; do
      case $line in
        "# branch.oid "*) rev=${line#"# branch.oid "} ;;
        "#"*) ;;
        ?*) dirty=true ;;
      esac
    done <<< "$st"
    [[ $rev =~ ^[0-9a-f]{40}([0-9a-f]{24})?$ ]] || rev=unknown dirty=null
  fi
  # inside a VM of the bed there is no git: the bed read it on the host
  local -A bedkv=()
  [ -z "$bed" ] || rb_kv_load bedkv "$bed"
  if [ "$rev" = unknown ] && [ -n "${bedkv[git_rev]:-}" ]; then
    rev=${bedkv[git_rev]}
    case ${bedkv[git_dirty]:-} in true|false) dirty=${bedkv[git_dirty]} ;; esac
  fi
  for f in "${pids[@]}"; do wait "$f" || true; done
  # the files read into arrays once: no subshell per value
  local -a clients
  local kind="" quick=false
  { read -r kind < "$RB_RUN_DIR/grid.kind"; } 2> /dev/null || true
  [ "$kind" != quick ] || quick=true
  read -r -a clients <<< "$(rb_client_hosts)"
  {
    rb_jrec schema n 1
    rb_jrec experiment s "$RB_EXP"
    rb_jrec run_id s "$RB_RUN_ID"
    rb_jrec started_utc s "$(date -u +%Y-%m-%dT%H:%M:%SZ)"
    rb_jrec git_rev s "$rev"
    rb_jrec git_dirty l "$dirty"
    rb_jrec command a ""
    k=0
    for f in "$@"; do rb_jrec "command.$k" s "$f"; k=$((k + 1)); done
    rb_jrec cwd s "$PWD"
    rb_jrec env.QUICK s "${QUICK:-}"
    rb_jrec env.RB_HOSTS s "${RB_HOSTS:-}"
    rb_jrec env.HOSTS s "${HOSTS:-}"
    rb_jrec env.RB_ACCEL s "${RB_ACCEL:-}"
    rb_jrec env.RB_VM_RUN s "${RB_VM_RUN:-}"
    # the NIC providers' tuning variables (rdma-core's mlx5/mlx4: doorbell and
    # UAR sharing, inline, CQE size ...) as this shell has them
    for k in $(compgen -e | grep -E '^MLX[45]_' || true); do
      rb_jrec "env.$k" s "${!k}"
    done
    rb_jrec quick l "$quick"
    rb_jrec repetitions n "${RB_CONF[run.repetitions]:-3}"
    rb_jrec noisy_cv_pct n "${RB_CONF[run.noisy_cv_pct]:-20}"
    rb_jrec binary s "$RB_BIN"
    rb_jrec roles.server s "${RB_CONF[roles.server]:-1}"
    rb_jrec roles.clients s "${clients[*]}"
    rb_jrec hosts a ""
    for h in "${!RB_H_ADDR[@]}"; do
      f=$tmp/host-$h
      local -A fact=()
      rb_kv_load fact "$f"
      rb_jrec "hosts.$h.line" n "$((h + 1))"
      rb_jrec "hosts.$h.address" s "${RB_H_ADDR[h]}"
      rb_jrec "hosts.$h.device" s "${RB_H_DEV[h]}"
      rb_jrec "hosts.$h.answered" l "$([ -s "$f" ] && echo true || echo false)"
      for k in hostname kernel cpu_model hypervisor rdma_device driver fw_ver node_type link_layer port_rate pcie_link load; do
        rb_jrec "hosts.$h.$k" s "${fact[$k]:-}"
      done
      for k in cores mem_kib load1; do
        rb_jrec "hosts.$h.$k" n "${fact[$k]:-}"
      done
    done
    if [ -n "$bed" ] && [ -r "$bed" ]; then
      for k in vm_run vms accel accel_requested qemu vcpus_per_vm mem_mib_per_vm host_cores host_cpu_model host_kernel host_load image; do
        case $k in
          vms|vcpus_per_vm|mem_mib_per_vm|host_cores) rb_jrec "vm_bed.$k" n "${bedkv[$k]:-}" ;;
          *) rb_jrec "vm_bed.$k" s "${bedkv[$k]:-}" ;;
        esac
      done
    else
      rb_jrec vm_bed l null
    fi
  } | "$RB_PY" -S "$RB_LIB/jsondoc.py" > "$m.tmp"
  rm -rf "$tmp"
  mv "$m.tmp" "$m"
  if [ -n "$bed" ] && [ -r "$bed" ]; then ln -sfn "${bedkv[vm_run]:-}" "$RB_RUN_DIR/vm-run"; fi
}
