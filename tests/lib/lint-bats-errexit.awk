# tests/lib/lint-bats-errexit.awk: the errexit checks of tests/lint-bats (its
# header says which forms and why), over FILE.bats...; exit 1 when one is
# found
# ---- the characters of one line, quotes and substitutions blanked ----------
# Keeps state across lines (q: 0 none, 1 single, 2 double quotes; sub: depth
# of $( / <( ; dbr: inside [[ ]]). Quoted text becomes Q, a substitution S.
function strip(line,    out, i, n, c, c2) {
  out = ""; n = length(line)
  for (i = 1; i <= n; i++) {
    c = substr(line, i, 1); c2 = substr(line, i, 2)
    if (q == 1) { if (c == "\047") { q = 0 }; continue }
    if (q == 2) {
      if (c == "\\") { i++; continue }
      if (c2 == "$(") { dsub++; i++; continue }
      if (dsub > 0 && c == ")") { dsub--; continue }
      if (c == "\"" && dsub == 0) q = 0
      continue
    }
    if (sub_ > 0) {
      if (c == "\047") { q = 1; qret = 1; continue }
      if (c == "\"") { q = 2; continue }
      if (c2 == "$(" || c2 == "<(") { sub_++; i++; continue }
      if (c == "(") { sub_++; continue }
      if (c == ")") { sub_--; if (sub_ == 0) out = out "S"; continue }
      continue
    }
    if (dbr) { if (c2 == "]]") { dbr = 0; out = out "C ]]"; i++ }; continue }
    if (c == "\\") { if (i == n) cont = 1; i++; out = out "X"; continue }
    if (c == "\047") { q = 1; out = out "Q"; continue }
    if (c == "\"") { q = 2; dsub = 0; out = out "Q"; continue }
    if (c2 == "$(" || c2 == "<(" || c2 == ">(") { sub_ = 1; i++; continue }
    if (c2 == "[[" && (i == 1 || substr(line, i - 1, 1) ~ /[ \t;&|(]/)) { dbr = 1; out = out "[[ "; i++; continue }
    if (c == "#" && (i == 1 || substr(line, i - 1, 1) ~ /[ \t;&|(]/)) break
    out = out c
  }
  return out
}

# ---- split one logical statement into tokens (T[1..nt]) --------------------
function tokenize(s,    n, i, w, parts) {
  gsub(/=\([^)]*\)/, "=A", s)
  gsub(/[0-9]*>&[0-9-]+/, " ", s); gsub(/&>>?/, " ", s)
  gsub(/[0-9]*[<>]+/, " > ", s)
  gsub(/&&/, " \001 ", s); gsub(/\|\|/, " \002 ", s)
  gsub(/;;/, " DSEMI ", s); gsub(/;/, " ; ", s); gsub(/\|/, " | ", s); gsub(/&/, " ; ", s)
  gsub(/\(/, " ( ", s); gsub(/\)/, " ) ", s)
  gsub(/\001/, "\\&\\&", s); gsub(/\002/, "||", s)
  n = split(s, parts, /[ \t]+/)
  nt = 0
  for (i = 1; i <= n; i++) if (parts[i] != "") T[++nt] = parts[i]
}

function is_check(a, b) {
  return a == "[" || a == "[[" || a == "test" || a == "grep" || a == "diff" || a == "cmp" || a == "!" || (a == "kill" && b == "-0")
}

# ---- record the and-or lists of one statement ------------------------------
# L_* arrays per list: line, depth at its start, number of pipelines, and per
# pipeline its first two words, whether it is negated, the operator after it.
function add_statement(text, line,    i, t, cmdpos, cond) {
  tokenize(text)
  cmdpos = 1
  for (i = 1; i <= nt; i++) {
    t = T[i]
    if (casepat) {   # a case pattern up to its )
      if (t == "esac") { casepat = 0; depth--; cmdpos = 1 }
      else if (t == ")") { casepat = 0; cmdpos = 1 }
      continue
    }
    if (t == "DSEMI") { end_list(); casepat = 1; continue }
    if (t == ";" || t == "\n") { end_list(); cmdpos = 1; continue }
    if (t == "&&" || t == "||" || t == "|") {
      if (t != "|" && nl > 0) { OP[nl, np] = t; np++; F1[nl, np] = ""; NEG[nl, np] = 0 }
      cmdpos = 1; continue
    }
    if (cmdpos) {
      if (t == "if" || t == "elif" || t == "while" || t == "until") { end_list(); depth += (t == "if" || t == "while" || t == "until") ? 1 : 0; incond = 1; continue }
      if (t == "then" || t == "do") { end_list(); incond = 0; continue }
      if (t == "else") { end_list(); continue }
      if (t == "fi" || t == "done" || t == "}" || t == "esac") { end_list(); depth--; cmdpos = 1; continue }
      if (t == "{" || t == "(") { end_list(); depth++; continue }
      if (t == "for" || t == "case") { end_list(); skipto = (t == "for") ? "do" : "in"; depth++; forloop(i); i = fi_; if (t == "case") casepat = 1; continue }
      if (t == "!") { open_list(line); NEG[nl, np] = 1; continue }
      open_list(line)
      if (F1[nl, np] == "") { F1[nl, np] = t; F2[nl, np] = T[i + 1] }
      cmdpos = 0
      continue
    }
    if (t == ")") { end_list(); depth--; cmdpos = 1; continue }
  }
  end_list()
}

function forloop(i) {   # skip a for/case head up to its do/in
  while (i <= nt && T[i] != skipto) i++
  fi_ = i
}

function open_list(line) {
  if (inlist) return
  inlist = 1; nl++; np = 1
  L_line[nl] = line; L_depth[nl] = depth; L_cond[nl] = incond; L_np[nl] = 1
  F1[nl, 1] = ""; NEG[nl, 1] = 0; OP[nl, 1] = ""
}

function end_list() {
  if (!inlist) return
  L_np[nl] = np; OP[nl, np] = ""
  inlist = 0
}

function check_test(file,    l, k, last, hasor) {
  last = nl
  for (l = 1; l <= nl; l++) {
    if (L_cond[l]) continue
    for (k = 1; k <= L_np[l]; k++) {
      hasor = 0
      for (j = k; j < L_np[l]; j++) if (OP[l, j] == "||") hasor = 1
      islast = (l == last && L_depth[l] == 0 && k == L_np[l])
      if (NEG[l, k] && OP[l, k] != "||" && !islast) {
        printf "%s:%d: a `! %s` that is not the test's last command: bats ignores its status (use run !, or ! CMD || false)%s\n", file, L_line[l], F1[l, k], (L_depth[l] > 0 ? " (inside a loop or block)" : "")
        bad = 1
      }
      if (k < L_np[l] && OP[l, k] == "&&" && !hasor && !(l == last && L_depth[l] == 0) &&
          is_check(NEG[l, k] ? "!" : F1[l, k], F2[l, k]) && is_check(NEG[l, k + 1] ? "!" : F1[l, k + 1], F2[l, k + 1])) {
        printf "%s:%d: `%s ... && %s ...`: the check before && cannot fail (one check per line, or add || { echo why; false; })\n", file, L_line[l], (NEG[l, k] ? "!" : F1[l, k]), (NEG[l, k + 1] ? "!" : F1[l, k + 1])
        bad = 1
      }
    }
  }
}

FNR == 1 && intest { unterminated(prevfile) }
FNR == 1 { prevfile = FILENAME; intest = 0; q = 0; sub_ = 0; dbr = 0; heredoc = ""; casepat = 0 }
{
  raw = $0
  if (heredoc != "") { x = raw; sub(/^\t+/, "", x); if (x == heredoc) heredoc = ""; next }
  if (!intest) {
    if (raw ~ /^@test .*\{[ \t]*$/) { intest = 1; testline = FNR; nl = 0; depth = 0; incond = 0; inlist = 0; cur = ""; q = 0; sub_ = 0; dbr = 0; casepat = 0 }
    next
  }
  if (q == 0 && sub_ == 0 && cur == "" && raw ~ /^\}[ \t]*$/) { check_test(FILENAME); intest = 0; next }
  cont = 0
  s = strip(raw)
  if (cur == "") curline = FNR
  gsub(/<<</, " ", s)
  # a here-document starts: its lines are data
  if (match(s, /<<-?[ \t]*(Q|[A-Za-z_])/)) {
    h = raw; sub(/^.*<<-?[ \t]*/, "", h); gsub(/["\047]/, "", h); sub(/[^A-Za-z_0-9].*$/, "", h)
    heredoc = h
    sub(/<<-?[ \t]*Q?[A-Za-z_0-9]*/, "", s)
  }
  cur = cur " " s
  if (q != 0 || sub_ > 0 || dbr || cont || s ~ /(\||&&)[ \t]*$/) next
  add_statement(cur, curline)
  cur = ""
}
function unterminated(file) {
  printf "%s:%d: the @test body starting here has no closing } in column 1 (a quote or here-document left open?)\n", file, testline
  bad = 1
}
END { if (intest) unterminated(prevfile); exit bad ? 1 : 0 }
