# figures/present.awk: which measured series of a summary.csv have a
# drawable point (status not failed, a numeric mops_median or
# gbps_median, or mrps_median: rdma_seq's rate), for figures/plot. Prints " K1 K2 ... |N": each K the
# values of the columns `cols` (space-separated names) joined by ":", and
# N 1 when some point is noisy (column noisy = yes), else 0.
# -v want=COLUMN: a drawable point is one with a numeric COLUMN instead
# (e.g. server_recv_mops_median: the series that have a receive rate);
# -v noisyonly=1: only the noisy points count (the series with a ring).
# -v all=1: the three at once, a line each (drawable; with a receive rate,
# server_recv_mops_median; noisy only), in one pass (figures/plot).
# Run with experiments/lib/csv.awk.
NR == 1 {
    n = split(cols, c, " "); m = csv_split($0, hd); for (i = 1; i <= m; i++) h[hd[i]] = i
    # the modes asked for: one (want, noisyonly), or with -v all=1 the three
    # figures/plot reads, one line each: drawable, with a receive rate, noisy
    if (all) { nm = 3; W[1] = ""; O[1] = 0; W[2] = "server_recv_mops_median"; O[2] = 0; W[3] = ""; O[3] = 1 }
    else { nm = 1; W[1] = want; O[1] = noisyonly }
    next
}
{
    csv_split($0, f)
    num = "^[0-9.eE+-]+$"
    st = ("status" in h) ? csv_val(f[h["status"]]) != "failed" : 1
    isnoisy = ("noisy" in h) && csv_val(f[h["noisy"]]) == "yes"
    if (isnoisy) noisy = 1
    k = ""
    for (i = 1; i <= n; i++) k = k (i > 1 ? ":" : "") ((c[i] in h) ? csv_val(f[h[c[i]]]) : "")
    for (md = 1; md <= nm; md++) {
        if (W[md] != "")
            ok = st && (W[md] in h) && csv_val(f[h[W[md]]]) ~ num
        else
            ok = st &&
                 ((("mops_median" in h) && csv_val(f[h["mops_median"]]) ~ num) ||
                  (("gbps_median" in h) && csv_val(f[h["gbps_median"]]) ~ num) ||
                  (("mrps_median" in h) && csv_val(f[h["mrps_median"]]) ~ num))
        if (O[md] && !isnoisy) continue
        if (!ok) continue
        if (!((md, k) in seen)) { seen[md, k] = 1; out[md] = out[md] " " k }
    }
}
END { for (md = 1; md <= (nm ? nm : (all ? 3 : 1)); md++) printf "%s |%d\n", out[md] " ", noisy + 0 }
