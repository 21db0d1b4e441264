/*
 * test_output.c - unit tests of result rows and their writers (output.h).
 *
 * CSV files are read back byte for byte. The write() calls of the CSV writer
 * are observed through a write() defined in this file: the program's own
 * definition takes precedence over the C library's for calls made from
 * librdmabench.a, and it forwards to the system call. JSON files are checked
 * by Python's json module through tests/unit/json_check.py.
 */
#include "unit.h"
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <unistd.h>

#include "output.h"

/* ---- observed write() --------------------------------------------------- */

#define WR_MAX 8
static int wr_on;              /* record calls on fds > 2 */
static size_t wr_short;        /* > 0: the next recorded call writes only this much */
static int wr_errno;           /* > 0: the next wr_fails recorded calls fail with it */
static int wr_fails;
static int wr_zero;            /* 1: the next recorded call after the failures writes nothing, returns 0 */
static int wr_n;               /* calls recorded */
static char *wr_data[WR_MAX];  /* copy of each recorded buffer (NUL-terminated) */
static size_t wr_len[WR_MAX];

ssize_t write(int fd, const void *buf, size_t n)
{
	if (wr_on && fd > 2) {
		if (wr_n < WR_MAX) {
			wr_data[wr_n] = malloc(n + 1);
			if (wr_data[wr_n]) {
				memcpy(wr_data[wr_n], buf, n);
				wr_data[wr_n][n] = '\0';
			}
			wr_len[wr_n] = n;
		}
		wr_n++;
		if (wr_errno > 0 && wr_fails > 0) {
			wr_fails--;
			errno = wr_errno;
			return -1;
		}
		if (wr_zero) {
			wr_zero = 0;
			return 0;
		}
		if (wr_short > 0 && wr_short < n) {
			n = wr_short;
			wr_short = 0;
		}
	}
	return syscall(SYS_write, fd, buf, n);
}

/*
 * Observed close(): with cl_errno > 0, the next close of an fd > 2 releases
 * the descriptor (as close does on an NFS write-back error) and fails with it.
 */
static int cl_errno;

int close(int fd)
{
	long rc = syscall(SYS_close, fd);

	if (rc == 0 && cl_errno > 0 && fd > 2) {
		errno = cl_errno;
		cl_errno = 0;
		return -1;
	}
	return (int)rc;
}

/*
 * Observed realloc(): with rl_on, the largest size asked for is kept in
 * rl_max (the output buffers grow by realloc; glibc's own is __libc_realloc).
 * Built with AddressSanitizer (tests/mutate, make sanitize) the heap is
 * ASan's: its realloc is __interceptor_realloc (realloc is its weak alias),
 * and glibc's would refuse ASan's pointers ("realloc(): invalid pointer").
 */
#if defined(__SANITIZE_ADDRESS__)
void *__interceptor_realloc(void *p, size_t n);
#define REAL_REALLOC __interceptor_realloc
#else
void *__libc_realloc(void *p, size_t n);
#define REAL_REALLOC __libc_realloc
#endif
static int rl_on;
static size_t rl_max;

void *realloc(void *p, size_t n)
{
	if (rl_on && n > rl_max)
		rl_max = n;
	return REAL_REALLOC(p, n);
}

/* fsync() failing with fs_errno when it is not 0 (a disk that reports an
 * I/O error when the data is forced out). */
static int fs_errno;

int fsync(int fd)
{
	if (fs_errno) {
		errno = fs_errno;
		return -1;
	}
	return (int)syscall(SYS_fsync, fd);
}

static void wr_start(void)
{
	wr_on = 1;
	wr_n = 0;
	wr_short = 0;
	wr_errno = 0;
	wr_fails = 0;
	wr_zero = 0;
}

static void wr_stop(void)
{
	cl_errno = 0;
	rl_on = 0;
	wr_on = 0;
	wr_short = 0;
	wr_errno = 0;
	wr_fails = 0;
	for (int i = 0; i < WR_MAX; i++) {
		free(wr_data[i]);
		wr_data[i] = NULL;
	}
}

/* ---- fixtures and helpers ------------------------------------------------ */

struct fx {
	char dir[64];
	char path[128];   /* dir/out.csv or dir/out.json */
	struct row *rows; /* 4 rows */
};

static int setup(void **state)
{
	struct fx *fx = calloc(1, sizeof(*fx));
	if (fx == NULL)
		return -1;
	snprintf(fx->dir, sizeof(fx->dir), "/tmp/rb_test_output.XXXXXX");
	if (mkdtemp(fx->dir) == NULL) {
		free(fx);
		return -1;
	}
	fx->rows = calloc(4, sizeof(*fx->rows));
	if (fx->rows == NULL)
		return -1;
	for (int i = 0; i < 4; i++)
		row_init(&fx->rows[i]);
	*state = fx;
	return 0;
}

static int teardown(void **state)
{
	struct fx *fx = *state;
	DIR *d = opendir(fx->dir);
	struct dirent *e;
	char p[PATH_MAX];

	wr_stop();
	while (d && (e = readdir(d)) != NULL) {
		if (e->d_name[0] == '.')
			continue;
		snprintf(p, sizeof(p), "%s/%s", fx->dir, e->d_name);
		unlink(p);
	}
	if (d)
		closedir(d);
	rmdir(fx->dir);
	free(fx->rows);
	free(fx);
	return 0;
}

static void fx_path(struct fx *fx, const char *name)
{
	snprintf(fx->path, sizeof(fx->path), "%s/%s", fx->dir, name);
}

/* Whole file as a string (caller frees); NULL if it cannot be read. */
static char *slurp(const char *path)
{
	FILE *f = fopen(path, "rb");
	if (f == NULL)
		return NULL;
	fseek(f, 0, SEEK_END);
	long n = ftell(f);
	rewind(f);
	char *s = malloc((size_t)n + 1);
	if (s && fread(s, 1, (size_t)n, f) != (size_t)n) {
		free(s);
		s = NULL;
	}
	if (s)
		s[n] = '\0';
	fclose(f);
	return s;
}

static void spill(const char *path, const char *text)
{
	FILE *f = fopen(path, "wb");
	assert_non_null(f);
	assert_int_equal(fputs(text, f) >= 0, 1);
	assert_int_equal(fclose(f), 0);
}

static void assert_file_is(const char *path, const char *expected)
{
	char *s = slurp(path);
	assert_non_null(s);
	assert_string_equal(s, expected);
	free(s);
}

/* The header and the row csv_append writes for sample_row(r, 64, 1.5). */
#define CSV_HEAD "schema_version,verb,size_bytes,mops,lat_p50_us,status\n"
#define CSV_ROW "1,write,64,1.500,,ok\n"

/* A small row in the shape of the results schema. */
static void sample_row(struct row *r, uint64_t size, double mops)
{
	row_init(r);
	row_set_u64(r, "schema_version", 1);
	row_set_str(r, "verb", "write");
	row_set_u64(r, "size_bytes", size);
	row_set_double(r, "mops", mops, 3);
	row_set_na(r, "lat_p50_us");
	row_set_str(r, "status", "ok");
}

/* tests/unit/json_check.py, looked for above the test binary, then by source path. */
static int find_checker(char *out, size_t len)
{
	char exe[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);

	if (n > 0) {
		exe[n] = '\0';
		char *dir = dirname(exe);
		for (int up = 0; up < 5; up++) {
			snprintf(out, len, "%s/tests/unit/json_check.py", dir);
			if (access(out, R_OK) == 0)
				return 0;
			dir = dirname(dir);
		}
	}
	char src[PATH_MAX];
	snprintf(src, sizeof(src), "%s", __FILE__);
	snprintf(out, len, "%s/json_check.py", dirname(src));
	return access(out, R_OK) == 0 ? 0 : -1;
}

