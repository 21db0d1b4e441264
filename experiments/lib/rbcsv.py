#!/usr/bin/env python3
"""experiments/lib/rbcsv.py: the runner's CSV tools, one CSV reader.

Every program here reads CSV through read_csv() (Python's csv module) and
writes a field through quote() (quoted when it holds a comma, a quote, CR
or LF: docs/csv.md, as rdma_bench's writer does). Subcommands, each with
the inputs and outputs of the awk program it replaced:

  aggregate FILE   raw.csv -> summary.csv, one row per point
  tag FILE...      the rows of one job, with the runner's columns
  merge FILE...    concatenate CSV files whose headers may differ
  show FILE        summary.csv as a table for people (count=1: counts)
  sortx FILE       each row prefixed with a sort key for `sort`
  col FILE         the values of one column

Settings come as `-v NAME=VALUE` (as awk's), e.g.
  rbcsv.py aggregate -v sums_extra=server_recv_mops raw.csv > summary.csv
A FILE of "-" (or none, for the one-file programs) is standard input.

Numbers follow the awk programs this replaced, so that summaries stay
byte-identical: a per-repetition value passes through "%.6g" (awk's
CONVFMT; integers stay integers) before medians, min, max and CVs are
taken, medians and extremes of the base metrics print with "%.6g", the
others with "%.10g", CVs with "%.1f" and overlaps with "%.4f".

Exit status: 0, 2 on usage errors (an unknown subcommand or setting).
"""
import csv
import math
import re
import sys

# ---------------------------------------------------------------- reading


def read_csv(path):
    """Yield (line, fields) for every line of PATH ("-": stdin): the line
    as written (end of line removed) and its fields, quotes removed."""
    f = sys.stdin if path == "-" else open(path, newline="", encoding="utf-8",
                                           errors="surrogateescape")
    try:
        for raw in f:
            line = raw.rstrip("\r\n")
            fields = next(csv.reader([line]), [])
            yield line, fields
    finally:
        if f is not sys.stdin:
            f.close()


def blank(line):
    """A line of white space only: the awk programs skipped it."""
    return line.strip() == ""


def quote(s):
    """S as one CSV field: quoted when it holds a comma, quote, CR or LF."""
    s = str(s)
    if any(c in s for c in ',"\r\n'):
        return '"' + s.replace('"', '""') + '"'
    return s


def write(line):
    sys.stdout.write(line + "\n")


_NUM = re.compile(r"\s*([-+]?(?:(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?|inf(?:inity)?|nan))",
                  re.IGNORECASE)


def num(s):
    """A field's numeric value as awk reads it: the longest leading
    number, 0 when there is none."""
    if isinstance(s, (int, float)):
        return float(s)
    m = _NUM.match(s)
    return float(m.group(1)) if m else 0.0


def convfmt(x):
    """A number as awk turns it into a string (CONVFMT "%.6g"; an integral
    value within a long's range as an integer)."""
    if math.isfinite(x) and x == int(x) and abs(x) < 2.0 ** 63:
        return "%d" % int(x)
    return "%.6g" % x


def rounded(x):
    """X after awk's number -> string -> number round trip."""
    return float(convfmt(x))


class Header:
    """A CSV header: column name -> field index (the last one of a name)."""

    def __init__(self, names):
        self.names = list(names)
        self.idx = {n: i for i, n in enumerate(self.names)}

    def __contains__(self, name):
        return name in self.idx

    def get(self, fields, name):
        i = self.idx.get(name)
        return fields[i] if i is not None and i < len(fields) else ""

# ---------------------------------------------------------------- aggregate

# aggregate: raw.csv -> summary.csv, one row per point.
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
CONF = ("verb transport test size_bytes threads qps_per_thread emulated_peers postlist "
        "signal_interval inline window atomic_counters stride_bytes access").split()
BASE_METRICS = ["mops", "gbps", "lat_p50_us", "lat_p99_us"]


