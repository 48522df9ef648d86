/* db_inbox: the MySQL queries behind a user's notifications (the inbox). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "err.h"
#include "store/db-internal.h"
#include "store/db_inbox.h"
#include "store/db_forge.h"

/*
 * The repository r is visible to the notification's user: public, owned,
 * or shared with them (the rule of db_repo_find_visible), with c the
 * collaborators row of that user.
 */
#define INBOX_VISIBLE_JOIN \
    "JOIN repositories r ON r.id = n.repo_id " \
    "LEFT JOIN collaborators c ON c.repo_id = r.id AND c.user_id = n.user_id "
#define INBOX_VISIBLE \
    "(r.private = 0 OR r.owner_id = n.user_id OR c.user_id IS NOT NULL)"

static const char SQL_USER_ID[] =
    "SELECT id FROM users WHERE login = ?";
static const char SQL_ISSUE_AUTHOR[] =
    "SELECT author_id FROM issues WHERE id = ?";
static const char SQL_PULL_AUTHOR[] =
    "SELECT author_id FROM pull_requests WHERE id = ?";
/*
 * Inserts only when user ? can see repository ?: nobody is told of a
 * repository they cannot read.  Parameters: user, reason, issue,
 * pull request, actor, comment, then the repository and the user again.
 */
static const char SQL_NOTIFY_INSERT[] =
    "INSERT INTO notifications (user_id, reason, repo_id, issue_id, pull_request_id,"
    " actor_id, comment_id, created_at)"
    " SELECT ?, ?, r.id, ?, ?, ?, ?, UTC_TIMESTAMP() FROM repositories r"
    " LEFT JOIN collaborators c ON c.repo_id = r.id AND c.user_id = ?"
    " WHERE r.id = ? AND (r.private = 0 OR r.owner_id = ? OR c.user_id IS NOT NULL)";
static const char SQL_INBOX_LIST[] =
    "SELECT n.id, n.reason, o.login, r.name, n.pull_request_id IS NOT NULL,"
    " COALESCE(i.number, p.number), COALESCE(i.title, p.title), a.login, n.comment_id, "
    DB_DATE("n.created_at") ", " DB_DATE("n.read_at")
    " FROM notifications n " INBOX_VISIBLE_JOIN
    "JOIN users o ON o.id = r.owner_id"
    " JOIN users a ON a.id = n.actor_id"
    " LEFT JOIN issues i ON i.id = n.issue_id"
    " LEFT JOIN pull_requests p ON p.id = n.pull_request_id"
    " WHERE n.user_id = ? AND (? = 0 OR n.read_at IS NULL) AND " INBOX_VISIBLE
    " ORDER BY n.id DESC LIMIT ? OFFSET ?";
static const char SQL_INBOX_UNREAD[] =
    "SELECT COUNT(*) FROM notifications n " INBOX_VISIBLE_JOIN
    "WHERE n.user_id = ? AND n.read_at IS NULL AND " INBOX_VISIBLE;
static const char SQL_INBOX_MARK_ONE[] =
    "UPDATE notifications n " INBOX_VISIBLE_JOIN
    "SET n.read_at = UTC_TIMESTAMP()"
    " WHERE n.id = ? AND n.user_id = ? AND n.read_at IS NULL AND " INBOX_VISIBLE;
static const char SQL_INBOX_MARK_ALL[] =
    "UPDATE notifications n " INBOX_VISIBLE_JOIN
    "SET n.read_at = UTC_TIMESTAMP()"
    " WHERE n.user_id = ? AND n.read_at IS NULL AND " INBOX_VISIBLE;
static const char SQL_INBOX_FIND[] =
    "SELECT n.id FROM notifications n " INBOX_VISIBLE_JOIN
    "WHERE n.id = ? AND n.user_id = ? AND " INBOX_VISIBLE;

static const char *const reason_names[FORGE_REASON__MAX] = {
	"mention",		/* FORGE_REASON_MENTION */
	"comment",		/* FORGE_REASON_COMMENT */
	"reply",		/* FORGE_REASON_REPLY */
	"merged",		/* FORGE_REASON_MERGED */
	"review_requested",	/* FORGE_REASON_REVIEW_REQUESTED */
};

int
forge_user_id(struct db *db, uint64_t *out, const char *login, struct err *e)
{
	struct db_rows	 r = { 0 };
	int		 rc;

	*out = 0;
	if ((rc = db_run(db, DB_ONCE, SQL_USER_ID, &r, NULL, NULL, e, "s", login)) != 0)
		goto done;
	if (r.n > 0)
		*out = db_to_u64(db_rows_get(&r, 0, 0));
done:
	db_rows_release(&r);
	return rc;
}

int
forge_item_author(struct db *db, uint64_t *out, enum forge_kind kind, uint64_t id,
    struct err *e)
{
	struct db_rows	 r = { 0 };
	int		 rc;

	*out = 0;
	if ((rc = db_run(db, DB_ONCE, kind == FORGE_KIND_PULL ? SQL_PULL_AUTHOR :
	    SQL_ISSUE_AUTHOR, &r, NULL, NULL, e, "u", id)) != 0)
		goto done;
	if (r.n > 0)
		*out = db_to_u64(db_rows_get(&r, 0, 0));
done:
	db_rows_release(&r);
	return rc;
}

