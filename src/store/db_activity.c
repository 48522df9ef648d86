/* db_activity: the MySQL queries behind the activity log and the issue lifecycle (edits, state). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "err.h"
#include "store/db-internal.h"
#include "store/db_activity.h"
#include "store/db_forge.h"

/* ---- the activity log ---- */

static const char *const event_names[FORGE_EVENT__MAX] = {
	"opened",	/* FORGE_EVENT_OPENED */
	"edited",	/* FORGE_EVENT_EDITED */
	"closed",	/* FORGE_EVENT_CLOSED */
	"reopened",	/* FORGE_EVENT_REOPENED */
	"commented",	/* FORGE_EVENT_COMMENTED */
	"merged",	/* FORGE_EVENT_MERGED */
	"merge_failed",	/* FORGE_EVENT_MERGE_FAILED */
};

static const char *const cause_names[FORGE_CAUSE__MAX] = {
	"user",		/* FORGE_CAUSE_USER */
	"merge",	/* FORGE_CAUSE_MERGE */
};

#define EVENT_INSERT(parent) \
    "INSERT INTO events (" parent ", actor_id, kind, cause, source_number, comment_id)" \
    " VALUES (?, ?, ?, ?, NULLIF(?, 0), NULLIF(?, 0))"
#define EVENT_COLS \
    "SELECT e.id, e.kind, e.cause, u.login, e.source_number, e.comment_id," \
    " IF(e.kind = 'commented', c.body, NULL), " DB_DATE("e.created_at") ", e.detail" \
    " FROM events e JOIN users u ON u.id = e.actor_id" \
    " LEFT JOIN comments c ON c.id = e.comment_id "

static const char SQL_EVENT_INSERT_ISSUE[] = EVENT_INSERT("issue_id");
static const char SQL_EVENT_INSERT_PULL[] = EVENT_INSERT("pull_request_id");
static const char SQL_EVENT_LIST_ISSUE[] =
    EVENT_COLS "WHERE e.issue_id = ? ORDER BY e.id LIMIT ? OFFSET ?";
static const char SQL_EVENT_LIST_PULL[] =
    EVENT_COLS "WHERE e.pull_request_id = ? ORDER BY e.id LIMIT ? OFFSET ?";

int
forge_event_insert(struct db *db, enum forge_kind kind, uint64_t parent_id, uint64_t actor_id,
    enum forge_event_kind what, enum forge_cause cause, int64_t source_number,
    uint64_t comment_id, struct err *e)
{
	if (what >= FORGE_EVENT__MAX || cause >= FORGE_CAUSE__MAX)
		return err_set(e, ERR_INTERNAL, "unknown event kind or cause");
	return db_run(db, DB_ONCE, kind == FORGE_KIND_PULL ? SQL_EVENT_INSERT_PULL :
	    SQL_EVENT_INSERT_ISSUE, NULL, NULL, NULL, e, "uussiu", parent_id, actor_id,
	    event_names[what], cause_names[cause], source_number < 0 ? 0 : source_number,
	    comment_id);
}

static const struct db_col event_cols[] = {
	DB_U64(struct forge_event, id),
	DB_CHARS(struct forge_event, kind),
	DB_CHARS(struct forge_event, cause),
	DB_CHARS(struct forge_event, actor),
	DB_I64(struct forge_event, source_number),
	DB_U64(struct forge_event, comment_id),
	DB_STR(struct forge_event, body),
	DB_CHARS(struct forge_event, created_at),
	DB_STR(struct forge_event, detail),
};
static const struct db_shape event_shape = DB_SHAPE(struct forge_event, event_cols);

void
forge_event_list_free(struct forge_event *v, size_t n)
{
	db_map_free(&event_shape, v, n);
}

int
forge_event_list(struct db *db, struct forge_event **out, size_t *n, int *has_more,
    enum forge_kind kind, uint64_t parent_id, int64_t page, struct err *e)
{
	struct db_rows	 r = { 0 };
	void		*v = NULL;
	int		 rc;