def cv_pct(vals):
    """Sample standard deviation / mean x 100; None for fewer than 2
    values or a zero mean."""
    import statistics  # here: its imports would slow every tag and col call
    if len(vals) < 2:
        return None
    m = statistics.fmean(vals)
    if m == 0:
        return None
    return statistics.stdev(vals) / abs(m) * 100


def median(vals):
    import statistics
    return statistics.median(vals) if vals else None


def fmt(x, spec):
    return "" if x is None else spec % x


class Point:
    """One point of a summary: its key, config values and per-repetition
    sums (the awk program's arrays, per point)."""

    def __init__(self, name, point, procs, nconf):
        self.name, self.point, self.procs = name, point, procs
        self.cv = [""] * nconf
        self.cvok = [False] * nconf
        self.reps = []
        self.bad = set()
        self.skipped_rows = 0
        self.failed_rows = 0
        self.reason = ""
        self.sum = {}
        self.cnt = {}
        self.ov = {}
        self.seen = {"device": [], "kernel": [], "host": []}


def ov_row(p, rep, get):
    """One ok process row's window into the repetition's latest start,
    earliest end and longest window (see aggregate's header, docs/csv.md)."""
    o = p.ov.setdefault(rep, {"n": 0, "miss": False, "l": 0.0, "s": None, "e": None})
    o["n"] += 1
    st, en = get("win_start_srv_s"), get("win_end_srv_s")
    if st == "" or en == "":
        o["miss"] = True
        return
    st, en, e = num(st), num(en), num(get("clock_err_us")) / 1e6
    if en - st > o["l"]:
        o["l"] = en - st
    st += e
    en -= e
    if o["s"] is None or st > o["s"]:
        o["s"] = st
    if o["e"] is None or en < o["e"]:
        o["e"] = en


def overlap(p, rep):
    """Common interval / longest window (0..1); 1 for one process; None
    when a window is missing or empty."""
    o = p.ov.get(rep)
    if o is None or o["n"] <= 1:
        return 1
    if o["miss"] or o["l"] <= 0:
        return None
    c = o["e"] - o["s"]
    return (c if c > 0 else 0) / o["l"]


def delivered(get):
    """This row's srv_delivered_mops: packets the server's port received
    per second of its counter span, in operations (a READ is one packet, a
    WRITE or SEND of S bytes ceil(S / path_mtu)); None without counters."""
    pk, sp = get("srv_ctr_rcv_pkts"), get("srv_ctr_span_s")
    if pk == "" or sp == "" or num(sp) <= 0:
        return None
    per = 1
    if get("verb") != "read":
        mtu, sz = num(get("path_mtu")), num(get("size_bytes"))
        if mtu > 0 and sz > mtu:
            per = int((sz + mtu - 1) / mtu)
    return num(pk) / per / num(sp) / 1e6


def client_bound(points, conf, medmops, pct):
    """Per point "yes"/"no"/"" (see aggregate's header) and whether some
    load series has two or more loads."""
    ser, ld = [], []
    for p in points:
        ser.append((p.name,) + tuple(v for c, v in zip(conf, p.cv) if c not in ("threads", "window")))
        load = 1.0 if p.procs == "" else num(p.procs)
        for c, v in zip(conf, p.cv):
            if c in ("threads", "window") and v != "":
                load *= num(v)
        ld.append(load)
    flags, anyseries = [""] * len(points), False
    for i in range(len(points)):
        nxt = None
        for j in range(len(points)):
            if ser[j] == ser[i] and ld[j] > ld[i] and (nxt is None or ld[j] < ld[nxt]):
                nxt = j
        if nxt is None:
            continue
        anyseries = True
        if medmops[i] is None or medmops[nxt] is None or medmops[i] <= 0:
            continue
        flags[i] = "yes" if medmops[nxt] > medmops[i] * (1 + pct / 100) else "no"
    return flags, anyseries


