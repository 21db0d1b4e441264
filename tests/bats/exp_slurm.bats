#!/usr/bin/env bats
# The Slurm launcher (experiments/run --launcher slurm, experiments/lib/
# slurm.sh, srun-ssh): the allocation's nodes become the hosts (server =
# the first, clients round robin over the others), every process is one
# srun step on its node, only the run's own steps are cancelled, and a
# cancelled client step is named. Slurm's commands are stand-ins here
# (tests/bats/fixtures/slurm); ci/slurm-point runs the real one on the bed.

load fixtures/exp/helpers
SFIX=$ROOT/tests/bats/fixtures/slurm

lib() { RB_LIB=$LIB; . "$LIB/runner.sh"; }

@test "slurm roles: three nodes -> node 1 serves, clients on lines 2 and 3; one node -> every role on it" {
  lib
  run rb_slurm_hosts nodeA nodeB nodeC
  [ "$status" -eq 0 ]
  [ "$(grep -v '^#' <<< "$output" | awk '{print $1}' | tr '\n' ' ')" = "nodeA nodeB nodeC " ]
  [ "$(rb_slurm_roles 3)" = "2 3" ]
  [ "$(rb_slurm_roles 2)" = "2" ]
  [ "$(rb_slurm_roles 1)" = "1" ]
  run rb_slurm_roles 0
  [ "$status" -eq 1 ]
}

@test "slurm hosts: device and GID index from RB_SLURM_DEVICE and RB_SLURM_GID, '-' when unset; bad names refused" {
  lib
  RB_SLURM_DEVICE=mlx5_0 RB_SLURM_GID=3 run rb_slurm_hosts n1
  [ "$(tail -n 1 <<< "$output")" = "n1 mlx5_0 3 - -" ]
  run rb_slurm_hosts n1
  [ "$(tail -n 1 <<< "$output")" = "n1 - - - -" ]
  for bad in 'n1;rm' '-x' 'a b'; do
    run rb_slurm_hosts "$bad"
    [ "$status" -eq 1 ] && [ -z "$output" ] || { echo "accepted '$bad'"; false; }
  done
  RB_SLURM_GID=x run rb_slurm_hosts n1
  [ "$status" -eq 1 ]
  run rb_slurm_hosts
  [ "$status" -eq 1 ]
}

@test "srun-ssh: one step on the node (-N1 -n1 -w NODE --overlap, the run's step name), ssh options and user@ dropped" {
  export FAKE_SLURM_LOG=$BATS_TEST_TMPDIR/slurm.log PATH=$SFIX:$PATH SLURM_JOB_ID=7 RB_SLURM_TAG=rb-test
  run "$LIB/srun-ssh" -o BatchMode=yes -i key -T root@node2 echo hello '$((1 + 2))'
  [ "$status" -eq 0 ]
  [ "$output" = "hello 3" ]
  [ "$(cat "$FAKE_SLURM_LOG")" = 'srun --nodes=1 --ntasks=1 -w node2 --overlap --job-name=rb-test --quiet --kill-on-bad-exit=1 bash -c echo hello $((1 + 2))' ]
}

@test "srun-ssh: outside an allocation, or asked for connection sharing, it refuses (exit 255) saying why" {
  export PATH=$SFIX:$PATH
  unset SLURM_JOB_ID
  run "$LIB/srun-ssh" node1 true
  [ "$status" -eq 255 ]
  [[ $output == *"not inside a Slurm allocation (SLURM_JOB_ID unset)"* ]]
  SLURM_JOB_ID=7 run "$LIB/srun-ssh" -N node1
  [ "$status" -eq 255 ]
  [[ $output == *"connection sharing has no meaning with srun"* ]]
}

@test "slurm cleanup: scancel of the run's own steps only, by step id" {
  lib
  export FAKE_SLURM_LOG=$BATS_TEST_TMPDIR/slurm.log PATH=$SFIX:$PATH FAKE_STEPS=$BATS_TEST_TMPDIR/steps
  printf '7.0 rb-mine\n7.1 other\n7.2 rb-mine\n7.batch batch\n8.0 rb-mine-not\n' > "$FAKE_STEPS"
  SLURM_JOB_ID=7 RB_SLURM_TAG=rb-mine RB_LAUNCHER=slurm rb_slurm_cancel_steps 2> "$BATS_TEST_TMPDIR/err"
  [ "$(grep '^scancel' "$FAKE_SLURM_LOG" | tr '\n' ' ')" = "scancel 7.0 scancel 7.2 " ]
  grep -q "cancelled 2 job step(s) of this run" "$BATS_TEST_TMPDIR/err"
  # the ssh launcher cancels nothing
  : > "$FAKE_SLURM_LOG"
  SLURM_JOB_ID=7 RB_SLURM_TAG=rb-mine RB_LAUNCHER=ssh rb_slurm_cancel_steps
  [ ! -s "$FAKE_SLURM_LOG" ]
}

