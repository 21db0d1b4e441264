# experiments/lib/tag.awk: the rows of one job. Input: the CSV files of the
# job's client processes (each with its header). Output: one header, every
# row, and the runner's columns exp_name exp_point exp_rep exp_procs
# exp_seq appended. A client process listed in `missing`
# ("K=STATUS=reason|...", STATUS failed or skipped) gets one row of that
# status carrying the point's knob values (`knobs`: " name=value ...").
# `extra` ("name=value ...": the hook's knobs and what its teardown
# reported) adds columns after the runner's, the same values on every row.
BEGIN {
    ncol = 0
    nx = split(extra, xs, " ")
    extra = "exp_name,exp_point,exp_rep,exp_procs,exp_seq"
    tail = csv_quote(exp_name) "," exp_point "," exp_rep "," exp_procs "," exp_seq
    for (j = 1; j <= nx; j++) {
        xn = substr(xs[j], 1, index(xs[j], "=") - 1)
        if (xn == "" || (xn in xdone)) continue
        xdone[xn] = 1
        extra = extra "," xn
        tail = tail "," csv_quote(substr(xs[j], index(xs[j], "=") + 1))
    }
}
FNR == 1 {
    n = csv_split($0, h)
    if (ncol == 0) {
        for (i = 1; i <= n; i++) { col[i] = h[i]; idx[h[i]] = i }
        ncol = n
        print $0 "," extra
    }
    for (i = 1; i <= n; i++) map[i] = h[i]
    nmap = n
    next
}
/^[[:space:]]*$/ { next }
{
    n = csv_split($0, f)
    for (i = 1; i <= ncol; i++) out[i] = ""
    for (i = 1; i <= n && i <= nmap; i++) if (map[i] in idx) out[idx[map[i]]] = f[i]
    line = out[1]
    for (i = 2; i <= ncol; i++) line = line "," out[i]
    print line "," tail
}
END {
    nm = split(missing, ms, "|")
    nk = split(knobs, ks, " ")
    for (m = 1; m <= nm; m++) {
        if (ms[m] == "") continue
        eq = index(ms[m], "=")
        k = substr(ms[m], 1, eq - 1); why = substr(ms[m], eq + 1)
        eq = index(why, "=")
        st = substr(why, 1, eq - 1); why = substr(why, eq + 1)
        if (ncol == 0) {
            hdr = "schema_version,run_id,proc_index,role,rep"
            ncol = 5
            split(hdr, col, ","); for (i = 1; i <= ncol; i++) idx[col[i]] = i
            for (j = 1; j <= nk; j++) {
                kn = substr(ks[j], 1, index(ks[j], "=") - 1)
                if (kn ~ /^--/ || kn == "procs" || kn == "iters" || kn == "qps" || kn == "duration_s" || (kn in xdone)) continue
                if (!(kn in idx)) { col[++ncol] = kn; idx[kn] = ncol; hdr = hdr "," kn }
            }
            if (!("status" in idx)) { col[++ncol] = "status"; idx["status"] = ncol; hdr = hdr ",status" }
            if (!("reason" in idx)) { col[++ncol] = "reason"; idx["reason"] = ncol; hdr = hdr ",reason" }
            print hdr "," extra
        }
        for (i = 1; i <= ncol; i++) out[i] = ""
        if ("run_id" in idx) out[idx["run_id"]] = csv_quote(run_id)
        if ("proc_index" in idx) out[idx["proc_index"]] = k
        if ("role" in idx) out[idx["role"]] = "client"
        for (j = 1; j <= nk; j++) {
            kn = substr(ks[j], 1, index(ks[j], "=") - 1)
            if (kn in idx) out[idx[kn]] = substr(ks[j], index(ks[j], "=") + 1)
        }
        out[idx["status"]] = st
        out[idx["reason"]] = csv_quote(why)
        line = out[1]
        for (i = 2; i <= ncol; i++) line = line "," out[i]
        print line "," tail
    }
}
