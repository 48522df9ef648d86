/* db_revisions: the MySQL queries behind pull request revisions and pull request edits. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "err.h"
#include "store/db-internal.h"
#include "store/db_revisions.h"
#include "store/db_forge.h"

#define REVISION_COLS \
    "SELECT version, head_commit, base_ref, base_commit, merge_base, reason, " \
    DB_DATE("created_at") " FROM pull_request_revisions "

static const char SQL_STATUS_GET[] =
    "SELECT version, merge_state, merge_commit FROM pull_requests WHERE id = ?";
static const char SQL_STATUS_LOCK[] =
    "SELECT version, merge_state, merge_commit FROM pull_requests WHERE id = ? FOR UPDATE";
static const char SQL_REVISION_GET[] =
    REVISION_COLS "WHERE pull_request_id = ? AND version = ?";
static const char SQL_REVISION_LATEST[] =
    REVISION_COLS "WHERE pull_request_id = ? ORDER BY version DESC LIMIT 1";
static const char SQL_REVISION_INSERT[] =
    "INSERT INTO pull_request_revisions (pull_request_id, version, head_commit, base_ref,"
    " base_commit, merge_base, reason) VALUES (?, ?, ?, ?, ?, NULLIF(?, ''), ?)";
static const char SQL_REVISION_CURRENT[] =
    "UPDATE pull_requests SET version = ? WHERE id = ?";
static const char SQL_PULL_LOCK[] =
    "SELECT id, number, author_id, edit_version, title, body, state, head_ref, base_ref,"
    " closing_issue_numbers, draft, linked_issue, version, merge_state, merge_commit"
    " FROM pull_requests WHERE repo_id = ? AND number = ? FOR UPDATE";
static const char SQL_PULL_UPDATE[] =
    "UPDATE pull_requests SET title = ?, body = ?, base_ref = ?, closing_issue_numbers = ?,"
    " edit_version = edit_version + 1, updated_at = UTC_TIMESTAMP()"
    " WHERE id = ? AND edit_version = ?";

static const char SQL_PULL_STATE[] =
    "UPDATE pull_requests SET state = IF(? <> 0, 'closed', 'open'),"
    " closed_at = IF(? <> 0, UTC_TIMESTAMP(), NULL), updated_at = UTC_TIMESTAMP()"
    " WHERE id = ? AND state <> 'merged'";

static const struct db_col status_cols[] = {
	DB_I64(struct forge_pull_status, version),
	DB_CHARS(struct forge_pull_status, merge_state),
	DB_CHARS(struct forge_pull_status, merge_commit),
};
static const struct db_shape status_shape = DB_SHAPE(struct forge_pull_status, status_cols);

static const struct db_col revision_cols[] = {
	DB_I64(struct forge_revision, version),
	DB_CHARS(struct forge_revision, head_commit),
	DB_CHARS(struct forge_revision, base_ref),
	DB_CHARS(struct forge_revision, base_commit),
	DB_CHARS(struct forge_revision, merge_base),
	DB_CHARS(struct forge_revision, reason),
	DB_CHARS(struct forge_revision, created_at),
};
static const struct db_shape revision_shape = DB_SHAPE(struct forge_revision, revision_cols);

/* The columns of SQL_PULL_LOCK up to linked_issue; the last three are the status's. */
static const struct db_col pull_lock_cols[] = {
	DB_U64(struct forge_item, id),
	DB_I64(struct forge_item, number),
	DB_U64(struct forge_item, author_id),
	DB_I64(struct forge_item, edit_version),
	DB_TEXT(struct forge_item, title),
	DB_STR(struct forge_item, body),
	DB_CHARS(struct forge_item, state),
	DB_CHARS(struct forge_item, head),
	DB_CHARS(struct forge_item, base),
	DB_STR(struct forge_item, closing),
	DB_BOOL(struct forge_item, draft),
	DB_I64(struct forge_item, linked_issue),
	DB_SKIP,
	DB_SKIP,
	DB_SKIP,
};
static const struct db_shape pull_lock_shape = DB_SHAPE(struct forge_item, pull_lock_cols);

