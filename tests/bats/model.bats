#!/usr/bin/env bats
# The PCIe model's command line (build/rb_model) and the figure drawn from
# it alone (figures/figure-2, make figure-2): no RDMA device, no VM.

ROOT=$(cd "$BATS_TEST_DIRNAME/../.." && pwd)
MODEL=$ROOT/build/rb_model

setup() {
  [ -x "$MODEL" ] || make -C "$ROOT" -s model > /dev/null
}

@test "figure-2 renders a PNG and a PDF from the model alone, nothing else in the folder" {
  command -v gnuplot > /dev/null || skip "gnuplot is not installed"
  run "$ROOT/figures/figure-2" --out "$BATS_TEST_TMPDIR/out"
  [ "$status" -eq 0 ] || { echo "$output"; false; }
  [ "$(cd "$BATS_TEST_TMPDIR/out" && find . -type f | sort | tr '\n' ' ')" = "./figure-2.pdf ./figure-2.png " ] ||
    [ "$(cd "$BATS_TEST_TMPDIR/out" && find . -type f | sort | tr '\n' ' ')" = "./figure-2.eps ./figure-2.png " ]
  [ "$(head -c 4 "$BATS_TEST_TMPDIR/out/figure-2.png" | tail -c 3)" = PNG ]
  [ "$(stat -c %s "$BATS_TEST_TMPDIR/out/figure-2.png")" -gt 10000 ]
  [[ $output == *"analytic"* ]]
}

@test "figure-2 takes the model's link options after --" {
  command -v gnuplot > /dev/null || skip "gnuplot is not installed"
  run "$ROOT/figures/figure-2" --out "$BATS_TEST_TMPDIR/o2" -- --mps 256 --lanes 8
  [ "$status" -eq 0 ] || { echo "$output"; false; }
  [ -s "$BATS_TEST_TMPDIR/o2/figure-2.png" ]
  run "$ROOT/figures/figure-2" --out "$BATS_TEST_TMPDIR/o3" -- --mps 100
  [ "$status" -ne 0 ]
  [[ $output == *"--mps: 100 = 100 bytes is below the minimum 128"* ]]
  [ ! -e "$BATS_TEST_TMPDIR/o3/figure-2.png" ]
}

@test "figure-2 without the model binary says how to build it" {
  RB_MODEL=$BATS_TEST_TMPDIR/none run "$ROOT/figures/figure-2" --out "$BATS_TEST_TMPDIR/o4"
  [ "$status" -eq 2 ]
  [[ $output == *"make model"* ]]
}

@test "figure-2's tables: PCIe 3.0 x16 lane rates and 26/22-byte headers" {
  run "$MODEL" --figure2 lanes
  [ "$status" -eq 0 ]
  # 5.2.1: 13443 MB/s of DMA reads, (16 x 984.6) / (64 + 26) = 175 M MMIO lines/s
  [[ $output == *$'\n3,8,984.6,26,22,15753.8,13443.3,175.04'* ]] || { echo "$output"; false; }
  run "$MODEL" --figure2 bytes
  [ "$status" -eq 0 ]
  # 64 B host-to-device (2.1): DMA read 64 + 22, MMIO one 64-byte line + 26;
  # the read request's 26 B go device-to-host, in a column of their own
  [[ $output == *$'\n64,86,90,26,0,'* ]] || { echo "$output"; false; }
}

@test "rb_model: WQE-by-MMIO UD SENDs are MMIO-bound at 87.5 Mops, batched ones read 128 B per op" {
  run "$MODEL" --verb send --transport ud --size 4 --inline on --wqe-by-mmio on --signal-interval 16
  [ "$status" -eq 0 ]
  [[ $output == *"limit: 87.52 Mops, requester side mmio-bound (MMIO throughput (5.2.1))"* ]] || { echo "$output"; false; }
  run "$MODEL" --verb send --transport ud --size 4 --inline on --postlist 16 --signal-interval 16 --csv
  [ "$status" -eq 0 ]
  [ "${#lines[@]}" -eq 2 ]
  dma=$(awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i } NR == 2 { print $c["req_dma_mops"] }' <<< "$output")
  [ "$dma" = 105.026 ]
}

