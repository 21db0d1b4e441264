# figures/figure-13.gp: Figure 13, outbound all-signaled READ and WRITE
# throughput vs window, per client machine. Reference: the original
# artifact's all-signaled 32-byte READs on ConnectX-3 (apt, 11 machines, one
# VM each; imported sweep log, per machine) and the paper's best windows
# (CX3, CIB) as vertical lines. Beside it, panel (b): the requester's PCIe
# reads per operation (the paper's Figure 13a, PCIeRdCur), counted from the
# CPU's uncore (pcie_rd_per_op_median; haspcie from figures/plot) against
# the PCIe model's expected reads (figures/reference/model-limits.csv,
# written by figures/model-limits from build/rb_model): reads above the
# model's are WQE cache misses (3.5, 5.3.2). Where nothing was counted (a
# VM has no uncore PMU) the panel draws the model's lines and says why
# (pcienote). Run by figures/plot.
load figdir."/common.gp"
limits = figdir."/reference/model-limits.csv"
if (!exists("haspcie")) { haspcie = 0; pcienote = "" }
mreads(s) = (strcol("figure") eq "fig13" && strcol("series") eq s) ? column("y") : NaN
pcsel(vb) = (haspcie && strcol("verb") eq vb && strcol("pcie_rd_per_op_median") ne "") ? column("pcie_rd_per_op_median") : NaN
pcbar(c, vb) = (haspcie && strcol("verb") eq vb && strcol("pcie_rd_per_op_".c) ne "") ? column("pcie_rd_per_op_".c) : NaN
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
set multiplot layout 1,2 title (exists("figtitle") ? figtitle : "Figure 13 (Section 5.3.2): outbound all-signaled READ and WRITE throughput vs window")."\n".subtitle noenhanced
set logscale x 2
set logscale y
# reference only, within a decade: linear from 0 (common.gp: reflin)
if (reflin) { unset logscale y; set yrange [0:*] }
# x range from the data (figures/plot: dxlo, dxhi), else the paper's windows 1 to 512
if (exists("dxlo")) { set xrange [dxlo / 1.25 : dxhi * 1.25] } else { set xrange [0.8 : 640] }
set xlabel "window (outstanding operations per thread)"
set ylabel "throughput per client machine (Mops)"
set title "(a) throughput" noenhanced
# the paper's best window per cluster (notes in paper-atc16.csv)
stats paper using (isref("fig13", "note") && strcol("cluster") eq "CX3" ? column("x") : NaN) nooutput
best_cx3 = STATS_min
stats paper using (isref("fig13", "note") && strcol("cluster") eq "CIB" ? column("x") : NaN) nooutput
best_cib = STATS_min
# each line and its label only inside the x range: a label is not clipped,
# and one at window 512 beyond a panel's edge landed in panel (b)
inx(x) = !exists("dxlo") || (x >= dxlo / 1.25 && x <= dxhi * 1.25)
# each label beside its line (2 characters to its left), not over it
if (inx(best_cx3)) {
    set arrow from best_cx3, graph 0 to best_cx3, graph 1 nohead dt 3 lc rgb "#444444"
    set label sprintf("paper: best window, CX3 (%d)", best_cx3) at best_cx3, graph 0.5 center rotate by 90 offset -2,0 font ",8"
}
if (inx(best_cib)) {
    set arrow from best_cib, graph 0 to best_cib, graph 1 nohead dt 3 lc rgb "#444444"
    set label sprintf("paper: best window, CIB (%d)", best_cib) at best_cib, graph 0.5 center rotate by 90 offset -2,0 font ",8"
}
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
# (b) PCIe reads per operation: counted (uncore) and the model's expected
unset label
unset arrow
set title "(b) the requester's PCIe reads per operation (Figure 13a)" noenhanced
unset logscale y
set yrange [*:*]
# the model's flat lines (1 and 0 reads) clear of the panel's border
set offsets 0, 0, graph 0.15, graph 0.1
set ylabel "PCIe reads per operation (64-byte cache lines)"
if (inx(best_cx3)) { set arrow from best_cx3, graph 0 to best_cx3, graph 1 nohead dt 3 lc rgb "#444444" }
if (inx(best_cib)) { set arrow from best_cib, graph 0 to best_cib, graph 1 nohead dt 3 lc rgb "#444444" }
if (!haspcie) {
    set label 2 pcienote."\nthis panel: the model's lines only" at graph 0.03, graph 0.6 left front font ",8" noenhanced
}
plot data using (column("window")):(pcbar("median", "read")):(pcbar("min", "read")):(pcbar("max", "read")) with yerrorbars ls 1 notitle, \
     data using (column("window")):(pcsel("read")) with linespoints ls 1 title (haspcie ? kt("read", "READ, counted (uncore)") : ""), \
     data using (column("window")):(pcbar("median", "write")):(pcbar("min", "write")):(pcbar("max", "write")) with yerrorbars ls 2 notitle, \
     data using (column("window")):(pcsel("write")) with linespoints ls 2 title (haspcie ? kt("write", "WRITE, counted (uncore)") : ""), \
     limits using (column("x")):(mreads("model-reads-read")) with lines lc 1 dt 2 lw 1.5 title "PCIe model (paper's hardware): READ, its WQE (1 line; 8 B, by doorbell)", \
     limits using (column("x")):(mreads("model-reads-write")) with lines lc 2 dt 4 lw 1.5 title "PCIe model (paper's hardware): WRITE, inline by MMIO (nothing read)"
unset multiplot
