/* db_forge: the MySQL queries behind issues, pull requests, comments and repository roles. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "err.h"
#include "store/db.h"
#include "store/db-internal.h"
#include "store/db_forge.h"

/* ---- roles ---- */

static const char SQL_ROLE[] =
    "SELECT r.owner_id = ?, c.role FROM repositories r"
    " LEFT JOIN collaborators c ON c.repo_id = r.id AND c.user_id = ?"
    " WHERE r.id = ?";

static const char *const role_names[FORGE_ROLE__MAX] = {
	"none",		/* FORGE_ROLE_NONE */
	"reader",	/* FORGE_ROLE_READER */
	"writer",	/* FORGE_ROLE_WRITER */
	"manager",	/* FORGE_ROLE_MANAGER */
	"owner",	/* FORGE_ROLE_OWNER */
};

const char *
forge_role_name(enum forge_role r)
{
	return r < FORGE_ROLE__MAX ? role_names[r] : "none";
}

int
forge_role(struct db *db, enum forge_role *out, uint64_t repo_id, uint64_t user_id,
    struct err *e)
{
	struct db_rows	 r = { 0 };
	const char	*role;
	int		 rc, i;

	*out = FORGE_ROLE_NONE;
	if ((rc = db_run(db, DB_RETRY, SQL_ROLE, &r, NULL, NULL, e, "uuu", user_id, user_id,
	    repo_id)) != 0)
		goto done;
	if (r.n == 0)
		goto done;
	if (db_to_u64(db_rows_get(&r, 0, 0)) != 0) {
		*out = FORGE_ROLE_OWNER;
		goto done;
	}
	if ((role = db_rows_get(&r, 0, 1)) == NULL)
		goto done;
	for (i = FORGE_ROLE_READER; i < FORGE_ROLE_OWNER; i++)
		if (strcmp(role, role_names[i]) == 0)
			*out = (enum forge_role)i;
done:
	db_rows_release(&r);
	return rc;
}

/* ---- issues and pull requests ---- */

#define ISSUE_COLS(body) \
    "SELECT i.id, i.number, i.title, " body ", i.state, u.login, '', '', " \
    DB_DATE("i.created_at") ", " DB_DATE("i.updated_at") ", " DB_DATE("i.closed_at") \
    ", NULL, i.author_id, i.edit_version, 0, NULL, NULL" \
    " FROM issues i JOIN users u ON u.id = i.author_id "
#define PULL_COLS(body) \
    "SELECT i.id, i.number, i.title, " body ", i.state, u.login, i.head_ref, i.base_ref, " \
    DB_DATE("i.created_at") ", " DB_DATE("i.updated_at") ", " DB_DATE("i.closed_at") \
    ", " DB_DATE("i.merged_at") ", i.author_id, i.edit_version, i.draft, i.linked_issue," \
    " NULLIF(i.closing_issue_numbers, '') FROM pull_requests i JOIN users u ON u.id = i.author_id "
#define LIST_WHERE \
    "WHERE i.repo_id = ? AND (? IS NULL OR i.state = ?)" \
    " AND (? IS NULL OR i.title LIKE ? ESCAPE '!' OR i.body LIKE ? ESCAPE '!')" \
    " ORDER BY i.number DESC LIMIT ? OFFSET ?"

static const char SQL_ISSUE_LIST[] = ISSUE_COLS("NULL") LIST_WHERE;
static const char SQL_PULL_LIST[] = PULL_COLS("NULL") LIST_WHERE;
static const char SQL_ISSUE_GET[] = ISSUE_COLS("i.body") "WHERE i.repo_id = ? AND i.number = ?";
static const char SQL_PULL_GET[] = PULL_COLS("i.body") "WHERE i.repo_id = ? AND i.number = ?";
static const char SQL_NUMBER_KIND[] =
    "SELECT 1, id FROM issues WHERE repo_id = ? AND number = ?"
    " UNION ALL SELECT 2, id FROM pull_requests WHERE repo_id = ? AND number = ?";

void
forge_item_release(struct forge_item *it)
{
	if (it == NULL)
		return;
	free(it->title);
	free(it->body);
	free(it->closing);
	it->title = it->body = it->closing = NULL;
}

