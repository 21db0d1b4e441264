#!/usr/bin/env bats
# Importers: the original artifact's sweep logs and perftest's output into
# rdma_bench's CSV schema.

load fixtures/exp/helpers

SWEEPS=$ROOT/figures/reference/rdma_bench-sweeps
PT=$ROOT/tests/bats/fixtures/exp/perftest

setup() { command -v python3 > /dev/null || skip "python3 is not installed"; }

imp() { "$ROOT/experiments/import" "$@"; }

@test "every shipped sweep log imports: one ok row per Machine line" {
  local f n
  for f in "$SWEEPS"/*; do
    imp sweep "$f" -o "$BATS_TEST_TMPDIR/raw.csv"
    n=$(grep -c '^Machine ' "$f")
    [ "$(tail -n +2 "$BATS_TEST_TMPDIR/raw.csv" | wc -l)" -eq "$n" ] || { echo "$f"; false; }
    [ "$(csv_col "$BATS_TEST_TMPDIR/raw.csv" status | sort -u)" = ok ]
  done
}

@test "sweep: defines map to columns (32-byte READ swarm, first block)" {
  imp sweep "$SWEEPS/netapp-e51bd06-swarm-32_byte_read" -o "$BATS_TEST_TMPDIR/raw.csv"
  local r=$BATS_TEST_TMPDIR/raw.csv
  [ "$(csv_col "$r" verb | sort -u)" = read ]
  [ "$(csv_col "$r" transport | sort -u)" = rc ]
  [ "$(csv_col "$r" size_bytes | sort -u)" = 32 ]
  # block 1: WINDOW_SIZE 8, NUM_WORKERS 12 on 6 machines, UNSIG_BATCH 4
  [ "$(csv_col "$r" window | head -n 1)" = 8 ]
  [ "$(csv_col "$r" threads | head -n 1)" = 2 ]
  [ "$(csv_col "$r" signal_interval | head -n 1)" = 4 ]
  [ "$(csv_col "$r" emulated_peers | head -n 1)" = 6 ]
  [ "$(csv_col "$r" mops | head -n 6 | tr '\n' ' ')" = "6.35 5.88 6.32 5.86 5.87 5.86 " ]
  [ "$(csv_col "$r" device | sort -u)" = "Connect-IB (CIB)" ]
  [ "$(csv_col "$r" source_params | head -n 1)" = "WINDOW_SIZE=8;NUM_WORKERS=12;UNSIG_BATCH=4" ]
}

@test "sweep --summary sums the machines of a block (6.35+5.88+6.32+5.86+5.87+5.86)" {
  imp sweep "$SWEEPS/netapp-e51bd06-swarm-32_byte_read" --summary -o "$BATS_TEST_TMPDIR/s.csv"
  [ "$(csv_col "$BATS_TEST_TMPDIR/s.csv" mops_median | head -n 1)" = 36.14 ]
  [ "$(tail -n +2 "$BATS_TEST_TMPDIR/s.csv" | wc -l)" -eq 125 ]
}

@test "sweep: the header names the operation; UC WRITE and 90 emulated machines" {
  imp sweep "$SWEEPS/netapp-e51bd06-swarm-16_byte_uc_write" -o "$BATS_TEST_TMPDIR/a.csv"
  [ "$(csv_col "$BATS_TEST_TMPDIR/a.csv" verb | sort -u)" = write ]
  [ "$(csv_col "$BATS_TEST_TMPDIR/a.csv" transport | sort -u)" = uc ]
  [ "$(csv_col "$BATS_TEST_TMPDIR/a.csv" size_bytes | sort -u)" = 16 ]
  imp sweep "$SWEEPS/netapp-0e5759a-swarm-48_byte_read_90_vms" -o "$BATS_TEST_TMPDIR/b.csv"
  [ "$(csv_col "$BATS_TEST_TMPDIR/b.csv" emulated_peers | sort -u)" = 90 ]
  [ "$(csv_col "$BATS_TEST_TMPDIR/b.csv" threads | sort -u)" = 14 ]
  # no header: the file name says 90 VMs
  imp sweep "$SWEEPS/netapp-d77b26e-swarm-32B_read-90_vms-28_threads" -o "$BATS_TEST_TMPDIR/c.csv"
  [ "$(csv_col "$BATS_TEST_TMPDIR/c.csv" emulated_peers | sort -u)" = 90 ]
  [ "$(csv_col "$BATS_TEST_TMPDIR/c.csv" threads | sort -u)" = 28 ]
}

@test "sweep: all-signaled logs have signal_interval 1 and fold the ignored UNSIG_BATCH into repetitions" {
  imp sweep "$SWEEPS/netapp-de28929-swarm-32_byte_rc_write_allsig" --summary -o "$BATS_TEST_TMPDIR/s.csv"
  [ "$(csv_col "$BATS_TEST_TMPDIR/s.csv" signal_interval | sort -u)" = 1 ]
  [ "$(csv_col "$BATS_TEST_TMPDIR/s.csv" reps | sort -u)" = 5 ]
  [ "$(tail -n +2 "$BATS_TEST_TMPDIR/s.csv" | wc -l)" -eq 25 ]
  [ "$(csv_col "$BATS_TEST_TMPDIR/s.csv" transport | sort -u)" = rc ]
  imp sweep "$SWEEPS/apt-allsig-32b_reads-6_machines-varnum_vms" -o "$BATS_TEST_TMPDIR/v.csv"
  # VM_PER_MACHINE 3..15 on 6 machines
  [ "$(csv_col "$BATS_TEST_TMPDIR/v.csv" emulated_peers | sort -n -u | tr '\n' ' ')" = "18 30 42 54 66 78 90 " ]
  [ "$(csv_col "$BATS_TEST_TMPDIR/v.csv" device | sort -u)" = "ConnectX-3 (CX3)" ]
}

@test "sweep: malformed logs are refused with the line" {
  printf 'Machine 0 average: 1.0 M/s\n' > "$BATS_TEST_TMPDIR/bad1"
  run imp sweep "$BATS_TEST_TMPDIR/bad1"
  [ "$status" -eq 1 ]
  [[ $output == *"line 1: a Machine line before any #define block"* ]]
  printf '#define SIZE 8\n#define WINDOW_SIZE 8\nMachine 0 average: 1.0 M/s\ngarbage here\n' > "$BATS_TEST_TMPDIR/read-bad2"
  run imp sweep "$BATS_TEST_TMPDIR/read-bad2"
  [ "$status" -eq 1 ]
  [[ $output == *"line 4"* ]]
}

@test "the shipped imported reference is what the importer makes of the shipped logs" {
  imp reference -o "$BATS_TEST_TMPDIR/imported" 2> /dev/null
  diff -r "$BATS_TEST_TMPDIR/imported" "$ROOT/figures/reference/imported"
}

@test "perftest text and --out_json give the same BW row" {
  imp perftest "$PT/write_bw.txt" -o "$BATS_TEST_TMPDIR/t.csv"
  imp perftest "$PT/write_bw.json" -o "$BATS_TEST_TMPDIR/j.csv"
  local f
  for f in t j; do
    [ "$(csv_col "$BATS_TEST_TMPDIR/$f.csv" verb)" = write ]
    [ "$(csv_col "$BATS_TEST_TMPDIR/$f.csv" transport)" = rc ]
    [ "$(csv_col "$BATS_TEST_TMPDIR/$f.csv" size_bytes)" = 4096 ]
    [ "$(csv_col "$BATS_TEST_TMPDIR/$f.csv" mops)" = 0.008343 ]
    # 0.008343 Mops x 4096 B x 8 bit
    [ "$(csv_col "$BATS_TEST_TMPDIR/$f.csv" gbps)" = 0.273383 ]
    [ "$(csv_col "$BATS_TEST_TMPDIR/$f.csv" device)" = rxe0 ]
  done
}

@test "perftest latency: t_typical is the median, READ latency is a round trip" {
  local f
  for f in read_lat.txt read_lat.json; do
    imp perftest "$PT/$f" -o "$BATS_TEST_TMPDIR/l.csv"
    [ "$(csv_col "$BATS_TEST_TMPDIR/l.csv" test)" = lat ]
    [ "$(csv_col "$BATS_TEST_TMPDIR/l.csv" lat_kind)" = rtt ]
    [ "$(csv_col "$BATS_TEST_TMPDIR/l.csv" lat_p50_us)" = 36.08 ]
    [ "$(csv_col "$BATS_TEST_TMPDIR/l.csv" lat_mean_us)" = 61.81 ]
    [ "$(csv_col "$BATS_TEST_TMPDIR/l.csv" lat_p999_us)" = 1597.27 ]
    [ "$(csv_col "$BATS_TEST_TMPDIR/l.csv" lat_min_us)" = 35.09 ]
  done
}

@test "perftest output cut short by an error keeps the rows before it and says so" {
  run imp perftest "$PT/send_bw_all.txt" -o "$BATS_TEST_TMPDIR/s.csv"
  [ "$status" -eq 0 ]
  [[ $output == *"goes on after the numbers"* ]]
  [ "$(csv_col "$BATS_TEST_TMPDIR/s.csv" verb)" = send ]
  [ "$(csv_col "$BATS_TEST_TMPDIR/s.csv" mops)" = 0.030424 ]
}

@test "imported rows aggregate and plot like measured ones" {
  imp sweep "$SWEEPS/apt-allsig-varsize_reads-6_machines-1_vm" --summary -o "$BATS_TEST_TMPDIR/s.csv"
  [ "$(csv_col "$BATS_TEST_TMPDIR/s.csv" status | sort -u)" = ok ]
  command -v gnuplot > /dev/null || skip "gnuplot is not installed"
  run "$ROOT/figures/plot" figure-13 "$BATS_TEST_TMPDIR/s.csv" --out "$BATS_TEST_TMPDIR/out"
  [ "$status" -eq 0 ]
}
