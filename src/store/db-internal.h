/* db-internal: what the store's MySQL files share; nothing outside src/store/ includes it. */
#ifndef FM_DB_INTERNAL_H
#define FM_DB_INTERNAL_H
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <mysql.h>

struct err;

#define DB_DATE(col)		"DATE_FORMAT(" col ", '%Y-%m-%dT%H:%i:%sZ')"
/* story points (a DECIMAL(8,2)) as written: 3, 2.5, not 3.00, 2.50; NULL stays NULL */
#define DB_POINTS(col) \
    "IF(" col " = ROUND(" col "), CAST(ROUND(" col ") AS CHAR)," \
    " TRIM(TRAILING '0' FROM " col "))"

/* Statements are cached by the address of their (static) SQL text. */
struct db_cached {
	const char	*sql;
	MYSQL_STMT	*st;
};

/*
 * Where a connection goes: the configuration's db_socket, db_host and
 * db_port, or for the write node their db_write_ twins; keys is the prefix
 * messages name them by ("db" or "db_write").
 */
struct db_node {
	const char	*socket, *host;
	unsigned	 port;
	const char	*keys;
};

struct db {
	const struct config	*cfg;
	struct db_node		 node;
	struct db		*writer;	/* the write node's connection (db_writer), or NULL */
	MYSQL			*my;		/* NULL until connected */
	struct db_cached	*cache;
	size_t			 n_cache, cap_cache;
	int			 in_tx;		/* inside db_begin..db_commit/db_rollback */
	int			 collided;	/* the database aborted a statement as colliding (db_tx) */
	int			 refused;	/* the last connection attempt was refused a login */
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
 * Connects when not connected (db_connect.c).  ERR_UNAVAILABLE with a
 * message naming where it tried, the reason and the keys to check, for a
 * server that cannot be reached and for one that refuses the login alike
 * (db_login_refused tells them apart).  Connections allow several
 * statements in one text query (db_token_admit and a transaction's begin
 * and end use that; every other query is a prepared statement with bound
 * parameters).
 */
int		 db_connect(struct db *db, struct err *e);
/* Closes the connection (its statements, any open transaction with it). */
void		 db_disconnect(struct db *db);
/* Maps a failed call's error number (logged); a lost connection is closed. */
int		 db_fail(struct db *db, unsigned no, const char *what, const char *msg,
		    struct err *e);

/*
 * db_tx's attempts at a transaction that collided, and its pause before
 * attempt N (a random 0 to 2^N ms, at most 128): for other retries of a
 * collision (the rate limiter's autocommit bumps).
 */
#define DB_TX_ATTEMPTS	24
void		 db_tx_pause(int attempt);
void		 db_rows_release(struct db_rows *r);
/* The cell at row, col (NULL for SQL NULL). */
const char	*db_rows_get(const struct db_rows *r, size_t row, size_t col);
/*
 * Runs one prepared (and cached: sql must be a static string) statement
 * with parameters typed by types: 's' const char * (NULL for NULL), 'b'
 * const char * then size_t (bytes that may hold NULs), 'i' int64_t, 'u' uint64_t.  rows receives the result set as strings;
 * affected and insert_id the write counts (each may be NULL).  DB_RETRY
 * statements are re-run once on a new connection after a lost one; use
 * DB_ONCE inside a transaction.  A duplicate key returns ERR_EXISTS with
 * no message.
 */
int		 db_run(struct db *db, enum db_retry retry, const char *sql, struct db_rows *rows,
		    uint64_t *affected, uint64_t *insert_id, struct err *e, const char *types, ...);
/* db_run with its parameters as a va_list. */
int		 db_vrun(struct db *db, enum db_retry retry, const char *sql, struct db_rows *rows,
		    uint64_t *affected, uint64_t *insert_id, struct err *e, const char *types,
		    va_list ap);
/* Runs fixed text outside the statement cache (DDL). */
int		 db_plain(struct db *db, const char *sql, size_t len, struct err *e);
/* Transactions: one per mutation.  After any failure, db_commit's too, call db_rollback. */
int		 db_begin(struct db *db, struct err *e);
int		 db_commit(struct db *db, struct err *e);
void		 db_rollback(struct db *db);
#ifdef FM_DEBUG_HOOKS
/* A pause inside a transaction, for the tests (FORGEMCP_TX_PAUSE, db_tx.c). */
void		 db_tx_debug_pause(struct db *db, const char *sql);
#else
#define db_tx_debug_pause(db, sql)	((void)0)
#endif
void		 db_copy_str(char *dst, size_t len, const char *src);
/*
 * The row mapper (db_map.c): a result shape names, for each column of a
 * query in order, the struct field it fills and how.  Build the columns
 * with the DB_* macros below: each checks the field's type when it compiles.
 */
enum db_col_type {
	DB_COL_SKIP,	/* not copied */
	DB_COL_U64,	/* uint64_t; 0 for NULL */
	DB_COL_I64,	/* int64_t; 0 for NULL */
	DB_COL_BOOL,	/* int: 1 when the value is not 0, 0 for NULL */
	DB_COL_CHARS,	/* char[size]: a copy cut to fit, "" for NULL */
	DB_COL_STR,	/* char *, owned: a copy, NULL for NULL */
	DB_COL_TEXT,	/* char *, owned: a copy, "" for NULL */
};

struct db_col {
	enum db_col_type type;
	size_t		 off;	/* offsetof the field */
	size_t		 size;	/* sizeof the field */
};

/* One struct st a row; col[i] takes column i, and a result must have ncols columns. */
struct db_shape {
	const struct db_col	*col;
	size_t			 ncols;
	size_t			 size;	/* sizeof (st) */
};

#define DB_FIELD_(st, f)	(((st *)0)->f)
#define DB_COL_(kind, st, f)	{ kind, offsetof(st, f), sizeof DB_FIELD_(st, f) }
#define DB_SKIP			{ DB_COL_SKIP, 0, 0 }
#define DB_U64(st, f)		DB_COL_(_Generic(DB_FIELD_(st, f), uint64_t: DB_COL_U64), st, f)
#define DB_I64(st, f)		DB_COL_(_Generic(DB_FIELD_(st, f), int64_t: DB_COL_I64), st, f)
#define DB_BOOL(st, f)		DB_COL_(_Generic(DB_FIELD_(st, f), int: DB_COL_BOOL), st, f)
#define DB_CHARS(st, f)		DB_COL_(_Generic(&DB_FIELD_(st, f), \
				    char (*)[sizeof DB_FIELD_(st, f)]: DB_COL_CHARS), st, f)
