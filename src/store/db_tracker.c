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

int
tracker_project_create(struct db *db, struct json_object **out, const char *label,
    const char *name, uint64_t board_id, const char *wiki_root, const char *author,
    uint64_t by, struct err *e)
{
	struct json_object	*params = NULL, *p = NULL;
	uint64_t		 id = 0, batch = 0, wiki_batch = 0;
	char			 title[128];
	int			 rc;

	*out = NULL;
	if ((params = json_object_new_object()) == NULL ||
	    json_object_object_add(params, "project", json_object_new_string(label)) != 0) {
		json_object_put(params);
		return err_set(e, ERR_NOMEM, "out of memory");
	}
	snprintf(title, sizeof title, "refresh %s", label);
	if ((rc = db_begin(db, e)) != 0)
		goto done;
	if ((rc = db_run(db, DB_ONCE, SQL_PROJECT_ADD, NULL, NULL, &id, e, "ssus", label, name,
	    board_id, author)) != 0 ||
	    (rc = tracker_batch_one(db, &batch, id, title, author, "refresh",
	    json_object_to_json_string_ext(params, JSON_C_TO_STRING_PLAIN), e)) != 0 ||
	    (wiki_root != NULL && (rc = wiki_root_set_tx(db, id, label, wiki_root, author,
	    by, &wiki_batch, e)) != 0) ||
	    (rc = db_commit(db, e)) != 0) {
		db_rollback(db);
		goto done;
	}
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
	json_object_object_add(*out, "batch", json_object_new_uint64(batch));
	if (wiki_root != NULL) {
		json_object_object_add(json_object_object_get(*out, "project"), "wiki_root",
		    json_object_new_string(wiki_root));
		json_object_object_add(*out, "wiki_batch", json_object_new_uint64(wiki_batch));
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

static const char SQL_IMPORT_PROJECT[] =
    "INSERT INTO tracker_projects (label, name, board_id, board_type, wiki_root, created_by,"
    " created_at) VALUES (?, ?, NULLIF(?, 0), ?, ?, 'import', UTC_TIMESTAMP(3))"
    " ON DUPLICATE KEY UPDATE name = VALUES(name), board_id = VALUES(board_id),"
    " board_type = VALUES(board_type), wiki_root = VALUES(wiki_root), wiki_root_by = NULL";
static const char SQL_IMPORT_DROP_ISSUE[] =
    "DELETE FROM tracker_issues WHERE id = ? OR issue_key = ?";
static const char SQL_IMPORT_ISSUE[] =
    "INSERT INTO tracker_issues (id, issue_key, issue_type, summary, description, status,"
    " priority, assignee, reporter, due_date, sprint, story_points, created_at, updated_at)"
    " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?,"
    " STR_TO_DATE(?, '%Y-%m-%dT%H:%i:%sZ'), STR_TO_DATE(?, '%Y-%m-%dT%H:%i:%sZ'))";
static const char SQL_IMPORT_LABEL[] =
    "INSERT IGNORE INTO tracker_issue_labels (issue_id, label) VALUES (?, ?)";
static const char SQL_IMPORT_FIELD[] =
    "INSERT INTO tracker_issue_fields (issue_id, name, value) VALUES (?, ?, ?)";
static const char SQL_IMPORT_DROP_COMMENT[] =
    "DELETE FROM tracker_comments WHERE id = ?";
static const char SQL_IMPORT_COMMENT[] =
    "INSERT INTO tracker_comments (id, issue_id, author, body, created_at, updated_at)"
    " VALUES (?, ?, ?, ?, STR_TO_DATE(?, '%Y-%m-%dT%H:%i:%sZ'),"
    " STR_TO_DATE(?, '%Y-%m-%dT%H:%i:%sZ'))";
static const char SQL_IMPORT_LINK[] =
    "INSERT IGNORE INTO tracker_links (outward_id, inward_id, link_type, outward, inward)"
    " SELECT a.id, b.id, ?, ?, ? FROM tracker_issues a JOIN tracker_issues b"
    " ON a.issue_key = ? AND b.issue_key = ?";

/* A member's string, or NULL when absent or null; *bad set when it is another type. */
const char *
tracker_str(struct json_object *o, const char *key, int *bad)
{
	struct json_object	*v;

	if (!json_object_object_get_ex(o, key, &v) || v == NULL)
		return NULL;
	if (!json_object_is_type(v, json_type_string)) {
		*bad = 1;
		return NULL;
	}
	return json_object_get_string(v);
}

/* A member's positive integer, 0 when absent; *bad set when it is not one. */
static uint64_t
tracker_uint(struct json_object *o, const char *key, int *bad)
{
	struct json_object	*v;

	if (!json_object_object_get_ex(o, key, &v) || v == NULL)
		return 0;
	if (!json_object_is_type(v, json_type_int) || json_object_get_int64(v) <= 0) {
		*bad = 1;
		return 0;
	}
	return (uint64_t)json_object_get_int64(v);
}

/* Whether s is "YYYY-MM-DDTHH:MM:SSZ". */
int
tracker_time_ok(const char *s)
{
	static const char	 shape[] = "dddd-dd-ddTdd:dd:ddZ";
	size_t			 i;

	if (s == NULL || strlen(s) != sizeof shape - 1)
		return 0;
	for (i = 0; shape[i] != '\0'; i++)
		if (shape[i] == 'd' ? (s[i] < '0' || s[i] > '9') : s[i] != shape[i])
			return 0;
	return 1;
}

/* The array doc.name, or NULL (absent); *bad when it is not an array. */
static struct json_object *
tracker_array(struct json_object *doc, const char *name, int *bad)
{
	struct json_object	*v;

	if (!json_object_object_get_ex(doc, name, &v) || v == NULL)
		return NULL;
	if (!json_object_is_type(v, json_type_array))
		*bad = 1;
	return v;
}

static int
tracker_import_project(struct db *db, struct json_object *p, size_t i, struct err *e)
{
	const char	*label, *name;
	uint64_t	 board;
	int		 rc, bad = 0;

	label = tracker_str(p, "label", &bad);
	name = tracker_str(p, "name", &bad);
	board = tracker_uint(p, "board_id", &bad);
	if (bad || label == NULL || name == NULL)
		return err_set(e, ERR_INVALID, "projects[%zu]: label and name are strings, "
		    "board_id a positive integer", i);
	if ((rc = db_run(db, DB_ONCE, SQL_IMPORT_PROJECT, NULL, NULL, NULL, e, "ssuss", label,
	    name, board, tracker_str(p, "board_type", &bad), tracker_str(p, "wiki_root",
	    &bad))) != 0)
		return rc;
	return tracker_import_agile(db, p, board, i, e);
}

static int
tracker_import_comments(struct db *db, struct json_object *list, uint64_t issue,
    const char *key, struct err *e)
{
	struct json_object	*c;
	const char		*author, *body, *created, *updated;
	uint64_t		 id;
	size_t			 j;
	int			 rc, bad = 0;

	for (j = 0; list != NULL && j < json_object_array_length(list); j++) {
		c = json_object_array_get_idx(list, j);
		id = tracker_uint(c, "id", &bad);
		author = tracker_str(c, "author", &bad);
		body = tracker_str(c, "body", &bad);
		created = tracker_str(c, "created", &bad);
		updated = tracker_str(c, "updated", &bad);
		if (bad || id == 0 || author == NULL || body == NULL || !tracker_time_ok(created) ||
		    (updated != NULL && !tracker_time_ok(updated)))
			return err_set(e, ERR_INVALID, "%s: comments[%zu]: id, author, body and "
			    "created (YYYY-MM-DDTHH:MM:SSZ) are required", key, j);
		if ((rc = db_run(db, DB_ONCE, SQL_IMPORT_DROP_COMMENT, NULL, NULL, NULL, e, "u",
		    id)) != 0 ||
		    (rc = db_run(db, DB_ONCE, SQL_IMPORT_COMMENT, NULL, NULL, NULL, e, "uussss", id,
		    issue, author, body, created, updated)) != 0)
			return rc;
	}
	return 0;
}

static int
tracker_import_issue(struct db *db, struct json_object *o, size_t i, struct err *e)
{
	struct json_object	*v, *list = NULL;
	const char		*key, *type, *summary, *status, *created, *updated, *sp = NULL;
	uint64_t		 id;
	size_t			 j;
	int			 rc, bad = 0;

	id = tracker_uint(o, "id", &bad);
	key = tracker_str(o, "key", &bad);
	type = tracker_str(o, "type", &bad);
	summary = tracker_str(o, "summary", &bad);
	status = tracker_str(o, "status", &bad);
	created = tracker_str(o, "created", &bad);
	updated = tracker_str(o, "updated", &bad);
	if (json_object_object_get_ex(o, "story_points", &v) && v != NULL) {
		if (!json_object_is_type(v, json_type_int) && !json_object_is_type(v, json_type_double))
			bad = 1;
		sp = json_object_get_string(v);
	}
	if (bad || id == 0 || key == NULL || summary == NULL || status == NULL ||
	    !tracker_time_ok(created) || (updated != NULL && !tracker_time_ok(updated)))
		return err_set(e, ERR_INVALID, "issues[%zu]: id, key, summary, status and created "
		    "(YYYY-MM-DDTHH:MM:SSZ) are required, each of its type", i);
	if ((rc = db_run(db, DB_ONCE, SQL_IMPORT_DROP_ISSUE, NULL, NULL, NULL, e, "us", id,
	    key)) != 0 ||
	    (rc = db_run(db, DB_ONCE, SQL_IMPORT_ISSUE, NULL, NULL, NULL, e, "usssssssssssss", id,
	    key, type != NULL ? type : "task", summary, tracker_str(o, "description", &bad),
	    status, tracker_str(o, "priority", &bad), tracker_str(o, "assignee", &bad),
	    tracker_str(o, "reporter", &bad), tracker_str(o, "due", &bad),
	    tracker_str(o, "sprint", &bad), sp, created, updated != NULL ? updated : created)) != 0)
		return rc == ERR_EXISTS ? err_set(e, ERR_INVALID, "issues[%zu]: %s twice", i, key) : rc;
	if ((rc = tracker_import_rank(db, o, id, e)) != 0)
		return rc;
	if ((list = tracker_array(o, "labels", &bad)) != NULL && !bad)
		for (j = 0; j < json_object_array_length(list); j++)
			if ((rc = db_run(db, DB_ONCE, SQL_IMPORT_LABEL, NULL, NULL, NULL, e, "us", id,
			    json_object_get_string(json_object_array_get_idx(list, j)))) != 0)
				return rc;
	if (json_object_object_get_ex(o, "fields", &list) &&
	    json_object_is_type(list, json_type_object)) {
		json_object_object_foreach(list, name, val) {
			if ((rc = db_run(db, DB_ONCE, SQL_IMPORT_FIELD, NULL, NULL, NULL, e, "uss", id,
			    name, json_object_get_string(val))) != 0)
				return rc;
		}
	}
	list = tracker_array(o, "comments", &bad);
	if (bad || (list = tracker_array(o, "links", &bad), bad))
		return err_set(e, ERR_INVALID, "%s: labels, comments and links are arrays", key);
	if ((rc = tracker_import_comments(db, tracker_array(o, "comments", &bad), id, key,
	    e)) != 0)
		return rc;
	if ((list = tracker_array(o, "changes", &bad)) != NULL && bad)
		return err_set(e, ERR_INVALID, "%s: changes is an array", key);
	if ((rc = tracker_import_changes(db, list, id, key, e)) != 0)
		return rc;
	if ((list = tracker_array(o, "attachments", &bad)) != NULL && bad)
		return err_set(e, ERR_INVALID, "%s: attachments is an array", key);
	return tracker_import_attachments(db, list, id, key, e);
}

/* The links of issue o, once every issue is in. */
static int
tracker_import_links(struct db *db, struct json_object *o, struct err *e)
{
	struct json_object	*list, *k;
	const char		*key, *type, *outward, *inward, *to;
	uint64_t		 added;
	size_t			 j;
	int			 rc, bad = 0;

	key = json_object_get_string(json_object_object_get(o, "key"));
	if ((list = tracker_array(o, "links", &bad)) == NULL || bad)
		return 0;
	for (j = 0; j < json_object_array_length(list); j++) {
		k = json_object_array_get_idx(list, j);
		type = tracker_str(k, "type", &bad);
		outward = tracker_str(k, "outward", &bad);
		inward = tracker_str(k, "inward", &bad);
		to = tracker_str(k, "to", &bad);
		if (bad || type == NULL || outward == NULL || inward == NULL || to == NULL)
			return err_set(e, ERR_INVALID, "%s: links[%zu]: type, outward, inward and "
			    "to are strings", key, j);
		if ((rc = db_run(db, DB_ONCE, SQL_IMPORT_LINK, NULL, &added, NULL, e, "sssss", type,
		    outward, inward, key, to)) != 0)
			return rc;
		if (added == 0 && strcmp(key, to) == 0)
			return err_set(e, ERR_INVALID, "%s: links[%zu]: a link to itself", key, j);
	}
	return 0;
}

int
tracker_import(struct db *db, struct json_object *doc, int *n_projects, int *n_issues,
    struct err *e)
{
	struct json_object	*projects, *issues;
	size_t			 i, np, ni;
	int			 rc = 0, bad = 0;

	*n_projects = *n_issues = 0;
	projects = tracker_array(doc, "projects", &bad);
	issues = tracker_array(doc, "issues", &bad);
	if (!json_object_is_type(doc, json_type_object) || bad)
		return err_set(e, ERR_INVALID, "expected an object with the arrays projects and "
		    "issues");
	np = projects != NULL ? json_object_array_length(projects) : 0;
	ni = issues != NULL ? json_object_array_length(issues) : 0;
	if ((rc = db_begin(db, e)) != 0)
		return rc;
	for (i = 0; rc == 0 && i < np; i++)
		rc = tracker_import_project(db, json_object_array_get_idx(projects, i), i, e);
	for (i = 0; rc == 0 && i < ni; i++)
		rc = tracker_import_issue(db, json_object_array_get_idx(issues, i), i, e);
	for (i = 0; rc == 0 && i < ni; i++)
		rc = tracker_import_links(db, json_object_array_get_idx(issues, i), e);
	if (rc == 0)
		rc = db_commit(db, e);
	if (rc != 0) {
		db_rollback(db);
		return rc;
	}
	*n_projects = (int)np;
	*n_issues = (int)ni;
	return 0;
}
