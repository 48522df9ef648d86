/* db_wiki_load: the writes of the hub's wiki copy: its root, its syncs (db_wiki.h). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <json-c/json.h>

#include "err.h"
#include "store/db.h"
#include "store/db-internal.h"
#include "store/db_agent.h"
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

/* A queue's request and what it queued (root NULL: wiki_sync_queue, which sets none). */
struct queue_args {
	const char	*label, *root, *author;
	uint64_t	 by, batch;
	int		 queued;
};

/*
 * Locks the project, sets its root when a->root is given, and queues a
 * sync (wiki_sync_queue also finds one an agent runs).  ERR_NOTFOUND for
 * no project; ERR_INVALID when only queueing and the project has no root.
 */
static int
queue_tx(struct db *db, void *arg, struct err *e)
{
	struct queue_args	*a = arg;
	struct db_rows		 r = { 0 };
	uint64_t		 project;
	int			 rc;

	a->batch = 0;
	a->queued = 0;
	if ((rc = lock_project(db, a->label, &r, e)) != 0)
		goto done;
	if (r.n == 0 || (a->root == NULL && db_rows_get(&r, 0, 1) == NULL)) {
		rc = r.n == 0 ? ERR_NOTFOUND : ERR_INVALID;
		goto done;
	}
	project = db_to_u64(db_rows_get(&r, 0, 0));
	if (a->root != NULL && (rc = db_run(db, DB_ONCE, SQL_ROOT_SET, NULL, NULL, NULL, e, "suu",
	    a->root, a->by, project)) != 0)
		goto done;
	rc = wiki_queue_locked(db, project, a->label, a->author, a->root == NULL, &a->batch,
	    &a->queued, e);
done:
	db_rows_release(&r);
	return rc;
}

int
wiki_root_set(struct db *db, struct json_object **out, const char *label, const char *root,
    const char *author, uint64_t by, struct err *e)
{
	struct queue_args	 a = { label, root, author, by, 0, 0 };
	int			 rc;

	*out = NULL;
	if ((rc = db_tx(db, queue_tx, &a, e)) != 0)
		return rc;
	return wiki_queued(out, a.batch, a.queued, label, root, e);
}

int
wiki_sync_queue(struct db *db, struct json_object **out, const char *label, const char *author,
    struct err *e)
{
	struct queue_args	 a = { label, NULL, author, 0, 0, 0 };
	int			 rc;

	*out = NULL;
	if ((rc = db_tx(db, queue_tx, &a, e)) != 0)
		return rc;
	return wiki_queued(out, a.batch, a.queued, NULL, NULL, e);
}

/* The end of a wiki_sync command: what wiki_load or wiki_sync_failed was given. */
struct end_args {
	uint64_t			 command;
	struct tracker_handout		*h;
	const char			*label, *root, *revision, *why;
	const struct wiki_page_in	*pages;
	const struct wiki_attachment_in	*atts;
	size_t				 n, n_atts;
	uint64_t			*ids;		/* the pages' ids as inserted, n + 1 */
};

/*
 * In the open transaction: locks the claimed wiki_sync command (in the
 * hand-out a->h names) and the project; *project receives its id.
 * ERR_INVALID when the command is refused (a->h says why); ERR_CONFLICT
 * when root (unless NULL) is no longer the project's.
 */
static int
wiki_end_lock(struct db *db, const struct end_args *a, const char *root, uint64_t *project,
    struct err *e)
{
	static const char *const types[] = { "wiki_sync", NULL };
	struct db_rows		 r = { 0 };
	int			 rc;

	if ((rc = tracker_handout_lock(db, a->command, types, a->h, NULL, e)) != 0)
		return rc;
	if ((rc = lock_project(db, a->label, &r, e)) != 0)
		goto done;
	if (r.n == 0)
		rc = err_set(e, ERR_NOTFOUND, "no project '%s'", a->label);
	else if (root != NULL && (db_rows_get(&r, 0, 1) == NULL ||
	    strcmp(db_rows_get(&r, 0, 1), root) != 0))
		rc = ERR_CONFLICT;
	else
		*project = db_to_u64(db_rows_get(&r, 0, 0));
done:
	db_rows_release(&r);
	return rc;
}

