# experiments/lib/saturate.awk: one summary.csv's points for
# experiments/saturate, as "KEY<TAB>LOAD<TAB>MOPS" lines: KEY the point's
# knobs but the load (col: exp_procs or window), "k=v" words as
# aggregate.awk's load series; LOAD the -v load given; MOPS its median
# (empty when the point has none). Needs csv.awk.
BEGIN { nconf = split("verb transport test size_bytes threads qps_per_thread emulated_peers postlist signal_interval inline window atomic_counters stride_bytes access", conf, " ") }
NR == 1 { n = csv_split($0, h); for (i = 1; i <= n; i++) idx[h[i]] = i; next }
/^[[:space:]]*$/ { next }
{
    csv_split($0, f)
    key = ""
    for (i = 1; i <= nconf; i++) {
        if (conf[i] == col || !(conf[i] in idx)) continue
        v = csv_val(f[idx[conf[i]]])
        if (v != "") key = key (key == "" ? "" : " ") conf[i] "=" v
    }
    m = ("mops_median" in idx) ? csv_val(f[idx["mops_median"]]) : ""
    printf "%s\t%s\t%s\n", key, load, m
}
