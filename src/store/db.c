/* db: the MySQL/MariaDB adapter: connection, prepared-statement cache, every query. */
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <mysql.h>
#include <errmsg.h>
#include <mysqld_error.h>

#include "../config.h"	/* src/config.h, not the autoconf header */
#include "err.h"
#include "log.h"
#include "store/db.h"
#include "store/migrations.h"
#include "store/db-internal.h"

#define DB_MAX_PARAMS		16
#define DB_CELL_INIT		256
#define DB_CONNECT_TIMEOUT	3
#define DB_RW_TIMEOUT		30

void
db_rows_release(struct db_rows *r)
{
	size_t	 i;

	if (r->cell != NULL) {
		for (i = 0; i < r->n * r->ncols; i++)
			free(r->cell[i]);
		free(r->cell);
	}
	r->cell = NULL;
	r->n = r->ncols = 0;
}

const char *
db_rows_get(const struct db_rows *r, size_t row, size_t col)
{
	return r->cell[row * r->ncols + col];
}

static void
db_disconnect(struct db *db)
{
	size_t	 i;

	for (i = 0; i < db->n_cache; i++)
		mysql_stmt_close(db->cache[i].st);
	db->n_cache = 0;
	if (db->my != NULL)
		mysql_close(db->my);
	db->my = NULL;
}

/* Whether a client/server error number means the connection is unusable. */
static int
lost_connection(unsigned no)
{
	switch (no) {
	case CR_SERVER_GONE_ERROR:
	case CR_SERVER_LOST:
	case CR_SERVER_LOST_EXTENDED:
	case CR_CONNECTION_ERROR:
	case CR_CONN_HOST_ERROR:
	case CR_UNKNOWN_HOST:
	case ER_CONNECTION_KILLED:
	case ER_SERVER_SHUTDOWN:
		return 1;
	default:
		return 0;
	}
}

int
db_connect(struct db *db, struct err *e)
{
	const struct config	*c = db->cfg;
	MYSQL			*my = NULL;
	unsigned		 tmo = DB_CONNECT_TIMEOUT, rw = DB_RW_TIMEOUT;
	const char		*host = c->db_host != NULL ? c->db_host : "localhost";
	int			 rc = 0;

	if (db->my != NULL)
		return 0;
	/* A transaction dies with its connection: never go on outside it. */
	if (db->in_tx)
		return err_set(e, ERR_UNAVAILABLE, "database connection lost in a transaction");
	if ((my = mysql_init(NULL)) == NULL)
		return err_set(e, ERR_NOMEM, "out of memory");
	mysql_options(my, MYSQL_OPT_CONNECT_TIMEOUT, &tmo);
	mysql_options(my, MYSQL_OPT_READ_TIMEOUT, &rw);
	mysql_options(my, MYSQL_OPT_WRITE_TIMEOUT, &rw);
	mysql_options(my, MYSQL_SET_CHARSET_NAME, "utf8mb4");
	mysql_options(my, MYSQL_INIT_COMMAND,
	    "SET time_zone = '+00:00', sql_mode = 'STRICT_ALL_TABLES,NO_ZERO_DATE,"
	    "NO_ZERO_IN_DATE,ERROR_FOR_DIVISION_BY_ZERO,NO_ENGINE_SUBSTITUTION'");
	if (c->db_socket != NULL && c->db_socket[0] != '\0') {
		unsigned proto = MYSQL_PROTOCOL_SOCKET;

		mysql_options(my, MYSQL_OPT_PROTOCOL, &proto);
		host = "localhost";
	}
	if (mysql_real_connect(my, host, c->db_user != NULL ? c->db_user : "forgemcp",
	    c->db_password, c->db_name != NULL ? c->db_name : "forgemcp", c->db_port,
	    c->db_socket != NULL && c->db_socket[0] != '\0' ? c->db_socket : NULL,
	    CLIENT_MULTI_STATEMENTS) == NULL) {
		unsigned no = mysql_errno(my);

		log_error("database connect failed: %s (%u)", mysql_error(my), no);
		if (no == ER_ACCESS_DENIED_ERROR || no == ER_BAD_DB_ERROR ||
		    no == ER_DBACCESS_DENIED_ERROR)
			rc = err_set(e, ERR_DB, "database login failed");
		else
			rc = err_set(e, ERR_UNAVAILABLE, "database unavailable");
		goto done;
	}
	db->my = my;
	my = NULL;
done:
	if (my != NULL)
		mysql_close(my);
	return rc;
}

