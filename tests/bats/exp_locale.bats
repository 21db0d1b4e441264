#!/usr/bin/env bats
# A comma-decimal locale (de_DE.UTF-8) of the caller changes no number and
# no parsing: the runner, figures/plot, experiments/compare and import,
# ci/vm-image's apt-cache parsing and the rdma_bench binary give what they
# give in the C locale (docs/CONTRACTS.md, "Locale").

load fixtures/exp/helpers
load fixtures/exp/locale

setup() { comma_locale; }

# check_tiny_numbers DIR: the fake's 1.5 and 2.5 Mops per process read as
# numbers (median 4 per point), every row as many fields as the header
check_tiny_numbers() {
  local d=$1
  [ "$(csv_col "$d/raw.csv" mops | sort -u | tr '\n' ' ')" = "1.500 2.500 " ]
  [ "$(csv_col "$d/summary.csv" mops_median | sort -u)" = 4 ]
  [ "$(csv_col "$d/summary.csv" status | sort -u)" = ok ]
  local f
  for f in "$d/raw.csv" "$d/summary.csv"; do
    awk -f "$LIB/csv.awk" 'NR == 1 { n = csv_split($0, h); next }
      { m = csv_split($0, x); if (m != n) { print FILENAME ": row " NR " has " m " fields, the header " n; bad = 1 } }
      END { exit bad }' "$f"
  done
}

@test "LANG=de_DE.UTF-8: the runner's rows, summary and progress lines keep decimal points" {
  LANG=$COMMA_LOCALE LC_ALL="" LC_NUMERIC="" run_exp "$FIX/tiny" --quick
  [ "$status" -eq 0 ] || { echo "$output"; false; }
  check_tiny_numbers "$(run_dir tiny)"
  # "job 1/2 ...: ok in 0.3 s", never "0,3 s"
  [[ $output =~ ok\ in\ [0-9]+\.[0-9]\ s ]]
  if [[ $output =~ [0-9],[0-9]\ s ]]; then echo "a comma decimal in: $output"; false; fi
}

@test "LC_ALL or only LC_NUMERIC in the comma locale: the same numbers" {
  LC_ALL=$COMMA_LOCALE run_exp "$FIX/tiny" --quick --run-id all
  [ "$status" -eq 0 ] || { echo "$output"; false; }
  check_tiny_numbers "$BATS_TEST_TMPDIR/results/tiny/all"
  LANG=C LC_ALL="" LC_NUMERIC=$COMMA_LOCALE run_exp "$FIX/tiny" --quick --run-id numeric
  [ "$status" -eq 0 ] || { echo "$output"; false; }
  check_tiny_numbers "$BATS_TEST_TMPDIR/results/tiny/numeric"
}

@test "experiments/import under the comma locale: 6.35+5.88+6.32+5.86+5.87+5.86 = 36.14" {
  command -v python3 > /dev/null || skip "python3 is not installed"
  local log=$ROOT/figures/reference/rdma_bench-sweeps/netapp-e51bd06-swarm-32_byte_read
  LC_ALL=$COMMA_LOCALE "$ROOT/experiments/import" sweep "$log" --summary -o "$BATS_TEST_TMPDIR/de.csv"
  [ "$(csv_col "$BATS_TEST_TMPDIR/de.csv" mops_median | head -n 1)" = 36.14 ]
  LC_ALL=C "$ROOT/experiments/import" sweep "$log" --summary -o "$BATS_TEST_TMPDIR/c.csv"
  cmp "$BATS_TEST_TMPDIR/c.csv" "$BATS_TEST_TMPDIR/de.csv"
}

@test "experiments/compare under the comma locale: ratio 1.481 as in C" {
  command -v python3 > /dev/null || skip "python3 is not installed"
  LC_ALL=$COMMA_LOCALE run "$ROOT/experiments/compare" figure-14 "$FIX/summary-figure-14.csv"
  [ "$status" -eq 0 ]
  [[ $output == *"measured 4 [4..4]"*"ratio 1.481"* ]]
  local de=$output
  LC_ALL=C run "$ROOT/experiments/compare" figure-14 "$FIX/summary-figure-14.csv"
  [ "$output" = "$de" ]
}

@test "figures/plot under the comma locale draws the PNG it draws in C" {
  command -v gnuplot > /dev/null || skip "gnuplot is not installed"
  # a run measured under the comma locale: plot its summary in both locales
  LC_ALL=$COMMA_LOCALE run_exp "$FIX/tiny" --quick --run-id p
  [ "$status" -eq 0 ]
  sed 's/^tiny,/figure-12,/' "$BATS_TEST_TMPDIR/results/tiny/p/summary.csv" > "$BATS_TEST_TMPDIR/s12.csv"
  local s
  for s in "$BATS_TEST_TMPDIR/s12.csv" "$FIX/summary-figure-12.csv"; do
    LC_ALL=$COMMA_LOCALE "$ROOT/figures/plot" figure-12 "$s" --out "$BATS_TEST_TMPDIR/de" > /dev/null
    LC_ALL=C "$ROOT/figures/plot" figure-12 "$s" --out "$BATS_TEST_TMPDIR/c" > /dev/null
    cmp "$BATS_TEST_TMPDIR/c/figure-12.png" "$BATS_TEST_TMPDIR/de/figure-12.png"
  done
}

