/*
 * output.c - result rows and their writers (CSV append, JSON, human table).
 *
 * Rows hold text. Numbers are formatted when set, so every writer prints the
 * same digits. The CSV writer is built for many runs appending to one file:
 * it checks the existing header before adding a row, holds an flock while it
 * does, and writes each line with a single write() so that a crash or a full
 * disk never leaves half a row. The JSON writer replaces its file atomically
 * (temporary file, fsync, rename).
 */
#include "output.h"
#include "errbuf.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#define CSV_HEADER_MAX (1u << 20)  /* longest first line read back from a CSV file */

/* ---- rows --------------------------------------------------------------- */

void row_init(struct row *r)
{
	r->ncols = 0;
	r->dropped = 0;
}

/* The column called name, appended if new; NULL if the row is full. */
static struct row_col *row_col_for(struct row *r, const char *name)
{
	for (int i = 0; i < r->ncols; i++)
		if (strcmp(r->cols[i].name, name) == 0)
			return &r->cols[i];
	if (r->ncols >= ROW_MAX_COLS) {
		r->dropped++;
		return NULL;
	}
	struct row_col *c = &r->cols[r->ncols++];
	c->name = name;
	c->val[0] = '\0';
	c->text = 0;
	return c;
}

/* Copy v into dst (ROW_VAL_LEN bytes); cut at a UTF-8 boundary, mark with "...". */
static void row_copy_val(char *dst, const char *v)
{
	size_t len = strlen(v);

	if (len < ROW_VAL_LEN) {
		memcpy(dst, v, len + 1);
		return;
	}
	size_t keep = ROW_VAL_LEN - 4;  /* room for "..." and NUL */
	while (keep > 0 && ((unsigned char)v[keep] & 0xC0) == 0x80)
		keep--;  /* v[keep] would start the cut-off part: not inside a character */
	memcpy(dst, v, keep);
	memcpy(dst + keep, "...", 4);
}

static void row_set_kind(struct row *r, const char *name, const char *v, unsigned char text)
{
	if (r == NULL || name == NULL)
		return;
	struct row_col *c = row_col_for(r, name);
	if (c == NULL)
		return;
	row_copy_val(c->val, v ? v : "");
	c->text = text;
}

void row_set_str(struct row *r, const char *name, const char *v)
{
	row_set_kind(r, name, v, 0);
}

void row_set_text(struct row *r, const char *name, const char *v)
{
	row_set_kind(r, name, v, 1);
}

void row_set_fmt(struct row *r, const char *name, const char *fmt, ...)
{
	char buf[ROW_VAL_LEN * 2];
	va_list ap;

	va_start(ap, fmt);
	int n = vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	if (n < 0)
		buf[0] = '\0';
	row_set_str(r, name, buf);  /* buf is longer than a value: a cut still shows */
}

void row_set_u64(struct row *r, const char *name, uint64_t v)
{
	char buf[24];

	snprintf(buf, sizeof(buf), "%" PRIu64, v);
	row_set_str(r, name, buf);
}

void row_set_i64(struct row *r, const char *name, int64_t v)
{
	char buf[24];

	snprintf(buf, sizeof(buf), "%" PRId64, v);
	row_set_str(r, name, buf);
}

void row_set_double(struct row *r, const char *name, double v, int decimals)
{
	char buf[ROW_VAL_LEN];

	if (isnan(v)) {
		row_set_str(r, name, "");
		return;
	}
	if (isinf(v)) {
		row_set_str(r, name, v > 0 ? "inf" : "-inf");
		return;
	}
	if (decimals < 0)
		decimals = 0;
	if (decimals > 17)
		decimals = 17;
	int n = snprintf(buf, sizeof(buf), "%.*f", decimals, v);
	if (n < 0 || (size_t)n >= sizeof(buf))
		snprintf(buf, sizeof(buf), "%.17g", v);
	if (buf[0] == '-' && strspn(buf + 1, "0.") == strlen(buf + 1))
		memmove(buf, buf + 1, strlen(buf));  /* "-0.000" -> "0.000" */
	row_set_str(r, name, buf);
}

