# tests/lib/gp-log-bars.awk: gnuplot scripts that draw bars ("with boxes")
# while the y axis is logarithmic (a bar's length means nothing there).
# A plain reading of each file in order: "set logscale" naming y (or no
# axis) turns y's log on, "unset logscale" likewise off; comment lines are
# skipped. Prints FILE:LINE per finding and exits 1 when there is one.
# Used by tests/bats/exp_legible.bats.
function axes(s, w) { split(s, w, /[ ;}]+/); return (w[1] == "" ? w[2] : w[1]) }
FNR == 1 { ylog = 0 }
/^[ \t]*#/ { next }
/unset logscale/ { s = $0; sub(/.*unset logscale/, "", s); a = axes(s); if (a == "" || a ~ /y/) ylog = 0; next }
/set logscale/ { s = $0; sub(/.*set logscale/, "", s); a = axes(s); if (a == "" || a ~ /y/) ylog = 1 }
/with boxes/ && ylog { print FILENAME ":" FNR ": bars (with boxes) on a log y axis"; bad = 1 }
END { exit bad }
