# figures/figure-loss.gp: the fault-loss experiment (experiments/fault-loss):
# RC WRITE/READ, UC WRITE and UD SEND under packet loss injected with netem
# on the client's link. Four panels against the loss: (a) throughput,
# (b) p99 completion latency, (c) RC retransmissions and responder
# sequence errors per 1000 operations, (d) what the unreliable transports
# delivered of what they sent. A failed point (e.g. RC retry exceeded) has
# no value: it is marked with a cross at the bottom of (a) and (b) and its
# reason. Run by figures/plot (experiments/fault-loss/params: plot =
# figure-loss).
rows = 2
load figdir."/common.gp"
# nothing to draw: no measured run, and no reference (the paper has no such
# figure, no artifact log was imported): say so once, no empty panels
if (!exists("hasref")) hasref = 0
if (!hasdata && !hasref) {
    set title "Injected packet loss (experiments/fault-loss)\n".subtitle noenhanced
    unset border; unset tics; unset key; unset grid; unset xlabel; unset ylabel
    set xrange [0:1]; set yrange [0:1]
    set label 2 "nothing to draw: no measured run, and no reference values for this experiment (the paper has no such figure)\nmeasure it: make figure-loss" at graph 0.5, graph 0.5 center font ",11" noenhanced
    plot NaN notitle
    unset output
    exit
}
set style line 5 lc rgb "#ff7f0e" lw 2 pt 13
set style line 6 lc rgb "#8c564b" lw 2 pt 3
set style line 7 lc rgb "#555555" lw 1 dt 2

# the series: verb, transport, --retry-cnt (UC and UD ignore it) and title
SV = "write read write send write write"
ST = "rc rc uc ud rc rc"
SR = "7 7 7 7 1 0"
SN = "'RC WRITE' 'RC READ' 'UC WRITE' 'UD SEND' 'RC WRITE, --retry-cnt 1' 'RC WRITE, --retry-cnt 0 (ack timeout 1.07 s)'"
NS = words(SV)
is(i) = (strcol("verb") eq word(SV, i) && strcol("transport") eq word(ST, i) && \
         (word(ST, i) ne "rc" || strcol("retry_cnt") eq word(SR, i)))
sel(i, v) = is(i) ? okv(v) : NaN
# rows per series: a series without any row has no key entry
array N[NS]
do for [i=1:NS] { N[i] = 0 }
if (hasdata) {
    do for [i=1:NS] {
        stats data using (is(i) ? 1 : 0) nooutput
        N[i] = STATS_sum
    }
}
key(i, t) = (N[i] > 0) ? t : ""
# rows with a value for each panel: a panel without any gets a fixed y range
# (gnuplot cannot autoscale an axis without a point)
okrow(c) = strcol("status") ne "failed" && strcol(c) ne ""
na = 0; nc = 0; nd = 0; nf = 0; np = 0
if (hasdata) {
    stats data using (strcol("status") eq "failed" ? 1 : 0) nooutput
    nf = STATS_sum
    stats data using (strcol("status") eq "partial" ? 1 : 0) nooutput
    np = STATS_sum
    stats data using (okrow("mops_median") ? 1 : 0) nooutput
    na = STATS_sum
    stats data using (strcol("transport") eq "rc" && okrow("ctr_retry_median") && okrow("ops_median") ? 1 : 0) nooutput
    nc = STATS_sum
    stats data using (strcol("transport") ne "rc" && (okrow("srv_rcvd_pkts_median") || okrow("server_recvs_median")) ? 1 : 0) nooutput
    nd = STATS_sum
}
failed(i) = is(i) && strcol("status") eq "failed"
partial(i) = is(i) && strcol("status") eq "partial"
# the series of a row (0: none of them), and the height of its failed mark
sidx(dummy) = sum [i=1:NS] (is(i) ? i : 0)
ymark(i) = 0.04
# failed marks of series that fail at the same loss side by side (the
# retry-limited RC WRITE series, 5 and 6, about the loss itself)
xm(l, i) = xp(l) + 0.06 * (i - 5.5)
# the failure in a few words (the row's reason starts with where it happened)
why(r) = (strstrt(r, "retry counter exceeded") > 0) ? "retry exceeded" : \
        (strstrt(r, "RNR retry") > 0) ? "RNR retry exceeded" : \
        (strstrt(r, "timed out") > 0) ? "timed out" : \
        (strstrt(r, "killed") > 0) ? "killed" : "failed"
num(s) = (s eq "") ? NaN : real(s)
ratio(a, b) = (num(a) > 0 && num(b) == num(b)) ? 100.0 * num(b) / num(a) : NaN
per1k(o, c) = (num(o) > 0 && num(c) == num(c)) ? 1000.0 * num(c) / num(o) : NaN

# x: the loss in percent on a log axis; 0 (netem with 0% loss, the
# baseline) sits half a decade left of the smallest loss measured
zmin = 0.1
if (hasdata) {
    stats data using (column("loss_pct") > 0 ? column("loss_pct") : 1000) nooutput
    zmin = (STATS_min < 1000) ? STATS_min : zmin
}
zpos = log10(zmin) - 0.5
xp(l) = (l > 0) ? log10(l) : zpos
set xrange [zpos - 0.25 : 1.1]
# tics: the loss values of the data (xtic() in the plots), "0" included
set xtics () scale 1
if (!hasdata) { set xtics ("0" zpos, "0.1" -1, "1" 0, "10" 1) }
set xlabel "netem loss on the client's egress (% of packets)"
set mxtics 1
# failed points: a cross on the second y axis (0..1) at the bottom
set y2range [0:1]
unset y2tics