void row_set_na(struct row *r, const char *name)
{
	row_set_str(r, name, "");
}

const char *row_get(const struct row *r, const char *name)
{
	for (int i = 0; i < r->ncols; i++)
		if (strcmp(r->cols[i].name, name) == 0)
			return r->cols[i].val;
	return NULL;
}

static int row_check(const struct row *r, const char *what, const char *path,
		     char *err, size_t errlen)
{
	if (r->dropped > 0) {
		snprintf(err, errlen, "%s \"%s\": the row has more than %d columns (%d not "
			 "stored); raise ROW_MAX_COLS in include/output.h", what, path,
			 ROW_MAX_COLS, r->dropped);
		return -1;
	}
	if (r->ncols == 0) {
		snprintf(err, errlen, "%s \"%s\": the row has no columns", what, path);
		return -1;
	}
	return 0;
}

/* ---- a growable text buffer ---------------------------------------------- */

struct obuf {
	char *p;
	size_t len, cap;
	int failed;  /* an allocation failed: contents incomplete */
};

static void obuf_grow(struct obuf *b, size_t more)
{
	if (b->failed || b->len + more + 1 <= b->cap)
		return;
	size_t cap = b->cap ? b->cap : 1024;
	while (cap < b->len + more + 1)
		cap *= 2;
	char *p = realloc(b->p, cap);
	if (p == NULL) {
		b->failed = 1;
		return;
	}
	b->p = p;
	b->cap = cap;
}

static void obuf_put(struct obuf *b, const char *s, size_t n)
{
	obuf_grow(b, n);
	if (b->failed)
		return;
	memcpy(b->p + b->len, s, n);
	b->len += n;
	b->p[b->len] = '\0';
}

static void obuf_puts(struct obuf *b, const char *s)
{
	obuf_put(b, s, strlen(s));
}

static void obuf_putc(struct obuf *b, char c)
{
	obuf_put(b, &c, 1);
}

/* ---- CSV ---------------------------------------------------------------- */

/* Append s as one CSV field, quoted if it holds a comma, quote, CR or LF. */
static void csv_put_field(struct obuf *b, const char *s)
{
	if (strpbrk(s, ",\"\r\n") == NULL) {
		obuf_puts(b, s);
		return;
	}
	obuf_putc(b, '"');
	for (; *s; s++) {
		if (*s == '"')
			obuf_putc(b, '"');
		obuf_putc(b, *s);
	}
	obuf_putc(b, '"');
}

/* The header line or the value line of r, LF-terminated. */
static void csv_line(struct obuf *b, const struct row *r, int header)
{
	for (int i = 0; i < r->ncols; i++) {
		if (i > 0)
			obuf_putc(b, ',');
		csv_put_field(b, header ? r->cols[i].name : r->cols[i].val);
	}
	obuf_putc(b, '\n');
}

/*
 * Length of the raw CSV field at s (up to the next comma outside quotes, or
 * the end); the text is compared as written, quotes included.
 */
static size_t csv_raw_field_len(const char *s)
{
	int quoted = 0;
	size_t i = 0;

	for (; s[i]; i++) {
		if (s[i] == '"')
			quoted = !quoted;
		else if (s[i] == ',' && !quoted)
			break;
	}
	return i;
}

/* Number of CSV fields in s (at least 1). */
static int csv_count_fields(const char *s)
{
	int n = 1;

	for (size_t l = csv_raw_field_len(s); s[l] != '\0'; l = csv_raw_field_len(s)) {
		s += l + 1;
		n++;
	}
	return n;
}

/*
 * Explain how the file's header line `have` (no line end) differs from the
 * row's header `want` (the same, built from the row).
 */
