/* db_discussions: the MySQL queries behind review discussions of pull requests (discussions, discussion_replies). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "err.h"
#include "store/db-internal.h"
#include "store/forge.h"

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

void
forge_reply_list_free(struct forge_reply *v, size_t n)
{
	size_t	 i;

	if (v == NULL)
		return;
	for (i = 0; i < n; i++)
		free(v[i].body);
	free(v);
}

void
forge_discussion_release(struct forge_discussion *d)
{
	if (d == NULL)
		return;
	free(d->path);
	free(d->anchor_context);
	free(d->body);
	forge_reply_list_free(d->recent, d->n_recent);
	d->path = d->anchor_context = d->body = NULL;
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

/* A copy of s, or NULL for NULL; *fail is set when a copy could not be made. */
static char *
dup_or_null(const char *s, int *fail)
{
	char	*c;

	if (s == NULL)
		return NULL;
	if ((c = strdup(s)) == NULL)
		*fail = 1;
	return c;
}

/* Fills *out from row i of a DISCUSSION_COLS result. */
static int
discussion_from_row(struct forge_discussion *out, const struct db_rows *r, size_t i)
{
	const char	*line = db_rows_get(r, i, 5), *sv = db_rows_get(r, i, 10);
	int		 fail = 0;

	memset(out, 0, sizeof *out);
	out->id = db_to_u64(db_rows_get(r, i, 0));
	out->author_id = db_to_u64(db_rows_get(r, i, 1));
	db_copy_str(out->author, sizeof out->author, db_rows_get(r, i, 2));
	out->version = (int64_t)db_to_u64(db_rows_get(r, i, 3));
	out->path = dup_or_null(db_rows_get(r, i, 4), &fail);
	out->line = line != NULL ? (int64_t)db_to_u64(line) : 0;
	db_copy_str(out->side, sizeof out->side, db_rows_get(r, i, 6));
	out->body = dup_or_null(db_rows_get(r, i, 7), &fail);
	out->cut = db_to_u64(db_rows_get(r, i, 8)) != 0;
	db_copy_str(out->state, sizeof out->state, db_rows_get(r, i, 9));
	out->state_version = sv != NULL ? (int64_t)db_to_u64(sv) : 0;
	out->replies_count = (int64_t)db_to_u64(db_rows_get(r, i, 11));
	db_copy_str(out->created_at, sizeof out->created_at, db_rows_get(r, i, 12));
	db_copy_str(out->updated_at, sizeof out->updated_at, db_rows_get(r, i, 13));
	if (r->ncols > 14)
		out->anchor_context = dup_or_null(db_rows_get(r, i, 14), &fail);
	return fail ? ERR_NOMEM : 0;
}

/* Hands the recent replies (rows of SQL_DISCUSSION_RECENT) to their discussions. */
static int
attach_recent(struct forge_discussion *v, size_t n, const struct db_rows *r)
{
	struct forge_reply	*rp;
	uint64_t		 did;
	size_t			 i, j = 0;
	int			 fail = 0;

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
			return ERR_NOMEM;
		if (v[j].n_recent == FORGE_RECENT_REPLIES)
			continue;
		rp = &v[j].recent[v[j].n_recent++];
		rp->id = db_to_u64(db_rows_get(r, i, 1));
		db_copy_str(rp->author, sizeof rp->author, db_rows_get(r, i, 2));
		rp->body = dup_or_null(db_rows_get(r, i, 3), &fail);
		rp->cut = db_to_u64(db_rows_get(r, i, 4)) != 0;
		db_copy_str(rp->created_at, sizeof rp->created_at, db_rows_get(r, i, 5));
		if (fail)
			return ERR_NOMEM;
	}
	return 0;
}

