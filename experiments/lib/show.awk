# experiments/lib/show.awk: summary.csv as a table for people (the config
# columns that vary between points, procs, status, Mops and Gb/s with min..max).
# A point that is not ok gets its reason in parentheses, an ok point its
# note (aggregate.awk: repetitions left out for a low overlap, a loss out
# of range), so that no point is empty without saying why.
# With -v count=1: prints "points ok failed low_overlap" instead (skipped
# points count as none of these). Config columns that
# aggregate.awk added (a hook's knobs, [run] summary_keys: the columns
# between access and exp_procs) are shown too.
function c(name) { return (name in idx) ? csv_val(f[idx[name]]) : "" }
NR == 1 {
    n = csv_split($0, h); for (i = 1; i <= n; i++) idx[h[i]] = i
    nconf = split("verb transport test size_bytes threads qps_per_thread emulated_peers postlist signal_interval inline window atomic_counters stride_bytes access exp_procs", conf, " ")
    if (("access" in idx) && ("exp_procs" in idx))
        for (i = idx["access"] + 1; i < idx["exp_procs"]; i++) conf[++nconf] = h[i]
    next
}
{
    csv_split($0, f)
    rows++
    if (c("status") == "ok") ok++
    if (c("status") == "skipped") skipped++
    if (c("status") == "low-overlap") lowov++
    for (i = 1; i <= nconf; i++) { v[rows, i] = c(conf[i]); if (v[rows, i] != v[1, i]) used[i] = 1 }
    st[rows] = c("status"); why[rows] = (c("status") == "ok") ? c("note") : c("reason")
    m[rows] = c("mops_median"); mlo[rows] = c("mops_min"); mhi[rows] = c("mops_max"); g[rows] = c("gbps_median")
    if (m[rows] != "") anymops = 1
    # rdma_seq's experiments (figure-7, table-3): requests, not operations
    r_[rows] = c("mrps_median"); rlo[rows] = c("mrps_min"); rhi[rows] = c("mrps_max")
    if (r_[rows] != "") anymrps = 1
}
END {
    # count: points, ok, failed, low-overlap (skipped ones count as none)
    if (count) { print rows + 0, ok + 0, rows - ok - skipped - lowov, lowov + 0; exit }
    # show the columns that vary (the verb at least)
    used[1] = 1
    line = ""
    for (i = 1; i <= nconf; i++) if (used[i]) line = line sprintf("%-10s ", (conf[i] == "exp_procs") ? "procs" : substr(conf[i], 1, 10))
    # the rate column: Mops, or Mrps for a summary whose points have only that
    usemrps = (!anymops && anymrps)
    if (usemrps) for (r = 1; r <= rows; r++) { m[r] = r_[r]; mlo[r] = rlo[r]; mhi[r] = rhi[r] }
    printf "%s%-11s %-28s %s\n", line, "status", usemrps ? "Mrps median [min..max]" : "Mops median [min..max]", "Gb/s"
    for (r = 1; r <= rows; r++) {
        line = ""
        for (i = 1; i <= nconf; i++) if (used[i]) line = line sprintf("%-10s ", v[r, i])
        mm = (m[r] == "") ? "-" : sprintf("%s [%s..%s]", m[r], mlo[r], mhi[r])
        printf "%s%-11s %-28s %s%s\n", line, st[r], mm, (g[r] == "") ? "-" : g[r], (why[r] == "") ? "" : "  (" why[r] ")"
    }
}
