/*
 * errbuf.h - the library's error convention.
 *
 * A function that can fail takes (char *err, size_t errlen): on failure it
 * writes one message into err (what failed, the refused value, the limit and
 * the fix, as the user needs them) and returns -1; the caller prints it or
 * adds its own prefix. rb_fail is that last step in one call.
 */
#ifndef RDMA_BENCH_ERRBUF_H
#define RDMA_BENCH_ERRBUF_H

#include <stddef.h>

/* Format fmt into err (errlen bytes, always terminated when errlen > 0);
 * returns -1 so that `return rb_fail(err, errlen, ...);` ends an error path. */
int rb_fail(char *err, size_t errlen, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* Replace the first `skip` bytes of err (len bytes of room) with pfx, e.g.
 * a peer's "peer: why" -> "server: why"; the end is cut to fit len. */
void rb_reprefix(char *err, size_t len, size_t skip, const char *pfx);

#endif
