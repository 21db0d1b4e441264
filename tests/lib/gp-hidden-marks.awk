# tests/lib/gp-hidden-marks.awk: marks of two plots of one panel drawn at
# one place (within -v near=N units in x and y, default 3: 0.3 pt; a
# mark's radius is its size x HPT, 31.5 units at size 1) where the later
# one hides the earlier:
# it is filled and at least as large, or it is the same hollow shape at the
# same size (an exact overprint). Reads the MARK lines of the figure tests'
# gnuplot log (tests/bats/fixtures/exp/gnuplot_log: MARK PANEL PLOT X Y
# SHAPE SIZE R,G,B, in drawing order). Prints one line per hidden mark and
# exits 1 when there is one. Used by tests/bats/exp_legible.bats.
function filled(s) { return s ~ /F$/ }
BEGIN { if (near == "") near = 3 }
$1 == "MARK" {
  for (i = 1; i <= n; i++) {
    if (P[i] != $2 || L[i] == $3) continue
    if (X[i] - $4 > near || $4 - X[i] > near || Y[i] - $5 > near || $5 - Y[i] > near) continue
    if ((filled($6) && $7 >= Z[i]) || ($6 == S[i] && $7 == Z[i] && !filled($6))) {
      printf "panel %s at %s %s: plot %s's %s (size %s, %s) hides plot %s's %s (size %s, %s)\n", $2, $4, $5, $3, $6, $7, $8, L[i], S[i], Z[i], C[i]
      bad = 1
    }
  }
  n++; P[n] = $2; L[n] = $3; X[n] = $4; Y[n] = $5; S[n] = $6; Z[n] = $7; C[n] = $8
}
END { exit bad }
