# figures/figure-11.gp: Figure 11, UD SEND throughput vs payload. (a)
# doorbell batching: postlist 1 vs 16, one QP; (b) batched with 1, 2, 4 QPs.
# The paper's stated rates (CIB) as horizontal lines in (a), and the PCIe
# limits the model computes for the paper's hardware
# (figures/reference/model-limits.csv, written by figures/model-limits).
# With the receiver side in the summary (hasrecv: [run] summary_metrics has
# server_recv_mops): the rate the server received, dashed beside each
# sender's rate, and (c) the messages lost (recv_loss_pct: the share of the
# senders' rate the server did not receive).
# Run by figures/plot.
load figdir."/common.gp"
limits = figdir."/reference/model-limits.csv"
lim(s) = (strcol("figure") eq "fig11" && strcol("series") eq s) ? column("y") : NaN
# the same model on the measured hosts' own link (figures/plot: hostlim
# from the rows' model_limit_mops, hostlink "" on soft-RoCE: no PCI device)
if (!exists("hostlim")) { hostlim = limits; hostlink = "" }
hostsel(pl) = (strcol("verb") eq "send" && strcol("transport") eq "ud" && column("postlist") == pl && strcol("y") ne "") ? column("y") : NaN
hosttitle(t) = hostlink ne "" ? "PCIe model (these hosts' link, ".hostlink."): ".t : ""
sel(v, pl, q) = (column("postlist") == pl && column("qps_per_thread") == q) ? okv(v) : NaN
# the server's receive rate of a series (NaN without the receiver side)
rcv(c, pl, q) = hasrecv ? sel(column("server_recv_mops_".c), pl, q) : NaN
rt(k, t) = hasrecv ? rk(k, t) : ""
# the paper states its rates for "small" payloads: its lines end at 64 B
# (the batching claim's bound in experiments/figure-11/params)
smallhi = 64
# the paper's two rates each its own line and key entry, in the colour of
# the measured series they compare with (batched: blue dots; not batched:
# red dashes); one dotted grey style for both left a reader to
# guess which was which
# the paper's values, listed in one block (four lines within 0.13 decades
# would overprint as labels): "series: value Mops (CIB, point|limit)"
paperlist = ""
# (readable names, not the reference file's series tags)
pname(s) = s eq "ud-send-batched" ? "batched (postlist 16)" : (s eq "ud-send-nonbatched" ? "not batched" : \
           (s eq "pcie-dma-limit" ? "PCIe DMA limit" : (s eq "pcie-mmio-limit" ? "PCIe MMIO limit (2-cache-line WQE)" : s)))
do for [s in "ud-send-batched ud-send-nonbatched"] {
    stats paper using (strcol("figure") eq "fig11" && strcol("series") eq s ? column("y") : NaN) nooutput
    paperlist = paperlist.sprintf("%s: %g Mops\n", pname(s), STATS_max)
}
# the model's limits at 4 B (a 2-cache-line UD WQE)
paperlist = paperlist."PCIe model, paper's hardware, 4 B:\n"
do for [s in "pcie-dma-limit pcie-mmio-limit"] {
    stats limits using (column("x") == 4 ? lim(s) : NaN) nooutput
    paperlist = paperlist.sprintf("%s: %.4g Mops\n", pname(s), STATS_max)
}
# x range from the data (figures/plot: dxlo, dxhi); else, with no measured
# data, the payloads the paper states these values for (4 to smallhi
# bytes), or 4 to 1024
xlo = exists("dxlo") ? dxlo : 4; xhi = exists("dxhi") ? dxhi : (hasdata ? 1024 : smallhi)
# the values block: right of the panel, under the reference lines when they
# span the whole panel (reference only)
set label 1 "paper (CIB, small payloads):\n".paperlist at graph 0.98, graph (hasdata ? 0.72 : 0.4) right font ",7" noenhanced
# no measured data: panel (a) alone (panel b has no reference)
set multiplot layout 1,(hasdata ? (hasrecv ? 3 : 2) : 1) title (exists("figtitle") ? figtitle : "Figure 11 (Section 5.2.1): UD SEND throughput vs payload")."\n".subtitle noenhanced
set logscale x 2
set logscale y
# reference only, within a decade: linear from 0 (common.gp: reflin)
if (reflin) { unset logscale y; set yrange [0:*] }
set xrange [xlo * 0.8 : xhi * 1.25]
set xlabel "payload (bytes)"
set ylabel "throughput (Mops, 10^6 SENDs/s)"
# the title names panel (b): a reference-only figure has panel (a) alone
set title "(a) doorbell batching (postlist), 1 QP".(hasdata ? "" : "; (b) QPs per thread: with a measured run (the paper states no values)") noenhanced
plot data using (column("size_bytes")):(sel(column("mops_median"), 16, 1)):(column("mops_min")):(column("mops_max")) with yerrorlines ls 1 title kt("16:1", "batched (postlist 16), measured".mtag), \
     data using (column("size_bytes")):(sel(column("mops_median"), 1, 1)):(column("mops_min")):(column("mops_max")) with yerrorlines ls 2 title kt("1:1", "not batched (postlist 1), measured".mtag), \
     data using (column("size_bytes")):(rcv("median", 16, 1)):(rcv("min", 16, 1)):(rcv("max", 16, 1)) with yerrorlines ls 11 title rt("16:1", "batched, received at the server"), \
     data using (column("size_bytes")):(rcv("median", 1, 1)):(rcv("min", 1, 1)):(rcv("max", 1, 1)) with yerrorlines ls 12 title rt("1:1", "not batched, received at the server"), \
     data using (column("size_bytes")):(column("qps_per_thread") == 1 ? noisy(column("mops_median")) : NaN) with points ls 20 title ((nk("16:1") || nk("1:1")) ? ntitle : ""), \
     paper using (xlo):(isref("fig11", "point") && strcol("series") eq "ud-send-batched" ? column("y") : NaN):(smallhi - xlo):(0) with vectors nohead lc 1 lw 1.5 dt 3 title "paper text (CIB): batched (postlist 16), small payloads (drawn to ".smallhi." B)", \
     paper using (xlo):(isref("fig11", "point") && strcol("series") eq "ud-send-nonbatched" ? column("y") : NaN):(smallhi - xlo):(0) with vectors nohead lc 2 lw 1.5 dt (12, 8) title "paper text (CIB): not batched (postlist 1), small payloads", \
     limits using (column("x")):(lim("pcie-dma-limit")) with lines lc rgb "#999999" dt 4 title "PCIe model (paper's hardware): DMA limit, postlist 16", \
     limits using (column("x")):(lim("pcie-mmio-limit")) with lines lc rgb "#999999" dt 2 title "PCIe model (paper's hardware): MMIO limit, WQE-by-MMIO", \
     hostlim using (column("size_bytes")):(hostsel(16)) with lines ls 1 dt 4 title hosttitle("limit, postlist 16"), \
     hostlim using (column("size_bytes")):(hostsel(1)) with lines ls 2 dt 2 title hosttitle("limit, postlist 1")
