#!/usr/bin/env bats
# make's experiment targets (experiments/experiments.mk): an unknown
# figure-N/table-N/compare-N lists the known experiments; QUICK takes
# 1|yes|true|on and 0|no|false|off|empty and refuses anything else, in make
# and in the scripts it calls. make -n: nothing is run.

ROOT=$(cd "$BATS_TEST_DIRNAME/../.." && pwd)

@test "make figure-99 / compare-99 / table-9 name the known experiments, the names of experiments-list, before building anything; make exits 2" {
  run make -C "$ROOT" --no-print-directory experiments-list
  [ "$status" -eq 0 ] || { echo "$output"; false; }
  local listed
  listed=$(sed -n 's/^[^:]*: //p' <<< "$output" | sed -n 1,3p | tr '\n' ' ')
  [[ $listed == "figure-2 figure-7 "*" table-1 table-2 table-3 table-5 figure-loss search "*swarm-32b_read* ]] || { echo "$output"; false; }
  # table-9 (figure-9 exists) used to install and build first
  run make -C "$ROOT" --no-print-directory -n table-9
  [[ $output != *"install-deps"* ]] || { echo "$output"; false; }
  for t in figure-99 compare-99 table-9; do
    run make -C "$ROOT" --no-print-directory "$t"
    [ "$status" -eq 2 ] || { echo "$output"; false; }
    [[ $output == *"no experiment for '$t'; known: ${listed% }; compare-N for: "* ]] || { echo "$output"; false; }
    [[ $output != *"No rule to make target"* ]] || { echo "$output"; false; }
  done
}

@test "QUICK=yes|true|on|1 runs the reduced grid, no|false|off|0|empty the full one" {
  for q in 1 yes true on YES; do
    run make -C "$ROOT" --no-print-directory -n figure-12 compare-12 QUICK="$q"
    [ "$status" -eq 0 ] || { echo "$output"; false; }
    [[ $output == *"QUICK=1 HOSTS= VMS= LAUNCHER= experiments/reproduce figure-12"* ]] || { echo "$q: $output"; false; }
    [[ $output == *"experiments/compare figure-12 --quick"* ]] || { echo "$q: $output"; false; }
  done
  for q in 0 no false off ""; do
    run make -C "$ROOT" --no-print-directory -n figure-12 compare-12 QUICK="$q"
    [ "$status" -eq 0 ] || { echo "$output"; false; }
    [[ $output == *"QUICK=0 HOSTS= VMS= LAUNCHER= experiments/reproduce figure-12"* ]] || { echo "$q: $output"; false; }
    [[ $output != *"--quick"* ]] || { echo "$q: $output"; false; }
  done
}

@test "QUICK=maybe is refused naming the value, by make and by the scripts" {
  run make -C "$ROOT" --no-print-directory -n figure-12 QUICK=maybe
  [ "$status" -eq 2 ]
  [[ $output == *"QUICK=maybe: not a yes/no value; use QUICK=1"* ]] || { echo "$output"; false; }
  for s in reproduce run; do
    QUICK=maybe run "$ROOT/experiments/$s" no-such-exp --dry-run
    [ "$status" -eq 2 ] || { echo "$s: $output"; false; }
    [[ $output == *"QUICK=maybe: not a yes/no value"* ]] || { echo "$s: $output"; false; }
  done
}

@test "HOSTS=FILE that cannot be read is refused at once, naming the file and where the format is" {
  HOSTS=$BATS_TEST_TMPDIR/no-such-hosts run "$ROOT/experiments/reproduce" figure-12
  [ "$status" -eq 2 ] || { echo "$output"; false; }
  [[ $output == *"HOSTS $BATS_TEST_TMPDIR/no-such-hosts: no such file; a hosts file is a readable text file"*"experiments/hosts.example"* ]] || { echo "$output"; false; }
}

@test "make figure-N HOSTS= with VMS= or LAUNCHER=slurm is refused (make exits 2) naming both and which to keep" {
  local t
  for t in figure-12 table-3 figure-loss search; do
    run make -C "$ROOT" --no-print-directory -n "$t" HOSTS=experiments/hosts.example VMS=3
    [ "$status" -eq 2 ] || { echo "$t: $output"; false; }
    [[ $output == *"HOSTS=experiments/hosts.example and VMS=3: HOSTS= runs on the hosts of experiments/hosts.example, VMS= sizes the soft-RoCE VM bed used without HOSTS=; keep HOSTS= for your hosts, or VMS= without HOSTS= for the VM bed"* ]] || { echo "$t: $output"; false; }
    [[ $output != *"experiments/reproduce"* && $output != *"install-deps"* ]] || { echo "$t: $output"; false; }
  done
  run make -C "$ROOT" --no-print-directory -n figure-12 HOSTS=experiments/hosts.example LAUNCHER=slurm
  [ "$status" -eq 2 ]
  [[ $output == *"HOSTS=experiments/hosts.example and LAUNCHER=slurm: the Slurm launcher takes its hosts from the allocation (or the VM bed); keep HOSTS= (the ssh launcher), or LAUNCHER=slurm without HOSTS="* ]] || { echo "$output"; false; }
  # each alone, and VMS= with LAUNCHER=slurm (the VM bed with Slurm), are fine
  for t in "HOSTS=experiments/hosts.example" "VMS=3" "VMS=3 LAUNCHER=slurm" "HOSTS=experiments/hosts.example LAUNCHER=ssh"; do
    # shellcheck disable=SC2086  # the case's words
    run make -C "$ROOT" --no-print-directory -n figure-12 $t
    [ "$status" -eq 0 ] || { echo "$t: $output"; false; }
  done
  # make's other targets do not care
  run make -C "$ROOT" --no-print-directory -n experiments-list HOSTS=x VMS=3
  [ "$status" -eq 0 ]
}

