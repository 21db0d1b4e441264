#!/usr/bin/env bats
# Legible figures: rendered from fixture summaries and the reference data,
# with what gnuplot was given and the text it drew read back
# (fixtures/exp/gnuplot_log): no key entry without data, no empty panel,
# no overprinted list of paper values.

load fixtures/exp/helpers
bats_require_minimum_version 1.5.0

setup() {
  command -v gnuplot > /dev/null || skip "gnuplot is not installed"
  mkdir -p "$BATS_TEST_TMPDIR/bin"
  REAL_GNUPLOT=$(command -v gnuplot)
  export REAL_GNUPLOT GNUPLOT_LOG=$BATS_TEST_TMPDIR/gnuplot.log
  ln -s "$FIX/gnuplot_log" "$BATS_TEST_TMPDIR/bin/gnuplot"
}

plot() { PATH=$BATS_TEST_TMPDIR/bin:$PATH run "$ROOT/figures/plot" "$@" --out "$BATS_TEST_TMPDIR/out"; }

# planted CHECKER.awk FILE-NAME TEXT: run the test checker on a planted
# input (TEXT, printf format, written to $BATS_TEST_TMPDIR/FILE-NAME);
# the caller asserts on $status and $output (a check that cannot fail on
# a planted case checks nothing)
planted() {
  # shellcheck disable=SC2059  # TEXT is the printf format by design
  printf "$3" > "$BATS_TEST_TMPDIR/$2"
  run awk -f "$ROOT/tests/lib/$1" "$BATS_TEST_TMPDIR/$2"
}

@test "a series without a point has no key entry; the noisy ring only with a noisy point" {
  plot figure-14 "$FIX/summary-figure-14.csv"
  [ "$status" -eq 0 ] || { echo "$output"; false; }
  grep -q "present=' fetch_add  '; anynoisy=0" "$GNUPLOT_LOG"
  grep -q "^TEXT (FETCH_AND_ADD, measured \[soft-RoCE\])" "$GNUPLOT_LOG"
  run ! grep -q "CMP_AND_SWAP" "$GNUPLOT_LOG"
  run ! grep -q "^TEXT (ring: noisy point" "$GNUPLOT_LOG"
  # golden: READ points (one noisy), the WRITE point failed
  : > "$GNUPLOT_LOG"
  plot figure-12 "$FIX/golden-summary.csv"
  [ "$status" -eq 0 ] || { echo "$output"; false; }
  grep -qF 'TEXT (READ \(RC\), measured [soft-RoCE])' "$GNUPLOT_LOG"
  run ! grep -q "WRITE (UC), measured" "$GNUPLOT_LOG"
  grep -q "^TEXT (ring: noisy point" "$GNUPLOT_LOG"
}

@test "reference-only figures: no measured key entry and no empty panel" {
  plot figure-11 --reference-only
  [ "$status" -eq 0 ] || { echo "$output"; false; }
  run ! grep -q ", measured" "$GNUPLOT_LOG"
  run ! grep -q "(b) batched" "$GNUPLOT_LOG"
  grep -qF 'TEXT (\(a\) doorbell batching' "$GNUPLOT_LOG"
  : > "$GNUPLOT_LOG"
  plot table-5 --reference-only
  [ "$status" -eq 0 ]
  grep -qF 'TEXT (paper text \(ATC' "$GNUPLOT_LOG"
  run ! grep -q "bars RECV rate" "$GNUPLOT_LOG"
}

@test "figure 11: the paper values in one list, each value once, not four labels at one place" {
  # the model's MMIO limit is 5.2.1's formula, (16 x 984.6) / (64 + 26) / 2
  # = 87.52 Mops, which the paper rounds to 87.5
  plot figure-11 --reference-only
  [ "$status" -eq 0 ]
  local v n
  for v in "batched \\(postlist 16\\): 101.6 Mops" "not batched: 80 Mops" "PCIe DMA limit: 105 Mops" \
           "PCIe MMIO limit \\(2-cache-line WQE\\): 87.52 Mops"; do
    n=$(grep -cF "TEXT ($v)" "$GNUPLOT_LOG")
    [ "$n" -eq 1 ] || { echo "$v: $n times"; false; }
  done
  # people's words, not the reference file's series tags
  run ! grep -qE "^TEXT .*(pcie-mmio-limit|pcie-dma-limit|ud-send-batched|ud-send-nonbatched)" "$GNUPLOT_LOG"
  grep -q "drawn to 64 B" "$GNUPLOT_LOG"
  # reference only: x over the payloads the paper states (4-64 B, not to
  # 1024 with the lines stopping at 64), and the title says where (b) is
  grep -q "^XRANGE 3.2 80$" "$GNUPLOT_LOG" || { grep XRANGE "$GNUPLOT_LOG"; false; }
  grep -qF 'TEXT (\(a\) doorbell batching \(postlist\), 1 QP; \(b\) QPs per thread: with a measured run' "$GNUPLOT_LOG" || { grep '^TEXT (.(a' "$GNUPLOT_LOG"; false; }
}

@test "figure 14: the CX3 value across the counters, the CIB peak at the largest count only" {
  plot figure-14 "$FIX/summary-figure-14.csv"
  [ "$status" -eq 0 ]
  grep -q "^TEXT (paper text, CX3: any number of counters)" "$GNUPLOT_LOG"
  grep -q "^TEXT (paper text, CIB: the peak, at many counters)" "$GNUPLOT_LOG"
  grep -q "dxlo=1; dxhi=256" "$GNUPLOT_LOG"
}

@test "the subtitle names every host with its role (from manifest.json) and the client hosts of the rows" {
  command -v python3 > /dev/null || skip "python3 is not installed"
  local d=$BATS_TEST_TMPDIR/run
  mkdir -p "$d"
  cp "$FIX/summary-figure-14.csv" "$d/summary.csv"
  cat > "$d/manifest.json" <<'JSON'
{"roles": {"server": "1", "clients": "2"},
 "hosts": [{"line": 1, "address": "vm1", "hostname": "vm1", "cores": 2, "load1": 0.5},
           {"line": 2, "address": "vm2", "hostname": "vm2", "cores": 2, "load1": 0.7}],
 "vm_bed": null}
JSON
  plot figure-14 "$d/summary.csv"
  [ "$status" -eq 0 ] || { echo "$output"; false; }
  grep -qF "hosts at start: vm1 server \(2 cores, load 0.5\), vm2 client \(2 cores, load 0.7\)" "$GNUPLOT_LOG"
  grep -qF "; client hosts vm2" "$GNUPLOT_LOG"
}

@test "without manifest.json the subtitle still names the server: its rows' host in the run's raw.csv" {
  local d=$BATS_TEST_TMPDIR/run
  mkdir -p "$d"
  cp "$FIX/summary-figure-14.csv" "$d/summary.csv"
  cp "$FIX/golden-raw.csv" "$d/raw.csv"
  plot figure-14 "$d/summary.csv"
  [ "$status" -eq 0 ] || { echo "$output"; false; }
  grep -qF "; server vm1; client hosts vm2" "$GNUPLOT_LOG"
  # no raw.csv beside the summary: no server named, nothing made up
  rm "$d/raw.csv"
  : > "$GNUPLOT_LOG"
  plot figure-14 "$d/summary.csv"
  [ "$status" -eq 0 ]
  run ! grep -qF "; server " "$GNUPLOT_LOG"
}

