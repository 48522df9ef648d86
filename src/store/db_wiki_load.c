/* db_wiki_load: the writes of the hub's wiki copy: its root, its syncs (db_wiki.h). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <json-c/json.h>

#include "err.h"
#include "store/db.h"
#include "store/db-internal.h"
#include "store/db_wiki.h"

/* written, not only locked: on Galera two nodes then collide (020-written-locks.sql) */
static const char SQL_TOUCH_PROJECT[] =
    "UPDATE tracker_projects SET lock_count = lock_count + 1 WHERE label = ?";
static const char SQL_LOCK_PROJECT[] =
    "SELECT id, wiki_root FROM tracker_projects WHERE label = ? FOR UPDATE";
static const char SQL_ROOT_SET[] =
    "UPDATE tracker_projects SET wiki_root = ?, wiki_root_by = NULLIF(?, 0) WHERE id = ?";
/* the sync queued (or with the second ? 1, also one running) */
static const char SQL_RUNNING[] =
    "SELECT c.batch_id FROM tracker_commands c JOIN tracker_batches b ON b.id = c.batch_id"
    " WHERE b.project_id = ? AND c.type = 'wiki_sync'"
    " AND (c.state = 'queued' OR (? AND c.state = 'claimed')) ORDER BY c.id LIMIT 1";
static const char SQL_BATCH_ADD[] =
    "INSERT INTO tracker_batches (project_id, title, author, created_at)"
    " VALUES (?, ?, ?, UTC_TIMESTAMP(3))";
static const char SQL_COMMAND_ADD[] =
    "INSERT INTO tracker_commands (batch_id, seq, type, params, state, updated_at)"
    " VALUES (?, 1, 'wiki_sync', ?, 'queued', UTC_TIMESTAMP(3))";
static const char SQL_COMMAND_END[] =
    "UPDATE tracker_commands SET state = ?, error = ?, result = ?,"
    " updated_at = UTC_TIMESTAMP(3) WHERE id = ?";
static const char SQL_PAGES_DROP[] =
    "DELETE FROM wiki_pages WHERE project_id = ?";
static const char SQL_PAGE_ADD[] =
    "INSERT INTO wiki_pages (project_id, code, title, parent_id, depth, ord, ord_end, path,"
    " body, chars, source, synced_at)"
    " VALUES (?, ?, ?, NULLIF(?, 0), ?, ?, ?, ?, ?, ?, ?, UTC_TIMESTAMP(3))";
static const char SQL_ATTACHMENT_ADD[] =
    "INSERT INTO wiki_attachments (page_id, name, size, mime, source, state)"
    " VALUES (?, ?, ?, ?, ?, 'remote')";
static const char SQL_RUN_ADD[] =
    "INSERT INTO wiki_sync_runs (project_id, command_id, root, state, pages, revision, error,"
    " started_at, finished_at) SELECT ?, ?, ?, ?, ?, ?, ?,"
    " COALESCE((SELECT claimed_at FROM tracker_commands WHERE id = ?), UTC_TIMESTAMP(3)),"
    " UTC_TIMESTAMP(3)";

/* Locks the project labelled label (its id and wiki root in r, no row when there is none). */
static int
lock_project(struct db *db, const char *label, struct db_rows *r, struct err *e)
{
	int	rc;

	if ((rc = db_run(db, DB_ONCE, SQL_TOUCH_PROJECT, NULL, NULL, NULL, e, "s", label)) != 0)
		return rc;
	return db_run(db, DB_ONCE, SQL_LOCK_PROJECT, r, NULL, NULL, e, "s", label);
}

/*
 * In the open transaction: queues a wiki sync batch of project id, or
 * finds the one queued (or with running, also one an agent runs).
 */
