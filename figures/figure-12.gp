# figures/figure-12.gp: Figure 12, inbound READ (RC) and UC WRITE throughput
# vs payload, many clients to one server. Left: Mops; right: Gb/s of payload
# with the paper's stated inbound READ bandwidth and the PCIe limits the
# model computes for the paper's hardware at the server
# (figures/reference/model-limits.csv, figures/model-limits), and, when
# the measured hosts reported a PCIe link, the same limits on their link
# (dashed; figures/host-limits.awk). A client-bound point (a higher load in
# the run still raised its rate: rbcsv.py aggregate) wears an open triangle on
# both panels. Where the rows have the server's port counters
# (srv_delivered_mops, rbcsv.py aggregate) the Mops panel draws the responder's
# delivered rate dashed beside the requesters' completion rate: a UC WRITE
# the responder dropped counts in the one, not the other. Run by
# figures/plot.
load figdir."/common.gp"
limits = figdir."/reference/model-limits.csv"
# a model limit in Gb/s of payload: Mops x bytes x 8 / 1000
limgbps(s) = (strcol("figure") eq "fig12" && strcol("series") eq s) ? column("y") * column("x") * 8 / 1000 : NaN
# the same on the measured hosts' own link (figures/plot: hostlim, from the
# rows' model_limit_mops where the hosts reported a PCIe link; empty on
# soft-RoCE: no PCI device)
if (!exists("hostlim")) { hostlim = limits; hostlink = "" }
if (!exists("hasdeliv")) hasdeliv = 0
hostgbps(vb, tr) = (strcol("verb") eq vb && strcol("transport") eq tr && strcol("y") ne "") ? column("y") * column("size_bytes") * 8 / 1000 : NaN
sel(v, vb, tr) = (strcol("verb") eq vb && strcol("transport") eq tr) ? okv(v) : NaN
# READ and WRITE often measure the same rate (soft-RoCE: the kernel's
# per-packet cost, whatever the verb), and WRITE, drawn second, would hide
# READ: READ is a wide line with filled circles, WRITE a narrow line with
# larger open squares on top of it, so that both show where they coincide
# (the values are never moved)
set style line 31 lc rgb "#1f77b4" lw 4 pt 7 ps 0.9
set style line 32 lc rgb "#d62728" lw 1.5 pt 4 ps 1.6
# no measured data: the Gb/s panel alone (the Mops panel has no reference)
set multiplot layout 1,(hasdata ? 2 : 1) title (exists("figtitle") ? figtitle : "Figure 12 (Section 5.3.1): inbound READ (RC) and UC WRITE throughput vs payload")."\n".subtitle noenhanced
set logscale x 2
# x range from the data (figures/plot: dxlo, dxhi), else the paper's 4 to 1024 bytes
if (exists("dxlo")) { set xrange [dxlo / 1.5 : dxhi * 1.5] } else { set xrange [2:2048] }
set logscale y
set xlabel "payload (bytes)"
if (hasdata) {
    set ylabel "throughput (Mops, 10^6 operations/s)"
    # Mops: no reference on this panel, so linear where the data span less
    # than a decade (figures/plot: dylog); the Gb/s panel keeps log (the
    # paper's 112 Gb/s is decades above soft-RoCE)
    # and from 0 (a flat result must not fill the panel from 3.96 to 4.04)
    if (exists("dylog") && !dylog) { unset logscale y; set yrange [0:*]; set offsets 0, 0, graph 0.08, 0; set format y mfmt }
    plot data using (column("size_bytes")):(sel(column("mops_median"), "read", "rc")):(column("mops_min")):(column("mops_max")) with yerrorlines ls 31 title kt("read:rc", "READ (RC), measured".mtag), \
         data using (column("size_bytes")):(sel(column("mops_median"), "write", "uc")):(column("mops_min")):(column("mops_max")) with yerrorlines ls 32 title kt("write:uc", "WRITE (UC), measured".mtag), \
         data using (column("size_bytes")):(hasdeliv ? sel(column("srv_delivered_mops_median"), "read", "rc") : NaN) with linespoints ls 31 lw 1.5 dt 2 pt 6 ps 1.4 title (hasdeliv ? kt("read:rc", "READ (RC), delivered at the responder (its port counters)") : ""), \
         data using (column("size_bytes")):(hasdeliv ? sel(column("srv_delivered_mops_median"), "write", "uc") : NaN) with linespoints ls 32 lw 1 dt 2 pt 5 ps 0.9 title (hasdeliv ? kt("write:uc", "WRITE (UC), delivered at the responder (its port counters)") : ""), \
         data using (column("size_bytes")):(noisy(column("mops_median"))) with points ls 20 title ntitle, \
         data using (column("size_bytes")):(cbound(column("mops_median"))) with points ls 21 title cbtitle
    # the caption line once (common.gp)
    unset label 90
    set autoscale y
    set offsets 0, 0, 0, 0
    set format y "%g"
}
set ylabel "throughput (Gb/s of payload)"
set logscale y
if (reflin) { unset logscale y; set yrange [0:*] }
# the model's READ and WRITE limits lie within 3 % of each other from 128 B
# on (there both are the link's rate), so that two lines of one dash type
# read as one: READ dashed, WRITE dotted (these hosts' link: dash-dot and
# dash-dot-dot), each named at its right end, READ's name above its line
# and WRITE's below (READ's limit is the higher one at every payload).
# lend: the largest payload of the model's table within the x range
xend = exists("dxhi") ? dxhi * 1.5 : 2048
stats limits using (strcol("figure") eq "fig12" && column("x") <= xend ? column("x") : NaN) nooutput
lend = STATS_max
endlab(s, t) = (column("x") == lend) ? limgbps(s) : NaN
# the paper's point is labelled above it (the model's lines pass beside it);
# its key entry gives 5.3.1's words: CIB saturates 112 Gbps (InfiniBand
# bandwidth) with 64-byte READs; the model's READ limit counts payload and
# sits below it (docs/model.md)
plot data using (column("size_bytes")):(sel(column("gbps_median"), "read", "rc")):(column("gbps_min")):(column("gbps_max")) with yerrorlines ls 31 title kt("read:rc", "READ (RC), measured".mtag), \
     data using (column("size_bytes")):(sel(column("gbps_median"), "write", "uc")):(column("gbps_min")):(column("gbps_max")) with yerrorlines ls 32 title kt("write:uc", "WRITE (UC), measured".mtag), \
     data using (column("size_bytes")):(noisy(column("gbps_median"))) with points ls 20 notitle, \
     data using (column("size_bytes")):(cbound(column("gbps_median"))) with points ls 21 notitle, \
     limits using (column("x")):(limgbps("read-rc")) with lines ls 11 dt 2 title "PCIe model (paper's hardware): READ limit at the server", \
     limits using (column("x")):(limgbps("write-uc")) with lines ls 12 lw 1.5 dt 3 title "PCIe model (paper's hardware): WRITE limit at the server", \
     limits using (column("x")):(endlab("read-rc", 0)):("model: READ limit") with labels right offset -0.5,0.7 tc rgb "#1f77b4" font ",8" notitle, \
     limits using (column("x")):(endlab("write-uc", 0)):("model: WRITE limit") with labels right offset -0.5,-0.7 tc rgb "#d62728" font ",8" notitle, \
     hostlim using (column("size_bytes")):(hostgbps("read", "rc")) with lines ls 11 dt 4 title (hostlink ne "" ? "PCIe model (these hosts' link, ".hostlink."): READ limit" : ""), \
     hostlim using (column("size_bytes")):(hostgbps("write", "uc")) with lines ls 12 lw 1.5 dt 5 title (hostlink ne "" ? "PCIe model (these hosts' link, ".hostlink."): WRITE limit" : ""), \
     paper using (column("x")):(isref("fig12", "point") ? column("y") : NaN) with points ls 19 title "paper text (CIB, 5.3.1): 64 B READs saturate 112 Gb/s of InfiniBand bandwidth", \
     paper using (column("x")):(isref("fig12", "point") ? column("y") : NaN):(sprintf(" %s %s, %s", strcol("y"), (strcol("unit") eq "Gbps" ? "Gb/s" : strcol("unit")), strcol("cluster"))) with labels center offset 0,1.2 font ",8" notitle
unset multiplot
