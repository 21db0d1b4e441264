# figures/host-limits.awk: the PCIe model's limit on the measured hosts' own
# link, from a run's raw.csv (with experiments/lib/csv.awk), for the figure
# scripts' "these hosts" limit lines.
#
#   awk -f experiments/lib/csv.awk -f figures/host-limits.awk raw.csv
#
# Every client process row (thread "all", status ok) whose host reported a
# PCIe link (model_link not "none": rdma_bench read the RDMA device's
# current_link_speed/width from sysfs) gives its point's limit,
# model_limit_mops (the lowest of either host's DMA, MMIO and link limits
# on the client's link; the server is assumed to have the same link). Out:
# verb,transport,postlist,size_bytes,y,link,bound,reason; one row per
# (verb, transport, postlist, size) in input order (its first row's
# values), to be sorted by the caller (series by the first three, then x). No row with a link (soft-RoCE: no PCI device): one row
# with y empty and reason = the first model_reason seen (e.g. "no PCI
# device behind rxe0 (soft-RoCE or no link files) ..."), or "no ok client
# row" when there is none.
function q(s) { gsub(/"/, "\"\"", s); return "\"" s "\"" }
function v(name) { return (name in c) ? csv_val(f[c[name]]) : "" }
NR == 1 {
    n = csv_split($0, h)
    for (i = 1; i <= n; i++) c[h[i]] = i
    print "verb,transport,postlist,size_bytes,y,link,bound,reason"
    next
}
{
    csv_split($0, f)
    if (v("thread") != "all" || v("status") != "ok" || (v("role") != "" && v("role") != "client"))
        next
    link = v("model_link"); y = v("model_limit_mops")
    if (link == "" || link == "none" || y == "") {
        if (why == "") why = v("model_reason")
        next
    }
    k = v("verb") SUBSEP v("transport") SUBSEP v("postlist") SUBSEP v("size_bytes")
    if (k in seen) next
    seen[k] = 1; rows++
    printf "%s,%s,%s,%s,%s,%s,%s,\n", v("verb"), v("transport"), v("postlist"), v("size_bytes"), y,
        q(link), q(v("model_bound"))
}
END {
    if (rows == 0)
        printf ",,,,,,,%s\n", q(why != "" ? why : "no ok client row")
}