# a number as the rows write one (a meaned metric skips anything else, e.g. NA)
NUMBER = re.compile(r"^[-+]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][-+]?[0-9]+)?$")


def aggregate_rows(path, conf, met, meaned=frozenset()):
    """Read raw.csv's client rows into points; returns (points, header).
    meaned: metrics averaged over the process rows, whose values that are
    not numbers are left out."""
    points, bykey, hdr = [], {}, None
    for line, f in read_csv(path):
        if hdr is None:
            hdr = Header(f)
            if ("srv_ctr_rcv_pkts" in hdr and "srv_ctr_span_s" in hdr
                    and "srv_delivered_mops" not in met):
                met.append("srv_delivered_mops")
            continue
        if blank(line):
            continue

        def get(name, f=f):
            return hdr.get(f, name)
        role = get("role")
        if role not in ("", "client"):
            continue
        # of a process with several threads only its "all" row counts
        if get("thread") not in ("", "all"):
            continue
        # the runner's point number names the knob combination: rows of
        # one point stay together where a failed row lacks config values
        if get("exp_point") != "":
            key = (get("exp_name"), get("exp_point"), get("exp_procs"))
        else:
            key = tuple(get(c) for c in conf) + (get("exp_procs"),)
        p = bykey.get(key)
        if p is None:
            p = bykey[key] = Point(get("exp_name"), get("exp_point"), get("exp_procs"), len(conf))
            points.append(p)
        status = get("status")
        # config values: the first non-empty one (an ok row's wins)
        for i, c in enumerate(conf):
            v = get(c)
            if v != "" and (p.cv[i] == "" or (status == "ok" and not p.cvok[i])):
                p.cv[i] = v
                if status == "ok":
                    p.cvok[i] = True
        rep = get("exp_rep") if "exp_rep" in hdr else get("rep")
        if rep not in p.reps:
            p.reps.append(rep)
        st = status
        # an ok row whose window completed no operation: not a measurement
        if st == "ok" and "ops" in hdr and get("ops") != "" and num(get("ops")) == 0:
            st = "failed"
            if p.reason == "":
                p.reason = "no operation completed in the window (ops 0)"
        if st != "ok":
            p.bad.add(rep)
            if st == "skipped":
                p.skipped_rows += 1
            else:
                p.failed_rows += 1
            if p.reason == "":
                p.reason = get("reason") if get("reason") != "" else "status " + st
        elif "win_start_srv_s" in hdr:
            ov_row(p, rep, get)
        for m in met:
            v = delivered(get) if m == "srv_delivered_mops" else get(m)
            if v is None or v == "":
                continue
            if m in meaned and not NUMBER.match(v):
                continue
            p.sum[rep, m] = p.sum.get((rep, m), 0.0) + num(v)
            p.cnt[rep, m] = p.cnt.get((rep, m), 0) + 1
        for c in ("device", "kernel", "host"):
            v = get(c)
            if v != "" and v not in p.seen[c]:
                p.seen[c].append(v)
    return points, (hdr or Header([]))


