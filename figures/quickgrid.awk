# figures/quickgrid.awk: what a QUICK run leaves out of the full grid, for
# the figure's subtitle. Reads a run folder's `params` (the experiment's
# parameter file as run: [knobs] is the full grid, [quick] what QUICK
# replaces) and prints one line, the knobs whose QUICK values differ from
# the full grid's, e.g.
#   verb = read (full: read write); window = 2 16 (full: 10 values)
# A full list longer than 6 values is given as its count. Keys of [quick]
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
END {
    s = ""
    for (i = 1; i <= n; i++) {
        k = order[i]
        if (!(k in quick) || quick[k] == full[k]) continue
        c = split(full[k], a, " ")
        f = (c > 6) ? c " values" : full[k]
        s = s (s == "" ? "" : "; ") k " = " quick[k] " (full: " f ")"
    }
    if (s != "") print s
}
