/* db_revisions: the MySQL queries behind pull request revisions and pull request edits. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "err.h"
#include "store/db-internal.h"
#include "store/forge.h"

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

static void
status_from(struct forge_pull_status *out, const struct db_rows *r, size_t col)
{
	const char	*mc;

	out->version = (int64_t)db_to_u64(db_rows_get(r, 0, col));
	db_copy_str(out->merge_state, sizeof out->merge_state, db_rows_get(r, 0, col + 1));
	mc = db_rows_get(r, 0, col + 2);
	db_copy_str(out->merge_commit, sizeof out->merge_commit, mc != NULL ? mc : "");
}

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
	status_from(out, &r, 0);
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
	const char	*mb;
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
	out->version = (int64_t)db_to_u64(db_rows_get(&r, 0, 0));
	db_copy_str(out->head_commit, sizeof out->head_commit, db_rows_get(&r, 0, 1));
	db_copy_str(out->base_ref, sizeof out->base_ref, db_rows_get(&r, 0, 2));
	db_copy_str(out->base_commit, sizeof out->base_commit, db_rows_get(&r, 0, 3));
	mb = db_rows_get(&r, 0, 4);
	db_copy_str(out->merge_base, sizeof out->merge_base, mb != NULL ? mb : "");
	db_copy_str(out->reason, sizeof out->reason, db_rows_get(&r, 0, 5));
	db_copy_str(out->created_at, sizeof out->created_at, db_rows_get(&r, 0, 6));
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
	const char	*title, *body, *closing;
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
	title = db_rows_get(&r, 0, 4);
	body = db_rows_get(&r, 0, 5);
	closing = db_rows_get(&r, 0, 9);
	out->id = db_to_u64(db_rows_get(&r, 0, 0));
	out->number = (int64_t)db_to_u64(db_rows_get(&r, 0, 1));
	out->author_id = db_to_u64(db_rows_get(&r, 0, 2));
	out->edit_version = (int64_t)db_to_u64(db_rows_get(&r, 0, 3));
	db_copy_str(out->state, sizeof out->state, db_rows_get(&r, 0, 6));
	db_copy_str(out->head, sizeof out->head, db_rows_get(&r, 0, 7));
	db_copy_str(out->base, sizeof out->base, db_rows_get(&r, 0, 8));
	out->draft = db_to_u64(db_rows_get(&r, 0, 10)) != 0;
	out->linked_issue = (int64_t)db_to_u64(db_rows_get(&r, 0, 11));
	status_from(st, &r, 12);
	if ((out->title = strdup(title != NULL ? title : "")) == NULL ||
	    (body != NULL && (out->body = strdup(body)) == NULL) ||
	    (closing != NULL && (out->closing = strdup(closing)) == NULL)) {
		forge_item_release(out);
		rc = err_set(e, ERR_NOMEM, "out of memory");
	}
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
