# figures/quickgrid.awk: what a QUICK run leaves out of the full grid, for
# the figure's subtitle. Reads a run folder's `params` (the experiment's
# parameter file as run: [knobs] is the full grid, [quick] what QUICK
# replaces) and prints one line, the knobs whose QUICK values differ from
# the full grid's, e.g.
#   verb = read (full: read write); window = 2 16 (full: 10 values)
# A list longer than 6 values, or 40 characters, is given as its count
# ("9 values"; a QUICK list so long: "5 values (full: 9 values)"), and a
# knob's leading "--" (rdma_seq's flags) is dropped. Keys of [quick]
# that are not knobs (repetitions, overhead_s) are left out; nothing is
# printed when no knob differs.
/^[[:space:]]*(#|$)/ { next }
/^\[/ { sec = $0; gsub(/[][[:space:]]/, "", sec); next }
{
    k = $0; sub(/[[:space:]]*=.*/, "", k); gsub(/^[[:space:]]+/, "", k)
    v = $0; sub(/^[^=]*=[[:space:]]*/, "", v); gsub(/[[:space:]]+$/, "", v); gsub(/[[:space:]]+/, " ", v)
    if (sec == "knobs") { full[k] = v; order[++n] = k }
    else if (sec == "quick") quick[k] = v
}
# brief V -> V, or "N values" when V has more than 6 values or 40 characters
function brief(v,    c, a) {
    c = split(v, a, " ")
    return (c > 6 || length(v) > 40) ? c " values" : v
}
# name K -> K without the leading "--" of each ':'-joined part
function name(k) {
    gsub(/(^|:)--/, "&", k); gsub(/--/, "", k)
    return k
}
END {
    s = ""
    for (i = 1; i <= n; i++) {
        k = order[i]
        if (!(k in quick) || quick[k] == full[k]) continue
        s = s (s == "" ? "" : "; ") name(k) " = " brief(quick[k]) " (full: " brief(full[k]) ")"
    }
    if (s != "") print s
}
