# figures/subtitle.awk: one line naming the hardware and kernel of the
# measured series of a summary.csv (its device, kernel and host columns),
# and a second line: how many repetitions stand behind each point's median
# (reps_rated when the summary has it: the repetitions whose rates counted,
# rbcsv.py aggregate; else reps_ok), with -v grid=quick that the run used the
# reduced QUICK grid (and, with -v quickgrid=, what it left out: one line
# of figures/quickgrid.awk), the points with no trusted rate and why (status
# low-overlap), and the spread of the headline metric over the
# repetitions: the CV of Mops (Mrps for rdma_seq's rows) over the points that have a rate, or,
# only when no point has one, the CV of p50 latency (never the two mixed):
# the median and largest CV, and how many of the points with a CV exceed
# the threshold (-v cvpct: the run's, 20 if not given); points without a
# CV (fewer than 2 rated repetitions) are counted apart.
# With -v servers=LIST (figures/plot: the server rows' hosts in the run's
# raw.csv), the first line names the server before the client hosts.
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
  # the rate: Mops, or Mrps for rdma_seq's rows (requests; no Mops column)
  rv = c("mops_median"); rcv = c("mops_cv_pct")
  if (rv == "" && c("mrps_median") != "") { rv = c("mrps_median"); rcv = c("mrps_cv_pct"); nrps++ }
  if (rv != "") {
      nval++
      # the repetitions behind this point's median
      k = ("reps_rated" in idx) ? c("reps_rated") : c("reps_ok")
      if (k == "") k = c("reps")
      k += 0
      if (!(k in nby)) kl[++nk] = k
      nby[k]++
      if (rcv != "") mcv[++nmcv] = rcv + 0
  } else if (c("status") == "ok" || c("status") == "partial" || c("status") == "low-overlap") {
      nnoval++
      if (c("status") == "low-overlap") nlow++
  }
  if (c("lat_p50_us_cv_pct") != "") lcv[++nlcv] = c("lat_p50_us_cv_pct") + 0
  if (c("status") != "failed" && c("status") != "skipped") nmeas++ }
END {
    if (rows == 0) { print "reference data only (no measured run)"; exit }
    dev = list["dev"]
    if (dev == "") dev = "unknown device"
    s = "measured: " dev
    if (dev ~ /(^|, )rxe/) s = s " = soft-RoCE (functional, not a hardware claim)"
    else if (dev ~ /(^|, )siw/) s = s " = soft-iWARP, software RDMA (functional, not a hardware claim)"
    if (list["kernel"] != "") s = s "; kernel " list["kernel"]
    if (servers != "") s = s "; server " servers
    if (list["host"] != "") s = s "; client hosts " list["host"]
    # how each point was measured (grid: "quick" or "full", from the run folder)
    if (nk == 0) s = s "\n" (reps > 1 ? "each point: median of its repetitions, bars min..max" : "each point: 1 repetition (no spread shown)")
    else if (nk == 1 && kl[1] > 1) s = s "\n" "each point: median of " kl[1] " repetitions, bars min..max"
    else if (nk == 1) s = s "\n" "each point: 1 repetition (no spread shown)"
    else {
        # several counts: largest first, "3 at 4 points, 1 at 2"
        for (i = 1; i <= nk; i++) for (j = i + 1; j <= nk; j++) if (kl[j] > kl[i]) { t = kl[i]; kl[i] = kl[j]; kl[j] = t }
        t = ""
        for (i = 1; i <= nk; i++) t = t (i > 1 ? ", " : "") kl[i] " at " nby[kl[i]] " point" (nby[kl[i]] == 1 ? "" : "s")
        s = s "\n" "each point: median of its repetitions with a rate (" t "), bars min..max"
    }
    if (nlow > 0) s = s sprintf("; %d point%s not drawn: windows overlapped < 0.99, rate not trusted", nlow, nlow == 1 ? "" : "s")
    if (nval > 0 && nnoval > nlow) s = s sprintf("; %d point%s measured without a rate", nnoval - nlow, nnoval - nlow == 1 ? "" : "s")
    # the spread: Mops' CV where any point has a Mops value, else p50 latency's
    th = (cvpct == "") ? 20 : cvpct
    if (nval > 0) { ncv = nmcv; for (i = 1; i <= ncv; i++) cvs[i] = mcv[i]; what = (nrps == nval) ? "Mrps" : "Mops"; judged = nval }
    else { ncv = nlcv; for (i = 1; i <= ncv; i++) cvs[i] = lcv[i]; what = "p50 latency"; judged = nmeas }
    if (ncv > 0) {
        for (i = 1; i <= ncv; i++) for (j = i + 1; j <= ncv; j++) if (cvs[j] < cvs[i]) { t = cvs[i]; cvs[i] = cvs[j]; cvs[j] = t }
        med = (ncv % 2) ? cvs[(ncv + 1) / 2] : (cvs[ncv / 2] + cvs[ncv / 2 + 1]) / 2
        nnoisy = 0; for (i = 1; i <= ncv; i++) if (cvs[i] > th + 0) nnoisy++
        s = s sprintf("; spread (CV of %s): median %.1f %%, max %.1f %%; %d of %d points noisy (CV > %s %%)",
                      what, med, cvs[ncv], nnoisy, ncv, th)
        if (judged > ncv) s = s sprintf(", %d without a CV (fewer than 2 repetitions)", judged - ncv)
    }
    if (grid == "quick") s = s "; QUICK grid (reduced, a smoke test: not the figure's full sweep)" (quickgrid == "" ? "" : ": " quickgrid)
    if (bed != "") s = s "\n" bed
    print s
}