int
forge_discussion_list(struct db *db, struct forge_discussion **out, size_t *n,
    uint64_t pull_request_id, int64_t offset, int limit, struct err *e)
{
	struct db_rows		 r = { 0 }, rr = { 0 };
	struct forge_discussion	*v = NULL;
	size_t			 i, got = 0;
	int			 rc;

	*out = NULL;
	*n = 0;
	if (offset < 0)
		offset = 0;
	if ((rc = db_run(db, DB_RETRY, SQL_DISCUSSION_LIST, &r, NULL, NULL, e, "uii",
	    pull_request_id, (int64_t)limit, offset)) != 0 || r.n == 0)
		goto done;
	if ((v = calloc(r.n, sizeof *v)) == NULL) {
		rc = err_set(e, ERR_NOMEM, "out of memory");
		goto done;
	}
	for (i = 0; i < r.n; i++, got++)
		if (discussion_from_row(&v[i], &r, i) != 0) {
			got++;
			rc = err_set(e, ERR_NOMEM, "out of memory");
			goto done;
		}
	if ((rc = db_run(db, DB_RETRY, SQL_DISCUSSION_RECENT, &rr, NULL, NULL, e, "uii",
	    pull_request_id, (int64_t)limit, offset)) != 0)
		goto done;
	if (attach_recent(v, got, &rr) != 0) {
		rc = err_set(e, ERR_NOMEM, "out of memory");
		goto done;
	}
	*out = v;
	*n = got;
	v = NULL;
done:
	forge_discussion_list_free(v, got);
	db_rows_release(&rr);
	db_rows_release(&r);
	return rc;
}

/* One discussion by SQL_DISCUSSION_GET or SQL_DISCUSSION_LOCK. */
static int
discussion_one(struct db *db, const char *sql, enum db_retry retry,
    struct forge_discussion *out, uint64_t pull_request_id, uint64_t id, struct err *e)
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
	if (discussion_from_row(out, &r, 0) != 0) {
		forge_discussion_release(out);
		rc = err_set(e, ERR_NOMEM, "out of memory");
	}
done:
	db_rows_release(&r);
	return rc;
}

int
forge_discussion_get(struct db *db, struct forge_discussion *out, uint64_t pull_request_id,
    uint64_t id, struct err *e)
{
	return discussion_one(db, SQL_DISCUSSION_GET, DB_RETRY, out, pull_request_id, id, e);
}

int
forge_discussion_lock(struct db *db, struct forge_discussion *out, uint64_t pull_request_id,
    uint64_t id, struct err *e)
{
	return discussion_one(db, SQL_DISCUSSION_LOCK, DB_ONCE, out, pull_request_id, id, e);
}

int
forge_reply_list(struct db *db, struct forge_reply **out, size_t *n, uint64_t id,
    int64_t offset, int limit, struct err *e)
{
	struct db_rows		 r = { 0 };
	struct forge_reply	*v = NULL;
	size_t			 i;
	int			 rc, fail = 0;

	*out = NULL;
	*n = 0;
	if (offset < 0)
		offset = 0;
	if ((rc = db_run(db, DB_RETRY, SQL_REPLY_LIST, &r, NULL, NULL, e, "uii", id,
	    (int64_t)limit, offset)) != 0 || r.n == 0)
		goto done;
	if ((v = calloc(r.n, sizeof *v)) == NULL) {
		rc = err_set(e, ERR_NOMEM, "out of memory");
		goto done;
	}
	for (i = 0; i < r.n; i++) {
		v[i].id = db_to_u64(db_rows_get(&r, i, 0));
		db_copy_str(v[i].author, sizeof v[i].author, db_rows_get(&r, i, 1));
		v[i].body = dup_or_null(db_rows_get(&r, i, 2), &fail);
		db_copy_str(v[i].created_at, sizeof v[i].created_at, db_rows_get(&r, i, 3));
	}
	if (fail) {
		rc = err_set(e, ERR_NOMEM, "out of memory");
		goto done;
	}
	*out = v;
	*n = r.n;
	v = NULL;
done:
	forge_reply_list_free(v, r.n);
	db_rows_release(&r);
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