/* Run the checker on path (and expected text, if any); skip if python3 is absent. */
static void check_json(struct fx *fx, const char *path, const char *expected)
{
	char checker[PATH_MAX], exp_path[192], cmd[PATH_MAX + 512];

	if (system("python3 -c 'import json' >/dev/null 2>&1") != 0) {
		print_message("# python3 not found: JSON not checked by a parser\n");
		skip();
	}
	if (find_checker(checker, sizeof(checker)) != 0) {
		print_error("tests/unit/json_check.py not found (run from the source tree)\n");
		fail();
	}
	exp_path[0] = '\0';
	if (expected) {
		snprintf(exp_path, sizeof(exp_path), "%s/expected.json", fx->dir);
		spill(exp_path, expected);
	}
	snprintf(cmd, sizeof(cmd), "python3 '%s' '%s' %s%s%s", checker, path,
		 expected ? "'" : "", exp_path, expected ? "'" : "");
	int rc = system(cmd);
	if (!(WIFEXITED(rc) && WEXITSTATUS(rc) == 0)) {
		char *got = slurp(path);
		print_error("json_check failed on:\n%s\n", got ? got : "(unreadable)");
		free(got);
		fail();
	}
}

/* ---- rows --------------------------------------------------------------- */

static void row_set_appends_in_order_and_overwrites_in_place(void **state)
{
	struct row *r = &((struct fx *)*state)->rows[0];

	row_set_str(r, "a", "1");
	row_set_str(r, "b", "2");
	row_set_str(r, "c", "3");
	row_set_str(r, "a", "one");  /* overwrite keeps position */
	assert_int_equal(r->ncols, 3);
	assert_string_equal(r->cols[0].name, "a");
	assert_string_equal(r->cols[0].val, "one");
	assert_string_equal(r->cols[1].name, "b");
	assert_string_equal(r->cols[2].name, "c");
	row_init(r);
	assert_int_equal(r->ncols, 0);
	assert_null(row_get(r, "a"));
}

static void row_get_tells_missing_from_na(void **state)
{
	struct row *r = &((struct fx *)*state)->rows[0];

	row_set_na(r, "lat_p50_us");
	row_set_str(r, "reason", NULL);
	row_set_u64(r, "ops", 0);
	assert_null(row_get(r, "nope"));
	assert_string_equal(row_get(r, "lat_p50_us"), "");
	assert_string_equal(row_get(r, "reason"), "");
	assert_string_equal(row_get(r, "ops"), "0");  /* measured zero is not NA */
}

static void row_set_double_rounds_and_maps_nan_to_na(void **state)
{
	struct row *r = &((struct fx *)*state)->rows[0];

	row_set_double(r, "x", 12.3456, 3);
	assert_string_equal(row_get(r, "x"), "12.346");
	row_set_double(r, "x", 2.0, 0);
	assert_string_equal(row_get(r, "x"), "2");
	row_set_double(r, "x", NAN, 3);
	assert_string_equal(row_get(r, "x"), "");
	row_set_double(r, "x", INFINITY, 3);
	assert_string_equal(row_get(r, "x"), "inf");
	row_set_double(r, "x", -INFINITY, 3);
	assert_string_equal(row_get(r, "x"), "-inf");
	row_set_double(r, "x", -0.0001, 3);
	assert_string_equal(row_get(r, "x"), "0.000");
	row_set_double(r, "x", -1.5, 1);
	assert_string_equal(row_get(r, "x"), "-1.5");
	row_set_double(r, "x", 0.1, 40);  /* clamped to 17 decimals */
	assert_string_equal(row_get(r, "x"), "0.10000000000000001");
	row_set_double(r, "x", 0.1, 18);  /* the first one past the clamp */
	assert_string_equal(row_get(r, "x"), "0.10000000000000001");
	row_set_double(r, "x", 1e300, 3);  /* too wide for %f: %.17g */
	assert_string_equal(row_get(r, "x"), "1.0000000000000001e+300");
	/* exactly as wide as a value (ROW_VAL_LEN 96 digits with no room for
	 * the NUL): %.17g too, not 95 digits cut off */
	row_set_double(r, "x", 2e95, 0);
	assert_string_equal(row_get(r, "x"), "2e+95");
	assert_int_equal(r->ncols, 1);
}

static void row_set_integers_cover_their_range(void **state)
{
	struct row *r = &((struct fx *)*state)->rows[0];

	row_set_u64(r, "u", UINT64_MAX);
	row_set_i64(r, "i", INT64_MIN);
	row_set_i64(r, "j", -42);
	row_set_fmt(r, "f", "%s:%d", "host", 18515);
	assert_string_equal(row_get(r, "u"), "18446744073709551615");
	assert_string_equal(row_get(r, "i"), "-9223372036854775808");
	assert_string_equal(row_get(r, "j"), "-42");
	assert_string_equal(row_get(r, "f"), "host:18515");
}

static void row_long_value_is_cut_visibly_at_a_character(void **state)
{
	struct row *r = &((struct fx *)*state)->rows[0];
	char longv[300];

	memset(longv, 'a', sizeof(longv) - 1);
	longv[sizeof(longv) - 1] = '\0';
	row_set_str(r, "reason", longv);
	const char *v = row_get(r, "reason");
	assert_int_equal(strlen(v), ROW_VAL_LEN - 1);
	assert_string_equal(v + ROW_VAL_LEN - 4, "...");

	/* a two-byte character straddling the cut is dropped whole */
	memset(longv, 'a', sizeof(longv) - 1);
	longv[91] = (char)0xC3;
	longv[92] = (char)0xA9;  /* U+00E9 at bytes 91..92; the cut is at 92 */
	row_set_str(r, "reason", longv);
	v = row_get(r, "reason");
	assert_int_equal(strlen(v), 91 + 3);
	assert_string_equal(v + 91, "...");

	row_set_fmt(r, "reason", "%s", longv);
	assert_string_equal(row_get(r, "reason") + 91, "...");
}

static void row_full_refuses_new_columns_and_writers_refuse_it(void **state)
{
	struct fx *fx = *state;
	struct row *r = &fx->rows[0];
	static char names[ROW_MAX_COLS + 1][8];
	char err[256];

	for (int i = 0; i <= ROW_MAX_COLS; i++) {
		snprintf(names[i], sizeof(names[i]), "c%d", i);
		row_set_u64(r, names[i], (uint64_t)i);
	}
	assert_int_equal(r->ncols, ROW_MAX_COLS);
	assert_int_equal(r->dropped, 1);
	assert_null(row_get(r, names[ROW_MAX_COLS]));
	row_set_u64(r, names[0], 99);  /* existing columns still update */
	assert_string_equal(row_get(r, "c0"), "99");

	fx_path(fx, "full.csv");
	assert_int_equal(csv_append(fx->path, r, err, sizeof(err)), -1);
	assert_err_has(err, "more than 256 columns");
	assert_int_equal(access(fx->path, F_OK), -1);  /* nothing created */
	fx_path(fx, "full.json");
	assert_int_equal(json_write(fx->path, r, 1, err, sizeof(err)), -1);
	assert_err_has(err, "more than 256 columns");
}

/* ---- CSV ---------------------------------------------------------------- */

