/* db: the MySQL/MariaDB adapter: the handle, prepared-statement cache, transactions (connecting is db_connect.c). */
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

#define DB_MAX_PARAMS		24
#define DB_CELL_INIT		256

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

void
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
	case ER_UNKNOWN_COM_ERROR:	/* a Galera node outside the primary component */
		return 1;
	default:
		return 0;
	}
}

/* A set string key. */
static int
db_set(const char *s)
{
	return s != NULL && s[0] != '\0';
}

/* A connection (not made yet) to node. */
static struct db *
db_alloc(const struct config *cfg, struct db_node node)
{
	struct db	*db;

	if ((db = calloc(1, sizeof *db)) != NULL) {
		db->cfg = cfg;
		db->node = node;
	}
	return db;
}

/* Whether the configuration names a write node. */
static int
db_write_node(const struct config *cfg)
{
	return db_set(cfg->db_write_socket) || db_set(cfg->db_write_host);
}

#define DB_NODE_READ(c)		((struct db_node){ (c)->db_socket, (c)->db_host, (c)->db_port, "db" })
#define DB_NODE_WRITE(c)	((struct db_node){ (c)->db_write_socket, (c)->db_write_host, \
				    (c)->db_write_port, "db_write" })

int
db_new(struct db **out, const struct config *cfg, struct err *e)
{
	struct db	*db;

	*out = NULL;
	if ((db = db_alloc(cfg, DB_NODE_READ(cfg))) == NULL)
		return err_set(e, ERR_NOMEM, "out of memory");
	if (db_write_node(cfg) && (db->writer = db_alloc(cfg, DB_NODE_WRITE(cfg))) == NULL) {
		free(db);
		return err_set(e, ERR_NOMEM, "out of memory");
	}
	*out = db;
	return 0;
}

int
db_new_writer(struct db **out, const struct config *cfg, struct err *e)
{
	if (!db_write_node(cfg))
		return db_new(out, cfg, e);
	if ((*out = db_alloc(cfg, DB_NODE_WRITE(cfg))) == NULL)
		return err_set(e, ERR_NOMEM, "out of memory");
	return 0;
}

struct db *
db_writer(struct db *db)
{
	return db->writer != NULL ? db->writer : db;
}

void
db_free(struct db *db)
{
	if (db == NULL)
		return;
	db_free(db->writer);
	db_disconnect(db);
	free(db->cache);
	free(db);
}

/* Maps a failed call's error number; lost connections are closed here. */
int
db_fail(struct db *db, unsigned no, const char *what, const char *msg, struct err *e)
{
	log_error("database %s failed: %s (%u)", what, msg != NULL && msg[0] != '\0' ? msg :
	    no == ER_LOCK_DEADLOCK ? "aborted by a concurrent transaction" : "no message", no);
	if (lost_connection(no)) {
		db_disconnect(db);
		return e != NULL ? err_set(e, ERR_UNAVAILABLE, "database unavailable") :
		    ERR_UNAVAILABLE;
	}
	/* Deadlocks, lock waits and Galera certification failures are worth a retry. */
	if (no == ER_LOCK_DEADLOCK || no == ER_LOCK_WAIT_TIMEOUT || no == ER_CHECKREAD) {
		db->collided = 1;
		return e != NULL ? err_set(e, ERR_CONFLICT, "the change collided with a "
		    "concurrent one and was not made; try again") : ERR_CONFLICT;
	}
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

/*
 * Binds "s" (const char *, NULL for NULL), "b" (const char *, size_t: bytes),
 * "i" (int64_t) and "u" (uint64_t) arguments.
 */
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
		case 'b': {
			/* Bytes that may hold NULs: a pointer, then a size_t length. */
			const char *s = va_arg(ap, const char *);

			b->buffer_type = MYSQL_TYPE_BLOB;
			b->buffer = (void *)(uintptr_t)s;
			p->len[i] = va_arg(ap, size_t);
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
	va_list	 ap;
	int	 rc;

	va_start(ap, types);
	rc = db_vrun(db, retry, sql, rows, affected, insert_id, e, types, ap);
	va_end(ap);
	return rc;
}

int
db_vrun(struct db *db, enum db_retry retry, const char *sql, struct db_rows *rows,
    uint64_t *affected, uint64_t *insert_id, struct err *e, const char *types, va_list ap)
{
	struct db_params	 p;
	MYSQL_STMT		*st;
	unsigned		 no;
	int			 attempt, rc;

	if ((rc = params_bind(&p, types, ap)) != 0)
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
		db_tx_debug_pause(db, sql);
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
				rc = db_fail(db, no, "fetch", mysql_stmt_error(st), e);
				/*
				 * A result that broke off (a deadlock found while its
				 * rows were read) leaves the connection out of step
				 * with the server: the next statement would wait for
				 * an answer that never comes, holding its locks.  It
				 * is closed (the transaction with it) and remade.
				 */
				db_disconnect(db);
				return rc;
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
