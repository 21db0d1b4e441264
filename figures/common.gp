# figures/common.gp: terminal, styles and helpers shared by the figure
# scripts. figures/plot sets: fmt (png|pdf|eps), cairo (1: the cairo
# terminals; 0: plain png), out (path without extension),
# data (the measured summary.csv; a header-only file when there is none),
# ref (imported reference summary, same columns; header-only when none),
# paper (paper-atc16.csv), subtitle (hardware and kernel of the measured
# series), caption (the claims' verdicts; may be empty), soft (1 for soft-RoCE),
# hasrecv (1 when the summary has the receiver side: server_recv_mops_* and
# recv_loss_pct_*), hasnoisy (1 when the summary has the
# noisy column), cvpct (the run's noisy_cv_pct).
if (!exists("fmt")) fmt = "png"
if (!exists("soft")) soft = 0
if (!exists("hasdata")) hasdata = 1
if (!exists("rows")) rows = 1
if (!exists("hasnoisy")) hasnoisy = 0
if (!exists("hasrecv")) hasrecv = 0
if (!exists("cvpct")) cvpct = "20"
# fmt eps (and png with cairo = 0): gnuplot's plain postscript and png
# (libgd) terminals, for a gnuplot built without cairo (figures/plot checks)
if (!exists("cairo")) cairo = 1
if (fmt eq "pdf") {
    set terminal pdfcairo enhanced color font "Helvetica,8" size 10in,(3.6 * rows + 0.4)in
    set output out.".pdf"
} else {
    if (fmt eq "eps") {
        set terminal postscript eps enhanced color font "Helvetica,8" size 10in,(3.6 * rows + 0.4)in
        set output out.".eps"
    } else {
        if (cairo) {
            set terminal pngcairo enhanced color font "Helvetica,10" size 1300,(470 * rows + 50)
        } else {
            set terminal png enhanced size 1300,(470 * rows + 50)
        }
        set output out.".png"
    }
}
set datafile separator comma
set datafile columnheaders
set grid
# the key below the plot, outside the data: a key inside a panel covers
# whatever points or reference marks fall in its corner (tests/bats/
# exp_legible.bats). A figure script does not move it inside.
set key outside top left Left reverse horizontal maxcols 2 box noenhanced font ",8" height 0.8 spacing 1.2
set pointsize 0.9
# the colours of `lc N` (series drawn by number, as sweep.gp does): dark
# enough on white for thin dashed lines and small marks; gnuplot's own 5th
# (yellow) and 3rd (pale sky blue) were hard to see
set linetype 1 lc rgb "#1f77b4"
set linetype 2 lc rgb "#d62728"
set linetype 3 lc rgb "#2ca02c"
set linetype 4 lc rgb "#9467bd"
set linetype 5 lc rgb "#8c564b"
set linetype 6 lc rgb "#e377c2"
set linetype 7 lc rgb "#7f7f7f"
set linetype 8 lc rgb "#ff7f0e"
set linetype cycle 8
# measured series: solid lines with min/max error bars; reference: open marks
set style line 1 lc rgb "#1f77b4" lw 2 pt 7
set style line 2 lc rgb "#d62728" lw 2 pt 5
set style line 3 lc rgb "#2ca02c" lw 2 pt 9
set style line 4 lc rgb "#9467bd" lw 2 pt 11
set style line 5 lc rgb "#8c564b" lw 2 pt 13
set style line 11 lc rgb "#1f77b4" lw 1 dt 2 pt 6
set style line 12 lc rgb "#d62728" lw 1 dt 2 pt 4
set style line 13 lc rgb "#2ca02c" lw 1 dt 2 pt 8
set style line 14 lc rgb "#9467bd" lw 1 dt 2 pt 10
set style line 19 lc rgb "#444444" lw 1 dt 3 pt 12 ps 1.6
mtag = soft ? " [soft-RoCE]" : ""
# a measured value of a point that is not failed, else NaN (not drawn)
okv(v) = (strcol("status") eq "failed") ? NaN : v
# a noisy point (summary column noisy = yes: the CV of its repetitions
# above the run's noisy_cv_pct) gets a large hollow ring over its mark:
# plot data using (X):(noisy(Y)) with points ls 20 title ntitle
noisy(v) = hasnoisy ? ((strcol("noisy") eq "yes") ? okv(v) : NaN) : NaN
set style line 20 lc rgb "#000000" lw 1.5 pt 6 ps 2.6
if (!exists("anynoisy")) anynoisy = 1
ntitle = anynoisy ? "ring: noisy point (CV over repetitions > ".cvpct." %)" : ""
# a client-bound point (summary column client_bound = yes, rbcsv.py aggregate:
# the next-higher load of the run still raised its Mops by more than the
# run's client_bound_pct) gets a large open triangle over its mark: the
# requesters, not the responder's NIC, set its rate (figures/plot sets
# anycb, the number of such points, 0 without the column):
# plot data using (X):(cbound(Y)) with points ls 21 title cbtitle
if (!exists("anycb")) anycb = 0
cbound(v) = anycb ? ((strcol("client_bound") eq "yes") ? okv(v) : NaN) : NaN
set style line 21 lc rgb "#000000" lw 1.5 pt 8 ps 2.8
cbtitle = anycb ? "open triangle: client-bound (more load still raised the rate)" : ""
# has(k): the measured series k (values of the [experiment] series columns
# joined by ":", e.g. "read:rc") has a drawable point (figures/plot sets
# present); a series without one gets no key entry: title (has(k) ? T : "")
if (!exists("present")) present = ""
has(k) = strstrt(present, " ".k." ") > 0
kt(k, t) = has(k) ? t : ""
# the same for the series with a receive rate (presentrecv) and with a
# noisy point (pnoisy): rk("16:1", T), nk("16:1") (the ring's key entry)
if (!exists("presentrecv")) presentrecv = ""
if (!exists("pnoisy")) pnoisy = present
rk(k, t) = strstrt(presentrecv, " ".k." ") > 0 ? t : ""
nk(k) = strstrt(pnoisy, " ".k." ") > 0
# rows of paper-atc16.csv for one figure and kind
isref(fig, kind) = (strcol("figure") eq fig && strcol("kind") eq kind)
# the caption line under the plot (figures/plot: caption, the verdicts of
# the paper's shape claims, as make compare-N judges them): label 90 at the
# bottom of the page, with room kept for it below the x label. A script
# with several panels unsets label 90 after its first plot, so that it is
# drawn once.
if (!exists("caption")) caption = ""
if (strlen(caption) > 0) {
    set label 90 caption at screen 0.01, screen 0.012 left front font ",8" noenhanced
    set bmargin 4.5
}
# reference only (no measured data): the y range comes from the reference
# values drawn (gnuplot's autoscale; a script draws no panel without a
# point); reflin: they span less than a decade (figures/plot: rylog = 0),
# so a script draws its reference-only panel on a linear axis from 0
# rather than on a log axis with fewer than 3 labelled ticks:
#   if (reflin) { unset logscale y; set yrange [0:*] }
if (!exists("rylog")) rylog = 1
reflin = (!hasdata && !rylog)
# plain numbers on log axes (1000, 0.001), not 1000.000000
set format y "%g"
# linfmt(hi): the tick format of a linear axis whose values reach hi: "%g",
# but below 0.01 (soft-RoCE's rates in Mops), where %g writes 5e-05 beside
# 0.0001, fixed decimals enough for a tick step of an eighth of hi or more
# (gnuplot steps 1, 2, 5 x 10^k over at most about 8 ticks: "%.5f" for 0.0005)
# mfmt: that format for the measured values as drawn (figures/plot: mhi,
# the tops of their min..max bars); a script sets it on its linear
# measured panel (set format y mfmt) and "%g" back after
linfmt(hi) = (hi == hi && hi > 0 && hi < 0.01) ? sprintf("%%.%df", ceil(-log10(hi / 8))) : "%g"
if (!exists("mhi")) mhi = NaN
mfmt = linfmt(mhi)