static void csv_header_diff(const char *path, const char *have, const char *want,
			    char *err, size_t errlen)
{
	static const char fix[] = "use another --csv file, or move the old one away";
	int col = 1;

	for (;;) {
		size_t hl = csv_raw_field_len(have), wl = csv_raw_field_len(want);
		int hend = have[hl] == '\0', wend = want[wl] == '\0';
		if (hl != wl || memcmp(have, want, hl) != 0) {
			snprintf(err, errlen, "--csv file \"%s\" has other columns than this run: "
				 "column %d is \"%.*s\" in the file but \"%.*s\" here (%s)",
				 path, col, (int)(hl > 80 ? 80 : hl), have,
				 (int)(wl > 80 ? 80 : wl), want, fix);
			return;
		}
		if (hend && wend)
			break;  /* equal: not reached when called on a mismatch */
		if (hend || wend) {
			const char *more = hend ? want + wl + 1 : have + hl + 1;
			size_t ml = csv_raw_field_len(more);
			int total = col + csv_count_fields(more);
			snprintf(err, errlen, "--csv file \"%s\" has other columns than this run: "
				 "the file has %d, this run writes %d (column %d is \"%.*s\" in %s) (%s)",
				 path, hend ? col : total, hend ? total : col, col + 1,
				 (int)(ml > 80 ? 80 : ml), more, hend ? "this run" : "the file", fix);
			return;
		}
		have += hl + 1;
		want += wl + 1;
		col++;
	}
	snprintf(err, errlen, "--csv file \"%s\": header check failed (%s)", path, fix);
}

/* Read the first line of fd (without its line end) into a new string. */
static char *csv_read_first_line(int fd, off_t size, int *complete)
{
	size_t want = size > (off_t)CSV_HEADER_MAX ? CSV_HEADER_MAX : (size_t)size;
	char *buf = malloc(want + 1);
	size_t got = 0;

	*complete = 0;
	if (buf == NULL)
		return NULL;
	while (got < want) {
		ssize_t n = pread(fd, buf + got, want - got, (off_t)got);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		got += (size_t)n;
		if (memchr(buf + got - (size_t)n, '\n', (size_t)n))
			break;
	}
	buf[got] = '\0';
	char *nl = memchr(buf, '\n', got);
	if (nl) {
		*nl = '\0';
		if (nl > buf && nl[-1] == '\r')
			nl[-1] = '\0';
		*complete = 1;
	}
	return buf;
}

/*
 * One write() of the whole line. On a short write the file is cut back to
 * `end` (its size before), so no partial line remains.
 */
static int csv_write_line(int fd, const char *path, const struct obuf *b, off_t end,
			  const char *what, char *err, size_t errlen)
{
	ssize_t n;

	do
		n = write(fd, b->p, b->len);
	while (n < 0 && errno == EINTR);
	if (n == (ssize_t)b->len)
		return 0;
	int e = errno;
	if (n > 0 && ftruncate(fd, end) != 0) {
		snprintf(err, errlen, "--csv file \"%s\": wrote only %zd of %zu bytes of the %s "
			 "and could not cut the partial line off (%s): remove the last line by hand",
			 path, n, b->len, what, strerror(errno));
		return -1;
	}
	if (n < 0)
		snprintf(err, errlen, "--csv file \"%s\": writing the %s failed: %s", path, what,
			 strerror(e));
	else
		snprintf(err, errlen, "--csv file \"%s\": wrote only %zd of %zu bytes of the %s "
			 "(disk full?); the partial line was removed", path, n, b->len, what);
	return -1;
}