@test "make figure- / table- / compare- (no number) list the valid numbers, make exits 2, no figure-.o" {
  local t
  for t in figure- table- compare-; do
    run make -C "$ROOT" --no-print-directory "$t"
    [ "$status" -eq 2 ] || { echo "$t: $output"; false; }
    [[ $output != *".o"* && $output != *"No rule"* ]] || { echo "$t: $output"; false; }
    case $t in
      compare-) [[ $output == *"make compare-: no number after 'compare-'; compare-N for: 7 8 9 10 11 11b 12 13 14 table-3 table-5 "*" (make compare-12)"* ]] || { echo "$t: $output"; false; } ;;
      *) [[ $output == *"make $t: no number after '$t'; figures: 2 7 8 9 10 11 11b 12 13 14 loss (make figure-12); tables: 1 2 3 5 (make table-3)"* ]] || { echo "$t: $output"; false; } ;;
    esac
  done
}

@test "make -n after make lists nothing (no FORCE rule); a new revision still lists env.o and the links" {
  # a top-level make's words and flags also when this runs under make test
  # (a nested make says "make[1]:" and inherits the jobserver's MAKEFLAGS)
  unset MAKELEVEL MAKEFLAGS MFLAGS
  make -C "$ROOT" -s all > /dev/null
  run make -C "$ROOT" --no-print-directory -n all
  [ "$status" -eq 0 ] && [ "$output" = "make: Nothing to be done for 'all'." ] || { echo "$output"; false; }
  # another revision: its stamp is missing, env.o (RB_GIT_REV) and both programs follow
  run make -C "$ROOT" --no-print-directory -n all GIT_REV=0123456789ab
  [[ $output == *"-o build/obj/lib/env.o bench/lib/env.c"* ]] || { echo "$output"; false; }
  [[ $output == *"-o rdma_bench.tmp"*"-o rdma_seq.tmp"* ]] || { echo "$output"; false; }
}

@test "reproduce --help prints its usage; --dry-run (make DRY_RUN=1) dry-runs on this host with the VM bed's boot time, no VM" {
  for h in --help -h; do
    run "$ROOT/experiments/reproduce" "$h"
    [ "$status" -eq 0 ] || { echo "$h: $output"; false; }
    [[ $output == *"experiments/reproduce NAME [experiments/run options...]"*"--dry-run (make NAME DRY_RUN=1)"* ]] || { echo "$h: $output"; false; }
  done
  # the bed chosen (RB_TARGET=vm): the dry run on the host, then the bed's cost
  RB_TARGET=vm QUICK=1 run "$ROOT/experiments/reproduce" figure-12 --dry-run
  [ "$status" -eq 0 ] || { echo "$output"; false; }
  [[ $output == *"grid: "*"expected "*"VM bed: + "*"docs/vm-bed.md"*"VM bed: + about 19 s to boot 2 VMs under TCG, docs/vm-bed.md"* ]] || { echo "$output"; false; }
  [[ $output != *"soft-RoCE VM bed (2 VMs; expected"* ]] || { echo "$output"; false; }
  run make -C "$ROOT" --no-print-directory -n figure-12 DRY_RUN=1
  [ "$status" -eq 0 ] || { echo "$output"; false; }
  [[ $output == *"experiments/reproduce figure-12 --dry-run"* && $output != *"install-deps"* ]] || { echo "$output"; false; }
  run make -C "$ROOT" --no-print-directory -n figure-12 DRY_RUN=maybe
  [ "$status" -eq 2 ] && [[ $output == *"DRY_RUN=maybe: not a yes/no value"* ]] || { echo "$output"; false; }
}

@test "make help: the paper's names as experiments-list has them, and every 'make X' it names is a target" {
  run make -C "$ROOT" --no-print-directory help
  [ "$status" -eq 0 ] || { echo "$output"; false; }
  local help=$output paper t
  run make -C "$ROOT" --no-print-directory experiments-list
  paper=$(sed -n "s/^the paper's figures and tables: //p" <<< "$output")
  [[ $help == *"figure-N, table-N  $paper"* && $help == *"DRY_RUN=1"* ]] || { echo "$help"; false; }
  # make's database of explicit targets, read once
  local targets
  targets=$(make -C "$ROOT" --no-print-directory -pRrq : 2> /dev/null | sed -n 's/^\([a-z][a-z0-9_-]*\):.*/\1/p' | sort -u)
  for t in $(grep -o 'make [a-z][a-z0-9_-]*' <<< "$help" | cut -d' ' -f2 | sort -u); do
    [ "$t" = help ] || grep -qx -- "$t" <<< "$targets" || { echo "help names make $t, which is no target"; false; }
  done
}

@test "figure-2, table-1 and table-2 with DRY_RUN=1 say what they would write and write nothing" {
  local t f before
  for t in figure-2 table-1 table-2; do
    case $t in figure-2) f=$ROOT/figures/out/figure-2.png ;; *) f=$ROOT/figures/out/$t.md ;; esac
    before=$(stat -c %Y.%s "$f" 2> /dev/null || echo none)
    run make -C "$ROOT" --no-print-directory -s "$t" DRY_RUN=1
    [ "$status" -eq 0 ] || { echo "$t: $output"; false; }
    [[ ${lines[-1]} == "make $t DRY_RUN=1: "*" would "*"; nothing written" ]] || { echo "$t: $output"; false; }
    [ "$(stat -c %Y.%s "$f" 2> /dev/null || echo none)" = "$before" ]
  done
}