static void csv_writes_header_once_then_appends_rows(void **state)
{
	struct fx *fx = *state;
	char err[256];

	fx_path(fx, "out.csv");
	sample_row(&fx->rows[0], 64, 1.5);
	assert_int_equal(csv_append(fx->path, &fx->rows[0], err, sizeof(err)), 0);
	sample_row(&fx->rows[0], 256, 2.25);
	assert_int_equal(csv_append(fx->path, &fx->rows[0], err, sizeof(err)), 0);
	sample_row(&fx->rows[0], 4096, NAN);
	assert_int_equal(csv_append(fx->path, &fx->rows[0], err, sizeof(err)), 0);
	assert_file_is(fx->path,
		       CSV_HEAD
		       CSV_ROW
		       "1,write,256,2.250,,ok\n"
		       "1,write,4096,,,ok\n");
	struct stat st;
	mode_t um = umask(0);
	umask(um);
	assert_int_equal(stat(fx->path, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0644 & ~um);
}

/* A symbolic link planted at the --csv path: refused, its target untouched. */
static void csv_refuses_a_symbolic_link(void **state)
{
	struct fx *fx = *state;
	char err[512], target[160];

	snprintf(target, sizeof(target), "%s/victim", fx->dir);
	spill(target, "precious\n");
	fx_path(fx, "out.csv");
	assert_int_equal(symlink(target, fx->path), 0);
	sample_row(&fx->rows[0], 64, 1.5);
	assert_int_equal(csv_append(fx->path, &fx->rows[0], err, sizeof(err)), -1);
	assert_err_has(err, "symbolic link");
	assert_file_is(target, "precious\n");
}

/* --json over a symbolic link replaces the link, never the file it names;
 * its temporary file is made with O_EXCL (mkstemp) and none is left. */
/* The open file descriptors of this process (its /proc/self/fd entries,
 * less the one opendir holds while counting). */
static int open_fds(void)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *e;
	int n = 0;

	assert_non_null(d);
	while ((e = readdir(d)) != NULL)
		n += e->d_name[0] != '.';
	closedir(d);
	return n - 1;
}

/* A null device to write --json to: as root a node of it (character
 * device 1,3) in the fixture's folder, so that a broken json_write (a
 * mutant that takes it for a file and renames over it) costs that node,
 * never the host's /dev/null; else /dev/null itself, which a process
 * that is not root cannot rename over. */
static const char *null_node(struct fx *fx, char *buf, size_t len)
{
	snprintf(buf, len, "%s/null", fx->dir);
	if (geteuid() == 0 && mknod(buf, S_IFCHR | 0666, makedev(1, 3)) == 0)
		return buf;
	return "/dev/null";
}

/* Writing --json over an existing regular file, a new name and /dev/null
 * leaves no descriptor open (the target's kind is looked at through an
 * O_NOFOLLOW descriptor that is closed again). */
static void json_write_leaves_no_descriptor_open(void **state)
{
	struct fx *fx = *state;
	char err[512];
	int before = open_fds();

	sample_row(&fx->rows[0], 64, 1.5);
	fx_path(fx, "fds.json");
	for (int i = 0; i < 3; i++) /* a new name, then the file written before */
		assert_int_equal(json_write(fx->path, fx->rows, 1, err, sizeof(err)), 0);
	char nb[160];
	const char *null = null_node(fx, nb, sizeof(nb));
	before = open_fds();
	assert_int_equal(json_write(null, fx->rows, 1, err, sizeof(err)), 0);
	assert_int_equal(open_fds(), before);
}

/* The --json temporary files (NAME.tmp.XXXXXX) left in dir. */
static int tmp_files_in(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int n = 0;

	while (d && (e = readdir(d)) != NULL)
		n += strstr(e->d_name, ".tmp.") != NULL;
	if (d)
		closedir(d);
	return n;
}

static void json_replaces_a_link_not_its_target(void **state)
{
	struct fx *fx = *state;
	char err[512], target[160];
	struct stat st;

	snprintf(target, sizeof(target), "%s/victim", fx->dir);
	spill(target, "precious\n");
	fx_path(fx, "out.json");
	assert_int_equal(symlink(target, fx->path), 0);
	sample_row(&fx->rows[0], 64, 1.5);
	assert_int_equal(json_write(fx->path, fx->rows, 1, err, sizeof(err)), 0);
	assert_file_is(target, "precious\n");
	assert_int_equal(lstat(fx->path, &st), 0);
	assert_true(S_ISREG(st.st_mode));
	assert_int_equal(tmp_files_in(fx->dir), 0);
}

/* --json whose data cannot be forced to the disk (fsync fails): -1 naming
 * the temporary file and the error, the file written before unchanged,
 * no temporary file left (and, under the sanitizers, nothing leaked). */
static void json_write_failing_fsync_keeps_the_old_file(void **state)
{
	struct fx *fx = *state;
	char err[512];

	sample_row(&fx->rows[0], 64, 1.5);
	fx_path(fx, "kept.json");
	spill(fx->path, "[]\n");
	fs_errno = EIO;
	int rc = json_write(fx->path, fx->rows, 1, err, sizeof(err));
	fs_errno = 0;
	assert_int_equal(rc, -1);
	assert_err_has(err, "kept.json.tmp.");
	assert_err_has(err, strerror(EIO));
	assert_file_is(fx->path, "[]\n");
	assert_int_equal(tmp_files_in(fx->dir), 0);
}

/* output_path_writable, the check made before the device is opened: a
 * missing directory and a directory given as the file are refused naming
 * the option, the path and the fix; a new file in a writable directory is
 * accepted. */
static void output_path_writable_refuses_a_directory_and_a_missing_one(void **state)
{
	struct fx *fx = *state;
	char err[1024], path[600];

	assert_int_equal(output_path_writable("--json", fx->dir, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "--json"));
	assert_non_null(strstr(err, "is a directory; give a file's path"));
	assert_non_null(strstr(err, "/out.json"));
	assert_int_equal(output_path_writable("--csv", fx->dir, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "/out.csv"));
	snprintf(path, sizeof(path), "%s/no/such.csv", fx->dir);
	assert_int_equal(output_path_writable("--csv", path, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "cannot open for writing: directory"));
	assert_non_null(strstr(err, "create it or choose another path"));
	snprintf(path, sizeof(path), "%s/new.csv", fx->dir);
	assert_int_equal(output_path_writable("--csv", path, err, sizeof(err)), 0);
}

/* --json or --csv at a FIFO is refused by name, at once: without
 * O_NONBLOCK the open waits for a reader that may never come (a FIFO
 * planted where a client writes hangs it), and the node is left as it is.
 * /dev/null is taken (nothing written). */