@test "rb_model refuses bad input naming the value, exit 2" {
  run "$MODEL" --verb read --transport ud
  [ "$status" -eq 2 ]
  [[ $output == *"read over ud: ud has only send|send_imm"* ]] || { echo "$output"; false; }
  run "$MODEL" --lanes 3
  [ "$status" -eq 2 ]
  [[ $output == *"lanes 3"* ]]
  run "$MODEL" --inline maybe
  [ "$status" -eq 2 ]
  [[ $output == *"rb_model: error: --inline 'maybe': unknown; use off|on"* ]] || { echo "$output"; false; }
  run "$MODEL" stray
  [ "$status" -eq 2 ]
  [[ $output == *"unexpected argument 'stray'"* ]] || { echo "$output"; false; }
  run "$MODEL" --no-such-option
  [ "$status" -eq 2 ]
  [[ $output == *"unknown option '--no-such-option' (see --help)"* ]] || { echo "$output"; false; }
}

@test "rb_model parses counts as counts and sizes as sizes, each with its real range" {
  # postlist and signal interval: rdma_bench's rows, 1..65536 both
  run "$MODEL" --postlist 99999
  [ "$status" -eq 2 ]
  [[ $output == *"-l/--postlist: 99999 is above the maximum 65536 (use an integer from 1 to 65536)"* ]] || { echo "$output"; false; }
  run "$MODEL" --postlist 0
  [ "$status" -eq 2 ]
  [[ $output == *"--postlist: 0 is below the minimum 1 (use an integer from 1 to 65536)"* ]] || { echo "$output"; false; }
  run "$MODEL" --signal-interval 65537
  [ "$status" -eq 2 ]
  [[ $output == *"--signal-interval: 65537 is above the maximum 65536"* ]] || { echo "$output"; false; }
  run "$MODEL" -l 65536 --signal-interval 65536 --csv
  [ "$status" -eq 0 ] || { echo "$output"; false; }
  run "$MODEL" --postlist 4k
  [ "$status" -eq 2 ]
  [[ $output == *"--postlist: \"4k\""*"digits only"* ]] || { echo "$output"; false; }
  run "$MODEL" --lanes abc
  [ "$status" -eq 2 ]
  [[ $output == *"--lanes"*"from 1 to 32"* && $output != *KiB* ]] || { echo "$output"; false; }
  run "$MODEL" --size 99999999999999999999
  [ "$status" -eq 2 ]
  [[ $output == *"--size"*"1073741824"* && $output != *18446744073709551615* ]] || { echo "$output"; false; }
  run "$MODEL" --mps 4K --csv
  [ "$status" -eq 0 ]
  run "$MODEL" --dma-rate 1e-300
  [ "$status" -eq 2 ]
  [[ $output == *"--dma-rate 1e-300: not a rate from 1 to 1e+06 MB/s"* ]] || { echo "$output"; false; }
  # 0: 5.2.1's formula for the link; below 0 refused
  run "$MODEL" --mmio-rate 0 --csv
  [ "$status" -eq 0 ]
  run "$MODEL" --mmio-rate -5
  [ "$status" -eq 2 ]
  [[ $output == *"--mmio-rate -5: not a rate from 1 to 100000 M cache lines/s (or 0: derived from the link)"* ]] || { echo "$output"; false; }
}

@test "rb_model refuses combinations it would ignore or could not build" {
  run "$MODEL" --size 1048576 --inline on
  [ "$status" -eq 2 ]
  [[ $output == *"largest send WQE of 1024 bytes (988 of payload with write rc)"* ]] || { echo "$output"; false; }
  run "$MODEL" --size 988 --inline on
  [ "$status" -eq 0 ]
  run "$MODEL" --recv-inline on --verb write
  [ "$status" -eq 2 ]
  [[ $output == *"RECV inline with write"*"--recv-inline off"* ]] || { echo "$output"; false; }
  run "$MODEL" --wqe-by-mmio on --postlist 16
  [ "$status" -eq 2 ]
  [[ $output == *"postlist 16 with WQE-by-MMIO"*"--wqe-by-mmio off"* ]] || { echo "$output"; false; }
  run "$MODEL" --figure2 bytes --verb read --size 5
  [ "$status" -eq 2 ]
  [[ $output == *"--verb with --figure2 bytes"*"drop --verb"* ]] || { echo "$output"; false; }
  run "$MODEL" --figure2 bytes --mps 256
  [ "$status" -eq 0 ]
}

