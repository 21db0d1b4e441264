/*
 * output.h - result rows and their writers: CSV (append), JSON, human table.
 *
 * A row is an ordered list of named text values; the writers know nothing
 * of the schema (which columns exist is the caller's business, see
 * docs/CONTRACTS.md, "CSV columns the runners rely on"). Values are stored as
 * text, formatted once when set, so CSV, JSON and table show the same digits.
 * An empty value means "not measured" (NA): empty in CSV, null in JSON, "-"
 * in the table, never 0 (docs/csv.md).
 *
 * Rows are plain structs (about 27 KiB, no pointers to free): build one per
 * (point, repetition, process), set every column in the same order each
 * time, write it. Not thread-safe per row; distinct rows are independent.
 */
#ifndef RDMA_BENCH_OUTPUT_H
#define RDMA_BENCH_OUTPUT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define ROW_MAX_COLS 256  /* columns per row */
#define ROW_VAL_LEN 96    /* bytes per value, with the terminating NUL */

struct row_col {
	const char *name;        /* not copied: a string that outlives the row
	                            (a literal) */
	char val[ROW_VAL_LEN];   /* "" = not measured (NA) */
	unsigned char text;      /* 1: always a JSON string (row_set_text) */
};

struct row {
	int ncols;                        /* columns in use, in insertion order */
	int dropped;                      /* set_* calls refused: no room for a new
	                                     column; the writers refuse such a row */
	struct row_col cols[ROW_MAX_COLS];
};

/* Make r an empty row (no columns). */
void row_init(struct row *r);

/*
 * Set column name to the text v (NULL is NA). A new name is appended at the
 * end; a name already present keeps its position and gets the new value.
 * A value longer than ROW_VAL_LEN - 1 bytes is cut at a UTF-8 character
 * boundary and ends in "..." so the cut shows. With ROW_MAX_COLS columns in
 * use, a new name is not added and r->dropped is incremented (csv_append and
 * json_write then refuse the row, naming the limit).
 * In JSON a value set this way that looks like a JSON number is written as a
 * number; use row_set_text for values that must stay strings (git revisions,
 * host names, run ids that may be all digits).
 */
void row_set_str(struct row *r, const char *name, const char *v);
/* As row_set_str, but the value is always a JSON string. */
void row_set_text(struct row *r, const char *name, const char *v);
/* printf-style value; output longer than the value is cut as in row_set_str. */
void row_set_fmt(struct row *r, const char *name, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* Decimal integers. */
void row_set_u64(struct row *r, const char *name, uint64_t v);
void row_set_i64(struct row *r, const char *name, int64_t v);
/*
 * Fixed-point with `decimals` digits after the point (clamped to 0..17),
 * e.g. 12.346 for (12.3456, 3). NAN is NA (empty); +-infinity is "inf" /
 * "-inf" (a JSON string). Negative zero after rounding prints as 0. A value
 * too wide for the column is written with %.17g instead.
 */
void row_set_double(struct row *r, const char *name, double v, int decimals);
/* Set column name to NA (empty). */
void row_set_na(struct row *r, const char *name);
/* The value of column name ("" for NA), or NULL if the row has no such column. */
const char *row_get(const struct row *r, const char *name);

/*
 * Append r as one line to the CSV file path (RFC 4180 fields: a value with a
 * comma, double quote, CR or LF is quoted and its quotes doubled; lines end
 * in LF). The file is opened with O_APPEND|O_CREAT, mode 0644 (read access
 * too: the header is checked), and locked (flock) while this runs, so
 * processes appending to one file on one host do not interleave.
 *   - empty file: the header line (the row's column names) is written first;
 *   - non-empty file: its first line must equal this row's header, else the
 *     row is refused and err names the file, the first differing column and
 *     the fix (use another --csv file); a file that does not end in a newline
 *     (a torn last line) is refused too.
 * Each line (header, row) goes out in ONE write() call; if the kernel writes
 * less, the file is truncated back so no partial row stays behind.
 * Returns 0, or -1 with err filled (and the file as it was).
 */
int csv_append(const char *path, const struct row *r, char *err, size_t errlen);

/*
 * Write rows as a JSON array of objects (RFC 8259), one object per row in
 * column order, one row per line. Strings are escaped (quote, backslash,
 * control characters; invalid UTF-8 bytes become U+FFFD); a value matching
 * the JSON number grammar is written as a number (unless set with
 * row_set_text); an empty value is null. nrows may be 0 ("[]").
 * The file is written to "path.tmp.PID", flushed to disk and renamed over
 * path, so readers see the old file or the complete new one.
 * Returns 0, or -1 with err filled (no temporary file left behind).
 */
int json_write(const char *path, const struct row *rows, int nrows, char *err, size_t errlen);

/*
 * Before a run: can path be written (its directory exists and is writable,
 * an existing file is writable)? opt is the option's name for the message
 * ("--csv", "--json"). 0, or -1 with err naming the option, the path and
 * the fix. Both rdma_bench and rdma_seq call it before opening the device,
 * so a bad path costs no measurement.
 */
int output_path_writable(const char *opt, const char *path, char *err, size_t errlen);

/*
 * Before a run: --csv and --json must name two files (json_write replaces
 * its file, so one path for both loses every CSV row). The same path is
 * recognised also when spelled differently (the directory resolved by
 * realpath) or, for files that exist, by device and inode (a hard link).
 * An empty csv or json passes. 0, or -1 with err naming both and the fix.
 */
int output_paths_distinct(const char *csv, const char *json, char *err, size_t errlen);

/*
 * Print rows as a human table on f: a header line of the column names, then
 * one line per row, columns separated by two spaces and padded to their
 * widest entry; a column whose values all look like numbers is right-aligned.
 * NA and columns a row lacks show as "-"; control characters show as '?'.
 * cols[0..ncols-1] picks and orders the columns; cols == NULL prints every
 * column of rows[0]. Prints nothing when nrows == 0.
 */
void table_print(FILE *f, const struct row *rows, int nrows, const char *const *cols, int ncols);

#endif /* RDMA_BENCH_OUTPUT_H */
