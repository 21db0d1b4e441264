# figures/figure-2.gp: Figure 2 from the PCIe model (bench/model/pcie_model.c),
# analytic: per PCIe generation, (a) one lane's payload rate and (b) the TLP
# overhead (request and completion header + link + framing bytes); (c) the
# host-to-device bytes to move N bytes host -> NIC by DMA read vs by MMIO, as
# 2.1 compares them, with the DMA read's requests (device-to-host) apart.
# Run by figures/figure-2, which sets lanes and bytes (the CSV tables of
# build/rb_model --figure2 lanes|bytes), linkdesc (the link of panel c),
# fmt, cairo and out.
load figdir."/common.gp"
# three panels: the TLP overhead (20-26 bytes, linear) has a panel of its
# own; on a right-hand axis over the lane rates' log axis its lines crossed
# the left axis' range and grid, and read as rates of 10000-40000 MB/s
set multiplot layout 1,3 title "Figure 2 (Section 2.1): PCIe from the PCIe model (analytic, no measurement)\n".linkdesc."\n " noenhanced
set title "(a) one lane's payload rate per generation" noenhanced
set xlabel "PCIe generation"
set ylabel "payload rate of one lane (MB/s, after 8b/10b or 128b/130b)"
set logscale y
# the lane rates as a dot plot with their values (a bar's length means
# nothing on a log axis)
set yrange [100:10000]
set xrange [0.4:5.6]
set xtics 1
# the key above the panel (common.gp), not over the points
plot lanes using (column("gen")):(column("lane_mb_per_s")) with points ls 1 pt 7 ps 1.6 title "lane payload rate (MB/s)", \
     lanes using (column("gen")):(column("lane_mb_per_s")):(sprintf("%.0f", column("lane_mb_per_s"))) with labels offset 0,0.8 font ",8" notitle
set title "(b) TLP overhead per generation" noenhanced
set ylabel "TLP overhead (bytes: header + sequence + LCRC + framing)"
unset logscale y
set yrange [0:30]
# request and completion apart by a fifth of a generation (the x axis is
# a category here), each value labelled: the completion's below its point
plot lanes using (column("gen") - 0.12):(column("request_header_bytes")) with linespoints ls 2 title "request TLP overhead (B)", \
     lanes using (column("gen") + 0.12):(column("completion_header_bytes")) with linespoints ls 3 title "completion TLP overhead (B)", \
     lanes using (column("gen") - 0.12):(column("request_header_bytes")):(sprintf("%d", column("request_header_bytes"))) with labels offset 0,0.9 font ",8" notitle, \
     lanes using (column("gen") + 0.12):(column("completion_header_bytes")):(sprintf("%d", column("completion_header_bytes"))) with labels offset 0,-0.9 font ",8" notitle
set title "(c) host-to-device bytes to move N bytes host -> NIC (2.1)" noenhanced
set logscale x 2
set logscale y 2
set autoscale x
set xtics (8, 16, 32, 64, 128, 256, 512, 1024)
set autoscale y
set xlabel "transfer size N (bytes)"
set ylabel "PCIe bytes (host-to-device; dashed: device-to-host)"
# 2.1 compares the host-to-device bytes: DMA read completions (N + 22 B
# per C_rc = 128 B) vs write-combined MMIO (64 + 26 B per cache line). The
# DMA read's requests go the other way (device-to-host) and are drawn apart,
# dashed, not added to the comparison.
plot bytes using (column("transfer_bytes")):(column("dma_read_h2d_bytes")) with linespoints ls 1 title "DMA read: completions (N + a completion header per C_rc bytes)", \
     bytes using (column("transfer_bytes")):(column("mmio_h2d_bytes")) with linespoints ls 2 title "MMIO: a cache line + a request header per line", \
     bytes using (column("transfer_bytes")):(column("transfer_bytes")) with lines ls 19 title "the N bytes alone", \
     bytes using (column("transfer_bytes")):(column("dma_read_d2h_bytes")) with linespoints ls 3 dt 2 title "DMA read requests (device-to-host: the other direction)"
unset multiplot
