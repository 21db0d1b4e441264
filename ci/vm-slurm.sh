# shellcheck shell=bash disable=SC2154  # run, cache, vms, smp, netns: set by ci/vm or ci/bed-slurm
# ci/vm-slurm.sh: a real Slurm on the VM bed (ci/vm run --vms N --slurm).
# Sourced by ci/vm; functions only. Uses ci/vm's $run, $netns, $vms, $smp,
# $slurm_ssh (its ssh command), log, die and show_console_tail.
#
# What runs where (Debian 12's Slurm 22.05 and MUNGE, no systemd, no
# cgroups; /work/shared notes "Slurm on these machines"):
#   head node (the host, inside the bed's namespace): munged and slurmctld,
#     both in the foreground as children of ci/vm: their PIDs are $! and
#     they are stopped by those PIDs (slurm_stop) on every exit path
#   vm1..vmN: munged and slurmd, started over ssh once the VM is up; they
#     go with their VM (and are stopped by their pid files first on a
#     normal end)
# Files, in RUN/slurm/ (the run folder, /ctl/slurm inside the VMs):
#   cgroup.conf    cgroup/v1, no automount (slurmd needs one loaded)
#   slurm.conf     nodes vm1..vmN (CPUs = --smp), one partition "bed",
#                  proctrack/linuxproc, task/none, select/linear, no
#                  accounting, ports 16817 (slurmctld) and 16818 (slurmd)
#   munge.key      this run's key (1024 random bytes, mode 400)
#   slurmctld.log munged-head.log slurmd-vmI.log munged-vmI.log
# MUNGE's socket is /tmp/rb-slurm-<ci/vm's PID>/munge.socket on the head
# and in every VM (one slurm.conf names one path; the VMs' /tmp is their
# own tmpfs); that folder is removed on every exit path.
# The command gets SLURM_CONF (the head's path to slurm.conf).

slurm=0
slurm_pids=()
slurm_sockdir=""
slurm_ssh=""

# slurm_check: the host has what --slurm needs, and the image carries it
slurm_check() {
  local p
  for p in slurmctld munged srun sinfo scontrol; do
    command -v "$p" > /dev/null ||
      die 2 "--slurm: $p not found on this host (fix: env/install-deps --vm installs slurmctld, slurmd, slurm-client and munge)"
  done
  grep -q '^slurm ' "$cache/image.key" ||
    die 2 "--slurm: the VM image in $cache has no slurmd (it was built before Slurm was installed; fix: env/install-deps --vm, then ci/vm image --force)"
}

# slurm_conf_write: RUN/slurm/slurm.conf and the run's MUNGE key
slurm_conf_write() {
  local d=$run/slurm i
  mkdir -p "$d/state"
  chmod 755 "$d"
  slurm_sockdir=/tmp/rb-slurm-$$
  mkdir -p "$slurm_sockdir"
  chmod 755 "$slurm_sockdir"
  # for a check after the run that it is gone (ci/vm-exit-paths)
  echo "$slurm_sockdir" > "$d/sockdir"
  rm -f "$d/munge.key"
  head -c 1024 /dev/urandom > "$d/munge.key"
  chmod 400 "$d/munge.key"
  {
    echo "# the VM bed's Slurm (ci/vm-slurm.sh), one run: $run"
    echo "ClusterName=rbbed"
    # the controller is this host by its own name (slurmctld checks it),
    # reached at the bridge's address
    echo "SlurmctldHost=$(hostname -s)(198.18.0.254)"
    echo "SlurmctldPort=16817"
    echo "SlurmdPort=16818"
    echo "SlurmUser=root"
    echo "SlurmdUser=root"
    echo "AuthType=auth/munge"
    echo "CredType=cred/munge"
    echo "AuthInfo=socket=$slurm_sockdir/munge.socket"
    echo "ProctrackType=proctrack/linuxproc"
    echo "TaskPlugin=task/none"
    echo "JobAcctGatherType=jobacct_gather/none"
    echo "AccountingStorageType=accounting_storage/none"
    echo "JobCompType=jobcomp/none"
    echo "SwitchType=switch/none"
    echo "MpiDefault=none"
    echo "SelectType=select/linear"
    echo "SchedulerType=sched/builtin"
    # a VM's own limits (memlock unlimited, set by its init) for the tasks,
    # not the head's
    echo "PropagateResourceLimits=NONE"
    echo "ReturnToService=2"
    # TCG VMs on a loaded host answer slowly
    echo "MessageTimeout=30"
    echo "SlurmdTimeout=120"
    echo "KillWait=5"
    echo "InactiveLimit=0"
    echo "StateSaveLocation=$d/state"
    echo "SlurmctldPidFile=$d/slurmctld.pid"
    echo "SlurmctldLogFile=$d/slurmctld.log"
    # slurmd's paths are the VM's (/ctl is this run folder there)
    echo "SlurmdSpoolDir=/var/spool/slurmd"
    echo "SlurmdPidFile=/run/slurmd.pid"
    echo "SlurmdLogFile=/ctl/slurm/slurmd-%n.log"
    for ((i = 1; i <= vms; i++)); do
      echo "NodeName=vm$i NodeAddr=198.18.0.$i CPUs=$smp Sockets=1 CoresPerSocket=$smp ThreadsPerCore=1 State=UNKNOWN"
    done
    echo "PartitionName=bed Nodes=ALL Default=YES MaxTime=INFINITE State=UP"
  } > "$d/slurm.conf"
  # slurmd 22.05 loads a cgroup plugin even when nothing uses cgroups
  # (proctrack/linuxproc, task/none): cgroup/v1 on an empty named
  # hierarchy the VM mounts (slurm_node_cmd) is enough for it to start
  printf 'CgroupPlugin=cgroup/v1\nCgroupAutomount=no\n' > "$d/cgroup.conf"
}

