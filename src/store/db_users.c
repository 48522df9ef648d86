/* db_users: users and tokens: the token cache lookup, and what the command line does with both. */
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

/* ---- token cache ---- */

static const char SQL_TOKEN_LOOKUP[] = DB_TOKEN_COLS DB_TOKEN_FROM " WHERE t.token_hash = ?";
static const char SQL_TOKEN_TOUCH[] =
    "UPDATE tokens SET last_used_at = UTC_TIMESTAMP() WHERE id = ?";

/* Whether s is 64 lower-case hex digits, as token_hash stores a SHA-256. */
int
db_hash_ok(const char *s)
{
	size_t	 i;

	for (i = 0; s[i] != '\0'; i++)
		if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f')))
			return 0;
	return i == 64;
}

/*
 * Fills out from the eight columns of SQL_TOKEN_LOOKUP (cell[0..7]) and
 * writes last_used_at when the row says it is a minute old.
 */
void
db_token_fill(struct db *db, struct db_token *out, const char *const *cell)
{
	struct err	 ignore;

	out->id = db_to_u64(cell[0]);
	out->user_id = db_to_u64(cell[1]);
	db_copy_str(out->login, sizeof out->login, cell[2]);
	db_copy_str(out->scopes, sizeof out->scopes, cell[3]);
	out->expired = db_to_u64(cell[4]) != 0;
	out->revoked = db_to_u64(cell[5]) != 0;
	db_copy_str(out->token_hash, sizeof out->token_hash, cell[7]);
	if (out->expired || out->revoked || db_to_u64(cell[6]) == 0)
		return;
	err_clear(&ignore);
	if (db_run(db, DB_RETRY, SQL_TOKEN_TOUCH, NULL, NULL, NULL, &ignore, "u", out->id) != 0)
		log_warn("token %llu: last use not recorded", (unsigned long long)out->id);
}

int
db_token_lookup(struct db *db, struct db_token *out, const char *hash_hex, struct err *e)
{
	struct db_rows	 r = { 0 };
	int		 rc;

	memset(out, 0, sizeof *out);
	if (!db_hash_ok(hash_hex))
		return err_set(e, ERR_NOTFOUND, "token not found");
	if ((rc = db_run(db, DB_RETRY, SQL_TOKEN_LOOKUP, &r, NULL, NULL, e, "s", hash_hex)) != 0)
		goto done;
	if (r.n == 0)
		rc = err_set(e, ERR_NOTFOUND, "token not found");
	else
		db_token_fill(db, out, (const char *const *)r.cell);
done:
	db_rows_release(&r);
	return rc;
}


/* ---- users ---- */

static const char SQL_USER_ADD[] =
    "INSERT INTO users (login, name, email, created_at) VALUES (?, ?, ?, UTC_TIMESTAMP())";
static const char SQL_USER_LIST[] =
    "SELECT id, login, name, email, " DB_DATE("created_at") " FROM users ORDER BY login";
static const char SQL_USER_FIND[] =
    "SELECT id FROM users WHERE login = ?";

int
db_user_add(struct db *db, uint64_t *out, const char *login, const char *name,
    const char *email, struct err *e)
{
	int	 rc;

	*out = 0;
	rc = db_run(db, DB_ONCE, SQL_USER_ADD, NULL, NULL, out, e, "sss", login, name, email);
	if (rc == ERR_EXISTS)
		return err_set(e, rc, "user '%s' already exists", login);
	return rc;
}

static const struct db_col user_cols[] = {
	DB_U64(struct db_user, id),
	DB_CHARS(struct db_user, login),
	DB_STR(struct db_user, name),
	DB_STR(struct db_user, email),
	DB_CHARS(struct db_user, created_at),
};
static const struct db_shape user_shape = DB_SHAPE(struct db_user, user_cols);

int
db_user_list(struct db *db, struct db_user **out, size_t *n, struct err *e)
{
	void	*v;
	int	 rc;

	rc = db_map(db, DB_RETRY, SQL_USER_LIST, &user_shape, &v, n, e, "");
	*out = v;
	return rc;
}

void
db_user_list_free(struct db_user *v, size_t n)
{
	db_map_free(&user_shape, v, n);
}

int
db_user_find(struct db *db, uint64_t *out, const char *login, struct err *e)
{
	struct db_rows	 r = { 0 };
	int		 rc;

	*out = 0;
	if ((rc = db_run(db, DB_RETRY, SQL_USER_FIND, &r, NULL, NULL, e, "s", login)) != 0)
		goto done;
	if (r.n == 0) {
		rc = err_set(e, ERR_NOTFOUND, "user '%s' not found", login);
		goto done;
	}
	*out = db_to_u64(db_rows_get(&r, 0, 0));
done:
	db_rows_release(&r);
	return rc;
}

/* ---- tokens (CLI) ---- */

