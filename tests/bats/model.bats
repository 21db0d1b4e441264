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
  [[ $output == *$'\n3,8,984.6,26,22,15753.8,13443.3'* ]] || { echo "$output"; false; }
  run "$MODEL" --figure2 bytes
  [ "$status" -eq 0 ]
  # 64 B: DMA read 26 + 64 + 22; MMIO one 64-byte line + 26
  [[ $output == *$'\n64,112,90,'* ]] || { echo "$output"; false; }
}

@test "rb_model: WQE-by-MMIO UD SENDs are MMIO-bound at 87.5 Mops, batched ones read 128 B per op" {
  run "$MODEL" --verb send --transport ud --size 4 --inline on --wqe-by-mmio on --signal-interval 16
  [ "$status" -eq 0 ]
  [[ $output == *"limit: 87.5 Mops, requester side mmio-bound"* ]] || { echo "$output"; false; }
  run "$MODEL" --verb send --transport ud --size 4 --inline on --postlist 16 --signal-interval 16 --csv
  [ "$status" -eq 0 ]
  [ "${#lines[@]}" -eq 2 ]
  dma=$(awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i } NR == 2 { print $c["req_dma_mops"] }' <<< "$output")
  [ "$dma" = 105.026 ]
}

@test "rb_model refuses bad input naming the value, exit 2" {
  run "$MODEL" --verb read --transport ud
  [ "$status" -eq 2 ]
  [[ $output == *"READ needs RC"* ]]
  run "$MODEL" --lanes 3
  [ "$status" -eq 2 ]
  [[ $output == *"lanes 3"* ]]
  run "$MODEL" --inline maybe
  [ "$status" -eq 2 ]
  [[ $output == *'"maybe"'* ]]
  run "$MODEL" stray
  [ "$status" -eq 2 ]
  [[ $output == *'"stray"'* ]]
}

@test "rb_model parses counts as counts and sizes as sizes, each with its real range" {
  run "$MODEL" --postlist 99999
  [ "$status" -eq 2 ]
  [[ $output == *"--postlist: 99999 is above the maximum 4096 (use an integer from 1 to 4096)"* ]] || { echo "$output"; false; }
  run "$MODEL" --postlist 0
  [ "$status" -eq 2 ]
  [[ $output == *"--postlist: 0 is below the minimum 1 (use an integer from 1 to 4096)"* ]] || { echo "$output"; false; }
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
  run "$MODEL" --mmio-rate 0
  [ "$status" -eq 2 ]
}

@test "rb_model refuses combinations it would ignore or could not build" {
  run "$MODEL" --size 1048576 --inline on
  [ "$status" -eq 2 ]
  [[ $output == *"largest send WQE of 1024 bytes (988 of payload with rc)"* ]] || { echo "$output"; false; }
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

@test "rb_model: postlist 1 defaults to WQE-by-MMIO, as rdma_bench's rows; output nits" {
  run "$MODEL" --verb read --size 64
  [ "$status" -eq 0 ]
  [[ $output == *"read rc, 64 B, WQE-by-MMIO,"* ]] || { echo "$output"; false; }
  [[ $output == *"WQE: 52 B = 1 cache line"$'\n'* ]] || { echo "$output"; false; }
  [[ $output == *"dma unused, mmio 175,"* && $output != *inf* ]] || { echo "$output"; false; }
  run "$MODEL" --verb read --size 64 --wqe-by-mmio off
  [[ $output == *"read rc, 64 B, doorbell,"* ]] || { echo "$output"; false; }
  run "$MODEL" --verb send --transport ud --size 4 --inline on --postlist 16
  [[ $output == *"doorbell"* && $output == *"WQE: 72 B = 2 cache lines"* ]] || { echo "$output"; false; }
}

@test "the figures' limit file is what the model prints (figures/model-limits)" {
  run "$ROOT/figures/model-limits"
  [ "$status" -eq 0 ]
  diff <(printf '%s\n' "$output") "$ROOT/figures/reference/model-limits.csv"
  # the paper's numbers, from the model: 105 (DMA) and 87.5 (MMIO) at 4 B
  grep -q '^fig11,pcie-dma-limit,size_bytes,4,105.026,dma,' "$ROOT/figures/reference/model-limits.csv"
  grep -q '^fig11,pcie-mmio-limit,size_bytes,4,87.5,mmio,mmio,' "$ROOT/figures/reference/model-limits.csv"
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