/* The columns of ISSUE_COLS and PULL_COLS. */
static const struct db_col item_cols[] = {
	DB_U64(struct forge_item, id),
	DB_I64(struct forge_item, number),
	DB_TEXT(struct forge_item, title),
	DB_STR(struct forge_item, body),
	DB_CHARS(struct forge_item, state),
	DB_CHARS(struct forge_item, author),
	DB_CHARS(struct forge_item, head),
	DB_CHARS(struct forge_item, base),
	DB_CHARS(struct forge_item, created_at),
	DB_CHARS(struct forge_item, updated_at),
	DB_CHARS(struct forge_item, closed_at),
	DB_CHARS(struct forge_item, merged_at),
	DB_U64(struct forge_item, author_id),
	DB_I64(struct forge_item, edit_version),
	DB_BOOL(struct forge_item, draft),
	DB_I64(struct forge_item, linked_issue),
	DB_STR(struct forge_item, closing),
};
static const struct db_shape item_shape = DB_SHAPE(struct forge_item, item_cols);

void
forge_item_list_free(struct forge_item *v, size_t n)
{
	db_map_free(&item_shape, v, n);
}

/* "%text%" with LIKE's wildcards and the escape character escaped by '!'. */
static char *
like_pattern(const char *q)
{
	char	*pat, *p;
	size_t	 i;

	if ((pat = malloc(strlen(q) * 2 + 3)) == NULL)
		return NULL;
	p = pat;
	*p++ = '%';
	for (i = 0; q[i] != '\0'; i++) {
		if (q[i] == '%' || q[i] == '_' || q[i] == '!')
			*p++ = '!';
		*p++ = q[i];
	}
	*p++ = '%';
	*p = '\0';
	return pat;
}

int
forge_item_list(struct db *db, struct forge_item **out, size_t *n, enum forge_kind kind,
    uint64_t repo_id, const char *state, const char *query, int64_t offset, int limit,
    struct err *e)
{
	void	*v = NULL;
	char	*pat = NULL;
	int	 rc;

	*out = NULL;
	*n = 0;
	if (offset < 0)
		offset = 0;
	if (query != NULL && query[0] != '\0' && (pat = like_pattern(query)) == NULL) {
		rc = err_set(e, ERR_NOMEM, "out of memory");
		goto done;
	}
	rc = db_map(db, DB_RETRY, kind == FORGE_KIND_PULL ? SQL_PULL_LIST : SQL_ISSUE_LIST,
	    &item_shape, &v, n, e, "usssssii", repo_id, state, state, pat, pat, pat,
	    (int64_t)limit, offset);
	*out = v;
done:
	free(pat);
	return rc;
}

int
forge_item_get(struct db *db, struct forge_item *out, enum forge_kind kind, uint64_t repo_id,
    int64_t number, struct err *e)
{
	struct db_rows	 r = { 0 };
	int		 rc;

	memset(out, 0, sizeof *out);
	rc = db_run(db, DB_RETRY, kind == FORGE_KIND_PULL ? SQL_PULL_GET : SQL_ISSUE_GET, &r,
	    NULL, NULL, e, "ui", repo_id, number);
	if (rc != 0)
		goto done;
	if (r.n == 0) {
		rc = ERR_NOTFOUND;
		goto done;
	}
	rc = db_row_fill(out, &item_shape, &r, 0, e);
done:
	db_rows_release(&r);
	return rc;
}

int
forge_number_kind(struct db *db, enum forge_kind *out, uint64_t *id, uint64_t repo_id,
    int64_t number, struct err *e)
{
	struct db_rows	 r = { 0 };
	int		 rc;

	*out = FORGE_KIND_NONE;
	*id = 0;
	if ((rc = db_run(db, DB_RETRY, SQL_NUMBER_KIND, &r, NULL, NULL, e, "uiui", repo_id,
	    number, repo_id, number)) != 0)
		goto done;
	if (r.n > 0) {
		*out = db_to_u64(db_rows_get(&r, 0, 0)) == 2 ? FORGE_KIND_PULL : FORGE_KIND_ISSUE;
		*id = db_to_u64(db_rows_get(&r, 0, 1));
	}
done:
	db_rows_release(&r);
	return rc;
}

/* ---- comments ---- */

#define COMMENT_COLS \
    "SELECT c.id, u.login, c.body, " DB_DATE("c.created_at") \
    " FROM comments c JOIN users u ON u.id = c.author_id "

static const char SQL_COMMENT_COUNT_ISSUE[] =
    "SELECT COUNT(*) FROM comments WHERE issue_id = ?";
