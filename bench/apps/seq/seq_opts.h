/*
 * seq_opts.h - rdma_seq's command line: its knob table (seq_opts.c) on the
 * library's parser (options.h, opts_parse_cli), so --help, --list-knobs,
 * the ranges and the runner's map (experiments/lib/knobs-rdma_seq.tsv)
 * come from one table, and the options every program has (-p, -d, -i, -x,
 * --token-file, --csv, --json, --run-id, --quiet, --timeout, ...) are the
 * library's shared rows: the same spelling, letter and range as
 * rdma_bench's.
 */
#ifndef RDMA_BENCH_SEQ_OPTS_H
#define RDMA_BENCH_SEQ_OPTS_H

#include <stddef.h>
#include <stdint.h>

#include "options.h"
#include "seq.h"

#define SEQ_DEFAULT_PORT   (RB_DEFAULT_PORT + 1u)   /* 18516: beside rdma_bench -s */
#define SEQ_DEFAULT_VALUES (UINT64_C(1) << 22)     /* values stored per client thread */
#define SEQ_MAX_ROWS       256u                     /* rows of one run: --reps at most */

struct seq_opts {
	struct rb_opts rb;         /* the shared rows: role, host, port, device, outputs,
				    * run id, reps, quiet, dry run, version ... */
	struct seq_cfg cfg;        /* the point: sent to the server in CONFIG (seq.h) */
	uint64_t values_cap;       /* --values-cap: values stored per client thread */
	char token[RB_TOKEN_CAP + 1]; /* read from --token-file at start (guard.h) */
};

/* rdma_seq's table and text. */
const struct rb_cli *seq_cli(void);

/*
 * Parse argv into *o: the table's defaults, every option, then the
 * client's rules (--variant required, each variant's own knobs only,
 * --procs 1, --reps <= SEQ_MAX_ROWS, seq_cfg_validate). Returns 0 ok, 1
 * when --help or --list-knobs was printed or --version given (exit 0), -1
 * with err naming the option, the value and the fix (exit 2).
 */
int seq_opts_parse(int argc, char **argv, struct seq_opts *o, char *err, size_t errlen);

#endif /* RDMA_BENCH_SEQ_OPTS_H */
