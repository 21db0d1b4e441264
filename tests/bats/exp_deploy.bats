#!/usr/bin/env bats
# Experiment runner: safe deployment to hosts (a private folder per host per
# run from mktemp -d, owner and mode checked, removed after the run), and
# servers bound to the clients' address with the run's token.

load fixtures/exp/helpers

hosts2() {
  printf '# address device gid numa user\nnode1 rxe0 1 - root\nnode2 rxe0 1 - root\n' > "$BATS_TEST_TMPDIR/hosts"
}

@test "remote hosts get a private folder each (mktemp -d, mode 700), removed after the run" {
  export RB_SSH="$FIX/fake_ssh -o BatchMode=yes" FAKE_SSH_LOG=$BATS_TEST_TMPDIR/ssh.log
  export FAKE_RB_LOG=$BATS_TEST_TMPDIR/calls
  hosts2
  run_exp "$FIX/tiny" --quick --hosts "$BATS_TEST_TMPDIR/hosts" --run-id priv1
  [ "$status" -eq 0 ] || { echo "$output"; false; }
  local d n1 n2
  d=$(run_dir tiny)
  # the log names both folders; they differ, have the mktemp shape, and are gone
  n1=$(sed -n 's/.*node1: private folder \(\/tmp\/rdma_bench\.[A-Za-z0-9]*\) (owner and mode 700 checked).*/\1/p' <<< "$output")
  n2=$(sed -n 's/.*node2: private folder \(\/tmp\/rdma_bench\.[A-Za-z0-9]*\) (owner and mode 700 checked).*/\1/p' <<< "$output")
  [[ $n1 =~ ^/tmp/rdma_bench\.[A-Za-z0-9]{6}$ ]] || { echo "$output"; false; }
  [[ $n2 =~ ^/tmp/rdma_bench\.[A-Za-z0-9]{6}$ ]]
  [ "$n1" != "$n2" ]
  [ ! -e "$n1" ]
  [ ! -e "$n2" ]
  grep -q "^root@node1 rm -rf -- $n1" "$FAKE_SSH_LOG"
  # nothing of the old predictable name
  [ "$(grep -c "rdma_bench\.priv1" "$FAKE_SSH_LOG")" = 0 ]
  # the server runs from its folder (the binary keeps its name), bound to its address, with the token
  grep -q "^root@node1 echo RB_PID .*$n1/fake_rdma_bench -s .* --bind node1 --token-file $n1/token" "$FAKE_SSH_LOG"
  grep -q "^root@node2 exec 2>&1; .*$n2/fake_rdma_bench -c node1 .* --token-file $n2/token" "$FAKE_SSH_LOG"
  # server and clients saw the same token: the run's, 32 hex digits, mode 600
  [ "$(stat -c %a "$d/token")" = 600 ]
  [[ $(cat "$d/token") =~ ^[0-9a-f]{32}$ ]]
  [ "$(sed -n 's/.* token=\([^ ]*\) .*/\1/p' "$FAKE_RB_LOG" | sort -u)" = "$(head -c 8 "$d/token")" ]
}

@test "a folder someone made beforehand under the old name is never used, its binary never run" {
  export RB_SSH="$FIX/fake_ssh -o BatchMode=yes" FAKE_SSH_LOG=$BATS_TEST_TMPDIR/ssh.log
  hosts2
  # another user of the host prepares /tmp/rdma_bench.<run id> with a binary of theirs
  local planted=/tmp/rdma_bench.planted1
  rm -rf "$planted"
  mkdir -m 777 "$planted"
  printf '#!/bin/sh\ntouch %s/ran\nexit 0\n' "$planted" > "$planted/rdma_bench"
  chmod 777 "$planted/rdma_bench"
  run_exp "$FIX/tiny" --quick --hosts "$BATS_TEST_TMPDIR/hosts" --run-id planted1
  local rc=$status
  [ ! -e "$planted/ran" ]
  [ "$(cat "$planted/rdma_bench")" = "$(printf '#!/bin/sh\ntouch %s/ran\nexit 0' "$planted")" ]
  [ "$(grep -c "$planted" "$FAKE_SSH_LOG")" = 0 ]
  rm -rf "$planted"
  [ "$rc" -eq 0 ] || { echo "$output"; false; }
}

