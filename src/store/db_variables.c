/* db_variables: the MySQL queries behind repository variables (repository_variables). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "err.h"
#include "store/db.h"
#include "store/db-internal.h"
#include "store/forge.h"

#define VARIABLE_COLS \
    "SELECT v.name, v.value, " DB_DATE("v.updated_at") ", u.login" \
    " FROM repository_variables v LEFT JOIN users u ON u.id = v.updated_by "

static const char SQL_VARIABLE_LIST[] =
    VARIABLE_COLS "WHERE v.repo_id = ? ORDER BY v.name LIMIT ? OFFSET ?";
static const char SQL_VARIABLE_GET[] =
    VARIABLE_COLS "WHERE v.repo_id = ? AND v.name = ?";
static const char SQL_VARIABLE_COUNT[] =
    "SELECT COUNT(*) FROM repository_variables WHERE repo_id = ?";
static const char SQL_VARIABLE_LOCK[] =
    "SELECT id FROM repositories WHERE id = ? FOR UPDATE";
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

void
forge_variable_list_free(struct forge_variable *v, size_t n)
{
	size_t	 i;

	if (v == NULL)
		return;
	for (i = 0; i < n; i++)
		forge_variable_release(&v[i]);
	free(v);
}

static int
variable_from_row(struct forge_variable *out, const struct db_rows *r, size_t i)
{
	const char	*value = db_rows_get(r, i, 1);

	memset(out, 0, sizeof *out);
	db_copy_str(out->name, sizeof out->name, db_rows_get(r, i, 0));
	db_copy_str(out->updated_at, sizeof out->updated_at, db_rows_get(r, i, 2));
	db_copy_str(out->updated_by, sizeof out->updated_by, db_rows_get(r, i, 3));
	if ((out->value = strdup(value != NULL ? value : "")) == NULL)
		return ERR_NOMEM;
	return 0;
}

int
forge_variable_list(struct db *db, struct forge_variable **out, size_t *n, uint64_t repo_id,
    int64_t offset, int limit, struct err *e)
{
	struct db_rows		 r = { 0 };
	struct forge_variable	*v = NULL;
	size_t			 i;
	int			 rc;

	*out = NULL;
	*n = 0;
	if (offset < 0)
		offset = 0;
	if ((rc = db_run(db, DB_RETRY, SQL_VARIABLE_LIST, &r, NULL, NULL, e, "uii", repo_id,
	    (int64_t)limit, offset)) != 0 || r.n == 0)
		goto done;
	if ((v = calloc(r.n, sizeof *v)) == NULL) {
		rc = err_set(e, ERR_NOMEM, "out of memory");
		goto done;
	}
	for (i = 0; i < r.n; i++)
		if (variable_from_row(&v[i], &r, i) != 0) {
			rc = err_set(e, ERR_NOMEM, "out of memory");
			goto done;
		}
	*out = v;
	*n = r.n;
	v = NULL;
done:
	forge_variable_list_free(v, r.n);
	db_rows_release(&r);
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
	if (variable_from_row(out, &r, 0) != 0)
		rc = err_set(e, ERR_NOMEM, "out of memory");
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
forge_variable_lock(struct db *db, uint64_t repo_id, struct err *e)
{
	struct db_rows	 r = { 0 };
	int		 rc;

	if ((rc = db_run(db, DB_ONCE, SQL_VARIABLE_LOCK, &r, NULL, NULL, e, "u", repo_id)) == 0 &&
	    r.n == 0)
		rc = err_set(e, ERR_NOTFOUND, "%s", DB_REPO_NOT_FOUND);
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