@test "rb_model: postlist 1 is WQE-by-MMIO only when inline (BlueFlame), --blueflame for other providers" {
  run "$MODEL" --verb read --size 64
  [ "$status" -eq 0 ]
  [[ $output == *"read rc, 64 B, doorbell,"* ]] || { echo "$output"; false; }
  [[ $output == *"postlist 1 by doorbell: --blueflame inline writes only inline WQEs by MMIO"* ]] || { echo "$output"; false; }
  [[ $output == *"WQE: 48 B = 1 cache line"$'\n'* ]] || { echo "$output"; false; }
  [[ $output != *inf* ]] || { echo "$output"; false; }
  run "$MODEL" --verb send --size 32 --inline on
  [[ $output == *"send rc, 32 B inline, WQE-by-MMIO,"* ]] || { echo "$output"; false; }
  run "$MODEL" --verb read --size 64 --blueflame any
  [[ $output == *"read rc, 64 B, WQE-by-MMIO,"* && $output == *"dma_read unused, mmio 175,"* ]] || { echo "$output"; false; }
  run "$MODEL" --verb send --size 32 --inline on --blueflame never
  [[ $output == *"send rc, 32 B inline, doorbell,"* ]] || { echo "$output"; false; }
  run "$MODEL" --blueflame maybe
  [ "$status" -eq 2 ]
  [[ $output == *"--blueflame 'maybe': unknown; use inline|any|never"* ]] || { echo "$output"; false; }
  run "$MODEL" --verb send --transport ud --size 4 --inline on --postlist 16
  [[ $output == *"doorbell"* && $output == *"WQE: 72 B = 2 cache lines"* ]] || { echo "$output"; false; }
}

@test "rb_model: a header-only UD SEND is a one-line WQE (5.2.2), a 4-byte one two lines" {
  run "$MODEL" --verb send_imm --transport ud --size 0 --inline on
  [ "$status" -eq 0 ]
  [[ $output == *"WQE: 64 B = 1 cache line"$'\n'* ]] || { echo "$output"; false; }
  # the sender's MMIO: one line per SEND, 175 M lines/s
  [[ $output == *"-> 175 (mmio: MMIO throughput (5.2.1))"* ]] || { echo "$output"; false; }
  run "$MODEL" --verb send_imm --transport ud --size 4 --inline on
  [[ $output == *"WQE: 72 B = 2 cache lines"* && $output == *"-> 87.52 (mmio: MMIO"* ]] || { echo "$output"; false; }
}

@test "rb_model: --rcb (C_rc) splits read completions, --link gives PCIe 4.0/5.0 rates" {
  col() { awk -F, -v want="$1" 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i } NR == 2 { print $c[want] }'; }
  # a 1024-byte READ: completions of 128 B (8 x 22 B) by default, of 256 B with --rcb 256 --mps 256
  run "$MODEL" --verb read --size 1024 --csv
  [ "$(col resp_down_tlp_headers <<< "$output")" = 176 ] || { echo "$output"; false; }
  run "$MODEL" --verb read --size 1024 --mps 256 --csv
  [ "$(col resp_down_tlp_headers <<< "$output")" = 176 ] || { echo "$output"; false; }
  run "$MODEL" --verb read --size 1024 --mps 256 --rcb 256 --csv
  [ "$(col resp_down_tlp_headers <<< "$output")" = 88 ] || { echo "$output"; false; }
  run "$MODEL" --link gen4x16 --csv
  [ "$(col mmio_mlines_per_s <<< "$output")" = 350.085 ] || { echo "$output"; false; }
  run "$MODEL" --link gen5x16 --csv
  [ "$(col dma_read_mb_per_s <<< "$output")" = 53773.1 ] || { echo "$output"; false; }
  run "$MODEL" --link gen6x16
  [ "$status" -eq 2 ]
  [[ $output == *'--link: "gen6x16" is not paper or genGxL'* ]] || { echo "$output"; false; }
}