def aggregate(opts, files):
    """raw.csv -> summary.csv (see the subcommand's header in docs/csv.md
    and experiments/README.md)."""
    overlap_min_s = opts.get("overlap_min") or "0.99"
    loss_lo_s, loss_hi_s = opts.get("loss_lo") or "-5", opts.get("loss_hi") or "100"
    overlap_min, loss_lo, loss_hi = num(overlap_min_s), num(loss_lo_s), num(loss_hi_s)
    noisy_cv = num(opts.get("noisy_cv_pct") or "20")
    cb_pct = num(opts.get("client_bound_pct") or "10")
    conf = list(CONF)
    for k in opts.get("keys_extra", "").split():
        if k not in conf:
            conf.append(k)
    met = list(BASE_METRICS)
    summed = {"mops", "gbps"}
    for k in opts.get("sums_extra", "").split():
        if k not in met:
            met.append(k)
            summed.add(k)
    # means_extra: metrics averaged over a repetition's process rows
    # (per-operation counts such as pcie_rd_per_op)
    meaned = set()
    for k in opts.get("means_extra", "").split():
        if k not in met:
            met.append(k)
            meaned.add(k)
    # the receiver side's loss, derived per repetition
    if "server_recv_mops" in met:
        met.append("recv_loss_pct")
    points, hdr = aggregate_rows(files[0] if files else "-", conf, met, meaned)
    has_win = "win_start_srv_s" in hdr
    has_loss = "recv_loss_pct" in met

    head = "exp_name,exp_point," + ",".join(conf) + ",exp_procs,reps,reps_ok,rows_failed,status,reason,noisy"
    for m in met:
        head += ",%s_median,%s_min,%s_max,%s_cv_pct" % (m, m, m, m)
    head += ",device,kernel,host" + (",reps_rated,note" if has_win or has_loss else "")
    head += ",overlap,overlap_flag" if has_win else ""
    out, medmops = [], []
    for p in points:
        reps = " ".join(p.reps).split()
        ok = rated = nlow = 0
        ovp = lowov = None
        ovflag = note = ""
        lowrates = False
        vals = {m: [] for m in met}
        for r in reps:
            if r in p.bad:
                continue
            ok += 1
            ov = overlap(p, r) if has_win else 1
            if ov is None:
                ovflag = ovflag or "unknown"
            elif ovp is None or ov < ovp:
                ovp = ov
            low = ov is not None and ov < overlap_min
            if low:
                ovflag = "low"
                nlow += 1
                if lowov is None or ov < lowov:
                    lowov = ov
                if (r, "mops") in p.cnt or (r, "gbps") in p.cnt:
                    lowrates = True
            else:
                rated += 1
            for m in met:
                if m == "recv_loss_pct":
                    if low or (r, "mops") not in p.cnt or (r, "server_recv_mops") not in p.cnt:
                        continue
                    if p.sum[r, "mops"] <= 0:
                        continue
                    v = 100 * (1 - p.sum[r, "server_recv_mops"] / p.sum[r, "mops"])
                    if v < loss_lo or v > loss_hi:
                        note += ("; " if note else "") + (
                            "recv_loss_pct of repetition %s (%.6g %%) outside [%s, %s] %%: left out "
                            "(the server's receive rate, first to last receive, is not over the "
                            "senders' window)" % (r, v, loss_lo_s, loss_hi_s))
                        continue
                    vals[m].append(rounded(v))
                    continue
                if (r, m) not in p.cnt or (low and m in summed):
                    continue
                v = p.sum[r, m]
                if m not in summed:
                    v = v / p.cnt[r, m]
                vals[m].append(rounded(v))
        if ok == len(reps):
            status = "ok"
        elif ok > 0:
            status = "partial"
        else:
            status = "skipped" if p.failed_rows == 0 else "failed"
        why = p.reason
        # no trusted rate: every ok repetition's windows overlapped too little
        if nlow > 0:
            if rated == 0 and lowrates:
                status = "low-overlap"
                why = ("overlap %.4f < %s: rate not trusted (%d of %d repetitions)"
                       % (lowov, overlap_min_s, nlow, ok)) + ("; " + why if why else "")
            note = ("overlap %.4f < %s in %d of %d repetitions: %s"
                    % (lowov, overlap_min_s, nlow, ok,
                       "no trusted rate" if rated == 0 else "rates from the other %d" % rated)
                    ) + ("; " + note if note else "")
        # noisy: the headline metric's spread (Mops, else Mrps, else p50)
        hm = "mops" if vals["mops"] else ("mrps" if vals.get("mrps") else "lat_p50_us")
        cvh = cv_pct(vals[hm])
        noisy = "" if cvh is None else ("yes" if cvh > noisy_cv else "no")
        cells = [quote(p.name), quote(p.point)] + [quote(v) for v in p.cv] + [quote(p.procs)]
        cells += [str(len(reps)), str(ok), str(p.failed_rows), status, quote(why), noisy]
        for i, m in enumerate(met):
            spec = "%.6g" if i < len(BASE_METRICS) else "%.10g"
            v = vals[m]
            cells += [fmt(median(v), spec), fmt(min(v) if v else None, spec),
                      fmt(max(v) if v else None, spec), fmt(cv_pct(v), "%.1f")]
        cells += [quote("+".join(p.seen[c])) for c in ("device", "kernel", "host")]
        if has_win or has_loss:
            cells += [str(rated), quote(note)]
        if has_win:
            cells += [fmt(ovp, "%.4f"), ovflag]
        out.append(",".join(cells))
        medmops.append(median(vals["mops"]))
    flags, has_cb = client_bound(points, conf, medmops, cb_pct)
    write(head + (",client_bound" if has_cb else ""))
    for line, flag in zip(out, flags):
        write(line + ("," + flag if has_cb else ""))

