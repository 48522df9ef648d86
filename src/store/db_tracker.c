/* db_tracker: the MySQL queries behind the hub's tracker mirror (db_tracker.h). */
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <json-c/json.h>

#include "err.h"
#include "store/db.h"
#include "store/db-internal.h"
#include "store/db_notes.h"
#include "store/db_tracker.h"
#include "store/db_wiki.h"

/* The most comments and commands an issue's answer carries. */
#define TRACKER_COMMENTS_MAX	500
#define TRACKER_CHANGES_MAX	50	/* journal rows in the card's answer */
#define TRACKER_COMMANDS_MAX	10

static const char SQL_PROJECTS[] =
    "SELECT p.label, p.name, p.board_id, p.board_type,"
    " (SELECT COUNT(*) FROM tracker_issue_labels l WHERE l.label = p.label)"
    " FROM tracker_projects p WHERE (? IS NULL OR p.label = ?) ORDER BY p.label";
static const char SQL_PROJECTS_WIKI[] =
    "SELECT p.label, p.name, p.board_id, p.board_type,"
    " (SELECT COUNT(*) FROM tracker_issue_labels l WHERE l.label = p.label), p.wiki_root,"
    " (SELECT COUNT(*) FROM wiki_pages w WHERE w.project_id = p.id),"
    " (SELECT " DB_DATE("MAX(s.finished_at)") " FROM wiki_sync_runs s"
    "  WHERE s.project_id = p.id AND s.state = 'done' AND s.root = p.wiki_root)"
    " FROM tracker_projects p WHERE (? IS NULL OR p.label = ?) ORDER BY p.label";
static const char SQL_PROJECT_ADD[] =
    "INSERT INTO tracker_projects (label, name, board_id, created_by, created_at)"
    " VALUES (?, ?, NULLIF(?, 0), ?, UTC_TIMESTAMP(3))";
static const char SQL_BATCH_ADD[] =
    "INSERT INTO tracker_batches (project_id, title, author, created_at)"
    " VALUES (?, ?, ?, UTC_TIMESTAMP(3))";
static const char SQL_COMMAND_ADD[] =
    "INSERT INTO tracker_commands (batch_id, seq, type, params, state, updated_at)"
    " VALUES (?, ?, ?, ?, 'queued', UTC_TIMESTAMP(3))";

/*
 * An issue's list columns, then whether it is the project's own: a label
 * row of the project (the first ?) for own issues, a link to one for the
 * neighbours.  The filters follow, each "? IS NULL OR ...".
 */
#define STORY_POINTS	DB_POINTS("i.story_points")
#define ISSUE_LIST_COLS \
    "SELECT i.issue_key, i.summary, i.status, i.issue_type, DATE_FORMAT(i.due_date, '%Y-%m-%d')," \
    " i.assignee, i.sprint, " STORY_POINTS ","
/*
 * The candidates are the project's own ids (the label index) and the other
 * ends of their links (both link indexes), so the cost follows the
 * project's size, not the mirror's.
 */
static const char SQL_ISSUES[] =
    ISSUE_LIST_COLS
    " EXISTS (SELECT 1 FROM tracker_issue_labels l WHERE l.issue_id = i.id AND l.label = ?) AS own"
    " FROM tracker_issues i JOIN ("
    "  SELECT l.issue_id AS id FROM tracker_issue_labels l WHERE l.label = ?"
    "  UNION SELECT k.inward_id FROM tracker_issue_labels l"
    "   JOIN tracker_links k ON k.outward_id = l.issue_id WHERE l.label = ?"
    "  UNION SELECT k.outward_id FROM tracker_issue_labels l"
    "   JOIN tracker_links k ON k.inward_id = l.issue_id WHERE l.label = ?"
    " ) s ON s.id = i.id"
    " WHERE (? IS NULL OR i.status = ?) AND (? IS NULL OR i.assignee = ?)"
    " AND (? IS NULL OR i.sprint = ?) AND (? IS NULL OR i.issue_type = ?)"
    " AND (? IS NULL OR LOCATE(?, i.summary) > 0)"
    " ORDER BY i.updated_at DESC, i.id DESC LIMIT ?";
