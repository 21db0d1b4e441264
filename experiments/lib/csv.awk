# experiments/lib/csv.awk: CSV helpers for the awk programs that must run
# inside the VM test bed, whose image has busybox awk and no python3
# (ci/rowcheck, env/timeout-suggest; POSIX awk: gawk, mawk, busybox awk).
# The runner's CSV tools on the host are experiments/lib/rbcsv.py (Python's
# csv module); the figures' small awk helpers and joblog_failed.awk still
# use these until they move there too.
#
# csv_split(line, f): split one CSV line into f[1..n] (fields as written,
# quotes kept, so a field can be written back unchanged); returns n.
# Quoted fields may hold commas and doubled quotes; no embedded newlines.
function csv_split(line, f,    n, i, c, q, cur) {
    n = 0; cur = ""; q = 0
    sub(/\r$/, "", line)
    for (i = 1; i <= length(line); i++) {
        c = substr(line, i, 1)
        if (q) {
            cur = cur c
            if (c == "\"") q = 0
        } else if (c == "\"") {
            cur = cur c; q = 1
        } else if (c == ",") {
            f[++n] = cur; cur = ""
        } else {
            cur = cur c
        }
    }
    f[++n] = cur
    return n
}

# csv_val(s): the value of a field (outer quotes removed, "" -> ")
function csv_val(s) {
    if (s ~ /^".*"$/) {
        s = substr(s, 2, length(s) - 2)
        gsub(/""/, "\"", s)
    }
    return s
}

# csv_quote(s): a value as a CSV field
function csv_quote(s) {
    if (s ~ /[",]/) { gsub(/"/, "\"\"", s); return "\"" s "\"" }
    return s
}