@test "rb_model's options are a knob table: --help and --list-knobs from it, shared rows as rdma_bench's" {
  run "$MODEL" --list-knobs
  [ "$status" -eq 0 ]
  local mine theirs opt
  for opt in --verb --transport --postlist --signal-interval; do
    # option, short flag, value, type, range: the same row in both programs
    mine=$(awk -F'\t' -v o="$opt" '$1 == o { print $1, $2, $3, $4, $6 }' <<< "$output")
    theirs=$(awk -F'\t' -v o="$opt" '$1 == o { print $1, $2, $3, $4, $6 }' "$ROOT/experiments/lib/knobs.tsv")
    [ -n "$mine" ] && [ "$mine" = "$theirs" ] || { echo "$opt: rb_model '$mine', rdma_bench '$theirs'"; false; }
  done
  [[ $output == *$'--signal-interval\t-\tN\tnum\t1\t1..65536\t'* ]] || { echo "$output"; false; }
  [[ $output == *$'--cqe-inline\t-\tBYTES|paper|mlx5\tsize\t64\t0..4096\t'* ]] || { echo "$output"; false; }
  run "$MODEL" --help
  [ "$status" -eq 0 ]
  [[ $output == *"--signal-interval N WQEs per CQE (1)"* && $output == *"Exit status: 0, or 2"* ]] || { echo "$output"; false; }
  # rb_model has no server: no -s/-c
  run "$MODEL" -s
  [ "$status" -eq 2 ]
}

@test "rb_model: RECV inline holds ~64 B by default (3.2), 32 B with --cqe-inline mlx5" {
  col() { awk -F, -v want="$1" 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i } NR == 2 { print $c[want] }'; }
  run "$MODEL" --verb send --transport ud --size 64 --recv-inline on --csv
  [ "$status" -eq 0 ]
  [ "$(col resp_up_payload_dma <<< "$output")" = 0 ] || { echo "$output"; false; }
  run "$MODEL" --verb send --transport ud --size 64 --recv-inline on --cqe-inline mlx5 --csv
  [ "$(col resp_up_payload_dma <<< "$output")" = 64 ] || { echo "$output"; false; }
  run "$MODEL" --verb send --transport ud --size 32 --recv-inline on --cqe-inline mlx5 --csv
  [ "$(col resp_up_payload_dma <<< "$output")" = 0 ] || { echo "$output"; false; }
  run "$MODEL" --cqe-inline 65
  [ "$status" -eq 2 ]
  [[ $output == *"CQE 64 bytes holding 65 inline bytes"* ]] || { echo "$output"; false; }
}

@test "figure-2 refuses a link where a DMA read would not beat MMIO host-to-device (2.1)" {
  command -v gnuplot > /dev/null || skip "gnuplot is not installed"
  # 256-byte write-combining lines against 64-byte completions: 256 B cost
  # 256 + 4 x 22 by DMA read and 256 + 26 by MMIO, against 2.1's sentence
  run "$ROOT/figures/figure-2" --out "$BATS_TEST_TMPDIR/o5" -- --cacheline 256 --rcb 64
  [ "$status" -eq 1 ]
  [[ $output == *"256 B: DMA read 344 B host-to-device is not below MMIO 282 B (2.1 says it always is)"* ]] || { echo "$output"; false; }
  [ ! -e "$BATS_TEST_TMPDIR/o5/figure-2.png" ]
}

@test "the figures' limit file is what the model prints (figures/model-limits)" {
  run "$ROOT/figures/model-limits"
  [ "$status" -eq 0 ]
  diff <(printf '%s\n' "$output") "$ROOT/figures/reference/model-limits.csv"
  # the paper's numbers, from the model: 105 (DMA) and 87.5 (MMIO) at 4 B
  grep -q '^fig11,pcie-dma-limit,size_bytes,4,105.026,dma,' "$ROOT/figures/reference/model-limits.csv"
  grep -q '^fig11,pcie-mmio-limit,size_bytes,4,87.5214,mmio,mmio,' "$ROOT/figures/reference/model-limits.csv"
}

@test "figures 11, 12 and table 5 draw the model's limits from the limit file" {
  command -v gnuplot > /dev/null || skip "gnuplot is not installed"
  for f in figure-11 figure-12 table-5; do
    grep -q 'reference/model-limits.csv' "$ROOT/figures/$f.gp"
    run "$ROOT/figures/plot" "$f" --reference-only --out "$BATS_TEST_TMPDIR/$f"
    [ "$status" -eq 0 ] || { echo "$output"; false; }
    [ -s "$BATS_TEST_TMPDIR/$f/$f.png" ]
  done
}