# ---------------------------------------------------------------- tag


# tag: the rows of one job. Input: the CSV files of the
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
def tag(opts, files):
    """The rows of one job: one header, every row of the client processes'
    files, the runner's columns appended; a missing client process gets a
    row of its status (see job.sh)."""
    exp_name, exp_point = opts.get("exp_name", ""), opts.get("exp_point", "")
    size_points, szs = {}, []
    for w in opts.get("size_points", "").split():
        sz, _, pt = w.partition("=")
        size_points[sz] = pt
        szs.append(sz)
    extra = "exp_name,exp_point,exp_rep,exp_procs,exp_seq"
    tail = ",%s,%s,%s" % (opts.get("exp_rep", ""), opts.get("exp_procs", ""), opts.get("exp_seq", ""))
    xdone = set()
    for w in opts.get("extra", "").split():
        xn, eq, xv = w.partition("=")
        if not eq or xn == "" or xn in xdone:
            continue
        xdone.add(xn)
        extra += "," + xn
        tail += "," + quote(xv)

    def tail_of(pt):
        return quote(exp_name) + "," + pt + tail
    cols, seen = None, set()
    for path in files:
        fmap = None
        for line, f in read_csv(path):
            if fmap is None:
                fmap = f
                if cols is None:
                    cols = Header(f)
                    write(line + "," + extra)
                continue
            if blank(line):
                continue
            out = [""] * len(cols.names)
            for name, v in zip(fmap, f):
                if name in cols:
                    out[cols.idx[name]] = quote(v)
            pt = exp_point
            size = out[cols.idx["size_bytes"]] if "size_bytes" in cols else None
            if szs and size in size_points:
                pt = size_points[size]
                if "proc_index" in cols:
                    seen.add((out[cols.idx["proc_index"]], size))
            write(",".join(out) + "," + tail_of(pt))
    knobs = opts.get("knobs", "").split()
    state = {"cols": cols}

    def missing_row(k, st, why, size):
        if state["cols"] is None:
            names = "schema_version,run_id,proc_index,role,rep".split(",")
            for kv in knobs:
                kn = kv.partition("=")[0]
                if (kn.startswith("--") or kn in ("procs", "iters", "qps", "duration_s")
                        or kn in xdone or kn in names):
                    continue
                names.append(kn)
            names += [c for c in ("status", "reason") if c not in names]
            state["cols"] = Header(names)
            write(",".join(names) + "," + extra)
        c = state["cols"]
        out = [""] * len(c.names)

        def put(name, v):
            if name in c:
                out[c.idx[name]] = v
        put("run_id", quote(opts.get("run_id", "")))
        put("proc_index", k)
        put("role", "client")
        for kv in knobs:
            kn, _, v = kv.partition("=")
            put(kn, v)
        pt = exp_point
        if size != "":
            pt = size_points.get(size, "")
            put("size_bytes", size)
        put("status", st)
        put("reason", quote(why))
        write(",".join(out) + "," + tail_of(pt))
    gone = set()
    for m in opts.get("missing", "").split("\037"):
        if m == "":
            continue
        k, _, why = m.partition("=")
        st, _, why = why.partition("=")
        gone.add(k)
        for size in (szs or [""]):
            missing_row(k, st, why, size)
    # a grouped job: every size of every process that has rows
    if szs:
        for k in range(int(num(opts.get("procs", "0")))):
            if str(k) in gone:
                continue
            for size in szs:
                if (str(k), size) not in seen:
                    missing_row(str(k), "failed", "client %d left no row for size %s "
                                "(its other sizes have rows)" % (k, size), size)


