#!/usr/bin/env bats
# Experiment runner: parameter files, grid expansion, hosts files, and the
# refusal of shell metacharacters.

load fixtures/exp/helpers

@test "the grid is the cartesian product of the knobs, first knob outermost" {
  # an ACTIVE RDMA port (a sysfs fixture): make's run is local, as shown
  mkdir -p "$BATS_TEST_TMPDIR/ib/rxe0/ports/1"
  echo '4: ACTIVE' > "$BATS_TEST_TMPDIR/ib/rxe0/ports/1/state"
  RB_SYSFS_IB=$BATS_TEST_TMPDIR/ib RB_HOSTS='' RB_TARGET='' HOSTS='' VMS='' run_exp "$FIX/tiny" --dry-run
  [ "$status" -eq 0 ]
  [[ $output == *"placement: experiments/reproduce tiny runs on this machine too (an RDMA port is ACTIVE: experiments/run tiny --local)"* ]] || { echo "$output"; false; }
  [[ $output == *"grid: 4 points x 2 repetitions, expected 0:08 (8 s)"* ]]
  # points in GNU parallel's order: the last knob varies fastest
  [[ $output == *$'1\tverb=read\ttransport=rc\tsize_bytes=32'* ]]
  [[ $output == *$'2\tverb=read\ttransport=rc\tsize_bytes=256'* ]]
  [[ $output == *$'4\tverb=write\ttransport=uc\tsize_bytes=256'* ]]
  # jobs: repetitions outermost, 8 in all, {#} numbering
  [ "$(grep -c '/point ' <<< "$output")" -eq 8 ]
  [[ $output == *"/point 1 1 'read:rc' 32 2 1"* ]]
  [[ $output == *"/point 8 2 'write:uc' 256 2 1"* ]]
}

# dry_run_all: every shipped experiment's dry run, full and QUICK, once per
# file (40 runner starts: the two tests below read them), each output in
# $BATS_FILE_TMPDIR/dry/NAME.full|quick and its exit status in .rc
dry_run_all() {
  local p n q
  local -a flag
  mkdir -p "$BATS_FILE_TMPDIR/dry" "$BATS_FILE_TMPDIR/no-ib"
  # as on a host without RDMA (an empty sysfs), outside the bed: make
  # figure-N would run on the VM bed, which the dry run must say
  for p in "$ROOT"/experiments/*/params; do
    n=$(basename "$(dirname "$p")")
    for q in full quick; do
      flag=(); [ "$q" = full ] || flag=(--quick)
      RB_SYSFS_IB=$BATS_FILE_TMPDIR/no-ib RB_HOSTS='' RB_TARGET='' HOSTS='' VMS='' \
        "$ROOT/experiments/run" "$n" --dry-run "${flag[@]}" --out "$BATS_FILE_TMPDIR/results" \
        --bin "$FIX/fake_rdma_bench" --no-plot > "$BATS_FILE_TMPDIR/dry/$n.$q" 2>&1 &&
        echo 0 > "$BATS_FILE_TMPDIR/dry/$n.$q.rc" || echo $? > "$BATS_FILE_TMPDIR/dry/$n.$q.rc"
    done
  done
}

setup_file() { dry_run_all; }

# dry OUTCOME NAME full|quick: the stored dry run's output (out) or exit status (rc)
dry() { if [ "$1" = rc ]; then cat "$BATS_FILE_TMPDIR/dry/$2.$3.rc"; else cat "$BATS_FILE_TMPDIR/dry/$2.$3"; fi; }

@test "every shipped experiment's parameter file expands; a grid with several client processes measures windows of 2 s or more" {
  # the runner adds rates only over a 99 % common window, each process's
  # window first shrunk by its clock-error bound at both ends (2-5 ms on a
  # loaded two-VM bed): 1 % of a 0.5 s window is 5 ms, and figure-12 and
  # figure-14 QUICK points came out low-overlap (0.965-0.98) in test runs
  local p n q bad k=0
  for p in "$ROOT"/experiments/*/params; do
    n=$(basename "$(dirname "$p")")
    for q in full quick; do
      [ "$(dry rc "$n" "$q")" = 0 ] || { echo "$n $q: $(dry out "$n" "$q")"; false; }
      grep -q '^grid: [0-9]* points x [0-9]* repetitions' <<< "$(dry out "$n" "$q")" || { echo "$n $q: no grid line"; false; }
      bad=$(awk -F'\t' '/^[0-9]+\t/ {
          procs = 1; dur = ""
          for (i = 2; i <= NF; i++) {
            if ($i ~ /^procs=/) procs = substr($i, 7) + 0
            if ($i ~ /^duration_s=/) dur = substr($i, 12)
          }
          if (procs > 1 && (dur == "" || dur + 0 < 2)) print "point " $1 ": procs=" procs " duration_s=" (dur == "" ? "(default)" : dur)
        }' <<< "$(dry out "$n" "$q")")
      [ -z "$bad" ] || { echo "$n $q: $bad"; false; }
      k=$((k + 1))
    done
  done
  # every experiment was expanded twice (a glob that matched nothing checks nothing)
  [ "$k" -ge 40 ]
  # with no ACTIVE port the dry run says where make figure-N runs instead
  # (before the host lines, which are experiments/run's own)
  [[ $(dry out figure-12 quick) == *"placement: make figure-12 here runs on the soft-RoCE VM bed (no RDMA port is ACTIVE: ci/vm run --vms 2 -- experiments/run figure-12, vm1 serves, vm2 the clients); the host lines below are experiments/run's own (this machine alone)"*"host 1: localhost "* ]] || { dry out figure-12 quick; false; }
  [[ $(dry out swarm-48b_read full) == *"placement: "*"experiments/reproduce swarm-48b_read here runs on the soft-RoCE VM bed"*"host 1: "* ]] || { dry out swarm-48b_read full; false; }
}

