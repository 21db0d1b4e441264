# figures/figure-8.gp: Figure 8, Spec-S0's request latency vs its
# throughput with doorbell batching of the responses on and off (rdma_seq,
# case study 1). Each point is one load (client threads x window); x its
# median Mrps, y the mean (solid) and p99 (dashed) round-trip latency at
# the client, medians over the repetitions, with the min..max of Mrps as
# horizontal bars. The paper's Figure 8 (Connect-IB) is stated in a label:
# batching adds at most about 1 us at the same load. Run by figures/plot.
load figdir."/common.gp"
sel(v, b) = (strcol("batch") eq b) ? okv(v) : NaN
# one panel, as a multiplot: the title above, the key between it and the
# panel (common.gp), as in the other figures (a plain title sat under the key)
set multiplot layout 1,1 title (exists("figtitle") ? figtitle : "Figure 8 (Section 4.2.2): Spec-S0 latency vs throughput")."\n".subtitle noenhanced
set xlabel "throughput (Mrps, 10^6 requests/s; load = client threads x window)"
set ylabel "latency per request, round trip at the client (us)"
set key top left font ",8"
set yrange [0:*]
set xrange [0:*]
# x is Mrps: soft-RoCE's tiny rates in one tick format (common.gp: mfmt)
set format x mfmt
# room below the lowest points for their load labels (not on the x axis)
set offsets 0, graph 0.05, graph 0.25, graph 0.08
# no measured run: the paper's statement alone (no empty axes; the
# reference data has no Figure 8 points)
if (!hasdata) {
    unset border; unset tics; unset xlabel; unset ylabel; unset grid; unset key
    set xrange [0:1]; set yrange [0:1]
    set label 1 "no measured run: make figure-8 measures one\n\npaper (Section 4.2.2, Figure 8, Connect-IB): response batching raises Spec-S0's\nthroughput and costs at most about 1 us of latency at the same load" at graph 0.5, graph 0.5 center font ",10"
    plot NaN notitle
} else {
    set label 1 "paper (Section 4.2.2, Figure 8, Connect-IB): response batching raises Spec-S0's\nthroughput and costs at most about 1 us of latency at the same load" at graph 0.98, graph 0.95 right font ",8"
    # each point's load (clients x window) beside its mark: batch on above
    # it, batch off below it, so that the two series' labels at one load
    # do not overprint each other; each in its series' colour
    plot data using (column("mrps_median")):(sel(column("lat_mean_us_median"), "on")):(column("mrps_min")):(column("mrps_max")) with xerrorlines ls 1 title "batch on: mean".mtag, \
         data using (column("mrps_median")):(sel(column("lat_p99_us_median"), "on")) with linespoints ls 11 title "batch on: p99", \
         data using (column("mrps_median")):(sel(column("lat_mean_us_median"), "off")):(column("mrps_min")):(column("mrps_max")) with xerrorlines ls 2 title "batch off: mean".mtag, \
         data using (column("mrps_median")):(sel(column("lat_p99_us_median"), "off")) with linespoints ls 12 title "batch off: p99", \
         data using (column("mrps_median")):(noisy(column("lat_mean_us_median"))) with points ls 20 title ntitle, \
         data using (column("mrps_median")):(sel(column("lat_mean_us_median"), "on")):(sprintf("%sx%s", strcol("clients"), strcol("window"))) with labels left offset 0.7,0.8 font ",7" textcolor ls 1 notitle, \
         data using (column("mrps_median")):(sel(column("lat_mean_us_median"), "off")):(sprintf("%sx%s", strcol("clients"), strcol("window"))) with labels left offset 0.7,-0.8 font ",7" textcolor ls 2 notitle
}
unset multiplot