static void json_and_csv_refuse_a_fifo_by_name(void **state)
{
	struct fx *fx = *state;
	char err[512];
	struct stat st;

	fx_path(fx, "pipe.json");
	assert_int_equal(mkfifo(fx->path, 0600), 0);
	sample_row(&fx->rows[0], 64, 1.5);
	/* no reader: an open without O_NONBLOCK would block here for ever */
	assert_int_equal(json_write(fx->path, fx->rows, 1, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "is a FIFO, not a regular file: refused"));
	assert_non_null(strstr(err, "pipe.json"));
	assert_int_equal(csv_append(fx->path, &fx->rows[0], err, sizeof(err)), -1);
	assert_non_null(strstr(err, "is a FIFO, not a regular file: refused"));
	assert_int_equal(lstat(fx->path, &st), 0);
	assert_true(S_ISFIFO(st.st_mode));
	char nb[160];
	const char *null = null_node(fx, nb, sizeof(nb));
	assert_int_equal(json_write(null, fx->rows, 1, err, sizeof(err)), 0);
	assert_int_equal(stat(null, &st), 0);
	assert_true(S_ISCHR(st.st_mode));
	/* in a process started with standard input closed the look opens
	 * descriptor 0: still the null device, and the FIFO still by name;
	 * a new regular file's temporary file is then descriptor 0 too, a
	 * valid one (written and renamed into place) */
	char reg[600];
	snprintf(reg, sizeof(reg), "%s/closed-stdin.json", fx->dir);
	int in = dup(0);
	assert_true(in >= 0);
	close(0);
	int rc_null = json_write(null, fx->rows, 1, err, sizeof(err));
	int rc_fifo = json_write(fx->path, fx->rows, 1, err, sizeof(err));
	char err_reg[512] = "";
	int rc_reg = json_write(reg, fx->rows, 1, err_reg, sizeof(err_reg));
	assert_true(dup2(in, 0) == 0);
	close(in);
	assert_int_equal(rc_null, 0);
	if (rc_reg != 0)
		fail_msg("json_write with standard input closed: %s", err_reg);
	assert_int_equal(stat(reg, &st), 0);
	assert_true(S_ISREG(st.st_mode) && st.st_size > 0);
	assert_int_equal(rc_fifo, -1);
	assert_non_null(strstr(err, "is a FIFO, not a regular file: refused"));
	/* another character device is refused by its kind */
	if (null == nb) {
		fx_path(fx, "zero");
		assert_int_equal(mknod(fx->path, S_IFCHR | 0666, makedev(1, 5)), 0);
		assert_int_equal(json_write(fx->path, fx->rows, 1, err, sizeof(err)), -1);
		assert_non_null(strstr(err, "is a character device, not a regular file: refused"));
	}
}

/* fx->path set to out.csv (not created), fx->rows[0] the sample row (64
 * bytes, 1.5 Mops): that row. */
static struct row *fx_csv_sample(struct fx *fx)
{
	fx_path(fx, "out.csv");
	sample_row(&fx->rows[0], 64, 1.5);
	return &fx->rows[0];
}

/* fx's out.csv holding one sample row (64 bytes, 1.5 Mops): that row. */
static struct row *fx_csv_one_row(struct fx *fx)
{
	char err[256];
	struct row *r = fx_csv_sample(fx);

	if (csv_append(fx->path, r, err, sizeof(err)))
		fail_msg("csv_append of the sample row: %s", err);
	return r;
}

static void csv_refuses_a_different_header_naming_the_column(void **state)
{
	struct fx *fx = *state;
	char err[512];
	struct row *r = fx_csv_one_row(fx);
	char *before = slurp(fx->path);

	row_init(r);
	row_set_u64(r, "schema_version", 1);
	row_set_str(r, "verb", "read");
	row_set_u64(r, "size_kib", 4);  /* column 3 differs */
	assert_int_equal(csv_append(fx->path, r, err, sizeof(err)), -1);
	assert_err_has(err, fx->path);
	assert_err_has(err, "column 3");
	assert_err_has(err, "size_bytes");
	assert_err_has(err, "size_kib");
	assert_err_has(err, "use another --csv file");
	assert_file_is(fx->path, before);
	free(before);
}

static void csv_refuses_extra_or_missing_columns(void **state)
{
	struct fx *fx = *state;
	char err[512];
	struct row *r = fx_csv_one_row(fx);

	row_set_str(r, "device", "rxe0");  /* one column more */
	assert_int_equal(csv_append(fx->path, r, err, sizeof(err)), -1);
	assert_err_has(err, "device");
	assert_err_has(err, "column 7");

	row_init(r);
	row_set_u64(r, "schema_version", 1);  /* most columns missing */
	assert_int_equal(csv_append(fx->path, r, err, sizeof(err)), -1);
	assert_err_has(err, "verb");
	assert_err_has(err, "column 2");
}

static void csv_quotes_values_per_rfc_4180(void **state)
{
	struct fx *fx = *state;
	char err[256];
	struct row *r = &fx->rows[0];

	fx_path(fx, "out.csv");
	row_set_str(r, "plain", "a b");
	row_set_str(r, "comma", "a,b");
	row_set_str(r, "quote", "say \"hi\"");
	row_set_str(r, "newline", "line1\nline2");
	row_set_str(r, "cr", "x\ry");
	row_set_na(r, "na");
	assert_int_equal(csv_append(fx->path, r, err, sizeof(err)), 0);
	assert_file_is(fx->path,
		       "plain,comma,quote,newline,cr,na\n"
		       "a b,\"a,b\",\"say \"\"hi\"\"\",\"line1\nline2\",\"x\ry\",\n");
}

static void csv_writes_each_line_with_one_write_call(void **state)
{
	struct fx *fx = *state;
	char err[256];
	struct row *r = fx_csv_sample(fx);

	wr_start();
	assert_int_equal(csv_append(fx->path, r, err, sizeof(err)), 0);
	assert_int_equal(wr_n, 2);  /* header, row */
	assert_string_equal(wr_data[0], CSV_HEAD);
	assert_string_equal(wr_data[1], CSV_ROW);
	wr_stop();

	wr_start();
	assert_int_equal(csv_append(fx->path, r, err, sizeof(err)), 0);
	assert_int_equal(wr_n, 1);  /* row only */
	assert_string_equal(wr_data[0], CSV_ROW);
	wr_stop();

	assert_file_is(fx->path,
		       CSV_HEAD
		       CSV_ROW
		       CSV_ROW);
}

/*
 * A line of exactly 1024 bytes (the buffer's first capacity) gets a buffer
 * with room for its terminating NUL as well: 16 values of 63 characters,
 * 15 commas and the LF.
 */
static void csv_buffer_holds_a_line_of_its_first_capacity_and_the_nul(void **state)
{
	struct fx *fx = *state;
	char err[256], val[64];
	static char names[16][8];
	struct row *r = &fx->rows[0];

	memset(val, 'v', sizeof(val) - 1);
	val[sizeof(val) - 1] = '\0';
	for (int i = 0; i < 16; i++) {
		snprintf(names[i], sizeof(names[i]), "c%d", i);
		row_set_str(r, names[i], val);
	}
	fx_path(fx, "1024.csv");
	wr_start();
	rl_on = 1;
	rl_max = 0;
	assert_int_equal(csv_append(fx->path, r, err, sizeof(err)), 0);
	rl_on = 0;
	assert_int_equal(wr_n, 2);
	assert_int_equal(wr_len[1], 1024);
	wr_stop();
	assert_true(rl_max >= 1025);
}

/*
 * --csv and --json naming one file are found by spelling (a file not yet
 * there: its directory resolved), by device and inode (a hard link), at the
 * root ("/") and in the working directory ("."); two files, or an empty
 * path, pass.
 */
