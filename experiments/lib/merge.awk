# experiments/lib/merge.awk: concatenate CSV files whose headers may differ
# (a column missing in one file is empty in its rows). Output columns: the
# union of all headers, in order of first appearance.
BEGIN {
    ncol = 0
    for (a = 1; a < ARGC; a++) {
        if ((getline line < ARGV[a]) > 0) {
            n = csv_split(line, h)
            for (i = 1; i <= n; i++) if (!(h[i] in idx)) { col[++ncol] = h[i]; idx[h[i]] = ncol }
        }
        close(ARGV[a])
    }
    if (ncol == 0) exit
    line = col[1]
    for (i = 2; i <= ncol; i++) line = line "," col[i]
    print line
}
FNR == 1 { nmap = csv_split($0, map); next }
/^[[:space:]]*$/ { next }
{
    n = csv_split($0, f)
    for (i = 1; i <= ncol; i++) out[i] = ""
    for (i = 1; i <= n && i <= nmap; i++) out[idx[map[i]]] = f[i]
    line = out[1]
    for (i = 2; i <= ncol; i++) line = line "," out[i]
    print line
}
