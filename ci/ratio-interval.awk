# ci/ratio-interval.awk: the median of paired ratios with a distribution-free
# 95 % interval (sign test / order statistics; e.g. Conover, Practical
# Nonparametric Statistics, 3rd ed., section 3.2 "quantile test"), as used by
# ci/bench-run.
#
# Input: one ratio per line (rdma_bench / perftest of one pair; lines that
# are not positive numbers are ignored). Output: one line
#   n median lo hi coverage
# where [lo, hi] = [r(k), r(n+1-k)] of the sorted ratios with the largest k
# whose coverage 1 - 2 P(Bin(n, 1/2) <= k - 1) is still >= 0.95 (n = 7:
# min..max, 98.4 %; n = 9: 2nd..8th, 96.1 %). With fewer than 6 ratios no
# interval reaches 95 %: lo, hi and coverage are NA (and with none, the
# median too).
$1 ~ /^[0-9]*\.?[0-9]+([eE][-+]?[0-9]+)?$/ && $1 + 0 > 0 { r[++n] = $1 + 0 }
END {
  if (n == 0) { print 0, "NA", "NA", "NA", "NA"; exit }
  for (i = 2; i <= n; i++) { v = r[i]; for (j = i - 1; j >= 1 && r[j] > v; j--) r[j + 1] = r[j]; r[j + 1] = v }
  med = (n % 2) ? r[(n + 1) / 2] : (r[n / 2] + r[n / 2 + 1]) / 2
  # cdf[j] = P(Bin(n, 1/2) <= j)
  p = 1; for (i = 1; i <= n; i++) p /= 2
  term = p; cdf = 0; k = 0; cov = "NA"
  for (j = 0; 2 * (j + 1) <= n; j++) {
    cdf += term                              # P(X <= j)
    if (1 - 2 * cdf < 0.95) break
    k = j + 1; cov = 1 - 2 * cdf
    term = term * (n - j) / (j + 1)          # C(n, j+1) / 2^n
  }
  if (k == 0) { printf "%d %.4g NA NA NA\n", n, med; exit }
  printf "%d %.4g %.4g %.4g %.3f\n", n, med, r[k], r[n + 1 - k], cov
}
