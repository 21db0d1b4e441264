# ci/slow-mode.awk: how many runs of each tool of a make bench configuration
# ran in the bed's slow mode, and in how many pairs both tools ran in the
# same mode (ci/bench-run's "slow-mode runs" table). On the TCG soft-RoCE
# bed either tool runs in one of two modes per run, for minutes at a time
# (32 B READ ~0.017 vs ~0.032 Mops, fetch-and-add ~0.030 vs ~0.048): a
# pair that mixes them moves its ratio by 1.3-2x.
#
# Usage: awk -v kind=bw|lat -v a="RB VALUES" -v b="PT VALUES" -f ci/slow-mode.awk
#   (space-separated, pair i is the i-th value of each; a value that is not
#   a positive number, e.g. NA, is a failed run: left out)
# A run is slow when its value is below 0.75x its tool's best (bw: the
# largest) or above 1.33x its best (lat: the smallest).
# Output: "K/N K/N K/N" in columns of 10, 10 and 16: slow runs of a, of b,
# pairs with both values in the same mode.
function num(v) { return v ~ /^[0-9]*\.?[0-9]+([eE][-+]?[0-9]+)?$/ && v + 0 > 0 }
BEGIN {
  n = split(a, ra, " "); split(b, rb, " ")
  for (i = 1; i <= n; i++)
    for (t = 0; t < 2; t++) {
      v = t ? rb[i] : ra[i]
      if (!num(v)) continue
      if (!(t in best) || (kind == "bw" ? v + 0 > best[t] : v + 0 < best[t])) best[t] = v + 0
    }
  for (i = 1; i <= n; i++) {
    ok = 1
    for (t = 0; t < 2; t++) {
      v = t ? rb[i] : ra[i]
      if (!num(v)) { ok = 0; continue }
      runs[t]++
      slow[i, t] = kind == "bw" ? v + 0 < 0.75 * best[t] : v + 0 > 1.33 * best[t]
      nslow[t] += slow[i, t]
    }
    if (ok) { pairs++; same += slow[i, 0] == slow[i, 1] }
  }
  printf "%10s %10s %16s", (nslow[0] + 0) "/" (runs[0] + 0), (nslow[1] + 0) "/" (runs[1] + 0), (same + 0) "/" (pairs + 0)
}