# slurm_head_start: munged and slurmctld on the head node, in the namespace
slurm_head_start() {
  local d=$run/slurm
  ip netns exec "$netns" munged -F --key-file="$d/munge.key" --socket="$slurm_sockdir/munge.socket" \
    --pid-file="$slurm_sockdir/munged.pid" --seed-file="$slurm_sockdir/munged.seed" \
    --log-file="$d/munged-head.log" > "$d/munged-head.out" 2>&1 < /dev/null &
  slurm_pids+=("$!")
  local n
  for ((n = 0; n < 100; n++)); do [ -S "$slurm_sockdir/munge.socket" ] && break; sleep 0.1; done
  [ -S "$slurm_sockdir/munge.socket" ] || {
    cat "$d/munged-head.out" >&2
    die 2 "--slurm: munged on the head node did not open $slurm_sockdir/munge.socket within 10 s (log: $d/munged-head.log)"
  }
  ip netns exec "$netns" slurmctld -D -i -f "$d/slurm.conf" > "$d/slurmctld.out" 2>&1 < /dev/null &
  slurm_pids+=("$!")
}

# slurm_node_cmd I: the shell command that starts munged and slurmd in vmI
slurm_node_cmd() {
  local i=$1
  echo "mkdir -p /etc/munge /var/spool/slurmd $slurm_sockdir && chmod 755 $slurm_sockdir &&" \
    "{ mountpoint -q /sys/fs/cgroup || mount -t tmpfs cgroup /sys/fs/cgroup; } &&" \
    "mkdir -p /sys/fs/cgroup/systemd && { mountpoint -q /sys/fs/cgroup/systemd ||" \
    "mount -t cgroup -o none,name=systemd cgroup /sys/fs/cgroup/systemd; } &&" \
    "cp /ctl/slurm/munge.key /etc/munge/munge.key && chmod 400 /etc/munge/munge.key &&" \
    "munged --key-file=/etc/munge/munge.key --socket=$slurm_sockdir/munge.socket" \
    "--pid-file=/run/munged.pid --seed-file=/run/munged.seed --log-file=/ctl/slurm/munged-vm$i.log &&" \
    "slurmd -f /ctl/slurm/slurm.conf"
}

# slurm_nodes_start: munged and slurmd in every VM (over ssh), then wait
# (bounded: 60 s plus 15 s per VM) until sinfo shows every node idle
slurm_nodes_start() {
  local i t0 limit st
  for ((i = 1; i <= vms; i++)); do
    ip netns exec "$netns" $slurm_ssh "root@198.18.0.$i" "$(slurm_node_cmd "$i")" < /dev/null > "$run/slurm/start-vm$i.log" 2>&1 ||
      { cat "$run/slurm/start-vm$i.log" >&2; tail -n 5 "$run/slurm/slurmd-vm$i.log" >&2 2> /dev/null; die 2 "--slurm: munged or slurmd did not start in vm$i (logs: $run/slurm/)"; }
  done
  t0=$(date +%s)
  limit=$(( 60 + 15 * vms ))
  while :; do
    st=$(ip netns exec "$netns" env SLURM_CONF="$run/slurm/slurm.conf" sinfo -h -N -o '%N %t' 2> /dev/null | sort -u)
    [ "$(grep -c ' idle$' <<< "$st")" = "$vms" ] && break
    if [ $(( $(date +%s) - t0 )) -ge "$limit" ]; then
      log "--slurm: the nodes are not all idle within $limit s: $(tr '\n' ' ' <<< "${st:-no answer from slurmctld}")"
      tail -n 20 "$run/slurm/slurmctld.log" >&2 2> /dev/null
      exit 124
    fi
    sleep 1
  done
  log "Slurm up in $(( $(date +%s) - t0 )) s: vm1..vm$vms idle (SLURM_CONF=$run/slurm/slurm.conf)"
}

# slurm_stop: on every exit path. The VMs' daemons by their pid files (a
# normal end; the VMs' stop ends them anyway), then the head's by the PIDs
# we started them with: TERM, up to 5 s, KILL. The socket folder goes.
slurm_stop() {
  local pid i n
  if [ "$slurm" = 1 ] && [ -n "$netns" ] && [ "${#slurm_pids[@]}" -gt 0 ]; then
    for ((i = 1; i <= vms; i++)); do
      timeout 10 ip netns exec "$netns" $slurm_ssh "root@198.18.0.$i" \
        'for f in /run/slurmd.pid /run/munged.pid; do [ -r $f ] && kill $(cat $f); done' < /dev/null > /dev/null 2>&1 || true
    done
  fi
  for pid in "${slurm_pids[@]}"; do kill -TERM "$pid" 2> /dev/null || true; done
  for pid in "${slurm_pids[@]}"; do
    for ((n = 0; n < 50; n++)); do kill -0 "$pid" 2> /dev/null || break; sleep 0.1; done
    kill -KILL "$pid" 2> /dev/null || true
    wait "$pid" 2> /dev/null || true
  done
  slurm_pids=()
  [ -z "$slurm_sockdir" ] || rm -rf "$slurm_sockdir"
  slurm_sockdir=""
}