# fig11_run DIR BATCHED: a figure-11 run folder measured on one host (its
# manifest.json), one 32 B UD SEND point not batched at 4 Mops (1 QP), one
# batched at BATCHED Mops (2 QPs: where Section 5.2.1 shows the gain)
fig11_run() {
  mkdir -p "$1"
  cat > "$1/manifest.json" <<'JSON'
{"roles": {"server": "1", "clients": "2"},
 "hosts": [{"line": 1, "address": "localhost"}, {"line": 2, "address": "localhost"}],
 "vm_bed": null}
JSON
  {
    echo "exp_name,exp_point,verb,transport,test,size_bytes,threads,qps_per_thread,postlist,signal_interval,inline,window,exp_procs,reps,reps_ok,rows_failed,status,reason,noisy,mops_median,mops_min,mops_max,mops_cv_pct,device,host"
    echo "figure-11,1,send,ud,bw,32,1,1,1,16,auto,64,2,3,3,0,ok,,no,4,4,4,1.0,rxe0,vm2"
    echo "figure-11,2,send,ud,bw,32,1,2,16,16,auto,64,2,3,3,0,ok,,no,$2,$2,$2,1.0,rxe0,vm2"
  } > "$1/summary.csv"
}

@test "the caption line gives each claim's verdict as make compare-N judges it: a broken claim FAILS" {
  command -v python3 > /dev/null || skip "python3 is not installed"
  local d=$BATS_TEST_TMPDIR/run
  # batched no faster than not batched: the batching claim breaks
  fig11_run "$d" 4
  run "$ROOT/experiments/compare" figure-11 "$d"
  [ "$status" -eq 3 ]
  plot figure-11 "$d/summary.csv"
  [ "$status" -eq 0 ] || { echo "$output"; false; }
  # soft-RoCE: the shape's verdict says it is the shape only; the claim
  # about the NIC's processing units is not judged there
  grep -qF "caption='the paper''s claims (make compare-11): batching FAILS on soft-RoCE (shape only), batching_one_qp, batched_2qps, batched_4qps NOT MEASURED (needs an RDMA NIC)'" "$GNUPLOT_LOG" || { grep caption= "$GNUPLOT_LOG"; false; }
  # drawn once, though the figure has two panels
  n=$(grep -c '^TEXT (the paper.s claims \\(make compare-11\\): batching FAILS on soft-RoCE' "$GNUPLOT_LOG")
  [ "$n" -eq 1 ] || { echo "caption drawn $n times"; false; }
  # batched 3x faster: the same claim HOLDS, in the caption too
  : > "$GNUPLOT_LOG"
  fig11_run "$d" 12
  plot figure-11 "$d/summary.csv"
  [ "$status" -eq 0 ]
  grep -q '^TEXT (the paper.s claims \\(make compare-11\\): batching HOLDS on soft-RoCE \\(shape only\\)' "$GNUPLOT_LOG"
  run ! grep -q "FAILS" "$GNUPLOT_LOG"
  # no bare HOLDS for a soft-RoCE run
  run ! grep -qE 'HOLDS(,|\)|$)' "$GNUPLOT_LOG"
  # reference only: nothing measured, every claim NOT MEASURED
  : > "$GNUPLOT_LOG"
  plot table-5 --reference-only
  [ "$status" -eq 0 ]
  grep -q '^TEXT (the paper.s claims \\(make compare-table-5\\): header_only, inline_recv, header_only_send NOT MEASURED)' "$GNUPLOT_LOG"
}

@test "the caption says where a measured claim is judged when this run may not judge it (device, one host)" {
  command -v python3 > /dev/null || skip "python3 is not installed"
  # the golden figure-7 summary: rxe0 across two VMs, no manifest.json
  plot figure-7 "$FIX/summary-figure-7.csv"
  [ "$status" -eq 0 ] || { echo "$output"; false; }
  grep -qF "batching_pays, more_qps, cores_scale, past_peak, spec_peak, atomics_50x, atomics_one_core NOT MEASURED (needs an RDMA NIC)" "$GNUPLOT_LOG"
  grep -qF "spec_single_core NOT MEASURED (soft-RoCE: one host only)" "$GNUPLOT_LOG"
  # and the line still fits the page's width (about 230 characters at its
  # font: a longer one was cut at the right edge)
  local cap
  cap=$(grep -m 1 -o "caption='[^;]*';" "$GNUPLOT_LOG")
  [ "${#cap}" -le 240 ] || { echo "caption of ${#cap} characters: $cap"; false; }
  # nothing measured: no such note (there is nothing to judge anywhere)
  : > "$GNUPLOT_LOG"
  plot figure-7 --reference-only
  [ "$status" -eq 0 ]
  grep -qF "batching_pays, more_qps, cores_scale, past_peak, spec_peak, spec_single_core, atomics_50x, atomics_one_core NOT MEASURED'" "$GNUPLOT_LOG"
  run ! grep -qF " only)" "$GNUPLOT_LOG"
}

# ud_summary FILE: a figure-11 / table-5 like summary of UD SENDs, with the
# receiver side (server_recv_mops_*, recv_loss_pct_*) as rbcsv.py aggregate
# writes it with server_recv_mops among the summed metrics
ud_summary() {
  {
    echo "exp_name,exp_point,verb,transport,test,size_bytes,threads,qps_per_thread,postlist,signal_interval,inline,window,exp_procs,reps,reps_ok,rows_failed,status,reason,noisy,mops_median,mops_min,mops_max,mops_cv_pct,server_recv_mops_median,server_recv_mops_min,server_recv_mops_max,server_recv_mops_cv_pct,recv_loss_pct_median,recv_loss_pct_min,recv_loss_pct_max,recv_loss_pct_cv_pct,device,host"
    echo "figure-11,1,send,ud,bw,32,1,1,1,16,off,64,2,3,3,0,ok,,no,0.4,0.38,0.42,4,0.3,0.28,0.31,4,25,20,30,10,rxe0,vm2"
    echo "figure-11,2,send,ud,bw,32,1,1,16,16,off,64,2,3,3,0,ok,,no,0.6,0.55,0.65,5,0.35,0.33,0.4,6,41.7,35,45,8,rxe0,vm2"
    echo "figure-11,3,send,ud,bw,256,1,1,16,16,on,64,2,3,3,0,ok,,no,0.5,0.45,0.55,5,0.4,0.38,0.44,6,20,15,25,8,rxe0,vm2"
  } > "$1"
}

