/*
 * main.c - rdma_bench: one program for both ends of an RDMA benchmark.
 *
 *   rdma_bench -s [-p PORT] [--bind ADDR] [-d DEV] [-i PORT] [-x GID] [--once]
 *   rdma_bench -c HOST [test options]     (rdma_bench --help for all)
 *
 * Parses and validates the command line (bench/lib/options.c), then hands over
 * to the server or the client role (bench/rdma_bench/server.c, bench/rdma_bench/client.c).
 * Exit status: 0 ok, 1 a point or session failed, 2 usage or setup error.
 */
#include <stdio.h>

#include "ctrl.h"
#include "log.h"
#include "options.h"
#include "report.h"
#include "session.h"
#include "verb.h"

/* --dry-run: what a run of these options would request, one line on
 * stdout; the checks that need the device (its caps) or the server are a
 * run's own. */
static void print_dry_run(const struct rb_opts *o)
{
	printf("rdma_bench: --dry-run: options accepted: %s %s %s, %d size(s) x %u "
	       "repetition(s) against %s port %u (device and server not checked)\n",
	       verb_name(o->t.verb), transport_name(o->t.transport), testkind_name(o->t.test),
	       o->nsizes, o->reps, o->host, (unsigned)o->port);
}

int main(int argc, char **argv)
{
	static struct rb_opts o;
	char err[1024];
	int rc;

	log_set_prog("rdma_bench");
	rc = opts_parse(argc, argv, &o, err, sizeof(err));

	if (rc > 0 && o.version) {
		char rev[48];
		report_git_rev(rev, sizeof(rev));
		printf("rdma_bench %s (control protocol %u)\n", rev[0] ? rev : "(revision unknown)",
		       CTRL_VERSION);
	}
	if (rc > 0)
		return 0;
	if (rc < 0) {
		rb_fatal("%s", err);
		return 2;
	}
	if (o.repeated[0])
		rb_warn("%s", o.repeated);
	if (o.dry_run) {
		print_dry_run(&o);
		return 0;
	}
	if (o.role == RB_ROLE_SERVER)
		return server_run(&o);
	return client_run(&o);
}