static int
status_run(struct db *db, enum db_retry retry, const char *sql, struct forge_pull_status *out,
    uint64_t pull_id, struct err *e)
{
	struct db_rows	 r = { 0 };
	int		 rc;

	memset(out, 0, sizeof *out);
	if ((rc = db_run(db, retry, sql, &r, NULL, NULL, e, "u", pull_id)) != 0)
		goto done;
	if (r.n == 0) {
		rc = ERR_NOTFOUND;
		goto done;
	}
	rc = db_row_fill(out, &status_shape, &r, 0, e);
done:
	db_rows_release(&r);
	return rc;
}

int
forge_pull_status_get(struct db *db, struct forge_pull_status *out, uint64_t pull_id,
    struct err *e)
{
	return status_run(db, DB_RETRY, SQL_STATUS_GET, out, pull_id, e);
}

int
forge_revision_lock(struct db *db, struct forge_pull_status *out, uint64_t pull_id,
    struct err *e)
{
	return status_run(db, DB_ONCE, SQL_STATUS_LOCK, out, pull_id, e);
}

int
forge_revision_get(struct db *db, struct forge_revision *out, uint64_t pull_id,
    int64_t version, struct err *e)
{
	struct db_rows	 r = { 0 };
	int		 rc;

	memset(out, 0, sizeof *out);
	if (version > 0)
		rc = db_run(db, db->in_tx ? DB_ONCE : DB_RETRY, SQL_REVISION_GET, &r, NULL, NULL,
		    e, "ui", pull_id, version);
	else
		rc = db_run(db, db->in_tx ? DB_ONCE : DB_RETRY, SQL_REVISION_LATEST, &r, NULL,
		    NULL, e, "u", pull_id);
	if (rc != 0)
		goto done;
	if (r.n == 0) {
		rc = ERR_NOTFOUND;
		goto done;
	}
	rc = db_row_fill(out, &revision_shape, &r, 0, e);
done:
	db_rows_release(&r);
	return rc;
}

int
forge_revision_insert(struct db *db, uint64_t pull_id, const struct forge_revision *rev,
    struct err *e)
{
	int	 rc;

	if ((rc = db_run(db, DB_ONCE, SQL_REVISION_INSERT, NULL, NULL, NULL, e, "uisssss",
	    pull_id, rev->version, rev->head_commit, rev->base_ref, rev->base_commit,
	    rev->merge_base, rev->reason)) != 0)
		return rc;
	return db_run(db, DB_ONCE, SQL_REVISION_CURRENT, NULL, NULL, NULL, e, "iu", rev->version,
	    pull_id);
}

int
forge_pull_lock(struct db *db, struct forge_item *out, struct forge_pull_status *st,
    uint64_t repo_id, int64_t number, struct err *e)
{
	struct db_rows	 r = { 0 };
	int		 rc;

	memset(out, 0, sizeof *out);
	memset(st, 0, sizeof *st);
	if ((rc = db_run(db, DB_ONCE, SQL_PULL_LOCK, &r, NULL, NULL, e, "ui", repo_id,
	    number)) != 0)
		goto done;
	if (r.n == 0) {
		rc = ERR_NOTFOUND;
		goto done;
	}
	if ((rc = db_row_fill(out, &pull_lock_shape, &r, 0, e)) != 0)
		goto done;
	/* Columns 12 to 14: the status, as SQL_STATUS_GET gives it. */
	st->version = (int64_t)db_to_u64(db_rows_get(&r, 0, 12));
	db_copy_str(st->merge_state, sizeof st->merge_state, db_rows_get(&r, 0, 13));
	db_copy_str(st->merge_commit, sizeof st->merge_commit, db_rows_get(&r, 0, 14));
done:
	db_rows_release(&r);
	return rc;
}

int
forge_pull_update(struct db *db, int *stale, uint64_t id, int64_t expect, const char *title,
    const char *body, const char *base, const char *closing, struct err *e)
{
	uint64_t	 affected = 0;
	int		 rc;

	*stale = 0;
	if ((rc = db_run(db, DB_ONCE, SQL_PULL_UPDATE, NULL, &affected, NULL, e, "ssssui", title,
	    body, base, closing, id, expect)) != 0)
		return rc;
	*stale = affected == 0;
	return 0;
}

int
forge_pull_set_state(struct db *db, uint64_t id, int closed, struct err *e)
{
	int64_t	 c = closed != 0;

	return db_run(db, DB_ONCE, SQL_PULL_STATE, NULL, NULL, NULL, e, "iiu", c, c, id);
}
