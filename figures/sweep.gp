# figures/sweep.gp: the generic figure of a sweep, for the original
# artifact's presets (swarm, allsig: `plot = sweep`) and for any experiment
# folder without a figure script of its own: Mops vs `xcol`, one line per
# value of `scol`, one panel per value of `pcol` (if any); measured solid
# with min/max bars, the original artifact's imported sweep log dashed in
# the same colour. figures/plot sets xcol, scol, pcol, svals, pvals (the
# values present), figtitle, per (the parameter file's [experiment] per:
# "process" divides each point's total by its client processes, exp_procs,
# as the original artifact's per-machine averages; else the total over the
# point's processes, as summary.csv holds it) and, from the data, dxlog and
# dylog (logarithmic axes where the values span a factor of 8 on x, more
# than 10 on y; linear otherwise).
load figdir."/common.gp"
np = (pcol eq "") ? 1 : words(pvals)
ncols = (np <= 3) ? np : 3
nrows = int((np + ncols - 1) / ncols)
if (!exists("per")) per = ""
# the original's unit beside per = process (its logs: per client machine),
# in the reference note: the y label has no room for it
perunit = (per eq "process") ? ", per client machine" : ""
if (!exists("dxlog")) dxlog = 0
if (!exists("dylog")) dylog = 0
if (!exists("figtitle")) figtitle = name
# per = process: total over the point's client processes / processes
div(v) = (per eq "process") ? v / column("exp_procs") : v
at(v, s, p) = (strcol(scol) eq s && (pcol eq "" || strcol(pcol) eq p)) ? div(v) : NaN
atm(v, s, p) = (strcol("status") eq "failed") ? NaN : at(v, s, p)
# the reference rows of one original run r (exp_name; figures/plot: rruns,
# the runs present): a dashed line joins the points of one run only (a
# preset's log may hold a 6-machine and a 90-machine sweep)
if (!exists("rruns")) rruns = ""
nruns = (words(rruns) > 0) ? words(rruns) : 1
atr(v, s, p, r) = (r eq "" || strcol("exp_name") eq r) ? at(v, s, p) : NaN
# each original run its own dash and marks (rruns: the main one first),
# the main one dashed with hollow marks, another one dash-dot with small
# filled marks: allsig-32b_reads-varnum_vms's two runs (6 machines, peers
# 18..90; 11 machines, peers 11..99) drew one colour, shape and dash per
# window and their lines interleaved. rtagN (figures/plot): the knobs that
# set run N apart, named in the key
rdt(k) = word("2 4 5 3", (k - 1) % 4 + 1) + 0
rpt(j, k) = (k == 1) ? opt(j) : fpt(j)
# (filled marks smaller with each series, so that a later one at the same
# place sits inside an earlier one instead of covering it)
rps(j, k) = (k == 1) ? ops(j) : 0.6 * ops(words(svals) - j + 1)
rtag(k) = exists(sprintf("rtag%d", k)) ? value(sprintf("rtag%d", k)) : ""
rname(k) = (strlen(rtag(k)) > 0) ? "original, ".rtag(k) : "original"
# run k has rows in panel p (figures/plot: rpanN, "|16|32|"): its key entry
# only in those panels (swarm-32b_read's 90-peer run has no
# signal_interval=16 rows: its entry there named nothing drawn)
rpan(k) = exists(sprintf("rpan%d", k)) ? value(sprintf("rpan%d", k)) : ""
rin(k, p) = (pcol eq "" || rpan(k) eq "" || strstrt(rpan(k), "|".p."|") > 0)
if (!exists("hasref")) hasref = 1
# labels of the reference points of original runs other than the main one
# (figures/plot: rtags, a file from figures/runtags.awk: panel, x, y, text,
# side: l = the text starts at the point, above it; r = it ends there,
# below it (swarm-32b_read's 28-thread points sit right of and below the
# main run's lines: text above them crossed the window=8 line; it ends 2
# characters left of the point, past the largest of the run's hollow
# marks, ops(6) = 2.5 times a point's size: half a character left, the
# text ended on them); one labels
# plot per side, the other side's text empty: a labels plot whose every y
# is NaN beside another one crashed gnuplot 5.4;
# empty when there is none; no file: /dev/null, never '' = the last file)
if (!exists("rtags")) rtags = ""
rtagf = (strlen(rtags) > 0) ? rtags : "/dev/null"
# the reference note joins the subtitle's last text line ("; "), above the
# blank line figures/plot ends the subtitle with (the key's room)
n = strlen(subtitle)
blank = (n >= 2 && subtitle[n - 1:n] eq "\n ") ? 1 : 0
subtext = blank ? subtitle[1:n - 2] : subtitle
refnote = hasref ? ((strlen(subtext) > 0 ? "; " : "")."dashed: original artifact (imported sweep log".perunit.")") : ""
set multiplot layout nrows, ncols title figtitle."\n".subtext.refnote.(blank ? "\n " : "") noenhanced
if (dylog) { set logscale y }
if (dxlog) { set logscale x 2 }
set xlabel (exists("xlab") ? xlab : xcol) noenhanced
# the y label no longer than a panel's frame is high (two rows of panels:
# about 45 characters); a longer one ran off the image's bottom below the
# lower row and up beside the key above the upper one: what the label
# leaves out, the subtitle's reference note says (perunit)
if (per eq "process") {
    set ylabel "Mops per client process"
} else {
    set ylabel "Mops, total over client processes"
}
# reference data alone: its own y range (common.gp fixes one for an empty plot);
# a linear axis starts at 0 in every panel, so panels compare
if (hasref) { set autoscale y }
# linear: from 0, every panel to the same top (the largest value drawn in
# any panel, figures/plot: dyhi, with room for the labels above it), so
# that panels side by side compare (swarm-32b_read's ran to 60 and to 70)
if (!dylog) { set yrange [0:*]; set format y mfmt }
if (!dylog && exists("dyhi") && np > 1) { set yrange [0:dyhi * 1.3] }
# the key (common.gp: outside, above the panel) names the series column in
# every entry ("window=8"): a key title overprints the key's box
set key font ",7" noenhanced
set offsets 0, 0, graph 0.3, 0
# each series its own mark shape, measured filled (fpt) and the original's
# hollow (opt), the original's a little larger with each series (ops), so
# that series whose values coincide (swarm-16b_uc_write's signal
# intervals, swarm-48b_read's, allsig-varsize_reads' windows) nest their
# marks instead of hiding one another under one shape; the panel's key
# names them (figures/plot: coinN, from figures/coincide.awk)
fpt(j) = word("7 5 9 11 13 15", (j - 1) % 6 + 1) + 0
opt(j) = word("6 4 8 10 12 14", (j - 1) % 6 + 1) + 0
ops(j) = 1 + 0.3 * ((j - 1) % 6)
coin(i) = exists(sprintf("coin%d", i)) ? value(sprintf("coin%d", i)) : ""
# nothing to draw (a preset of the paper's whose text states ratios only,
# e.g. figure-11b, before its first run): one empty panel that says so,
# instead of gnuplot's "x range is invalid"
if (!hasdata && !hasref) {
    set xrange [0:1]; set yrange [0:1]; unset xtics; unset ytics; unset logscale
    set label 91 "no measured run and no reference values: run make ".name." (QUICK=1 on the soft-RoCE bed)" at graph 0.5, graph 0.5 center font ",9" noenhanced
    plot NaN notitle
    unset multiplot
    exit
}
do for [i = 1:np] {
    p = (pcol eq "") ? "" : word(pvals, i)
    if (pcol ne "") { set title pcol." = ".p noenhanced } else { unset title }
    plot for [j = 1:words(svals)] data using (column(xcol)):(atm(column("mops_median"), word(svals, j), p)):(at(column("mops_min"), word(svals, j), p)):(at(column("mops_max"), word(svals, j), p)) with yerrorlines lc j lw 2 pt fpt(j) title scol."=".word(svals, j).mtag, \
         data using (column(xcol)):(noisy(at(column("mops_median"), strcol(scol), p))) with points ls 20 title (i == 1 ? ntitle : ""), \
         for [j = 1:words(svals)] for [k = 1:nruns] ref using (column(xcol)):(atr(column("mops_median"), word(svals, j), p, word(rruns, k))) with linespoints lc j lw 1 dt rdt(k) pt rpt(j, k) ps rps(j, k) title ((hasref && k == 1) ? scol."=".word(svals, j)." (".rname(1).")" : ""), \
         for [k = 2:nruns] keyentry with linespoints lc rgb "#444444" lw 1 dt rdt(k) pt fpt(1) ps 0.6 title ((hasref && rin(k, p)) ? rname(k).": ".word("dashed dash-dot dash-dot-dot dotted", (k - 1) % 4 + 1).", small filled marks in each series' colour" : ""), \
         keyentry with points lc rgb "white" pt 0 title coin(i), \
         rtagf using 2:((pcol eq "" || strcol(1) eq p) ? $3 : NaN):(strcol(5) eq "r" ? strcol(4) : "") with labels right offset char -2, char -1.2 font ",7" noenhanced notitle, \
         rtagf using 2:((pcol eq "" || strcol(1) eq p) ? $3 : NaN):(strcol(5) eq "l" ? strcol(4) : "") with labels left offset char 0.5, char 0.8 font ",7" noenhanced notitle
    # the caption line once (common.gp)
    unset label 90
}
unset multiplot