static int
wiki_queue_locked(struct db *db, uint64_t project, const char *label, const char *author,
    int running, uint64_t *batch, int *queued, struct err *e)
{
	struct db_rows		 r = { 0 };
	struct json_object	*params;
	char			 title[128];
	int			 rc;

	*queued = 0;
	if ((rc = db_run(db, DB_ONCE, SQL_RUNNING, &r, NULL, NULL, e, "ui", project,
	    (int64_t)(running != 0))) != 0)
		goto done;
	if (r.n > 0) {
		*batch = db_to_u64(db_rows_get(&r, 0, 0));
		goto done;
	}
	if ((params = json_object_new_object()) == NULL)
		return err_set(e, ERR_NOMEM, "out of memory");
	json_object_object_add(params, "project", json_object_new_string(label));
	snprintf(title, sizeof title, "wiki sync %s", label);
	if ((rc = db_run(db, DB_ONCE, SQL_BATCH_ADD, NULL, NULL, batch, e, "uss", project, title,
	    author)) == 0)
		rc = db_run(db, DB_ONCE, SQL_COMMAND_ADD, NULL, NULL, NULL, e, "us", *batch,
		    json_object_to_json_string_ext(params, JSON_C_TO_STRING_PLAIN));
	json_object_put(params);
	*queued = rc == 0;
done:
	db_rows_release(&r);
	return rc;
}

/* {batch, queued} (and project when label is not NULL) as the answer. */
static int
wiki_queued(struct json_object **out, uint64_t batch, int queued, const char *label,
    const char *root, struct err *e)
{
	struct json_object	*p;

	if ((*out = json_object_new_object()) == NULL)
		return err_set(e, ERR_NOMEM, "out of memory");
	if (label != NULL && (p = json_object_new_object()) != NULL) {
		json_object_object_add(p, "label", json_object_new_string(label));
		json_object_object_add(p, "wiki_root", json_object_new_string(root));
		json_object_object_add(*out, "project", p);
	}
	json_object_object_add(*out, "batch", json_object_new_uint64(batch));
	json_object_object_add(*out, "queued", json_object_new_boolean(queued));
	return 0;
}

int
wiki_root_set_tx(struct db *db, uint64_t project, const char *label, const char *root,
    const char *author, uint64_t by, uint64_t *batch, struct err *e)
{
	int	rc, queued;

	if ((rc = db_run(db, DB_ONCE, SQL_ROOT_SET, NULL, NULL, NULL, e, "suu", root, by,
	    project)) != 0)
		return rc;
	return wiki_queue_locked(db, project, label, author, 0, batch, &queued, e);
}

int
wiki_root_set(struct db *db, struct json_object **out, const char *label, const char *root,
    const char *author, uint64_t by, struct err *e)
{
	struct db_rows	 r = { 0 };
	uint64_t	 project, batch = 0;
	int		 rc, queued;

	*out = NULL;
	if ((rc = db_begin(db, e)) != 0)
		return rc;
	if ((rc = lock_project(db, label, &r, e)) != 0)
		goto fail;
	if (r.n == 0) {
		rc = ERR_NOTFOUND;
		goto fail;
	}
	project = db_to_u64(db_rows_get(&r, 0, 0));
	if ((rc = db_run(db, DB_ONCE, SQL_ROOT_SET, NULL, NULL, NULL, e, "suu", root, by,
	    project)) != 0 ||
	    (rc = wiki_queue_locked(db, project, label, author, 0, &batch, &queued, e)) != 0 ||
	    (rc = db_commit(db, e)) != 0)
		goto fail;
	db_rows_release(&r);
	return wiki_queued(out, batch, queued, label, root, e);
fail:
	db_rollback(db);
	db_rows_release(&r);
	return rc;
}

int
wiki_sync_queue(struct db *db, struct json_object **out, const char *label, const char *author,
    struct err *e)
{
	struct db_rows	 r = { 0 };
	uint64_t	 batch = 0;
	int		 rc, queued;

	*out = NULL;
	if ((rc = db_begin(db, e)) != 0)
		return rc;
	if ((rc = lock_project(db, label, &r, e)) != 0)
		goto fail;
	if (r.n == 0 || db_rows_get(&r, 0, 1) == NULL) {
		rc = r.n == 0 ? ERR_NOTFOUND : ERR_INVALID;
		goto fail;
	}
	if ((rc = wiki_queue_locked(db, db_to_u64(db_rows_get(&r, 0, 0)), label, author, 1,
	    &batch, &queued, e)) != 0 || (rc = db_commit(db, e)) != 0)
		goto fail;
	db_rows_release(&r);
	return wiki_queued(out, batch, queued, NULL, NULL, e);
fail:
	db_rollback(db);
	db_rows_release(&r);
	return rc;
}

/*
 * In a new transaction: locks the claimed wiki_sync command and the
 * project; *project receives its id.  ERR_INVALID with the command's state
 * when it is not a claimed one.
 */