# ---------------------------------------------------------------- merge, show, sortx, col


def merge(opts, files):
    """Concatenate CSV files whose headers may differ: the union of the
    headers in order of first appearance; a missing column is empty."""
    heads = []
    for path in files:
        heads.append(next((f for _, f in read_csv(path)), None))
    names = []
    for h in heads:
        names += [n for n in (h or []) if n not in names]
    if not names:
        return
    cols = Header(names)
    write(",".join(names))
    for path, h in zip(files, heads):
        first = True
        for line, f in read_csv(path):
            if first or blank(line):
                first = False
                continue
            out = [""] * len(names)
            for n, v in zip(h, f):
                out[cols.idx[n]] = quote(v)
            write(",".join(out))


# show: summary.csv as a table for people (the config
# columns that vary between points, procs, status, Mops and Gb/s with min..max).
# A point that is not ok gets its reason in parentheses, an ok point its
# note (aggregate: repetitions left out for a low overlap, a loss out
# of range), so that no point is empty without saying why.
# With -v count=1: prints "points ok failed low_overlap" instead (skipped
# points count as none of these). Config columns that
# aggregate added (a hook's knobs, [run] summary_keys: the columns
# between access and exp_procs) are shown too.
SHOW_CONF = CONF + ["exp_procs"]


def show(opts, files):
    """summary.csv as a table for people: the config columns that vary,
    status, the rate median [min..max] and Gb/s; a point not ok gets its
    reason, an ok point its note. count=1: "points ok failed low_overlap"."""
    hdr, rows = None, []
    conf = list(SHOW_CONF)
    for _, f in read_csv(files[0] if files else "-"):
        if hdr is None:
            hdr = Header(f)
            # config columns the aggregation added (between access and exp_procs)
            if "access" in hdr and "exp_procs" in hdr:
                conf += hdr.names[hdr.idx["access"] + 1:hdr.idx["exp_procs"]]
            continue
        rows.append({n: hdr.get(f, n) for n in set(conf) | {
            "status", "note", "reason", "mops_median", "mops_min", "mops_max",
            "gbps_median", "mrps_median", "mrps_min", "mrps_max"}})
    st = [r["status"] for r in rows]
    if num(opts.get("count", "0")):
        ok, lowov = st.count("ok"), st.count("low-overlap")
        write("%d %d %d %d" % (len(rows), ok, len(rows) - ok - st.count("skipped") - lowov, lowov))
        return
    used = [i == 0 or any(r[c] != rows[0][c] for r in rows) for i, c in enumerate(conf)]
    usemrps = (not any(r["mops_median"] for r in rows)) and any(r["mrps_median"] for r in rows)
    rate = "mrps" if usemrps else "mops"
    line = "".join("%-10s " % ("procs" if c == "exp_procs" else c[:10]) for c, u in zip(conf, used) if u)
    write("%s%-11s %-28s %s" % (line, "status", "Mrps median [min..max]" if usemrps
                                else "Mops median [min..max]", "Gb/s"))
    for r in rows:
        line = "".join("%-10s " % r[c] for c, u in zip(conf, used) if u)
        m = r[rate + "_median"]
        mm = "-" if m == "" else "%s [%s..%s]" % (m, r[rate + "_min"], r[rate + "_max"])
        why = r["note"] if r["status"] == "ok" else r["reason"]
        write("%s%-11s %-28s %s%s" % (line, r["status"], mm, r["gbps_median"] or "-",
                                      "  (%s)" % why if why else ""))