int
db_new(struct db **out, const struct config *cfg, struct err *e)
{
	struct db	*db;

	*out = NULL;
	if ((db = calloc(1, sizeof *db)) == NULL)
		return err_set(e, ERR_NOMEM, "out of memory");
	db->cfg = cfg;
	*out = db;
	return 0;
}

void
db_free(struct db *db)
{
	if (db == NULL)
		return;
	db_disconnect(db);
	free(db->cache);
	free(db);
}

/* Maps a failed call's error number; lost connections are closed here. */
int
db_fail(struct db *db, unsigned no, const char *what, const char *msg, struct err *e)
{
	log_error("database %s failed: %s (%u)", what, msg, no);
	if (lost_connection(no)) {
		db_disconnect(db);
		return e != NULL ? err_set(e, ERR_UNAVAILABLE, "database unavailable") :
		    ERR_UNAVAILABLE;
	}
	/* Deadlocks, lock waits and Galera certification failures are worth a retry. */
	if (no == ER_LOCK_DEADLOCK || no == ER_LOCK_WAIT_TIMEOUT || no == ER_CHECKREAD)
		return e != NULL ? err_set(e, ERR_CONFLICT, "the change collided with a "
		    "concurrent one and was not made; try again") : ERR_CONFLICT;
	/* A full table or disk: the statement changed nothing; say so, it is no bug. */
	if (no == ER_RECORD_FILE_FULL || no == ER_DISK_FULL)
		return e != NULL ? err_set(e, ERR_TOOBIG, "the forge's database is out of space: "
		    "nothing was saved; try again later") : ERR_TOOBIG;
	return e != NULL ? err_set(e, ERR_DB, "database error") : ERR_DB;
}

/* The cached statement for sql, prepared on first use. */
static int
db_stmt(struct db *db, MYSQL_STMT **out, const char *sql, unsigned *errnop, struct err *e)
{
	MYSQL_STMT	*st = NULL;
	size_t		 i;

	*out = NULL;
	*errnop = 0;
	for (i = 0; i < db->n_cache; i++)
		if (db->cache[i].sql == sql) {
			*out = db->cache[i].st;
			return 0;
		}
	if (db->n_cache == db->cap_cache) {
		size_t		  ncap = db->cap_cache ? db->cap_cache * 2 : 32;
		struct db_cached *nc = realloc(db->cache, ncap * sizeof *nc);

		if (nc == NULL)
			return err_set(e, ERR_NOMEM, "out of memory");
		db->cache = nc;
		db->cap_cache = ncap;
	}
	if ((st = mysql_stmt_init(db->my)) == NULL)
		return err_set(e, ERR_NOMEM, "out of memory");
	if (mysql_stmt_prepare(st, sql, strlen(sql)) != 0) {
		char	 msg[256];

		*errnop = mysql_stmt_errno(st);
		snprintf(msg, sizeof msg, "%s", mysql_stmt_error(st));
		mysql_stmt_close(st);
		return db_fail(db, *errnop, "prepare", msg, NULL);
	}
	db->cache[db->n_cache].sql = sql;
	db->cache[db->n_cache].st = st;
	db->n_cache++;
	*out = st;
	return 0;
}

struct db_params {
	MYSQL_BIND		 bind[DB_MAX_PARAMS];
	long long		 num[DB_MAX_PARAMS];
	unsigned long		 len[DB_MAX_PARAMS];
	my_bool			 null[DB_MAX_PARAMS];
	size_t			 n;
};

