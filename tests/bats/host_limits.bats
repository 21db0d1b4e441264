#!/usr/bin/env bats
# The PCIe model's limit lines on the measured hosts' own link: taken from
# the rows' model_limit_mops where a host reported a PCIe link
# (figures/host-limits.awk), drawn by figure-12 beside the paper's, and
# absent with the reason "no PCI device" on soft-RoCE.

load fixtures/exp/helpers
bats_require_minimum_version 1.5.0

hl() { awk -f "$LIB/csv.awk" -f "$ROOT/figures/host-limits.awk" "$@"; }

# raw rows of figure-12: read rc and write uc at 32 and 64 B, one host link
raw_with_link() {
  echo "exp_name,role,thread,status,verb,transport,postlist,size_bytes,mops,model_limit_mops,model_bound,model_reason,model_link"
  echo "figure-12,client,all,ok,read,rc,1,64,4,40.5,link (responder),,pcie3x8 mps256 mrrs512"
  echo "figure-12,client,0,ok,read,rc,1,64,4,99,link (responder),,pcie3x8 mps256 mrrs512"
  echo "figure-12,client,all,failed,read,rc,1,128,0,98,link (responder),,pcie3x8 mps256 mrrs512"
  echo "figure-12,client,all,ok,read,rc,1,32,4,41.25,link (responder),,pcie3x8 mps256 mrrs512"
  echo "figure-12,client,all,ok,write,uc,1,32,4,60,dma (responder),,pcie3x8 mps256 mrrs512"
  echo "figure-12,client,all,ok,read,rc,1,64,4,40.5,link (responder),,pcie3x8 mps256 mrrs512"
  echo "figure-12,client,all,ok,read,rc,16,64,4,80,link (responder),,pcie3x8 mps256 mrrs512"
}

@test "host limits: one row per point from the ok process rows that report a link" {
  raw_with_link > "$BATS_TEST_TMPDIR/raw.csv"
  run hl "$BATS_TEST_TMPDIR/raw.csv"
  [ "$status" -eq 0 ]
  [ "${#lines[@]}" -eq 5 ]
  [ "${lines[0]}" = "verb,transport,postlist,size_bytes,y,link,bound,reason" ]
  # the thread row (99) and the failed row (128 B) give nothing; 64 B once
  # per postlist (another postlist is another point of the model)
  [ "${lines[1]}" = 'read,rc,1,64,40.5,"pcie3x8 mps256 mrrs512","link (responder)",' ]
  [ "${lines[2]}" = 'read,rc,1,32,41.25,"pcie3x8 mps256 mrrs512","link (responder)",' ]
  [ "${lines[3]}" = 'write,uc,1,32,60,"pcie3x8 mps256 mrrs512","dma (responder)",' ]
  [ "${lines[4]}" = 'read,rc,16,64,80,"pcie3x8 mps256 mrrs512","link (responder)",' ]
}

@test "host limits on soft-RoCE: no line, the reason says there is no PCI device" {
  { echo "role,thread,status,verb,transport,size_bytes,model_limit_mops,model_reason,model_link"
    echo "client,all,ok,read,rc,64,,\"no PCI device behind rxe0 (soft-RoCE or no link files): model uses the paper's link\",none"; } \
    > "$BATS_TEST_TMPDIR/raw.csv"
  run hl "$BATS_TEST_TMPDIR/raw.csv"
  [ "$status" -eq 0 ]
  [ "${#lines[@]}" -eq 2 ]
  [[ ${lines[1]} == ',,,,,,,"no PCI device behind rxe0 (soft-RoCE'* ]]
  # no ok row at all: said too
  head -n 1 "$BATS_TEST_TMPDIR/raw.csv" > "$BATS_TEST_TMPDIR/none.csv"
  run hl "$BATS_TEST_TMPDIR/none.csv"
  [ "${lines[1]}" = ',,,,,,,"no ok client row"' ]
}

