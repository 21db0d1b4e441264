# figures/figure-13.gp: Figure 13, outbound all-signaled READ and WRITE
# throughput vs window, per client machine. Reference: the original
# artifact's all-signaled 32-byte READs on ConnectX-3 (apt, 11 machines, one
# VM each; imported sweep log, per machine) and the paper's best windows
# (CX3, CIB) as vertical lines. Run by figures/plot.
load figdir."/common.gp"
# per client machine: a point's total over its client processes / processes
sel(v, vb) = (strcol("verb") eq vb) ? okv(v) / column("exp_procs") : NaN
refsel(v) = (strcol("verb") eq "read" && column("emulated_peers") == column("exp_procs")) ? v / column("exp_procs") : NaN
# the original's line through its own points only (a table of them): the
# rows figures/plot hands over are sorted by window, and the other runs'
# rows between them (NaN here) broke the line into three lone marks under
# a key sample of a dashed line
# (comma-separated under a header line, as every file here is read)
set print $REFLINE
print "window,mops"
unset print
set table $REFLINE append separator comma
plot ref using (column("window")):(refsel(column("mops_median"))) with table if (refsel(column("mops_median")) == refsel(column("mops_median")))
unset table
# one panel, as a multiplot: the title above, the key between it and the panel (common.gp)
set multiplot layout 1,1 title (exists("figtitle") ? figtitle : "Figure 13 (Section 5.3.2): outbound all-signaled READ and WRITE throughput vs window")."\n".subtitle noenhanced
set logscale x 2
set logscale y
# reference only, within a decade: linear from 0 (common.gp: reflin)
if (reflin) { unset logscale y; set yrange [0:*] }
# x range from the data (figures/plot: dxlo, dxhi), else the paper's windows 1 to 512
if (exists("dxlo")) { set xrange [dxlo / 1.25 : dxhi * 1.25] } else { set xrange [0.8 : 640] }
set xlabel "window (outstanding operations per thread)"
set ylabel "throughput per client machine (Mops)"
# the paper's best window per cluster (notes in paper-atc16.csv)
stats paper using (isref("fig13", "note") && strcol("cluster") eq "CX3" ? column("x") : NaN) nooutput
best_cx3 = STATS_min
stats paper using (isref("fig13", "note") && strcol("cluster") eq "CIB" ? column("x") : NaN) nooutput
best_cib = STATS_min
set arrow from best_cx3, graph 0 to best_cx3, graph 1 nohead dt 3 lc rgb "#444444"
# each label beside its line (2 characters to its left), not over it
set label sprintf("paper: best window, CX3 (%d)", best_cx3) at best_cx3, graph 0.5 center rotate by 90 offset -2,0 font ",8"
set arrow from best_cib, graph 0 to best_cib, graph 1 nohead dt 3 lc rgb "#444444"
set label sprintf("paper: best window, CIB (%d)", best_cib) at best_cib, graph 0.5 center rotate by 90 offset -2,0 font ",8"
# reference only: the title names READ and WRITE, the reference holds
# READ alone (the original's log); the caption says so
if (!hasdata) {
    refonly = "reference data: READ only (the original artifact's log has no WRITE)"
    caption = (strlen(caption) > 0) ? caption."; ".refonly : refonly
    set label 90 caption at screen 0.01, screen 0.012 left front font ",8" noenhanced
    set bmargin 4.5
}
# each series twice: its min..max bars without a key entry, then its line
# and marks with one, so that the key's sample is the series' line and
# mark, not an error bar with caps
plot data using (column("window")):(sel(column("mops_median"), "read")):(sel(column("mops_min"), "read")):(sel(column("mops_max"), "read")) with yerrorbars ls 1 notitle, \
     data using (column("window")):(sel(column("mops_median"), "read")) with linespoints ls 1 title kt("read", "READ, measured".mtag), \
     data using (column("window")):(sel(column("mops_median"), "write")):(sel(column("mops_min"), "write")):(sel(column("mops_max"), "write")) with yerrorbars ls 2 notitle, \
     data using (column("window")):(sel(column("mops_median"), "write")) with linespoints ls 2 title kt("write", "WRITE, measured".mtag), \
     data using (column("window")):(noisy(column("mops_median") / column("exp_procs"))) with points ls 20 title ntitle, \
     ref using (column("window")):(refsel(column("mops_median"))):(refsel(column("mops_min"))):(refsel(column("mops_max"))) with yerrorbars ls 11 notitle, \
     $REFLINE using 1:2 with linespoints ls 11 title "original artifact: READ, CX3 (apt), 11 machines, per machine"
unset multiplot
