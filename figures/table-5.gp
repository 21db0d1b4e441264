# figures/table-5.gp: Table 5, header-only (SEND_WITH_IMM, 0-byte payload)
# vs regular SEND/RECV throughput. Left: measured, one bar per (verb,
# inline) point: the server's RECV rate with min/max bars, the senders'
# rate as marks, each bar labelled with its value and the messages lost
# (recv_loss_pct: the share of the senders' rate the server did not
# receive); then the values the paper states; last, the RECV-side PCIe
# limits the model computes for the paper's hardware
# (figures/reference/model-limits.csv, figures/model-limits).
# Run by figures/plot.
load figdir."/common.gp"
limits = figdir."/reference/model-limits.csv"
# no measured data: the paper's and the model's panels (no empty panel)
set multiplot layout 1,(hasdata ? 3 : 2) title (exists("figtitle") ? figtitle : "Table 5 (Section 5.2.2): header-only vs regular SEND/RECV throughput")."\n".subtitle noenhanced
set style fill solid 0.6 border -1
set boxwidth 0.6
set ylabel "throughput (Mops)"
set xtics rotate by -20 noenhanced
# the rotated tick labels need more room above the caption line (common.gp)
if (strlen(caption) > 0) set bmargin 6
unset key
if (hasdata) {
    set yrange [0:*]
    set title "measured".mtag.": bars RECV rate at the server, marks the senders' rate" noenhanced
    set xrange [-0.7:3.7]
    # the RECV rate (server_recv_mops, what Table 5 states)
    rv(c) = okv(column("server_recv_mops_".c))
    plot data using 0:(rv("median")):xticlabels(sprintf("%s %dB inline %s", strcol("verb"), column("size_bytes"), strcol("inline"))) with boxes ls 1 notitle, \
         data using 0:(rv("median")):(rv("min")):(rv("max")) with yerrorbars lc rgb "black" pt 0 notitle, \
         data using 0:(okv(column("mops_median"))) with points ls 2 pt 9 ps 1.5 notitle, \
         data using 0:(noisy(column("mops_median"))) with points ls 20 notitle, \
         data using 0:(rv("median")):(hasrecv ? sprintf("%.3g, lost %.0f %%", rv("median"), column("recv_loss_pct_median")) : sprintf("%.3g", rv("median"))) with labels offset 0,0.8 font ",8" notitle
    # the caption line once (common.gp)
    unset label 90
}
set title "paper text (ATC'16)" noenhanced
set yrange [0:*]
# the paper's rows are a few rows of paper-atc16.csv: show just those
stats paper using (isref("table5", "point") ? $0 : NaN) nooutput
set xrange [STATS_min - 0.7 : STATS_max + 0.7]
# the paper's panel and the model's share one y range (same unit, read
# side by side): up to the larger of the two panels' tallest bars
tlim(v) = (strcol("figure") eq "table5") ? v : NaN
stats paper using (isref("table5", "point") ? column("y") : NaN) nooutput
ytop = STATS_max
stats limits using (tlim(column("y"))) nooutput
ytop = (STATS_max > ytop ? STATS_max : ytop) * 1.15
set yrange [0:ytop]
plot paper using 0:(isref("table5", "point") ? column("y") : NaN):xticlabels(strcol("figure") eq "table5" ? sprintf("%s (%s)", strcol("series"), strcol("cluster")) : "") with boxes ls 12 notitle, \
     paper using 0:(isref("table5", "point") ? column("y") : NaN):(sprintf("%s", strcol("y"))) with labels offset 0,0.8 font ",8" notitle
# the caption line once (common.gp), also when there is no measured panel
unset label 90
set title "PCIe model, paper's hardware: RECV-side limit" noenhanced
stats limits using (tlim($0)) nooutput
set xrange [STATS_min - 0.7 : STATS_max + 0.7]
# room above the tallest bar for its value
set offsets 0, 0, graph 0.08, 0
plot limits using 0:(tlim(column("y"))):xticlabels(strcol("figure") eq "table5" ? sprintf("%s (%s-bound)", strcol("series"), strcol("bound")) : "") with boxes ls 13 notitle, \
     limits using 0:(tlim(column("y"))):(sprintf("%.4g", column("y"))) with labels offset 0,0.8 font ",8" notitle
unset multiplot