/* Binds "s" (const char *, NULL for NULL), "i" (int64_t) and "u" (uint64_t) arguments. */
static int
params_bind(struct db_params *p, const char *types, va_list ap)
{
	size_t	 i;

	memset(p, 0, sizeof *p);
	for (i = 0; types[i] != '\0'; i++) {
		MYSQL_BIND	*b = &p->bind[i];

		if (i >= DB_MAX_PARAMS)
			return ERR_INTERNAL;
		switch (types[i]) {
		case 's': {
			const char *s = va_arg(ap, const char *);

			b->buffer_type = MYSQL_TYPE_STRING;
			if (s == NULL) {
				p->null[i] = 1;
				b->is_null = &p->null[i];
				break;
			}
			b->buffer = (void *)(uintptr_t)s;
			p->len[i] = strlen(s);
			b->buffer_length = p->len[i];
			b->length = &p->len[i];
			break;
		}
		case 'i':
			p->num[i] = (long long)va_arg(ap, int64_t);
			b->buffer_type = MYSQL_TYPE_LONGLONG;
			b->buffer = &p->num[i];
			break;
		case 'u':
			p->num[i] = (long long)va_arg(ap, uint64_t);
			b->buffer_type = MYSQL_TYPE_LONGLONG;
			b->buffer = &p->num[i];
			b->is_unsigned = 1;
			break;
		default:
			return ERR_INTERNAL;
		}
	}
	p->n = i;
	return 0;
}

/* Fetches every row of an executed statement as strings. */
static int
fetch_rows(MYSQL_STMT *st, struct db_rows *out, unsigned *errnop)
{
	MYSQL_RES	*meta = NULL;
	MYSQL_BIND	*bind = NULL;
	unsigned long	*lens = NULL;
	my_bool		*nulls = NULL;
	char		*small = NULL;
	char		**cells = NULL;
	size_t		 ncols, n = 0, cap = 0, c;
	int		 rc = 0, f;

	out->n = out->ncols = 0;
	out->cell = NULL;
	if ((meta = mysql_stmt_result_metadata(st)) == NULL)
		return 0;
	ncols = mysql_num_fields(meta);
	if (ncols == 0)
		goto done;
	bind = calloc(ncols, sizeof *bind);
	lens = calloc(ncols, sizeof *lens);
	nulls = calloc(ncols, sizeof *nulls);
	small = calloc(ncols, DB_CELL_INIT);
	if (bind == NULL || lens == NULL || nulls == NULL || small == NULL) {
		rc = ERR_NOMEM;
		goto done;
	}
	for (c = 0; c < ncols; c++) {
		bind[c].buffer_type = MYSQL_TYPE_STRING;
		bind[c].buffer = small + c * DB_CELL_INIT;
		bind[c].buffer_length = DB_CELL_INIT;
		bind[c].length = &lens[c];
		bind[c].is_null = &nulls[c];
	}
	if (mysql_stmt_bind_result(st, bind) != 0 || mysql_stmt_store_result(st) != 0) {
		*errnop = mysql_stmt_errno(st);
		rc = ERR_DB;
		goto done;
	}
	while ((f = mysql_stmt_fetch(st)) == 0 || f == MYSQL_DATA_TRUNCATED) {
		if (n == cap) {
			size_t	 ncap = cap ? cap * 2 : 16;
			char	**nc = realloc(cells, ncap * ncols * sizeof *nc);

			if (nc == NULL) {
				rc = ERR_NOMEM;
				goto done;
			}
			memset(nc + cap * ncols, 0, (ncap - cap) * ncols * sizeof *nc);
			cells = nc;
			cap = ncap;
		}
		for (c = 0; c < ncols; c++) {
			char	*v;

			if (nulls[c])
				continue;
			if ((v = malloc(lens[c] + 1)) == NULL) {
				rc = ERR_NOMEM;
				n++;
				goto done;
			}
			if (lens[c] <= DB_CELL_INIT) {
				memcpy(v, small + c * DB_CELL_INIT, lens[c]);
			} else {
				MYSQL_BIND	 big;
				unsigned long	 blen = 0;

				memset(&big, 0, sizeof big);
				big.buffer_type = MYSQL_TYPE_STRING;
				big.buffer = v;
				big.buffer_length = lens[c];
				big.length = &blen;
				if (mysql_stmt_fetch_column(st, &big, (unsigned)c, 0) != 0) {
					free(v);
					*errnop = mysql_stmt_errno(st);
					rc = ERR_DB;
					n++;
					goto done;
				}
			}
			v[lens[c]] = '\0';
			cells[n * ncols + c] = v;
		}
		n++;
	}
	if (f != MYSQL_NO_DATA) {
		*errnop = mysql_stmt_errno(st);
		rc = ERR_DB;
		goto done;
	}
	out->ncols = ncols;
	out->n = n;
	out->cell = cells;
	cells = NULL;
	n = 0;
done:
	if (cells != NULL) {
		for (c = 0; c < n * ncols; c++)
			free(cells[c]);
		free(cells);
	}
	mysql_stmt_free_result(st);
	free(bind);
	free(lens);
	free(nulls);
	free(small);
	mysql_free_result(meta);
	return rc;
}