@test "every shipped experiment's QUICK grid runs at least 3 repetitions per point" {
  local p n r
  for p in "$ROOT"/experiments/*/params; do
    n=$(basename "$(dirname "$p")")
    [ "$(dry rc "$n" quick)" = 0 ] || { echo "$n: status $(dry rc "$n" quick): $(dry out "$n" quick)"; false; }
    r=$(grep -o 'points x [0-9]* repetitions' <<< "$(dry out "$n" quick)" | awk '{ print $3 }')
    [ -n "$r" ] && [ "$r" -ge 3 ] || { echo "$n: QUICK runs '$r' repetitions"; false; }
  done
}

@test "QUICK=1 and --quick use the [quick] values" {
  QUICK=1 run_exp "$FIX/tiny" --dry-run
  [ "$status" -eq 0 ]
  [[ $output == *"grid: 2 points x 1 repetitions"* ]]
  run_exp "$FIX/tiny" --dry-run --quick
  [ "$status" -eq 0 ]
  [[ $output == *"grid: 2 points x 1 repetitions"* ]]
}

@test "--set replaces a knob's values and --reps the repetitions" {
  run_exp "$FIX/tiny" --dry-run --set size_bytes=8,16,4096 --reps 1
  [ "$status" -eq 0 ]
  [[ $output == *"grid: 6 points x 1 repetitions"* ]]
  [[ $output == *$'size_bytes=4096'* ]]
}

@test "--set of a size with a unit (64K) is refused with its value in bytes; other bad sizes get no such hint" {
  run "$ROOT/experiments/run" figure-12 --set size_bytes=64K --dry-run
  [ "$status" -eq 2 ]
  [[ $output == *"knob size_bytes = 64K: must be a whole number in 0..1073741824 (rdma_bench --help); write it in bytes: 64K is 65536 "* ]] || { echo "$output"; false; }
  run "$ROOT/experiments/run" figure-12 --set size_bytes=2MB --dry-run
  [[ $output == *"2MB is 2000000 "* ]] || { echo "$output"; false; }
  run "$ROOT/experiments/run" figure-12 --set size_bytes=64x --dry-run
  [ "$status" -eq 2 ]
  [[ $output == *"knob size_bytes = 64x: must be a whole number"* && $output != *"write it in bytes"* ]] || { echo "$output"; false; }
}

@test "--set of an unknown knob is refused" {
  run_exp "$FIX/tiny" --dry-run --set bogus=1
  [ "$status" -eq 2 ]
  [[ $output == *"no knob 'bogus'"* ]]
}

@test "a parameter value with shell metacharacters is refused" {
  local d
  d=$(tiny_copy)
  sed -i 's/^size_bytes .*/size_bytes = 32 $(touch\/tmp\/pwned)/' "$d/params"
  run_exp "$d" --dry-run
  [ "$status" -eq 2 ]
  [[ $output == *"shell metacharacters are refused"* ]]
  sed -i 's/^size_bytes .*/size_bytes = 32;reboot/' "$d/params"
  run_exp "$d" --dry-run
  [ "$status" -eq 2 ]
  run_exp "$FIX/tiny" --dry-run --set 'size_bytes=32,`id`'
  [ "$status" -eq 2 ]
}

@test "an unknown knob in the parameter file names the known ones" {
  local d
  d=$(tiny_copy)
  sed -i 's/^\[quick\]/payload = 32\n[quick]/' "$d/params"
  run_exp "$d" --dry-run
  [ "$status" -eq 2 ]
  [[ $output == *"unknown knob 'payload'"* ]]
  [[ $output == *"size_bytes"* ]]
}

@test "combined knobs need one part per knob" {
  local d
  d=$(tiny_copy)
  sed -i 's/^verb:transport .*/verb:transport = read:rc write/' "$d/params"
  run_exp "$d" --dry-run
  [ "$status" -eq 2 ]
  [[ $output == *"one part per knob"* ]]
}

@test "a hosts file is read by position or key=value" {
  cat > "$BATS_TEST_TMPDIR/hosts" <<'H'
# address device gid numa user
vm1 rxe0 1 - root
node-2.example mlx5_0 gid=3 numa=1 user=bench
H
  run_exp "$FIX/tiny" --dry-run --hosts "$BATS_TEST_TMPDIR/hosts"
  [ "$status" -eq 0 ]
  [[ $output == *"host 1: vm1 device rxe0 gid 1 numa - user root"* ]]
  [[ $output == *"host 2: node-2.example device mlx5_0 gid 3 numa 1 user bench"* ]]
}

@test "a hosts-file entry with shell metacharacters is refused" {
  local bad
  for bad in 'vm1;reboot rxe0' 'vm1 rxe0 1 - root$(id)' '$(id) rxe0' 'vm1 rx`e0`' 'vm1 rxe0 1|2'; do
    printf '%s\n' "$bad" > "$BATS_TEST_TMPDIR/hosts"
    run_exp "$FIX/tiny" --dry-run --hosts "$BATS_TEST_TMPDIR/hosts"
    [ "$status" -eq 2 ] || { echo "accepted: $bad"; false; }
  done
}

@test "the local target uses the first ACTIVE RDMA port" {
  local sys=$BATS_TEST_TMPDIR/ib
  mkdir -p "$sys/mlx5_0/ports/1" "$sys/rxe0/ports/1"
  echo "1: DOWN" > "$sys/mlx5_0/ports/1/state"
  echo "4: ACTIVE" > "$sys/rxe0/ports/1/state"
  RB_SYSFS_IB=$sys run_exp "$FIX/tiny" --dry-run --local
  [ "$status" -eq 0 ]
  [[ $output == *"host 1: localhost device rxe0"* ]]
}

