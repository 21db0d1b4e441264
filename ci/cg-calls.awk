# ci/cg-calls.awk: the instructions spent inside every call of one function
# (its inclusive cost, summed over all its callers), read from a callgrind
# output file; ci/bench-run takes perftest's sort of its latency samples
# (qsort, after the measured loop) out of its instructions per operation.
#
# Usage: awk -v name=FUNCTION -f ci/cg-calls.awk FILE FILE   (the file twice)
# Output: one number (0 when the function is never called).
# The format (valgrind's callgrind format specification): a call is
#   cfn=(id) [name]     the called function; the name only with the id's
#                       first use anywhere in the file (name compression)
#   calls=COUNT TARGET  then one cost line: POSITION... COST (the inclusive
#                       cost of those calls; one event, Ir)
# The first pass finds the id of `name` (from fn= or cfn=), the second sums
# the cost lines after its calls= lines.
FNR == NR {
  if (match($0, /^c?fn=\([0-9]+\) /) && substr($0, RLENGTH + 1) == name) { id = $1; sub(/^c?fn=/, "", id) }
  next
}
/^cfn=/ { c = $1; sub(/^cfn=/, "", c); cur = (id != "" && c == id); next }
/^calls=/ { want = cur; next }
want { s += $NF; want = 0 }
END { print s + 0 }
