# experiments/lib/tag.awk: the rows of one job. Input: the CSV files of the
# job's client processes (each with its header). Output: one header, every
# row, and the runner's columns exp_name exp_point exp_rep exp_procs
# exp_seq appended. A client process listed in `missing`
# ("K=STATUS=reason", one per client, each ended by the ASCII unit
# separator \037: a reason may hold '|', as rdma_bench's "use --verb
# send|send_imm" does; STATUS failed or skipped) gets one row of that
# status carrying the point's knob values (`knobs`: " name=value ...").
# `extra` ("name=value ...": the hook's knobs and what its teardown
# reported) adds columns after the runner's, the same values on every row.
# `size_points` ("SIZE=POINT ...", a job of several points that differ only
# in size_bytes: [run] group_sizes) gives each row the exp_point of its
# size_bytes; a missing client's failed row is then one per size, and a
# client process (0..procs-1) with rows for some sizes but none for
# another gets a failed row for that size.
function tailof(pt) { return csv_quote(exp_name) "," pt tail }
BEGIN {
    ncol = 0
    nsp = split(size_points, spl, " ")
    for (i = 1; i <= nsp; i++) { sz = substr(spl[i], 1, index(spl[i], "=") - 1); sp[sz] = substr(spl[i], index(spl[i], "=") + 1); szs[i] = sz }
    nx = split(extra, xs, " ")
    extra = "exp_name,exp_point,exp_rep,exp_procs,exp_seq"
    tail = "," exp_rep "," exp_procs "," exp_seq
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
    pt = exp_point
    if (nsp && ("size_bytes" in idx) && (out[idx["size_bytes"]] in sp)) {
        pt = sp[out[idx["size_bytes"]]]
        if ("proc_index" in idx) seen[out[idx["proc_index"]], out[idx["size_bytes"]]] = 1
    }
    print line "," tailof(pt)
}
# missing_row K STATUS WHY SIZE: one row of a client process that left none
# (SIZE: the size of a grouped job's point, else "")
function missing_row(k, st, why, size,    i, j, kn, line, pt) {
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
    pt = exp_point
    if (size != "") { pt = sp[size]; if ("size_bytes" in idx) out[idx["size_bytes"]] = size }
    out[idx["status"]] = st
    out[idx["reason"]] = csv_quote(why)
    line = out[1]
    for (i = 2; i <= ncol; i++) line = line "," out[i]
    print line "," tailof(pt)
}
END {
    nm = split(missing, ms, "\037")
    nk = split(knobs, ks, " ")
    for (m = 1; m <= nm; m++) {
        if (ms[m] == "") continue
        eq = index(ms[m], "=")
        k = substr(ms[m], 1, eq - 1); why = substr(ms[m], eq + 1)
        eq = index(why, "=")
        st = substr(why, 1, eq - 1); why = substr(why, eq + 1)
        gone[k] = 1
        if (!nsp) { missing_row(k, st, why, ""); continue }
        for (i = 1; i <= nsp; i++) missing_row(k, st, why, szs[i])
    }
    # a grouped job: every size of every process that has rows
    for (k = 0; k < procs + 0 && nsp; k++) {
        if (k in gone) continue
        for (i = 1; i <= nsp; i++)
            if (!((k, szs[i]) in seen))
                missing_row(k, "failed", "client " k " left no row for size " szs[i] " (its other sizes have rows)", szs[i])
    }
}