@test "figure-12 draws the hosts' limit lines when the run's rows report a link, and none on soft-RoCE" {
  command -v gnuplot > /dev/null || skip "gnuplot is not installed"
  local d=$BATS_TEST_TMPDIR/run
  mkdir -p "$d" "$BATS_TEST_TMPDIR/bin"
  cp "$FIX/summary-figure-12.csv" "$d/summary.csv"
  raw_with_link > "$d/raw.csv"
  REAL_GNUPLOT=$(command -v gnuplot)
  export REAL_GNUPLOT GNUPLOT_LOG=$BATS_TEST_TMPDIR/gnuplot.log
  ln -s "$FIX/gnuplot_log" "$BATS_TEST_TMPDIR/bin/gnuplot"
  PATH=$BATS_TEST_TMPDIR/bin:$PATH run "$ROOT/figures/plot" figure-12 "$d/summary.csv" --out "$BATS_TEST_TMPDIR/out"
  [ "$status" -eq 0 ] || { echo "$output"; false; }
  grep -q "hostlink='pcie3x8 mps256 mrrs512'" "$GNUPLOT_LOG"
  grep -qF "TEXT (PCIe model \(these hosts' link, pcie3x8 mps256 mrrs512\): READ limit)" "$GNUPLOT_LOG"
  grep -qF "TEXT (PCIe model \(these hosts' link, pcie3x8 mps256 mrrs512\): WRITE limit)" "$GNUPLOT_LOG"
  # soft-RoCE rows: the paper's lines only
  sed -i 's/pcie3x8 mps256 mrrs512/none/; s/,40.5,/,,/' "$d/raw.csv"
  sed -i 's/,[0-9.]*,\([a-z]* (responder)\),,none$/,,\1,no PCI device behind rxe0,none/' "$d/raw.csv"
  : > "$GNUPLOT_LOG"
  PATH=$BATS_TEST_TMPDIR/bin:$PATH run "$ROOT/figures/plot" figure-12 "$d/summary.csv" --out "$BATS_TEST_TMPDIR/out"
  [ "$status" -eq 0 ] || { echo "$output"; false; }
  grep -q "hostlink=''" "$GNUPLOT_LOG"
  run ! grep -q "these hosts' link" "$GNUPLOT_LOG"
  grep -qF "TEXT (PCIe model \(paper's hardware\): READ limit at the server)" "$GNUPLOT_LOG"
}

@test "figure-11 draws the hosts' limit per postlist when the rows report a link" {
  command -v gnuplot > /dev/null || skip "gnuplot is not installed"
  local d=$BATS_TEST_TMPDIR/run
  mkdir -p "$d" "$BATS_TEST_TMPDIR/bin"
  { echo "exp_name,exp_point,verb,transport,test,size_bytes,postlist,qps_per_thread,status,mops_median,mops_min,mops_max,device,kernel,host"
    echo "figure-11,1,send,ud,bw,4,16,1,ok,2,2,2,mlx5_0,6.1,h1"
    echo "figure-11,2,send,ud,bw,4,1,1,ok,1,1,1,mlx5_0,6.1,h1"; } > "$d/summary.csv"
  { echo "role,thread,status,verb,transport,postlist,size_bytes,model_limit_mops,model_bound,model_reason,model_link"
    echo "client,all,ok,send,ud,16,4,103.6,link (requester),,pcie3x16 mps256 mrrs512"
    echo "client,all,ok,send,ud,1,4,87.5,mmio (requester),,pcie3x16 mps256 mrrs512"; } > "$d/raw.csv"
  REAL_GNUPLOT=$(command -v gnuplot)
  export REAL_GNUPLOT GNUPLOT_LOG=$BATS_TEST_TMPDIR/gnuplot.log
  ln -s "$FIX/gnuplot_log" "$BATS_TEST_TMPDIR/bin/gnuplot"
  PATH=$BATS_TEST_TMPDIR/bin:$PATH run "$ROOT/figures/plot" figure-11 "$d/summary.csv" --out "$BATS_TEST_TMPDIR/out"
  [ "$status" -eq 0 ] || { echo "$output"; false; }
  grep -qF "TEXT (PCIe model \(these hosts' link, pcie3x16 mps256 mrrs512\): limit, postlist 16)" "$GNUPLOT_LOG"
  grep -qF "TEXT (PCIe model \(these hosts' link, pcie3x16 mps256 mrrs512\): limit, postlist 1)" "$GNUPLOT_LOG"
}
