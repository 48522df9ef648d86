/* db_discussions: the MySQL queries behind review discussions of pull requests (discussions, discussion_replies). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "err.h"
#include "store/db-internal.h"
#include "store/db_discussions.h"
#include "store/db_forge.h"

#define PREVIEW	"200"	/* FORGE_PREVIEW_CHARS, in SQL text */

/* Columns 0..13 of a discussion: body (7) may be a preview, cut (8) says so. */
#define DISCUSSION_COLS_N(body, cut, count) \
    "SELECT d.id, d.author_id, u.login, d.version, d.path, d.line, d.side, " body ", " \
    cut ", d.state, d.state_version, " count ", " \
    DB_DATE("d.created_at") ", " DB_DATE("d.updated_at")
#define DISCUSSION_COLS(body, cut) DISCUSSION_COLS_N(body, cut, \
    "(SELECT COUNT(*) FROM discussion_replies r WHERE r.discussion_id = d.id)")
#define DISCUSSION_FROM	" FROM discussions d JOIN users u ON u.id = d.author_id "

static const char SQL_DISCUSSION_LIST[] =
    DISCUSSION_COLS("LEFT(d.body, " PREVIEW ")", "CHAR_LENGTH(d.body) > " PREVIEW)
    DISCUSSION_FROM "WHERE d.pull_request_id = ? ORDER BY d.id LIMIT ? OFFSET ?";
/* The FORGE_RECENT_REPLIES newest replies of each discussion of one page. */
static const char SQL_DISCUSSION_RECENT[] =
    "SELECT x.discussion_id, x.id, u.login, x.preview, x.cut, " DB_DATE("x.created_at")
    " FROM (SELECT r.id, r.discussion_id, r.author_id, r.created_at,"
    " LEFT(r.body, " PREVIEW ") AS preview, CHAR_LENGTH(r.body) > " PREVIEW " AS cut,"
    " ROW_NUMBER() OVER (PARTITION BY r.discussion_id ORDER BY r.id DESC) AS rn"
    " FROM discussion_replies r JOIN (SELECT id FROM discussions WHERE pull_request_id = ?"
    " ORDER BY id LIMIT ? OFFSET ?) p ON p.id = r.discussion_id) x"
    " JOIN users u ON u.id = x.author_id WHERE x.rn <= 3 ORDER BY x.discussion_id, x.id";
static const char SQL_DISCUSSION_GET[] =
    DISCUSSION_COLS("d.body", "0") ", d.anchor_context"
    DISCUSSION_FROM "WHERE d.pull_request_id = ? AND d.id = ?";
static const char SQL_DISCUSSION_LOCK[] =
    DISCUSSION_COLS_N("''", "0", "0") DISCUSSION_FROM
    "WHERE d.pull_request_id = ? AND d.id = ? FOR UPDATE";
static const char SQL_REPLY_LIST[] =
    "SELECT r.id, u.login, r.body, " DB_DATE("r.created_at")
    " FROM discussion_replies r JOIN users u ON u.id = r.author_id"
    " WHERE r.discussion_id = ? ORDER BY r.id LIMIT ? OFFSET ?";
static const char SQL_DISCUSSION_INSERT[] =
    "INSERT INTO discussions (pull_request_id, author_id, version, path, line, side,"
    " anchor_context, body, created_at, updated_at)"
    " VALUES (?, ?, ?, ?, ?, ?, ?, ?, UTC_TIMESTAMP(), UTC_TIMESTAMP())";
static const char SQL_DISCUSSION_INSERT_GENERAL[] =
    "INSERT INTO discussions (pull_request_id, author_id, version, body, created_at,"
    " updated_at) VALUES (?, ?, ?, ?, UTC_TIMESTAMP(), UTC_TIMESTAMP())";
static const char SQL_DISCUSSION_TOUCH[] =
    "UPDATE discussions SET updated_at = UTC_TIMESTAMP() WHERE id = ?";
static const char SQL_REPLY_INSERT[] =
    "INSERT INTO discussion_replies (discussion_id, author_id, body, created_at)"
    " VALUES (?, ?, ?, UTC_TIMESTAMP())";
static const char SQL_DISCUSSION_STATE[] =
    "UPDATE discussions SET state = ?, state_version = state_version + 1,"
    " state_changed_by = ?, updated_at = UTC_TIMESTAMP() WHERE id = ? AND state_version = ?";

