#!/usr/bin/env bats
# No block of shell code is copied between (or within) the files of bench/,
# ci/, env/, experiments/ and tests/, and no block of C between (or within)
# the files of bench/*.c, include/ and tests/: tests/dupcheck (jscpd, a
# clone is 50 tokens over 5 lines or more) finds none. Shared shell helpers
# live in tests/lib/tap.sh and env/lib.sh; the unit tests' set-up in
# tests/unit/unit.h.

ROOT=$(cd "$BATS_TEST_DIRNAME/../.." && pwd)

# plant DIR: a.sh and b (a bash script without a suffix) holding the same
# 14-line function, c.sh a different one
plant() {
	mkdir -p "$1"
	local body='wait_for() { # FILE REGEX SECONDS
  local end=$(( SECONDS + $3 ))
  until grep -qE -- "$2" "$1" 2> /dev/null; do
    if [ "$SECONDS" -ge "$end" ]; then
      echo "gave up after $3 s waiting for /$2/ in $1" >&2
      return 1
    fi
    sleep 0.1
  done
  local n
  n=$(grep -cE -- "$2" "$1")
  printf "%s lines match in %s\n" "$n" "$1"
  return 0
}'
	printf '#!/usr/bin/env bash\n%s\n' "$body" > "$1/a.sh"
	printf '#!/usr/bin/env bash\n%s\necho done\n' "$body" > "$1/b"
	printf '#!/usr/bin/env bash\nhello() { echo "hello $1"; }\nhello world\n' > "$1/c.sh"
}

@test "dupcheck: no shell block copied between or within files of bench/ ci/ env/ experiments/ tests/" {
	command -v jscpd > /dev/null || skip "jscpd is not installed (make deps installs it)"
	cd "$ROOT"
	run tests/dupcheck --format bash
	[ "$status" -eq 0 ] || { echo "$output"; false; }
	[ "$output" = "0 clone(s)" ]
}

@test "dupcheck: no C block copied between or within files of bench/ (bench/apps/ too), include/ and tests/" {
	command -v jscpd > /dev/null || skip "jscpd is not installed (make deps installs it)"
	cd "$ROOT"
	run tests/dupcheck --format c bench include tests
	[ "$status" -eq 0 ] || { echo "$output"; false; }
	[ "$output" = "0 clone(s)" ]
}

@test "dupcheck: a C function copied into a second file is found, both places named" {
	command -v jscpd > /dev/null || skip "jscpd is not installed (make deps installs it)"
	local d="$BATS_TEST_TMPDIR/c" body
	mkdir -p "$d"
	body='static unsigned long sum_window(const unsigned *w, unsigned n, unsigned cap)
{
	unsigned long s = 0;
	for (unsigned i = 0; i < n; i++) {
		if (w[i] > cap)
			s += cap;
		else
			s += w[i];
	}
	return s;
}'
	printf '%s\n' "$body" > "$d/a.c"
	printf '#include <stdio.h>\n%s\n' "$body" > "$d/b.h"
	printf 'int twice(int x) { return 2 * x; }\n' > "$d/c.c"
	run "$ROOT/tests/dupcheck" --format c "$d"
	[ "$status" -eq 1 ] || { echo "$output"; false; }
	[[ $output == *"$d/a.c:"*" = $d/b.h:"* ]] || [[ $output == *"$d/b.h:"*" = $d/a.c:"* ]] ||
		{ echo "$output"; false; }
	[[ $output != *c.c* ]]
	[ "${lines[-1]}" = "1 clone(s)" ]
}

@test "dupcheck: a function copied into a file without a .sh suffix is found, both places named" {
	command -v jscpd > /dev/null || skip "jscpd is not installed (make deps installs it)"
	plant "$BATS_TEST_TMPDIR/p"
	run "$ROOT/tests/dupcheck" --format bash "$BATS_TEST_TMPDIR/p"
	[ "$status" -eq 1 ]
	# the shebang line and the function: lines 1-15 of both files
	[[ $output == *"$BATS_TEST_TMPDIR/p/a.sh:1-15 = $BATS_TEST_TMPDIR/p/b:1-15 (15 lines, "* ]] ||
		[[ $output == *"$BATS_TEST_TMPDIR/p/b:1-15 = $BATS_TEST_TMPDIR/p/a.sh:1-15 (15 lines, "* ]] || { echo "$output"; false; }
	[[ $output != *c.sh* ]]
	[ "${lines[-1]}" = "1 clone(s)" ]
}

@test "dupcheck: the threshold is --min-tokens: the same copy passes above its size" {
	command -v jscpd > /dev/null || skip "jscpd is not installed (make deps installs it)"
	plant "$BATS_TEST_TMPDIR/p"
	run "$ROOT/tests/dupcheck" --format bash --min-tokens 500 "$BATS_TEST_TMPDIR/p"
	[ "$status" -eq 0 ]
	[ "$output" = "0 clone(s)" ]
	rm "$BATS_TEST_TMPDIR/p/b"
	run "$ROOT/tests/dupcheck" --format bash "$BATS_TEST_TMPDIR/p"
	[ "$status" -eq 0 ]
}

@test "dupcheck: bad usage exits 2; without jscpd it exits 3 naming make deps" {
	run "$ROOT/tests/dupcheck" --format perl
	[ "$status" -eq 2 ]
	[[ $output == *"--format must be bash or c"* ]]
	run "$ROOT/tests/dupcheck" --min-tokens 0
	[ "$status" -eq 2 ]
	local bin="$BATS_TEST_TMPDIR/bin"
	mkdir -p "$bin"
	ln -s "$(command -v bash)" "$bin/bash"
	PATH=$bin run "$ROOT/tests/dupcheck"
	[ "$status" -eq 3 ]
	[[ $output == *"jscpd is not installed (make deps installs it)"* ]]
}
