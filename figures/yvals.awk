# figures/yvals.awk: the y values a figure draws from a summary.csv, one
# "y VALUE" line per row, for figures/plot's choice of a log or linear y
# axis: mops_median, divided by the point's client processes (exp_procs)
# under -v per=process (sweep.gp's per-process values, as the original
# artifact's per-machine averages). With -v top=1 the tops of the min..max
# bars instead (mops_max; rdma_seq's summaries, which have mrps_max: that), for the tick
# format of a linear axis (common.gp: linfmt). Several files: each its own
# header. Run with experiments/lib/csv.awk.
FNR == 1 {
    split("", c); split("", f); n = csv_split($0, h); for (i = 1; i <= n; i++) c[h[i]] = i
    col = top ? (("mrps_max" in c) ? "mrps_max" : "mops_max") : "mops_median"
    next
}
(col in c) {
    csv_split($0, f)
    v = csv_val(f[c[col]])
    d = ("exp_procs" in c) ? csv_val(f[c["exp_procs"]]) + 0 : 0
    if (per == "process" && v ~ /^[0-9.eE+-]+$/ && d > 0) v = v / d
    print "y " v
}