static int
wiki_end_begin(struct db *db, uint64_t command, const char *label, const char *root,
    uint64_t *project, char *state, size_t len, struct err *e)
{
	static const char *const types[] = { "wiki_sync", NULL };
	struct db_rows		 r = { 0 };
	int			 rc;

	if ((rc = db_begin(db, e)) != 0)
		return rc;
	if ((rc = wiki_command_lock(db, command, types, state, len, e)) != 0)
		goto done;
	if ((rc = lock_project(db, label, &r, e)) != 0)
		goto done;
	if (r.n == 0)
		rc = err_set(e, ERR_NOTFOUND, "no project '%s'", label);
	else if (root != NULL && (db_rows_get(&r, 0, 1) == NULL ||
	    strcmp(db_rows_get(&r, 0, 1), root) != 0))
		rc = ERR_CONFLICT;
	else
		*project = db_to_u64(db_rows_get(&r, 0, 0));
done:
	if (rc != 0)
		db_rollback(db);
	db_rows_release(&r);
	return rc;
}

int
wiki_load(struct db *db, uint64_t command, const char *label, const char *root,
    const char *revision, const struct wiki_page_in *pages, size_t n,
    const struct wiki_attachment_in *atts, size_t n_atts, char *state, size_t len,
    struct err *e)
{
	uint64_t	*ids = NULL, project = 0;
	char		 result[64];
	size_t		 i;
	int		 rc;

	if ((ids = calloc(n + 1, sizeof *ids)) == NULL)
		return err_set(e, ERR_NOMEM, "out of memory");
	if ((rc = wiki_end_begin(db, command, label, root, &project, state, len, e)) != 0)
		goto done;
	if ((rc = db_run(db, DB_ONCE, SQL_PAGES_DROP, NULL, NULL, NULL, e, "u", project)) != 0)
		goto fail;
	for (i = 0; i < n; i++)
		if ((rc = db_run(db, DB_ONCE, SQL_PAGE_ADD, NULL, NULL, &ids[i], e, "ussuuuussus",
		    project, pages[i].code, pages[i].title,
		    pages[i].parent == i ? (uint64_t)0 : ids[pages[i].parent],
		    (uint64_t)pages[i].depth, (uint64_t)i, (uint64_t)pages[i].ord_end, pages[i].path,
		    pages[i].body, (uint64_t)pages[i].chars, pages[i].source)) != 0)
			goto fail;
	for (i = 0; i < n_atts; i++)
		if (atts[i].page < n && (rc = db_run(db, DB_ONCE, SQL_ATTACHMENT_ADD, NULL, NULL,
		    NULL, e, "ususs", ids[atts[i].page], atts[i].name, atts[i].size, atts[i].mime,
		    atts[i].source)) != 0)
			goto fail;
	snprintf(result, sizeof result, "{\"pages\":%zu}", n);
	if ((rc = wiki_upload_drop(db, command, e)) != 0 ||
	    (rc = db_run(db, DB_ONCE, SQL_RUN_ADD, NULL, NULL, NULL, e, "uussussu", project,
	    command, root, "done", (uint64_t)n, revision, NULL, command)) != 0 ||
	    (rc = db_run(db, DB_ONCE, SQL_COMMAND_END, NULL, NULL, NULL, e, "sssu", "done", NULL,
	    result, command)) != 0 ||
	    (rc = db_commit(db, e)) != 0)
		goto fail;
	goto done;
fail:
	db_rollback(db);
done:
	free(ids);
	return rc;
}

int
wiki_sync_failed(struct db *db, uint64_t command, const char *label, const char *root,
    const char *why, char *state, size_t len, struct err *e)
{
	uint64_t	project = 0;
	int		rc;

	if ((rc = wiki_end_begin(db, command, label, NULL, &project, state, len, e)) != 0)
		return rc;
	if ((rc = wiki_upload_drop(db, command, e)) != 0 ||
	    (rc = db_run(db, DB_ONCE, SQL_RUN_ADD, NULL, NULL, NULL, e, "uussussu", project,
	    command, root != NULL ? root : "", "failed", (uint64_t)0, NULL, why, command)) != 0 ||
	    (rc = db_run(db, DB_ONCE, SQL_COMMAND_END, NULL, NULL, NULL, e, "sssu", "failed", why,
	    NULL, command)) != 0 ||
	    (rc = db_commit(db, e)) != 0)
		db_rollback(db);
	return rc;
}