int csv_append(const char *path, const struct row *r, char *err, size_t errlen)
{
	struct obuf head = { 0 }, line = { 0 };
	struct stat st;
	int fd = -1, rc = -1;

	if (row_check(r, "--csv file", path, err, errlen) != 0)
		return -1;
	csv_line(&head, r, 1);
	csv_line(&line, r, 0);
	if (head.failed || line.failed) {
		snprintf(err, errlen, "--csv file \"%s\": out of memory formatting the row", path);
		goto out;
	}

	/* O_NOFOLLOW: a symbolic link planted at path must not get our rows
	 * appended to whatever file it points at; O_NONBLOCK: a FIFO planted
	 * there must not hang us (fstat below refuses it by name) */
	fd = open(path, O_RDWR | O_APPEND | O_CREAT | O_CLOEXEC | O_NOFOLLOW | O_NOCTTY | O_NONBLOCK,
		  0644);
	if (fd < 0) {
		snprintf(err, errlen, "--csv file \"%s\": cannot open for appending: %s%s",
			 path, strerror(errno), errno == ELOOP ? " (it is a symbolic link: give the "
			 "path of the file itself)" : "");
		goto out;
	}
	/* Serialise header check and append with other processes on this host.
	 * A file system without flock still gets single-write lines. */
	while (flock(fd, LOCK_EX) != 0 && errno == EINTR)
		;
	if (fstat(fd, &st) != 0) {
		snprintf(err, errlen, "--csv file \"%s\": fstat failed: %s", path, strerror(errno));
		goto out;
	}
	if (!S_ISREG(st.st_mode)) {
		snprintf(err, errlen, "--csv file \"%s\" is a %s, not a regular file: refused "
			 "(give the path of a file)", path, S_ISFIFO(st.st_mode) ? "FIFO" :
			 S_ISCHR(st.st_mode) ? "character device" : "special file");
		goto out;
	}

	if (st.st_size == 0) {
		if (csv_write_line(fd, path, &head, 0, "header", err, errlen) != 0)
			goto out;
		st.st_size = (off_t)head.len;
	} else {
		int complete;
		char *first = csv_read_first_line(fd, st.st_size, &complete);
		if (first == NULL) {
			snprintf(err, errlen, "--csv file \"%s\": out of memory reading its header",
				 path);
			goto out;
		}
		head.p[head.len - 1] = '\0';  /* compare without the LF */
		if (!complete) {
			snprintf(err, errlen, "--csv file \"%s\" does not start with a complete "
				 "header line (use another --csv file, or move this one away)", path);
			free(first);
			goto out;
		}
		if (strcmp(first, head.p) != 0) {
			csv_header_diff(path, first, head.p, err, errlen);
			free(first);
			goto out;
		}
		free(first);

		char last;
		if (pread(fd, &last, 1, st.st_size - 1) != 1 || last != '\n') {
			snprintf(err, errlen, "--csv file \"%s\" does not end with a newline "
				 "(its last line is incomplete; repair or remove it, or use another "
				 "--csv file)", path);
			goto out;
		}
	}
	if (csv_write_line(fd, path, &line, st.st_size, "row", err, errlen) != 0)
		goto out;
	rc = 0;
out:
	if (fd >= 0 && close(fd) != 0 && rc == 0) {
		snprintf(err, errlen, "--csv file \"%s\": close failed: %s", path, strerror(errno));
		rc = -1;
	}
	free(head.p);
	free(line.p);
	return rc;
}

/* ---- JSON --------------------------------------------------------------- */

/* Does s match the JSON number grammar -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)? */
static int json_is_number(const char *s)
{
	if (*s == '-')
		s++;
	if (*s == '0')
		s++;
	else if (*s >= '1' && *s <= '9')
		while (*s >= '0' && *s <= '9')
			s++;
	else
		return 0;
	if (*s == '.') {
		s++;
		if (!(*s >= '0' && *s <= '9'))
			return 0;
		while (*s >= '0' && *s <= '9')
			s++;
	}
	if (*s == 'e' || *s == 'E') {
		s++;
		if (*s == '+' || *s == '-')
			s++;
		if (!(*s >= '0' && *s <= '9'))
			return 0;
		while (*s >= '0' && *s <= '9')
			s++;
	}
	return *s == '\0';
}

/* Length of the valid UTF-8 sequence at s, or 0 if s[0] does not start one. */
static size_t utf8_len(const unsigned char *s)
{
	unsigned char c = s[0];
	size_t n;
	uint32_t cp;

	if (c < 0x80)
		return 1;
	if (c >= 0xC2 && c <= 0xDF) {
		n = 2;
		cp = c & 0x1F;
	} else if (c >= 0xE0 && c <= 0xEF) {
		n = 3;
		cp = c & 0x0F;
	} else if (c >= 0xF0 && c <= 0xF4) {
		n = 4;
		cp = c & 0x07;
	} else {
		return 0;
	}
	for (size_t i = 1; i < n; i++) {
		if ((s[i] & 0xC0) != 0x80)
			return 0;
		cp = (cp << 6) | (s[i] & 0x3F);
	}
	if ((n == 3 && cp < 0x800) || (n == 4 && (cp < 0x10000 || cp > 0x10FFFF)) ||
	    (cp >= 0xD800 && cp <= 0xDFFF))
		return 0;  /* overlong, beyond Unicode, or a surrogate */
	return n;
}