SORTX_KEYS = ["exp_name"] + CONF + ["exp_procs"]


def sortx(opts, files):
    """Each row prefixed with "SERIES-KEY<TAB>X<TAB>": `sort` then makes
    the rows of one series adjacent and ordered by x (the figures' lines
    join the points of one series only); the header gets the smallest key."""
    x = opts.get("x", "")
    keys = opts.get("keys", "").split() or SORTX_KEYS
    hdr = None
    for line, f in read_csv(files[0] if files else "-"):
        if hdr is None:
            hdr = Header(f)
            write("\t\t" + line)
            continue
        key = "".join(hdr.get(f, k) + "|" for k in keys if k != x and k in hdr)
        write("%s\t%s\t%s" % (key, hdr.get(f, x) if x in hdr else "", line))


def col(opts, files):
    """The values of column `want` (header excluded); with where=COL
    is=VALUE only of the rows whose COL is VALUE."""
    want, where, is_ = opts.get("want", ""), opts.get("where", ""), opts.get("is", "")
    hdr = None
    for _, f in read_csv(files[0] if files else "-"):
        if hdr is None:
            hdr = Header(f)
            continue
        if where == "" or (where in hdr and hdr.get(f, where) == is_):
            write(hdr.get(f, want) if want in hdr else "")

def loadpoints(opts, files):
    """experiments/saturate's view of one summary.csv: a line
    "KEY<TAB>LOAD<TAB>MOPS" per point; KEY the point's knobs but the load
    column `col` (exp_procs or window) as "k=v" words, LOAD the `load`
    given, MOPS its mops_median (empty when the point has none)."""
    load_col, load = opts.get("col", ""), opts.get("load", "")
    conf = ("verb transport test size_bytes threads qps_per_thread emulated_peers postlist "
            "signal_interval inline window atomic_counters stride_bytes access").split()
    hdr = None
    for line, f in read_csv(files[0] if files else "-"):
        if hdr is None:
            hdr = Header(f)
            continue
        if blank(line):
            continue
        words = ["%s=%s" % (c, hdr.get(f, c)) for c in conf
                 if c != load_col and c in hdr and hdr.get(f, c) != ""]
        m = hdr.get(f, "mops_median") if "mops_median" in hdr else ""
        write("%s\t%s\t%s" % (" ".join(words), load, m))


# ---------------------------------------------------------------- main


COMMANDS = {"aggregate": aggregate, "tag": tag, "merge": merge, "show": show,
            "sortx": sortx, "col": col, "loadpoints": loadpoints}


def main(argv):
    if not argv or argv[0] not in COMMANDS:
        sys.stderr.write("usage: rbcsv.py %s [-v NAME=VALUE]... [FILE]...\n" % "|".join(COMMANDS))
        return 2
    cmd, opts, files, args = argv[0], {}, [], iter(argv[1:])
    for a in args:
        if a == "-v" or (a.startswith("-v") and "=" in a):
            kv = a[2:] if a != "-v" else next(args, "")
            name, eq, val = kv.partition("=")
            if not eq or not name:
                sys.stderr.write("rbcsv.py %s: -v needs NAME=VALUE, not '%s'\n" % (cmd, kv))
                return 2
            opts[name] = val
        else:
            files.append(a)
    try:
        COMMANDS[cmd](opts, files)
        sys.stdout.flush()
    except BrokenPipeError:
        return 0
    except OSError as e:
        sys.stderr.write("rbcsv.py %s: %s\n" % (cmd, e))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