@test "an unknown [run] setting or [quick] key is refused" {
  local d
  d=$(tiny_copy)
  sed -i 's/^\[knobs\]/repetitons = 3\n[knobs]/' "$d/params"
  run_exp "$d" --dry-run
  [ "$status" -eq 2 ]
  [[ $output == *"unknown [run] setting 'repetitons'"* ]]
  d=$(tiny_copy)
  echo "window = 8" >> "$d/params"
  run_exp "$d" --dry-run
  [ "$status" -eq 2 ]
  [[ $output == *"[quick] window is neither"* ]]
}

@test "a 3-line hosts file: every line after the server runs clients by default; a line left without a role is named" {
  local d hosts=$BATS_TEST_TMPDIR/hosts3
  printf 'node1 mlx5_0 3\nnode2 mlx5_0 3\nnode3 mlx5_0 3\n' > "$hosts"
  d=$(tiny_copy)
  sed -i '/^clients *=/d' "$d/params"   # the experiment says nothing: the default
  run_exp "$d" --dry-run --hosts "$hosts"
  [ "$status" -eq 0 ]
  [[ $output == *"host 1: node1 device mlx5_0 gid 3 numa - user -: server"* ]] || { echo "$output"; false; }
  [[ $output == *"host 2: node2 device mlx5_0 gid 3 numa - user -: clients"* ]]
  [[ $output == *"host 3: node3 device mlx5_0 gid 3 numa - user -: clients"* ]]
  [[ $output == *"roles: server = host 1, clients = host(s) 2 3"* ]]
  [[ $output != *"gets no role"* ]]
  # every shipped experiment leaves the clients to the default's rule
  run grep -lE '^clients *= *[0-9]' "$ROOT"/experiments/*/params "$ROOT"/experiments/*/*/params
  [ -z "$output" ] || { echo "experiments pinning the client hosts: $output"; false; }
  # --clients 2 leaves line 3 idle: said, with the fix
  run_exp "$d" --dry-run --hosts "$hosts" --clients 2
  [ "$status" -eq 0 ]
  [[ $output == *"host 3: node3 device mlx5_0 gid 3 numa - user -: none"* ]]
  [[ $output == *"warning: hosts line 3 (node3) gets no role"*"--clients others"* ]] || { echo "$output"; false; }
  # one line: it takes every role, no warning
  printf 'localhost - -\n' > "$hosts"
  run_exp "$d" --dry-run --hosts "$hosts"
  [ "$status" -eq 0 ]
  [[ $output == *"host 1: localhost device - gid - numa - user -: server + clients"* ]] || { echo "$output"; false; }
  [[ $output != *"gets no role"* ]]
}

@test "--server and --clients choose the roles; 'others' is every host but the server" {
  run_exp "$FIX/tiny" --dry-run --hosts "$ROOT/experiments/hosts.example" --server 2 --clients others
  [ "$status" -eq 0 ]
  [[ $output == *"roles: server = host 2, clients = host(s) 1 3"* ]]
  run_exp "$FIX/tiny" --dry-run --hosts "$ROOT/experiments/hosts.example" --clients 2,3
  [ "$status" -eq 0 ]
  [[ $output == *"clients = host(s) 2 3"* ]]
  run_exp "$FIX/tiny" --dry-run --clients '2;id'
  [ "$status" -eq 2 ]
  # a line number past the hosts file is refused, not wrapped onto host 1
  run_exp "$FIX/tiny" --dry-run --hosts "$ROOT/experiments/hosts.example" --server 4
  [ "$status" -eq 2 ]
  [[ $output == *"--server 4: --hosts $ROOT/experiments/hosts.example has 3 host line(s); give a line number from 1 to 3, or leave --server out"* ]]
  run_exp "$FIX/tiny" --dry-run --hosts "$ROOT/experiments/hosts.example" --clients 2,7
  [ "$status" -eq 2 ]
  [[ $output == *"--clients 2,7: line 7 is past the end"* ]]
  run_exp "$FIX/tiny" --dry-run --server 2
  [ "$status" -eq 2 ]
  [[ $output == *"--server 2: this machine alone (no --hosts, no RB_HOSTS, no HOSTS) is host 1"* ]]
  # HOSTS in the environment (HOSTS=F experiments/run NAME, as make figure-N HOSTS=F has it) is the hosts file
  HOSTS=$ROOT/experiments/hosts.example RB_HOSTS='' run_exp "$FIX/tiny" --dry-run --server 4
  [ "$status" -eq 2 ]
  [[ $output == *"--server 4: HOSTS $ROOT/experiments/hosts.example has 3 host line(s)"* ]] || { echo "$output"; false; }
}

