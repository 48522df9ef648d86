/* db_repos: repositories and their collaborators. */
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <mysql.h>
#include <errmsg.h>
#include <mysqld_error.h>

#include "conf.h"
#include "err.h"
#include "log.h"
#include "store/db.h"
#include "store/migrations.h"
#include "store/db-internal.h"

/* ---- repositories ---- */

#define REPO_COLS \
    "SELECT r.id, u.login, r.name, r.description, r.default_branch, r.private, " \
    DB_DATE("r.updated_at") " FROM repositories r JOIN users u ON u.id = r.owner_id "
/*
 * Visible to user ?: public, owned, or shared.  A LEFT JOIN on the
 * collaborators' primary key, not EXISTS: MariaDB materialises that
 * subquery on every execution, several times slower for a one-row lookup.
 * Parameters: the user id twice.
 */
#define REPO_VISIBLE_JOIN \
    "LEFT JOIN collaborators c ON c.repo_id = r.id AND c.user_id = ? "
#define REPO_VISIBLE \
    "(r.private = 0 OR r.owner_id = ? OR c.user_id IS NOT NULL)"

static const char SQL_REPO_LIST_VISIBLE[] =
    REPO_COLS REPO_VISIBLE_JOIN "WHERE " REPO_VISIBLE
    " AND (LOWER(u.login) LIKE LOWER(?) ESCAPE '!' OR LOWER(r.name) LIKE LOWER(?) ESCAPE '!')"
    " ORDER BY r.updated_at DESC, r.id DESC LIMIT ?";
static const char SQL_REPO_FIND_VISIBLE[] =
    REPO_COLS REPO_VISIBLE_JOIN "WHERE " REPO_VISIBLE " AND u.login = ? AND r.name = ?";
static const char SQL_REPO_FIND[] =
    REPO_COLS "WHERE u.login = ? AND r.name = ?";
static const char SQL_REPO_LIST_ALL[] =
    REPO_COLS "ORDER BY u.login, r.name";
static const char SQL_REPO_INSERT[] =
    "INSERT INTO repositories (owner_id, name, description, default_branch, private,"
    " created_at, updated_at)"
    " SELECT id, ?, ?, ?, ?, UTC_TIMESTAMP(), UTC_TIMESTAMP() FROM users WHERE login = ?";

static const struct db_col repo_cols[] = {
	DB_U64(struct db_repo, id),
	DB_CHARS(struct db_repo, owner),
	DB_CHARS(struct db_repo, name),
	DB_STR(struct db_repo, description),
	DB_CHARS(struct db_repo, default_branch),
	DB_BOOL(struct db_repo, private),
	DB_CHARS(struct db_repo, updated_at),
};
static const struct db_shape repo_shape = DB_SHAPE(struct db_repo, repo_cols);

int
db_repo_list_visible(struct db *db, struct db_repo **out, size_t *n, uint64_t user_id,
    const char *query, int limit, struct err *e)
{
	void		*v = NULL;
	char		*pat = NULL, *p;
	size_t		 i;
	int		 rc;

	*out = NULL;
	*n = 0;
	if (limit < 1)
		limit = 1;
	if (limit > 100)
		limit = 100;
	if (query == NULL)
		query = "";
	if ((pat = malloc(strlen(query) * 2 + 3)) == NULL) {
		rc = err_set(e, ERR_NOMEM, "out of memory");
		goto done;
	}
	p = pat;
	*p++ = '%';
	for (i = 0; query[i] != '\0'; i++) {
		if (query[i] == '%' || query[i] == '_' || query[i] == '!')
			*p++ = '!';
		*p++ = query[i];
	}
	*p++ = '%';
	*p = '\0';
	rc = db_map(db, DB_RETRY, SQL_REPO_LIST_VISIBLE, &repo_shape, &v, n, e, "uussi",
	    user_id, user_id, pat, pat, (int64_t)limit);
	*out = v;
done:
	free(pat);
	return rc;
}

void
db_repo_list_free(struct db_repo *v, size_t n)
{
	db_map_free(&repo_shape, v, n);
}

void
db_repo_release(struct db_repo *r)
{
	if (r == NULL)
		return;
	free(r->description);
	r->description = NULL;
}

static int
repo_find_one(struct db *db, struct db_repo *out, const struct db_rows *r, const char *owner,
    const char *name, int visible, struct err *e)
{
	memset(out, 0, sizeof *out);
	if (r->n == 0) {
		if (visible)
			return err_set(e, ERR_NOTFOUND, "%s", DB_REPO_NOT_FOUND);
		return err_set(e, ERR_NOTFOUND, "repository '%s/%s' not found", owner, name);
	}
	return db_row_fill(out, &repo_shape, r, 0, e);
}

int
db_repo_find_visible(struct db *db, struct db_repo *out, uint64_t user_id, const char *owner,
    const char *name, struct err *e)
{
	struct db_rows	 r = { 0 };
	int		 rc;

	memset(out, 0, sizeof *out);
	if ((rc = db_run(db, DB_RETRY, SQL_REPO_FIND_VISIBLE, &r, NULL, NULL, e, "uuss",
	    user_id, user_id, owner, name)) != 0)
		goto done;
	rc = repo_find_one(db, out, &r, owner, name, 1, e);
done:
	db_rows_release(&r);
	return rc;
}

int
db_repo_find(struct db *db, struct db_repo *out, const char *owner, const char *name,
    struct err *e)
{
	struct db_rows	 r = { 0 };
	int		 rc;