static const char SQL_TOKEN_CREATE[] =
    "INSERT INTO tokens (token_hash, user_id, name, scopes, created_at, expires_at)"
    " VALUES (?, ?, ?, ?, UTC_TIMESTAMP(),"
    " IF(? = 0, NULL, UTC_TIMESTAMP() + INTERVAL ? SECOND))";
#define TOKEN_LIST_COLS \
    "SELECT t.id, u.login, t.name, t.scopes, " DB_DATE("t.created_at") ", " \
    DB_DATE("t.expires_at") ", " DB_DATE("t.last_used_at") "," \
    " t.expires_at IS NOT NULL AND t.expires_at <= UTC_TIMESTAMP()," \
    " t.revoked_at IS NOT NULL FROM tokens t JOIN users u ON u.id = t.user_id "
static const char SQL_TOKEN_LIST[] = TOKEN_LIST_COLS "ORDER BY t.id";
static const char SQL_TOKEN_LIST_USER[] = TOKEN_LIST_COLS "WHERE u.login = ? ORDER BY t.id";
static const char SQL_TOKEN_REVOKE[] =
    "UPDATE tokens SET revoked_at = UTC_TIMESTAMP() WHERE id = ? AND revoked_at IS NULL";
static const char SQL_TOKEN_EXISTS[] = "SELECT id FROM tokens WHERE id = ?";
static const char SQL_TOKEN_HAS_SCOPE[] =
    "SELECT 1 FROM tokens WHERE user_id = ? AND revoked_at IS NULL"
    " AND (expires_at IS NULL OR expires_at > UTC_TIMESTAMP())"
    " AND FIND_IN_SET(?, scopes) > 0 LIMIT 1";

int
db_token_create(struct db *db, uint64_t *out, uint64_t user_id, const char *hash_hex,
    const char *name, const char *scopes, int64_t ttl_seconds, struct err *e)
{
	int	 rc;

	*out = 0;
	if (ttl_seconds < 0)
		ttl_seconds = 0;
	rc = db_run(db, DB_ONCE, SQL_TOKEN_CREATE, NULL, NULL, out, e, "sussii", hash_hex,
	    user_id, name, scopes, (int64_t)ttl_seconds, (int64_t)ttl_seconds);
	if (rc == ERR_EXISTS)
		return err_set(e, rc, "token already exists");
	return rc;
}

static const struct db_col token_cols[] = {
	DB_U64(struct db_token_info, id),
	DB_CHARS(struct db_token_info, login),
	DB_STR(struct db_token_info, name),
	DB_CHARS(struct db_token_info, scopes),
	DB_CHARS(struct db_token_info, created_at),
	DB_CHARS(struct db_token_info, expires_at),
	DB_CHARS(struct db_token_info, last_used_at),
	DB_BOOL(struct db_token_info, expired),
	DB_BOOL(struct db_token_info, revoked),
};
static const struct db_shape token_shape = DB_SHAPE(struct db_token_info, token_cols);

int
db_token_list(struct db *db, struct db_token_info **out, size_t *n, const char *login,
    struct err *e)
{
	void	*v;
	int	 rc;

	if (login != NULL)
		rc = db_map(db, DB_RETRY, SQL_TOKEN_LIST_USER, &token_shape, &v, n, e, "s", login);
	else
		rc = db_map(db, DB_RETRY, SQL_TOKEN_LIST, &token_shape, &v, n, e, "");
	*out = v;
	return rc;
}

void
db_token_list_free(struct db_token_info *v, size_t n)
{
	db_map_free(&token_shape, v, n);
}

int
db_token_revoke(struct db *db, uint64_t id, int *already, struct err *e)
{
	struct db_rows	 r = { 0 };
	uint64_t	 affected = 0;
	int		 rc;

	*already = 0;
	if ((rc = db_run(db, DB_RETRY, SQL_TOKEN_REVOKE, NULL, &affected, NULL, e, "u", id)) != 0)
		goto done;
	if (affected > 0)
		goto done;
	if ((rc = db_run(db, DB_RETRY, SQL_TOKEN_EXISTS, &r, NULL, NULL, e, "u", id)) != 0)
		goto done;
	if (r.n == 0)
		rc = err_set(e, ERR_NOTFOUND, "token %llu not found", (unsigned long long)id);
	else
		*already = 1;
done:
	db_rows_release(&r);
	return rc;
}

int
db_token_has_scope(struct db *db, int *out, uint64_t user_id, const char *scope,
    struct err *e)
{
	struct db_rows	 r = { 0 };
	int		 rc;

	*out = 0;
	if ((rc = db_run(db, DB_RETRY, SQL_TOKEN_HAS_SCOPE, &r, NULL, NULL, e, "us", user_id,
	    scope)) == 0)
		*out = r.n > 0;
	db_rows_release(&r);
	return rc;
}