@test "ci/vm-image reads apt-cache in English whatever the caller's language" {
  # a fake apt-cache that answers in German unless the C locale is asked
  # for, and an apt-get that fails: parsing the kernel package is all
  # that runs (the download then fails, naming the package it parsed)
  mkdir -p "$BATS_TEST_TMPDIR/bin"
  cat > "$BATS_TEST_TMPDIR/bin/apt-cache" <<'SH'
#!/bin/sh
case ${LC_ALL:-${LC_MESSAGES:-${LANG:-C}}} in de*) dep='Hängt ab von' cand=Installationskandidat ;; *) dep=Depends cand=Candidate ;; esac
case $1 in
  depends) printf 'linux-image-amd64\n  %s: linux-image-6.1.0-99-amd64\n' "$dep" ;;
  policy) printf '%s:\n  %s: 6.1.999-1\n' "$2" "$cand" ;;
esac
SH
  printf '#!/bin/sh\necho "fake apt-get: $*" >&2\nexit 100\n' > "$BATS_TEST_TMPDIR/bin/apt-get"
  chmod +x "$BATS_TEST_TMPDIR/bin/"*
  LANG=$COMMA_LOCALE LC_ALL="" LC_MESSAGES="" PATH=$BATS_TEST_TMPDIR/bin:$PATH RB_VM_CACHE=$BATS_TEST_TMPDIR/cache \
    run "$ROOT/ci/vm-image"
  [[ $output != *"host packages missing"* ]] || skip "the VM bed's host packages are not installed (env/install-deps --vm)"
  [ "$status" -ne 0 ]
  [[ $output != *"cannot tell which kernel"* ]] || { echo "$output"; false; }
  [[ $output == *"apt-get download linux-image-6.1.0-99-amd64 failed"* ]] || { echo "$output"; false; }
}

@test "rdma_bench reads its numbers in the C locale whatever LANG and LC_ALL say" {
  [ -x "$ROOT/rdma_bench" ] || skip "rdma_bench is not built (make)"
  # no setlocale in the binary: '0,5' is not a number, '0.5' is
  LANG=$COMMA_LOCALE LC_ALL=$COMMA_LOCALE run "$ROOT/rdma_bench" -c 127.0.0.1 -D 0,5
  [ "$status" -eq 2 ]
  [[ $output == *"-D/--duration '0,5': trailing ',5'"* ]]
  LANG=$COMMA_LOCALE LC_ALL=$COMMA_LOCALE run timeout 60 "$ROOT/rdma_bench" -c 127.0.0.1 -p 1 -D 0.5
  [[ $output != *"--duration"* ]] || { echo "$output"; false; }
  run grep -rn --include='*.c' 'setlocale' "$ROOT"/bench
  [ "$status" -eq 1 ]
}

@test "ci/vm-image: a current image.stamp answers without asking apt; another stamp asks it" {
  mkdir -p "$BATS_TEST_TMPDIR/bin" "$BATS_TEST_TMPDIR/cache"
  # a fake apt-cache that notes every call, an apt-get that fails
  printf '#!/bin/sh\necho "$*" >> "%s/apt-calls"\nexit 1\n' "$BATS_TEST_TMPDIR" > "$BATS_TEST_TMPDIR/bin/apt-cache"
  printf '#!/bin/sh\nexit 100\n' > "$BATS_TEST_TMPDIR/bin/apt-get"
  chmod +x "$BATS_TEST_TMPDIR/bin/"*
  local c=$BATS_TEST_TMPDIR/cache
  : > "$c/vmlinuz"; : > "$c/initrd.cpio.gz"; echo old > "$c/image.key"
  PATH=$BATS_TEST_TMPDIR/bin:$PATH RB_VM_CACHE=$c run "$ROOT/ci/vm-image" --stamp
  [[ $output != *"host packages missing"* ]] || skip "the VM bed's host packages are not installed (env/install-deps --vm)"
  [ "$status" -eq 0 ]
  echo "$output" > "$c/image.stamp"
  PATH=$BATS_TEST_TMPDIR/bin:$PATH RB_VM_CACHE=$c run "$ROOT/ci/vm-image"
  [ "$status" -eq 0 ]
  [ "$output" = "$c" ]
  [ ! -e "$BATS_TEST_TMPDIR/apt-calls" ]
  # a stale stamp: the key is asked of apt again
  echo stale > "$c/image.stamp"
  PATH=$BATS_TEST_TMPDIR/bin:$PATH RB_VM_CACHE=$c run "$ROOT/ci/vm-image"
  [ "$status" -ne 0 ]
  grep -q '^depends linux-image-amd64' "$BATS_TEST_TMPDIR/apt-calls"
}
