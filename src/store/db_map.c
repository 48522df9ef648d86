/*
 * db_map: the row mapper.  A list fetcher names its result shape (which
 * column fills which struct field, and how) as data, and one loop here copies
 * every row into an array of those structs, NULLs and owned copies included.
 * The cells still arrive as strings from db_run: the mapper converts them, so
 * there is one fetch path and one place that decides what a NULL becomes.
 */
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "err.h"
#include "store/db-internal.h"

/* The owned string field at col of the struct at p. */
static char **
owned(void *p, const struct db_col *col)
{
	return (char **)(void *)((char *)p + col->off);
}

void
db_row_release(const struct db_shape *s, void *p)
{
	size_t	 c;

	if (p == NULL)
		return;
	for (c = 0; c < s->ncols; c++)
		if (s->col[c].type == DB_COL_STR || s->col[c].type == DB_COL_TEXT) {
			free(*owned(p, &s->col[c]));
			*owned(p, &s->col[c]) = NULL;
		}
}

/* Copies the cell v into the field col of the struct at p. */
static int
col_fill(void *p, const struct db_col *col, const char *v)
{
	char	*f = (char *)p + col->off;
	int64_t	 i;
	uint64_t u;
	int	 b;

	switch (col->type) {
	case DB_COL_SKIP:
		return 0;
	case DB_COL_U64:
		u = db_to_u64(v);
		memcpy(f, &u, sizeof u);
		return 0;
	case DB_COL_I64:
		i = v != NULL ? strtoll(v, NULL, 10) : 0;
		memcpy(f, &i, sizeof i);
		return 0;
	case DB_COL_BOOL:
		b = db_to_u64(v) != 0;
		memcpy(f, &b, sizeof b);
		return 0;
	case DB_COL_CHARS:
		db_copy_str(f, col->size, v);
		return 0;
	case DB_COL_STR:
		if (v == NULL)
			return 0;
		/* FALLTHROUGH */
	case DB_COL_TEXT:
		if ((*owned(p, col) = strdup(v != NULL ? v : "")) == NULL)
			return ERR_NOMEM;
		return 0;
	}
	return ERR_INTERNAL;
}

int
db_row_fill(void *out, const struct db_shape *s, const struct db_rows *r, size_t row,
    struct err *e)
{
	size_t	 c;
	int	 rc;

	memset(out, 0, s->size);
	if (r->ncols != s->ncols)
		return err_set(e, ERR_INTERNAL, "internal error: a query's columns do not "
		    "match its fields");
	for (c = 0; c < s->ncols; c++)
		if ((rc = col_fill(out, &s->col[c], db_rows_get(r, row, c))) != 0) {
			db_row_release(s, out);
			if (rc == ERR_NOMEM)
				return err_set(e, rc, "out of memory");
			return err_set(e, rc, "internal error: bad row shape");
		}
	return 0;
}

void
db_map_free(const struct db_shape *s, void *v, size_t n)
{
	size_t	 i;

	if (v == NULL)
		return;
	for (i = 0; i < n; i++)
		db_row_release(s, (char *)v + i * s->size);
	free(v);
}

int
db_rows_map(void **out, size_t *n, const struct db_shape *s, const struct db_rows *r,
    size_t max, struct err *e)
{
	char	*v = NULL;
	size_t	 i, want = r->n < max ? r->n : max;
	int	 rc;

	*out = NULL;
	*n = 0;
	if (want == 0)
		return 0;
	if ((v = calloc(want, s->size)) == NULL)
		return err_set(e, ERR_NOMEM, "out of memory");
	for (i = 0; i < want; i++)
		if ((rc = db_row_fill(v + i * s->size, s, r, i, e)) != 0) {
			db_map_free(s, v, i);
			return rc;
		}
	*out = v;
	*n = want;
	return 0;
}

int
db_map(struct db *db, enum db_retry retry, const char *sql, const struct db_shape *s,
    void **out, size_t *n, struct err *e, const char *types, ...)
{
	struct db_rows	 r = { 0 };
	va_list		 ap;
	int		 rc;

	*out = NULL;
	*n = 0;
	va_start(ap, types);
	rc = db_vrun(db, retry, sql, &r, NULL, NULL, e, types, ap);
	va_end(ap);
	if (rc == 0)
		rc = db_rows_map(out, n, s, &r, r.n, e);
	db_rows_release(&r);
	return rc;
}