static const char SQL_COMMENT_COUNT_PULL[] =
    "SELECT COUNT(*) FROM comments WHERE pull_request_id = ?";
static const char SQL_COMMENT_LIST_ISSUE[] =
    COMMENT_COLS "WHERE c.issue_id = ? ORDER BY c.id LIMIT ? OFFSET ?";
static const char SQL_COMMENT_LIST_PULL[] =
    COMMENT_COLS "WHERE c.pull_request_id = ? ORDER BY c.id LIMIT ? OFFSET ?";

static const struct db_col comment_cols[] = {
	DB_U64(struct forge_comment, id),
	DB_CHARS(struct forge_comment, author),
	DB_TEXT(struct forge_comment, body),
	DB_CHARS(struct forge_comment, created_at),
};
static const struct db_shape comment_shape = DB_SHAPE(struct forge_comment, comment_cols);

void
forge_comment_list_free(struct forge_comment *v, size_t n)
{
	db_map_free(&comment_shape, v, n);
}

int
forge_comment_list(struct db *db, struct forge_comment **out, size_t *n, size_t *total,
    enum forge_kind kind, uint64_t parent_id, int64_t offset, int limit, struct err *e)
{
	struct db_rows	 r = { 0 };
	void		*v = NULL;
	int		 pull = kind == FORGE_KIND_PULL, rc;

	*out = NULL;
	*n = *total = 0;
	if (offset < 0)
		offset = 0;
	if ((rc = db_run(db, DB_RETRY, pull ? SQL_COMMENT_COUNT_PULL : SQL_COMMENT_COUNT_ISSUE,
	    &r, NULL, NULL, e, "u", parent_id)) != 0)
		goto done;
	*total = r.n > 0 ? (size_t)db_to_u64(db_rows_get(&r, 0, 0)) : 0;
	rc = db_map(db, DB_RETRY, pull ? SQL_COMMENT_LIST_PULL : SQL_COMMENT_LIST_ISSUE,
	    &comment_shape, &v, n, e, "uii", parent_id, (int64_t)limit, offset);
	*out = v;
done:
	db_rows_release(&r);
	return rc;
}

/* ---- writes ---- */

static const char SQL_NUMBER_LOCK[] =
    "SELECT next_number FROM repositories WHERE id = ? FOR UPDATE";
static const char SQL_NUMBER_ADVANCE[] =
    "UPDATE repositories SET next_number = next_number + 1 WHERE id = ?";
/* written, not only locked: on Galera two nodes then collide (020-written-locks.sql) */
static const char SQL_REPO_LOCK[] =
    "UPDATE repositories SET lock_count = lock_count + 1 WHERE id = ?";
static const char SQL_ISSUE_INSERT[] =
    "INSERT INTO issues (repo_id, number, author_id, title, body, state, created_at,"
    " updated_at) VALUES (?, ?, ?, ?, ?, 'open', UTC_TIMESTAMP(), UTC_TIMESTAMP())";
static const char SQL_PULL_INSERT[] =
    "INSERT INTO pull_requests (repo_id, number, author_id, title, body, state, head_ref,"
    " base_ref, draft, linked_issue, closing_issue_numbers, created_at, updated_at)"
    " VALUES (?, ?, ?, ?, ?, 'open', ?, ?, ?, NULLIF(?, 0), ?, UTC_TIMESTAMP(),"
    " UTC_TIMESTAMP())";
static const char SQL_PULL_FIND_OPEN[] =
    "SELECT number FROM pull_requests WHERE repo_id = ? AND head_ref = ? AND base_ref = ?"
    " AND state = 'open' ORDER BY number LIMIT 1";
static const char SQL_COMMENT_INSERT_ISSUE[] =
    "INSERT INTO comments (issue_id, author_id, body, created_at, updated_at)"
    " VALUES (?, ?, ?, UTC_TIMESTAMP(), UTC_TIMESTAMP())";
static const char SQL_COMMENT_INSERT_PULL[] =
    "INSERT INTO comments (pull_request_id, author_id, body, created_at, updated_at)"
    " VALUES (?, ?, ?, UTC_TIMESTAMP(), UTC_TIMESTAMP())";
static const char SQL_ISSUE_TOUCH[] =
    "UPDATE issues SET updated_at = UTC_TIMESTAMP() WHERE id = ?";