/* Write s as a JSON string literal (RFC 8259 section 7). */
static void json_put_string(FILE *f, const char *s)
{
	const unsigned char *p = (const unsigned char *)s;

	fputc('"', f);
	while (*p) {
		unsigned char c = *p;
		switch (c) {
		case '"': fputs("\\\"", f); p++; continue;
		case '\\': fputs("\\\\", f); p++; continue;
		case '\b': fputs("\\b", f); p++; continue;
		case '\f': fputs("\\f", f); p++; continue;
		case '\n': fputs("\\n", f); p++; continue;
		case '\r': fputs("\\r", f); p++; continue;
		case '\t': fputs("\\t", f); p++; continue;
		default: break;
		}
		if (c < 0x20) {
			fprintf(f, "\\u%04x", c);
			p++;
			continue;
		}
		size_t n = utf8_len(p);
		if (n == 0) {
			fputs("\\ufffd", f);  /* not UTF-8: the replacement character */
			p++;
			continue;
		}
		fwrite(p, 1, n, f);
		p += n;
	}
	fputc('"', f);
}

static void json_put_row(FILE *f, const struct row *r)
{
	fputc('{', f);
	for (int i = 0; i < r->ncols; i++) {
		const struct row_col *c = &r->cols[i];
		if (i > 0)
			fputs(", ", f);
		json_put_string(f, c->name);
		fputs(": ", f);
		if (c->val[0] == '\0')
			fputs("null", f);
		else if (!c->text && json_is_number(c->val))
			fputs(c->val, f);
		else
			json_put_string(f, c->val);
	}
	fputc('}', f);
}

/* The JSON array of rows, one object a line. */
static void json_put_rows(FILE *f, const struct row *rows, int nrows)
{
	fputc('[', f);
	for (int i = 0; i < nrows; i++) {
		fputs(i ? ",\n" : "\n", f);
		json_put_row(f, &rows[i]);
	}
	fputs(nrows ? "\n]\n" : "]\n", f);
}

/*
 * What is at path already, looked at without following a symbolic link and
 * without waiting (O_NOFOLLOW | O_NONBLOCK, then fstat: no window between
 * a check and an open, and a FIFO planted at path cannot hang the client):
 * 1 the null device (nothing to write: character device 1,3, /dev/null
 * by its number, Linux's devices.txt, wherever its node is), 0 nothing, a
 * regular file or a symbolic
 * link (json_write's rename replaces the name itself, never its target),
 * -1 anything else, refused with err naming the kind (a FIFO or a device
 * would block the client or be written in place).
 */
static int json_target_kind(const char *path, char *err, size_t errlen)
{
	struct stat st;
	int fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);

	if (fd < 0) /* ENOENT: a new file; ELOOP: a symbolic link; EACCES: lstat says */
		return lstat(path, &st) != 0 || S_ISREG(st.st_mode) || S_ISLNK(st.st_mode) ? 0 :
		       rb_fail(err, errlen, "--json file \"%s\" is not a regular file (give the "
			       "path of a file)", path);
	int rc = fstat(fd, &st);
	close(fd);
	if (rc != 0)
		return rb_fail(err, errlen, "--json file \"%s\": fstat failed: %s", path,
			       strerror(errno));
	if (S_ISREG(st.st_mode))
		return 0;
	if (S_ISCHR(st.st_mode) && major(st.st_rdev) == 1 && minor(st.st_rdev) == 3)
		return 1;
	return rb_fail(err, errlen, "--json file \"%s\" is a %s, not a regular file: refused (a "
		       "reader that never comes would hang the client); give the path of a file",
		       path, S_ISFIFO(st.st_mode) ? "FIFO" : S_ISCHR(st.st_mode) ?
		       "character device" : S_ISBLK(st.st_mode) ? "block device" :
		       S_ISSOCK(st.st_mode) ? "socket" : S_ISDIR(st.st_mode) ? "directory" :
		       "special file");
}

