#!/usr/bin/env bats
# env/timeout-suggest: the ACK timeout arithmetic (IB spec: 4.096 us x 2^t)
# from a given RTT, and from a (fake) rdma_bench READ latency run.

load fixtures/env/helper

setup() {
	use_tree vm
	export RB_BENCH="$ENV_FIX/bin/rdma_bench"
}

# bench_csv HEADER ROW...: the CSV the fake rdma_bench writes
bench_csv() {
	printf '%s\n' "$@" >"$RB_FAKE/bench.csv"
}

@test "timeout-suggest: 12.3 us x 4 = 49.2 us -> t = 4 (65.536 us), with the arithmetic" {
	run "$ROOT/env/timeout-suggest" --rtt-us 12.3
	[ "$status" -eq 0 ]
	[[ $output == *"target: factor 4 x 12.300 us = 49.200 us"* ]]
	[[ $output == *"t =  3: 4.096 x 2^3  =       32.768 us <  49.200 us"* ]]
	[[ $output == *"t =  4: 4.096 x 2^4  =       65.536 us >= 49.200 us"* ]]
	[[ $output == *"suggested ACK timeout: 4 (65.536 us per try): rdma_bench --ack-timeout 4"* ]]
}

@test "timeout-suggest: names the off-by-one formula and the value it would give" {
	run "$ROOT/env/timeout-suggest" --rtt-us 12.3
	[[ $output == *"4.096 us x 2^(t-1) is off by one: it would pick 5 (131.072 us, twice as long)"* ]]
}

@test "timeout-suggest: explains that 0 means infinite and shows the worst case with retries" {
	run "$ROOT/env/timeout-suggest" --rtt-us 12.3 --retry-cnt 3
	[[ $output == *"0 means infinite"* ]]
	[[ $output == *"with retry_cnt 3: 4 x 65.536 us = 262.144 us"* ]]
}

@test "timeout-suggest: a target exactly on a step takes that step (>=)" {
	run "$ROOT/env/timeout-suggest" --rtt-us 16.384 -q
	[ "$status" -eq 0 ]
	[ "$output" = 4 ]
	run "$ROOT/env/timeout-suggest" --rtt-us 16.385 -q
	[ "$output" = 5 ]
}

@test "timeout-suggest: the safety factor scales the target" {
	run "$ROOT/env/timeout-suggest" --rtt-us 12.3 --factor 8 -q
	[ "$output" = 5 ]
	run "$ROOT/env/timeout-suggest" --rtt-us 12.3 --factor 1 -q
	[ "$output" = 2 ]
}

@test "timeout-suggest: a tiny RTT is clamped up to 1, never 0 (infinite)" {
	run "$ROOT/env/timeout-suggest" --rtt-us 0.5
	[ "$status" -eq 0 ]
	[[ $output == *"already at the smallest finite value"* ]]
	[[ $output == *"suggested ACK timeout: 1 (8.192 us per try)"* ]]
}

@test "timeout-suggest: a huge RTT is clamped down to 31" {
	run "$ROOT/env/timeout-suggest" --rtt-us 1e10
	[ "$status" -eq 0 ]
	[[ $output == *"clamped to 31, the largest value"* ]]
	[[ $output == *"suggested ACK timeout: 31"* ]]
}

@test "timeout-suggest: measures with an 8-byte RC READ latency run and reads lat_p999_us" {
	bench_csv 'schema_version,run_id,verb,size_bytes,lat_p50_us,lat_p999_us,status,reason' \
		'1,r1,read,8,5.1,21.5,ok,'
	run "$ROOT/env/timeout-suggest" vm1 -d rxe0 -x 1
	[ "$status" -eq 0 ]
	grep -q '^rdma_bench -c vm1 --verb read --transport rc --test lat -m 8 --csv .* -d rxe0 -x 1$' "$RB_FAKE/calls"
	[[ $output == *"p99.9 RTT: 21.500 us (measured: p99.9 of 8-byte RC READs to vm1)"* ]]
	[[ $output == *"suggested ACK timeout: 5"* ]]
}

@test "timeout-suggest: takes the last ok row, whatever the column order and quoted commas" {
	bench_csv 'schema_version,status,reason,lat_p999_us' \
		'1,ok,,30' \
		'1,failed,"timeout, peer gone",' \
		'1,ok,"warm, steady",40' \
		'1,skipped,"n/a, skipped",999'
	run "$ROOT/env/timeout-suggest" vm1 -q
	[ "$status" -eq 0 ]
	[ "$output" = 6 ]
}

@test "timeout-suggest: a failed measurement says to start the server" {
	printf '1\n' >"$RB_FAKE/bench.rc"
	run "$ROOT/env/timeout-suggest" vm1
	[ "$status" -eq 1 ]
	[[ $output == *"Connection refused"* ]]
	[[ $output == *"is 'rdma_bench -s' running on vm1?"* ]]
}

@test "timeout-suggest: a CSV without an ok p99.9 is an error" {
	bench_csv 'schema_version,lat_p999_us,status,reason' '1,,failed,no completions'
	run "$ROOT/env/timeout-suggest" vm1
	[ "$status" -eq 1 ]
	[[ $output == *"no ok row with lat_p999_us"* ]]
}

@test "timeout-suggest: rdma_bench missing: says to build it or pass --rtt-us" {
	# a copy of the script outside the project, so no ./rdma_bench beside it
	mkdir -p "$BATS_TEST_TMPDIR/p/env" "$BATS_TEST_TMPDIR/p/experiments/lib"
	cp "$ROOT/env/timeout-suggest" "$BATS_TEST_TMPDIR/p/env/"
	cp "$ROOT/experiments/lib/common.sh" "$BATS_TEST_TMPDIR/p/experiments/lib/"
	RB_BENCH="" PATH="$(path_without rdma_bench)" run "$BATS_TEST_TMPDIR/p/env/timeout-suggest" vm1
	[ "$status" -eq 1 ]
	[[ $output == *"rdma_bench not found: build it (make) or set RB_BENCH; or pass --rtt-us X"* ]]
}

@test "timeout-suggest: usage errors exit 2" {
	run "$ROOT/env/timeout-suggest"
	[ "$status" -eq 2 ]
	run "$ROOT/env/timeout-suggest" --rtt-us -3
	[ "$status" -eq 2 ]
	run "$ROOT/env/timeout-suggest" --rtt-us abc
	[ "$status" -eq 2 ]
	run "$ROOT/env/timeout-suggest" --rtt-us 10 --factor 0
	[ "$status" -eq 2 ]
	run "$ROOT/env/timeout-suggest" --rtt-us 10 --retry-cnt 9
	[ "$status" -eq 2 ]
	run "$ROOT/env/timeout-suggest" --help
	[ "$status" -eq 0 ]
}
