#!/usr/bin/env bats
# env/install-deps with fake dpkg/apt-get/rpm/dnf/id: what it checks, what
# it installs, and that it does nothing when everything is there.

load fixtures/env/helper

setup() {
	use_tree vm
	export RB_OS_RELEASE="$BATS_TEST_TMPDIR/os-release"
	printf 'PRETTY_NAME="Debian GNU/Linux 12 (bookworm)"\nID=debian\nVERSION_ID="12"\n' >"$RB_OS_RELEASE"
	: >"$RB_FAKE/dpkg.status"
}

# mark_installed GROUP...: every apt package of those groups installed,
# and every npm:TOOL@VERSION row's tool at its version (the fake jscpd)
mark_installed() {
	local g
	for g in "$@"; do
		awk -v g="$g" '$1 == g && $2 !~ /^npm:/ { print $2, "1.0" }' "$ROOT/env/deps.list" >>"$RB_FAKE/dpkg.status"
		awk -v g="$g" -v d="$RB_FAKE" '$1 == g && $2 ~ /^npm:/ {
			t = substr($2, 5); v = t; sub(/@.*/, "", t); sub(/^[^@]*@/, "", v); print v > (d "/" t ".version") }' "$ROOT/env/deps.list"
	done
}

apt_calls() { grep '^apt-get ' "$RB_FAKE/calls" || true; }
no_apt_calls() { [ -z "$(apt_calls)" ]; }

@test "install-deps: everything present: nothing to do, not even apt-get update" {
	mark_installed base test vm
	run "$ROOT/env/install-deps" --test --vm
	[ "$status" -eq 0 ]
	[[ $output == *"all 36 packages present (base test vm): nothing to do"* ]]
	no_apt_calls
	! grep -q '^npm ' "$RB_FAKE/calls" || false
	grep -q '^dpkg -s qemu-system-x86$' "$RB_FAKE/calls"
}

@test "install-deps: everything present also works for a non-root user" {
	mark_installed base
	RB_FAKE_UID=1000 run "$ROOT/env/install-deps"
	[ "$status" -eq 0 ]
	[[ $output == *"nothing to do"* ]]
}

@test "install-deps: a missing package: apt-get update once, then install only it, non-interactive" {
	mark_installed base
	sed -i '/^perftest /d' "$RB_FAKE/dpkg.status"
	run "$ROOT/env/install-deps"
	[ "$status" -eq 0 ]
	[ "$(apt_calls | grep -c ' update ')" -eq 1 ]
	[ "$(apt_calls | head -1)" = "apt-get update -q [DEBIAN_FRONTEND=noninteractive]" ]
	apt_calls | sed -n 2p | grep -q '^apt-get install -y -q .* perftest \[DEBIAN_FRONTEND=noninteractive\]$'
	[ "$(apt_calls | wc -l)" -eq 2 ]
	[[ $output == *"installed 1 package: perftest"* ]]
}

@test "install-deps: a second run after installing is a no-op" {
	mark_installed base
	sed -i '/^gcc /d' "$RB_FAKE/dpkg.status"
	run "$ROOT/env/install-deps"
	[ "$status" -eq 0 ]
	: >"$RB_FAKE/calls"
	run "$ROOT/env/install-deps"
	[ "$status" -eq 0 ]
	[[ $output == *"nothing to do"* ]]
	no_apt_calls
}

@test "install-deps: base installs the libraries, tools and utilities of the suite" {
	run "$ROOT/env/install-deps" --dry-run
	[ "$status" -eq 0 ]
	local p
	for p in libibverbs-dev librdmacm-dev rdma-core ibverbs-providers ibverbs-utils rdmacm-utils \
		perftest parallel gnuplot-nox pkg-config gcc make libxxhash-dev python3; do
		[[ " $output " == *" $p "* ]] || { echo "missing $p"; return 1; }
	done
	[[ $output != *libcmocka-dev* && $output != *qemu* ]]
}

@test "install-deps: --test adds cmocka, bats, shellcheck, clang, valgrind, nodejs, chromium, jscpd" {
	mark_installed base
	run "$ROOT/env/install-deps" --test --dry-run
	[ "$status" -eq 0 ]
	[[ $output == *"missing 8 of 22 packages: libcmocka-dev bats shellcheck clang valgrind nodejs chromium jscpd@5.3.2"* ]]
	[[ $output == *"  npm install -g --no-audit --no-fund jscpd@5.3.2"* ]]
	[ -z "$(grep '^npm ' "$RB_FAKE/calls")" ]
}

@test "install-deps: jscpd comes from npm, pinned, after the distribution packages; then a no-op" {
	mark_installed base test
	rm -f "$RB_FAKE/jscpd.version"
	sed -i '/^valgrind /d' "$RB_FAKE/dpkg.status"
	run "$ROOT/env/install-deps" --test
	[ "$status" -eq 0 ]
	[ "$(grep -nE '^(apt-get install|npm )' "$RB_FAKE/calls" | cut -d: -f2 | cut -c1-11 | tr '\n' ' ')" = "apt-get ins npm install " ]
	grep -q '^npm install -g --no-audit --no-fund jscpd@5.3.2$' "$RB_FAKE/calls"
	[[ $output == *"installed 2 packages: valgrind jscpd@5.3.2"* ]]
	: >"$RB_FAKE/calls"
	run "$ROOT/env/install-deps" --test
	[ "$status" -eq 0 ]
	[[ $output == *"nothing to do"* ]]
	[ ! -s "$RB_FAKE/calls" ] || ! grep -qE '^(apt-get|npm) ' "$RB_FAKE/calls"
}