@test "a folder open to other users (mode 777, not 700) stops the deploy before anything is copied" {
  export RB_SSH="$FIX/fake_ssh -o BatchMode=yes" FAKE_SSH_LOG=$BATS_TEST_TMPDIR/ssh.log
  hosts2
  # a mktemp on the host that hands back a folder open to everyone
  mkdir -p "$BATS_TEST_TMPDIR/pathbin"
  local open=/tmp/rdma_bench.OpenAl
  rm -rf "$open"
  mkdir -m 777 "$open"
  # (only for the deploy's folder; the runner's own temporary files get the real one)
  printf '#!/bin/sh\ncase "$*" in *rdma_bench.XXXXXX) echo %s ;; *) exec %s "$@" ;; esac\n' \
    "$open" "$(command -v mktemp)" > "$BATS_TEST_TMPDIR/pathbin/mktemp"
  chmod +x "$BATS_TEST_TMPDIR/pathbin/mktemp"
  PATH=$BATS_TEST_TMPDIR/pathbin:$PATH run_exp "$FIX/tiny" --quick --hosts "$BATS_TEST_TMPDIR/hosts" --run-id open1
  local rc=$status out=$output
  local left
  if [ -d "$open" ]; then left=$(ls -A "$open"); else left="(removed by the run: it was used)"; fi
  rm -rf "$open"
  [ "$rc" -ne 0 ]
  [[ $out == *"deploy: no private folder on node1: mktemp -d, then owner = the ssh user and mode 700 are checked"* ]] || { echo "$out"; false; }
  # no binary, token or job went there, and no server started
  [ -z "$left" ]
  [ "$(grep -c "RB_PID" "$FAKE_SSH_LOG")" = 0 ]
}

@test "a local run's server listens on 127.0.0.1 only, with the run's token" {
  export FAKE_RB_LOG=$BATS_TEST_TMPDIR/calls
  run_exp "$FIX/tiny" --quick --run-id local1
  [ "$status" -eq 0 ] || { echo "$output"; false; }
  local d
  d=$(run_dir tiny)
  grep -q "listening on 127.0.0.1:18515" "$d/server.log" || grep -q "listening on 127.0.0.1:18515" "$d"/points/*/server.log
  [ "$(stat -c %a "$d/token")" = 600 ]
  [ "$(sed -n 's/.* token=\([^ ]*\) .*/\1/p' "$FAKE_RB_LOG" | sort -u)" = "$(head -c 8 "$d/token")" ]
}

# ---- prerequisites of each host, before the sweep (experiments/lib/prereq.sh)

# prereq_env: two remote hosts on the fake ssh, an environment check that
# passes, and a fake /sys/class/infiniband with rxe0 port 1 ACTIVE
prereq_env() {
  export RB_SSH="$FIX/fake_ssh -o BatchMode=yes" FAKE_SSH_LOG=$BATS_TEST_TMPDIR/ssh.log
  export FAKE_RB_LOG=$BATS_TEST_TMPDIR/calls RB_NO_ENV_CHECK=0
  printf '#!/bin/sh\necho "{\\"can_run\\":true}"\n' > "$BATS_TEST_TMPDIR/check-ok"
  chmod +x "$BATS_TEST_TMPDIR/check-ok"
  export RB_ENV_CHECK=$BATS_TEST_TMPDIR/check-ok RB_SYSFS_IB=$BATS_TEST_TMPDIR/ib
  mkdir -p "$RB_SYSFS_IB/rxe0/ports/1/gids"
  echo '4: ACTIVE' > "$RB_SYSFS_IB/rxe0/ports/1/state"
  echo 0000:0000:0000:0000:0000:ffff:c612:0001 > "$RB_SYSFS_IB/rxe0/ports/1/gids/1"
  echo 0000:0000:0000:0000:0000:0000:0000:0000 > "$RB_SYSFS_IB/rxe0/ports/1/gids/2"
  hosts2
}

