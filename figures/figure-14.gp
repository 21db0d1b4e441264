# figures/figure-14.gp: Figure 14, atomics throughput vs number of counters.
# Measured fetch_add and cmp_swap with min/max bars; the paper's stated
# values (CX3 plateau, CIB peak) as horizontal reference lines. Run by
# figures/plot.
load figdir."/common.gp"
sel(v, vb) = (strcol("verb") eq vb) ? okv(v) : NaN
# x range from the data (figures/plot: dxlo, dxhi), else the paper's 1 to 1024 counters
xlo = exists("dxlo") ? dxlo : 1; xhi = exists("dxhi") ? dxhi : 1024
# the CIB peak is stated "at many counters": drawn at one place whatever
# was measured, 1024 counters (the right end of the paper's figure), and
# the x axis reaches it
pmax = 1024
if (xhi < pmax) { xhi = pmax }
# one panel, as a multiplot: the title above, the key between it and the panel (common.gp)
set multiplot layout 1,1 title (exists("figtitle") ? figtitle : "Figure 14 (Section 5.4): atomics throughput vs number of counters")."\n".subtitle noenhanced
set logscale x 2
set logscale y
# reference only, within a decade: linear from 0 (common.gp: reflin)
if (reflin) { unset logscale y; set yrange [0:*] }
set xrange [xlo * 0.8 : xhi * 1.25]
set xlabel "atomic counters (distinct 8-byte targets)"
set ylabel "throughput (Mops, 10^6 operations/s)"
# paper: one value per cluster, stated for "any" or the "max" number of counters
plot data using (column("atomic_counters")):(sel(column("mops_median"), "fetch_add")):(column("mops_min")):(column("mops_max")) with yerrorlines ls 1 title kt("fetch_add", "FETCH_AND_ADD, measured".mtag), \
     data using (column("atomic_counters")):(sel(column("mops_median"), "cmp_swap")):(column("mops_min")):(column("mops_max")) with yerrorlines ls 2 title kt("cmp_swap", "CMP_AND_SWAP, measured".mtag), \
     data using (column("atomic_counters")):(noisy(column("mops_median"))) with points ls 20 title ntitle, \
     paper using (xlo):(isref("fig14", "point") && strcol("x") eq "any" ? column("y") : NaN):(xhi - xlo):(0) with vectors nohead ls 19 title "paper text, CX3: any number of counters", \
     paper using (pmax):(isref("fig14", "point") && strcol("x") eq "max" ? column("y") : NaN) with points ls 19 title "paper text, CIB: the peak, at many counters", \
     paper using (xlo):(isref("fig14", "point") && strcol("x") eq "any" ? column("y") : NaN):(sprintf("paper %s: %s Mops (%s counters)", strcol("cluster"), strcol("y"), strcol("x"))) with labels left offset 0,0.7 font ",8" notitle, \
     paper using (pmax):(isref("fig14", "point") && strcol("x") eq "max" ? column("y") : NaN):(sprintf("paper %s: %s Mops (many counters, drawn at %d)", strcol("cluster"), strcol("y"), pmax)) with labels right offset -1,0 font ",8" notitle
unset multiplot