unset label 1
# the caption line once (common.gp)
unset label 90
if (hasdata) {
    set title "(b) batched (postlist 16), QPs per thread" noenhanced
    plot data using (column("size_bytes")):(sel(column("mops_median"), 16, 1)):(column("mops_min")):(column("mops_max")) with yerrorlines ls 1 title kt("16:1", "1 QP, measured".mtag), \
         data using (column("size_bytes")):(sel(column("mops_median"), 16, 2)):(column("mops_min")):(column("mops_max")) with yerrorlines ls 3 title kt("16:2", "2 QPs, measured".mtag), \
         data using (column("size_bytes")):(sel(column("mops_median"), 16, 4)):(column("mops_min")):(column("mops_max")) with yerrorlines ls 4 title kt("16:4", "4 QPs, measured".mtag), \
         data using (column("size_bytes")):(column("postlist") == 16 ? noisy(column("mops_median")) : NaN) with points ls 20 title ((nk("16:1") || nk("16:2") || nk("16:4")) ? ntitle : ""), \
         data using (column("size_bytes")):(rcv("median", 16, 1)) with linespoints ls 11 title rt("16:1", "1 QP, received at the server"), \
         data using (column("size_bytes")):(rcv("median", 16, 2)) with linespoints ls 13 title rt("16:2", "2 QPs, received at the server"), \
         data using (column("size_bytes")):(rcv("median", 16, 4)) with linespoints ls 14 title rt("16:4", "4 QPs, received at the server")
}
if (hasdata && hasrecv) {
    # the loss: the share of the senders' rate the server did not receive
    # only a loss within [-5, 100] % is drawn (rbcsv.py aggregate leaves out a
    # repetition outside it; an older summary may still hold one)
    okloss(v) = (v >= -5 && v <= 100) ? v : NaN
    lost(c, pl, q) = okloss(sel(column("recv_loss_pct_".c), pl, q))
    unset logscale y
    set yrange [*:*]
    set ylabel "messages lost (% of the senders' rate)"
    set title "(c) lost: 1 - server's receive rate / senders' rate" noenhanced
    plot data using (column("size_bytes")):(lost("median", 1, 1)):(lost("min", 1, 1)):(lost("max", 1, 1)) with yerrorlines ls 2 title kt("1:1", "not batched, 1 QP"), \
         data using (column("size_bytes")):(lost("median", 16, 1)):(lost("min", 16, 1)):(lost("max", 16, 1)) with yerrorlines ls 1 title kt("16:1", "batched, 1 QP"), \
         data using (column("size_bytes")):(lost("median", 16, 2)):(lost("min", 16, 2)):(lost("max", 16, 2)) with yerrorlines ls 3 title kt("16:2", "batched, 2 QPs"), \
         data using (column("size_bytes")):(lost("median", 16, 4)):(lost("min", 16, 4)):(lost("max", 16, 4)) with yerrorlines ls 4 title kt("16:4", "batched, 4 QPs")
}
unset multiplot
