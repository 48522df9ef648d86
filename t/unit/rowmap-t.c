/* rowmap-t: unit tests for the store's row mapper (src/store/db_map.c) on hand-made result sets. */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "err.h"
#include "store/db-internal.h"
#include "tap.h"

/* Every kind of field, with a guard after the short array to see a copy stay inside it. */
struct row {
	uint64_t	 id;
	int64_t		 delta;
	int		 flag;
	char		 tag[4];
	char		 guard[4];
	char		*note;		/* DB_COL_STR */
	char		*text;		/* DB_COL_TEXT */
	int		 untouched;
};

static const struct db_col row_cols[] = {
	DB_U64(struct row, id),
	DB_I64(struct row, delta),
	DB_BOOL(struct row, flag),
	DB_CHARS(struct row, tag),
	DB_SKIP,
	DB_STR(struct row, note),
	DB_TEXT(struct row, text),
};
static const struct db_shape row_shape = DB_SHAPE(struct row, row_cols);
static const struct db_shape short_shape = DB_SHAPE_N(struct row, row_cols, 4);

#define NCOLS	(sizeof row_cols / sizeof row_cols[0])

/* A result set of n rows from cells (NULL for SQL NULL), as db_run makes one. */
static struct db_rows
rows_of(const char *const *cells, size_t n, size_t ncols)
{
	struct db_rows	 r;
	size_t		 i;

	r.n = n;
	r.ncols = ncols;
	if ((r.cell = calloc(n * ncols + 1, sizeof *r.cell)) == NULL)
		bail_out("out of memory");
	for (i = 0; i < n * ncols; i++)
		if (cells[i] != NULL && (r.cell[i] = strdup(cells[i])) == NULL)
			bail_out("out of memory");
	return r;
}

static const char *const cells[] = {
	"18446744073709551615", "-7", "1", "abc", "skipped", "a note", "a text",
	NULL, NULL, NULL, NULL, NULL, NULL, NULL,
	"42", "9", "0", "longer than four", "x", "", "",
};

int
main(void)
{
	struct db_rows	 r = rows_of(cells, 3, NCOLS), empty = { 0 }, narrow;
	struct row	*v = NULL, one;
	struct err	 e;
	void		*p = NULL;
	size_t		 n = 99;

	err_clear(&e);
	is_int(db_rows_map(&p, &n, &row_shape, &r, r.n, &e), 0, "three rows map");
	v = p;
	is_int(n, 3, "three structs");
	is_int(v[0].id == UINT64_MAX, 1, "the largest uint64_t");
	is_int(v[0].delta, -7, "a negative int64_t");
	is_int(v[0].flag, 1, "1 is true");
	is_str(v[0].tag, "abc", "a string that fits");
	is_str(v[0].note, "a note", "an owned copy");
	is_str(v[0].text, "a text", "an owned copy, never NULL");
	is_int(v[0].untouched, 0, "a field of no column stays 0");

	is_int(v[1].id, 0, "NULL is 0 for uint64_t");
	is_int(v[1].delta, 0, "NULL is 0 for int64_t");
	is_int(v[1].flag, 0, "NULL is false");
	is_str(v[1].tag, "", "NULL is \"\" for a char array");
	ok(v[1].note == NULL, "NULL stays NULL for an owned copy");
	is_str(v[1].text, "", "NULL is \"\" for an owned text");

	is_int(v[2].id, 42, "a uint64_t");
	is_int(v[2].flag, 0, "0 is false");
	is_str(v[2].tag, "lon", "a long string is cut to fit, terminated");
	is_mem(v[2].guard, 4, "\0\0\0\0", 4, "nothing is written past the array");
	is_str(v[2].note, "", "an empty string is copied, not NULL");
	db_map_free(&row_shape, v, n);

	is_int(db_rows_map(&p, &n, &row_shape, &r, 1, &e), 0, "at most one row");
	is_int(n, 1, "one struct");
	db_map_free(&row_shape, p, n);

	is_int(db_rows_map(&p, &n, &row_shape, &empty, 10, &e), 0, "no rows map");
	ok(p == NULL && n == 0, "to NULL and 0");

	is_int(db_row_fill(&one, &row_shape, &r, 0, &e), 0, "one row fills one struct");
	is_str(one.note, "a note", "with its owned copies");
	db_row_release(&row_shape, &one);
	ok(one.note == NULL && one.text == NULL, "released, the owned fields are NULL");

	is_int(db_rows_map(&p, &n, &short_shape, &r, r.n, &e), ERR_INTERNAL,
	    "a result with more columns than the shape is refused");
	ok(p == NULL && n == 0, "and nothing is returned");
	is_str(e.msg, "internal error: a query's columns do not match its fields",
	    "with a message");

	narrow = rows_of(cells, 1, 4);
	err_clear(&e);
	is_int(db_row_fill(&one, &row_shape, &narrow, 0, &e), ERR_INTERNAL,
	    "a result with fewer columns than the shape is refused");
	ok(one.note == NULL && one.text == NULL, "and owns nothing");

	db_map_free(&row_shape, NULL, 3);
	db_rows_release(&narrow);
	db_rows_release(&r);
	return done_testing();
}
