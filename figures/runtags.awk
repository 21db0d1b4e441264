# figures/runtags.awk: labels for the reference rows of original runs other
# than the main one (the run with most rows), in a preset's generic figure
# (figures/plot -> sweep.gp): such a run's points sit apart from the main
# run's lines (swarm-32b_read's 28-thread points come from a run with 90
# emulated machines, not 6), and its key entry is the main run's.
# Input: the reference CSV (csv.awk's parser); -v x=, s=, p= the x, series
# and panel columns (not part of a tag); -v per=process: y per client
# process (exp_procs), as sweep.gp draws it. Output, tab-separated, one line per
# (other run, panel): panel value ("-" without panels), x and y of the
# run's highest point in that panel, the tag: the knobs whose value in
# that run is none of the main run's ("emulated_peers=90", "; " between), then
# "(another original run)", and the side the text goes from the point: l
# (text starts there, running right) when the point is in the left half of
# the rows' x range (on a log scale when every x is positive), r (text ends
# there) when in the right half; a label never runs over the y axis or off
# the right edge. A run whose knobs all occur in the main run gets no line.
NR == 1 {
    n = csv_split($0, h)
    for (i = 1; i <= n; i++) {
        idx[h[i]] = i
        if (h[i] ~ /^(verb|transport|test|size_bytes|threads|qps_per_thread|emulated_peers|postlist|signal_interval|inline|window|atomic_counters|stride_bytes|access|exp_procs)$/ &&
            h[i] != x && h[i] != s && h[i] != p) knob[++nk] = h[i]
    }
    next
}
{
    csv_split($0, f)
    r = csv_val(f[idx["exp_name"]]); y = csv_val(f[idx["mops_median"]])
    if (r == "" || y == "") next
    # per = process: the figure's y, the total over the point's processes / processes
    if (per == "process" && csv_val(f[idx["exp_procs"]]) + 0 > 0) y = y / csv_val(f[idx["exp_procs"]])
    rows[r]++
    for (k = 1; k <= nk; k++) {
        v = csv_val(f[idx[knob[k]]])
        if (!((r, knob[k], v) in seen)) { seen[r, knob[k], v] = 1; nval[r, knob[k]]++; one[r, knob[k]] = v }
    }
    pv = (p == "") ? "-" : csv_val(f[idx[p]])
    xv = csv_val(f[idx[x]])
    if (xv != "") {
        if (nx++ == 0 || xv + 0 < xlo) xlo = xv + 0
        if (nx == 1 || xv + 0 > xhi) xhi = xv + 0
    }
    if (!((r, pv) in ymax) || y + 0 > ymax[r, pv] + 0) { ymax[r, pv] = y; xat[r, pv] = xv }
    if (!((r SUBSEP pv) in havep)) { havep[r SUBSEP pv] = 1; plist[r] = plist[r] SUBSEP pv }
}
END {
    for (r in rows) if (main == "" || rows[r] > rows[main]) main = r
    # -v runs=1: instead, the runs, the main one first, then the others
    # by name, one "NAME<TAB>TAG<TAB>PANELS" line each: TAG the knobs holding one
    # value in that run and another in each other run ("exp_procs=6"),
    # "; " between, for the key (sweep.gp: one style per run)
    if (runs) {
        if (main == "") exit
        nr = 0; order[++nr] = main
        ns = 0; for (r in rows) if (r != main) sorted[++ns] = r
        for (i = 2; i <= ns; i++) for (j = i; j > 1 && sorted[j - 1] > sorted[j]; j--) { t = sorted[j]; sorted[j] = sorted[j - 1]; sorted[j - 1] = t }
        for (i = 1; i <= ns; i++) order[++nr] = sorted[i]
        for (i = 1; i <= nr; i++) {
            r = order[i]; tag = ""
            for (k = 1; k <= nk; k++) {
                c = knob[k]
                if (nval[r, c] != 1 || one[r, c] == "") continue
                apart = 1
                for (q in rows) if (q != r && (q, c, one[r, c]) in seen) apart = 0
                if (apart) tag = tag (tag == "" ? "" : "; ") c "=" one[r, c]
            }
            # the panels the run has rows in, "|16|32|" (sweep.gp: its key
            # entry only in those panels)
            pl = plist[r]; gsub(SUBSEP, "|", pl)
            printf "%s\t%s\t%s|\n", r, tag, pl
        }
        exit
    }
    print "panel,x,y,text,side"    # a header: common.gp reads every file's first line as one
    logx = (xlo > 0)
    for (r in rows) {
        if (r == main) continue
        tag = ""
        for (k = 1; k <= nk; k++) {
            c = knob[k]
            if (nval[r, c] == 1 && one[r, c] != "" && !((main, c, one[r, c]) in seen))
                tag = tag (tag == "" ? "" : "; ") c "=" one[r, c]
        }
        if (tag == "") continue
        gsub(/,/, ";", tag)
        np = split(substr(plist[r], 2), ps, SUBSEP)
        for (i = 1; i <= np; i++) {
            xv = xat[r, ps[i]] + 0
            mid = logx ? sqrt(xlo * xhi) : (xlo + xhi) / 2
            printf "%s,%s,%s,%s (another original run),%s\n", ps[i], xat[r, ps[i]], ymax[r, ps[i]], tag, (xv < mid ? "l" : "r")
        }
    }
}
