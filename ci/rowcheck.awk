# ci/rowcheck.awk: the checks of ci/rowcheck (see its header for the
# predicate language). Input: one CSV file; settings in the environment
# (RC_FILE, RC_WHERE, RC_PREDS, RC_VALUES: one item a line; RC_ROWS).
# Needs experiments/lib/csv.awk (csv_split, csv_val). POSIX awk.
# a usage error: message on stderr (busybox has no /dev/stderr file), exit 2
function usage_err(msg) { print "ci/rowcheck: " msg | "cat 1>&2"; close("cat 1>&2"); bad_usage = 1; exit 2 }
function col(name) {
    if (!(name in cidx)) usage_err("column '" name "' is not in the header of " FILE " (columns are named in docs/csv.md)")
    return cidx[name]
}
function isnum(s) { return s ~ /^[-+]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][-+]?[0-9]+)?$/ }
# a term: a number, COL, N*COL, COL*COL or N*COL*COL (a product of a
# number and at most two columns: e.g. lat_p50_us*mops, a latency over the
# loop's own period); sets tcol[p, k] and tcol2[p, k] (columns or "") and
# tfac[p, k]
function parse_term(p, k, s,    star) {
    tcol2[p, k] = ""
    if (isnum(s)) { tcol[p, k] = ""; tfac[p, k] = s + 0; return }
    star = index(s, "*")
    tfac[p, k] = 1
    if (star && isnum(substr(s, 1, star - 1))) {
        tfac[p, k] = substr(s, 1, star - 1) + 0
        s = substr(s, star + 1)
        star = index(s, "*")
    }
    if (star) {
        tcol2[p, k] = substr(s, star + 1)
        s = substr(s, 1, star - 1)
        if (tcol2[p, k] !~ /^[A-Za-z_][A-Za-z0-9_]*$/) usage_err("'" tcol2[p, k] "' in '" ptext[p] "' is not a column name (a term is N*COL*COL at most)")
        col(tcol2[p, k])
    }
    if (s !~ /^[A-Za-z_][A-Za-z0-9_]*$/) usage_err("'" s "' in '" ptext[p] "' is neither a number nor a column name")
    col(s)
    tcol[p, k] = s
}
# value of term k of predicate p on the current row; sets tok = 0 when NA or not a number
function term_val(p, k,    v, v2) {
    if (tcol[p, k] == "") return tfac[p, k]
    v = csv_val(f[cidx[tcol[p, k]]])
    if (!isnum(v)) { tok = 0; return 0 }
    if (tcol2[p, k] == "") return tfac[p, k] * v
    v2 = csv_val(f[cidx[tcol2[p, k]]])
    if (!isnum(v2)) { tok = 0; return 0 }
    return tfac[p, k] * v * v2
}
function cmp(a, op, b) {
    if (op == "<") return a < b
    if (op == "<=") return a <= b
    if (op == ">") return a > b
    if (op == ">=") return a >= b
    return a == b
}
function parse_pred(p, s,    rest, m, k, op) {
    ptext[p] = s
    # COL=VALUE and COL!=VALUE: string comparison of the value as written
    if (match(s, /^[A-Za-z_][A-Za-z0-9_]*!?=/) && substr(s, RSTART + RLENGTH, 1) != "=") {
        op = substr(s, RLENGTH, 1) == "=" && substr(s, RLENGTH - 1, 1) == "!" ? "!=" : "="
        pkind[p] = op
        pcol[p] = substr(s, 1, RLENGTH - length(op))
        pval[p] = substr(s, RLENGTH + 1)
        col(pcol[p])
        return
    }
    pkind[p] = "num"
    rest = s; k = 0
    while (match(rest, /<=|>=|==|<|>/)) {
        k++
        if (k > 2) usage_err("'" s "': at most two comparisons (a band A<B<C)")
        parse_term(p, k, substr(rest, 1, RSTART - 1))
        pop[p, k] = substr(rest, RSTART, RLENGTH)
        rest = substr(rest, RSTART + RLENGTH)
    }
    if (k == 0) usage_err("'" s "' is not a predicate: COL=VALUE, COL!=VALUE, A<B, A<=B, A>B, A>=B, A==B or A<B<C")
    parse_term(p, k + 1, rest)
    pnops[p] = k
}
# the failing predicate's columns with their values ("NA" for empty)
function shown(p,    k, out, c, v) {
    out = ""
    if (pkind[p] != "num") {
        v = csv_val(f[cidx[pcol[p]]])
        return pcol[p] "=" (v == "" ? "NA" : v)
    }
    for (k = 1; k <= 2 * (pnops[p] + 1); k++) {
        c = k % 2 ? tcol[p, (k + 1) / 2] : tcol2[p, k / 2]
        if (c == "" || index(" " out " ", " " c "=")) continue
        v = csv_val(f[cidx[c]])
        out = out (out == "" ? "" : " ") c "=" (v == "" ? "NA" : v)
    }
    return out
}
function ident(    i, n, out, v, names) {
    n = split("verb transport test size_bytes thread rep", names, " ")
    out = ""
    for (i = 1; i <= n; i++) {
        if (!(names[i] in cidx)) continue
        v = csv_val(f[cidx[names[i]]])
        out = out (out == "" ? "" : " ") names[i] "=" v
    }
    return out
}
function items(s, a,    n) { n = split(s, a, "\n"); return n > 0 ? n - 1 : 0 }
BEGIN {
    FILE = ENVIRON["RC_FILE"]
    # one item a line, each ending in a newline: the last split field is empty
    nw = items(ENVIRON["RC_WHERE"], wl)
    np = items(ENVIRON["RC_PREDS"], pl)
    nv = items(ENVIRON["RC_VALUES"], vl)
    want_rows = ENVIRON["RC_ROWS"]
}
NR == 1 {
    n = csv_split($0, h)
    for (i = 1; i <= n; i++) cidx[h[i]] = i
    for (i = 1; i <= nw; i++) {
        if (!match(wl[i], /^[A-Za-z_][A-Za-z0-9_]*!?=/)) usage_err("--where '" wl[i] "': use COL=VALUE or COL!=VALUE")
        wne[i] = substr(wl[i], RLENGTH - 1, 1) == "!"
        wcol[i] = substr(wl[i], 1, RLENGTH - 1 - wne[i])
        wval[i] = substr(wl[i], RLENGTH + 1)
        col(wcol[i])
    }
    for (i = 1; i <= nv; i++) {
        if (!match(vl[i], /^[A-Za-z_][A-Za-z0-9_]*=/)) usage_err("--values '" vl[i] "': use COL=V1,V2,...")
        vcol[i] = substr(vl[i], 1, RLENGTH - 1)
        vwant[i] = substr(vl[i], RLENGTH + 1)
        vgot[i] = ""
        col(vcol[i])
    }
    for (i = 1; i <= np; i++) parse_pred(i, pl[i])
    next
}
{
    csv_split($0, f)
    for (i = 1; i <= nw; i++) {
        v = csv_val(f[cidx[wcol[i]]])
        if ((v == wval[i]) == !wne[i]) continue
        next
    }
    sel++
    for (i = 1; i <= nv; i++) vgot[i] = vgot[i] (sel > 1 ? "," : "") csv_val(f[cidx[vcol[i]]])
    for (p = 1; p <= np; p++) {
        if (pkind[p] == "=") ok = csv_val(f[cidx[pcol[p]]]) == pval[p]
        else if (pkind[p] == "!=") ok = csv_val(f[cidx[pcol[p]]]) != pval[p]
        else {
            tok = 1
            a = term_val(p, 1)
            ok = 1
            for (k = 1; k <= pnops[p]; k++) {
                b = term_val(p, k + 1)
                if (!cmp(a, pop[p, k], b)) ok = 0
                a = b
            }
            if (!tok) ok = 0
        }
        if (!ok) {
            printf "ci/rowcheck: FAIL %s line %d (%s): '%s' does not hold: %s\n", FILE, NR, ident(), ptext[p], shown(p)
            if (("status" in cidx) && ("reason" in cidx) && csv_val(f[cidx["status"]]) != "ok")
                printf "ci/rowcheck:   status=%s reason=%s\n", csv_val(f[cidx["status"]]), csv_val(f[cidx["reason"]])
            failed++
        }
    }
}
END {
    if (bad_usage) exit 2
    if (NR < 1) { printf "ci/rowcheck: FAIL %s is empty (no header)\n", FILE; exit 1 }
    sel += 0
    wdesc = ""
    for (i = 1; i <= nw; i++) wdesc = wdesc " --where " wl[i]
    if (want_rows != "" && sel != want_rows + 0) {
        printf "ci/rowcheck: FAIL %s: %d row(s) selected%s, %d expected\n", FILE, sel, wdesc, want_rows
        failed++
    } else if (want_rows == "" && sel == 0) {
        printf "ci/rowcheck: FAIL %s: no row selected%s\n", FILE, wdesc
        failed++
    }
    for (i = 1; i <= nv; i++)
        if (vgot[i] != vwant[i]) {
            printf "ci/rowcheck: FAIL %s: %s of the selected rows is '%s', expected '%s'\n", FILE, vcol[i], vgot[i], vwant[i]
            failed++
        }
    if (failed) exit 1
    printf "ci/rowcheck: %s: %d row(s)%s, %d check(s) each, all hold\n", FILE, sel, wdesc, np
}