@test "bad values are refused before anything is written, dry run or not" {
  local out=$BATS_TEST_TMPDIR/results c
  for c in "--reps abc" "--reps 0" "--reps -1" "--reps 1.5" "--set size_bytes=abc" "--set size_bytes=" \
           "--set size_bytes=-5" "--set procs=0" "--set duration_s=x" "--run-id .." "--run-id -x" "--run-id .hidden"; do
    # shellcheck disable=SC2086  # the case's words
    run "$ROOT/experiments/run" "$FIX/tiny" $c --out "$out" --bin "$FIX/fake_rdma_bench" --no-plot
    [ "$status" -eq 2 ] || { echo "$c: status $status: $output"; false; }
    # named by the script that refuses it, as a user reads it in a long log
    [[ $output == *"experiments/run: error: "* ]] || { echo "$c: $output"; false; }
    [[ $output != *"unbound variable"* && $output != *"syntax error"* && $output != *"No such file"* ]] || { echo "$c: $output"; false; }
    run "$ROOT/experiments/run" "$FIX/tiny" $c --dry-run --out "$out"
    [ "$status" -eq 2 ] || { echo "$c --dry-run: status $status"; false; }
  done
  # nothing under results/ but the experiment's (empty) folder
  [ -z "$(find "$out" -mindepth 2 2>/dev/null)" ] || { find "$out"; false; }
  run "$ROOT/experiments/run" "$FIX/tiny" --reps abc --out "$out"
  [ "$status" -eq 2 ]
  [[ $output == *"--reps abc: repetitions must be a whole number from 1 to 9999"* ]]
  run "$ROOT/experiments/run" "$FIX/tiny" --set size_bytes=abc --out "$out"
  [ "$status" -eq 2 ]
  [[ $output == *"knob size_bytes = abc: must be a whole number in 0..1073741824 (rdma_bench --help)"* ]]
  # knobs swept together take one value per name
  local v
  for v in read read:rc:x read: ; do
    run "$ROOT/experiments/run" "$FIX/tiny" --set "verb:transport=$v" --out "$out"
    [ "$status" -eq 2 ]
    [[ $output == *"knob verb:transport = $v: give 2 values joined by ':', one per name: VERB:TRANSPORT"* ]] || { echo "$v: $output"; false; }
  done
  run "$ROOT/experiments/run" "$FIX/tiny" --set procs=0 --out "$out"
  [ "$status" -eq 2 ]
  [[ $output == *"knob procs = 0: client processes per point must be a whole number from 1 to 9999"* ]]
  run "$ROOT/experiments/run" "$FIX/tiny" --run-id .. --out "$out"
  [ "$status" -eq 2 ]
  [[ $output == *"run id '..': must not start with '.' or '-'"* ]]
}

@test "[run] settings must be numbers in range" {
  local d s
  for s in "timeout_s = abc" "overhead_s = lots" "port = 99999999" "repetitions = 0" "ready = maybe" "qp_setup_ms = -1"; do
    d=$(tiny_copy)
    sed -i "/^${s%% *}[[:space:]]*=/d" "$d/params"
    sed -i "s/^\[run\]/[run]\n$s/" "$d/params"
    run_exp "$d" --dry-run
    [ "$status" -eq 2 ] || { echo "$s: $output"; false; }
    [[ $output == *"[run] ${s%% *} = "* ]] || { echo "$s: $output"; false; }
  done
}

@test "a hosts line whose address starts with '-' is refused (it would be an ssh option)" {
  printf -- '-Fevil rxe0 1\n' > "$BATS_TEST_TMPDIR/hosts"
  run_exp "$FIX/tiny" --hosts "$BATS_TEST_TMPDIR/hosts" --dry-run
  [ "$status" -eq 2 ]
  [[ $output == *"address '-Fevil' refused: it must not start with '-'"* ]]
}

@test "--hosts naming a folder, a missing or an unreadable file is refused (exit 2) naming the path and what a hosts file is" {
  local out=$BATS_TEST_TMPDIR/results h
  mkdir "$BATS_TEST_TMPDIR/hostsdir"
  for h in "$BATS_TEST_TMPDIR/hostsdir" "$BATS_TEST_TMPDIR/nope"; do
    run "$ROOT/experiments/run" "$FIX/tiny" --hosts "$h" --dry-run --out "$out"
    [ "$status" -eq 2 ] || { echo "$h: status $status: $output"; false; }
    [[ $output == *"experiments/run: error: --hosts $h: "*"a hosts file is a readable text file, one host a line: ADDRESS DEVICE [GID] [NUMA] [USER] (experiments/hosts.example)"* ]] || { echo "$h: $output"; false; }
    [[ $output != *"read error"* && $output != *"unbound variable"* && $output != *"hosts.sh: line"* ]] || { echo "$h: $output"; false; }
    # not a dry run: the same, before a run folder is made
    run "$ROOT/experiments/run" "$FIX/tiny" --hosts "$h" --out "$out" --bin "$FIX/fake_rdma_bench" --no-plot
    [ "$status" -eq 2 ] || { echo "$h: status $status: $output"; false; }
  done
  [[ $output == *"--hosts $BATS_TEST_TMPDIR/nope: no such file"* ]]
  run "$ROOT/experiments/run" "$FIX/tiny" --hosts "$BATS_TEST_TMPDIR/hostsdir" --dry-run --out "$out"
  [ "$status" -eq 2 ]
  [[ $output == *"--hosts $BATS_TEST_TMPDIR/hostsdir: a folder, not a file"* ]]
  [ -z "$(find "$out" -mindepth 2 2>/dev/null)" ] || { find "$out"; false; }
  # unreadable: only a user without root's access can see it refused
  printf 'localhost rxe0\n' > "$BATS_TEST_TMPDIR/locked"
  chmod 000 "$BATS_TEST_TMPDIR/locked"
  if [ ! -r "$BATS_TEST_TMPDIR/locked" ]; then
    run "$ROOT/experiments/run" "$FIX/tiny" --hosts "$BATS_TEST_TMPDIR/locked" --dry-run --out "$out"
    [ "$status" -eq 2 ]
    [[ $output == *"--hosts $BATS_TEST_TMPDIR/locked: cannot be read (permissions)"* ]]
  fi
}

