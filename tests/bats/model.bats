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
  [[ $output == *"MPS 100"* ]]
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
