# c-ctx-params.awk FILE.c: the functions defined in FILE.c whose parameters
# name a struct rb_ctx * ("FILE:LINE: NAME"); read by tests/bats/
# bench_structure.bats. A definition: a signature from column 0 (over
# one or more lines) followed by a line starting with "{".
# function definitions of a C file (column-0 signature, possibly over
# several lines, then a line starting "{") whose parameters name struct rb_ctx *
/^[A-Za-z_]/ && !/^(typedef|struct [a-z_]+ \{|enum|#)/ && /\(/ { sig = $0; start = FNR; open = 1; if ($0 ~ /\)[ \t]*$/) open = 0; next }
open && !/^\{/ { sig = sig " " $0; if ($0 ~ /\)[ \t]*$/) open = 0; next }
/^\{/ && sig != "" { if (sig ~ /struct rb_ctx \*/) { s = sig; sub(/\(.*/, "", s); n = split(s, w, /[ *]+/); printf "%s:%d: %s\n", FILENAME, start, w[n] } sig = ""; next }
{ sig = ""; open = 0 }