/*
 * Runs one statement with parameters; rows (when not NULL) receives the
 * result set, affected and insert_id (when not NULL) the write counts.  A
 * lost connection is remade and the statement retried once when retry is
 * DB_RETRY, or when it failed before execution.  ERR_EXISTS on a duplicate
 * key is returned without a message: the caller names the object.
 */
int
db_run(struct db *db, enum db_retry retry, const char *sql, struct db_rows *rows,
    uint64_t *affected, uint64_t *insert_id, struct err *e, const char *types, ...)
{
	struct db_params	 p;
	MYSQL_STMT		*st;
	unsigned		 no;
	int			 attempt, rc;
	va_list			 ap;

	va_start(ap, types);
	rc = params_bind(&p, types, ap);
	va_end(ap);
	if (rc != 0)
		return err_set(e, rc, "internal error: bad query parameters");
	if (rows != NULL) {
		rows->n = rows->ncols = 0;
		rows->cell = NULL;
	}
	for (attempt = 0; attempt < 2; attempt++) {
		if ((rc = db_connect(db, e)) != 0)
			return rc;
		if ((rc = db_stmt(db, &st, sql, &no, e)) != 0) {
			if (rc == ERR_UNAVAILABLE && attempt == 0)
				continue;	/* nothing ran yet: always safe */
			if (rc == ERR_UNAVAILABLE)
				return err_set(e, rc, "database unavailable");
			if (rc == ERR_DB)
				return err_set(e, rc, "database error");
			return rc;
		}
		if (p.n > 0 && mysql_stmt_bind_param(st, p.bind) != 0)
			return db_fail(db, mysql_stmt_errno(st), "bind", mysql_stmt_error(st), e);
		if (mysql_stmt_execute(st) != 0) {
			no = mysql_stmt_errno(st);
			if (no == ER_DUP_ENTRY) {
				mysql_stmt_reset(st);
				return ERR_EXISTS;
			}
			if (lost_connection(no) && attempt == 0 && retry == DB_RETRY) {
				db_fail(db, no, "execute", mysql_stmt_error(st), NULL);
				continue;
			}
			rc = db_fail(db, no, "execute", mysql_stmt_error(st), e);
			if (rc == ERR_DB || rc == ERR_CONFLICT || rc == ERR_TOOBIG)
				mysql_stmt_reset(st);
			return rc;
		}
		if (affected != NULL)
			*affected = mysql_stmt_affected_rows(st);
		if (insert_id != NULL)
			*insert_id = mysql_stmt_insert_id(st);
		if (rows != NULL) {
			no = 0;
			rc = fetch_rows(st, rows, &no);
			if (rc == ERR_NOMEM)
				return err_set(e, rc, "out of memory");
			if (rc != 0) {
				if (lost_connection(no) && attempt == 0 && retry == DB_RETRY) {
					db_fail(db, no, "fetch", "connection lost", NULL);
					continue;
				}
				return db_fail(db, no, "fetch", mysql_stmt_error(st), e);
			}
		} else {
			mysql_stmt_free_result(st);
		}
		return 0;
	}
	return err_set(e, ERR_UNAVAILABLE, "database unavailable");
}

/* Runs a statement outside the cache (migration DDL: fixed text, no parameters). */
int
db_plain(struct db *db, const char *sql, size_t len, struct err *e)
{
	int	 rc;

	if ((rc = db_connect(db, e)) != 0)
		return rc;
	if (mysql_real_query(db->my, sql, len) != 0)
		return db_fail(db, mysql_errno(db->my), "query", mysql_error(db->my), e);
	return 0;
}

void
db_copy_str(char *dst, size_t len, const char *src)
{
	snprintf(dst, len, "%s", src != NULL ? src : "");
}

uint64_t
db_to_u64(const char *s)
{
	return s != NULL ? strtoull(s, NULL, 10) : 0;
}