@test "knob values rdma_bench refuses (its --list-knobs ranges) are refused by --dry-run and by the run, before anything is written" {
  local out=$BATS_TEST_TMPDIR/results c
  for c in "verb:transport=frob:rc|verb = frob: rdma_bench accepts read|write|write_imm|send|send_imm|fetch_add|cmp_swap (--verb)" \
           "verb:transport=read:xx|transport = xx: rdma_bench accepts rc|uc|ud (--transport)" \
           "window=0|window = 0: rdma_bench accepts 1..4294967296 (-w/--window)" \
           "duration_s=0|duration_s = 0: rdma_bench accepts 0.001..86400.000 (-D/--duration)" \
           "duration_s=5000000|duration_s = 5000000: rdma_bench accepts 0.001..86400.000" \
           "size_bytes=32,99999999999|size_bytes = 99999999999: rdma_bench accepts 0..1073741824 (-m/--size)" \
           "seed=18446744073709551616|seed = 18446744073709551616: rdma_bench accepts 0..18446744073709551615"; do
    local d
    d=$(tiny_copy)
    # a knob the tiny experiment does not sweep: added to its [knobs]
    case ${c%%=*} in window|seed) sed -i "s/^\[knobs\]/[knobs]\n${c%%=*} = 1/" "$d/params" ;; esac
    run "$ROOT/experiments/run" "$d" --dry-run --set "${c%%|*}" --out "$out"
    [ "$status" -eq 2 ] || { echo "${c%%|*}: status $status: $output"; false; }
    [[ $output == *"experiments/run: error: knob ${c#*|}"* ]] || { echo "${c%%|*}: $output"; false; }
    run "$ROOT/experiments/run" "$d" --set "${c%%|*}" --out "$out" --bin "$FIX/fake_rdma_bench" --no-plot
    [ "$status" -eq 2 ] || { echo "${c%%|*} (run): status $status: $output"; false; }
  done
  [ -z "$(find "$out" -mindepth 2 2>/dev/null)" ] || { find "$out"; false; }
  # the ends of a range are values it takes; a literal option in the table
  # is checked as well (rdma_bench's --retry-cnt takes 0..7)
  d=$(tiny_copy)
  sed -i 's/^\[knobs\]/[knobs]\nwindow = 1\nseed = 0\n--retry-cnt = 7/' "$d/params"
  run "$ROOT/experiments/run" "$d" --dry-run --set window=1,4294967296 --set duration_s=0.001,86400 \
    --set seed=0,18446744073709551615 --set size_bytes=0,1073741824 --out "$out"
  [ "$status" -eq 0 ] || { echo "$output"; false; }
  run "$ROOT/experiments/run" "$d" --dry-run --set --retry-cnt=8 --out "$out"
  [ "$status" -eq 2 ]
  [[ $output == *"knob --retry-cnt = 8: rdma_bench accepts 0..7 (--retry-cnt)"* ]] || { echo "$output"; false; }
}

@test "a --set list with a value given twice is refused, naming it (dry run and run)" {
  run_exp "$FIX/tiny" --dry-run --set size_bytes=32,64,32
  [ "$status" -eq 2 ]
  [[ $output == *"experiments/run: error: --set size_bytes=32,64,32: 32 is given twice; give each value once"* ]] || { echo "$output"; false; }
  run_exp "$FIX/tiny" --set verb:transport=read:rc,write:uc,read:rc
  [ "$status" -eq 2 ]
  [[ $output == *"read:rc is given twice"* ]] || { echo "$output"; false; }
  [ -z "$(find "$BATS_TEST_TMPDIR/results" -mindepth 2 2>/dev/null)" ]
}

@test "--set of one name of a paired knob is refused naming the pair and how to give it; an unknown knob names no pair" {
  run_exp "$FIX/tiny" --dry-run --set verb=write
  [ "$status" -eq 2 ]
  [[ $output == *"--set: the experiment has no knob 'verb' (knobs: verb:transport "*"); 'verb' is one name of the paired knob 'verb:transport': give its values together, e.g. --set verb:transport=read:rc"* ]] || { echo "$output"; false; }
  run_exp "$FIX/tiny" --dry-run --set transport=uc
  [ "$status" -eq 2 ]
  [[ $output == *"'transport' is one name of the paired knob 'verb:transport'"* ]] || { echo "$output"; false; }
  run_exp "$FIX/tiny" --dry-run --set bogus=1
  [ "$status" -eq 2 ]
  [[ $output == *"--set: the experiment has no knob 'bogus' (knobs: "* ]]
  [[ $output != *"paired knob"* ]]
}

@test "conflicting options are refused (exit 2) naming both and which to keep: --local with --hosts or --server, --run-id with --resume, an option twice with two values" {
  local out=$BATS_TEST_TMPDIR/results h=$ROOT/experiments/hosts.example c
  for c in "--local --hosts $h|--local and --hosts $h: --local runs on this machine alone, --hosts on the hosts of $h; keep one of them" \
           "--hosts $h --local|--local and --hosts $h" \
           "--server 2 --local|--server 2 and --local: a local run has one host, this machine, where every role runs; keep --local without --server, or give --hosts FILE with --server 2" \
           "--run-id a1 --resume|--run-id a1 and --resume: --resume goes on with a run under its own name; keep --resume ID to go on with run ID, or --run-id a1 to start a new run so named" \
           "--reps 2 --reps 3|--reps given twice, 2 and 3; keep one" \
           "--hosts $h --hosts /etc/hostname|--hosts given twice, $h and /etc/hostname; keep one" \
           "--launcher ssh --launcher slurm|--launcher given twice, ssh and slurm; keep one" \
           "--set size_bytes=32 --set size_bytes=64|--set size_bytes given twice, 32 and 64; keep one (one --set size_bytes=V1,V2 with every value)"; do
    # shellcheck disable=SC2086  # the case's words
    run "$ROOT/experiments/run" "$FIX/tiny" ${c%%|*} --dry-run --out "$out"
    [ "$status" -eq 2 ] || { echo "${c%%|*}: status $status: $output"; false; }
    [[ $output == *"experiments/run: error: ${c#*|}"* ]] || { echo "${c%%|*}: $output"; false; }
    # shellcheck disable=SC2086
    run "$ROOT/experiments/run" "$FIX/tiny" ${c%%|*} --out "$out" --bin "$FIX/fake_rdma_bench" --no-plot
    [ "$status" -eq 2 ] || { echo "${c%%|*} (run): status $status: $output"; false; }
  done
  [ -z "$(find "$out" -mindepth 2 2>/dev/null)" ] || { find "$out"; false; }
  # the same value twice is no conflict
  run "$ROOT/experiments/run" "$FIX/tiny" --reps 1 --reps 1 --set size_bytes=32 --set size_bytes=32 --dry-run --out "$out"
  [ "$status" -eq 0 ] || { echo "$output"; false; }
}

