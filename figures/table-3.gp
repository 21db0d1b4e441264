# figures/table-3.gp: Table 3, the sequencer summary. Writes the table
# twice beside the figure, OUT.csv and OUT.md (figures/table-3.awk: per
# series the measured peak Mrps over the server threads with its
# min..max and CV, the threads there, Mrps per thread, responses per
# doorbell; the paper's peak, cores and Mrps per core beside them), and
# draws the peaks: measured (left) and the paper's (right). Run by
# figures/plot.
load figdir."/common.gp"
tawk = sprintf("awk -f '%s/../experiments/lib/csv.awk' -f '%s/table-3.awk'", figdir, figdir)
system(sprintf("%s -v fmt=csv '%s' '%s' > '%s.csv'", tawk, data, paper, out))
# the Markdown table under the figure's title and subtitle (hardware,
# repetitions and spread, QUICK or not)
set print out.".md"
print "# ".(exists("figtitle") ? figtitle : "Table 3 (Section 4.2): sequencer summary")
print ""
print subtitle
print ""
unset print
system(sprintf("%s -v fmt=md '%s' '%s' >> '%s.md'", tawk, data, paper, out))
# no measured run: the paper's panel alone (no empty panel)
set multiplot layout 1,(hasdata ? 2 : 1) title (exists("figtitle") ? figtitle : "Table 3 (Section 4.2): sequencer summary")."\n".subtitle noenhanced
set style fill solid 0.6 border -1
set boxwidth 0.6
set xtics rotate by -20 noenhanced
set yrange [0:*]
# headroom above the tallest bar for its two-line label
set offsets 0, 0, graph 0.2, 0
unset key
# the rotated series names take two lines below the axis; the caption
# (common.gp, label 90) goes below them
if (strlen(caption) > 0) { set bmargin 6.5 }
set datafile separator comma
tab = out.".csv"
# each bar's label: its value, and Mrps per server thread where the series
# has server threads, placed above the bar's min..max error bar
lab(v, pt) = sprintf("%.3g", v).(pt eq "" ? "" : sprintf("\n%.3g/thread", real(pt)))
top(v, hi) = (hi > v ? hi : v)
if (hasdata) {
    # min..max bars solid, with caps, off the bar's centre line (a dotted
    # grey bar there could not be told from the grid); a ring over a bar
    # whose CV exceeds the run's noisy_cv_pct (the subtitle's count)
    set title "measured".mtag.": peak over the server threads (Mrps), min..max bars; ring: noisy (CV > ".cvpct." %)" noenhanced
    set ylabel "throughput (Mrps)"
    set xrange [-0.7:4.7]
    set errorbars 2
    set format y mfmt
    plot tab using 0:(column("peak_mrps")):xtic(strcol("series")) with boxes ls 1, \
         tab using 0:(column("peak_mrps")):(column("peak_mrps_min")):(column("peak_mrps_max")) with yerrorbars lc rgb "#000000" lw 1.5 pt 0, \
         tab using 0:(strcol("peak_mrps_cv_pct") ne "" && column("peak_mrps_cv_pct") > cvpct ? column("peak_mrps") : NaN) with points ls 20, \
         tab using 0:(top(column("peak_mrps"), column("peak_mrps_max"))):(lab(column("peak_mrps"), strcol("mrps_per_server_thread"))) with labels offset 0,1.4 font ",8"
    # the caption line once (common.gp)
    unset label 90
    set format y "%g"
}
set yrange [0:*]
set ylabel "throughput (Mrps)"
set xrange [-0.7:4.7]
set title "paper: Connect-IB, 70 client processes (Figure 7's points)" noenhanced
plot tab using 0:(column("paper_peak_mrps")):xtic(strcol("series")) with boxes ls 2, \
     tab using 0:(column("paper_peak_mrps")):(strcol("paper_cores_at_peak") eq "" ? sprintf("%s\nno server CPU", strcol("paper_peak_mrps")) : sprintf("%s\n%s cores, %s/core", strcol("paper_peak_mrps"), strcol("paper_cores_at_peak"), strcol("paper_mrps_per_core"))) with labels offset 0,1.4 font ",8"
unset multiplot
