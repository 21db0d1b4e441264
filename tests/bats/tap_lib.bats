#!/usr/bin/env bats
# tests/lib/tap.sh, the helper library of the test scripts: TAP lines,
# bounded waits that name what they waited for, processes stopped by PID.

ROOT=$(cd "$BATS_TEST_DIRNAME/../.." && pwd)

# lib CODE: run CODE in a bash that sourced the library
lib() { bash -c ". '$ROOT/tests/lib/tap.sh'; $1"; }

@test "tap: numbered ok/not ok lines, diagnostics as comments, the plan and the exit status last" {
	run lib 'tap ok first; tap "not ok" second "why it failed" "and more"; check third ""; check fourth "" "a problem"; tap_done'
	[ "$status" -eq 1 ]
	[ "${lines[0]}" = "ok 1 - first" ]
	[ "${lines[1]}" = "not ok 2 - second" ]
	[ "${lines[2]}" = "#   why it failed" ]
	[ "${lines[3]}" = "#   and more" ]
	[ "${lines[4]}" = "ok 3 - third" ]
	[ "${lines[5]}" = "not ok 4 - fourth" ]
	[ "${lines[6]}" = "#   a problem" ]
	[ "${lines[7]}" = "1..4" ]
	run lib 'tap ok only; tap_done'
	[ "$status" -eq 0 ]
	[ "$output" = $'ok 1 - only\n1..1' ]
}

@test "wait_until: true as soon as the state holds; after the limit 1, naming what it waited for" {
	run lib 'f=$(mktemp); (sleep 0.3; echo ready > "$f") & t0=$SECONDS; wait_line "$f" "^ready" 30 && echo "waited $((SECONDS - t0))"'
	[ "$status" -eq 0 ]
	[[ $output =~ waited\ [0-9]+$ ]]
	[ "${output##* }" -lt 15 ]
	run lib 'wait_until 0.3 "the moon" false'
	[ "$status" -eq 1 ]
	[ "$output" = "# gave up after 0.3 s waiting for the moon" ]
	run lib 'wait_prefix=ci/x:; wait_line /nonexistent "x" 0.2'
	[ "$status" -eq 1 ]
	[ "$output" = "ci/x: gave up after 0.2 s waiting for a line matching /x/ in /nonexistent" ]
}

@test "wait_until and pid_stop poll without starting a process: no sleep in PATH, the limit still holds" {
	# nap is a read -t in this shell: with PATH empty after sourcing, a
	# sleep per poll would fail at once (command not found) and the wait
	# would spin; it takes its 0.4 s and gives up, naming the state
	run lib 'PATH=; t0=${EPOCHREALTIME/./}; wait_until -i 0.1 0.4 "the moon" false; rc=$?; echo "rc $rc ms $(( (${EPOCHREALTIME/./} - t0) / 1000 ))"'
	[ "$status" -eq 0 ]
	[[ ${lines[0]} == "# gave up after 0.4 s waiting for the moon" ]]
	[[ ${lines[1]} =~ ^rc\ 1\ ms\ ([0-9]+)$ ]]
	[ "${BASH_REMATCH[1]}" -ge 400 ]
	[ "${BASH_REMATCH[1]}" -lt 5000 ]
	[[ $output != *"command not found"* ]]
	# a process that ignores SIGTERM: pid_stop waits its 0.3 s by nap too
	run lib 'trap "" TERM; sleep 30 & p=$!; trap - TERM; PATH=; pid_stop "$p" 0.3; echo "rc $? exit_rc $exit_rc"'
	[ "$status" -eq 0 ]
	[ "$output" = "rc 1 exit_rc 137" ]
}

@test "tcp_listens: a listening socket on the port, not another state or port" {
	local hdr='  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode'
	run lib "printf '%s\n%s\n' '$hdr' '   0: 00000000:4857 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 1' | tcp_listens 18519"
	[ "$status" -eq 0 ]
	run lib "printf '%s\n%s\n' '$hdr' '   0: 0100007F:4857 0100007F:9C40 01 00000000:00000000 00:00000000 00000000     0        0 1' | tcp_listens 18519"
	[ "$status" -eq 1 ]
	run lib "printf '%s\n%s\n' '$hdr' '   0: 00000000:4858 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 1' | tcp_listens 18519"
	[ "$status" -eq 1 ]
}

@test "wait_listen: a server that exits before listening ends the wait at once, with a reason" {
	run lib 'bash -c "exit 3" & p=$!; t0=$SECONDS; wait_listen $p 1 30; echo "rc $? after $((SECONDS - t0))"'
	[[ $output == *"# process "*" exited before listening on port 1"* ]]
	[[ $output =~ rc\ 1\ after\ ([0-9]+) ]]
	[ "${BASH_REMATCH[1]}" -lt 15 ]
}

@test "pid_stop: SIGTERM, then SIGKILL after the limit for a process that ignores it; status in exit_rc" {
	run lib 'sleep 30 & p=$!; pid_stop $p 5; echo "rc $? exit $exit_rc"; kill -0 $p 2> /dev/null && echo alive'
	[ "$output" = "rc 0 exit 143" ]
	run lib 'bash -c "trap \"\" TERM; while :; do sleep 0.1; done" & p=$!; sleep 0.2; pid_stop $p 0.5; echo "rc $? exit $exit_rc"; kill -0 $p 2> /dev/null && echo alive'
	[ "$output" = "rc 1 exit 137" ]
}

@test "pids_cleanup stops every tracked process and pids_left then names none; an untracked one is left alone" {
	run lib 'sleep 30 & a=$!; sleep 30 & b=$!; sleep 30 & c=$!; pid_track $a $b; echo "left before: $(pids_left)"; pids_cleanup; echo "left after: [$(pids_left)]"; kill -0 $c && echo "untracked alive"; kill $c'
	[[ ${lines[0]} =~ ^left\ before:\ [0-9]+\ [0-9]+$ ]]
	[ "${lines[1]}" = "left after: []" ]
	[ "${lines[2]}" = "untracked alive" ]
}
