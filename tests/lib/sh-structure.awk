# tests/lib/sh-structure.awk: the shape of shell scripts, for the structure
# rules of tests/bats/bench_structure.bats. For each FILE, one line per
# finding, tab-separated:
#   function <FILE:LINE> <NAME> <LINES>   every function definition, its
#                                       length from the "NAME() {" line to
#                                       its closing line, both counted
#   toplevel <FILE> <LINES>             the lines of code outside every
#                                       function (comments and blank lines
#                                       not counted; a here-document's body
#                                       at top level is code)
#   defines  <FILE:LINE> <NAME>         a definition of die or warn
# A function is "NAME() {" (or "function NAME() {", or "(" for a subshell
# body) and ends at the first line, outside a here-document, that starts
# with "}" or ")" at the definition's own indentation: the layout of every
# script here (shfmt's). A definition with its body on the same line is
# one line long.

function heredoc_start(line,    m, w) {
	if (line ~ /^[ \t]*#/)
		return 0
	# "<<WORD", "<<-WORD", "<< 'WORD'", not "<<<" (a here-string)
	if (!match(line, /(^|[^<])<<-?[ \t]*['"]?[A-Za-z_][A-Za-z0-9_]*['"]?/))
		return 0
	m = substr(line, RSTART, RLENGTH)
	sub(/^[^<]?<<-?[ \t]*['"]?/, "", m)
	sub(/['"]$/, "", m)
	hdend = m
	return 1
}

# start_function LINE NR: a definition starts at line NR (LINE its text):
# its name, indentation and start; a die or warn reported
function start_function(line, nr) {
	fnm = line
	sub(/^[ \t]*(function[ \t]+)?/, "", fnm)
	sub(/[ \t]*\(\).*/, "", fnm)
	match(line, /^[ \t]*/)
	ind = substr(line, 1, RLENGTH)
	fstart = nr
	if (fnm == "die" || fnm == "warn")
		printf "defines\t%s:%d\t%s\n", fname, nr, fnm
}

function report_file() {
	if (fname != "")
		printf "toplevel\t%s\t%d\n", fname, top
}

FNR == 1 { if (pend) top++; report_file(); fname = FILENAME; top = 0; infn = 0; inhd = 0; pend = 0 }

inhd {
	if ($0 ~ ("^[\t]*" hdend "[ \t]*$"))
		inhd = 0
	if (!infn)
		top++
	next
}

infn {
	if (substr($0, 1, length(ind) + 1) == ind "}" || substr($0, 1, length(ind) + 1) == ind ")") {
		printf "function\t%s:%d\t%s\t%d\n", fname, fstart, fnm, FNR - fstart + 1
		infn = 0
		next
	}
	inhd = heredoc_start($0)
	next
}

# "NAME()" alone, its body opened on the next line
pend && /^[ \t]*[{(]/ {
	pend = 0
	start_function(pline, pstart)
	infn = 1
	next
}
pend { pend = 0; top++ }

/^[ \t]*(function[ \t]+)?[A-Za-z_][A-Za-z0-9_:.-]*[ \t]*\(\)[ \t]*(#.*)?$/ {
	pend = 1
	pline = $0
	pstart = FNR
	next
}

/^[ \t]*(function[ \t]+)?[A-Za-z_][A-Za-z0-9_:.-]*[ \t]*\(\)[ \t]*[{(]/ {
	start_function($0, FNR)
	rest = $0
	sub(/^[^)]*\)[ \t]*/, "", rest)
	# the body closed on this line: "f() { ...; }", "f() ( ... )"
	if (rest ~ /^[{(].*[})][ \t;]*(#.*)?$/) {
		printf "function\t%s:%d\t%s\t1\n", fname, FNR, fnm
		next
	}
	infn = 1
	next
}

/^[ \t]*(#.*)?$/ { next }

{
	top++
	inhd = heredoc_start($0)
}

END { if (pend) top++; report_file() }