#define DB_STR(st, f)		DB_COL_(_Generic(&DB_FIELD_(st, f), char **: DB_COL_STR), st, f)
#define DB_TEXT(st, f)		DB_COL_(_Generic(&DB_FIELD_(st, f), char **: DB_COL_TEXT), st, f)
/* The shape of struct st from the array cols (all of it, or its first n). */
#define DB_SHAPE(st, cols)	{ cols, sizeof cols / sizeof cols[0], sizeof (st) }
#define DB_SHAPE_N(st, cols, n)	{ cols, n, sizeof (st) }

/*
 * Fills *out (a struct of shape s, cleared first) from row of r.  Returns
 * 0; ERR_NOMEM with nothing left owned in *out; ERR_INTERNAL when r does
 * not have the shape's columns.
 */
int		 db_row_fill(void *out, const struct db_shape *s, const struct db_rows *r,
		    size_t row, struct err *e);
/* Frees what the shape's columns own in *p and clears those pointers. */
void		 db_row_release(const struct db_shape *s, void *p);
/*
 * *out receives an array of the first max rows of r (or all of them, when
 * fewer) as structs of shape s, *n their number; NULL and 0 for no rows.
 * The caller frees it with db_map_free.  ERR_NOMEM, ERR_INTERNAL.
 */
int		 db_rows_map(void **out, size_t *n, const struct db_shape *s,
		    const struct db_rows *r, size_t max, struct err *e);
/*
 * Runs sql as db_run does and hands every row of its result to
 * db_rows_map.  On failure *out is NULL and *n 0.
 */
int		 db_map(struct db *db, enum db_retry retry, const char *sql,
		    const struct db_shape *s, void **out, size_t *n, struct err *e,
		    const char *types, ...);
/* Frees an array of n structs of shape s and what their columns own (v may be NULL). */
void		 db_map_free(const struct db_shape *s, void *v, size_t n);

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
/*
 * Rows as JSON (db_tracker.c): names (NULL-terminated) are the members,
 * kinds one letter a column ('s' string, 'u' count, 'n' number, 'b' 0/1).
 * tracker_row answers row's object, tracker_rows the first max rows in an
 * array; NULL when out of memory or when names, kinds and columns differ.
 */