/* Columns 0..13 of DISCUSSION_COLS, then SQL_DISCUSSION_GET's anchor_context. */
static const struct db_col discussion_cols[] = {
	DB_U64(struct forge_discussion, id),
	DB_U64(struct forge_discussion, author_id),
	DB_CHARS(struct forge_discussion, author),
	DB_I64(struct forge_discussion, version),
	DB_STR(struct forge_discussion, path),
	DB_I64(struct forge_discussion, line),
	DB_CHARS(struct forge_discussion, side),
	DB_STR(struct forge_discussion, body),
	DB_BOOL(struct forge_discussion, cut),
	DB_CHARS(struct forge_discussion, state),
	DB_I64(struct forge_discussion, state_version),
	DB_I64(struct forge_discussion, replies_count),
	DB_CHARS(struct forge_discussion, created_at),
	DB_CHARS(struct forge_discussion, updated_at),
	DB_STR(struct forge_discussion, anchor_context),
};
static const struct db_shape discussion_shape =
    DB_SHAPE_N(struct forge_discussion, discussion_cols, 14);
static const struct db_shape discussion_get_shape =
    DB_SHAPE(struct forge_discussion, discussion_cols);

static const struct db_col reply_cols[] = {
	DB_U64(struct forge_reply, id),
	DB_CHARS(struct forge_reply, author),
	DB_STR(struct forge_reply, body),
	DB_CHARS(struct forge_reply, created_at),
};
static const struct db_shape reply_shape = DB_SHAPE(struct forge_reply, reply_cols);

/* The columns of SQL_DISCUSSION_RECENT: the discussion's id, then the reply. */
static const struct db_col recent_cols[] = {
	DB_SKIP,
	DB_U64(struct forge_reply, id),
	DB_CHARS(struct forge_reply, author),
	DB_STR(struct forge_reply, body),
	DB_BOOL(struct forge_reply, cut),
	DB_CHARS(struct forge_reply, created_at),
};
static const struct db_shape recent_shape = DB_SHAPE(struct forge_reply, recent_cols);

void
forge_reply_list_free(struct forge_reply *v, size_t n)
{
	db_map_free(&reply_shape, v, n);
}

void
forge_discussion_release(struct forge_discussion *d)
{
	if (d == NULL)
		return;
	db_row_release(&discussion_get_shape, d);
	forge_reply_list_free(d->recent, d->n_recent);
	d->recent = NULL;
	d->n_recent = 0;
}

void
forge_discussion_list_free(struct forge_discussion *v, size_t n)
{
	size_t	 i;

	if (v == NULL)
		return;
	for (i = 0; i < n; i++)
		forge_discussion_release(&v[i]);
	free(v);
}

/* Hands the recent replies (rows of SQL_DISCUSSION_RECENT) to their discussions. */
static int
attach_recent(struct forge_discussion *v, size_t n, const struct db_rows *r, struct err *e)
{
	uint64_t	 did;
	size_t		 i, j = 0;
	int		 rc;

	for (i = 0; i < r->n; i++) {
		did = db_to_u64(db_rows_get(r, i, 0));
		while (j < n && v[j].id < did)	/* both are in id order */
			j++;
		if (j == n)
			break;
		if (v[j].id != did)
			continue;
		if (v[j].recent == NULL &&
		    (v[j].recent = calloc(FORGE_RECENT_REPLIES, sizeof *v[j].recent)) == NULL)
			return err_set(e, ERR_NOMEM, "out of memory");
		if (v[j].n_recent == FORGE_RECENT_REPLIES)
			continue;
		if ((rc = db_row_fill(&v[j].recent[v[j].n_recent++], &recent_shape, r, i,
		    e)) != 0)
			return rc;
	}
	return 0;
}

int
forge_discussion_list(struct db *db, struct forge_discussion **out, size_t *n,
    uint64_t pull_request_id, int64_t offset, int limit, struct err *e)
{
	struct db_rows	 r = { 0 };
	void		*v = NULL;
	size_t		 got = 0;
	int		 rc;

	*out = NULL;
	*n = 0;
	if (offset < 0)
		offset = 0;
	if ((rc = db_map(db, DB_RETRY, SQL_DISCUSSION_LIST, &discussion_shape, &v, &got, e,
	    "uii", pull_request_id, (int64_t)limit, offset)) != 0 || got == 0)
		goto done;
	if ((rc = db_run(db, DB_RETRY, SQL_DISCUSSION_RECENT, &r, NULL, NULL, e, "uii",
	    pull_request_id, (int64_t)limit, offset)) != 0)
		goto done;
	if ((rc = attach_recent(v, got, &r, e)) != 0)
		goto done;
	*out = v;
	*n = got;
	v = NULL;
done:
	forge_discussion_list_free(v, got);
	db_rows_release(&r);
	return rc;
}

