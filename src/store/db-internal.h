/* db-internal: what the store's MySQL files share; nothing outside src/store/ includes it. */
#ifndef FM_DB_INTERNAL_H
#define FM_DB_INTERNAL_H
#include <stddef.h>
#include <stdint.h>
#include <mysql.h>

struct err;

#define DB_DATE(col)		"DATE_FORMAT(" col ", '%Y-%m-%dT%H:%i:%sZ')"

/* Statements are cached by the address of their (static) SQL text. */
struct db_cached {
	const char	*sql;
	MYSQL_STMT	*st;
};

struct db {
	const struct config	*cfg;
	MYSQL			*my;		/* NULL until connected */
	struct db_cached	*cache;
	size_t			 n_cache, cap_cache;
	int			 in_tx;		/* inside db_begin..db_commit/db_rollback */
};

/* Rows fetched as strings: cell[row * ncols + col], NULL for SQL NULL. */
struct db_rows {
	size_t	  n, ncols;
	char	**cell;
};

enum db_retry {
	DB_ONCE,	/* a write: never re-executed after it may have run */
	DB_RETRY,	/* a read or an idempotent write: retried once on a new connection */
};

/*
 * Connects when not connected (ERR_UNAVAILABLE, ERR_DB).  Connections
 * allow several statements in one text query (db_token_admit uses that;
 * every other query is a prepared statement with bound parameters).
 */
int		 db_connect(struct db *db, struct err *e);
/* Maps a failed call's error number (logged); a lost connection is closed. */
int		 db_fail(struct db *db, unsigned no, const char *what, const char *msg,
		    struct err *e);
void		 db_rows_release(struct db_rows *r);
/* The cell at row, col (NULL for SQL NULL). */
const char	*db_rows_get(const struct db_rows *r, size_t row, size_t col);
/*
 * Runs one prepared (and cached: sql must be a static string) statement
 * with parameters typed by types: 's' const char * (NULL for NULL), 'i'
 * int64_t, 'u' uint64_t.  rows receives the result set as strings;
 * affected and insert_id the write counts (each may be NULL).  DB_RETRY
 * statements are re-run once on a new connection after a lost one; use
 * DB_ONCE inside a transaction.  A duplicate key returns ERR_EXISTS with
 * no message.
 */
int		 db_run(struct db *db, enum db_retry retry, const char *sql, struct db_rows *rows,
		    uint64_t *affected, uint64_t *insert_id, struct err *e, const char *types, ...);
/* Runs fixed text outside the statement cache (DDL). */
int		 db_plain(struct db *db, const char *sql, size_t len, struct err *e);
/* Transactions: one per mutation.  After any failure inside, call db_rollback. */
int		 db_begin(struct db *db, struct err *e);
int		 db_commit(struct db *db, struct err *e);
void		 db_rollback(struct db *db);
void		 db_copy_str(char *dst, size_t len, const char *src);
/*
 * The token cache's lookup columns (db_token_fill reads them in this
 * order), then DB_TOKEN_FROM and a WHERE on t.token_hash.
 */
#define DB_TOKEN_COLS \
    "SELECT t.id, t.user_id, u.login, t.scopes," \
    " t.expires_at IS NOT NULL AND t.expires_at <= UTC_TIMESTAMP()," \
    " t.revoked_at IS NOT NULL," \
    " t.last_used_at IS NULL OR t.last_used_at < UTC_TIMESTAMP() - INTERVAL 60 SECOND," \
    " t.token_hash"
#define DB_TOKEN_FROM	" FROM tokens t JOIN users u ON u.id = t.user_id"
struct db_token;
int		 db_hash_ok(const char *s);
void		 db_token_fill(struct db *db, struct db_token *out, const char *const *cell);
uint64_t	 db_to_u64(const char *s);

#endif