@test "prerequisites: every host ready: each is named ok before the sweep, which runs" {
  prereq_env
  run_exp "$FIX/tiny" --quick --hosts "$BATS_TEST_TMPDIR/hosts" --run-id pre-ok
  [ "$status" -eq 0 ] || { echo "$output"; false; }
  [[ $output == *"prerequisites: node1 ok (fake_rdma_bench --version starts; device rxe0: an ACTIVE port)"* ]]
  [[ $output == *"prerequisites: node2 ok"* ]]
  grep -q "^root@node2 bash -s -- /tmp/rdma_bench\.[A-Za-z0-9]*/fake_rdma_bench rxe0 1$" "$FAKE_SSH_LOG"
}

@test "prerequisites: a host whose binary cannot start is refused before the sweep, by name, with the fix" {
  prereq_env
  export FAKE_SSH_HOST_ENV="root@node2 FAKE_RB_NOSTART=1"
  run_exp "$FIX/tiny" --quick --hosts "$BATS_TEST_TMPDIR/hosts" --run-id pre-bin
  [ "$status" -eq 2 ]
  [[ $output == *"prerequisites: node1 ok"* ]]
  [[ $output == *"prerequisites: node2 FAILED: binary: /tmp/rdma_bench."*"/fake_rdma_bench --version failed: fake_rdma_bench: error while loading shared libraries: libibverbs.so.1"* ]] || { echo "$output"; false; }
  [[ $output == *"fix: build on a host with the same rdma-core and glibc as root@node2"* ]]
  [[ $output == *"a host is not ready for the sweep"* ]]
  # nothing of the sweep started; the deploy's folders are removed
  [[ $output != *"step 3/4"* ]]
  [ "$(grep -c "RB_PID" "$FAKE_SSH_LOG")" = 0 ]
  if grep -q '^client' "$FAKE_RB_LOG" 2> /dev/null; then false; fi
  [ ! -s "$(run_dir tiny)/remote-dirs" ]
}

@test "prerequisites: a missing device, a port not ACTIVE and an empty GID index are named per host" {
  prereq_env
  printf 'node1 mlx5_9 1 - root\nnode2 rxe0 2 - root\n' > "$BATS_TEST_TMPDIR/hosts"
  run_exp "$FIX/tiny" --quick --hosts "$BATS_TEST_TMPDIR/hosts" --run-id pre-dev
  [ "$status" -eq 2 ]
  [[ $output == *"prerequisites: node1 FAILED: device: mlx5_9 not found (devices: rxe0)"* ]] || { echo "$output"; false; }
  [[ $output == *"fix: name an existing device with an ACTIVE port in the hosts line (ibv_devinfo on root@node1"* ]]
  [[ $output == *"prerequisites: node2 FAILED: gid: rxe0 port 1 has no GID at index 2"* ]]
  echo '1: DOWN' > "$RB_SYSFS_IB/rxe0/ports/1/state"
  hosts2
  run_exp "$FIX/tiny" --quick --hosts "$BATS_TEST_TMPDIR/hosts" --run-id pre-down
  [ "$status" -eq 2 ]
  [[ $output == *"prerequisites: node1 FAILED: device: rxe0 has no ACTIVE port (ports: 1:DOWN)"* ]] || { echo "$output"; false; }
}

@test "prerequisites: a host that asks for a password is refused by name before the environment check" {
  prereq_env
  export FAKE_SSH_PASSWORD=root@node2
  run_exp "$FIX/tiny" --quick --hosts "$BATS_TEST_TMPDIR/hosts" --run-id pre-pw
  [ "$status" -eq 2 ]
  [[ $output == *"prerequisites: node2 FAILED: ssh: "*"-o BatchMode=yes root@node2 true: root@node2: Permission denied (publickey,password)."* ]] || { echo "$output"; false; }
  [[ $output == *"fix: give the runner a key without a passphrase prompt: ssh-copy-id root@node2"* ]]
  [[ $output != *"prerequisites: node1 FAILED"* ]]
  [[ $output != *"check: node1"* ]]
}