int
db_begin(struct db *db, struct err *e)
{
	int	rc;

	/* Nothing has run yet, so a lost connection may be remade first. */
	if ((rc = db_connect(db, e)) != 0)
		return rc;
	if (mysql_ping(db->my) != 0) {
		db_disconnect(db);
		if ((rc = db_connect(db, e)) != 0)
			return rc;
	}
	if ((rc = db_plain(db, "START TRANSACTION", strlen("START TRANSACTION"), e)) != 0)
		return rc;
	db->in_tx = 1;
	return 0;
}

int
db_commit(struct db *db, struct err *e)
{
	db->in_tx = 0;
	if (db->my == NULL)
		return err_set(e, ERR_UNAVAILABLE, "database unavailable");
	if (mysql_commit(db->my) != 0)
		return db_fail(db, mysql_errno(db->my), "commit", mysql_error(db->my), e);
	return 0;
}

void
db_rollback(struct db *db)
{
	db->in_tx = 0;
	if (db->my != NULL && mysql_rollback(db->my) != 0)
		db_fail(db, mysql_errno(db->my), "rollback", mysql_error(db->my), NULL);
}

/* ---- schema ---- */

int
db_schema_latest(void)
{
	return migration_latest();
}

static const char SQL_MIGRATIONS_TABLE[] =
    "CREATE TABLE IF NOT EXISTS schema_migrations ("
    " version INT NOT NULL PRIMARY KEY,"
    " name VARCHAR(255) NOT NULL,"
    " applied_at DATETIME NOT NULL DEFAULT UTC_TIMESTAMP()"
    ") ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci";
static const char SQL_HAS_MIGRATIONS[] =
    "SELECT COUNT(*) FROM information_schema.tables"
    " WHERE table_schema = DATABASE() AND table_name = 'schema_migrations'";
static const char SQL_SCHEMA_VERSION[] =
    "SELECT COALESCE(MAX(version), 0) FROM schema_migrations";
static const char SQL_RECORD_MIGRATION[] =
    "INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, UTC_TIMESTAMP())";

int
db_schema_version(struct db *db, int *out, struct err *e)
{
	struct db_rows	 r = { 0 };
	int		 rc;

	*out = 0;
	if ((rc = db_run(db, DB_RETRY, SQL_HAS_MIGRATIONS, &r, NULL, NULL, e, "")) != 0)
		goto done;
	if (r.n == 0 || db_to_u64(db_rows_get(&r, 0, 0)) == 0)
		goto done;
	db_rows_release(&r);
	if ((rc = db_run(db, DB_RETRY, SQL_SCHEMA_VERSION, &r, NULL, NULL, e, "")) != 0)
		goto done;
	if (r.n > 0)
		*out = (int)db_to_u64(db_rows_get(&r, 0, 0));
done:
	db_rows_release(&r);
	return rc;
}

static int
too_new(int have, struct err *e)
{
	return err_set(e, ERR_CONFIG,
	    "database schema version %d is newer than this forgemcp (knows up to %d): "
	    "upgrade forgemcp", have, db_schema_latest());
}

int
db_migrate(struct db *db, int *applied, struct err *e)
{
	int	 have, rc;
	size_t	 i;

	*applied = 0;
	if ((rc = db_schema_version(db, &have, e)) != 0)
		return rc;
	if (have > db_schema_latest())
		return too_new(have, e);
	if ((rc = db_plain(db, SQL_MIGRATIONS_TABLE, sizeof SQL_MIGRATIONS_TABLE - 1, e)) != 0)
		return rc;
	for (i = 0; i < schema_migrations_len; i++) {
		const struct migration	*m = &schema_migrations[i];
		const char		*stmt;
		size_t			 pos = 0, len;

		if (m->version <= have)
			continue;
		while (migration_next_statement(m->sql, &pos, &stmt, &len)) {
			if ((rc = db_plain(db, stmt, len, e)) != 0) {
				log_error("migration %d (%s) failed", m->version, m->name);
				return rc;
			}
		}
		rc = db_run(db, DB_ONCE, SQL_RECORD_MIGRATION, NULL, NULL, NULL, e, "is",
		    (int64_t)m->version, m->name);
		if (rc == ERR_EXISTS)
			return err_set(e, rc, "migration %d was applied concurrently", m->version);
		if (rc != 0)
			return rc;
		(*applied)++;
	}
	return 0;
}

