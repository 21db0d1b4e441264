# figures/sweep.gp: one figure for a sweep of the original artifact's presets
# (swarm, allsig): throughput per client machine vs `xcol`, one line per
# value of `scol`, one panel per value of `pcol` (if any); measured solid
# with min/max bars, the original artifact's imported sweep log dashed in
# the same colour. figures/plot sets xcol, scol, pcol, svals, pvals (the
# values present), ttl and name from the experiment's parameter file.
load figdir."/common.gp"
np = (pcol eq "") ? 1 : words(pvals)
ncols = (np <= 3) ? np : 3
nrows = int((np + ncols - 1) / ncols)
# per client machine: total over the point's client processes / processes
at(v, s, p) = (strcol(scol) eq s && (pcol eq "" || strcol(pcol) eq p)) ? v / column("exp_procs") : NaN
atm(v, s, p) = (strcol("status") eq "failed") ? NaN : at(v, s, p)
set multiplot layout nrows, ncols title name.": ".ttl."\n".subtitle."; dashed: original artifact (imported sweep log)" noenhanced
set logscale y
if (xcol eq "window" || xcol eq "size_bytes") { set logscale x 2 }
set xlabel xcol noenhanced
set ylabel "throughput per client machine (Mops)"
set key bottom right font ",7" title scol noenhanced
do for [i = 1:np] {
    p = (pcol eq "") ? "" : word(pvals, i)
    if (pcol ne "") { set title pcol." = ".p noenhanced } else { unset title }
    plot for [j = 1:words(svals)] data using (column(xcol)):(atm(column("mops_median"), word(svals, j), p)):(at(column("mops_min"), word(svals, j), p)):(at(column("mops_max"), word(svals, j), p)) with yerrorlines lc j lw 2 pt 7 title word(svals, j).mtag, \
         data using (column(xcol)):(noisy(at(column("mops_median"), strcol(scol), p))) with points ls 20 title (i == 1 ? ntitle : ""), \
         for [j = 1:words(svals)] ref using (column(xcol)):(at(column("mops_median"), word(svals, j), p)) with linespoints lc j lw 1 dt 2 pt 6 title word(svals, j)." (original)"
}
unset multiplot