/* One discussion by SQL_DISCUSSION_GET (with its anchor context) or SQL_DISCUSSION_LOCK. */
static int
discussion_one(struct db *db, const char *sql, const struct db_shape *shape,
    enum db_retry retry, struct forge_discussion *out, uint64_t pull_request_id, uint64_t id,
    struct err *e)
{
	struct db_rows	 r = { 0 };
	int		 rc;

	memset(out, 0, sizeof *out);
	if ((rc = db_run(db, retry, sql, &r, NULL, NULL, e, "uu", pull_request_id, id)) != 0)
		goto done;
	if (r.n == 0) {
		rc = ERR_NOTFOUND;
		goto done;
	}
	rc = db_row_fill(out, shape, &r, 0, e);
done:
	db_rows_release(&r);
	return rc;
}

int
forge_discussion_get(struct db *db, struct forge_discussion *out, uint64_t pull_request_id,
    uint64_t id, struct err *e)
{
	return discussion_one(db, SQL_DISCUSSION_GET, &discussion_get_shape, DB_RETRY, out,
	    pull_request_id, id, e);
}

int
forge_discussion_lock(struct db *db, struct forge_discussion *out, uint64_t pull_request_id,
    uint64_t id, struct err *e)
{
	return discussion_one(db, SQL_DISCUSSION_LOCK, &discussion_shape, DB_ONCE, out,
	    pull_request_id, id, e);
}

int
forge_reply_list(struct db *db, struct forge_reply **out, size_t *n, uint64_t id,
    int64_t offset, int limit, struct err *e)
{
	void	*v;
	int	 rc;

	if (offset < 0)
		offset = 0;
	rc = db_map(db, DB_RETRY, SQL_REPLY_LIST, &reply_shape, &v, n, e, "uii", id,
	    (int64_t)limit, offset);
	*out = v;
	return rc;
}

int
forge_discussion_insert(struct db *db, uint64_t *id, uint64_t pull_request_id,
    uint64_t author_id, int64_t version, const char *path, int64_t line, const char *side,
    const char *anchor_context, const char *body, struct err *e)
{
	int	 rc;

	*id = 0;
	if (path == NULL)
		rc = db_run(db, DB_ONCE, SQL_DISCUSSION_INSERT_GENERAL, NULL, NULL, id, e, "uuis",
		    pull_request_id, author_id, version, body);
	else
		rc = db_run(db, DB_ONCE, SQL_DISCUSSION_INSERT, NULL, NULL, id, e, "uuisisss",
		    pull_request_id, author_id, version, path, line, side, anchor_context, body);
	return rc == ERR_EXISTS ? err_set(e, ERR_INTERNAL, "duplicate discussion id") : rc;
}

int
forge_reply_insert(struct db *db, uint64_t *out, uint64_t id, uint64_t author_id,
    const char *body, struct err *e)
{
	int	 rc;

	*out = 0;
	/* the discussion's exclusive row lock first: replies to one discussion queue up */
	if ((rc = db_run(db, DB_ONCE, SQL_DISCUSSION_TOUCH, NULL, NULL, NULL, e, "u", id)) != 0)
		return rc;
	rc = db_run(db, DB_ONCE, SQL_REPLY_INSERT, NULL, NULL, out, e, "uus", id, author_id, body);
	return rc == ERR_EXISTS ? err_set(e, ERR_INTERNAL, "duplicate reply id") : rc;
}

int
forge_discussion_set_state(struct db *db, int *stale, uint64_t id, int64_t expect,
    int resolved, uint64_t user_id, struct err *e)
{
	uint64_t	 affected = 0;
	int		 rc;

	*stale = 0;
	if ((rc = db_run(db, DB_ONCE, SQL_DISCUSSION_STATE, NULL, &affected, NULL, e, "suui",
	    resolved ? "resolved" : "open", user_id, id, expect)) != 0)
		return rc;
	*stale = affected == 0;
	return 0;
}