int
forge_notification_insert(struct db *db, uint64_t *id, uint64_t user_id,
    enum forge_reason reason, uint64_t repo_id, enum forge_kind kind, uint64_t parent_id,
    uint64_t actor_id, uint64_t comment_id, struct err *e)
{
	uint64_t	 issue = kind == FORGE_KIND_PULL ? 0 : parent_id;
	uint64_t	 pull = kind == FORGE_KIND_PULL ? parent_id : 0;
	const char	*is = NULL, *pr = NULL, *cm = NULL;
	char		 ibuf[24], pbuf[24], cbuf[24];
	int		 rc;

	*id = 0;
	if (reason >= FORGE_REASON__MAX || parent_id == 0)
		return err_set(e, ERR_INTERNAL, "internal error: bad notification");
	/* NULL for "none": the 's' type binds a NULL pointer as SQL NULL. */
	if (issue != 0) {
		snprintf(ibuf, sizeof ibuf, "%llu", (unsigned long long)issue);
		is = ibuf;
	}
	if (pull != 0) {
		snprintf(pbuf, sizeof pbuf, "%llu", (unsigned long long)pull);
		pr = pbuf;
	}
	if (comment_id != 0) {
		snprintf(cbuf, sizeof cbuf, "%llu", (unsigned long long)comment_id);
		cm = cbuf;
	}
	rc = db_run(db, DB_ONCE, SQL_NOTIFY_INSERT, NULL, NULL, id, e, "usssusuuu", user_id,
	    reason_names[reason], is, pr, actor_id, cm, user_id, repo_id, user_id);
	return rc == ERR_EXISTS ? err_set(e, ERR_INTERNAL, "duplicate notification id") : rc;
}

/* Column 4, whether the subject is a pull request, becomes kind after the mapping. */
static const struct db_col notification_cols[] = {
	DB_U64(struct forge_notification, id),
	DB_CHARS(struct forge_notification, reason),
	DB_CHARS(struct forge_notification, owner),
	DB_CHARS(struct forge_notification, name),
	DB_SKIP,
	DB_I64(struct forge_notification, number),
	DB_TEXT(struct forge_notification, title),
	DB_CHARS(struct forge_notification, actor),
	DB_U64(struct forge_notification, comment_id),
	DB_CHARS(struct forge_notification, created_at),
	DB_CHARS(struct forge_notification, read_at),
};
static const struct db_shape notification_shape =
    DB_SHAPE(struct forge_notification, notification_cols);

void
forge_notification_list_free(struct forge_notification *v, size_t n)
{
	db_map_free(&notification_shape, v, n);
}

int
forge_notification_list(struct db *db, struct forge_notification **out, size_t *n,
    uint64_t user_id, int unread_only, int64_t offset, int limit, struct err *e)
{
	struct db_rows			 r = { 0 };
	struct forge_notification	*v;
	void				*p = NULL;
	size_t				 i;
	int				 rc;

	*out = NULL;
	*n = 0;
	if (offset < 0)
		offset = 0;
	if ((rc = db_run(db, DB_RETRY, SQL_INBOX_LIST, &r, NULL, NULL, e, "uiii", user_id,
	    (int64_t)(unread_only != 0), (int64_t)limit, offset)) != 0)
		goto done;
	if ((rc = db_rows_map(&p, n, &notification_shape, &r, r.n, e)) != 0)
		goto done;
	v = p;
	for (i = 0; i < *n; i++)
		v[i].kind = db_to_u64(db_rows_get(&r, i, 4)) != 0 ? FORGE_KIND_PULL :
		    FORGE_KIND_ISSUE;
	*out = v;
done:
	db_rows_release(&r);
	return rc;
}

int
forge_notification_unread(struct db *db, int64_t *out, uint64_t user_id, struct err *e)
{
	struct db_rows	 r = { 0 };
	int		 rc;

	*out = 0;
	if ((rc = db_run(db, DB_RETRY, SQL_INBOX_UNREAD, &r, NULL, NULL, e, "u", user_id)) != 0)
		goto done;
	if (r.n > 0)
		*out = (int64_t)db_to_u64(db_rows_get(&r, 0, 0));
done:
	db_rows_release(&r);
	return rc;
}

int
forge_notification_mark(struct db *db, uint64_t *changed, uint64_t user_id, uint64_t id,
    struct err *e)
{
	struct db_rows	 r = { 0 };
	int		 rc;

	*changed = 0;
	if (id == 0)
		return db_run(db, DB_ONCE, SQL_INBOX_MARK_ALL, NULL, changed, NULL, e, "u",
		    user_id);
	if ((rc = db_run(db, DB_ONCE, SQL_INBOX_MARK_ONE, NULL, changed, NULL, e, "uu", id,
	    user_id)) != 0 || *changed != 0)
		return rc;
	/* Nothing changed: already read, or not one of the caller's. */
	if ((rc = db_run(db, DB_ONCE, SQL_INBOX_FIND, &r, NULL, NULL, e, "uu", id,
	    user_id)) != 0)
		goto done;
	if (r.n == 0)
		rc = err_set(e, ERR_NOTFOUND, "notification %llu not found: list_inbox gives "
		    "the ids of your notifications", (unsigned long long)id);
done:
	db_rows_release(&r);
	return rc;
}