int json_write(const char *path, const struct row *rows, int nrows, char *err, size_t errlen)
{
	char *tmp = NULL;
	FILE *f = NULL;
	int fd = -1;

	for (int i = 0; i < nrows; i++)
		if (row_check(&rows[i], "--json file", path, err, errlen) != 0)
			return -1;
	int kind = json_target_kind(path, err, errlen);
	if (kind)
		return kind > 0 ? 0 : -1;
	/* a new file of our own beside path (mkstemp: O_CREAT | O_EXCL, a random
	 * name), renamed over path at the end; rename replaces a symbolic link at
	 * path itself, never the file it points at */
	if (asprintf(&tmp, "%s.tmp.XXXXXX", path) < 0) {
		snprintf(err, errlen, "--json file \"%s\": out of memory", path);
		return -1;
	}
	fd = mkostemp(tmp, O_CLOEXEC);
	if (fd >= 0 && fchmod(fd, 0644) != 0) {
		close(fd);
		unlink(tmp);
		fd = -1;
	}
	if (fd < 0) {
		snprintf(err, errlen, "--json file \"%s\": cannot create \"%s\": %s",
			 path, tmp, strerror(errno));
		free(tmp);
		return -1;
	}
	f = fdopen(fd, "w");
	if (f == NULL) {
		snprintf(err, errlen, "--json file \"%s\": fdopen failed: %s", path, strerror(errno));
		close(fd);
		goto fail;
	}

	json_put_rows(f, rows, nrows);

	if (fflush(f) != 0 || ferror(f) || fsync(fileno(f)) != 0) {
		snprintf(err, errlen, "--json file \"%s\": writing \"%s\" failed: %s",
			 path, tmp, strerror(errno));
		fclose(f);
		goto fail;
	}
	if (fclose(f) != 0) {
		snprintf(err, errlen, "--json file \"%s\": closing \"%s\" failed: %s",
			 path, tmp, strerror(errno));
		goto fail;
	}
	if (rename(tmp, path) != 0) {
		snprintf(err, errlen, "--json file \"%s\": renaming \"%s\" to it failed: %s",
			 path, tmp, strerror(errno));
		goto fail;
	}
	free(tmp);
	return 0;
fail:
	unlink(tmp);
	free(tmp);
	return -1;
}

/* ---- human table ---------------------------------------------------------- */

/* Display width: UTF-8 characters, not bytes. */
static int table_width(const char *s)
{
	int w = 0;

	for (; *s; s++)
		if (((unsigned char)*s & 0xC0) != 0x80)
			w++;
	return w;
}

static void table_cell(FILE *f, const char *s, int width, int right)
{
	int pad = width - table_width(s);

	if (right)
		fprintf(f, "%*s", pad > 0 ? pad : 0, "");
	for (; *s; s++)
		fputc((unsigned char)*s < 0x20 || *s == 0x7f ? '?' : *s, f);
	if (!right)
		fprintf(f, "%*s", pad > 0 ? pad : 0, "");
}

static const char *table_value(const struct row *r, const char *name)
{
	const char *v = row_get(r, name);
	return (v == NULL || v[0] == '\0') ? "-" : v;
}

