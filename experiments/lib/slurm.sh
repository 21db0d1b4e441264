# shellcheck shell=bash
# experiments/lib/slurm.sh: the Slurm launcher (experiments/run --launcher
# slurm, or LAUNCHER=slurm with make). Sourced by runner.sh; functions only.
#
# Inside an allocation (salloc, sbatch: SLURM_JOB_ID and
# SLURM_JOB_NODELIST set) the run's hosts are the allocation's nodes, in
# Slurm's order (`scontrol show hostnames "$SLURM_JOB_NODELIST"`): the
# first serves, the client processes go round robin over the others (one
# node: every role on it). Every process is one job step of its own,
# `srun --nodes=1 --ntasks=1 -w NODE` (experiments/lib/srun-ssh, which
# stands in for ssh, so the sweep is the same: GNU parallel, one point at
# a time, every process stopped by its PID). The steps are named
# $RB_SLURM_TAG; on every exit path experiments/run cancels the steps of
# that name that are still there (scancel JOBID.STEP), and no other.
# The nodes' RDMA device and GID index: RB_SLURM_DEVICE and RB_SLURM_GID
# ('-' or unset: rdma_bench's own choice, the first device).

# rb_slurm_hosts NODE...: the hosts file of the allocation's nodes, on
# stdout: a comment, then "NODE DEVICE GID - -" per node, in the order
# given (line 1 = the server). Status 1 with nothing printed when no node
# is given or a name is not a plain host name.
rb_slurm_hosts() {
  local n dev=${RB_SLURM_DEVICE:--} gid=${RB_SLURM_GID:--}
  [ $# -gt 0 ] || return 1
  for n in "$@"; do [[ $n =~ $RB_HOST_RE && $n != -* ]] || return 1; done
  [[ $dev =~ $RB_WORD_RE ]] || return 1
  [[ $gid =~ ^([0-9]+|-)$ ]] || return 1
  echo "# address device gid_index numa user (Slurm job ${SLURM_JOB_ID:-?}: server = line 1)"
  for n in "$@"; do echo "$n $dev $gid - -"; done
}

# rb_slurm_roles NODE_COUNT -> the clients' hosts-file lines: every line
# but the server's (1); with one node, that node
rb_slurm_roles() {
  local n=$1 i out=""
  [[ $n =~ ^[1-9][0-9]*$ ]] || return 1
  for ((i = 2; i <= n; i++)); do out="$out $i"; done
  echo "${out:- 1}" | sed 's/^ //'
}

# rb_slurm_nodes: the allocation's nodes, one a line; dies naming what is
# missing (outside an allocation, no scontrol)
rb_slurm_nodes() {
  [ -n "${SLURM_JOB_ID:-}" ] && [ -n "${SLURM_JOB_NODELIST:-}" ] ||
    rb_die "--launcher slurm: not inside a Slurm allocation (SLURM_JOB_ID/SLURM_JOB_NODELIST unset); run it under salloc (salloc -N 3 experiments/run NAME --launcher slurm) or sbatch (sbatch experiments/slurm.sbatch NAME)"
  command -v scontrol > /dev/null || rb_die "--launcher slurm: scontrol not found (Slurm's client commands: slurm-client)"
  scontrol show hostnames "$SLURM_JOB_NODELIST" ||
    rb_die "--launcher slurm: scontrol show hostnames '$SLURM_JOB_NODELIST' failed"
}

# rb_slurm_use: every remote call from now on goes through srun-ssh, one
# step each, named RB_SLURM_TAG (exported: GNU parallel's jobs use it too);
# no ssh connection sharing
rb_slurm_use() {
  command -v srun > /dev/null || rb_die "--launcher slurm: srun not found (Slurm's client commands: slurm-client)"
  RB_SSH=$RB_LIB/srun-ssh
  RB_SSH_SHARE=0
  RB_SLURM_TAG=${RB_SLURM_TAG:-rdma_bench-$$}
  export RB_SSH RB_SSH_SHARE RB_SLURM_TAG RB_LAUNCHER=slurm
}

# rb_slurm_steps -> the step ids (JOBID.STEP) of this run's steps still
# there (named RB_SLURM_TAG), one a line
rb_slurm_steps() {
  squeue --steps --noheader --jobs "$SLURM_JOB_ID" --format '%i %j' 2> /dev/null |
    awk -v tag="$RB_SLURM_TAG" '$2 == tag && $1 ~ /^[0-9]+\.[0-9]+$/ { print $1 }'
}

# rb_slurm_cancel_steps: scancel this run's steps still there (its own
# steps only: by id, found by their name), then wait until Slurm no longer
# lists them (scancel only asks: a step stays in squeue until its slurmd
# reports it ended), at most 10 s; says how many, and names any left
rb_slurm_cancel_steps() {
  [ "${RB_LAUNCHER:-ssh}" = slurm ] && [ -n "${SLURM_JOB_ID:-}" ] && [ -n "${RB_SLURM_TAG:-}" ] || return 0
  local s n=0 i left
  for s in $(rb_slurm_steps); do
    scancel "$s" 2> /dev/null && n=$((n + 1))
  done
  [ "$n" = 0 ] && return 0
  for i in $(seq 50); do
    left=$(rb_slurm_steps)
    [ -n "$left" ] || break
    sleep 0.2
  done
  rb_log "slurm: cancelled $n job step(s) of this run left running (scancel by step id)${left:+; still listed after 10 s: $(echo $left)}"
}

# rb_slurm_failure LOG WHO: the named cause of a process whose job step was
# cancelled or killed (srun's and slurmstepd's own lines in LOG); status 1
# when LOG shows none
rb_slurm_failure() {
  local log=$1 who=$2 said
  said=$(grep -m 1 -E '(\*\*\* STEP [0-9.]+ ON [^ ]+ CANCELLED|srun: error: [^ ]+: task [0-9]+: (Killed|Terminated)|srun: error: .*(Unable to create step|Job step aborted)|srun: Job step aborted)' "$log" 2> /dev/null) ||
    return 1
  said=${said#slurmstepd: error: }
  echo "$who: its Slurm job step was cancelled or killed ($said)"
}