int
db_schema_check(struct db *db, struct err *e)
{
	int	 have, rc;

	if ((rc = db_schema_version(db, &have, e)) != 0)
		return rc;
	if (have > db_schema_latest())
		return too_new(have, e);
	if (have < db_schema_latest())
		return err_set(e, ERR_CONFIG,
		    "database schema is at version %d, this forgemcp needs %d: run 'forgemcp migrate'",
		    have, db_schema_latest());
	return 0;
}

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

static int
repo_from_row(struct db_repo *out, const struct db_rows *r, size_t i)
{
	const char	*desc = db_rows_get(r, i, 3);

	memset(out, 0, sizeof *out);
	out->id = db_to_u64(db_rows_get(r, i, 0));
	db_copy_str(out->owner, sizeof out->owner, db_rows_get(r, i, 1));
	db_copy_str(out->name, sizeof out->name, db_rows_get(r, i, 2));
	if (desc != NULL && (out->description = strdup(desc)) == NULL)
		return ERR_NOMEM;
	db_copy_str(out->default_branch, sizeof out->default_branch, db_rows_get(r, i, 4));
	out->private = db_to_u64(db_rows_get(r, i, 5)) != 0;
	db_copy_str(out->updated_at, sizeof out->updated_at, db_rows_get(r, i, 6));
	return 0;
}

static int
repos_from_rows(struct db_repo **out, size_t *n, const struct db_rows *r, struct err *e)
{
	struct db_repo	*v = NULL;
	size_t		 i;

	*out = NULL;
	*n = 0;
	if (r->n == 0)
		return 0;
	if ((v = calloc(r->n, sizeof *v)) == NULL)
		return err_set(e, ERR_NOMEM, "out of memory");
	for (i = 0; i < r->n; i++)
		if (repo_from_row(&v[i], r, i) != 0) {
			db_repo_list_free(v, i);
			return err_set(e, ERR_NOMEM, "out of memory");
		}
	*out = v;
	*n = r->n;
	return 0;
}

int
db_repo_list_visible(struct db *db, struct db_repo **out, size_t *n, uint64_t user_id,
    const char *query, int limit, struct err *e)
{
	struct db_rows	 r = { 0 };
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
	if ((rc = db_run(db, DB_RETRY, SQL_REPO_LIST_VISIBLE, &r, NULL, NULL, e, "uussi",
	    user_id, user_id, pat, pat, (int64_t)limit)) != 0)
		goto done;
	rc = repos_from_rows(out, n, &r, e);
done:
	free(pat);
	db_rows_release(&r);
	return rc;
}

void
db_repo_list_free(struct db_repo *v, size_t n)
{
	size_t	 i;

	if (v == NULL)
		return;
	for (i = 0; i < n; i++)
		db_repo_release(&v[i]);
	free(v);
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
			return err_set(e, ERR_NOTFOUND, "Repository not found or not accessible");
		return err_set(e, ERR_NOTFOUND, "repository '%s/%s' not found", owner, name);
	}
	if (repo_from_row(out, r, 0) != 0)
		return err_set(e, ERR_NOMEM, "out of memory");
	return 0;
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
	struct db_rows	 r = { 0 };
	int		 rc;

	*out = NULL;
	*n = 0;
	if ((rc = db_run(db, DB_RETRY, SQL_REPO_LIST_ALL, &r, NULL, NULL, e, "")) != 0)
		goto done;
	rc = repos_from_rows(out, n, &r, e);
done:
	db_rows_release(&r);
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

int
db_user_list(struct db *db, struct db_user **out, size_t *n, struct err *e)
{
	struct db_rows	 r = { 0 };
	struct db_user	*v = NULL;
	size_t		 i;
	int		 rc;

	*out = NULL;
	*n = 0;
	if ((rc = db_run(db, DB_RETRY, SQL_USER_LIST, &r, NULL, NULL, e, "")) != 0)
		goto done;
	if (r.n == 0)
		goto done;
	if ((v = calloc(r.n, sizeof *v)) == NULL) {
		rc = err_set(e, ERR_NOMEM, "out of memory");
		goto done;
	}
	for (i = 0; i < r.n; i++) {
		const char	*nm = db_rows_get(&r, i, 2), *em = db_rows_get(&r, i, 3);

		v[i].id = db_to_u64(db_rows_get(&r, i, 0));
		db_copy_str(v[i].login, sizeof v[i].login, db_rows_get(&r, i, 1));
		db_copy_str(v[i].created_at, sizeof v[i].created_at, db_rows_get(&r, i, 4));
		if ((nm != NULL && (v[i].name = strdup(nm)) == NULL) ||
		    (em != NULL && (v[i].email = strdup(em)) == NULL)) {
			rc = err_set(e, ERR_NOMEM, "out of memory");
			goto done;
		}
	}
	*out = v;
	*n = r.n;
	v = NULL;
done:
	if (v != NULL)
		db_user_list_free(v, r.n);
	db_rows_release(&r);
	return rc;
}