void table_print(FILE *f, const struct row *rows, int nrows, const char *const *cols, int ncols)
{
	if (nrows <= 0)
		return;
	if (cols == NULL)
		ncols = rows[0].ncols;
	if (ncols <= 0)
		return;

	int *width = calloc((size_t)ncols, sizeof(*width));
	unsigned char *right = calloc((size_t)ncols, 1);
	if (width == NULL || right == NULL) {
		free(width);
		free(right);
		fputs("(out of memory printing the table)\n", f);
		return;
	}
	for (int c = 0; c < ncols; c++) {
		const char *name = cols ? cols[c] : rows[0].cols[c].name;
		int numeric = 0, other = 0;
		width[c] = table_width(name);
		for (int i = 0; i < nrows; i++) {
			const char *v = table_value(&rows[i], name);
			int w = table_width(v);
			if (w > width[c])
				width[c] = w;
			if (strcmp(v, "-") == 0)
				continue;
			if (json_is_number(v))
				numeric = 1;
			else
				other = 1;
		}
		right[c] = numeric && !other;
	}
	for (int c = 0; c < ncols; c++) {
		if (c > 0)
			fputs("  ", f);
		table_cell(f, cols ? cols[c] : rows[0].cols[c].name, c + 1 < ncols || right[c] ? width[c] : 0,
			   right[c]);
	}
	fputc('\n', f);
	for (int i = 0; i < nrows; i++) {
		for (int c = 0; c < ncols; c++) {
			const char *name = cols ? cols[c] : rows[0].cols[c].name;
			if (c > 0)
				fputs("  ", f);
			table_cell(f, table_value(&rows[i], name),
				   c + 1 < ncols || right[c] ? width[c] : 0, right[c]);
		}
		fputc('\n', f);
	}
	free(width);
	free(right);
}

/* The directory part of path into dir ("." without a slash, "/" for a file
 * at the root); returns the last component. */
static const char *path_dir(const char *path, char *dir, size_t len)
{
	const char *slash = strrchr(path, '/');

	if (!slash)
		snprintf(dir, len, ".");
	else if (slash == path)
		snprintf(dir, len, "/");
	else
		snprintf(dir, len, "%.*s", (int)(slash - path), path);
	return slash ? slash + 1 : path;
}

int output_path_writable(const char *opt, const char *path, char *err, size_t errlen)
{
	char dir[1024];

	path_dir(path, dir, sizeof(dir));
	if (access(dir, W_OK | X_OK)) {
		snprintf(err, errlen, "%s %.400s: cannot open for writing: directory %.400s: %s; "
			 "create it or choose another path", opt, path, dir, strerror(errno));
		return -1;
	}
	struct stat st;
	if (stat(path, &st) == 0 && S_ISDIR(st.st_mode)) {
		snprintf(err, errlen, "%s %.400s: is a directory; give a file's path (e.g. "
			 "%.400s/out.%s)", opt, path, path, strstr(opt, "json") ? "json" : "csv");
		return -1;
	}
	if (access(path, F_OK) == 0 && access(path, W_OK)) {
		snprintf(err, errlen, "%s %.400s: cannot open for writing: %s", opt, path,
			 strerror(errno));
		return -1;
	}
	return 0;
}

/* path's directory resolved (symbolic links, "." and "..") and its last
 * component: the name two spellings of one new file share. */
static void output_canonical(const char *path, char *out, size_t len)
{
	char dir[1024], real[PATH_MAX];
	const char *base = path_dir(path, dir, sizeof(dir));

	if (!realpath(dir, real))
		snprintf(real, sizeof(real), "%s", dir);
	snprintf(out, len, "%s/%s", real, base);
}

int output_paths_distinct(const char *csv, const char *json, char *err, size_t errlen)
{
	char a[PATH_MAX + 256], b[PATH_MAX + 256];
	struct stat sa, sb;
	bool same;

	if (!csv[0] || !json[0])
		return 0;
	output_canonical(csv, a, sizeof(a));
	output_canonical(json, b, sizeof(b));
	same = strcmp(a, b) == 0 ||
	       (stat(csv, &sa) == 0 && stat(json, &sb) == 0 && sa.st_dev == sb.st_dev &&
		sa.st_ino == sb.st_ino);
	if (!same)
		return 0;
	snprintf(err, errlen, "--csv %.400s and --json %.400s are the same file: the JSON "
		 "document would replace the CSV rows; give each its own file (e.g. --csv "
		 "out.csv --json out.json)", csv, json);
	return -1;
}
