# experiments/lib/aggregate.awk: raw.csv -> summary.csv, one row per point.
#
# A point's key: the runner's exp_name, exp_point and exp_procs when present
# (exp_point numbers the knob combination), else every config column and
# exp_procs; its config values are the first non-empty ones (an ok row's).
# Only client rows count (role "client" or empty), and of a process with
# several threads only its thread "all" row. Per repetition (exp_rep,
# else rep): mops and gbps are summed over the point's processes, latencies
# averaged over them; a repetition counts only if all its rows have status
# ok. Over the ok repetitions: median, min and max. A point is ok (every
# repetition ok), partial (some), skipped (none, and every other row
# skipped: e.g. knobs rdma_bench refuses) or failed; failed rows are
# counted, the first reason kept; an ok row with ops 0 (no operation
# completed in its window) counts as failed. device, kernel and host: the values seen (joined
# with '+' when they differ). Optional: keys_extra (more config columns,
# after access: e.g. a hook's knobs) and sums_extra (more metrics, summed
# over processes like mops: counts such as ops, server_recvs, ctr_retry)
# and means_extra (more metrics averaged over the process rows of a
# repetition: per-operation counts such as pcie_rd_per_op; a value that
# is not a number, e.g. NA, is left out).
# Common window (rows with win_start_srv_s/win_end_srv_s, rdma_bench
# --procs): per repetition, the processes' windows on the server's clock
# overlap by (latest start to earliest end) / longest window, each window
# first shrunk by its clock_err_us at both ends (what the server-clock
# times can be off by: the overlap is the one that is sure); a repetition
# below overlap_min (0.99) adds no rates (mops, gbps and the sums_extra
# metrics are left out for it). Two columns at the end of the summary, only
# when the rows have the window columns: overlap (the smallest of the ok
# repetitions; 1 for one process) and overlap_flag (empty; "low": some
# repetition below overlap_min, its rates left out; "unknown": several
# processes without window times).
# A point is never left empty without saying why: with those columns (or
# the receiver side, below) two more come before overlap: reps_rated (the
# ok repetitions whose rates counted: the number of values behind the
# medians of mops, gbps and the sums) and note (why some were left out:
# "overlap 0.9600 < 0.99 in 1 of 3 repetitions: rates from the other 2").
# When every ok repetition was below overlap_min and they had rates, the
# point's status is low-overlap instead of ok (or partial), its reason
# "overlap 0.9600 < 0.99: rate not trusted": the rule (rates only from a
# common window of 99 %) stands, and the console table, the figures and
# experiments/compare say why the point has no rate.
#
# Receiver side (UD/UC SEND and the verbs that consume receives): when
# sums_extra has server_recv_mops (the server's receive rate, one per
# process row), a derived metric recv_loss_pct follows the others: per
# repetition 100 x (1 - summed server_recv_mops / summed mops), the share of
# the senders' rate the server did not receive (negative when the server's
# rate, measured from its first to its last receive with the warm-up, came
# out above the senders' window rate); then median, min, max and CV like
# the rest. The two rates are not over the same interval (a server that saw
# only a short burst reports a huge rate), so a repetition's loss outside
# [loss_lo, loss_hi] = [-5, 100] % is not a loss: it is left out (NA) and
# the note says so, with the value.
#
# The responder's side: rows with the server's port counters (srv_ctr_rcv_pkts
# and srv_ctr_span_s, docs/csv.md) give a derived metric srv_delivered_mops
# after the others: per process row the packets the server's port received
# per second of its counter span, in operations (a READ's request is one
# packet; a WRITE or SEND of S bytes is ceil(S / path_mtu) packets),
# averaged over the process rows of a repetition (each holds the whole
# port: not summed); then median, min, max and CV like the rest. With
# client and server on one port both directions are in the count.
#
# Spread: per metric also the coefficient of variation over the ok
# repetitions (METRIC_cv_pct: sample standard deviation / mean x 100; empty
# with fewer than 2 ok repetitions or a zero mean), and per point `noisy`:
# yes when the CV of its headline metric (mops, else lat_p50_us) exceeds
# noisy_cv_pct (default 20, [run] noisy_cv_pct), no when it does not, empty
# when there is no CV to judge.
#
# Client-bound (Kalia et al., 5.3.1: inbound READs and WRITEs are limited
# first by the NIC's processing power, then by the InfiniBand bandwidth; a
# curve drawn from too few requesters shows their limit instead): a point's load is exp_procs x threads x window (the operations
# the requesters can keep in flight; an empty knob counts 1). Points of one
# experiment that differ only in load form a load series; when some series
# has two or more loads, a last column client_bound follows: yes when the
# next-higher load of the series raised the median Mops by more than
# client_bound_pct (default 10, [run] client_bound_pct) per cent: the
# requesters, not the responder, limited the point; no when it did not;
# empty for the highest load of a series, or where either point has no
# Mops.
function median(s,    n, a, i, j, t) {
    n = split(s, a, " ")
    for (i = 2; i <= n; i++) { t = a[i] + 0; for (j = i - 1; j >= 1 && a[j] + 0 > t; j--) a[j + 1] = a[j]; a[j + 1] = t }
    if (n == 0) return ""
    return (n % 2) ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
}
function minv(s,    n, a, i, m) { n = split(s, a, " "); if (n == 0) return ""; m = a[1] + 0; for (i = 2; i <= n; i++) if (a[i] + 0 < m) m = a[i] + 0; return m }
function maxv(s,    n, a, i, m) { n = split(s, a, " "); if (n == 0) return ""; m = a[1] + 0; for (i = 2; i <= n; i++) if (a[i] + 0 > m) m = a[i] + 0; return m }
# cv_pct("v1 v2 ..."): sample standard deviation / mean x 100, "" if fewer
# than 2 values or the mean is 0
function cv_pct(s,    n, a, i, m, d) {
    n = split(s, a, " ")
    if (n < 2) return ""
    m = 0; for (i = 1; i <= n; i++) m += a[i]; m /= n
    if (m == 0) return ""
    d = 0; for (i = 1; i <= n; i++) d += (a[i] - m) * (a[i] - m)
    return root(d / (n - 1)) / (m < 0 ? -m : m) * 100
}
# root(x): square root by Newton's method (busybox awk, the VM's only awk,
# may be built without sqrt)
function root(x,    r, i) {
    if (x <= 0) return 0
    r = (x > 1) ? x : 1
    for (i = 0; i < 200; i++) r = (r + x / r) / 2
    return r
}
function num(x) { return (x == "") ? "" : sprintf("%.6g", x) }
function inlist(a, n, v,    i) { for (i = 1; i <= n; i++) if (a[i] == v) return 1; return 0 }
function numx(x) { return (x == "") ? "" : sprintf("%.10g", x) }
function col(name) { return (name in idx) ? csv_val(f[idx[name]]) : "" }
function addset(arr, k, v) { if (v == "") return; if (!((k, v) in seen)) { seen[k, v] = 1; arr[k] = (arr[k] == "") ? v : arr[k] "+" v } }
# ---- common window of a point's processes (see the header) ----
# ov_row KEY REP: one ok process row's window into the repetition's
# latest start, earliest end and longest window
function ov_row(key, rep,    st, en, e) {
    ov_n[key, rep]++
    st = col("win_start_srv_s"); en = col("win_end_srv_s")
    if (st == "" || en == "") { ov_miss[key, rep] = 1; return }
    st += 0; en += 0; e = col("clock_err_us") / 1e6
    if (en - st > ov_l[key, rep] + 0) ov_l[key, rep] = en - st
    st += e; en -= e
    if (!((key, rep) in ov_s) || st > ov_s[key, rep]) ov_s[key, rep] = st
    if (!((key, rep) in ov_e) || en < ov_e[key, rep]) ov_e[key, rep] = en
}
# overlap KEY REP -> common interval / longest window (0..1); 1 for one
# process; "" when a window is missing or empty
function overlap(key, rep,    c) {
    if (ov_n[key, rep] + 0 <= 1) return 1
    if ((key, rep) in ov_miss || ov_l[key, rep] + 0 <= 0) return ""
    c = ov_e[key, rep] - ov_s[key, rep]
    return (c > 0 ? c : 0) / ov_l[key, rep]
}
# delivered(): this row's srv_delivered_mops (see the header), "" without
# the counters
function delivered(    pk, sp, mtu, sz, per) {
    pk = col("srv_ctr_rcv_pkts"); sp = col("srv_ctr_span_s")
    if (pk == "" || sp == "" || sp + 0 <= 0) return ""
    per = 1
    if (col("verb") != "read") {
        mtu = col("path_mtu") + 0; sz = col("size_bytes") + 0
        if (mtu > 0 && sz > mtu) per = int((sz + mtu - 1) / mtu)
    }
    return pk / per / sp / 1e6
}
# ---- client-bound: load series (see the header) ----
# load_of P -> exp_procs x threads x window of point P (an empty knob: 1)
function load_of(p,    key, l, i) {
    key = keys[p]
    l = (eprocs[key] == "") ? 1 : eprocs[key] + 0
    for (i = 1; i <= nconf; i++)
        if ((conf[i] == "threads" || conf[i] == "window") && cv[key, i] != "") l *= cv[key, i]
    return l
}
# series_of P -> the point's experiment and every config value but the load knobs
function series_of(p,    key, s, i) {
    key = keys[p]; s = ename[key]
    for (i = 1; i <= nconf; i++) if (conf[i] != "threads" && conf[i] != "window") s = s SUBSEP cv[key, i]
    return s
}
# client_bound_all: fills cbflag[P] for every point; returns 1 when some
# series has two or more loads (the column is then printed), else 0
function client_bound_all(    p, q, s, nxt, any, ld) {
    for (p = 1; p <= npoints; p++) { ser[p] = series_of(p); ld[p] = load_of(p); cbflag[p] = "" }
    any = 0
    for (p = 1; p <= npoints; p++) {
        nxt = 0
        for (q = 1; q <= npoints; q++)
            if (ser[q] == ser[p] && ld[q] > ld[p] && (nxt == 0 || ld[q] < ld[nxt])) nxt = q
        if (nxt == 0) continue
        any = 1
        if (medmops[p] == "" || medmops[nxt] == "" || medmops[p] + 0 <= 0) continue
        cbflag[p] = (medmops[nxt] + 0 > (medmops[p] + 0) * (1 + client_bound_pct / 100)) ? "yes" : "no"
    }
    return any
}
BEGIN {
    if (overlap_min == "") overlap_min = 0.99
    if (loss_lo == "") loss_lo = -5
    if (loss_hi == "") loss_hi = 100
    nconf = split("verb transport test size_bytes threads qps_per_thread emulated_peers postlist signal_interval inline window atomic_counters stride_bytes access", conf, " ")
    nk = split(keys_extra, ke, " ")
    for (i = 1; i <= nk; i++) if (!inlist(conf, nconf, ke[i])) conf[++nconf] = ke[i]
    nmet = split("mops gbps lat_p50_us lat_p99_us", met, " ")
    summed["mops"] = 1; summed["gbps"] = 1
    nbase = nmet
    nk = split(sums_extra, ke, " ")
    for (i = 1; i <= nk; i++) if (!inlist(met, nmet, ke[i])) { met[++nmet] = ke[i]; summed[ke[i]] = 1 }
    nk = split(means_extra, ke, " ")
    for (i = 1; i <= nk; i++) if (!inlist(met, nmet, ke[i])) { met[++nmet] = ke[i]; meaned[ke[i]] = 1 }
    # the receiver side's loss, derived per repetition (see the header)
    if (inlist(met, nmet, "server_recv_mops")) { met[++nmet] = "recv_loss_pct" }
    npoints = 0
    if (noisy_cv_pct == "") noisy_cv_pct = 20
    if (client_bound_pct == "") client_bound_pct = 10
}
NR == 1 {
    n = csv_split($0, h); for (i = 1; i <= n; i++) idx[h[i]] = i; has_win = ("win_start_srv_s" in idx)
    # the responder's delivered rate, from the server's port counters
    # (see the header)
    if (("srv_ctr_rcv_pkts" in idx) && ("srv_ctr_span_s" in idx) && !inlist(met, nmet, "srv_delivered_mops"))
        met[++nmet] = "srv_delivered_mops"
    next
}
/^[[:space:]]*$/ { next }
{
    csv_split($0, f)
    role = col("role")
    if (role != "" && role != "client") next
    # with several threads a process writes one row per thread and one
    # "all" row: only the latter counts
    th = col("thread")
    if (th != "" && th != "all") next
    # the runner's point number names the knob combination: rows of one
    # point stay together even where a failed row lacks some config values
    if (col("exp_point") != "") key = col("exp_name") SUBSEP col("exp_point") SUBSEP col("exp_procs")
    else {
        key = ""
        for (i = 1; i <= nconf; i++) key = key SUBSEP col(conf[i])
        key = key SUBSEP col("exp_procs")
    }
    if (!(key in first)) {
        first[key] = ++npoints; keys[npoints] = key
        ename[key] = col("exp_name"); epoint[key] = col("exp_point"); eprocs[key] = col("exp_procs")
    }
    # config values: the first non-empty one seen (an ok row's, if any, wins)
    for (i = 1; i <= nconf; i++) {
        v = col(conf[i])
        if (v != "" && (cv[key, i] == "" || (col("status") == "ok" && !cvok[key, i]))) {
            cv[key, i] = v
            if (col("status") == "ok") cvok[key, i] = 1
        }
    }
    rep = ("exp_rep" in idx) ? col("exp_rep") : col("rep")
    if (!((key, rep) in repseen)) { repseen[key, rep] = 1; reps[key] = reps[key] " " rep; nreps[key]++ }
    st = col("status")
    # an ok row whose window completed no operation (rows of an rdma_bench
    # before it failed such a point itself): not a measurement
    if (st == "ok" && ("ops" in idx) && col("ops") != "" && col("ops") + 0 == 0) {
        st = "failed"
        if (reason[key] == "") reason[key] = "no operation completed in the window (ops 0)"
    }
    if (st != "ok") {
        bad[key, rep] = 1
        if (st == "skipped") skipped_rows[key]++; else failed_rows[key]++
        if (reason[key] == "") reason[key] = (col("reason") != "") ? col("reason") : "status " st
    } else if (has_win) ov_row(key, rep)
    for (m = 1; m <= nmet; m++) {
        v = (met[m] == "srv_delivered_mops") ? delivered() : col(met[m])
        if (v == "") continue
        if ((met[m] in meaned) && v !~ /^[-+]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][-+]?[0-9]+)?$/) continue
        sum[key, rep, met[m]] += v; cnt[key, rep, met[m]]++
    }
    addset(device, key, col("device")); addset(kernel, key, col("kernel")); addset(host, key, col("host"))
}
END {
    hdr = "exp_name,exp_point"
    for (i = 1; i <= nconf; i++) hdr = hdr "," conf[i]
    hdr = hdr ",exp_procs,reps,reps_ok,rows_failed,status,reason,noisy"
    for (m = 1; m <= nmet; m++) hdr = hdr "," met[m] "_median," met[m] "_min," met[m] "_max," met[m] "_cv_pct"
    has_loss = inlist(met, nmet, "recv_loss_pct")
    hdr = hdr ",device,kernel,host" ((has_win || has_loss) ? ",reps_rated,note" : "") (has_win ? ",overlap,overlap_flag" : "")
    for (p = 1; p <= npoints; p++) {
        key = keys[p]
        nr = split(reps[key], rl, " ")
        ok = 0
        ovp = ""; ovflag = ""; rated = 0; nlow = 0; lowrates = 0; lowov = ""; note = ""
        for (m = 1; m <= nmet; m++) vals[met[m]] = ""
        for (r = 1; r <= nr; r++) {
            if ((key, rl[r]) in bad) continue
            ok++
            ov = has_win ? overlap(key, rl[r]) : 1
            if (ov == "") { if (ovflag == "") ovflag = "unknown" }
            else if (ovp == "" || ov < ovp) ovp = ov
            low = (ov != "" && ov < overlap_min)
            if (low) {
                ovflag = "low"; nlow++
                if (lowov == "" || ov < lowov) lowov = ov
                if ((key, rl[r], "mops") in cnt || (key, rl[r], "gbps") in cnt) lowrates = 1
            } else rated++
            for (m = 1; m <= nmet; m++) {
                if (met[m] == "recv_loss_pct") {
                    # from this repetition's two summed rates (both present)
                    if (low || !((key, rl[r], "mops") in cnt) || !((key, rl[r], "server_recv_mops") in cnt)) continue
                    if (sum[key, rl[r], "mops"] + 0 <= 0) continue
                    v = 100 * (1 - sum[key, rl[r], "server_recv_mops"] / sum[key, rl[r], "mops"])
                    if (v < loss_lo || v > loss_hi) {
                        note = note (note == "" ? "" : "; ") sprintf("recv_loss_pct of repetition %s (%.6g %%) outside [%s, %s] %%: left out (the server's receive rate, first to last receive, is not over the senders' window)", rl[r], v, loss_lo, loss_hi)
                        continue
                    }
                    vals[met[m]] = vals[met[m]] " " v
                    continue
                }
                if (!((key, rl[r], met[m]) in cnt)) continue
                if (low && (met[m] in summed)) continue
                v = sum[key, rl[r], met[m]]
                if (!(met[m] in summed)) v = v / cnt[key, rl[r], met[m]]
                vals[met[m]] = vals[met[m]] " " v
            }
        }
        status = (ok == nr) ? "ok" : (ok > 0 ? "partial" : (failed_rows[key] + 0 == 0 ? "skipped" : "failed"))
        why = reason[key]
        # no trusted rate: every ok repetition's windows overlapped too little
        if (nlow > 0) {
            if (rated == 0 && lowrates) {
                status = "low-overlap"
                why = sprintf("overlap %.4f < %s: rate not trusted (%d of %d repetitions)", lowov, overlap_min, nlow, ok) (why == "" ? "" : "; " why)
            }
            note = sprintf("overlap %.4f < %s in %d of %d repetitions: %s", lowov, overlap_min, nlow, ok,
                           rated == 0 ? "no trusted rate" : "rates from the other " rated) (note == "" ? "" : "; " note)
        }
        cfg = csv_quote(epoint[key])
        for (i = 1; i <= nconf; i++) cfg = cfg "," csv_quote(cv[key, i])
        cfg = cfg "," csv_quote(eprocs[key])
        # noisy: the headline metric's spread over the ok repetitions:
        # Mops (rdma_bench), else Mrps (rdma_seq's rows have no Mops; the
        # subtitle's spread and the rings then speak of the same number),
        # else p50 latency (latency-only points)
        hm = (vals["mops"] != "") ? "mops" : ((vals["mrps"] != "") ? "mrps" : "lat_p50_us")
        cvh = cv_pct(vals[hm])
        noisy = (cvh == "") ? "" : (cvh > noisy_cv_pct + 0 ? "yes" : "no")
        line = csv_quote(ename[key]) "," cfg "," nr "," ok "," (failed_rows[key] + 0) "," status "," csv_quote(why) "," noisy
        for (m = 1; m <= nmet; m++) {
            cvm = cv_pct(vals[met[m]]); cvm = (cvm == "") ? "" : sprintf("%.1f", cvm)
            if (m <= nbase) line = line "," num(median(vals[met[m]])) "," num(minv(vals[met[m]])) "," num(maxv(vals[met[m]])) "," cvm
            else line = line "," numx(median(vals[met[m]])) "," numx(minv(vals[met[m]])) "," numx(maxv(vals[met[m]])) "," cvm
        }
        line = line "," csv_quote(device[key]) "," csv_quote(kernel[key]) "," csv_quote(host[key])
        if (has_win || has_loss) line = line "," rated "," csv_quote(note)
        if (has_win) line = line "," (ovp == "" ? "" : sprintf("%.4f", ovp)) "," ovflag
        out[p] = line; medmops[p] = median(vals["mops"])
    }
    has_cb = client_bound_all()
    print hdr (has_cb ? ",client_bound" : "")
    for (p = 1; p <= npoints; p++) print out[p] (has_cb ? "," cbflag[p] : "")
}