void
db_user_list_free(struct db_user *v, size_t n)
{
	size_t	 i;

	if (v == NULL)
		return;
	for (i = 0; i < n; i++) {
		free(v[i].name);
		free(v[i].email);
	}
	free(v);
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

int
db_token_list(struct db *db, struct db_token_info **out, size_t *n, const char *login,
    struct err *e)
{
	struct db_rows		 r = { 0 };
	struct db_token_info	*v = NULL;
	size_t			 i;
	int			 rc;

	*out = NULL;
	*n = 0;
	if (login != NULL)
		rc = db_run(db, DB_RETRY, SQL_TOKEN_LIST_USER, &r, NULL, NULL, e, "s", login);
	else
		rc = db_run(db, DB_RETRY, SQL_TOKEN_LIST, &r, NULL, NULL, e, "");
	if (rc != 0 || r.n == 0)
		goto done;
	if ((v = calloc(r.n, sizeof *v)) == NULL) {
		rc = err_set(e, ERR_NOMEM, "out of memory");
		goto done;
	}
	for (i = 0; i < r.n; i++) {
		const char	*nm = db_rows_get(&r, i, 2);

		v[i].id = db_to_u64(db_rows_get(&r, i, 0));
		db_copy_str(v[i].login, sizeof v[i].login, db_rows_get(&r, i, 1));
		db_copy_str(v[i].scopes, sizeof v[i].scopes, db_rows_get(&r, i, 3));
		db_copy_str(v[i].created_at, sizeof v[i].created_at, db_rows_get(&r, i, 4));
		db_copy_str(v[i].expires_at, sizeof v[i].expires_at, db_rows_get(&r, i, 5));
		db_copy_str(v[i].last_used_at, sizeof v[i].last_used_at, db_rows_get(&r, i, 6));
		v[i].expired = db_to_u64(db_rows_get(&r, i, 7)) != 0;
		v[i].revoked = db_to_u64(db_rows_get(&r, i, 8)) != 0;
		if (nm != NULL && (v[i].name = strdup(nm)) == NULL) {
			rc = err_set(e, ERR_NOMEM, "out of memory");
			goto done;
		}
	}
	*out = v;
	*n = r.n;
	v = NULL;
done:
	if (v != NULL)
		db_token_list_free(v, r.n);
	db_rows_release(&r);
	return rc;
}

void
db_token_list_free(struct db_token_info *v, size_t n)
{
	size_t	 i;

	if (v == NULL)
		return;
	for (i = 0; i < n; i++)
		free(v[i].name);
	free(v);
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

int
db_collaborator_list(struct db *db, struct db_collaborator **out, size_t *n, const char *owner,
    const char *name, struct err *e)
{
	struct db_repo		 repo;
	struct db_rows		 r = { 0 };
	struct db_collaborator	*v = NULL;
	size_t			 i;
	int			 rc;

	*out = NULL;
	*n = 0;
	memset(&repo, 0, sizeof repo);
	if ((rc = db_repo_find(db, &repo, owner, name, e)) != 0)
		goto done;
	if ((rc = db_run(db, DB_RETRY, SQL_COLLAB_LIST, &r, NULL, NULL, e, "uu", repo.id,
	    repo.id)) != 0 || r.n == 0)
		goto done;
	if ((v = calloc(r.n, sizeof *v)) == NULL) {
		rc = err_set(e, ERR_NOMEM, "out of memory");
		goto done;
	}
	for (i = 0; i < r.n; i++) {
		db_copy_str(v[i].login, sizeof v[i].login, db_rows_get(&r, i, 0));
		db_copy_str(v[i].role, sizeof v[i].role, db_rows_get(&r, i, 1));
	}
	*out = v;
	*n = r.n;
done:
	db_rows_release(&r);
	db_repo_release(&repo);
	return rc;
}
