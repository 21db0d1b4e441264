#!/usr/bin/env bats
# Figures: every gnuplot script renders PNG and PDF from golden CSVs, and
# from the shipped reference data alone.

load fixtures/exp/helpers

setup() {
  command -v gnuplot > /dev/null || skip "gnuplot is not installed"
}

is_png() { [ "$(head -c 8 "$1" | od -An -tx1 | tr -d ' \n')" = 89504e470d0a1a0a ]; }
is_pdf() { [ "$(head -c 5 "$1")" = "%PDF-" ]; }

@test "every figure with a golden summary renders PNG and PDF without error" {
  local s name n=0
  for s in "$FIX"/summary-figure-*.csv; do
    name=$(basename "$s" .csv); name=${name#summary-}
    run "$ROOT/figures/plot" "$name" "$s" --out "$BATS_TEST_TMPDIR/out"
    [ "$status" -eq 0 ] || { echo "$name: $output"; false; }
    is_png "$BATS_TEST_TMPDIR/out/$name.png"
    is_pdf "$BATS_TEST_TMPDIR/out/$name.pdf"
    n=$((n + 1))
  done
  [ "$n" -ge 2 ]
}

@test "every experiment's figure renders from the reference data alone" {
  local p name
  for p in "$ROOT"/experiments/*/params; do
    name=$(basename "$(dirname "$p")")
    run "$ROOT/figures/plot" "$name" --reference-only --out "$BATS_TEST_TMPDIR/ref"
    [ "$status" -eq 0 ] || { echo "$name: $output"; false; }
    is_png "$BATS_TEST_TMPDIR/ref/$name.png"
    is_pdf "$BATS_TEST_TMPDIR/ref/$name.pdf"
  done
}

@test "the subtitle names device and kernel and labels soft-RoCE" {
  run awk -f "$LIB/csv.awk" -f "$ROOT/figures/subtitle.awk" "$FIX/summary-figure-12.csv"
  [ "$status" -eq 0 ]
  [[ $output == *"measured: rxe0 = soft-RoCE (functional, not a hardware claim)"* ]]
  [[ $output == *"kernel 6.1.0-28-amd64"* ]]
  sed 's/rxe0/mlx5_0/g' "$FIX/summary-figure-12.csv" > "$BATS_TEST_TMPDIR/hw.csv"
  run awk -f "$LIB/csv.awk" -f "$ROOT/figures/subtitle.awk" "$BATS_TEST_TMPDIR/hw.csv"
  [[ $output == "measured: mlx5_0; kernel"* ]]
  [[ $output != *soft-RoCE* ]]
}

@test "the subtitle's second line says how each point was measured: repetitions, and a QUICK grid" {
  local reps
  reps=$(python3 "$LIB/rbcsv.py" col -v want=reps "$FIX/summary-figure-12.csv" | sort -n | tail -n 1)
  run awk -f "$LIB/csv.awk" -f "$ROOT/figures/subtitle.awk" -v grid=full "$FIX/summary-figure-12.csv"
  [ "${#lines[@]}" -eq 2 ]
  [ "${lines[1]}" = "each point: median of $reps repetitions, bars min..max" ]
  run awk -f "$LIB/csv.awk" -f "$ROOT/figures/subtitle.awk" -v grid=quick "$FIX/summary-figure-12.csv"
  [[ ${lines[1]} == *"; QUICK grid (reduced, a smoke test: not the figure's full sweep)" ]]
  # what QUICK left out (figures/quickgrid.awk): figure 13's QUICK grid has
  # READ only, 32 B from one thread (the full grid: the paper's 8 B from 14)
  run awk -f "$ROOT/figures/quickgrid.awk" "$ROOT/experiments/figure-13/params"
  [ "$status" -eq 0 ]
  [[ $output == "verb = read (full: read write); size_bytes = 32 (full: 8); window = 2 16 (full: 10 values); threads = 1 (full: 14); "* ]] || { echo "$output"; false; }
  [[ $output != *repetitions* ]]
  run awk -f "$LIB/csv.awk" -f "$ROOT/figures/subtitle.awk" -v grid=quick -v quickgrid="verb = read (full: read write)" "$FIX/summary-figure-12.csv"
  [[ ${lines[1]} == *"; QUICK grid (reduced, a smoke test: not the figure's full sweep): verb = read (full: read write)" ]]
  printf '[knobs]\nverb = read write\n[quick]\nverb = read write\nrepetitions = 1\n' > "$BATS_TEST_TMPDIR/same.params"
  run awk -f "$ROOT/figures/quickgrid.awk" "$BATS_TEST_TMPDIR/same.params"
  [ -z "$output" ]
  # one repetition: no spread to show, and the figure says so
  awk -F, -v OFS=, 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "reps" || $i == "reps_ok") c[i] = 1; print; next } { for (i in c) $i = 1; print }' \
    "$FIX/summary-figure-12.csv" > "$BATS_TEST_TMPDIR/one.csv"
  run awk -f "$LIB/csv.awk" -f "$ROOT/figures/subtitle.awk" "$BATS_TEST_TMPDIR/one.csv"
  [ "${lines[1]}" = "each point: 1 repetition (no spread shown)" ]
  # the plot finds the grid kind in the run folder and draws both lines
  mkdir -p "$BATS_TEST_TMPDIR/run"
  cp "$FIX/summary-figure-12.csv" "$BATS_TEST_TMPDIR/run/summary.csv"
  echo quick > "$BATS_TEST_TMPDIR/run/grid.kind"
  run "$ROOT/figures/plot" figure-12 "$BATS_TEST_TMPDIR/run/summary.csv" --out "$BATS_TEST_TMPDIR/out"
  [ "$status" -eq 0 ]
  [ -s "$BATS_TEST_TMPDIR/out/figure-12-quick.png" ]
}

# figure-13's rows: READ and WRITE at windows 2 and 16, 3 repetitions of
# 2 client processes; $1: the two processes' PCIe reads per op ("" none),
# $2: their pcie_counted
fig13_raw() {
  local r v w
  echo "verb,transport,test,size_bytes,window,exp_name,exp_point,exp_rep,exp_procs,thread,status,mops,pcie_rd_per_op,pcie_wr_per_op,pcie_counted,device,kernel,host"
  for r in 1 2 3; do
    for v in read write; do
      for w in 2 16; do
        echo "$v,rc,bw,8,$w,figure-13,$v$w,$r,2,all,ok,1.$r,${1:+1.0},${1:+0.5},\"$2\",mlx5_0,6.1.0-28-amd64,h1"
        echo "$v,rc,bw,8,$w,figure-13,$v$w,$r,2,all,ok,1.$r,${1:+2.0},${1:+0.5},\"$2\",mlx5_0,6.1.0-28-amd64,h2"
      done
    done
  done
}

@test "figure-13 draws PCIe reads per op beside the model's, or says why they are NA and draws the model alone" {
  local d=$BATS_TEST_TMPDIR/counted n=$BATS_TEST_TMPDIR/na
  mkdir -p "$d" "$n"
  # the model's expected reads: READ 1 line (its WQE), inline WRITE 0
  grep -q '^fig13,model-reads-read,window,16,1,dma_read_lines,' "$ROOT/figures/reference/model-limits.csv"
  grep -q '^fig13,model-reads-write,window,16,0,dma_read_lines,' "$ROOT/figures/reference/model-limits.csv"
  # counted: averaged over a point's processes (1.0 and 2.0 -> 1.5), not summed
  fig13_raw 1 uncore > "$d/raw.csv"
  python3 "$LIB/rbcsv.py" aggregate -v means_extra="pcie_rd_per_op pcie_wr_per_op" "$d/raw.csv" > "$d/summary.csv"
  run python3 "$LIB/rbcsv.py" col -v want=pcie_rd_per_op_median "$d/summary.csv"
  [ "$(sort -u <<< "$output")" = 1.5 ] || { echo "$output"; false; }
  run "$ROOT/figures/plot" figure-13 "$d/summary.csv" --out "$d/out"
  [ "$status" -eq 0 ] || { echo "$output"; false; }
  is_png "$d/out/figure-13.png"
  [[ $output != *"not counted"* && $output != *"model's line only"* ]] || { echo "$output"; false; }
  # NA (a VM): empty columns, the reason in pcie_counted; NA as text too
  fig13_raw "" "no uncore_cha PMU in /sys/bus/event_source/devices (a VM, or a kernel without the uncore driver)" > "$n/raw.csv"
  sed -i '2s/,,,"no/,NA,NA,"no/' "$n/raw.csv"
  python3 "$LIB/rbcsv.py" aggregate -v means_extra="pcie_rd_per_op pcie_wr_per_op" "$n/raw.csv" > "$n/summary.csv"
  run python3 "$LIB/rbcsv.py" col -v want=pcie_rd_per_op_median "$n/summary.csv"
  [ -z "$(tr -d '\n' <<< "$output")" ] || { echo "$output"; false; }
  run "$ROOT/figures/plot" figure-13 "$n/summary.csv" --out "$n/out"
  [ "$status" -eq 0 ] || { echo "$output"; false; }
  is_png "$n/out/figure-13.png"
  [[ $output == *"figure-13: PCIe reads not counted: no uncore_cha PMU in /sys/bus/event_source/devices (a VM, or a kernel without the uncore driver): the PCIe panel shows the model's line only"* ]] || { echo "$output"; false; }
  # the same in the figure: the note is a label of panel (b)
  grep -q 'set label 2 pcienote' "$ROOT/figures/figure-13.gp"
}

@test "the subtitle states the spread (CV of the repetitions), the noisy points and, from manifest.json, hosts and accelerator" {
  local d=$BATS_TEST_TMPDIR/run r
  mkdir -p "$d"
  # point 1: 0.003 0.006 0.009 Mops (CV 50 %), point 2: 0.0111..0.0113 (0.9 %)
  { echo "verb,transport,test,atomic_counters,exp_name,exp_point,exp_rep,exp_procs,status,mops,device,kernel,host"
    for r in 1 2 3; do
      echo "fetch_add,rc,bw,1,figure-14,1,$r,2,ok,0.00$((r * 3)),rxe0,6.1.0-57-amd64,vm2"
      echo "fetch_add,rc,bw,256,figure-14,2,$r,2,ok,0.01$((r + 10)),rxe0,6.1.0-57-amd64,vm2"
    done; } > "$d/raw.csv"
  python3 "$LIB/rbcsv.py" aggregate "$d/raw.csv" > "$d/summary.csv"
  run awk -f "$LIB/csv.awk" -f "$ROOT/figures/subtitle.awk" "$d/summary.csv"
  [[ ${lines[1]} == *"spread (CV of Mops): median 25.4 %, max 50.0 %; 1 of 2 points noisy (CV > 20 %)"* ]]
  run awk -f "$LIB/csv.awk" -f "$ROOT/figures/subtitle.awk" -v cvpct=60 "$d/summary.csv"
  [[ ${lines[1]} == *"points noisy (CV > 60 %)"* ]]
  command -v python3 > /dev/null || skip "python3 is not installed"
  cat > "$d/manifest.json" << 'EOF'
{"hosts": [{"hostname": "vm1", "cores": 2, "load1": 0.5, "hypervisor": "yes"},
           {"hostname": "vm2", "cores": 2, "load1": 1.25, "hypervisor": "yes"}],
 "vm_bed": {"vms": 2, "vcpus_per_vm": 2, "mem_mib_per_vm": 2048, "accel": "tcg",
            "host_cpu_model": "Some CPU", "host_cores": 4, "host_load": "7.5 6.0 5.0"}}
EOF
  r=$(python3 "$ROOT/figures/manifest_line.py" "$d/manifest.json")
  [ "$r" = "bed: 2 VM(s) x 2 vCPU, 2048 MiB, TCG on Some CPU (4 cores, load 7.5); hosts at start: vm1 (2 cores, load 0.5), vm2 (2 cores, load 1.25)" ]
  run awk -f "$LIB/csv.awk" -f "$ROOT/figures/subtitle.awk" -v bed="$r" "$d/summary.csv"
  [ "${lines[2]}" = "$r" ]
  # the figure draws with the noisy column and the manifest's line
  run "$ROOT/figures/plot" figure-14 "$d/summary.csv" --out "$BATS_TEST_TMPDIR/out"
  [ "$status" -eq 0 ] || { echo "$output"; false; }
  [ -s "$BATS_TEST_TMPDIR/out/figure-14.png" ]
}

@test "an unknown figure name is refused" {
  run "$ROOT/figures/plot" 'figure-99' --out "$BATS_TEST_TMPDIR/x"
  [ "$status" -eq 2 ]
  run "$ROOT/figures/plot" 'figure-12;id' --out "$BATS_TEST_TMPDIR/x"
  [ "$status" -eq 2 ]
}

@test "figures/plot figure-2 hands the analytic figure to figures/figure-2; a summary for it is refused" {
  [ -x "$ROOT/build/rb_model" ] || skip "build/rb_model not built (make model)"
  run "$ROOT/figures/plot" figure-2 --out "$BATS_TEST_TMPDIR/f2"
  [ "$status" -eq 0 ] || { echo "$output"; false; }
  [ -s "$BATS_TEST_TMPDIR/f2/figure-2.png" ]
  run "$ROOT/figures/plot" figure-2 "$FIX/summary-figure-12.csv" --out "$BATS_TEST_TMPDIR/f2"
  [ "$status" -eq 2 ]
  [[ $output == *"figure-2 is drawn from the PCIe model, not from a run: no SUMMARY.csv"* ]]
}

@test "rows of a series are drawn in x order even where an effective value (inline) changes along x" {
  {
    echo "verb,size_bytes,inline,mops_median"
    echo "write,512,off,3"
    echo "read,4,off,1"
    echo "write,4,on,1"
    echo "write,1024,off,4"
    echo "write,64,on,2"
  } > "$BATS_TEST_TMPDIR/s.csv"
  run bash -c "python3 '$LIB/rbcsv.py' sortx -v x=size_bytes -v keys=verb '$BATS_TEST_TMPDIR/s.csv' | LC_ALL=C sort -t \"\$(printf '\t')\" -k1,1 -k2,2g | cut -f3-"
  [ "$status" -eq 0 ]
  [ "${lines[0]}" = "verb,size_bytes,inline,mops_median" ]
  [ "${lines[1]}" = "read,4,off,1" ]
  [ "$(printf '%s\n' "${lines[@]:2}" | cut -d, -f2 | tr '\n' ' ')" = "4 64 512 1024 " ]
}

@test "plot refuses another experiment's summary, shared script names and a second summary" {
  run "$ROOT/figures/plot" figure-12 "$FIX/summary-figure-14.csv" --out "$BATS_TEST_TMPDIR/o"
  [ "$status" -eq 2 ]
  [[ $output == *"holds figure-14's results, not figure-12's"* ]]
  run "$ROOT/figures/plot" common --out "$BATS_TEST_TMPDIR/o"
  [ "$status" -eq 2 ]
  [[ $output == *"common is a shared part of the figure scripts, not a figure"* ]]
  run "$ROOT/figures/plot" figure-12 "$FIX/summary-figure-12.csv" "$FIX/summary-figure-12.csv" --out "$BATS_TEST_TMPDIR/o"
  [ "$status" -eq 2 ]
  [[ $output == *"one SUMMARY.csv at a time"* ]]
  [ ! -e "$BATS_TEST_TMPDIR/o/figure-12.png" ]
}

@test "the subtitle: Mops CVs never mixed with a latency CV, the noisy count over the points with a CV, the repetitions behind each median" {
  # 6 points: 4 with 3 rated reps (Mops CV 5, 10, 30, 40), 1 with 1 rated
  # rep (no CV), 1 low-overlap (no Mops, p50 latency CV 90: not counted)
  local s=$BATS_TEST_TMPDIR/s.csv
  {
    echo "exp_name,exp_point,verb,size_bytes,exp_procs,reps,reps_ok,rows_failed,status,reason,noisy,mops_median,mops_min,mops_max,mops_cv_pct,lat_p50_us_median,lat_p50_us_min,lat_p50_us_max,lat_p50_us_cv_pct,device,kernel,host,reps_rated,note,overlap,overlap_flag"
    echo "f,1,write,64,2,3,3,0,ok,,no,1,1,1,5,2,2,2,1,rxe0,k,vm2,3,,1.0000,"
    echo "f,2,write,128,2,3,3,0,ok,,no,1,1,1,10,2,2,2,1,rxe0,k,vm2,3,,1.0000,"
    echo "f,3,write,256,2,3,3,0,ok,,yes,1,1,1,30,2,2,2,1,rxe0,k,vm2,3,,1.0000,"
    echo "f,4,write,512,2,3,3,0,ok,,yes,1,1,1,40,2,2,2,1,rxe0,k,vm2,3,,1.0000,"
    echo "f,5,write,1024,2,3,3,0,ok,,,1,1,1,,2,2,2,1,rxe0,k,vm2,1,overlap 0.96 < 0.99 in 2 of 3 repetitions: rates from the other 1,0.9600,low"
    echo "f,6,write,2048,2,3,3,0,low-overlap,overlap 0.96 < 0.99: rate not trusted (3 of 3 repetitions),yes,,,,,2,1,3,90,rxe0,k,vm2,0,,0.9600,low"
  } > "$s"
  run awk -f "$LIB/csv.awk" -f "$ROOT/figures/subtitle.awk" "$s"
  [[ ${lines[1]} == "each point: median of its repetitions with a rate (3 at 4 points, 1 at 1 point), bars min..max"* ]] || { echo "$output"; false; }
  [[ ${lines[1]} == *"; 1 point not drawn: windows overlapped < 0.99, rate not trusted"* ]]
  [[ ${lines[1]} == *"spread (CV of Mops): median 20.0 %, max 40.0 %; 2 of 4 points noisy (CV > 20 %), 1 without a CV (fewer than 2 repetitions)"* ]] || { echo "$output"; false; }
  [[ ${lines[1]} != *"p50 latency"* ]]
  # no point with a Mops value (a latency sweep): the latency CV, labelled so
  cut -d, -f1-11,16- "$s" > "$BATS_TEST_TMPDIR/lat.csv"
  run awk -f "$LIB/csv.awk" -f "$ROOT/figures/subtitle.awk" "$BATS_TEST_TMPDIR/lat.csv"
  [[ ${lines[1]} == *"spread (CV of p50 latency): median 1.0 %, max 90.0 %; 1 of 6 points noisy (CV > 20 %)" ]] || { echo "$output"; false; }
}

@test "subtitle: rdma_seq's summaries give the spread as the CV of Mrps, not of p50 latency" {
  run awk -f "$LIB/csv.awk" -f "$ROOT/figures/subtitle.awk" "$FIX/summary-figure-7.csv"
  [ "$status" -eq 0 ]
  [[ $output == *"spread (CV of Mrps)"* ]] || { echo "$output"; false; }
  [[ $output != *"p50 latency"* ]] || { echo "$output"; false; }
}