	*out = NULL;
	*n = 0;
	*has_more = 0;
	if (page < 1)
		page = 1;
	/* Past this page the offset would not fit; nothing is there anyway. */
	if (page > INT64_MAX / FORGE_EVENTS_PAGE)
		return 0;
	/* One row more than a page: whether it comes says whether a later page has any. */
	if ((rc = db_run(db, DB_RETRY, kind == FORGE_KIND_PULL ? SQL_EVENT_LIST_PULL :
	    SQL_EVENT_LIST_ISSUE, &r, NULL, NULL, e, "uii", parent_id,
	    (int64_t)FORGE_EVENTS_PAGE + 1, (page - 1) * FORGE_EVENTS_PAGE)) != 0)
		goto done;
	if ((rc = db_rows_map(&v, n, &event_shape, &r, FORGE_EVENTS_PAGE, e)) != 0)
		goto done;
	*out = v;
	*has_more = r.n > *n;
done:
	db_rows_release(&r);
	return rc;
}

/* ---- the issue lifecycle ---- */

static const char SQL_ISSUE_LOCK[] =
    "SELECT id, number, author_id, edit_version, title, body, state FROM issues"
    " WHERE repo_id = ? AND number = ? FOR UPDATE";
static const char SQL_ISSUE_UPDATE[] =
    "UPDATE issues SET title = ?, body = ?, edit_version = edit_version + 1,"
    " updated_at = UTC_TIMESTAMP() WHERE id = ? AND edit_version = ?";
static const char SQL_ISSUE_STATE[] =
    "UPDATE issues SET state = IF(? <> 0, 'closed', 'open'),"
    " closed_at = IF(? <> 0, UTC_TIMESTAMP(), NULL), updated_at = UTC_TIMESTAMP()"
    " WHERE id = ?";

/* The columns of SQL_ISSUE_LOCK. */
static const struct db_col issue_lock_cols[] = {
	DB_U64(struct forge_item, id),
	DB_I64(struct forge_item, number),
	DB_U64(struct forge_item, author_id),
	DB_I64(struct forge_item, edit_version),
	DB_TEXT(struct forge_item, title),
	DB_STR(struct forge_item, body),
	DB_CHARS(struct forge_item, state),
};
static const struct db_shape issue_lock_shape = DB_SHAPE(struct forge_item, issue_lock_cols);

int
forge_issue_lock(struct db *db, struct forge_item *out, uint64_t repo_id, int64_t number,
    struct err *e)
{
	struct db_rows	 r = { 0 };
	int		 rc;

	memset(out, 0, sizeof *out);
	if ((rc = db_run(db, DB_ONCE, SQL_ISSUE_LOCK, &r, NULL, NULL, e, "ui", repo_id,
	    number)) != 0)
		goto done;
	if (r.n == 0) {
		rc = ERR_NOTFOUND;
		goto done;
	}
	rc = db_row_fill(out, &issue_lock_shape, &r, 0, e);
done:
	db_rows_release(&r);
	return rc;
}

int
forge_issue_update(struct db *db, int *stale, uint64_t id, int64_t expect, const char *title,
    const char *body, struct err *e)
{
	uint64_t	 affected = 0;
	int		 rc;

	*stale = 0;
	if ((rc = db_run(db, DB_ONCE, SQL_ISSUE_UPDATE, NULL, &affected, NULL, e, "ssui", title,
	    body, id, expect)) != 0)
		return rc;
	*stale = affected == 0;
	return 0;
}

int
forge_issue_set_state(struct db *db, uint64_t id, int closed, struct err *e)
{
	return db_run(db, DB_ONCE, SQL_ISSUE_STATE, NULL, NULL, NULL, e, "iiu", (int64_t)closed,
	    (int64_t)closed, id);
}

/* ---- users ---- */

static const char SQL_USER_GET[] = "SELECT login, name FROM users WHERE id = ?";

int
forge_user_get(struct db *db, char login[65], char **name, uint64_t user_id, struct err *e)
{
	struct db_rows	 r = { 0 };
	const char	*nm;
	int		 rc;

	login[0] = '\0';
	*name = NULL;
	if ((rc = db_run(db, DB_RETRY, SQL_USER_GET, &r, NULL, NULL, e, "u", user_id)) != 0)
		goto done;
	if (r.n == 0) {
		rc = err_set(e, ERR_NOTFOUND, "the account of this token no longer exists");
		goto done;
	}
	db_copy_str(login, 65, db_rows_get(&r, 0, 0));
	if ((nm = db_rows_get(&r, 0, 1)) != NULL && (*name = strdup(nm)) == NULL)
		rc = err_set(e, ERR_NOMEM, "out of memory");
done:
	db_rows_release(&r);
	return rc;
}