@test "install-deps: only jscpd missing: no apt-get at all; another version counts as missing" {
	mark_installed base test
	printf '5.3.1\n' >"$RB_FAKE/jscpd.version"
	run "$ROOT/env/install-deps" --test
	[ "$status" -eq 0 ]
	no_apt_calls
	[ "$(cat "$RB_FAKE/jscpd.version")" = 5.3.2 ]
}

@test "install-deps: a failing npm install is an error naming the package and the registry" {
	mark_installed base test
	rm -f "$RB_FAKE/jscpd.version"
	touch "$RB_FAKE/npm.fail"
	run "$ROOT/env/install-deps" --test
	[ "$status" -eq 1 ]
	[[ $output == *"npm install failed for: jscpd@5.3.2 (is the npm registry reachable?"* ]]
}

@test "install-deps: no npm command: the npm package is installed first" {
	mark_installed base test
	rm -f "$RB_FAKE/jscpd.version"
	PATH=$(path_without npm) run "$ROOT/env/install-deps" --test --dry-run
	[ "$status" -eq 0 ]
	[[ $output == *"apt-get install"*" npm"* ]]
}

@test "install-deps: --vm installs qemu-system-x86 and Slurm (slurmd, slurmctld, slurm-client, munge) without recommends, in their own call" {
	mark_installed base
	run "$ROOT/env/install-deps" --vm
	[ "$status" -eq 0 ]
	apt_calls | grep -q '^apt-get install -y -q .* busybox-static cpio kmod dropbear-bin openssh-client perl rsync iproute2 time \['
	apt_calls | grep -q '^apt-get install -y -q .* --no-install-recommends qemu-system-x86 slurmd slurmctld slurm-client munge \['
	[ "$(apt_calls | grep -c 'qemu-system-x86')" -eq 1 ]
	[ "$(apt_calls | grep 'no-install-recommends' | grep -c busybox)" -eq 0 ]
}

@test "install-deps: --dry-run prints the commands and changes nothing" {
	run "$ROOT/env/install-deps" --vm --dry-run
	[ "$status" -eq 0 ]
	[[ $output == *"would run as root, with DEBIAN_FRONTEND=noninteractive:"* ]]
	[[ $output == *"  apt-get update"* ]]
	[[ $output == *"--no-install-recommends qemu-system-x86"* ]]
	no_apt_calls
}

@test "install-deps: not root with missing packages: a clear error, nothing run" {
	mark_installed base
	sed -i '/^make /d' "$RB_FAKE/dpkg.status"
	RB_FAKE_UID=1000 run "$ROOT/env/install-deps" --test
	[ "$status" -eq 1 ]
	[[ $output == *"installing packages needs root: sudo env/install-deps --test"* ]]
	[[ $output == *"make"* ]]
	no_apt_calls
}

@test "install-deps: a package left in config-files state counts as missing" {
	mark_installed base
	sed -i 's/^perftest .*/perftest 4.5 deinstall ok config-files/' "$RB_FAKE/dpkg.status"
	run "$ROOT/env/install-deps" --dry-run
	[ "$status" -eq 0 ]
	[[ $output == *"missing 1 of 14 packages: perftest"* ]]
}

@test "install-deps: a failing apt-get is an error that says which step failed" {
	mark_installed base
	sed -i '/^parallel /d' "$RB_FAKE/dpkg.status"
	touch "$RB_FAKE/apt-get.fail"
	run "$ROOT/env/install-deps"
	[ "$status" -eq 1 ]
	[[ $output == *"apt-get update failed"* ]]
}

@test "install-deps: Ubuntu uses apt and the same names" {
	printf 'ID=ubuntu\nID_LIKE=debian\nVERSION_ID="24.04"\n' >"$RB_OS_RELEASE"
	run "$ROOT/env/install-deps" --dry-run
	[ "$status" -eq 0 ]
	[[ $output == *"apt-get install"*"gnuplot-nox"* ]]
}

@test "install-deps: Fedora/RHEL use dnf with their package names" {
	printf 'ID="rocky"\nID_LIKE="rhel centos fedora"\n' >"$RB_OS_RELEASE"
	printf 'gcc 12\nmake 4.3\n' >"$RB_FAKE/rpm.status"
	run "$ROOT/env/install-deps" --vm
	[ "$status" -eq 0 ]
	grep -q '^dnf install -y rdma-core-devel rdma-core libibverbs libibverbs-utils librdmacm-utils perftest parallel gnuplot pkgconf-pkg-config xxhash-devel python3 busybox' "$RB_FAKE/calls"
	grep -q '^dnf install -y --setopt=install_weak_deps=False qemu-system-x86-core slurm-slurmd slurm-slurmctld slurm munge$' "$RB_FAKE/calls"
	[ "$(grep -c '^dnf ' "$RB_FAKE/calls")" -eq 2 ]
	no_apt_calls
}

@test "install-deps: neither apt nor dnf: an error pointing to the list" {
	printf 'ID=alpine\n' >"$RB_OS_RELEASE"
	PATH=$(path_without apt-get dnf) run "$ROOT/env/install-deps"
	[ "$status" -eq 1 ]
	[[ $output == *"no supported package manager (apt or dnf)"*"deps.list"* ]]
}

@test "install-deps: usage errors exit 2" {
	run "$ROOT/env/install-deps" --bogus
	[ "$status" -eq 2 ]
	run "$ROOT/env/install-deps" --pm zypper
	[ "$status" -eq 2 ]
	run "$ROOT/env/install-deps" --help
	[ "$status" -eq 0 ]
	[[ $output == *"does"*"not install a vendor OFED"* ]]
}