@test "UD: the rate received at the server and the loss beside the senders' rate (figure 11, table 5)" {
  local s=$BATS_TEST_TMPDIR/ud.csv
  ud_summary "$s"
  plot figure-11 "$s"
  [ "$status" -eq 0 ] || { echo "$output"; false; }
  grep -q "hasrecv=1" "$GNUPLOT_LOG"
  grep -q "^TEXT (batched, received at the server)" "$GNUPLOT_LOG"
  grep -q "^TEXT (not batched, received at the server)" "$GNUPLOT_LOG"
  grep -q "^TEXT (\\\\(c\\\\) lost: 1 - server's receive rate / senders' rate)" "$GNUPLOT_LOG"
  grep -q "^TEXT (batched, 1 QP)" "$GNUPLOT_LOG"
  # no series without data: 2 and 4 QPs were not run
  run ! grep -q "QPs, received at the server" "$GNUPLOT_LOG"
  run ! grep -q "^TEXT (batched, 2 QPs)" "$GNUPLOT_LOG"
  # table 5: each bar's value with its loss
  : > "$GNUPLOT_LOG"
  sed 's/^figure-11,/table-5,/' "$s" > "$BATS_TEST_TMPDIR/t5.csv"
  plot table-5 "$BATS_TEST_TMPDIR/t5.csv"
  [ "$status" -eq 0 ] || { echo "$output"; false; }
  grep -q "^TEXT (0.3, lost 25 %)" "$GNUPLOT_LOG"
  grep -q "^TEXT (0.35, lost 42 %)" "$GNUPLOT_LOG"
  # a summary without the receiver side: the senders' rate alone, no loss panel
  : > "$GNUPLOT_LOG"
  cut -d, -f1-23,32- "$s" > "$BATS_TEST_TMPDIR/norecv.csv"
  plot figure-11 "$BATS_TEST_TMPDIR/norecv.csv"
  [ "$status" -eq 0 ] || { echo "$output"; false; }
  grep -q "hasrecv=0" "$GNUPLOT_LOG"
  grep -qF 'TEXT (batched \(postlist 16\), measured' "$GNUPLOT_LOG"
  run ! grep -q "received at the server" "$GNUPLOT_LOG"
  run ! grep -q "lost: 1 -" "$GNUPLOT_LOG"
}

@test "reference-only figures take their y range from the reference values, not a fixed 0.01..1000" {
  local n
  for n in figure-11 figure-12 figure-13 figure-14; do
    : > "$GNUPLOT_LOG"
    plot "$n" --reference-only
    [ "$status" -eq 0 ] || { echo "$n: $output"; false; }
    run ! grep -q "^YRANGE 0.01 1000" "$GNUPLOT_LOG"
  done
  # figure 12: the paper's 112 Gb/s alone, within a decade: linear from 0,
  # and no Mops panel (it has no reference)
  : > "$GNUPLOT_LOG"
  plot figure-12 --reference-only
  grep -q "rylog=0" "$GNUPLOT_LOG"
  grep -q "^YRANGE 0 120" "$GNUPLOT_LOG"
  run ! grep -q "Mops, 10" "$GNUPLOT_LOG"
  # figure 14: CX3's 2.7 and CIB's 52 Mops, more than a decade: log, 1 to 100
  : > "$GNUPLOT_LOG"
  plot figure-14 --reference-only
  grep -q "rylog=1" "$GNUPLOT_LOG"
  grep -q "^YRANGE 1 100" "$GNUPLOT_LOG"
}

@test "the key sits outside the panels: it covers no point and no paper mark (figures 11 to 14)" {
  local s=$BATS_TEST_TMPDIR/ud.csv n
  ud_summary "$s"
  for n in figure-11 figure-12 figure-13 figure-14; do
    : > "$GNUPLOT_LOG"
    case $n in
      figure-11) plot "$n" "$s" ;;
      figure-12) plot "$n" "$FIX/golden-summary.csv" ;;
      figure-14) plot "$n" "$FIX/summary-figure-14.csv" ;;
      *) plot "$n" --reference-only ;;
    esac
    [ "$status" -eq 0 ] || { echo "$n: $output"; false; }
    grep -q "key is ON, position: .* outside" "$GNUPLOT_LOG" || { echo "$n: $(grep 'key is' "$GNUPLOT_LOG")"; false; }
  done
  # and no panel moves it back inside (the last panel's state is what is logged)
  run grep -nE '^[[:space:]]*(if .*)?set key .*(top|bottom|left|right|center|inside)' \
    "$ROOT/figures/figure-11.gp" "$ROOT/figures/figure-12.gp" "$ROOT/figures/figure-13.gp" "$ROOT/figures/figure-14.gp"
  [ "$status" -eq 1 ] || { echo "$output"; false; }
}

@test "figure 11: no received-rate or ring key entry in a panel without such data" {
  # the batched 1-QP series has no receive rate; the noisy point is not batched
  local s=$BATS_TEST_TMPDIR/ud.csv
  ud_summary "$s"
  awk -F, -v OFS=, 'NR > 1 && $9 == 16 { $24 = ""; $25 = ""; $26 = "" } NR == 2 { $19 = "yes" } { print }' "$s" > "$BATS_TEST_TMPDIR/u2.csv"
  plot figure-11 "$BATS_TEST_TMPDIR/u2.csv"
  [ "$status" -eq 0 ] || { echo "$output"; false; }
  grep -q "^TEXT (not batched, received at the server)" "$GNUPLOT_LOG"
  run ! grep -q "^TEXT (batched, received at the server)" "$GNUPLOT_LOG"
  run ! grep -q "^TEXT (1 QP, received at the server)" "$GNUPLOT_LOG"
  # the ring: in panel (a) only, where the noisy point is
  n=$(grep -c "^TEXT (ring: noisy point" "$GNUPLOT_LOG")
  [ "$n" -eq 1 ] || { echo "ring entry $n times"; false; }
}

@test "figure 14: the paper's peak 'at many counters' is drawn at one place, QUICK or reference" {
  plot figure-14 "$FIX/summary-figure-14.csv"
  [ "$status" -eq 0 ]
  local quick ref
  quick=$(grep -m 1 "^XRANGE" "$GNUPLOT_LOG")
  grep -qF "TEXT (paper CIB: 52 Mops \\(many counters, drawn at 1024\\))" "$GNUPLOT_LOG"
  : > "$GNUPLOT_LOG"
  plot figure-14 --reference-only
  ref=$(grep -m 1 "^XRANGE" "$GNUPLOT_LOG")
  grep -qF "TEXT (paper CIB: 52 Mops \\(many counters, drawn at 1024\\))" "$GNUPLOT_LOG"
  [ "${quick#* * }" = "${ref#* * }" ] || { echo "QUICK: $quick, reference: $ref"; false; }
}

@test "figure 13: each 'paper: best window' label stands beside its line, not over it" {
  plot figure-13 --reference-only
  [ "$status" -eq 0 ]
  # the line is at the x tick of its window (anchor of " 16"); the rotated
  # label's anchor (its baseline; the glyphs reach about 0.33 of the 80-unit
  # font to its right) must be at least 0.8 font heights to the left
  local tick lab
  tick=$(awk '$1 == "TEXTAT" && $4 == "(" && $5 == "16)" { print $2; exit }' "$GNUPLOT_LOG")
  lab=$(awk '$1 == "TEXTAT" && /best window, CX3/ { print $2; exit }' "$GNUPLOT_LOG")
  [ -n "$tick" ] && [ -n "$lab" ] || { grep TEXTAT "$GNUPLOT_LOG" | head; false; }
  [ $((tick - lab)) -ge 64 ] || { echo "label at $lab, line at $tick"; false; }
}

@test "a figure with no measured run and no reference values says so once, without empty panels" {
  plot fault-loss --reference-only
  [ "$status" -eq 0 ] || { echo "$output"; false; }
  n=$(grep -c "^TEXT (nothing to draw: no measured run, and no reference values" "$GNUPLOT_LOG")
  [ "$n" -eq 1 ] || { echo "said $n times"; false; }
  run ! grep -q "^TEXT (\\\\(a\\\\) throughput)" "$GNUPLOT_LOG"
  run ! grep -q "^TEXT (no measured run)" "$GNUPLOT_LOG"
}

