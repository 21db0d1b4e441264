/*
 * hello_main.c - the add-an-application recipe's dummy program
 * (docs/ARCHITECTURE.md, "Add an application"), copied by
 * tests/bats/recipe_app.bats into bench/apps/hello/ of a scratch copy: one
 * file with its knob table. Its client sends one knob, --greetings, in its
 * own CONFIG message (program CTRL_PROG_RDMA_HELLO, which the recipe adds
 * to CTRL_PROGRAMS in ctrl.h); with --dry-run it encodes that message,
 * decodes it as its server would and prints what came through.
 */
#include <stddef.h>
#include <stdio.h>

#include "ctrl.h"
#include "options.h"

#define HELLO_CFG_VERSION 1u

struct hello_opts {
	struct rb_opts rb;       /* the shared rows' fields */
	uint64_t greetings;      /* sent in CONFIG */
};

static const struct rb_knob hello_knobs[] = {
	RB_ROW_SERVER(.section = "Server:"),
	RB_ROW_PORT(.def = 18600),
	RB_ROW_CLIENT(.section = "Client:"),
	{ .name = "greetings", .arg = "N", .type = RB_KT_NUM, .where = RB_KW_APP,
	  .off = offsetof(struct hello_opts, greetings), .width = sizeof(uint64_t), .lo = 1,
	  .hi = 9, .def = 2, .flags = RB_KF_SENT, .col = "greetings",
	  .help = "greetings per point, 1..9 (default %D)" },
	RB_ROW_QUIET(),
	RB_ROW_DRY_RUN(),
	RB_ROW_LIST_KNOBS(),
	RB_ROW_HELP(),
	RB_ROW_VERSION(),
};

static const struct rb_cli hello_cli = {
	.prog = "rdma_hello",
	.knobs = hello_knobs,
	.nknobs = sizeof(hello_knobs) / sizeof(hello_knobs[0]),
	.synopsis = "usage: rdma_hello -s | -c HOST [--greetings N] [--dry-run]\n",
	.epilog = "Exit status: 0 ok; 2 usage error.\n",
};

int main(int argc, char **argv)
{
	static struct hello_opts o;
	struct ctrl_config cfg = { .program = CTRL_PROG_RDMA_HELLO, .version = HELLO_CFG_VERSION,
				   .nfields = 1 };
	uint8_t buf[CTRL_HDR_LEN + CTRL_CONFIG_FIXED + 8];
	struct ctrl_msg m;
	char err[512];
	int rc = opts_parse_cli(&hello_cli, argc, argv, &o.rb, &o, err, sizeof(err));

	if (rc > 0)
		return 0;
	if (rc < 0) {
		fprintf(stderr, "rdma_hello: error: %s\n", err);
		return 2;
	}
	cfg.f[0] = o.greetings;
	size_t n = ctrl_encode_config(buf, sizeof(buf), &cfg);
	if (!n || ctrl_decode(buf, n, &m, err, sizeof(err)) ||
	    ctrl_config_expect(&m.u.config, CTRL_PROG_RDMA_HELLO, HELLO_CFG_VERSION, 1, err,
			       sizeof(err))) {
		fprintf(stderr, "rdma_hello: error: %s\n", n ? err : "CONFIG not encoded");
		return 2;
	}
	printf("rdma_hello: greetings %llu through CONFIG (program %u %s, version %u)\n",
	       (unsigned long long)m.u.config.f[0], m.u.config.program,
	       ctrl_program_name(m.u.config.program), m.u.config.version);
	return 0;
}
