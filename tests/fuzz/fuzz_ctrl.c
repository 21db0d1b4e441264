/*
 * fuzz_ctrl.c - libFuzzer target for the control channel (include/ctrl.h).
 *
 * Every input goes two ways:
 *  1. straight to the pure decoders, with the invariants of ctrl_check.h:
 *     clean return (0, or -1 with a message inside errlen), caps of every
 *     decoded field, byte-exact re-encoding, and for a TEST the server's
 *     validation (test_validate, test_validate_device with a few device
 *     cap sets) and the buffer layout it implies;
 *  2. as a byte stream through a socket pair to ctrl_recv(), the receive
 *     path a server runs on what a client sends: header first, payload
 *     buffer grown from the header's length, messages back to back, the
 *     stream cut wherever the input ends.
 * A broken invariant aborts with its description (libFuzzer keeps the
 * input as a crash file).
 *
 * Build and run: make fuzz (tests/fuzz/fuzz.mk). RB_FUZZ_SKIP=name,name
 * leaves out checks whose bug is already reported (names in ctrl_check.h).
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "ctrl_check.h"

static const char *skip;

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	skip = getenv("RB_FUZZ_SKIP");
	return 0;
}

static void die(const uint8_t *data, size_t size, const char *why)
{
	fprintf(stderr, "fuzz_ctrl: invariant broken on a %zu-byte input: %s\n", size, why);
	if (size >= CTRL_HDR_LEN)
		fprintf(stderr, "fuzz_ctrl: header %02x%02x%02x%02x %02x%02x %02x%02x %02x%02x%02x%02x\n",
			data[0], data[1], data[2], data[3], data[4], data[5], data[6], data[7],
			data[8], data[9], data[10], data[11]);
	abort();
}

/* Device limits a server may run with: soft-RoCE, a ConnectX-like NIC, and
 * the largest values the fields can hold. Only UB/crashes are checked. */
static const struct rb_caps cap_sets[] = {
	{ .max_qp_wr = 16384, .max_cqe = 32767, .max_qp = 65536, .max_cq = 16384,
	  .max_qp_rd_atom = 128, .max_qp_init_rd_atom = 128, .max_msg_sz = 1u << 23,
	  .active_mtu = 1024, .atomics = true },
	{ .max_qp_wr = 32768, .max_cqe = 4194303, .max_qp = 262144, .max_cq = 16777216,
	  .max_qp_rd_atom = 16, .max_qp_init_rd_atom = 16, .max_msg_sz = 1u << 30,
	  .active_mtu = 4096, .atomics = true },
	{ .max_qp_wr = UINT32_MAX, .max_cqe = UINT32_MAX, .max_qp = UINT32_MAX,
	  .max_cq = UINT32_MAX, .max_qp_rd_atom = UINT32_MAX, .max_qp_init_rd_atom = UINT32_MAX,
	  .max_msg_sz = UINT32_MAX, .active_mtu = 0, .atomics = false },
};

static void check_device_rules(const uint8_t *data, size_t size)
{
	static struct ctrl_msg m;
	char err[256];

	if (ctrl_decode(data, size, &m, err, sizeof(err)) || m.type != CTRL_TEST ||
	    test_validate(&m.u.test, err, sizeof(err)))
		return;
	for (size_t i = 0; i < sizeof(cap_sets) / sizeof(cap_sets[0]); i++) {
		err[0] = '\0';
		int rc = test_validate_device(&m.u.test, &cap_sets[i], err, sizeof(err));
		if (rc != 0 && rc != -1)
			die(data, size, "test_validate_device returned neither 0 nor -1");
		if (rc && !err[0])
			die(data, size, "test_validate_device refused with an empty message");
	}
}

/* The input as a stream on a socket pair, read by ctrl_recv until it stops. */
static void check_stream(const uint8_t *data, size_t size)
{
	struct ctrl_rbuf rb = { 0 };
	static struct ctrl_msg m;
	char err[512];
	int sv[2];

	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv))
		die(data, size, "socketpair failed");
	ssize_t n = size ? send(sv[1], data, size, MSG_DONTWAIT | MSG_NOSIGNAL) : 0;
	if (n < 0 || (size_t)n != size) {
		/* does not fit the socket buffer: the pure path covered it */
		close(sv[0]);
		close(sv[1]);
		return;
	}
	shutdown(sv[1], SHUT_WR);
	for (size_t k = 0; k <= size / CTRL_HDR_LEN + 1; k++) {
		memset(err, 0, sizeof(err));
		int rc = ctrl_recv(sv[0], &rb, &m, 0, 2000, "a fuzzed message", err, sizeof(err));
		if (rc == 0) {
			if (m.type < CTRL_HELLO || m.type > CTRL_TYPE_LAST)
				die(data, size, "ctrl_recv returned a message of unknown type");
			if (rb.cap > CTRL_HDR_LEN + (size_t)CTRL_MAX_PAYLOAD)
				die(data, size, "ctrl_recv grew its buffer above the largest message");
			continue;
		}
		if (rc != -1 && rc != -2)
			die(data, size, "ctrl_recv returned neither 0, -1 nor -2");
		if (!err[0] || !memchr(err, '\0', sizeof(err)))
			die(data, size, "ctrl_recv failed without a message");
		if (rc == -1 && strstr(err, "timed out"))
			die(data, size, "ctrl_recv timed out on a closed stream instead of "
				"reporting the close");
		break;
	}
	ctrl_rbuf_free(&rb);
	close(sv[0]);
	close(sv[1]);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct cc_result r;

	if (cc_check_input(data, size, skip, &r))
		die(data, size, r.why);
	check_device_rules(data, size);
	check_stream(data, size);
	return 0;
}