set multiplot layout 2,2 title "Injected packet loss: RC WRITE/READ, UC WRITE, UD SEND (64 B, window 16, netem loss on the client's egress)\n".subtitle noenhanced
set logscale y
set format y "%g"
# one key for the series, in (a); (b) and (c) use the same colours.
# Room above the data for the key, below it for the failed marks
set key top left inside maxrows 8 width 0 spacing 0.95
set offsets 0, 0, graph 0.7, graph 0.9
if (na == 0) { set yrange [0.0001:10] }

# the reasons beside the marks (only when a point failed: gnuplot cannot
# draw a labels plot without any label)
failedlabels = (nf > 0) ? ', data using (xm(column("loss_pct"), sidx(0))):(strcol("status") eq "failed" ? ymark(sidx(0)) : NaN):(strcol("status") eq "failed" ? why(strcol("reason")) : "") axes x1y2 with labels rotate by 90 left offset 0,1.3 font ",8" tc rgb "#444444" notitle' : ""
set title "(a) throughput" noenhanced
set ylabel "throughput (Mops, 10^6 operations/s)"
plot for [i=1:NS] data using (xp(column("loss_pct"))):(sel(i, column("mops_median"))):(column("mops_min")):(column("mops_max")):xtic(strcol("loss_pct")) \
         with yerrorlines ls i title key(i, word(SN, i).mtag), \
     for [i=1:NS] data using (xp(column("loss_pct"))):(sel(i, noisy(column("mops_median")))) \
         with points ls 20 title (i == 1 ? ntitle : ""), \
     NaN with points ls 19 pt 2 ps 1.6 lw 3 title (nf > 0 ? "x = failed point (no value), in the colour of its series" : ""), \
     NaN with points ls 19 pt 1 ps 1.6 lw 3 title (np > 0 ? "+ = some repetitions failed (the value: the others)" : ""), \
     for [i=1:NS] data using (xm(column("loss_pct"), i)):(failed(i) ? ymark(i) : NaN) axes x1y2 \
         with points ls i pt 2 ps 2.2 lw 3 notitle, \
     for [i=1:NS] data using (xm(column("loss_pct"), i)):(partial(i) ? ymark(i) : NaN) axes x1y2 \
         with points ls i pt 1 ps 2.2 lw 3 notitle @failedlabels

set title "(b) p99 completion latency (post to CQE of signaled WRs, under load)" noenhanced
set ylabel "p99 latency (us)"
set offsets 0, 0, graph 0.1, graph 0.3
set key off
plot for [i=1:NS] data using (xp(column("loss_pct"))):(sel(i, column("lat_p99_us_median"))):(column("lat_p99_us_min")):(column("lat_p99_us_max")):xtic(strcol("loss_pct")) \
         with yerrorlines ls i notitle, \
     for [i=1:NS] data using (xm(column("loss_pct"), i)):(failed(i) ? ymark(i) : NaN) axes x1y2 \
         with points ls i pt 2 ps 2.2 lw 3 notitle

set title "(c) RC recovery: device counters per 1000 operations" noenhanced
set ylabel "events per 1000 ops completed"
unset logscale y
set yrange [0:*]
if (nc == 0) { set yrange [0:10] }
set offsets 0, 0, graph 0.15, 0
set key off
set label 1 "solid: retries started by the client (completer_retry_err, measured window)\ndashed: out-of-sequence requests at the server (out_of_seq_request, whole point)" at graph 0.02, graph 0.95 left front font ",8" noenhanced
# retries: the client's completer_retry_err (+ local ack timeouts) in the
# window; sequence errors: the responder's out_of_seq_request (hook, whole point)
plot for [i=1:NS] data using (xp(column("loss_pct"))):(word(ST, i) eq "rc" ? sel(i, per1k(strcol("ops_median"), strcol("ctr_retry_median"))) : NaN):xtic(strcol("loss_pct")) \
         with linespoints ls i title (word(ST, i) eq "rc" ? word(SN, i).": retries (client)" : ""), \
     for [i=1:NS] data using (xp(column("loss_pct"))):(word(ST, i) eq "rc" ? sel(i, per1k(strcol("ops_median"), strcol("srv_seq_err_median"))) : NaN) \
         with linespoints ls i dt 2 pt 6 title (word(ST, i) eq "rc" ? word(SN, i).": sequence errors (server)" : "")

set title "(d) unreliable transports: delivered of sent" noenhanced
set ylabel "delivered / sent (%)"
unset label 1
set yrange [*:101]
if (nd == 0) { set yrange [80:101]; set key off }
set offsets 0, 0, 0, graph 0.45
set key bottom left inside maxrows 4 width 0
# device: packets the server's device received of those the client's
# device sent (hook counters; one packet per 64 B op); application: UD
# receive completions on the server (server_recvs) of the SENDs completed
# (ops; no warm-up), lower where the server had no receive posted
plot data using (xp(column("loss_pct"))):(sel(3, ratio(strcol("cli_sent_pkts_median"), strcol("srv_rcvd_pkts_median")))):xtic(strcol("loss_pct")) \
         with linespoints ls 3 title "UC WRITE: server device rcvd_pkts / client sent_pkts", \
     data using (xp(column("loss_pct"))):(sel(4, ratio(strcol("cli_sent_pkts_median"), strcol("srv_rcvd_pkts_median")))) \
         with linespoints ls 4 dt 2 pt 10 title "UD SEND: server device rcvd_pkts / client sent_pkts", \
     data using (xp(column("loss_pct"))):(sel(4, ratio(strcol("ops_median"), strcol("server_recvs_median")))) \
         with linespoints ls 4 title "UD SEND: server_recvs / ops (application)", \
     data using (xp(column("loss_pct"))):(is(3) ? 100 - column("loss_pct") : NaN) with lines ls 7 title "100 - loss"
unset multiplot
