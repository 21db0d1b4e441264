# figures/figure-11.gp: Figure 11, UD SEND throughput vs payload. (a)
# doorbell batching: postlist 1 vs 16, one QP; (b) batched with 1, 2, 4 QPs.
# The paper's stated rates and PCIe limits (CIB) as horizontal lines in (a).
# Run by figures/plot.
load figdir."/common.gp"
sel(v, pl, q) = (column("postlist") == pl && column("qps_per_thread") == q) ? okv(v) : NaN
# x range from the data (figures/plot: dxlo, dxhi), else the paper's 4 to 1024 bytes
xlo = exists("dxlo") ? dxlo : 4; xhi = exists("dxhi") ? dxhi : 1024
set multiplot layout 1,2 title (exists("figtitle") ? figtitle : "Figure 11: UD SEND throughput vs payload")."\n".subtitle noenhanced
set logscale x 2
set logscale y
set xrange [xlo * 0.8 : xhi * 1.25]
set xlabel "payload (bytes)"
set ylabel "throughput (Mops, 10^6 SENDs/s)"
set key bottom left
set title "(a) doorbell batching (postlist), 1 QP" noenhanced
plot data using (column("size_bytes")):(sel(column("mops_median"), 16, 1)):(column("mops_min")):(column("mops_max")) with yerrorlines ls 1 title "batched (postlist 16), measured".mtag, \
     data using (column("size_bytes")):(sel(column("mops_median"), 1, 1)):(column("mops_min")):(column("mops_max")) with yerrorlines ls 2 title "not batched (postlist 1), measured".mtag, \
     data using (column("size_bytes")):(column("qps_per_thread") == 1 ? noisy(column("mops_median")) : NaN) with points ls 20 title ntitle, \
     paper using (xlo):(isref("fig11", "point") ? column("y") : NaN):(xhi - xlo):(0) with vectors nohead ls 19 title "paper text (CIB), small payloads", \
     paper using (xlo):(isref("fig11", "limit") ? column("y") : NaN):(xhi - xlo):(0) with vectors nohead lc rgb "#999999" dt 4 title "paper's PCIe model limits", \
     paper using (xlo):(strcol("figure") eq "fig11" ? column("y") : NaN):(sprintf("%s: %s Mops", strcol("series"), strcol("y"))) with labels left offset 0,0.6 font ",7" notitle
set title "(b) batched (postlist 16), QPs per thread" noenhanced
plot data using (column("size_bytes")):(sel(column("mops_median"), 16, 1)):(column("mops_min")):(column("mops_max")) with yerrorlines ls 1 title "1 QP, measured".mtag, \
     data using (column("size_bytes")):(sel(column("mops_median"), 16, 2)):(column("mops_min")):(column("mops_max")) with yerrorlines ls 3 title "2 QPs, measured".mtag, \
     data using (column("size_bytes")):(sel(column("mops_median"), 16, 4)):(column("mops_min")):(column("mops_max")) with yerrorlines ls 4 title "4 QPs, measured".mtag, \
     data using (column("size_bytes")):(column("postlist") == 16 ? noisy(column("mops_median")) : NaN) with points ls 20 title ntitle
unset multiplot