static void output_paths_distinct_finds_one_file_named_twice(void **state)
{
	struct fx *fx = *state;
	char a[256], b[256], err[1024];

	snprintf(a, sizeof(a), "%s/new.out", fx->dir);
	snprintf(b, sizeof(b), "%s/./new.out", fx->dir);
	assert_int_equal(output_paths_distinct(a, b, err, sizeof(err)), -1);
	assert_err_has(err, "are the same file");
	assert_err_has(err, b);
	assert_int_equal(output_paths_distinct(a, a, err, sizeof(err)), -1);
	snprintf(b, sizeof(b), "%s/new.json", fx->dir);
	assert_int_equal(output_paths_distinct(a, b, err, sizeof(err)), 0);
	assert_int_equal(output_paths_distinct("", b, err, sizeof(err)), 0);
	assert_int_equal(output_paths_distinct(a, "", err, sizeof(err)), 0);
	spill(a, "x\n");
	assert_int_equal(link(a, b), 0);
	assert_int_equal(output_paths_distinct(a, b, err, sizeof(err)), -1);
	assert_int_equal(output_paths_distinct("/rb_x.csv", "//rb_x.csv", err, sizeof(err)), -1);
	assert_int_equal(output_paths_distinct("/rb_x.csv", "/rb_y.csv", err, sizeof(err)), 0);
	assert_int_equal(output_paths_distinct("rb_x.csv", "./rb_x.csv", err, sizeof(err)), -1);
	assert_int_equal(output_paths_distinct("rb_x.csv", "rb_y.csv", err, sizeof(err)), 0);
}

static void csv_writes_a_maximal_row_with_one_write_call(void **state)
{
	struct fx *fx = *state;
	char err[256], val[ROW_VAL_LEN];
	static char names[ROW_MAX_COLS][16];
	struct row *r = &fx->rows[0];

	/* 256 columns of 95 quote characters: each field doubles to 192 bytes. */
	memset(val, '"', sizeof(val) - 1);
	val[sizeof(val) - 1] = '\0';
	for (int i = 0; i < ROW_MAX_COLS; i++) {
		snprintf(names[i], sizeof(names[i]), "col_%d", i);
		row_set_str(r, names[i], val);
	}
	fx_path(fx, "big.csv");
	wr_start();
	assert_int_equal(csv_append(fx->path, r, err, sizeof(err)), 0);
	assert_int_equal(wr_n, 2);
	size_t head_len = wr_len[0], row_len = wr_len[1];
	wr_stop();
	/* 256 fields of 2 * 95 + 2 bytes, 255 commas, one LF */
	assert_true(row_len == (size_t)ROW_MAX_COLS * (2 * 95 + 2) + ROW_MAX_COLS);
	char *s = slurp(fx->path);
	assert_non_null(s);
	assert_true(strlen(s) == head_len + row_len);
	assert_true(s[head_len + row_len - 1] == '\n');
	free(s);
}

/* csv_append of r to path when the kernel takes only n bytes of its first
 * write: refused (-1), err says why */
static void append_cut_short(const char *path, struct row *r, size_t n, char *err, size_t len)
{
	wr_start();
	wr_short = n;
	assert_int_equal(csv_append(path, r, err, len), -1);
	wr_stop();
}

static void csv_removes_a_partial_row_after_a_short_write(void **state)
{
	struct fx *fx = *state;
	char err[256];
	struct row *r = fx_csv_one_row(fx);

	append_cut_short(fx->path, r, 5, err, sizeof(err)); /* 5 bytes of the row */
	assert_err_has(err, fx->path);
	assert_err_has(err, "wrote only 5 of");
	assert_err_has(err, "removed");
	assert_file_is(fx->path,
		       CSV_HEAD
		       CSV_ROW);
	/* one byte is a partial row too */
	append_cut_short(fx->path, r, 1, err, sizeof(err));
	assert_err_has(err, "wrote only 1 of");
	assert_file_is(fx->path,
		       CSV_HEAD
		       CSV_ROW);
}

/* A short write of a new file's header: the file is cut back to empty (its
 * length before the header), not left with a partial header line. */
static void csv_removes_a_partial_header_after_a_short_write(void **state)
{
	struct fx *fx = *state;
	char err[256];
	struct row *r = fx_csv_sample(fx);

	append_cut_short(fx->path, r, 5, err, sizeof(err)); /* 5 bytes of the header */
	assert_err_has(err, "wrote only 5 of");
	assert_err_has(err, "of the header");
	assert_file_is(fx->path, "");
	/* the next append writes the header and the row whole */
	assert_int_equal(csv_append(fx->path, r, err, sizeof(err)), 0);
	assert_file_is(fx->path, CSV_HEAD CSV_ROW);
}

/* A write() interrupted by a signal (EINTR) is retried: the row is written once. */
static void csv_retries_a_write_interrupted_by_a_signal(void **state)
{
	struct fx *fx = *state;
	char err[256];
	struct row *r = fx_csv_one_row(fx);

	wr_start();
	wr_errno = EINTR;
	wr_fails = 2;  /* two interrupted calls, then the write goes through */
	assert_int_equal(csv_append(fx->path, r, err, sizeof(err)), 0);
	assert_int_equal(wr_n, 3);
	wr_stop();
	assert_file_is(fx->path,
		       CSV_HEAD
		       CSV_ROW
		       CSV_ROW);
}

/* A write() that returns 0 after an interrupted one (errno still EINTR) is
 * a write that made no progress: named, not retried (retrying it could
 * spin), nothing left. */
static void csv_does_not_retry_a_write_of_nothing(void **state)
{
	struct fx *fx = *state;
	char err[256];
	struct row *r = fx_csv_one_row(fx);

	wr_start();
	wr_errno = EINTR;
	wr_fails = 1;
	wr_zero = 1;
	assert_int_equal(csv_append(fx->path, r, err, sizeof(err)), -1);
	assert_int_equal(wr_n, 2);
	wr_stop();
	assert_err_has(err, "wrote only 0 of");
	assert_file_is(fx->path,
		       CSV_HEAD
		       CSV_ROW);
}

/* A write() that fails (ENOSPC: the disk is full) is named, nothing is left. */
static void csv_names_a_failed_write_and_leaves_the_file(void **state)
{
	struct fx *fx = *state;
	char err[256];
	struct row *r = fx_csv_sample(fx);

	wr_start();
	wr_errno = ENOSPC;
	wr_fails = 1;  /* the header of a new file */
	assert_int_equal(csv_append(fx->path, r, err, sizeof(err)), -1);
	assert_int_equal(wr_n, 1);
	wr_stop();
	assert_err_has(err, fx->path);
	assert_err_has(err, "writing the header failed");
	assert_err_has(err, strerror(ENOSPC));
	assert_file_is(fx->path, "");

	assert_int_equal(csv_append(fx->path, r, err, sizeof(err)), 0);
	wr_start();
	wr_errno = ENOSPC;
	wr_fails = 1;  /* the row */
	assert_int_equal(csv_append(fx->path, r, err, sizeof(err)), -1);
	wr_stop();
	assert_err_has(err, "writing the row failed");
	assert_err_has(err, strerror(ENOSPC));
	assert_file_is(fx->path,
		       CSV_HEAD
		       CSV_ROW);

	cl_errno = EIO;  /* the row written, its close fails: named, not a success */
	assert_int_equal(csv_append(fx->path, r, err, sizeof(err)), -1);
	assert_int_equal(cl_errno, 0);
	assert_err_has(err, "close failed");
	assert_err_has(err, strerror(EIO));
}

/*
 * A "full" device (Linux: char 1,7): --json and --csv refuse it by its
 * kind (only /dev/null is taken), no temporary file is left beside it and
 * the node stays a character device. The node is made in the test's own folder (mknod, as
 * root), so that a broken json_write (make mutate runs such code) can at
 * worst rename over that node, never over /dev/full; without mknod
 * /dev/full itself is used only where /dev is not writable (nothing can be
 * created or renamed there). Otherwise the test is skipped, and says so.
 */
