# experiments/lib/joblog_failed.awk: one failed row for every job that GNU
# parallel's job log shows as failed or killed (e.g. by --timeout) and that
# left no rows.csv. Input files: grid.tsv (point index, name=value...),
# then jobs.tsv when the run groups sizes ([run] group_sizes: a job's index
# and its points; a failed job gives one row per point), then the joblog.
# Variables: run_dir, exp_name, run_id, timeout_s.
FNR == 1 && FILENAME ~ /grid\.tsv$/ { grid = 1 }
FILENAME ~ /jobs\.tsv$/ { grid = 0; split($0, jf, "\t"); jobs[++nj] = jf[2]; next }
FNR == 1 && FILENAME !~ /grid\.tsv$/ { grid = 0; next }
grid {
    n = split($0, g, "\t")
    npoints++
    kv[$1] = ""
    for (i = 2; i <= n; i++) {
        name = substr(g[i], 1, index(g[i], "=") - 1)
        if (name ~ /^--/ || name == "procs" || name == "iters" || name == "qps" || name == "duration_s") {
            if (name == "procs") procs[$1] = substr(g[i], index(g[i], "=") + 1)
            continue
        }
        names[name] = 1
        val[$1, name] = substr(g[i], index(g[i], "=") + 1)
    }
    next
}
{
    split($0, j, "\t")
    seq = j[1]; runtime = j[4]; exitval = j[7]; sig = j[8]
    if (exitval == 0 && sig == 0) next
    if ((getline dummy < (run_dir "/points/" seq "/rows.csv")) > 0) { close(run_dir "/points/" seq "/rows.csv"); next }
    close(run_dir "/points/" seq "/rows.csv")
    why = ""
    if ((getline why < (run_dir "/points/" seq "/reason")) > 0) close(run_dir "/points/" seq "/reason")
    # exit 143 = 128 + 15: the job's TERM trap ran (the timeout's TERM, or
    # an interrupt), and the job log's signal column then says 0: name TERM
    if (sig == 0 && exitval == 143) sig = 15
    if (sig != 0 || exitval == -1 || exitval == 143)
        why = "killed (signal " sig ", exit " exitval ") after " runtime " s; point timeout " timeout_s " s"
    else if (why == "")
        why = "job exited " exitval " without rows"
    if (nj) {
        rep = int((seq - 1) / nj) + 1
        np = split(jobs[(seq - 1) % nj + 1], pl, " ")
        for (i = 1; i <= np; i++) rows[++nrows] = seq SUBSEP pl[i] SUBSEP rep SUBSEP why
        next
    }
    point = (seq - 1) % npoints + 1
    rep = int((seq - 1) / npoints) + 1
    rows[++nrows] = seq SUBSEP point SUBSEP rep SUBSEP why
}
END {
    if (nrows == 0) exit
    hdr = "run_id,proc_index,role"
    nn = 0
    for (name in names) order[++nn] = name
    for (i = 1; i <= nn; i++) hdr = hdr "," order[i]
    print hdr ",status,reason,exp_name,exp_point,exp_rep,exp_procs,exp_seq"
    for (r = 1; r <= nrows; r++) {
        split(rows[r], x, SUBSEP)
        line = csv_quote(run_id) ",0,client"
        for (i = 1; i <= nn; i++) line = line "," val[x[2], order[i]]
        p = (x[2] in procs) ? procs[x[2]] : 1
        print line ",failed," csv_quote(x[4]) "," csv_quote(exp_name) "," x[2] "," x[3] "," p "," x[1]
    }
}
