# ci/cg-objects.awk: a callgrind output file's instructions (self cost, event
# Ir) summed per object (the program, each shared library), so that
# ci/bench-run can say where a client's instructions per operation go: the
# provider (librxe), libc, the tool's own code.
#
# Usage: awk -f ci/cg-objects.awk FILE
# Output: one line per object, "INSTRUCTIONS NAME" (the name's directory
# dropped; "???" for code callgrind could not map), then "total N", which
# equals the file's summary: line.
# The format (valgrind's callgrind format specification): ob=(id) [name]
# sets the object of the fn= entries that follow (the name only with the
# id's first use: name compression); a cost line is POSITION COST; the cost
# line after a calls= line is the inclusive cost of that call (counted in
# the callee's own lines, so skipped here); cob= names a call's object (and
# may be an id's first use) but does not change the current one.
/^c?ob=/ {
  id = $1; sub(/^c?ob=/, "", id)
  if (NF > 1) { n = $NF; sub(/.*\//, "", n); name[id] = n }
  if ($0 ~ /^ob=/) cur = id
  next
}
/^calls=/ { skip = 1; next }
/^[-+*0-9]/ {
  if (skip) { skip = 0; next }
  cost[cur] += $NF
  total += $NF
}
END {
  for (o in cost) printf "%d %s\n", cost[o], (o in name) ? name[o] : o
  printf "total %d\n", total
}