static void json_and_csv_refuse_a_device_by_name_and_leave_it(void **state)
{
	struct fx *fx = *state;
	char err[512], dev[160];
	struct stat st;
	struct row *r = &fx->rows[0];

	fx_path(fx, "full");
	snprintf(dev, sizeof(dev), "%s", fx->path);
	if (mknod(dev, S_IFCHR | 0600, makedev(1, 7)) != 0) {
		if (access("/dev", W_OK) == 0 || access("/dev/full", W_OK) != 0) {
			print_message("cannot make a full device (%s) and /dev is writable: "
				      "test not run\n", strerror(errno));
			skip();
		}
		snprintf(dev, sizeof(dev), "/dev/full");
	}
	sample_row(r, 64, 1.5);
	err[0] = '\0';
	assert_int_equal(json_write(dev, r, 1, err, sizeof(err)), -1);
	assert_err_has(err, dev);
	assert_err_has(err, "is a character device, not a regular file: refused");
	assert_int_equal(stat(dev, &st), 0);
	assert_true(S_ISCHR(st.st_mode));
	char dir[160];
	snprintf(dir, sizeof(dir), "%s", dev);
	DIR *d = opendir(dirname(dir));
	assert_non_null(d);
	for (struct dirent *e; (e = readdir(d)) != NULL;)
		if (strncmp(e->d_name, "full.tmp", 8) == 0)
			fail_msg("a temporary file %s was left beside %s", e->d_name, dev);
	closedir(d);

	err[0] = '\0';
	assert_int_equal(csv_append(dev, r, err, sizeof(err)), -1);
	assert_err_has(err, dev);
	assert_err_has(err, "is a character device, not a regular file: refused");
	assert_int_equal(stat(dev, &st), 0);
	assert_true(S_ISCHR(st.st_mode));
}

static void csv_refuses_a_file_with_a_torn_last_line(void **state)
{
	struct fx *fx = *state;
	char err[256];
	struct row *r = &fx->rows[0];
	const char *torn = "schema_version,verb,size_bytes,mops,lat_p50_us,status\n1,wri";

	fx_path(fx, "out.csv");
	spill(fx->path, torn);
	sample_row(r, 64, 1.5);
	assert_int_equal(csv_append(fx->path, r, err, sizeof(err)), -1);
	assert_err_has(err, "does not end with a newline");
	assert_file_is(fx->path, torn);

	spill(fx->path, "schema_version,verb,si");  /* header itself cut */
	assert_int_equal(csv_append(fx->path, r, err, sizeof(err)), -1);
	assert_err_has(err, "complete header");

	spill(fx->path, "\n");  /* a complete, empty header line of one byte */
	assert_int_equal(csv_append(fx->path, r, err, sizeof(err)), -1);
	assert_err_has(err, "column 1 is \"\" in the file");
}

static void csv_accepts_a_header_with_crlf(void **state)
{
	struct fx *fx = *state;
	char err[256];
	struct row *r = &fx->rows[0];

	fx_path(fx, "out.csv");
	spill(fx->path, "schema_version,verb,size_bytes,mops,lat_p50_us,status\r\n");
	sample_row(r, 64, 1.5);
	assert_int_equal(csv_append(fx->path, r, err, sizeof(err)), 0);
}

static void csv_open_failure_names_the_file(void **state)
{
	struct fx *fx = *state;
	char err[256];
	struct row *r = &fx->rows[0];

	fx_path(fx, "no/such/dir.csv");
	sample_row(r, 64, 1.5);
	assert_int_equal(csv_append(fx->path, r, err, sizeof(err)), -1);
	assert_err_has(err, fx->path);
	assert_err_has(err, "No such file or directory");

	assert_int_equal(csv_append(fx->dir, r, err, sizeof(err)), -1);  /* a directory */
	assert_err_has(err, fx->dir);
}

/* ---- JSON --------------------------------------------------------------- */

static void json_output_parses_with_types_and_null(void **state)
{
	struct fx *fx = *state;
	char err[256];

	sample_row(&fx->rows[0], 64, 1.5);
	sample_row(&fx->rows[1], 4096, NAN);
	row_set_str(&fx->rows[1], "status", "failed");
	fx_path(fx, "out.json");
	assert_int_equal(json_write(fx->path, fx->rows, 2, err, sizeof(err)), 0);
	check_json(fx, fx->path,
		   "[{\"schema_version\": 1, \"verb\": \"write\", \"size_bytes\": 64,"
		   " \"mops\": 1.5, \"lat_p50_us\": null, \"status\": \"ok\"},"
		   " {\"schema_version\": 1, \"verb\": \"write\", \"size_bytes\": 4096,"
		   " \"mops\": null, \"lat_p50_us\": null, \"status\": \"failed\"}]");
}

static void json_escapes_strings_per_rfc_8259(void **state)
{
	struct fx *fx = *state;
	char err[256];
	struct row *r = &fx->rows[0];

	row_set_str(r, "quote", "say \"hi\"");
	row_set_str(r, "backslash", "C:\\dir");
	row_set_str(r, "controls", "a\nb\tc\rd\be\ff\x01g\x1f");
	row_set_str(r, "utf8", "caf\xc3\xa9 \xe2\x82\xac");
	row_set_str(r, "bad_utf8", "x\xffy\xc3");
	row_set_str(r, "we\"ird key", "v");
	fx_path(fx, "out.json");
	assert_int_equal(json_write(fx->path, r, 1, err, sizeof(err)), 0);
	check_json(fx, fx->path,
		   "[{\"quote\": \"say \\\"hi\\\"\", \"backslash\": \"C:\\\\dir\","
		   " \"controls\": \"a\\nb\\tc\\rd\\be\\ff\\u0001g\\u001f\","
		   " \"utf8\": \"caf\\u00e9 \\u20ac\", \"bad_utf8\": \"x\\ufffdy\\ufffd\","
		   " \"we\\\"ird key\": \"v\"}]");
}

static void json_writes_numbers_only_for_json_numbers(void **state)
{
	struct fx *fx = *state;
	char err[256];
	struct row *r = &fx->rows[0];

	row_set_str(r, "int", "42");
	row_set_str(r, "neg", "-0.5");
	row_set_str(r, "exp", "1e5");
	row_set_str(r, "zero", "0");
	row_set_u64(r, "big", UINT64_MAX);
	row_set_str(r, "lead0", "007");
	row_set_str(r, "dot", ".5");
	row_set_str(r, "trail", "1.");
	row_set_str(r, "plus", "+1");
	row_set_str(r, "hex", "0x10");
	row_set_double(r, "inf", INFINITY, 2);
	row_set_str(r, "nan", "nan");
	row_set_text(r, "git_rev", "1234567");  /* all digits, still a string */
	fx_path(fx, "out.json");
	assert_int_equal(json_write(fx->path, r, 1, err, sizeof(err)), 0);
	check_json(fx, fx->path,
		   "[{\"int\": 42, \"neg\": -0.5, \"exp\": 1e5, \"zero\": 0,"
		   " \"big\": 18446744073709551615, \"lead0\": \"007\", \"dot\": \".5\","
		   " \"trail\": \"1.\", \"plus\": \"+1\", \"hex\": \"0x10\", \"inf\": \"inf\","
		   " \"nan\": \"nan\", \"git_rev\": \"1234567\"}]");
}

/* The edges of the number grammar (digits 0 and 9 in every part) and of
 * UTF-8 (the first and last code point of each sequence length, RFC 3629). */