@test "slurm failure: a cancelled step is named from slurmstepd's line; a plain failure is not" {
  lib
  printf 'INFO x\nslurmstepd: error: *** STEP 5.4 ON vm2 CANCELLED AT 2026-01-01T00:00:00 ***\nsrun: error: vm2: task 0: Killed\n' > "$BATS_TEST_TMPDIR/log"
  run rb_slurm_failure "$BATS_TEST_TMPDIR/log" "client 0"
  [ "$status" -eq 0 ]
  [ "$output" = "client 0: its Slurm job step was cancelled or killed (*** STEP 5.4 ON vm2 CANCELLED AT 2026-01-01T00:00:00 ***)" ]
  printf 'INFO x\nrdma_bench: error: connect refused\n' > "$BATS_TEST_TMPDIR/log"
  run rb_slurm_failure "$BATS_TEST_TMPDIR/log" "client 0"
  [ "$status" -eq 1 ]
}

@test "experiments/run --launcher slurm: hosts from the allocation, server on the first node, clients round robin over the others, one srun step each" {
  export FAKE_SLURM_LOG=$BATS_TEST_TMPDIR/slurm.log PATH=$SFIX:$PATH SLURM_JOB_ID=7 SLURM_JOB_NODELIST='n[1-3]' FAKE_NODES="n1 n2 n3"
  export FAKE_RB_LOG=$BATS_TEST_TMPDIR/calls
  unset RB_HOSTS RB_SSH
  local t d
  # one point; a loaded machine's process starts are slow: a roomy timeout
  t=$(tiny_copy)
  sed -i 's/^timeout_s .*/timeout_s = 90/' "$t/params"
  run_exp "$t" --quick --launcher slurm --run-id s1 --set verb:transport=read:rc
  [ "$status" -eq 0 ] || { echo "$output"; false; }
  d=$(run_dir tiny)
  [ "$(grep -v '^#' "$d/hosts" | awk '{print $1}' | tr '\n' ' ')" = "n1 n2 n3 " ]
  [[ $output == *"roles: server = host 1, clients = host(s) 2 3"* ]]
  # the server's step on n1; the two client processes of a point on n2 and n3
  grep -q -- "-w n1 .*fake_rdma_bench -s " "$FAKE_SLURM_LOG"
  grep -q -- "-w n2 .*fake_rdma_bench -c n1 .*--proc-index 0 " "$FAKE_SLURM_LOG"
  grep -q -- "-w n3 .*fake_rdma_bench -c n1 .*--proc-index 1 " "$FAKE_SLURM_LOG"
  ! grep -q -- "-w n1 .*fake_rdma_bench -c " "$FAKE_SLURM_LOG" || false
  # every step is one node, one task, named the run's tag
  [ "$(grep '^srun ' "$FAKE_SLURM_LOG" | grep -vc -- '--nodes=1 --ntasks=1 -w n[123] --overlap --job-name=rdma_bench-')" = 0 ]
  # the run looked for its leftover steps at its end
  grep -q "^squeue --steps --noheader --jobs 7 " "$FAKE_SLURM_LOG"
}

@test "experiments/run --launcher slurm: a cancelled client step fails its point with the step named, the sweep goes on" {
  export FAKE_SLURM_LOG=$BATS_TEST_TMPDIR/slurm.log PATH=$SFIX:$PATH SLURM_JOB_ID=7 SLURM_JOB_NODELIST='n[1-2]' FAKE_NODES="n1 n2"
  export FAKE_SRUN_CANCEL=n2
  local t d
  t=$(tiny_copy)
  sed -i 's/^timeout_s .*/timeout_s = 90/' "$t/params"
  run_exp "$t" --quick --launcher slurm --run-id s2 --set procs=1
  [ "$status" -eq 1 ] || { echo "$output"; false; }
  d=$(run_dir tiny)
  # both points ran (the sweep went on), each failed naming the step
  [ "$(csv_col "$d/summary.csv" status | tr '\n' ' ')" = "failed failed " ]
  [ "$(csv_col "$d/summary.csv" reason | grep -c 'its Slurm job step was cancelled or killed (\*\*\* STEP 7.3 ON n2 CANCELLED')" = 2 ]
}

@test "experiments/run --launcher slurm outside an allocation, or with --hosts: refused naming the fix" {
  unset SLURM_JOB_ID SLURM_JOB_NODELIST
  export PATH=$SFIX:$PATH
  run_exp "$FIX/tiny" --quick --launcher slurm
  [ "$status" -eq 2 ]
  [[ $output == *"not inside a Slurm allocation"*"salloc -N 3 experiments/run NAME --launcher slurm"*"sbatch experiments/slurm.sbatch NAME"* ]]
  # that error alone, not a second one about an empty node list
  [ "$(grep -c 'error:' <<< "$output")" -eq 1 ] || { echo "$output"; false; }
  run_exp "$FIX/tiny" --quick --launcher slurm --hosts /dev/null
  [ "$status" -eq 2 ]
  [[ $output == *"takes its hosts from the allocation: drop --local and --hosts"* ]]
  run_exp "$FIX/tiny" --quick --launcher pbs
  [ "$status" -eq 2 ]
  [[ $output == *"--launcher 'pbs' (or LAUNCHER): give ssh or slurm"* ]]
}
