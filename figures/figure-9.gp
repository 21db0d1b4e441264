# figures/figure-9.gp: Figure 9, HERD with a MICA-style store (rdma_seq
# --variant herd-kv, case study 2): throughput vs server threads, the
# responses posted one per ibv_post_send (batch off) or behind one
# doorbell per poll pass (batch on), and the bound of a READ-based store:
# half the inbound READ rate of the same hosts (a GET needs about two
# READs), from the run's companion (experiments/figure-9/read-bound:
# rdma_bench READ 64 B; figures/plot sets companion, header-only when there
# is none). Left: measured, median of the repetitions with min..max bars;
# right: the paper's values (CIB; figures/reference/paper-atc16.csv rows
# fig9). The paper's READ-based bound is half of Connect-IB's peak inbound
# READ rate (Sections 4.3.1 and 5.3.1), below HERD's batched peak: it is
# drawn from a fig9 row of series read-based-bound (Mrps, derived so), and
# not drawn without one (Figure 12's 112 Gb/s is the two ports' line rate,
# not a READ rate: a bound from it would sit above HERD). Run by figures/plot.
load figdir."/common.gp"
sel(b) = (strcol("batch") eq b) ? okv(column("mrps_median")) : NaN
# the measured inbound READ rate (Mops, median over its repetitions; the
# companion's ok rows of verb read) and the largest measured HERD rate
set table $RD
plot companion using (0):(column("mops_median")) with table if (strcol("verb") eq "read" && strcol("status") eq "ok")
set table $HM
plot data using (0):(column("mrps_max")) with table if (strcol("status") ne "failed")
# the paper's points: per core (x 1) and the peaks (no x), and the
# READ-based bound (Mrps)
isp(s, x) = isref("fig9", "point") && strcol("series") eq s && strcol("x_name") eq x
set table $PB
plot paper using (1):(column("y")) with table if (isp("herd-baseline", "per_core"))
set table $PBP
plot paper using (1):(column("y")) with table if (isp("herd-baseline", "peak"))
set table $PH
plot paper using (1):(column("y")) with table if (isp("herd-batched", "per_core"))
set table $PHP
plot paper using (1):(column("y")) with table if (isp("herd-batched", "peak"))
set table $PR
plot paper using (1):(column("y")) with table if (strcol("figure") eq "fig9" && strcol("series") eq "read-based-bound")
unset table
set datafile separator whitespace
set datafile nocolumnheaders
readmops = NaN; herdmax = NaN; pbp = NaN; php = NaN; pread = NaN
if (|$RD| > 0) { stats $RD using 2 nooutput; readmops = STATS_median }
if (|$HM| > 0) { stats $HM using 2 nooutput; herdmax = STATS_max }
if (|$PBP| > 0) { stats $PBP using 2 nooutput; pbp = STATS_max }
if (|$PHP| > 0) { stats $PHP using 2 nooutput; php = STATS_max }
if (|$PR| > 0) { stats $PR using 2 nooutput; pread = STATS_max }
set datafile separator comma
set datafile columnheaders
hasbound = (readmops == readmops)
# no measured run: the paper's panel alone (no empty panel)
set multiplot layout 1,(hasdata ? 2 : 1) title (exists("figtitle") ? figtitle : "Figure 9 (Section 4.3.1): HERD key-value throughput vs server threads")."\n".subtitle noenhanced
set ylabel "throughput (Mrps, 10^6 GETs and PUTs/s)"
set key font ",8" spacing 1.3
set grid
if (hasdata) {
    set title "measured".mtag.": 95 % GETs, 32-byte values, every GET hit's value checked" noenhanced
    set xlabel "server threads (each owns its MICA partition)"
    if (exists("dxlo")) { set xrange [dxlo - 0.5:dxhi + 0.5] } else { set xrange [0.5:2.5] }
    set xtics 1
    set offsets 0, 0, graph 0.25, 0
    # the bound far above the HERD rates (more than 10x): a log axis keeps both legible
    if (hasbound && herdmax == herdmax && readmops / 2 > 10 * herdmax) {
        set logscale y 10
        set yrange [*:*]
    } else {
        unset logscale y
        set yrange [0:*]
        set format y mfmt
    }
    btitle = hasbound ? sprintf("READ-based store's bound: 1/2 x inbound READ 64 B, %.4g Mops measured", readmops) : ""
    # the noisy ring's key entry only when a drawn point is noisy (pnoisy)
    rtitle = (nk("on") || nk("off")) ? ntitle : ""
    if (!hasbound) {
        set label 2 "no READ-based bound: no trusted inbound READ rate from the run's companion (read-bound)" at graph 0.02, graph 0.93 left font ",8"
    }
    # batch off and on side by side at one thread count, 0.16 thread
    # apart as figure 7's series (at one x their min..max bars lay one
    # over the other), each noisy ring over its own mark; the key says so
    dx(t) = t + (strcol("batch") eq "on" ? 0.08 : -0.08)
    plot data using (dx(column("server_threads"))):(sel("off")):(column("mrps_min")):(column("mrps_max")) with yerrorlines ls 1 title kt("off", "HERD, one post per response (batch off)"), \
         data using (dx(column("server_threads"))):(sel("on")):(column("mrps_min")):(column("mrps_max")) with yerrorlines ls 2 title kt("on", "HERD + doorbell batching (batch on)"), \
         data using (dx(column("server_threads"))):(noisy(column("mrps_median"))) with points ls 20 title rtitle, \
         (hasbound ? readmops / 2 : NaN) with lines ls 19 lw 2 title btitle, \
         keyentry with points lc rgb "white" pt 0 title "batch off and on at one thread count drawn side by side (0.16 thread apart)"
    unset label 2
    # the caption line once (common.gp)
    unset label 90
    set format y "%g"
}
set title "paper (Section 4.3.1, Figure 9): Connect-IB" noenhanced
set xlabel "server cores"
unset logscale y
set xrange [0:15]
set yrange [0:*]
set offsets 0, 0, graph 0.3, 0
set datafile separator whitespace
set datafile nocolumnheaders
# the peaks have no core count in the paper: each is a short level in a
# column of its own at the right (12-15, its tick "peak", apart from the
# core axis 0-10 by a dotted rule), not a line through the per-core points
# at 1 nor a level that reads as 12-15 cores; the READ-based bound holds
# at any core count and spans the panel
set xtics 0, 2, 10
set xtics add ("peak\n(cores not stated)" 13.5)
set arrow 5 from 11.25, graph 0 to 11.25, graph 1 nohead dt 3 lc rgb "#888888"
set samples 400
if (pread != pread) {
    set label 3 "READ-based bound (the paper: 1/2 x Connect-IB's peak inbound READ rate, Section 5.3.1): no fig9 read-based-bound row in paper-atc16.csv, not drawn" at graph 0.02, graph 0.97 left font ",7" noenhanced
}
plot $PB using 1:2 with points ls 11 ps 1.5 title "HERD baseline: 6.7 Mrps per core", \
     $PH using 1:2 with points ls 12 ps 1.5 title "HERD + doorbell batching: 12.3 Mrps per core", \
     (x >= 12 ? pbp : NaN) with lines ls 11 lw 2 title sprintf("HERD baseline peak %.1f Mrps (cores not stated)", pbp), \
     (x >= 12 ? php : NaN) with lines ls 12 lw 2 title sprintf("HERD + batching peak %.1f Mrps (PCIe-DMA bound; cores not stated)", php), \
     pread with lines ls 19 lw 2 title (pread == pread ? sprintf("READ-based bound %.1f Mrps: 1/2 x Connect-IB's peak inbound READ rate (Section 5.3.1)", pread) : "")
unset multiplot