@test "an option without its value (last, or empty) is refused naming what it needs, exit 2" {
  local a
  for a in --set --reps --hosts --run-id --clients --server --out --bin --launcher; do
    run_exp "$FIX/tiny" --dry-run "$a"
    [ "$status" -eq 2 ]
    [[ $output == *"experiments/run: error: $a needs "*"(see --help)"* ]] || { echo "$a: $output"; false; }
  done
  run_exp "$FIX/tiny" --dry-run --reps ""
  [ "$status" -eq 2 ]
  [[ $output == *"error: --reps needs a number (see --help)"* ]] || { echo "$output"; false; }
}

@test "an unknown NAME is refused (exit 2) with the known ones, and the one name it is a typo of, if one is nearest" {
  run "$ROOT/experiments/run" figure12 --dry-run
  [ "$status" -eq 2 ]
  [[ $output == *"no experiment 'figure12' "*"; did you mean 'figure-12'?; known: "*" figure-11b figure-12 "* ]] || { echo "$output"; false; }
  run "$ROOT/experiments/run" Outbound_Peaks --dry-run
  [[ $output == *"did you mean 'outbound-peaks'?"* ]] || { echo "$output"; false; }
  # figure-1 is one edit from figure-10 and figure-7 alike; xyz near none
  for n in figure-1 xyz; do
    run "$ROOT/experiments/run" "$n" --dry-run
    [ "$status" -eq 2 ]
    [[ $output == *"no experiment '$n' "*"; known: "* ]] || { echo "$output"; false; }
    [[ $output != *"did you mean"* ]] || { echo "$output"; false; }
  done
}

@test "no NAME, or an empty one, is refused with an error line and a one-line usage (exit 2); make's VAR=VALUE is refused naming the option" {
  run "$ROOT/experiments/run" '' --dry-run
  [ "$status" -eq 2 ]
  [[ $output != *"bad array subscript"* ]] || { echo "$output"; false; }
  [[ $output == *"experiments/run: error: no experiment NAME given"*"make experiments-list"* ]] || { echo "$output"; false; }
  run "$ROOT/experiments/run"
  [ "$status" -eq 2 ]
  # the error first, then the usage in one line, not the whole --help
  [ "${lines[0]}" = "experiments/run: error: no experiment NAME given (an empty one neither); \`make experiments-list\` lists them" ]
  [ "${lines[1]}" = "usage: experiments/run NAME [options]   (every option: experiments/run --help)" ]
  [ "${#lines[@]}" -eq 2 ] || { echo "$output"; false; }
  # HOSTS=F after the name is make's spelling, not a second experiment
  run "$ROOT/experiments/run" figure-12 HOSTS=my-hosts
  [ "$status" -eq 2 ]
  [ "$output" = "experiments/run: error: HOSTS=my-hosts: VAR=VALUE is make's syntax (make NAME HOSTS=my-hosts), not an experiment name; give --hosts my-hosts (or HOSTS=my-hosts before the command: HOSTS=my-hosts experiments/run figure-12)" ]
}

@test "the dry run asks rdma_bench --dry-run about every job: a refused job is named, all refused exits 2" {
  [ -x "$ROOT/rdma_bench" ] || { echo "build rdma_bench first (make)"; false; }
  local rb=(--bin "$ROOT/rdma_bench" --out "$BATS_TEST_TMPDIR/results")
  # every job refused (UD has no READ): exit 2 before anything would run
  run "$ROOT/experiments/run" figure-12 --quick --dry-run --set verb:transport=read:ud "${rb[@]}"
  [ "$status" -eq 2 ] || { echo "$output"; false; }
  [[ $output == *"dry run: job 1 (verb=read transport=ud size_bytes=32,64,256 "*"): refused: --verb read with --transport ud: UD has only SEND"*"use --verb send|send_imm, or --transport rc"* ]]
  [[ $output == *"refuses every job's options"* ]]
  # one of two refused: named, exit 0 (a run marks its points skipped)
  run "$ROOT/experiments/run" figure-12 --quick --dry-run --set verb:transport=read:ud,send:ud "${rb[@]}"
  [ "$status" -eq 0 ] || { echo "$output"; false; }
  [[ $output == *"refuses the options of 1 of 2 job(s)"* ]]
  # the shipped grid: every job accepted
  run "$ROOT/experiments/run" figure-12 --dry-run "${rb[@]}"
  [ "$status" -eq 0 ]
  [[ $output == *"rdma_bench --dry-run accepts the options of all 2 job(s) of a repetition"* ]]
  # a binary without --dry-run (the runner tests' fake): not checked, said so
  run_exp "$FIX/tiny" --dry-run
  [ "$status" -eq 0 ]
  [[ $output == *"fake_rdma_bench has no --dry-run: the jobs' options are not checked"* ]]
  # RB_DRY_CHECK=0 (experiments/readme-facts): the all-refused grid is not
  # put to the binary, said so, and the grid line is the same
  local grid
  grid=$(grep '^grid: ' <<< "$output")
  RB_DRY_CHECK=0 run "$ROOT/experiments/run" figure-12 --quick --dry-run --set verb:transport=read:ud "${rb[@]}"
  [ "$status" -eq 0 ] || { echo "$output"; false; }
  [[ $output == *"dry run: the jobs' options are not checked (RB_DRY_CHECK=0)"* ]]
  [[ $output != *"refused"* ]]
  RB_DRY_CHECK=0 run_exp "$FIX/tiny" --dry-run
  [ "$(grep '^grid: ' <<< "$output")" = "$grid" ]
}

