# figures/subtitle.awk: one line naming the hardware and kernel of the
# measured series of a summary.csv (its device, kernel and host columns),
# and a second line: repetitions per point (reps column) and, with
# -v grid=quick, that the run used the reduced QUICK grid; the spread of
# the headline metric (mops, else lat_p50_us) over the repetitions: the
# median and largest coefficient of variation of the points, and how many
# are noisy (noisy column; -v cvpct: the run's threshold, 20 if not given).
# With -v bed=TEXT (figures/plot: the run's manifest.json in one line:
# hosts, cores, load, accelerator), a third line.
# Soft-RoCE (rxe) and soft-iWARP (siw) devices are labelled as functional
# evidence, never a hardware claim.
function c(name) { return (name in idx) ? csv_val(f[idx[name]]) : "" }
function add(kind, v,    n, a, i) {
    if (v == "") return
    n = split(v, a, "+")
    for (i = 1; i <= n; i++) if (!((kind, a[i]) in seen)) { seen[kind, a[i]] = 1; list[kind] = (list[kind] == "") ? a[i] : list[kind] ", " a[i] }
}
NR == 1 { n = csv_split($0, h); for (i = 1; i <= n; i++) idx[h[i]] = i; next }
{ csv_split($0, f); rows++; add("dev", c("device")); add("kernel", c("kernel")); add("host", c("host"))
  r = c("reps") + 0; if (r > reps) reps = r
  cv = c("mops_cv_pct"); if (c("mops_median") == "" && c("lat_p50_us_cv_pct") != "") { cv = c("lat_p50_us_cv_pct"); latcv = 1 }
  if (cv != "") cvs[++ncv] = cv + 0
  if (c("noisy") == "yes") nnoisy++ }
END {
    if (rows == 0) { print "reference data only (no measured run)"; exit }
    dev = list["dev"]
    if (dev == "") dev = "unknown device"
    s = "measured: " dev
    if (dev ~ /(^|, )rxe/) s = s " = soft-RoCE (functional, not a hardware claim)"
    else if (dev ~ /(^|, )siw/) s = s " = soft-iWARP, software RDMA (functional, not a hardware claim)"
    if (list["kernel"] != "") s = s "; kernel " list["kernel"]
    if (list["host"] != "") s = s "; client hosts " list["host"]
    # how each point was measured (grid: "quick" or "full", from the run folder)
    if (reps > 1) s = s "\n" "each point: median of " reps " repetitions, bars min..max"
    else s = s "\n" "each point: 1 repetition (no spread shown)"
    if (ncv > 0) {
        for (i = 1; i <= ncv; i++) for (j = i + 1; j <= ncv; j++) if (cvs[j] < cvs[i]) { t = cvs[i]; cvs[i] = cvs[j]; cvs[j] = t }
        med = (ncv % 2) ? cvs[(ncv + 1) / 2] : (cvs[ncv / 2] + cvs[ncv / 2 + 1]) / 2
        s = s sprintf("; spread (CV of %s): median %.1f %%, max %.1f %%; %d of %d points noisy (CV > %s %%)",
                      latcv ? "p50 latency" : "Mops", med, cvs[ncv], nnoisy, ncv, (cvpct == "") ? 20 : cvpct)
    }
    if (grid == "quick") s = s "; QUICK grid (reduced, a smoke test: not the figure's full sweep)"
    if (bed != "") s = s "\n" bed
    print s
}
