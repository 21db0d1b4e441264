# tests/lib/lint-bats-run.awk: the checks of tests/lint-bats on run, skip and
# if over FILE.bats...; exit 1 when one is found
#   3. a `run CMD` (not `run !`) with no $status, $output or ${lines[...]}
#      before the next run or the end of the body: its exit status and
#      output were dropped;
#   4. `skip` with no reason;
#   5. `if command -v TOOL` / `if [ -x FILE` in a body: a check that runs
#      only when a tool or a build exists is a silent skip (fail naming what
#      is missing, or skip with the reason).
function flush() { if (pend) { printf "%s:%d: run without a $status or output check after it (its exit status is dropped)\n", FILENAME, pend; bad = 1 }; pend = 0 }
/^@test / { intest = 1; pend = 0; next }
intest && /^}/ { flush(); intest = 0; next }
intest {
  l = $0
  if (l ~ /\$status|\$\{?output|\$\{?lines/) pend = 0
  if (l ~ /^[ \t]*run[ \t]/ && l !~ /^[ \t]*run[ \t]+!/) { flush(); pend = FNR }
  else if (l ~ /^[ \t]*run[ \t]+!/) flush()
  if (l ~ /(^|[;|&{][ \t]*)skip[ \t]*($|;|\}|\))/) { printf "%s:%d: skip without a reason\n", FILENAME, FNR; bad = 1 }
  if (l ~ /^[ \t]*(if|elif)[ \t]+(command -v|hash|type|\[ -x|\[\[ -x)[ \t]/) { printf "%s:%d: a check done only if a tool or a build exists (a silent skip: fail or skip naming it)\n", FILENAME, FNR; bad = 1 }
}
END { exit bad }