@test "rdma_bench --dry-run: the options checked as a run would, no device opened; a server option and a refusal exit 2" {
  [ -x "$ROOT/rdma_bench" ] || { echo "build rdma_bench first (make)"; false; }
  run "$ROOT/rdma_bench" -c 192.0.2.1 -d no-such-device --verb write -m 32,64 --reps 2 --dry-run
  [ "$status" -eq 0 ]
  [ "$output" = "rdma_bench: --dry-run: options accepted: write rc bw, 2 size(s) x 2 repetition(s) against 192.0.2.1 port 18515 (device and server not checked)" ]
  run "$ROOT/rdma_bench" -c 192.0.2.1 --verb fetch_add -m 64 --dry-run
  [ "$status" -eq 2 ]
  [[ $output == "rdma_bench: error: --size 64 with --verb fetch_add: atomics operate on 8 bytes"*"use -m 8"* ]] || { echo "$output"; false; }
  run "$ROOT/rdma_bench" -s --dry-run
  [ "$status" -eq 2 ]
  [[ $output == *"--dry-run given to the server"* ]]
}

@test "make search DRY_RUN=1 and make reproduce DRY_RUN=1: the plan on this host, no VM, nothing measured or written" {
  [ -x "$ROOT/rdma_bench" ] || { echo "build rdma_bench first (make)"; false; }
  local out=$BATS_TEST_TMPDIR/results
  # the search: where (the VM bed, chosen by RB_TARGET), then the plan
  RB_TARGET=vm QUICK=1 run "$ROOT/experiments/search/reproduce" --dry-run --out "$out"
  [ "$status" -eq 0 ] || { echo "$output"; false; }
  [[ $output == *"search: would run in the soft-RoCE VM bed (2 VMs"*"limit "*" s"* ]] || { echo "$output"; false; }
  [[ $output == *"search: dry run, nothing measured: space $ROOT/experiments/search/space with its [quick]"* ]] || { echo "$output"; false; }
  [[ $output == *"knobs: "*" move ("*"); full grid "*" points"*"explore: at most "*" points in batches of "* ]] || { echo "$output"; false; }
  [[ $output == *"time: at most "*" min"* ]] || { echo "$output"; false; }
  [ ! -e "$out" ]
  # a bad setting is refused as a run would refuse it
  run "$ROOT/experiments/search/run" --dry-run --budget 1 --out "$out"
  [ "$status" -eq 2 ]
  [[ $output == *"budget 1: at least two batches of"* ]] || { echo "$output"; false; }
  # make's spelling reaches both scripts
  run make -C "$ROOT" --no-print-directory -n search reproduce DRY_RUN=1
  [ "$status" -eq 0 ]
  [[ $output == *"experiments/search/reproduce --dry-run"* ]] || { echo "$output"; false; }
  [[ $output == *"experiments/reproduce \$t --dry-run"* && $output != *"install-deps"* ]] || { echo "$output"; false; }
  # make reproduce DRY_RUN=1: every figure and table dry-run on this host, no report
  RB_TARGET=local RB_RESULTS=$out run make -C "$ROOT" --no-print-directory reproduce DRY_RUN=1 QUICK=1
  [ "$status" -eq 0 ] || { echo "$output"; false; }
  [ "$(grep -c '^grid: ' <<< "$output")" -eq "$(grep -cE '^make reproduce: [a-z0-9-]+$' <<< "$output")" ]
  [ "$(grep -c '^grid: ' <<< "$output")" -ge 11 ]
  [[ $output == *"make reproduce: dry run of "*" figures and tables, nothing run (no report)"* ]] || { echo "$output"; false; }
  # the total is the sum of each figure's "in all" (here: its sweep alone)
  local sum total
  sum=$(awk -F'in all: about ' 'NF > 1 { split($2, t, "[: ]"); s += t[1] * 60 + t[2] } END { print s + 0 }' <<< "$output")
  total=$(sed -n 's/.*in all about \([0-9]*\) min \([0-9]*\) s .*/\1 \2/p' <<< "$output" | awk '{ print $1 * 60 + $2 }')
  [ "$sum" -gt 0 ] && [ "$sum" = "$total" ] || { echo "sum $sum, total '$total': $output"; false; }
  [ ! -e "$out" ]
  # on the VM bed a figure's time in all adds the boot and the check,
  # deploy, merge and plot around the sweep to it
  RB_TARGET=vm QUICK=1 run "$ROOT/experiments/reproduce" figure-12 --dry-run
  [ "$status" -eq 0 ] || { echo "$output"; false; }
  [[ $output =~ in\ all:\ about\ ([0-9]+):([0-9]+)\ \(sweep\ ([0-9]+):([0-9]+),\ about\ ([0-9]+)\ s\ around\ it\ \(check,\ deploy,\ merge,\ plot,\ boot\)(,\ image\ ([0-9]+)\ s)?\) ]] || { echo "$output"; false; }
  local m=("${BASH_REMATCH[@]}")
  [ $(( 10#${m[1]} * 60 + 10#${m[2]} )) -eq $(( 10#${m[3]} * 60 + 10#${m[4]} + m[5] + ${m[7]:-0} )) ]
  [ "${m[5]}" -gt 17 ]
}

@test "search/reproduce --help and -h print its usage and exit 0, from any folder, and start no search (no VM)" {
  # HOSTS names no file: a search would be refused, so only the usage passes
  local h
  for h in --help -h; do
    cd "$BATS_TEST_TMPDIR"
    RB_TARGET=hosts HOSTS=$BATS_TEST_TMPDIR/none run "$ROOT/experiments/search/reproduce" "$h"
    [ "$status" -eq 0 ] || { echo "$h: $output"; false; }
    [[ $output == "experiments/search/reproduce: what \`make search\` runs"*"--help, -h: this text"* ]] || { echo "$h: $output"; false; }
  done
}

@test "make search SPACE=FILE: a missing or folder space file is named with its fix, before any placement" {
  local sp
  for sp in "$BATS_TEST_TMPDIR/none" "$BATS_TEST_TMPDIR"; do
    RB_TARGET=vm SPACE=$sp run "$ROOT/experiments/search/reproduce" --dry-run
    [ "$status" -eq 2 ] || { echo "$sp: $status $output"; false; }
    [ "$output" = "experiments/search/reproduce: error: SPACE=$sp is not a readable search-space file; give SPACE=FILE in the style of experiments/search/space, or no SPACE for that one" ] || { echo "$output"; false; }
  done
}

@test "make search DRY_RUN=1 HOSTS=FILE: an unreadable hosts file is refused as the search refuses it" {
  RB_TARGET=hosts HOSTS=$BATS_TEST_TMPDIR/none run "$ROOT/experiments/search/reproduce" --dry-run
  [ "$status" -eq 2 ] || { echo "$status $output"; false; }
  [[ $output == "experiments/search/reproduce: error: HOSTS $BATS_TEST_TMPDIR/none: no such file; a hosts file is a readable text file"*"(experiments/hosts.example)" ]] || { echo "$output"; false; }
}

@test "search/run: a folder or a missing file as the space is refused by name, with no traceback" {
  local sp
  for sp in "$BATS_TEST_TMPDIR" "$BATS_TEST_TMPDIR/none"; do
    run "$ROOT/experiments/search/run" "$sp" --dry-run
    [ "$status" -eq 2 ] || { echo "$sp: $status $output"; false; }
    [ "$output" = "search: error: no readable search-space file $sp; give a file in the style of experiments/search/space (or none, for that one)" ] || { echo "$output"; false; }
  done
}

@test "experiments/reproduce NAME --help prints its usage and exits 0, with no run placed (no VM)" {
  # HOSTS names no file: a run would be refused, so only the usage passes
  local h
  for h in --help -h; do
    RB_TARGET=hosts HOSTS=$BATS_TEST_TMPDIR/none run "$ROOT/experiments/reproduce" figure-12 "$h"
    [ "$status" -eq 0 ] || { echo "$h: $output"; false; }
    [[ $output == "experiments/reproduce: what \`make figure-N\`"* ]] || { echo "$h: $output"; false; }
  done
}

@test "make search DRY_RUN=1 on the VM bed: the run's 'where' line is said to mean the VMs, not this machine" {
  RB_TARGET=vm run "$ROOT/experiments/search/reproduce" --dry-run
  [ "$status" -eq 0 ] || { echo "$output"; false; }
  [[ $output == *"its 'where' below is the run's own placement, which in the bed is \$RB_HOSTS, the two VMs ci/vm names"*"where: the runner's default placement (\$RB_HOSTS when set, else this machine)"* ]] || { echo "$output"; false; }
}

@test "make search's QUICK takes make's yes/no spellings (yes: the [quick] plan) and refuses others" {
  RB_TARGET=vm QUICK=yes run "$ROOT/experiments/search/reproduce" --dry-run
  [ "$status" -eq 0 ] && [[ $output == *"space $ROOT/experiments/search/space with its [quick]"* ]] || { echo "$output"; false; }
  RB_TARGET=vm QUICK=2 run "$ROOT/experiments/search/reproduce" --dry-run
  [ "$status" -eq 2 ] && [[ $output == *"QUICK=2: not a yes/no value"* ]] || { echo "$output"; false; }
}

@test "search/run: a negative or not-a-number --minutes is refused by name" {
  local m
  for m in -1 nan inf; do
    run "$ROOT/experiments/search/run" --dry-run --minutes "$m"
    [ "$status" -eq 2 ] || { echo "$m: $status $output"; false; }
    [[ $output == "search: error: minutes $m: a time budget of 0 or more minutes"* ]] || { echo "$output"; false; }
  done
}

@test "search/run --dry-run: an unreadable --hosts file, or --hosts with --local, is refused as the runner would" {
  run "$ROOT/experiments/search/run" --dry-run --hosts "$BATS_TEST_TMPDIR/none"
  [ "$status" -eq 2 ] && [[ $output == "search: error: --hosts $BATS_TEST_TMPDIR/none: not a readable hosts file"*"experiments/hosts.example)" ]] || { echo "$output"; false; }
  run "$ROOT/experiments/search/run" --dry-run --hosts "$ROOT/experiments/hosts.example" --local
  [ "$status" -eq 2 ] && [[ $output == *"--hosts FILE (those hosts) or --local (this machine): not both"* ]] || { echo "$output"; false; }
}

@test "search/run: a space file that is not UTF-8 text is refused by name, with no traceback" {
  printf '\xff\xfe[space]\n' > "$BATS_TEST_TMPDIR/bin.space"
  run "$ROOT/experiments/search/run" "$BATS_TEST_TMPDIR/bin.space" --dry-run
  [ "$status" -eq 2 ] || { echo "$status $output"; false; }
  [[ $output == "search: error: $BATS_TEST_TMPDIR/bin.space: not a readable UTF-8 text file ("*"in the style of experiments/search/space" ]] || { echo "$output"; false; }
}
