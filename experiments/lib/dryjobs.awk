# experiments/lib/dryjobs.awk: experiments/run --dry-run's job lines. Input:
# grid.tsv.args (one line per job of one repetition: the job's knob values,
# plain words separated by spaces); -v reps=N, -v point=PATH. Output: the
# sweep's jobs in its order, repetitions outermost, numbered from 1 as
# GNU parallel's {#}: "POINT SEQ REP VALUE...", a word with a character
# outside [A-Za-z0-9_./-] single-quoted (as parallel -q shows it).
function q(s) {
    if (s ~ /^[A-Za-z0-9_.\/-]+$/) return s
    gsub(/'/, "'\"'\"'", s)
    return "'" s "'"
}
{ job[++n] = $0 }
END {
    for (r = 1; r <= reps; r++)
        for (i = 1; i <= n; i++) {
            k = split(job[i], w, " ")
            line = q(point) " " ++seq " " r
            for (j = 1; j <= k; j++) line = line " " q(w[j])
            print line
        }
}