static void json_edges_of_numbers_and_utf8(void **state)
{
	struct fx *fx = *state;
	char err[256];
	struct row *r = &fx->rows[0];

	row_set_str(r, "n9", "9.9e9");
	row_set_str(r, "n0", "-0.0E-0");
	row_set_str(r, "n19", "19");
	row_set_str(r, "badexp", "1e");
	row_set_str(r, "badfrac", "1.e5");
	row_set_str(r, "u80", "\xc2\x80");
	row_set_str(r, "u7ff", "\xdf\xbf");
	row_set_str(r, "u800", "\xe0\xa0\x80");
	row_set_str(r, "ud7ff", "\xed\x9f\xbf");
	row_set_str(r, "ue000", "\xee\x80\x80");
	row_set_str(r, "uffff", "\xef\xbf\xbf");
	row_set_str(r, "u10000", "\xf0\x90\x80\x80");
	row_set_str(r, "u10ffff", "\xf4\x8f\xbf\xbf");
	row_set_str(r, "overlong", "\xe0\x9f\xbf");
	row_set_str(r, "surrogate", "\xed\xa0\x80");
	row_set_str(r, "above", "\xf4\x90\x80\x80");
	row_set_str(r, "c1", "\xc1\xbf");
	fx_path(fx, "out.json");
	assert_int_equal(json_write(fx->path, r, 1, err, sizeof(err)), 0);
	check_json(fx, fx->path,
		   "[{\"n9\": 9.9e9, \"n0\": -0.0E-0, \"n19\": 19, \"badexp\": \"1e\","
		   " \"badfrac\": \"1.e5\", \"u80\": \"\\u0080\", \"u7ff\": \"\\u07ff\","
		   " \"u800\": \"\\u0800\", \"ud7ff\": \"\\ud7ff\", \"ue000\": \"\\ue000\","
		   " \"uffff\": \"\\uffff\", \"u10000\": \"\\ud800\\udc00\","
		   " \"u10ffff\": \"\\udbff\\udfff\", \"overlong\": \"\\ufffd\\ufffd\\ufffd\","
		   " \"surrogate\": \"\\ufffd\\ufffd\\ufffd\", \"above\": \"\\ufffd\\ufffd\\ufffd\\ufffd\","
		   " \"c1\": \"\\ufffd\\ufffd\"}]");
}

static void json_zero_rows_is_an_empty_array(void **state)
{
	struct fx *fx = *state;
	char err[256];

	fx_path(fx, "out.json");
	assert_int_equal(json_write(fx->path, NULL, 0, err, sizeof(err)), 0);
	assert_file_is(fx->path, "[]\n");
	check_json(fx, fx->path, "[]");
}

static void json_replaces_the_file_and_leaves_no_temporary(void **state)
{
	struct fx *fx = *state;
	char err[256];

	fx_path(fx, "out.json");
	spill(fx->path, "old contents");
	sample_row(&fx->rows[0], 64, 1.5);
	assert_int_equal(json_write(fx->path, fx->rows, 1, err, sizeof(err)), 0);
	check_json(fx, fx->path, NULL);

	DIR *d = opendir(fx->dir);
	struct dirent *e;
	int files = 0;
	assert_non_null(d);
	while ((e = readdir(d)) != NULL) {
		if (e->d_name[0] == '.')
			continue;
		files++;
		assert_string_equal(e->d_name, "out.json");
	}
	closedir(d);
	assert_int_equal(files, 1);
}

static void json_failure_names_the_file(void **state)
{
	struct fx *fx = *state;
	char err[256];

	fx_path(fx, "missing/out.json");
	sample_row(&fx->rows[0], 64, 1.5);
	assert_int_equal(json_write(fx->path, fx->rows, 1, err, sizeof(err)), -1);
	assert_err_has(err, fx->path);
	assert_err_has(err, "No such file or directory");
}

/* ---- table ---------------------------------------------------------------- */

static char *table_text(const struct row *rows, int nrows, const char *const *cols, int ncols)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	assert_non_null(f);
	table_print(f, rows, nrows, cols, ncols);
	fclose(f);
	return buf;
}

static void table_aligns_columns_and_shows_na_as_dash(void **state)
{
	struct fx *fx = *state;
	static const char *const cols[] = { "verb", "size_bytes", "mops", "lat_p50_us", "absent" };

	sample_row(&fx->rows[0], 64, 12.5);
	sample_row(&fx->rows[1], 4096, 1.25);
	row_set_str(&fx->rows[1], "verb", "read\nx");
	row_set_double(&fx->rows[1], "lat_p50_us", 3.5, 2);
	char *t = table_text(fx->rows, 2, cols, 5);
	assert_string_equal(t,
			    "verb    size_bytes    mops  lat_p50_us  absent\n"
			    "write           64  12.500           -  -\n"
			    "read?x        4096   1.250        3.50  -\n");
	free(t);
}

static void table_without_cols_prints_every_column_of_the_first_row(void **state)
{
	struct fx *fx = *state;

	row_set_str(&fx->rows[0], "a", "x");
	row_set_u64(&fx->rows[0], "b", 7);
	char *t = table_text(fx->rows, 1, NULL, 0);
	assert_string_equal(t, "a  b\nx  7\n");
	free(t);
	t = table_text(fx->rows, 0, NULL, 0);
	assert_true(t == NULL || t[0] == '\0');
	free(t);
	/* a control character shows as '?', a space as itself */
	row_set_str(&fx->rows[0], "a", "x y\tz\x7f");
	t = table_text(fx->rows, 1, NULL, 0);
	assert_string_equal(t, "a       b\nx y?z?  7\n");
	free(t);
}

#define T(f) cmocka_unit_test_setup_teardown(f, setup, teardown)

/* A text column before the last is padded to its widest value (header
 * included); the last text column is not padded; no rows print nothing. */
static void table_pads_every_column_but_a_last_text_one(void **state)
{
	struct fx *fx = *state;
	static const char *const cols[] = { "verb", "host", "mops", "note" };

	row_set_str(&fx->rows[0], "verb", "write");
	row_set_str(&fx->rows[0], "host", "a");
	row_set_str(&fx->rows[0], "mops", "1.5");
	row_set_str(&fx->rows[0], "note", "x");
	row_set_str(&fx->rows[1], "verb", "read");
	row_set_str(&fx->rows[1], "host", "bbbbbb");
	row_set_str(&fx->rows[1], "mops", "10");
	row_set_str(&fx->rows[1], "note", "yyyyyy");
	char *t = table_text(fx->rows, 2, cols, 3);
	assert_string_equal(t,
			    "verb   host    mops\n"
			    "write  a        1.5\n"
			    "read   bbbbbb    10\n");
	free(t);
	t = table_text(fx->rows, 2, cols, 4);
	assert_string_equal(t,
			    "verb   host    mops  note\n"
			    "write  a        1.5  x\n"
			    "read   bbbbbb    10  yyyyyy\n");
	free(t);
	/* one row, one column */
	static const char *const one[] = { "verb" };
	t = table_text(fx->rows, 1, one, 1);
	assert_string_equal(t, "verb\nwrite\n");
	free(t);
	t = table_text(NULL, 0, cols, 4);
	assert_string_equal(t, "");
	free(t);
}

/*
 * The header is read back up to CSV_HEADER_MAX (1 MiB) bytes: a first line
 * of 2^20 - 1 characters and its LF is read whole (and then compared), one
 * of 2^20 characters is not a complete header.
 */