	memset(out, 0, sizeof *out);
	if ((rc = db_run(db, DB_RETRY, SQL_REPO_FIND, &r, NULL, NULL, e, "ss", owner, name)) != 0)
		goto done;
	rc = repo_find_one(db, out, &r, owner, name, 0, e);
done:
	db_rows_release(&r);
	return rc;
}

int
db_repo_list_all(struct db *db, struct db_repo **out, size_t *n, struct err *e)
{
	void	*v;
	int	 rc;

	rc = db_map(db, DB_RETRY, SQL_REPO_LIST_ALL, &repo_shape, &v, n, e, "");
	*out = v;
	return rc;
}

int
db_repo_insert(struct db *db, uint64_t *out, const char *owner, const char *name,
    const char *description, const char *default_branch, int private_, struct err *e)
{
	uint64_t	 affected = 0, id = 0;
	int		 rc;

	*out = 0;
	rc = db_run(db, DB_ONCE, SQL_REPO_INSERT, NULL, &affected, &id, e, "sssis",
	    name, description, default_branch, (int64_t)(private_ != 0), owner);
	if (rc == ERR_EXISTS)
		return err_set(e, rc, "repository '%s/%s' already exists", owner, name);
	if (rc != 0)
		return rc;
	if (affected == 0)
		return err_set(e, ERR_NOTFOUND, "user '%s' not found", owner);
	*out = id;
	return 0;
}


/* ---- collaborators ---- */

static const char SQL_COLLAB_SET[] =
    "INSERT INTO collaborators (repo_id, user_id, role) VALUES (?, ?, ?)"
    " ON DUPLICATE KEY UPDATE role = VALUES(role)";

int
db_collaborator_set(struct db *db, const char *owner, const char *name, const char *user,
    const char *role, struct err *e)
{
	struct db_repo	 repo;
	uint64_t	 uid;
	int		 rc;

	memset(&repo, 0, sizeof repo);
	if ((rc = db_repo_find(db, &repo, owner, name, e)) != 0)
		goto done;
	if ((rc = db_user_find(db, &uid, user, e)) != 0)
		goto done;
	rc = db_run(db, DB_RETRY, SQL_COLLAB_SET, NULL, NULL, NULL, e, "uus", repo.id, uid, role);
	if (rc == ERR_EXISTS)
		rc = err_set(e, rc, "collaborator already exists");
done:
	db_repo_release(&repo);
	return rc;
}

static const char SQL_COLLAB_OWNER[] =
    "SELECT owner_id = ? FROM repositories WHERE id = ?";
static const char SQL_COLLAB_REMOVE[] =
    "DELETE FROM collaborators WHERE repo_id = ? AND user_id = ?";
/* The owner first, then the collaborators by login (a row for the owner is moot). */
static const char SQL_COLLAB_LIST[] =
    "SELECT u.login, 'owner', 0 FROM repositories r JOIN users u ON u.id = r.owner_id"
    " WHERE r.id = ?"
    " UNION ALL SELECT u.login, c.role, 1 FROM collaborators c"
    " JOIN users u ON u.id = c.user_id JOIN repositories r ON r.id = c.repo_id"
    " WHERE c.repo_id = ? AND c.user_id <> r.owner_id ORDER BY 3, 1";

int
db_collaborator_remove(struct db *db, int *removed, const char *owner, const char *name,
    const char *user, struct err *e)
{
	struct db_repo	 repo;
	struct db_rows	 r = { 0 };
	uint64_t	 uid, affected = 0;
	int		 rc;

	*removed = 0;
	memset(&repo, 0, sizeof repo);
	if ((rc = db_repo_find(db, &repo, owner, name, e)) != 0)
		goto done;
	if ((rc = db_user_find(db, &uid, user, e)) != 0)
		goto done;
	if ((rc = db_run(db, DB_RETRY, SQL_COLLAB_OWNER, &r, NULL, NULL, e, "uu", uid,
	    repo.id)) != 0)
		goto done;
	if (r.n > 0 && db_to_u64(db_rows_get(&r, 0, 0)) != 0) {
		rc = err_set(e, ERR_INVALID, "'%s' owns %s/%s: the owner's role cannot be removed",
		    user, repo.owner, repo.name);
		goto done;
	}
	if ((rc = db_run(db, DB_RETRY, SQL_COLLAB_REMOVE, NULL, &affected, NULL, e, "uu", repo.id,
	    uid)) != 0)
		goto done;
	*removed = affected > 0;
done:
	db_rows_release(&r);
	db_repo_release(&repo);
	return rc;
}

/* The third column of SQL_COLLAB_LIST only orders the owner first. */
static const struct db_col collaborator_cols[] = {
	DB_CHARS(struct db_collaborator, login),
	DB_CHARS(struct db_collaborator, role),
	DB_SKIP,
};
static const struct db_shape collaborator_shape =
    DB_SHAPE(struct db_collaborator, collaborator_cols);

int
db_collaborator_list(struct db *db, struct db_collaborator **out, size_t *n, const char *owner,
    const char *name, struct err *e)
{
	struct db_repo	 repo;
	void		*v = NULL;
	int		 rc;

	*out = NULL;
	*n = 0;
	memset(&repo, 0, sizeof repo);
	if ((rc = db_repo_find(db, &repo, owner, name, e)) != 0)
		goto done;
	rc = db_map(db, DB_RETRY, SQL_COLLAB_LIST, &collaborator_shape, &v, n, e, "uu", repo.id,
	    repo.id);
	*out = v;
done:
	db_repo_release(&repo);
	return rc;
}