struct json_object;
struct json_object *tracker_row(const struct db_rows *r, size_t row, const char *const *names,
		    const char *kinds);
struct json_object *tracker_rows(const struct db_rows *r, size_t max, const char *const *names,
		    const char *kinds);
/*
 * In an open transaction: locks the row of the command an agent's request
 * is for, which must be claimed, of one of types (NULL-terminated; NULL:
 * any) and in the hand-out h->handout names; h->state and h->current
 * receive the row's (db_agent.h).  The row is written too (lock_count), so
 * that on Galera the request and a hand-out through another node collide
 * at commit.  r (may be NULL) receives the row {state, batch_id, type,
 * params, handouts}; the caller releases it.  ERR_INVALID when the request
 * is refused (db_agent.c; every agent request for a claimed command).
 */
struct tracker_handout;
int		 tracker_handout_lock(struct db *db, uint64_t command, const char *const *types,
		    struct tracker_handout *h, struct db_rows *r, struct err *e);
/* Whether s is a fixture's time, "YYYY-MM-DDTHH:MM:SSZ" (db_tracker.c). */
int		 tracker_time_ok(const char *s);
/*
 * The first of the string members w names (ended by a NULL name) longer
 * than its max characters in o, or NULL: what a column would refuse.
 */
struct tracker_width {
	const char	*name;
	size_t		 max;
};
const char	*tracker_too_long(struct json_object *o, const struct tracker_width *w);
/* A fixture member's string, or NULL when absent or null; *bad set when of another type. */
const char	*tracker_str(struct json_object *o, const char *key, int *bad);
/*
 * The change journal (db_changes.c): an issue's latest max rows as its
 * card's "changes" and their number as "change_count"; a fixture issue's
 * "changes" array loaded (ERR_INVALID naming the first bad member).
 */
int		 tracker_issue_changes(struct db *db, struct json_object *o, uint64_t issue,
		    int max, struct err *e);
int		 tracker_import_changes(struct db *db, struct json_object *list, uint64_t issue,
		    const char *key, struct err *e);
/*
 * The hub's copies of attachments kept within cap bytes (db_attachments.c):
 * room for a copy of len bytes made by dropping the copies fetched longest
 * ago; ERR_TOOBIG when len alone is over cap.  The statements: the bytes
 * stored and the oldest copy (id, length), each with the parameters scope
 * names ("" or "u" for a project), then its drop and its attachment's
 * state back to remote (the id).
 */
struct db_copies {
	const char	*scope, *stored, *oldest, *evict, *evicted;
};
int		 db_copies_room(struct db *db, const struct db_copies *q, uint64_t scope,
		    uint64_t len, uint64_t cap, struct err *e);
/*
 * Attachments (db_attachments.c): an issue's as its card's "attachments",
 * newest first; a fixture issue's "attachments" loaded (refresh: a Jira
 * refresh's, updated in place, those not listed dropped); the local
 * backend's fetch_attachment (command, its params): the tracker's file
 * copied to the hub within cap bytes of copies (the oldest dropped), or
 * *why it failed, the attachment's state set.
 */
int		 tracker_issue_attachments(struct db *db, struct json_object *o, uint64_t issue,
		    struct err *e);
int		 tracker_import_attachments(struct db *db, struct json_object *list,
		    uint64_t issue, const char *key, int refresh, struct err *e);
int		 tracker_local_fetch(struct db *db, uint64_t command, struct json_object *params,
		    uint64_t cap, char **why, struct err *e);
/*
 * The local backend's ensure_attachment (db_files.c): the uploaded file
 * becomes an attachment of the issue (its bytes the tracker's source), by
 * author; *result {attachment, key}, or *why it failed.
 */
int		 tracker_local_attach(struct db *db, const char *author, struct json_object *p,
		    struct json_object **result, char **why, struct err *e);
/*
 * The board (db_agile.c): the local backend's ensure_sprint, _meta,
 * _state and ensure_rank (params with the hub's board_id); a fixture
 * project's sprints and columns (its board), an issue's rank.
 */
int		 tracker_local_agile(struct db *db, const char *type, const char *author,
		    struct json_object *p, char **why, struct err *e);
int		 tracker_import_agile(struct db *db, struct json_object *project, uint64_t board,
		    size_t at, struct err *e);
int		 tracker_import_rank(struct db *db, struct json_object *issue, uint64_t id,
		    struct err *e);

#endif