static void csv_reads_a_header_of_up_to_one_mib(void **state)
{
	struct fx *fx = *state;
	char err[512];
	struct row *r = &fx->rows[0];
	size_t n = (size_t)1 << 20;
	char *text = malloc(n + 2);

	assert_non_null(text);
	fx_path(fx, "out.csv");
	sample_row(r, 64, 1.5);
	memset(text, 'x', n - 1);
	memcpy(text + n - 1, "\n", 2);  /* 2^20 - 1 characters and the LF */
	spill(fx->path, text);
	assert_int_equal(csv_append(fx->path, r, err, sizeof(err)), -1);
	assert_err_has(err, "column 1 is \"xxx");
	memset(text, 'x', n);
	memcpy(text + n, "\n", 2);  /* 2^20 characters: the LF is past the limit */
	spill(fx->path, text);
	assert_int_equal(csv_append(fx->path, r, err, sizeof(err)), -1);
	assert_err_has(err, "does not start with a complete header line");
	free(text);
}

/* A quoted first field (a column name with a comma) is one field. */
static void csv_header_diff_reads_a_quoted_first_field(void **state)
{
	struct fx *fx = *state;
	char err[512];
	struct row *r = &fx->rows[0];

	fx_path(fx, "out.csv");
	spill(fx->path, "\"a,b\",c\n");
	row_set_u64(r, "a,b", 1);
	row_set_u64(r, "d", 2);
	assert_int_equal(csv_append(fx->path, r, err, sizeof(err)), -1);
	assert_err_has(err, "column 2 is \"c\" in the file but \"d\" here");
}

/* Column names in the header messages are cut at 80 characters, not 79 or 81. */
static void csv_header_messages_cut_names_at_80_characters(void **state)
{
	struct fx *fx = *state;
	char err[1024];
	struct row *r = &fx->rows[0];
	char name_a[82], name_b[82];  /* 81 characters: one past the cut */
	char cut_a[128], cut_b[128];

	memset(name_a, 'a', 81);
	name_a[81] = '\0';
	memset(name_b, 'b', 81);
	name_b[81] = '\0';
	snprintf(cut_a, sizeof(cut_a), "\"%.80s\"", name_a);  /* quote, 80, quote */
	snprintf(cut_b, sizeof(cut_b), "\"%.80s\"", name_b);

	/* a column that differs: both names cut */
	fx_path(fx, "out.csv");
	row_set_u64(r, "k", 1);
	row_set_u64(r, name_a, 1);
	assert_int_equal(csv_append(fx->path, r, err, sizeof(err)), 0);
	row_init(r);
	row_set_u64(r, "k", 1);
	row_set_u64(r, name_b, 1);
	assert_int_equal(csv_append(fx->path, r, err, sizeof(err)), -1);
	assert_err_has(err, cut_a);
	assert_err_has(err, cut_b);

	/* a column this run adds: its name cut */
	row_init(r);
	row_set_u64(r, "k", 1);
	row_set_u64(r, name_a, 1);
	row_set_u64(r, name_b, 1);
	assert_int_equal(csv_append(fx->path, r, err, sizeof(err)), -1);
	assert_err_has(err, "column 3 is ");
	assert_err_has(err, cut_b);
	/* and one the file has but this run does not */
	fx_path(fx, "out2.csv");
	assert_int_equal(csv_append(fx->path, r, err, sizeof(err)), 0);
	row_init(r);
	row_set_u64(r, "k", 1);
	row_set_u64(r, name_a, 1);
	assert_int_equal(csv_append(fx->path, r, err, sizeof(err)), -1);
	assert_err_has(err, cut_b);
}

/* A value of ROW_VAL_LEN - 1 bytes is kept whole; one byte more is cut
 * and marked "..."; a row with no columns is refused by both writers. */
static void values_at_the_length_limit_and_empty_rows(void **state)
{
	struct fx *fx = *state;
	char err[256];
	char v[ROW_VAL_LEN + 1];
	struct row *r = &fx->rows[0];

	memset(v, 'a', ROW_VAL_LEN - 1);
	v[ROW_VAL_LEN - 1] = '\0';
	row_set_str(r, "k", v);
	assert_string_equal(row_get(r, "k"), v);
	v[ROW_VAL_LEN - 1] = 'a';
	v[ROW_VAL_LEN] = '\0';
	row_set_str(r, "k", v);
	const char *got = row_get(r, "k");
	assert_int_equal(strlen(got), ROW_VAL_LEN - 1);
	assert_string_equal(got + ROW_VAL_LEN - 4, "...");
	row_init(&fx->rows[1]);
	fx_path(fx, "empty.csv");
	assert_int_equal(csv_append(fx->path, &fx->rows[1], err, sizeof(err)), -1);
	assert_err_has(err, "the row has no columns");
	fx_path(fx, "empty.json");
	assert_int_equal(json_write(fx->path, &fx->rows[1], 1, err, sizeof(err)), -1);
	assert_err_has(err, "the row has no columns");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		T(row_set_appends_in_order_and_overwrites_in_place),
		T(row_get_tells_missing_from_na),
		T(row_set_double_rounds_and_maps_nan_to_na),
		T(row_set_integers_cover_their_range),
		T(row_long_value_is_cut_visibly_at_a_character),
		T(row_full_refuses_new_columns_and_writers_refuse_it),
		T(csv_writes_header_once_then_appends_rows),
		T(csv_refuses_a_symbolic_link),
		T(json_replaces_a_link_not_its_target),
		T(json_write_failing_fsync_keeps_the_old_file),
		T(json_write_leaves_no_descriptor_open),
		T(json_and_csv_refuse_a_fifo_by_name),
		T(output_path_writable_refuses_a_directory_and_a_missing_one),
		T(csv_refuses_a_different_header_naming_the_column),
		T(csv_refuses_extra_or_missing_columns),
		T(csv_quotes_values_per_rfc_4180),
		T(csv_writes_each_line_with_one_write_call),
		T(csv_writes_a_maximal_row_with_one_write_call),
		T(csv_buffer_holds_a_line_of_its_first_capacity_and_the_nul),
		T(output_paths_distinct_finds_one_file_named_twice),
		T(csv_removes_a_partial_row_after_a_short_write),
		T(csv_removes_a_partial_header_after_a_short_write),
		T(csv_refuses_a_file_with_a_torn_last_line),
		T(csv_accepts_a_header_with_crlf),
		T(csv_open_failure_names_the_file),
		T(json_output_parses_with_types_and_null),
		T(json_escapes_strings_per_rfc_8259),
		T(json_writes_numbers_only_for_json_numbers),
		T(json_edges_of_numbers_and_utf8),
		T(table_pads_every_column_but_a_last_text_one),
		T(csv_reads_a_header_of_up_to_one_mib),
		T(csv_header_diff_reads_a_quoted_first_field),
		T(csv_header_messages_cut_names_at_80_characters),
		T(csv_retries_a_write_interrupted_by_a_signal),
		T(csv_does_not_retry_a_write_of_nothing),
		T(csv_names_a_failed_write_and_leaves_the_file),
		T(json_and_csv_refuse_a_device_by_name_and_leave_it),
		T(values_at_the_length_limit_and_empty_rows),
		T(json_zero_rows_is_an_empty_array),
		T(json_replaces_the_file_and_leaves_no_temporary),
		T(json_failure_names_the_file),
		T(table_aligns_columns_and_shows_na_as_dash),
		T(table_without_cols_prints_every_column_of_the_first_row),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