static const char SQL_ISSUE[] =
    "SELECT i.id, i.issue_key, i.issue_type, i.summary, i.description, i.status, i.priority,"
    " i.assignee, i.reporter, DATE_FORMAT(i.due_date, '%Y-%m-%d'), i.sprint, " STORY_POINTS ", "
    DB_DATE("i.created_at") ", " DB_DATE("i.updated_at")
    " FROM tracker_issues i WHERE i.issue_key = ?";
static const char SQL_ISSUE_LABELS[] =
    "SELECT label FROM tracker_issue_labels WHERE issue_id = ? ORDER BY label";
static const char SQL_ISSUE_FIELDS[] =
    "SELECT name, value FROM tracker_issue_fields WHERE issue_id = ? ORDER BY name";
/* Both sides: the type, the direction as this issue reads it, the other issue. */
static const char SQL_ISSUE_LINKS[] =
    "SELECT k.link_type, IF(k.outward_id = ?, k.outward, k.inward),"
    " IF(k.outward_id = ?, 'outward', 'inward'), o.issue_key, o.summary, o.status"
    " FROM tracker_links k JOIN tracker_issues o"
    " ON o.id = IF(k.outward_id = ?, k.inward_id, k.outward_id)"
    " WHERE k.outward_id = ? OR k.inward_id = ? ORDER BY k.id";
static const char SQL_ISSUE_COMMENTS[] =
    "SELECT id, author, body, " DB_DATE("created_at") ", " DB_DATE("updated_at")
    " FROM tracker_comments WHERE issue_id = ? ORDER BY created_at DESC, id DESC LIMIT ?";
static const char SQL_ISSUE_COMMENT_COUNT[] =
    "SELECT COUNT(*) FROM tracker_comments WHERE issue_id = ?";
static const char SQL_ISSUE_COMMANDS[] =
    "SELECT c.id, c.type, c.state, c.batch_id, " DB_DATE("c.updated_at")
    " FROM tracker_commands c WHERE JSON_VALUE(c.params, '$.key') = ?"
    " ORDER BY c.id DESC LIMIT ?";

int
tracker_projects(struct db *db, struct json_object **out, int wiki, const char *label,
    struct err *e)
{
	static const char *const names[] = { "label", "name", "board_id", "board_type",
	    "own_issues", "wiki_root", "wiki_pages", "wiki_synced", NULL };
	const char	*names_n[sizeof names / sizeof names[0]];
	struct db_rows	 r = { 0 };
	int		 rc;

	*out = NULL;
	memcpy(names_n, names, sizeof names);
	if (!wiki)
		names_n[5] = NULL;
	if ((rc = db_run(db, DB_RETRY, wiki ? SQL_PROJECTS_WIKI : SQL_PROJECTS, &r, NULL, NULL, e,
	    "ss", label, label)) == 0 &&
	    (*out = tracker_rows(&r, r.n, names_n, wiki ? "ssususus" : "ssusu")) == NULL)
		rc = err_set(e, ERR_NOMEM, "out of memory");
	db_rows_release(&r);
	return rc;
}

/* Queues a batch of one command in the open transaction; *batch receives its id. */
static int
tracker_batch_one(struct db *db, uint64_t *batch, uint64_t project_id, const char *title,
    const char *author, const char *type, const char *params, struct err *e)
{
	int	rc;

	if ((rc = db_run(db, DB_ONCE, SQL_BATCH_ADD, NULL, NULL, batch, e, "uss", project_id,
	    title, author)) != 0)
		return rc;
	return db_run(db, DB_ONCE, SQL_COMMAND_ADD, NULL, NULL, NULL, e, "uiss", *batch,
	    (int64_t)1, type, params);
}

/* A project as tracker_project_create was given it, and the batches queued for it. */
struct project_args {
	const char	*label, *name, *wiki_root, *author, *params;
	uint64_t	 board_id, by, batch, wiki_batch;
};

