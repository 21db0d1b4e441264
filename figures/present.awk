# figures/present.awk: which measured series of a summary.csv have a
# drawable point (status not failed, a numeric mops_median or
# gbps_median, or mrps_median: rdma_seq's rate), for figures/plot. Prints " K1 K2 ... |N": each K the
# values of the columns `cols` (space-separated names) joined by ":", and
# N 1 when some point is noisy (column noisy = yes), else 0.
# -v want=COLUMN: a drawable point is one with a numeric COLUMN instead
# (e.g. server_recv_mops_median: the series that have a receive rate);
# -v noisyonly=1: only the noisy points count (the series with a ring).
# Run with experiments/lib/csv.awk.
NR == 1 { n = split(cols, c, " "); m = csv_split($0, hd); for (i = 1; i <= m; i++) h[hd[i]] = i; next }
{
    csv_split($0, f)
    num = "^[0-9.eE+-]+$"
    if (want != "")
        ok = (("status" in h) ? csv_val(f[h["status"]]) != "failed" : 1) && (want in h) && csv_val(f[h[want]]) ~ num
    else
        ok = (("status" in h) ? csv_val(f[h["status"]]) != "failed" : 1) &&
             ((("mops_median" in h) && csv_val(f[h["mops_median"]]) ~ num) ||
              (("gbps_median" in h) && csv_val(f[h["gbps_median"]]) ~ num) ||
              (("mrps_median" in h) && csv_val(f[h["mrps_median"]]) ~ num))
    isnoisy = ("noisy" in h) && csv_val(f[h["noisy"]]) == "yes"
    if (isnoisy) noisy = 1
    if (noisyonly && !isnoisy) next
    if (!ok) next
    k = ""
    for (i = 1; i <= n; i++) k = k (i > 1 ? ":" : "") ((c[i] in h) ? csv_val(f[h[c[i]]]) : "")
    if (!(k in seen)) { seen[k] = 1; out = out " " k }
}
END { printf "%s |%d\n", out " ", noisy + 0 }