@test "figure 11: the loss panel draws only losses within [-5, 100] %, not a -760000 % median" {
  local s=$BATS_TEST_TMPDIR/ud.csv
  ud_summary "$s"
  # point 3's loss as an older aggregator wrote it from a short burst
  sed -i '4s/,20,15,25,8,/,-760000,-760000,25,8,/' "$s"
  grep -q -- -760000 "$s"
  plot figure-11 "$s"
  [ "$status" -eq 0 ] || { echo "$output"; false; }
  # the last panel drawn is (c): its y range stays within the valid losses
  local lo
  lo=$(awk '$1 == "YRANGE" { print $2 }' "$GNUPLOT_LOG" | tail -n 1)
  awk -v v="$lo" 'BEGIN { exit !(v >= -10) }' || { grep YRANGE "$GNUPLOT_LOG"; false; }
}

@test "the sequencer's figures with no measured run: no empty measured panel, no empty axes" {
  plot figure-7 --reference-only
  [ "$status" -eq 0 ] || { echo "$output"; false; }
  grep -qF 'TEXT (paper \(Section 4.2, Figure 7\)' "$GNUPLOT_LOG"
  run ! grep -q "^TEXT (measured" "$GNUPLOT_LOG"
  : > "$GNUPLOT_LOG"
  plot figure-8 --reference-only
  [ "$status" -eq 0 ] || { echo "$output"; false; }
  grep -q "^TEXT (no measured run: make figure-8 measures one" "$GNUPLOT_LOG"
  run ! grep -q "^TEXT (latency per request" "$GNUPLOT_LOG"
}

@test "a preset (sweep.gp): series named in every key entry (no key title over the box), linear y from 0 in every panel, one subtitle line" {
  plot swarm-32b_read --reference-only
  [ "$status" -eq 0 ] || { echo "$output"; false; }
  [ "$(grep -c '^TEXT (window=8 \\(original, emulated_peers=6\\))' "$GNUPLOT_LOG")" -eq 5 ]
  run ! grep -qx 'TEXT (window)' "$GNUPLOT_LOG"
  grep -qF 'TEXT (reference data only \(no measured run\); dashed: original artifact' "$GNUPLOT_LOG"
  run ! grep -q '^TEXT (; dashed' "$GNUPLOT_LOG"
  # every panel's y axis starts at 0 (the signal interval 4 panel started at 5)
  run ! grep -qE '^YRANGE [1-9]' "$GNUPLOT_LOG"
}

@test "figure 9: the READ-based bound from the run's companion, named in the key; without one, a note; rdma_seq's series keyed" {
  # a run folder whose companion (read-bound) measured the inbound READ rate
  local r=$BATS_TEST_TMPDIR/run mops
  mkdir -p "$r/companion/read-bound/c1"
  cp "$FIX/summary-figure-9.csv" "$r/summary.csv"
  cp "$FIX/companion-figure-9-read.csv" "$r/companion/read-bound/c1/summary.csv"
  ln -s c1 "$r/companion/read-bound/latest"
  mops=$(python3 "$LIB/rbcsv.py" col -v want=mops_median "$FIX/companion-figure-9-read.csv" | awk '{ printf "%.4g", $1 }')
  [ -n "$mops" ]
  plot figure-9 "$r/summary.csv"
  [ "$status" -eq 0 ] || { echo "$output"; false; }
  grep -qF "companion='$r/companion/read-bound/latest/summary.csv'" "$GNUPLOT_LOG"
  grep -qF "TEXT (READ-based store's bound: 1/2 x inbound READ 64 B, $mops Mops measured)" "$GNUPLOT_LOG"
  # rdma_seq's rate (mrps) makes a drawable point: both series keyed, and the ring
  grep -qF 'TEXT (HERD + doorbell batching \(batch on\))' "$GNUPLOT_LOG"
  grep -qF 'TEXT (HERD, one post per response \(batch off\))' "$GNUPLOT_LOG"
  grep -q "^TEXT (ring: noisy point" "$GNUPLOT_LOG"
  run ! grep -q "^TEXT (no READ-based bound" "$GNUPLOT_LOG"
  # the same summary without a companion: a note, no bound in the key
  : > "$GNUPLOT_LOG"
  plot figure-9 "$FIX/summary-figure-9.csv"
  [ "$status" -eq 0 ] || { echo "$output"; false; }
  grep -q "^TEXT (no READ-based bound: no trusted inbound READ rate" "$GNUPLOT_LOG"
  run ! grep -q "^TEXT (READ-based store's bound" "$GNUPLOT_LOG"
  # reference only: the paper's panel alone, its bound derived as Section
  # 4.3.1 derives it (half Connect-IB's peak inbound READ rate: 60.3 Mrps by
  # its +63 %), not from the 112 Gb/s line rate (which drew 109.4, above HERD)
  : > "$GNUPLOT_LOG"
  plot figure-9 --reference-only
  [ "$status" -eq 0 ] || { echo "$output"; false; }
  grep -qF "TEXT (READ-based bound: 1/2 x Connect-IB's peak inbound READ rate, 60.3 Mrps \(4.3.1: HERD is +63 % over it\))" "$GNUPLOT_LOG"
  run ! grep -q 'TEXT (READ-based bound: 1/2 x 218' "$GNUPLOT_LOG"
  run ! grep -q "^TEXT (measured" "$GNUPLOT_LOG"
}

@test "figure 12: a linear Mops panel starts at 0 (a flat result does not fill the panel from 3.96 to 4.04)" {
  plot figure-12 "$FIX/summary-figure-12.csv"
  [ "$status" -eq 0 ] || { echo "$output"; false; }
  # the Mops panel's tick labels: 0 among them, no hundredths around 4
  grep -qx 'TEXT (0)' "$GNUPLOT_LOG" || { grep '^TEXT ([0-9.]*)$' "$GNUPLOT_LOG"; false; }
  run ! grep -qx 'TEXT (3.96)' "$GNUPLOT_LOG"
}

