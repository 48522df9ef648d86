/* db_variables: the MySQL queries behind repository variables (repository_variables). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "err.h"
#include "store/db.h"
#include "store/db-internal.h"
#include "store/db_variables.h"
#include "store/db_forge.h"

#define VARIABLE_COLS \
    "SELECT v.name, v.value, " DB_DATE("v.updated_at") ", u.login" \
    " FROM repository_variables v LEFT JOIN users u ON u.id = v.updated_by "

static const char SQL_VARIABLE_LIST[] =
    VARIABLE_COLS "WHERE v.repo_id = ? ORDER BY v.name LIMIT ? OFFSET ?";
static const char SQL_VARIABLE_GET[] =
    VARIABLE_COLS "WHERE v.repo_id = ? AND v.name = ?";
static const char SQL_VARIABLE_COUNT[] =
    "SELECT COUNT(*) FROM repository_variables WHERE repo_id = ?";
static const char SQL_VARIABLE_SET[] =
    "INSERT INTO repository_variables (repo_id, name, value, created_at, updated_at,"
    " updated_by) VALUES (?, ?, ?, UTC_TIMESTAMP(), UTC_TIMESTAMP(), ?)"
    " ON DUPLICATE KEY UPDATE value = VALUES(value), updated_at = VALUES(updated_at),"
    " updated_by = VALUES(updated_by)";
static const char SQL_VARIABLE_DELETE[] =
    "DELETE FROM repository_variables WHERE repo_id = ? AND name = ?";

void
forge_variable_release(struct forge_variable *v)
{
	if (v == NULL)
		return;
	free(v->value);
	v->value = NULL;
}

static const struct db_col variable_cols[] = {
	DB_CHARS(struct forge_variable, name),
	DB_TEXT(struct forge_variable, value),
	DB_CHARS(struct forge_variable, updated_at),
	DB_CHARS(struct forge_variable, updated_by),
};
static const struct db_shape variable_shape = DB_SHAPE(struct forge_variable, variable_cols);

void
forge_variable_list_free(struct forge_variable *v, size_t n)
{
	db_map_free(&variable_shape, v, n);
}

int
forge_variable_list(struct db *db, struct forge_variable **out, size_t *n, uint64_t repo_id,
    int64_t offset, int limit, struct err *e)
{
	void	*v;
	int	 rc;

	if (offset < 0)
		offset = 0;
	rc = db_map(db, DB_RETRY, SQL_VARIABLE_LIST, &variable_shape, &v, n, e, "uii", repo_id,
	    (int64_t)limit, offset);
	*out = v;
	return rc;
}

int
forge_variable_get(struct db *db, struct forge_variable *out, uint64_t repo_id,
    const char *name, struct err *e)
{
	struct db_rows	 r = { 0 };
	int		 rc;

	memset(out, 0, sizeof *out);
	if ((rc = db_run(db, DB_RETRY, SQL_VARIABLE_GET, &r, NULL, NULL, e, "us", repo_id,
	    name)) != 0)
		goto done;
	if (r.n == 0) {
		rc = ERR_NOTFOUND;
		goto done;
	}
	rc = db_row_fill(out, &variable_shape, &r, 0, e);
done:
	db_rows_release(&r);
	return rc;
}

int
forge_variable_count(struct db *db, int64_t *out, uint64_t repo_id, struct err *e)
{
	struct db_rows	 r = { 0 };
	int		 rc;

	*out = 0;
	if ((rc = db_run(db, DB_RETRY, SQL_VARIABLE_COUNT, &r, NULL, NULL, e, "u", repo_id)) == 0 &&
	    r.n > 0)
		*out = (int64_t)db_to_u64(db_rows_get(&r, 0, 0));
	db_rows_release(&r);
	return rc;
}

int
forge_variable_set(struct db *db, int *created, uint64_t repo_id, const char *name,
    const char *value, uint64_t user_id, struct err *e)
{
	uint64_t	 affected = 0;
	int		 rc;

	*created = 0;
	/* Affected rows: 1 for an insert, 2 for a changed row, 0 for an unchanged one. */
	if ((rc = db_run(db, DB_ONCE, SQL_VARIABLE_SET, NULL, &affected, NULL, e, "ussu",
	    repo_id, name, value, user_id)) != 0)
		return rc == ERR_EXISTS ? err_set(e, ERR_INTERNAL, "duplicate variable") : rc;
	*created = affected == 1;
	return 0;
}

int
forge_variable_delete(struct db *db, int *deleted, uint64_t repo_id, const char *name,
    struct err *e)
{
	uint64_t	 affected = 0;
	int		 rc;

	*deleted = 0;
	if ((rc = db_run(db, DB_ONCE, SQL_VARIABLE_DELETE, NULL, &affected, NULL, e, "us",
	    repo_id, name)) != 0)
		return rc;
	*deleted = affected > 0;
	return 0;
}
