# ci/perftest-mean.awk: the mean of every latency sample a perftest latency
# tool prints with -U (--report-unsorted), as used by ci/bench-run.
#
# Input: the tool's output; the samples are the lines "I, VALUE" after its
# "#, usec" header (VALUE in its units: one-way for SEND, a round trip for
# READ and atomics). Output: the mean of them all with 6 significant
# digits, or nothing when there is no sample line.
# Why not its t_avg column: print_report_lat (perftest_parameters.c) leaves
# out the two largest samples (LAT_MEASURE_TAIL) from t_avg, and so the
# first op on a fresh QP (0.4-6 ms on the soft-RoCE VM bed, for rdma_bench
# as for perftest), while rdma_bench's mean counts every op.
/^[0-9]+, [0-9.eE+-]+$/ { split($0, f, ", "); s += f[2]; n++ }
END { if (n) printf "%.6g\n", s / n }