/* Adds the project and queues its first refresh (and with a wiki root, a wiki sync). */
static int
project_tx(struct db *db, void *arg, struct err *e)
{
	struct project_args	*a = arg;
	uint64_t		 id = 0;
	char			 title[128];
	int			 rc;

	a->batch = a->wiki_batch = 0;
	snprintf(title, sizeof title, "refresh %s", a->label);
	if ((rc = db_run(db, DB_ONCE, SQL_PROJECT_ADD, NULL, NULL, &id, e, "ssus", a->label,
	    a->name, a->board_id, a->author)) != 0 ||
	    (rc = tracker_batch_one(db, &a->batch, id, title, a->author, "refresh", a->params,
	    e)) != 0)
		return rc;
	if (a->wiki_root == NULL)
		return 0;
	return wiki_root_set_tx(db, id, a->label, a->wiki_root, a->author, a->by, &a->wiki_batch,
	    e);
}

int
tracker_project_create(struct db *db, struct json_object **out, const char *label,
    const char *name, uint64_t board_id, const char *wiki_root, const char *author,
    uint64_t by, struct err *e)
{
	struct project_args	 a = { label, name, wiki_root, author, NULL, board_id, by, 0, 0 };
	struct json_object	*params = NULL, *p = NULL;
	int			 rc;

	*out = NULL;
	if ((params = json_object_new_object()) == NULL ||
	    json_object_object_add(params, "project", json_object_new_string(label)) != 0) {
		json_object_put(params);
		return err_set(e, ERR_NOMEM, "out of memory");
	}
	a.params = json_object_to_json_string_ext(params, JSON_C_TO_STRING_PLAIN);
	if ((rc = db_tx(db, project_tx, &a, e)) != 0)
		goto done;
	if ((p = json_object_new_object()) == NULL || (*out = json_object_new_object()) == NULL) {
		rc = err_set(e, ERR_NOMEM, "out of memory");
		goto done;
	}
	json_object_object_add(p, "label", json_object_new_string(label));
	json_object_object_add(p, "name", json_object_new_string(name));
	json_object_object_add(p, "board_id", board_id ? json_object_new_uint64(board_id) : NULL);
	json_object_object_add(p, "board_type", NULL);
	json_object_object_add(p, "own_issues", json_object_new_uint64(0));
	json_object_object_add(*out, "project", p);
	p = NULL;
	json_object_object_add(*out, "batch", json_object_new_uint64(a.batch));
	if (wiki_root != NULL) {
		json_object_object_add(json_object_object_get(*out, "project"), "wiki_root",
		    json_object_new_string(wiki_root));
		json_object_object_add(*out, "wiki_batch", json_object_new_uint64(a.wiki_batch));
	}
done:
	json_object_put(p);
	json_object_put(params);
	if (rc != 0) {
		json_object_put(*out);
		*out = NULL;
	}
	return rc;
}

int
tracker_issues(struct db *db, struct json_object **out, const struct tracker_filter *f,
    struct err *e)
{
	static const char *const names[] = { "key", "summary", "status", "type", "due",
	    "assignee", "sprint", "story_points", "own", NULL };
	struct db_rows		 r = { 0 };
	struct json_object	*list;
	int			 rc, limit = f->limit;

	*out = NULL;
	if ((rc = db_run(db, DB_RETRY, SQL_ISSUES, &r, NULL, NULL, e, "ssssssssssssssi",
	    f->project, f->project, f->project, f->project, f->status, f->status, f->assignee, f->assignee,
	    f->sprint, f->sprint, f->type, f->type, f->text, f->text, (int64_t)limit + 1)) != 0)
		goto done;
	/* a row past the limit only says that there are more */
	if ((list = tracker_rows(&r, (size_t)limit, names, "sssssssnb")) == NULL ||
	    (*out = json_object_new_object()) == NULL) {
		json_object_put(list);
		rc = err_set(e, ERR_NOMEM, "out of memory");
		goto done;
	}
	json_object_object_add(*out, "issues", list);
	json_object_object_add(*out, "truncated", json_object_new_boolean(r.n > (size_t)limit));
done:
	db_rows_release(&r);
	return rc;
}