static const char SQL_PULL_TOUCH[] =
    "UPDATE pull_requests SET updated_at = UTC_TIMESTAMP() WHERE id = ?";

int
forge_repo_lock(struct db *db, uint64_t repo_id, struct err *e)
{
	uint64_t	 n = 0;
	int		 rc;

	if ((rc = db_run(db, DB_ONCE, SQL_REPO_LOCK, NULL, &n, NULL, e, "u", repo_id)) == 0 &&
	    n == 0)
		rc = err_set(e, ERR_NOTFOUND, "%s", DB_REPO_NOT_FOUND);
	return rc;
}

int
forge_number_next(struct db *db, int64_t *out, uint64_t repo_id, struct err *e)
{
	struct db_rows	 r = { 0 };
	int		 rc;

	*out = 0;
	if ((rc = db_run(db, DB_ONCE, SQL_NUMBER_LOCK, &r, NULL, NULL, e, "u", repo_id)) != 0)
		goto done;
	if (r.n == 0) {
		rc = err_set(e, ERR_NOTFOUND, "%s", DB_REPO_NOT_FOUND);
		goto done;
	}
	*out = (int64_t)db_to_u64(db_rows_get(&r, 0, 0));
	rc = db_run(db, DB_ONCE, SQL_NUMBER_ADVANCE, NULL, NULL, NULL, e, "u", repo_id);
done:
	db_rows_release(&r);
	return rc;
}

/* A duplicate number means the counter and the table disagree: a bug, not user input. */
static int
insert_failed(int rc, struct err *e)
{
	if (rc == ERR_EXISTS)
		return err_set(e, ERR_INTERNAL, "number already taken: the repository counter "
		    "is behind its issues and pull requests");
	return rc;
}

int
forge_issue_insert(struct db *db, uint64_t *id, uint64_t repo_id, int64_t number,
    uint64_t author_id, const char *title, const char *body, struct err *e)
{
	*id = 0;
	return insert_failed(db_run(db, DB_ONCE, SQL_ISSUE_INSERT, NULL, NULL, id, e, "uiuss",
	    repo_id, number, author_id, title, body), e);
}

int
forge_pull_insert(struct db *db, uint64_t *id, uint64_t repo_id, int64_t number,
    uint64_t author_id, const char *title, const char *body, const char *head,
    const char *base, int draft, int64_t linked_issue, const char *closing, struct err *e)
{
	*id = 0;
	return insert_failed(db_run(db, DB_ONCE, SQL_PULL_INSERT, NULL, NULL, id, e,
	    "uiussssiis", repo_id, number, author_id, title, body, head, base,
	    (int64_t)(draft != 0), linked_issue, closing), e);
}

int
forge_pull_find_open(struct db *db, int64_t *out, uint64_t repo_id, const char *head,
    const char *base, struct err *e)
{
	struct db_rows	 r = { 0 };
	int		 rc;

	*out = 0;
	if ((rc = db_run(db, DB_ONCE, SQL_PULL_FIND_OPEN, &r, NULL, NULL, e, "uss", repo_id,
	    head, base)) != 0)
		goto done;
	if (r.n > 0)
		*out = (int64_t)db_to_u64(db_rows_get(&r, 0, 0));
done:
	db_rows_release(&r);
	return rc;
}

int
forge_comment_insert(struct db *db, uint64_t *id, enum forge_kind kind, uint64_t parent_id,
    uint64_t author_id, const char *body, struct err *e)
{
	int	 pull = kind == FORGE_KIND_PULL, rc;

	*id = 0;
	/*
	 * Touch the parent first: its exclusive row lock comes before the
	 * shared one the foreign key check takes, so two comments on one issue
	 * queue up instead of deadlocking on a lock upgrade.
	 */
	if ((rc = db_run(db, DB_ONCE, pull ? SQL_PULL_TOUCH : SQL_ISSUE_TOUCH, NULL, NULL, NULL, e,
	    "u", parent_id)) != 0)
		return rc;
	rc = db_run(db, DB_ONCE, pull ? SQL_COMMENT_INSERT_PULL : SQL_COMMENT_INSERT_ISSUE, NULL,
	    NULL, id, e, "uus", parent_id, author_id, body);
	return rc == ERR_EXISTS ? err_set(e, ERR_INTERNAL, "duplicate comment id") : rc;
}