/* wiki_load's transaction: the pages replaced, the run recorded, the command done. */
static int
load_tx(struct db *db, void *arg, struct err *e)
{
	struct end_args	*a = arg;
	uint64_t	 project = 0;
	char		 result[64];
	size_t		 i;
	int		 rc;

	memset(a->ids, 0, (a->n + 1) * sizeof *a->ids);
	if ((rc = wiki_end_lock(db, a, a->root, &project, e)) != 0 ||
	    (rc = db_run(db, DB_ONCE, SQL_PAGES_DROP, NULL, NULL, NULL, e, "u", project)) != 0)
		return rc;
	for (i = 0; i < a->n; i++)
		if ((rc = db_run(db, DB_ONCE, SQL_PAGE_ADD, NULL, NULL, &a->ids[i], e, "ussuuuussus",
		    project, a->pages[i].code, a->pages[i].title,
		    a->pages[i].parent == i ? (uint64_t)0 : a->ids[a->pages[i].parent],
		    (uint64_t)a->pages[i].depth, (uint64_t)i, (uint64_t)a->pages[i].ord_end,
		    a->pages[i].path, a->pages[i].body, (uint64_t)a->pages[i].chars,
		    a->pages[i].source)) != 0)
			return rc;
	for (i = 0; i < a->n_atts; i++)
		if (a->atts[i].page < a->n && (rc = db_run(db, DB_ONCE, SQL_ATTACHMENT_ADD, NULL,
		    NULL, NULL, e, "ususs", a->ids[a->atts[i].page], a->atts[i].name,
		    a->atts[i].size, a->atts[i].mime, a->atts[i].source)) != 0)
			return rc;
	snprintf(result, sizeof result, "{\"pages\":%zu}", a->n);
	if ((rc = wiki_upload_drop(db, a->command, e)) != 0 ||
	    (rc = db_run(db, DB_ONCE, SQL_RUN_ADD, NULL, NULL, NULL, e, "uussussu", project,
	    a->command, a->root, "done", (uint64_t)a->n, a->revision, NULL, a->command)) != 0)
		return rc;
	return db_run(db, DB_ONCE, SQL_COMMAND_END, NULL, NULL, NULL, e, "sssu", "done", NULL,
	    result, a->command);
}

int
wiki_load(struct db *db, uint64_t command, struct tracker_handout *h, const char *label,
    const char *root, const char *revision, const struct wiki_page_in *pages, size_t n,
    const struct wiki_attachment_in *atts, size_t n_atts, struct err *e)
{
	struct end_args	 a = { command, h, label, root, revision, NULL, pages, atts, n, n_atts,
	    NULL };
	int		 rc;

	if ((a.ids = calloc(n + 1, sizeof *a.ids)) == NULL)
		return err_set(e, ERR_NOMEM, "out of memory");
	rc = db_tx(db, load_tx, &a, e);
	free(a.ids);
	return rc;
}

/* wiki_sync_failed's transaction: a failed run recorded, the command failed. */
static int
failed_tx(struct db *db, void *arg, struct err *e)
{
	struct end_args	*a = arg;
	uint64_t	 project = 0;
	int		 rc;

	if ((rc = wiki_end_lock(db, a, NULL, &project, e)) != 0 ||
	    (rc = wiki_upload_drop(db, a->command, e)) != 0 ||
	    (rc = db_run(db, DB_ONCE, SQL_RUN_ADD, NULL, NULL, NULL, e, "uussussu", project,
	    a->command, a->root != NULL ? a->root : "", "failed", (uint64_t)0, NULL, a->why,
	    a->command)) != 0)
		return rc;
	return db_run(db, DB_ONCE, SQL_COMMAND_END, NULL, NULL, NULL, e, "sssu", "failed", a->why,
	    NULL, a->command);
}

int
wiki_sync_failed(struct db *db, uint64_t command, struct tracker_handout *h,
    const char *label, const char *root, const char *why, struct err *e)
{
	struct end_args	 a = { command, h, label, root, NULL, why, NULL, NULL, 0, 0, NULL };

	return db_tx(db, failed_tx, &a, e);
}