@test "no figure script draws bars on a log y axis (a bar's length means nothing there)" {
  # figure 2's lane rates were bars on a log y axis
  run awk -f "$ROOT/tests/lib/gp-log-bars.awk" "$ROOT"/figures/*.gp
  [ "$status" -eq 0 ] || { echo "$output"; false; }
  # the check finds a planted case, and leaves a linear axis alone
  planted gp-log-bars.awk planted.gp 'set logscale x 2\nplot x with boxes\nset logscale xy\nunset logscale y\nplot x with boxes\nif (1) { set logscale y }\nplot x with boxes\n'
  [ "$status" -eq 1 ]
  [ "$output" = "$BATS_TEST_TMPDIR/planted.gp:7: bars (with boxes) on a log y axis" ]
}

@test "table 3: no empty measured panel without a run; every bar labelled with its value" {
  plot table-3 --reference-only
  [ "$status" -eq 0 ] || { echo "$output"; false; }
  grep -qF "TEXT (paper: Connect-IB, 70 client processes" "$GNUPLOT_LOG"
  run ! grep -q "^TEXT (measured" "$GNUPLOT_LOG"
  # the paper's bars carry their value (atomics: 2.24, no server CPU)
  grep -qx 'TEXT (2.24)' "$GNUPLOT_LOG" || { grep '^TEXT' "$GNUPLOT_LOG"; false; }
  : > "$GNUPLOT_LOG"
  # measured: the golden figure-7 summary as table-3's; atomics (no server
  # thread) is labelled with its peak too
  sed '2,$s/^figure-7,/table-3,/' "$FIX/summary-figure-7.csv" > "$BATS_TEST_TMPDIR/s.csv"
  plot table-3 "$BATS_TEST_TMPDIR/s.csv"
  [ "$status" -eq 0 ] || { echo "$output"; false; }
  grep -q "^TEXT (measured" "$GNUPLOT_LOG"
  grep -qx 'TEXT (0.00147)' "$GNUPLOT_LOG" || { grep '^TEXT' "$GNUPLOT_LOG"; false; }
}

@test "figure 9: the paper's peaks, stated without a core count, are short levels at the right edge named so" {
  plot figure-9 --reference-only
  [ "$status" -eq 0 ] || { echo "$output"; false; }
  grep -qF "TEXT (HERD baseline peak 72.8 Mrps \(cores not stated\))" "$GNUPLOT_LOG" || { grep '^TEXT' "$GNUPLOT_LOG"; false; }
  grep -qF "TEXT (HERD + batching peak 98.3 Mrps \(PCIe-DMA bound; cores not stated\))" "$GNUPLOT_LOG"
  # drawn in the peak column (12-15, its tick "peak"), apart from the core axis, not from 0
  grep -q 'x >= 12 ? pbp' "$ROOT/figures/figure-9.gp" && grep -q '"peak\\n(cores not stated)" 13.5' "$ROOT/figures/figure-9.gp"
}

@test "a preset's reference lines join one original run only; its y scale is chosen from the values as drawn (per client process)" {
  plot swarm-32b_read --reference-only
  [ "$status" -eq 0 ] || { echo "$output"; false; }
  # the 6-machine sweep and the 90-machine 28-thread run: one line each,
  # the main run (most rows) first, each named by the knob that sets it apart
  # (and the panels it has rows in: rpanN)
  grep -q "rruns='netapp-e51bd06-swarm-32_byte_read netapp-d77b26e-swarm-32B_read-90_vms-28_threads '; rtag1='emulated_peers=6'; rpan1='[|0-9]*'; rtag2='emulated_peers=90'; rpan2='[|0-9]*';" "$GNUPLOT_LOG" || { grep -o "rruns='[^;]*;[^;]*;[^;]*;[^;]*;[^;]*;" "$GNUPLOT_LOG"; false; }
  : > "$GNUPLOT_LOG"
  # per client process the allsig values span 1.2-7.7 (under a decade): a
  # linear axis from 0, not log 1..100 from the totals over processes
  plot allsig-32b_reads-varnum_vms --reference-only
  [ "$status" -eq 0 ] || { echo "$output"; false; }
  grep -q "dylog=0;" "$GNUPLOT_LOG"
  grep -q "^YRANGE 0 " "$GNUPLOT_LOG" || { grep YRANGE "$GNUPLOT_LOG"; false; }
}

@test "a preset's points from another original run are labelled with the knob they differ in (swarm-32b_read: 90 emulated machines)" {
  run awk -f "$ROOT/experiments/lib/csv.awk" -f "$ROOT/figures/runtags.awk" -v x=threads -v s=window \
    -v p=signal_interval -v per=process "$ROOT/figures/reference/imported/swarm-32b_read.csv"
  [ "$status" -eq 0 ]
  [ "${lines[0]}" = "panel,x,y,text,side" ]
  # one label per panel holding the 28-thread run, at its highest point per
  # process; x 28 is in the right half of 2..28: the text ends at the point
  [ "${#lines[@]}" -eq 5 ]
  [[ ${lines[1]} =~ ^(4|8|32|64),28,2[0-9.]+,emulated_peers=90\ \(another\ original\ run\),r$ ]] || { echo "$output"; false; }
  run ! grep -q 'threads=\|window=\|signal_interval=' <<< "$output"
  # a reference with one run: the header only
  awk -F, 'NR == 1 || $1 !~ /90_vms/' "$ROOT/figures/reference/imported/swarm-32b_read.csv" > "$BATS_TEST_TMPDIR/one.csv"
  run awk -f "$ROOT/experiments/lib/csv.awk" -f "$ROOT/figures/runtags.awk" -v x=threads -v s=window -v p=signal_interval "$BATS_TEST_TMPDIR/one.csv"
  [ "$output" = "panel,x,y,text,side" ]
  # allsig's 11-machine run peaks at x 11, the left end of 11..96: the text
  # starts at the point (ending there, it ran over the y axis)
  run awk -f "$ROOT/experiments/lib/csv.awk" -f "$ROOT/figures/runtags.awk" -v x=emulated_peers -v s=window \
    -v per=process "$ROOT/figures/reference/imported/allsig-32b_reads-varnum_vms.csv"
  [ "${lines[1]}" = "-,11,7.67,exp_procs=11 (another original run),l" ] || { echo "$output"; false; }
}

@test "a linear panel of tiny measured rates labels its ticks in one format (common.gp linfmt), not %g's 2e-05 beside 0.0001" {
  # figure 10's measured drtm-kv rates reach 9.8e-05 Mrps (the fixture)
  plot figure-10 "$FIX/summary-figure-10.csv"
  [ "$status" -eq 0 ] || { echo "$output"; false; }
  grep -qE "mhi=9.79{6,}[0-9]*e-05" "$GNUPLOT_LOG" || { grep -o "mhi=[^;]*;" "$GNUPLOT_LOG"; false; }
  grep -q '^TEXT (0.00002)$' "$GNUPLOT_LOG"
  grep -q '^TEXT (0.00010)$' "$GNUPLOT_LOG"
  run ! grep -E '^TEXT \([0-9.]+e-0[0-9]\)$' "$GNUPLOT_LOG"
  # the rule itself: %g from 0.01 on, fixed decimals for an eighth of the top below
  grep '^linfmt(hi) = ' "$ROOT/figures/common.gp" > "$BATS_TEST_TMPDIR/linfmt.gp"
  run "$REAL_GNUPLOT" -e "load '$BATS_TEST_TMPDIR/linfmt.gp'; print linfmt(0.0005).' '.linfmt(0.0045).' '.linfmt(0.3).' '.linfmt(NaN)"
  [ "$output" = "%.5f %.4f %g %g" ] || { echo "$output"; false; }
}

# marks_at LOG PANEL: "X Y" of the places where marks of two or more plots of
# the panel fall together (the figure's coinciding points)
marks_at() { awk -v p="$2" '$1 == "MARK" && $2 == p { k = $4 " " $5; if (!((k, $3) in seen)) { seen[k, $3] = 1; n[k]++ } } END { for (k in n) if (n[k] > 1) print k }' "$1"; }

@test "figure 12: READ and WRITE at the same rate both show: WRITE's open marks around READ's filled ones, not over them" {
  # the fixture's READ and WRITE rates are equal at every payload
  plot figure-12 "$FIX/summary-figure-12.csv"
  [ "$status" -eq 0 ] || { echo "$output"; false; }
  [ "$(marks_at "$GNUPLOT_LOG" 1 | wc -l)" -eq 2 ] || { grep '^MARK' "$GNUPLOT_LOG"; false; }
  [ "$(marks_at "$GNUPLOT_LOG" 2 | wc -l)" -eq 2 ]
  run awk -f "$ROOT/tests/lib/gp-hidden-marks.awk" "$GNUPLOT_LOG"
  [ "$status" -eq 0 ] || { echo "$output"; false; }
  # the check finds a filled mark over another of its size
  planted gp-hidden-marks.awk m 'MARK 1 1 10 10 CircleF 0.9 a\nMARK 1 2 11 10 BoxF 0.9 b\nMARK 1 3 10 10 Box 1.6 c\n'
  [ "$status" -eq 1 ]
  [ "$output" = "panel 1 at 11 10: plot 2's BoxF (size 0.9, b) hides plot 1's CircleF (size 0.9, a)" ]
}

@test "figure 12: the model's READ and WRITE limits (within 3 % of each other) differ in dash type and are named at their right ends" {
  plot figure-12 "$FIX/summary-figure-12.csv"
  [ "$status" -eq 0 ] || { echo "$output"; false; }
  # the Gb/s panel's first dashed blue line (READ's limit) and first dashed red one (WRITE's)
  local rd wd
  rd=$(awk '$1 == "STYLE" && $2 == 2 && $4 != "LTb" && $6 == "0.12,0.47,0.71" { print $4; exit }' "$GNUPLOT_LOG")
  wd=$(awk '$1 == "STYLE" && $2 == 2 && $4 != "LTb" && $6 == "0.84,0.15,0.16" { print $4; exit }' "$GNUPLOT_LOG")
  [ -n "$rd" ] && [ -n "$wd" ] || { grep '^STYLE' "$GNUPLOT_LOG"; false; }
  [ "$rd" != "$wd" ] || { echo "READ and WRITE limits both $rd"; false; }
  # one name each, READ's above WRITE's, at the same x (the right end)
  local r w
  r=$(awk '$1 == "TEXTAT" && /\(model: READ limit\)/ { print $2, $3 }' "$GNUPLOT_LOG")
  w=$(awk '$1 == "TEXTAT" && /\(model: WRITE limit\)/ { print $2, $3 }' "$GNUPLOT_LOG")
  [ "$(wc -l <<< "$r")" -eq 1 ] && [ "$(wc -l <<< "$w")" -eq 1 ] && [ -n "$r" ] && [ -n "$w" ] || { grep 'model: ' "$GNUPLOT_LOG"; false; }
  [ "${r% *}" = "${w% *}" ] && [ "${r#* }" -gt "${w#* }" ] || { echo "READ's name at $r, WRITE's at $w"; false; }
}

@test "figure 2: the TLP overhead (bytes) has a panel of its own, not a right-hand axis over the lane rates' log axis" {
  [ -x "$ROOT/build/rb_model" ] || skip "build/rb_model not built (make model)"
  plot figure-2
  [ "$status" -eq 0 ] || { echo "$output"; false; }
  # the lane rates: blue filled circles of size 1.6; the overheads: red and green marks
  local lp
  lp=$(awk '$1 == "MARK" && $6 == "CircleF" && $7 == 1.6 { print $2 }' "$GNUPLOT_LOG" | sort -u)
  [ "$(wc -w <<< "$lp")" -eq 1 ] || { grep '^MARK' "$GNUPLOT_LOG"; false; }
  run awk -v p="$lp" '$1 == "MARK" && $2 == p && ($8 == "0.84,0.15,0.16" || $8 == "0.17,0.63,0.17")' "$GNUPLOT_LOG"
  [ -z "$output" ] || { echo "overhead marks in the lane rates' panel $lp:"; echo "$output"; false; }
  grep -qF 'TEXT (\(b\) TLP overhead per generation)' "$GNUPLOT_LOG"
  run ! grep -q 'axes x1y2' "$ROOT/figures/figure-2.gp"
}

@test "figure 10: the paper's marks are drawn over the measured line and bars (at 0 % every series is 100 %), with room below 0" {
  plot figure-10 "$FIX/summary-figure-10.csv"
  [ "$status" -eq 0 ] || { echo "$output"; false; }
  # the normalised panel (the last): the measured series' plot (blue) and
  # the paper's (red squares, green triangles), in drawing order
  local p m
  p=$(awk '$1 == "MARK" { p = $2 } END { print p }' "$GNUPLOT_LOG")
  m=$(awk -v p="$p" '$1 == "MARK" && $2 == p && $8 == "0.12,0.47,0.71" { print $3 }' "$GNUPLOT_LOG" | sort -n | tail -n 1)
  [ -n "$m" ] || { grep '^MARK' "$GNUPLOT_LOG"; false; }
  run awk -v p="$p" -v m="$m" '$1 == "MARK" && $2 == p && ($8 == "0.84,0.15,0.16" || $8 == "0.17,0.63,0.17") { n++; if ($3 < m) print } END { if (n < 6) print "only " n + 0 " paper marks" }' "$GNUPLOT_LOG"
  [ -z "$output" ] || { echo "paper marks drawn before the measured plot $m:"; echo "$output"; false; }
  # the paper's 4 % (ConnectX-3, 100 % PUTs) stands clear of the x axis
  awk '$1 == "YRANGE" { lo = $2 } END { exit !(lo < 0) }' "$GNUPLOT_LOG" || { grep YRANGE "$GNUPLOT_LOG"; false; }
}

@test "figure 7: the noisy rings of the series at one server thread stand apart, each in its series' colour" {
  # the fixture: herd-rpc off, on, on with 3 QPs and spec-s0 at 1 thread, all noisy
  plot figure-7 "$FIX/summary-figure-7.csv"
  [ "$status" -eq 0 ] || { echo "$output"; false; }
  # the rings: hollow circles of size 2.6 in the measured panel (1); no two
  # closer than a ring's width (2 x HPT x 2.6)
  run awk '$1 == "HPT" { h = $2 }
           $1 == "MARK" && $2 == 1 && $6 == "Circle" && $7 == 2.6 { n++; x[n] = $4; y[n] = $5; c[n] = $8 }
           END { d = 2 * h * 2.6
                 for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++)
                   if ((x[i] - x[j]) ^ 2 + (y[i] - y[j]) ^ 2 < d * d) print "rings at " x[i] "," y[i] " and " x[j] "," y[j] " overlap"
                 for (i = 1; i <= n; i++) k[c[i]] = 1
                 for (i in k) m++
                 if (n < 6) print "only " n + 0 " rings"
                 if (m < 5) print "rings in " m + 0 " colours" }' "$GNUPLOT_LOG"
  [ -z "$output" ] || { echo "$output"; grep '^MARK 1 .* Circle ' "$GNUPLOT_LOG"; false; }
}

@test "figure 13: a key entry's sample is its series' line and mark, not an error bar with caps" {
  # every clause that draws error bars has no key entry (notitle); the
  # series' entries come from their line-and-mark clauses
  local bars
  bars=$(grep -nE 'with (yerrorlines|yerrorbars|errorbars|errorlines)' "$ROOT/figures/figure-13.gp")
  [ "$(wc -l <<< "$bars")" -ge 3 ] || { echo "$bars"; false; }
  run grep -v notitle <<< "$bars"
  [ -z "$output" ] || { echo "error bars with a key entry: $output"; false; }
  # and the entry is still drawn, once
  plot figure-13 --reference-only
  [ "$status" -eq 0 ] || { echo "$output"; false; }
  [ "$(grep -cF 'TEXT (original artifact: READ, CX3 \(apt\), 11 machines, per machine)' "$GNUPLOT_LOG")" -eq 1 ] || { grep '^TEXT (orig' "$GNUPLOT_LOG"; false; }
}

@test "a preset (sweep.gp): series that coincide in the original data keep their marks apart in shape and size, and the key says they overlap" {
  local pr n
  for pr in swarm-16b_uc_write swarm-48b_read allsig-varsize_reads; do
    : > "$GNUPLOT_LOG"
    plot "$pr" --reference-only
    [ "$status" -eq 0 ] || { echo "$pr: $output"; false; }
    # no mark hidden by a later one within half a mark's radius (15 units)
    run awk -v near=15 -f "$ROOT/tests/lib/gp-hidden-marks.awk" "$GNUPLOT_LOG"
    [ "$status" -eq 0 ] || { echo "$pr: $output"; false; }
    n=$(grep -c '^TEXT (marks overlap: ' "$GNUPLOT_LOG")
    [ "$n" -eq 1 ] || { echo "$pr: overlap note $n times"; false; }
    # the note names the overlapping series, in their order (all five here)
    [ "$pr" != swarm-16b_uc_write ] ||
      grep -qxF 'TEXT (marks overlap: signal_interval = 4, 8, 16, 32, 64 \(each series its own shape\))' "$GNUPLOT_LOG" ||
      { grep '^TEXT (marks' "$GNUPLOT_LOG"; false; }
  done
  # figures/coincide.awk: two series 1 % apart overlap, a third 50 % away does not
  printf 'exp_name,status,size_bytes,window,exp_procs,mops_median\nr,ok,8,8,1,10\nr,ok,8,16,1,10.1\nr,ok,8,32,1,15\n' > "$BATS_TEST_TMPDIR/c.csv"
  run awk -f "$LIB/csv.awk" -f "$ROOT/figures/coincide.awk" -v x=size_bytes -v s=window -v scale=15 "$BATS_TEST_TMPDIR/c.csv"
  [ "$output" = "$(printf -- '-\t8 16')" ] || { echo "$output"; false; }
  # a failed point is not drawn, so it overlaps nothing
  sed -i 's/^r,ok,8,16,/r,failed,8,16,/' "$BATS_TEST_TMPDIR/c.csv"
  run awk -f "$LIB/csv.awk" -f "$ROOT/figures/coincide.awk" -v x=size_bytes -v s=window -v scale=15 "$BATS_TEST_TMPDIR/c.csv"
  [ -z "$output" ] || { echo "$output"; false; }
}

@test "a preset's rotated y labels stay beside their frames (swarm-32b_read: they ran off the image's bottom and up into the key)" {
  command -v python3 > /dev/null || skip "python3 is not installed"
  plot swarm-32b_read --reference-only
  [ "$status" -eq 0 ] || { echo "$output"; false; }
  # the last (bottom) panel's frame in the PNG, pixels from the image's bottom
  local termy size h lo hi top bottom n=0
  termy=$(grep -m 1 '^TERMY png ' "$GNUPLOT_LOG")
  lo=${termy#TERMY png }; hi=${lo#* }; lo=${lo%% *}
  # the ink in the left margin (x 0..18, left of the tick labels): the first column's y labels, one per row of panels
  run python3 "$ROOT/tests/lib/png-ink-rows.py" "$BATS_TEST_TMPDIR/out/swarm-32b_read.png" 0 18
  [ "$status" -eq 0 ] || { echo "$output"; false; }
  size=${lines[0]}; h=${size##* }
  for line in "${lines[@]:1}"; do
    top=${line% *}; bottom=${line#* }; n=$((n + 1))
    # each label no longer than a frame is high (gnuplot centres it on its frame)
    awk -v t="$top" -v b="$bottom" -v lo="$lo" -v hi="$hi" 'BEGIN { exit !(b - t <= hi - lo) }' ||
      { echo "label $n: rows $top..$bottom, longer than the frame ($lo..$hi)"; false; }
  done
  [ "$n" -eq 2 ] || { echo "$output"; false; }
  # the bottom row's label ends within its frame, above the image's bottom edge
  awk -v b="$bottom" -v h="$h" -v lo="$lo" 'BEGIN { exit !(b <= h - lo && b < h - 1) }' ||
    { echo "bottom label ends at row $bottom of $h (frame bottom at $((h - ${lo%.*})))"; false; }
}

@test "a preset's label of another original run stands clear of that run's marks (swarm-32b_read: the text ended on the 28-thread marks)" {
  plot swarm-32b_read --reference-only
  [ "$status" -eq 0 ] || { echo "$output"; false; }
  # each label's box (TEXTAT: its right end, where its text ends; 7 pt
  # Helvetica: about 35 units a character, from 15 below to 30 above the
  # anchor as shifted) against each mark's (its radius: SIZE x HPT)
  run awk '$1 == "HPT" { hpt = $2 }
    $1 == "MARK" { n++; mx[n] = $4; my[n] = $5; mr[n] = $7 * hpt }
    $1 == "TEXTAT" && /another original run/ { nt++; tx[nt] = $2; ty[nt] = $3; tl[nt] = length(substr($0, index($0, "("))) }
    END {
      for (k = 1; k <= nt; k++) {
        x1 = tx[k]; x0 = x1 - 35 * tl[k]; y0 = ty[k] - 38; y1 = ty[k] + 30
        for (i = 1; i <= n; i++)
          if (mx[i] + mr[i] > x0 && mx[i] - mr[i] < x1 && my[i] + mr[i] > y0 && my[i] - mr[i] < y1) {
            printf "label at %s %s over the mark at %s %s\n", tx[k], ty[k], mx[i], my[i]; bad = 1 }
      }
      if (nt != 4) { print nt " labels"; bad = 1 }
      exit bad
    }' "$GNUPLOT_LOG"
  [ "$status" -eq 0 ] || { echo "$output"; false; }
}

@test "a preset's original runs each have their own dash and marks, both named in the key (allsig-32b_reads-varnum_vms: 6 and 11 machines drew alike)" {
  plot allsig-32b_reads-varnum_vms --reference-only
  [ "$status" -eq 0 ] || { echo "$output"; false; }
  grep -qxF 'TEXT (window=8 \(original, exp_procs=6\))' "$GNUPLOT_LOG" || { grep '^TEXT (window' "$GNUPLOT_LOG"; false; }
  grep -qxF "TEXT (original, exp_procs=11: dash-dot, small filled marks in each series' colour)" "$GNUPLOT_LOG" || { grep '^TEXT (orig' "$GNUPLOT_LOG"; false; }
  # window=8's two runs: its two thin lines (width 1, its colour), the
  # main run first: different dashes; hollow marks, then filled ones
  local p1 p2 s1 s2 m1 m2
  read -r p1 s1 p2 s2 < <(awk '$1 == "STYLE" && $2 == 1 && $5 == 1 && $6 == "0.12,0.47,0.71" { printf "%s %s ", $3, $4 } END { print "" }' "$GNUPLOT_LOG")
  [ -n "$s2" ] && [ "$s1" != "$s2" ] || { grep '^STYLE 1 ' "$GNUPLOT_LOG"; false; }
  m1=$(awk -v p="$p1" '$1 == "MARK" && $2 == 1 && $3 == p { print $6 }' "$GNUPLOT_LOG" | sort -u | tr '\n' ' ')
  m2=$(awk -v p="$p2" '$1 == "MARK" && $2 == 1 && $3 == p { print $6 }' "$GNUPLOT_LOG" | sort -u | tr '\n' ' ')
  [ "$m1" = "Circle " ] && [ "$m2" = "CircleF " ] || { echo "main: $m1; other: $m2"; false; }
  # no mark of one run hidden under the other's
  run awk -v near=15 -f "$ROOT/tests/lib/gp-hidden-marks.awk" "$GNUPLOT_LOG"
  [ "$status" -eq 0 ] || { echo "$output"; false; }
}

@test "figure 13 reference only: the original's points are joined as its key sample shows, and the caption says only READ has reference data" {
  plot figure-13 --reference-only
  [ "$status" -eq 0 ] || { echo "$output"; false; }
  # the reference line: its key sample and the two segments 8-16-32 (its
  # rows, sorted by window, lay between other runs' rows: no segment)
  local p
  p=$(awk '$1 == "MARK" && $6 == "Circle" { p = $3 } END { print p }' "$GNUPLOT_LOG")
  [ -n "$p" ] || { grep '^MARK' "$GNUPLOT_LOG"; false; }
  awk -v p="$p" '$1 == "SEGS" && $2 == 1 && $3 == p { exit !($4 >= 3) }' "$GNUPLOT_LOG" || { grep '^SEGS' "$GNUPLOT_LOG"; false; }
  grep -q '^TEXT (.*reference data: READ only' "$GNUPLOT_LOG" || { grep '^TEXT (' "$GNUPLOT_LOG" | head -5; false; }
}

@test "figure 7: the key says the series at one thread count are drawn side by side; the paper's atomics mark stands off the bottom frame" {
  plot figure-7 "$FIX/summary-figure-7.csv"
  [ "$status" -eq 0 ] || { echo "$output"; false; }
  grep -qF 'TEXT (series at one thread count drawn side by side' "$GNUPLOT_LOG" || { grep '^TEXT (' "$GNUPLOT_LOG" | head -20; false; }
  # the paper's panel (drawn last): atomics at 2.24 Mrps at least 3 % of
  # the y range above its bottom (from 0, it sat on the frame)
  awk '$1 == "YRANGE" { lo = $2; hi = $3 } END { exit !((2.24 - lo) / (hi - lo) >= 0.03) }' "$GNUPLOT_LOG" || { grep '^YRANGE' "$GNUPLOT_LOG"; false; }
  : > "$GNUPLOT_LOG"
  plot figure-7 --reference-only
  [ "$status" -eq 0 ] || { echo "$output"; false; }
  awk '$1 == "YRANGE" { lo = $2; hi = $3 } END { exit !((2.24 - lo) / (hi - lo) >= 0.03) }' "$GNUPLOT_LOG" || { grep '^YRANGE' "$GNUPLOT_LOG"; false; }
}

@test "figure 11: the paper's batched and non-batched rates each have their own line style and key entry" {
  plot figure-11 --reference-only
  [ "$status" -eq 0 ] || { echo "$output"; false; }
  grep -qF 'TEXT (paper text \(CIB\): batched \(postlist 16\), small payloads' "$GNUPLOT_LOG" || { grep '^TEXT (paper' "$GNUPLOT_LOG"; false; }
  grep -qF 'TEXT (paper text \(CIB\): not batched \(postlist 1\), small payloads' "$GNUPLOT_LOG"
  # the two plots (width 1.5, not the black noisy ring's) drew in two
  # different dashes and colours
  run awk '$1 == "STYLE" && $2 == 1 && $5 == 1.5 && $6 != "0.00,0.00,0.00" { print $4, $6 }' "$GNUPLOT_LOG"
  [ "${#lines[@]}" -eq 2 ] && [ "${lines[0]}" != "${lines[1]}" ] || { grep '^STYLE' "$GNUPLOT_LOG"; false; }
}

@test "figure 9: batch off and on at one thread count are drawn side by side, as figure 7's series, and the key says so" {
  plot figure-9 "$FIX/summary-figure-9.csv"
  [ "$status" -eq 0 ] || { echo "$output"; false; }
  grep -qF 'TEXT (batch off and on at one thread count drawn side by side' "$GNUPLOT_LOG" || { grep '^TEXT (' "$GNUPLOT_LOG" | head -20; false; }
  # the measured panel's marks of batch off (plot 1) and on (plot 2), but
  # each plot's last, its key sample: none at one x (their min..max bars
  # lay one over the other)
  run awk '$1 == "MARK" && $2 == 1 && ($3 == 1 || $3 == 2) { m[$3, ++n[$3]] = $4 }
    END { for (p = 1; p <= 2; p++) for (i = 1; i < n[p]; i++) { x[p, m[p, i]] = 1; xs[m[p, i]] = 1 }
          for (v in xs) if ((1, v) in x && (2, v) in x) print "both at x " v }' "$GNUPLOT_LOG"
  [ -z "$output" ] || { echo "$output"; grep '^MARK 1 [12] ' "$GNUPLOT_LOG"; false; }
  grep -q '^MARK 1 1 ' "$GNUPLOT_LOG" && grep -q '^MARK 1 2 ' "$GNUPLOT_LOG"
}

@test "figure 10: the caption says every normalised series is 100 % at 0 % PUTs by definition" {
  local a
  for a in "$FIX/summary-figure-10.csv" --reference-only; do
    : > "$GNUPLOT_LOG"
    plot figure-10 "$a"
    [ "$status" -eq 0 ] || { echo "$output"; false; }
    [ "$(grep -c '^TEXT (.*at 0 % PUTs every normalised series is 100 % by definition' "$GNUPLOT_LOG")" -eq 1 ] ||
      { echo "$a"; grep '^TEXT (the paper' "$GNUPLOT_LOG"; false; }
  done
}

@test "a preset's other original run is named in the key only of the panels it has rows in (swarm-32b_read: no 90-peer row at signal_interval 16)" {
  plot swarm-32b_read --reference-only
  [ "$status" -eq 0 ] || { echo "$output"; false; }
  # the panels of the 90-peer run, from the reference rows themselves
  local want
  want=$(awk -f "$ROOT/experiments/lib/csv.awk" -f "$ROOT/figures/runtags.awk" -v runs=1 -v x=threads -v s=window -v p=signal_interval \
    "$ROOT/figures/reference/imported/swarm-32b_read.csv" | awk -F'\t' '$2 == "emulated_peers=90" { print gsub(/[0-9]+/, "", $3) }')
  [ "$want" = 4 ] || { echo "the 90-peer run's panels: '$want'"; false; }
  [ "$(grep -c "^TEXT (original, emulated_peers=90: " "$GNUPLOT_LOG")" -eq "$want" ] || { grep '^TEXT (original, emulated' "$GNUPLOT_LOG"; false; }
}
