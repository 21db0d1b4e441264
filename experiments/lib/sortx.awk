# experiments/lib/sortx.awk: prefix each row of a summary.csv with a sort key
# so that `sort` makes the rows of one series adjacent and ordered by the x
# column (`x`): key = the series (and panel) columns given in `keys`, else
# every config column but x; then x. Lines in a figure then join the points
# of one series only, whatever effective value (e.g. inline) varies along x.
# The header gets the smallest key.
BEGIN {
    nk = split(keys, kc, " ")
    if (nk == 0) nk = split("exp_name verb transport test size_bytes threads qps_per_thread emulated_peers postlist signal_interval inline window atomic_counters stride_bytes access exp_procs", kc, " ")
}
NR == 1 { n = csv_split($0, h); for (i = 1; i <= n; i++) idx[h[i]] = i; print "\t\t" $0; next }
{
    csv_split($0, f)
    key = ""
    for (i = 1; i <= nk; i++) if (kc[i] != x && (kc[i] in idx)) key = key csv_val(f[idx[kc[i]]]) "|"
    xv = (x in idx) ? csv_val(f[idx[x]]) : ""
    printf "%s\t%s\t%s\n", key, xv, $0
}
