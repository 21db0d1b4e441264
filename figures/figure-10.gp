# figures/figure-10.gp: Figure 10, emulated DrTM-KV's throughput vs the
# share of PUTs (rdma_seq --variant drtm-kv, case study 2). Left: measured
# Mrps (GETs and PUTs together), median of the repetitions with min..max
# bars. Right: the same normalised to the GET-only point (its median), in
# percent, beside the paper's ratios (figures/reference/paper-atc16.csv
# rows fig10: 10 % PUTs cut throughput by 72 % on ConnectX-3 and 31 % on
# Connect-IB; 100 % PUTs give 4 % and 12 % of the GET-only rate), each
# drawn with the GET-only 100 % it is relative to. Run by figures/plot.
load figdir."/common.gp"
# at 0 % PUTs the normalised panel's series all stand at 100 % (each is
# relative to its own GET-only rate): their marks fall on one another
# there by definition, not by agreement; the caption says so
zeronote = "at 0 % PUTs every normalised series is 100 % by definition (measured, ConnectX-3 and Connect-IB coincide)"
caption = (strlen(caption) > 0) ? caption."; ".zeronote : zeronote
set label 90 caption at screen 0.01, screen 0.012 left front font ",8" noenhanced
set bmargin 4.5
pct(f) = 100.0 * f
meas(v) = (strcol("variant") eq "drtm-kv") ? okv(v) : NaN
# the GET-only median (put_fraction 0): the normalisation; NaN without it
base = NaN
if (hasdata) {
    stats data using (strcol("variant") eq "drtm-kv" && column("put_fraction") == 0 ? okv(column("mrps_median")) : 1/0) nooutput
    if (STATS_records > 0 && STATS_max > 0) { base = STATS_max }
}
rel(v) = (base == base) ? 100.0 * v / base : NaN
# the paper's ratios as percent of GET-only: a drop d % is 100 - d
isp(c) = isref("fig10", "ratio") && strcol("cluster") eq c
pr(d) = strcol("y_name") eq "throughput_drop" ? 100 - column("y") : column("y")
set table $CX3
plot paper using (0):(100) every ::1::1 with table, paper using (column("x")):(pr(0)) with table if (isp("CX3"))
set table $CIB
plot paper using (0):(100) every ::1::1 with table, paper using (column("x")):(pr(0)) with table if (isp("CIB"))
unset table
set multiplot layout 1,(hasdata ? 2 : 1) title (exists("figtitle") ? figtitle : "Figure 10 (Section 4.3.2): emulated DrTM-KV throughput vs PUT fraction")."\n".subtitle noenhanced
set xlabel "PUTs (% of operations; GET = 1 READ, PUT = CAS lock + FETCH_AND_ADD release)" noenhanced
set xrange [-5:105]
set xtics 0, 10, 100
set offsets 0, 0, graph 0.25, 0
if (hasdata) {
    set title "measured".mtag." (absolute)" noenhanced
    set ylabel "throughput (Mrps, GETs + PUTs)"
    set yrange [0:*]
    set format y mfmt
    plot data using (pct(column("put_fraction"))):(meas(column("mrps_median"))):(column("mrps_min")):(column("mrps_max")) with yerrorlines ls 1 title "drtm-kv, measured (median, min..max)", \
         data using (pct(column("put_fraction"))):(noisy(column("mrps_median"))) with points ls 20 title ntitle
    unset label 90
    set format y "%g"
}
set title (hasdata ? "normalised to GET-only: measured".mtag." beside the paper (Section 4.3.2)" : "the paper (Section 4.3.2): throughput as % of GET-only, the two stated points per NIC") noenhanced
set ylabel "throughput (% of the GET-only rate)"
# a little room below 0: the paper's 4 % at 100 % PUTs (ConnectX-3) sat
# half under the x axis; the ticks still start at 0
set yrange [-8:*]
set datafile separator whitespace
set datafile nocolumnheaders
if (hasdata) {
    set datafile separator comma
    set datafile columnheaders
    set table $M
    plot data using (pct(column("put_fraction"))):(rel(meas(column("mrps_median")))):(rel(column("mrps_min"))):(rel(column("mrps_max"))) with table
    unset table
    set datafile separator whitespace
    set datafile nocolumnheaders
}
# the paper's marks after (over) the measured line and its bars: at 0 %
# every series is 100 % by definition, and at 100 % PUTs the measured bars
# may reach the paper's values; drawn first, the marks sat under them.
# Larger than the measured marks, with thicker lines, so that they show
# around the measured point where they fall on it
if (hasdata) {
    plot $M using 1:2:3:4 with yerrorlines ls 1 title "drtm-kv, measured (median, min..max, over the GET-only median)", \
         $CX3 using 1:2 with points ls 12 lw 2 ps 2 title "paper, ConnectX-3: 28 % at 10 % PUTs, 4 % at 100 %", \
         $CIB using 1:2 with points ls 13 lw 2 ps 2 title "paper, Connect-IB: 69 % at 10 % PUTs, 12 % at 100 %"
} else {
    set yrange [-8:110]
    plot $CX3 using 1:2 with points ls 12 ps 1.6 title "paper, ConnectX-3: 28 % at 10 % PUTs, 4 % at 100 %", \
         $CIB using 1:2 with points ls 13 ps 1.6 title "paper, Connect-IB: 69 % at 10 % PUTs, 12 % at 100 %"
}
unset multiplot