/* Runs sql (parameters as types and the arguments) and adds its rows to o as key. */
static int
tracker_add_rows(struct db *db, struct json_object *o, const char *key, const char *sql,
    const char *const *names, const char *kinds, struct err *e, const char *types, ...)
{
	struct db_rows		 r = { 0 };
	struct json_object	*a;
	va_list			 ap;
	int			 rc;

	va_start(ap, types);
	rc = db_vrun(db, DB_RETRY, sql, &r, NULL, NULL, e, types, ap);
	va_end(ap);
	if (rc == 0 && ((a = tracker_rows(&r, r.n, names, kinds)) == NULL ||
	    json_object_object_add(o, key, a) != 0))
		rc = err_set(e, ERR_NOMEM, "out of memory");
	db_rows_release(&r);
	return rc;
}

int
tracker_issue(struct db *db, struct json_object **out, const char *key, struct err *e)
{
	static const char *const names[] = { "id", "key", "type", "summary", "description",
	    "status", "priority", "assignee", "reporter", "due", "sprint", "story_points",
	    "created", "updated", NULL };
	static const char *const link_names[] = { "type", "direction", "side", "key",
	    "summary", "status", NULL };
	static const char *const comment_names[] = { "id", "author", "body", "created",
	    "updated", NULL };
	static const char *const command_names[] = { "id", "type", "state", "batch",
	    "updated", NULL };
	static const char *const field_names[] = { "name", "value", NULL };
	struct db_rows		 r = { 0 };
	struct json_object	*o = NULL, *labels, *notes;
	uint64_t		 id;
	size_t			 i;
	int			 rc;

	*out = NULL;
	if ((rc = db_run(db, DB_RETRY, SQL_ISSUE, &r, NULL, NULL, e, "s", key)) != 0)
		goto done;
	if (r.n == 0) {
		rc = ERR_NOTFOUND;
		goto done;
	}
	id = db_to_u64(db_rows_get(&r, 0, 0));
	if ((o = tracker_row(&r, 0, names, "ussssssssssnss")) == NULL) {
		rc = err_set(e, ERR_NOMEM, "out of memory");
		goto done;
	}
	db_rows_release(&r);
	if ((rc = db_run(db, DB_RETRY, SQL_ISSUE_LABELS, &r, NULL, NULL, e, "u", id)) != 0)
		goto done;
	if ((labels = json_object_new_array()) == NULL ||
	    json_object_object_add(o, "labels", labels) != 0) {
		json_object_put(labels);
		rc = err_set(e, ERR_NOMEM, "out of memory");
		goto done;
	}
	for (i = 0; i < r.n; i++)
		json_object_array_add(labels, json_object_new_string(db_rows_get(&r, i, 0)));
	db_rows_release(&r);
	if ((rc = tracker_add_rows(db, o, "fields", SQL_ISSUE_FIELDS, field_names, "ss", e, "u",
	    id)) != 0 ||
	    (rc = tracker_add_rows(db, o, "links", SQL_ISSUE_LINKS, link_names, "ssssss", e,
	    "uuuuu", id, id, id, id, id)) != 0 ||
	    (rc = tracker_add_rows(db, o, "comments", SQL_ISSUE_COMMENTS, comment_names, "ussss",
	    e, "ui", id, (int64_t)TRACKER_COMMENTS_MAX)) != 0 ||
	    (rc = tracker_add_rows(db, o, "commands", SQL_ISSUE_COMMANDS, command_names, "ussus",
	    e, "si", key, (int64_t)TRACKER_COMMANDS_MAX)) != 0 ||
	    (rc = db_run(db, DB_RETRY, SQL_ISSUE_COMMENT_COUNT, &r, NULL, NULL, e, "u", id)) != 0)
		goto done;
	json_object_object_add(o, "comment_count",
	    json_object_new_uint64(r.n > 0 ? db_to_u64(db_rows_get(&r, 0, 0)) : 0));
	if ((rc = tracker_issue_changes(db, o, id, TRACKER_CHANGES_MAX, e)) != 0 ||
	    (rc = tracker_issue_attachments(db, o, id, e)) != 0)
		goto done;
	if ((rc = tracker_notes_get(db, &notes, key, e)) != 0)
		goto done;
	json_object_object_add(o, "notes", notes);
	*out = o;
	o = NULL;
done:
	db_rows_release(&r);
	json_object_put(o);
	return rc;
}

/* ---- fixtures (forgemcp tracker import) ---- */
