# figures/figure-7.gp: Figure 7, the sequencer's throughput vs server
# threads (rdma_seq, case study 1). Left: measured, one line per series
# (atomics at 0 server threads: no server CPU; herd-rpc without and with
# doorbell batching, with 3 response UD QPs per thread; spec-s0), median
# of the repetitions with min..max bars, each series dodged a little in x;
# the subtitle states the spread (CV of Mrps over the repetitions:
# figures/subtitle.awk), a ring marks a noisy point (the same CV). Right: the paper's values
# (CIB, 70 client processes; figures/reference/paper-atc16.csv rows fig7).
# Run by figures/plot.
load figdir."/common.gp"
# a measured series: variant, batch and ud_qps of the row
ser(v, b, q) = (strcol("variant") eq v && (b eq "" || strcol("batch") eq b) && (q eq "" || strcol("ud_qps") eq q)) ? okv(column("mrps_median")) : NaN
# the paper's points, one block per series (rows of one series are not
# adjacent in paper-atc16.csv; a line joins only adjacent rows)
isp(s) = isref("fig7", "point") && strcol("series") eq s
set table $P1
plot paper using (0):(column("y")) with table if (isp("atomics"))
set table $P2
plot paper using (column("x")):(column("y")) with table if (isp("herd-rpc-baseline"))
set table $P3
plot paper using (column("x")):(column("y")) with table if (isp("herd-rpc-batching"))
set table $P4
plot paper using (column("x")):(column("y")) with table if (isp("herd-rpc-batching-3qp"))
set table $P5
plot paper using (column("x")):(column("y")) with table if (isp("spec-s0"))
unset table
# no measured run: the paper's panel alone (no empty panel)
set multiplot layout 1,(hasdata ? 2 : 1) title (exists("figtitle") ? figtitle : "Figure 7 (Section 4.2): sequencer throughput vs server threads")."\n".subtitle noenhanced
set xlabel "server threads (atomics: 0, no server CPU)"
set ylabel "throughput (Mrps, 10^6 requests/s)"
set key top left font ",8"
set xrange [-0.3:*]
set yrange [0:*]
set offsets 0, 0.3, graph 0.25, 0
if (hasdata) {
    set title "measured".mtag noenhanced
    set format y mfmt
    # server threads are whole numbers; the herd-rpc series and spec-s0
    # share their x values, so each is drawn dodged by a fraction of a
    # thread (dx), and the noisy ring over its own mark
    set xtics 1
    # the row's series' place: atomics 0, then the herd-rpc series and
    # spec-s0 side by side, 0.16 thread apart: wider than a ring over the
    # bed's 0-2 threads (0.07 apart, the rings of the four series at 1
    # thread overlapped one another)
    dodge(unused) = strcol("variant") eq "atomics" ? 0 : (strcol("variant") eq "spec-s0" ? 1.5 : (strcol("batch") eq "off" ? -1.5 : (strcol("ud_qps") eq "3" ? 0.5 : -0.5)))
    dx(t) = t + 0.16 * dodge(0)
    # a ring in its series' colour (lc variable: the linetype of the
    # series' style, common.gp), so that a ring names its series where the
    # points crowd; the key's ring stays black
    ringc(unused) = strcol("variant") eq "atomics" ? 5 : (strcol("variant") eq "spec-s0" ? 4 : (strcol("batch") eq "off" ? 1 : (strcol("ud_qps") eq "3" ? 3 : 2)))
    # key entries only for the series with a drawn point (has: figures/plot)
    plot data using (dx(column("server_threads"))):(ser("atomics", "", "")):(column("mrps_min")):(column("mrps_max")) with yerrorlines ls 5 title kt("atomics::", "atomics (FETCH_AND_ADD, one counter)"), \
         data using (dx(column("server_threads"))):(ser("herd-rpc", "off", "1")):(column("mrps_min")):(column("mrps_max")) with yerrorlines ls 1 title kt("herd-rpc:off:1", "herd-rpc baseline (one post per response)"), \
         data using (dx(column("server_threads"))):(ser("herd-rpc", "on", "1")):(column("mrps_min")):(column("mrps_max")) with yerrorlines ls 2 title kt("herd-rpc:on:1", "herd-rpc + doorbell batching"), \
         data using (dx(column("server_threads"))):(ser("herd-rpc", "on", "3")):(column("mrps_min")):(column("mrps_max")) with yerrorlines ls 3 title kt("herd-rpc:on:3", "herd-rpc + batching + 3 UD QPs"), \
         data using (dx(column("server_threads"))):(ser("spec-s0", "on", "")):(column("mrps_min")):(column("mrps_max")) with yerrorlines ls 4 title kt("spec-s0:on:1", "spec-s0 (header-only UD, batched)"), \
         data using (dx(column("server_threads"))):(noisy(column("mrps_median"))):(ringc(0)) with points ls 20 lc variable notitle, \
         keyentry with points ls 20 title (strlen(ntitle) > 0 ? ntitle.", in its series' colour" : ""), \
         keyentry with points lc rgb "white" pt 0 title "series at one thread count drawn side by side (0.16 thread apart)"
    unset xtics
    set xtics
    # the caption line once (common.gp)
    unset label 90
    set format y "%g"
}
set title "paper (Section 4.2, Figure 7): Connect-IB, 70 client processes" noenhanced
set xlabel "server cores (atomics: no server CPU, drawn at 0)"
set xrange [-0.3:10.5]
# a little below 0 (3 % of the paper's largest value): the atomics mark
# (2.24 Mrps of up to 122) sat on the bottom frame
stats paper using (isref("fig7", "point") ? column("y") : NaN) nooutput
set yrange [-0.03 * STATS_max:*]
set offsets 0, 0, graph 0.25, 0
# the blocks are whitespace-separated, without a header line
set datafile separator whitespace
set datafile nocolumnheaders
plot $P1 using 1:2 with points ls 5 ps 1.5 title "atomics 2.24 Mrps", \
     $P2 using 1:2 with linespoints ls 11 title "herd-rpc baseline", \
     $P3 using 1:2 with linespoints ls 12 title "+ doorbell batching", \
     $P4 using 1:2 with linespoints ls 13 title "+ 3 UD QPs", \
     $P5 using 1:2 with points ls 14 ps 1.5 title "spec-s0 122 Mrps"
unset multiplot
