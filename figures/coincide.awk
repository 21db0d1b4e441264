# figures/coincide.awk: the series of a sweep whose marks fall on one
# another, for sweep.gp's key note. Reads a summary.csv (run with
# experiments/lib/csv.awk); -v x=COL s=COL p=COL (the [experiment] x,
# series and panels columns; p may be empty), per (process: values per
# client process, as drawn), ylog (1: a log y axis), scale (linear: the
# largest value drawn, the axis' top at least; log: the decades drawn) and
# tol (the share of the axis within which two marks overlap: 0.025, about
# a mark's height on a panel). Two series overlap where, at one x of one
# original run (exp_name), their medians lie within tol of the axis.
# Prints "PANEL<TAB>S1 S2 ..." per panel with overlapping series (their
# values in the order first seen), nothing when none do.
function num(v) { return v ~ /^[0-9.eE+-]+$/ && v + 0 > 0 }
NR == 1 {
    n = csv_split($0, h); for (i = 1; i <= n; i++) c[h[i]] = i
    if (!tol) tol = 0.025
    next
}
{
    csv_split($0, f)
    if (("status" in c) && csv_val(f[c["status"]]) == "failed") next
    if (!(x in c) || !(s in c) || !("mops_median" in c)) next
    y = csv_val(f[c["mops_median"]])
    if (!num(y)) next
    y = y + 0
    d = ("exp_procs" in c) ? csv_val(f[c["exp_procs"]]) + 0 : 0
    if (per == "process" && d > 0) y = y / d
    pv = (p != "" && (p in c)) ? csv_val(f[c[p]]) : "-"
    run = ("exp_name" in c) ? csv_val(f[c["exp_name"]]) : ""
    sv = csv_val(f[c[s]])
    g = run SUBSEP pv SUBSEP csv_val(f[c[x]])
    # the series seen at this place, and their values
    m = ++cnt[g]; S[g, m] = sv; V[g, m] = y; P[g] = pv
    if (!((pv, sv) in order)) { order[pv, sv] = ++no[pv]; name[pv, no[pv]] = sv }
    if (!(pv in pseen)) { pseen[pv] = 1; panels[++np] = pv }
}
END {
    for (g in cnt)
        for (i = 1; i <= cnt[g]; i++)
            for (j = i + 1; j <= cnt[g]; j++) {
                if (S[g, i] == S[g, j]) continue
                dv = ylog ? log(V[g, i] / V[g, j]) / log(10) : V[g, i] - V[g, j]
                if (dv < 0) dv = -dv
                if (scale > 0 && dv <= tol * scale) { hit[P[g], S[g, i]] = 1; hit[P[g], S[g, j]] = 1 }
            }
    for (k = 1; k <= np; k++) {
        pv = panels[k]; out = ""
        for (i = 1; i <= no[pv]; i++) if ((pv, name[pv, i]) in hit) out = out (out == "" ? "" : " ") name[pv, i]
        if (out != "") print pv "\t" out
    }
}
