/*
 * db_import: the tracker mirror filled from outside (db_tracker.h): a
 * fixture file (`forgemcp tracker import`), where an issue given again is
 * replaced, and a page of a Jira agent's refresh, where an issue given
 * again is updated in place, so what the hub keeps of its own (the copies
 * of attachments, their fetch state, notes) stays.
 */
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <json-c/json.h>

#include "err.h"
#include "json.h"
#include "store/db.h"
#include "store/db-internal.h"
#include "store/db_agent.h"
#include "store/db_tracker.h"

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
/*
 * A refresh updates an issue in place (an issue whose key another id held
 * before, moved in the tracker, goes first) and replaces what the tracker
 * holds of it: labels, fields, comments, the journal and links.
 */
static const char SQL_REFRESH_KEY[] =
    "DELETE FROM tracker_issues WHERE issue_key = ? AND id <> ?";
static const char SQL_REFRESH_ISSUE[] =
    "INSERT INTO tracker_issues (id, issue_key, issue_type, summary, description, status,"
    " priority, assignee, reporter, due_date, sprint, story_points, created_at, updated_at)"
    " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?,"
    " STR_TO_DATE(?, '%Y-%m-%dT%H:%i:%sZ'), STR_TO_DATE(?, '%Y-%m-%dT%H:%i:%sZ'))"
    " ON DUPLICATE KEY UPDATE issue_key = VALUES(issue_key), issue_type = VALUES(issue_type),"
    " summary = VALUES(summary), description = VALUES(description), status = VALUES(status),"
    " priority = VALUES(priority), assignee = VALUES(assignee), reporter = VALUES(reporter),"
    " due_date = VALUES(due_date), sprint = VALUES(sprint),"
    " story_points = VALUES(story_points), created_at = VALUES(created_at),"
    " updated_at = VALUES(updated_at)";
static const char *const SQL_REFRESH_DROP[] = {
	"DELETE FROM tracker_issue_labels WHERE issue_id = ?",
	"DELETE FROM tracker_issue_fields WHERE issue_id = ?",
	"DELETE FROM tracker_comments WHERE issue_id = ?",
	"DELETE FROM tracker_changes WHERE issue_id = ?",
	"DELETE FROM tracker_links WHERE outward_id = ?",
	"DELETE FROM tracker_links WHERE inward_id = ?",
};
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

const char *
tracker_too_long(struct json_object *o, const struct tracker_width *w)
{
	struct json_object	*v;
	size_t			 chars;

	for (; w->name != NULL; w++) {
		if (!json_object_object_get_ex(o, w->name, &v) ||
		    !json_object_is_type(v, json_type_string))
			continue;
		json_utf8_take(json_object_get_string(v), (size_t)json_object_get_string_len(v),
		    w->max + 1, &chars);
		if (chars > w->max)
			return w->name;
	}
	return NULL;
}

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

/* What the tracker's columns hold, in characters. */
static const struct tracker_width issue_widths[] = {
	{ "key", 64 }, { "type", 64 }, { "summary", 1000 }, { "status", 64 }, { "priority", 64 },
	{ "assignee", 255 }, { "reporter", 255 }, { "sprint", 255 }, { NULL, 0 }
};
static const struct tracker_width comment_widths[] = { { "author", 255 }, { NULL, 0 } };

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
		if (tracker_too_long(c, comment_widths) != NULL)
			return err_set(e, ERR_INVALID, "%s: comments[%zu]: author is over 255 "
			    "characters", key, j);
		if ((rc = db_run(db, DB_ONCE, SQL_IMPORT_DROP_COMMENT, NULL, NULL, NULL, e, "u",
		    id)) != 0 ||
		    (rc = db_run(db, DB_ONCE, SQL_IMPORT_COMMENT, NULL, NULL, NULL, e, "uussss", id,
		    issue, author, body, created, updated)) != 0)
			return rc;
	}
	return 0;
}

/* Makes room for issue id (key) as a fixture replaces it or a refresh updates it. */
static int
tracker_import_clear(struct db *db, uint64_t id, const char *key, int refresh, struct err *e)
{
	size_t	k;
	int	rc;

	if (!refresh)
		return db_run(db, DB_ONCE, SQL_IMPORT_DROP_ISSUE, NULL, NULL, NULL, e, "us", id, key);
	if ((rc = db_run(db, DB_ONCE, SQL_REFRESH_KEY, NULL, NULL, NULL, e, "su", key, id)) != 0)
		return rc;
	for (k = 0; k < sizeof SQL_REFRESH_DROP / sizeof SQL_REFRESH_DROP[0]; k++)
		if ((rc = db_run(db, DB_ONCE, SQL_REFRESH_DROP[k], NULL, NULL, NULL, e, "u", id)) != 0)
			return rc;
	return 0;
}

static int
tracker_import_issue(struct db *db, struct json_object *o, size_t i, int refresh,
    struct err *e)
{
	struct json_object	*v, *list = NULL;
	const char		*key, *type, *summary, *status, *created, *updated, *sp = NULL;
	const char		*long_one;
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
	if ((long_one = tracker_too_long(o, issue_widths)) != NULL)
		return err_set(e, ERR_INVALID, "issues[%zu]: %s is longer than the mirror holds", i,
		    long_one);
	if ((rc = tracker_import_clear(db, id, key, refresh, e)) != 0 ||
	    (rc = db_run(db, DB_ONCE, refresh ? SQL_REFRESH_ISSUE : SQL_IMPORT_ISSUE, NULL, NULL,
	    NULL, e, "usssssssssssss", id,
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
	return tracker_import_attachments(db, list, id, key, refresh, e);
}

/*
 * The links of issue o, once every issue is in: each to another issue
 * ("to": o is the outward end) or from one ("from": o is the inward end).
 */
static int
tracker_import_links(struct db *db, struct json_object *o, struct err *e)
{
	struct json_object	*list, *k;
	const char		*key, *type, *outward, *inward, *to, *from;
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
		from = tracker_str(k, "from", &bad);
		if (bad || type == NULL || outward == NULL || inward == NULL ||
		    (to == NULL) == (from == NULL))
			return err_set(e, ERR_INVALID, "%s: links[%zu]: type, outward, inward and "
			    "either to or from are strings", key, j);
		if ((rc = db_run(db, DB_ONCE, SQL_IMPORT_LINK, NULL, &added, NULL, e, "sssss", type,
		    outward, inward, to != NULL ? key : from, to != NULL ? to : key)) != 0)
			return rc;
		if (to == NULL)
			to = from;
		if (added == 0 && strcmp(key, to) == 0)
			return err_set(e, ERR_INVALID, "%s: links[%zu]: a link to itself", key, j);
	}
	return 0;
}

/* A fixture's projects and issues (arrays, NULL when absent) and their counts. */
struct import_args {
	struct json_object	*projects, *issues;
	size_t			 np, ni;
};

/* The projects, then the issues, then their links, once every issue is in. */
static int
import_tx(struct db *db, void *arg, struct err *e)
{
	struct import_args	*a = arg;
	size_t			 i;
	int			 rc = 0;

	for (i = 0; rc == 0 && i < a->np; i++)
		rc = tracker_import_project(db, json_object_array_get_idx(a->projects, i), i, e);
	for (i = 0; rc == 0 && i < a->ni; i++)
		rc = tracker_import_issue(db, json_object_array_get_idx(a->issues, i), i, 0, e);
	for (i = 0; rc == 0 && i < a->ni; i++)
		rc = tracker_import_links(db, json_object_array_get_idx(a->issues, i), e);
	return rc;
}

int
tracker_import(struct db *db, struct json_object *doc, int *n_projects, int *n_issues,
    struct err *e)
{
	struct import_args	 a = { NULL, NULL, 0, 0 };
	int			 rc, bad = 0;

	*n_projects = *n_issues = 0;
	a.projects = tracker_array(doc, "projects", &bad);
	a.issues = tracker_array(doc, "issues", &bad);
	if (!json_object_is_type(doc, json_type_object) || bad)
		return err_set(e, ERR_INVALID, "expected an object with the arrays projects and "
		    "issues");
	a.np = a.projects != NULL ? json_object_array_length(a.projects) : 0;
	a.ni = a.issues != NULL ? json_object_array_length(a.issues) : 0;
	if ((rc = db_tx(db, import_tx, &a, e)) != 0)
		return rc;
	*n_projects = (int)a.np;
	*n_issues = (int)a.ni;
	return 0;
}

static const char SQL_REFRESH_PROJECT[] =
    "SELECT p.label, p.board_id FROM tracker_commands c JOIN tracker_batches b"
    " ON b.id = c.batch_id JOIN tracker_projects p ON p.id = b.project_id WHERE c.id = ?";
static const char SQL_REFRESH_BOARD_TYPE[] =
    "UPDATE tracker_projects SET board_type = ? WHERE label = ?";
static const char SQL_REFRESH_SPRINTS[] =
    "DELETE FROM tracker_sprints WHERE board_id = ?";
static const char SQL_REFRESH_COLUMNS[] =
    "DELETE FROM tracker_board_columns WHERE board_id = ?";

/* Whether issue o's labels hold label. */
static int
tracker_has_label(struct json_object *o, const char *label)
{
	struct json_object	*list = json_object_object_get(o, "labels"), *v;
	size_t			 j;

	if (!json_object_is_type(list, json_type_array))
		return 0;
	for (j = 0; j < json_object_array_length(list); j++)
		if (json_object_is_type((v = json_object_array_get_idx(list, j)), json_type_string) &&
		    strcmp(json_object_get_string(v), label) == 0)
			return 1;
	return 0;
}

/* The board's part of a refresh page: its type, and its sprints and columns when given. */
static int
tracker_refresh_board(struct db *db, struct json_object *p, const char *label, uint64_t board,
    struct err *e)
{
	int	rc, bad = 0;

	if (!json_object_is_type(p, json_type_object))
		return err_set(e, ERR_INVALID, "project is an object");
	if (tracker_str(p, "board_type", &bad) != NULL && (rc = db_run(db, DB_ONCE,
	    SQL_REFRESH_BOARD_TYPE, NULL, NULL, NULL, e, "ss", tracker_str(p, "board_type", &bad),
	    label)) != 0)
		return rc;
	if (bad)
		return err_set(e, ERR_INVALID, "project.board_type is a string");
	if (board == 0)
		return 0;
	if (json_object_object_get(p, "sprints") != NULL && (rc = db_run(db, DB_ONCE,
	    SQL_REFRESH_SPRINTS, NULL, NULL, NULL, e, "u", board)) != 0)
		return rc;
	if (json_object_object_get(p, "columns") != NULL && (rc = db_run(db, DB_ONCE,
	    SQL_REFRESH_COLUMNS, NULL, NULL, NULL, e, "u", board)) != 0)
		return rc;
	return tracker_import_agile(db, p, board, 0, e);
}

static const char SQL_REFRESH_ONE[] =
    "SELECT i.id FROM tracker_issues i JOIN tracker_issue_labels l ON l.issue_id = i.id"
    " AND l.label = ? WHERE i.issue_key = ?";

/* more {key, comments | changes}: an issue's list too long for its page, after it. */
static int
tracker_refresh_more(struct db *db, struct json_object *more, const char *label,
    struct err *e)
{
	struct db_rows		 r = { 0 };
	struct json_object	*list;
	const char		*key;
	uint64_t		 id;
	int			 rc, bad = 0;

	key = tracker_str(more, "key", &bad);
	if (bad || key == NULL)
		return err_set(e, ERR_INVALID, "more: key is the issue's key");
	if ((rc = db_run(db, DB_ONCE, SQL_REFRESH_ONE, &r, NULL, NULL, e, "ss", label, key)) != 0)
		return rc;
	id = r.n > 0 ? db_to_u64(db_rows_get(&r, 0, 0)) : 0;
	db_rows_release(&r);
	if (id == 0)
		return err_set(e, ERR_INVALID, "more: no issue %s of the project %s in the mirror",
		    key, label);
	if ((list = tracker_array(more, "comments", &bad)) != NULL && !bad &&
	    (rc = tracker_import_comments(db, list, id, key, e)) != 0)
		return rc;
	if ((list = tracker_array(more, "changes", &bad)) != NULL && !bad &&
	    (rc = tracker_import_changes(db, list, id, key, e)) != 0)
		return rc;
	return bad ? err_set(e, ERR_INVALID, "more: comments and changes are arrays") : 0;
}

/* A refresh page as tracker_refresh_page was given it. */
struct refresh_args {
	uint64_t		 command;
	struct tracker_handout	*h;
	struct json_object	*body, *issues;
	size_t			 ni;
};

/*
 * The claimed refresh command's project: its board, a "more" of an
 * earlier page, then the page's issues (each of the project) and links.
 */
static int
refresh_tx(struct db *db, void *arg, struct err *e)
{
	static const char *const types[] = { "refresh", NULL };
	struct refresh_args	*a = arg;
	struct db_rows		 r = { 0 };
	struct json_object	*p;
	char			 label[256];
	uint64_t		 board;
	size_t			 i;
	int			 rc;

	if ((rc = tracker_handout_lock(db, a->command, types, a->h, NULL, e)) != 0 ||
	    (rc = db_run(db, DB_ONCE, SQL_REFRESH_PROJECT, &r, NULL, NULL, e, "u", a->command)) != 0)
		return rc;
	db_copy_str(label, sizeof label, db_rows_get(&r, 0, 0));
	board = db_rows_get(&r, 0, 1) != NULL ? db_to_u64(db_rows_get(&r, 0, 1)) : 0;
	db_rows_release(&r);
	if ((p = json_object_object_get(a->body, "project")) != NULL &&
	    (rc = tracker_refresh_board(db, p, label, board, e)) != 0)
		return rc;
	if ((p = json_object_object_get(a->body, "more")) != NULL &&
	    (rc = tracker_refresh_more(db, p, label, e)) != 0)
		return rc;
	for (i = 0; i < a->ni; i++)
		if (!tracker_has_label(json_object_array_get_idx(a->issues, i), label))
			return err_set(e, ERR_INVALID, "issues[%zu]: no label %s: not of the project "
			    "this refresh is for", i, label);
	for (i = 0; rc == 0 && i < a->ni; i++)
		rc = tracker_import_issue(db, json_object_array_get_idx(a->issues, i), i, 1, e);
	for (i = 0; rc == 0 && i < a->ni; i++)
		rc = tracker_import_links(db, json_object_array_get_idx(a->issues, i), e);
	return rc;
}

int
tracker_refresh_page(struct db *db, uint64_t command, struct tracker_handout *h,
    struct json_object *body, int *n, struct err *e)
{
	struct refresh_args	 a = { command, h, body, NULL, 0 };
	int			 rc, bad = 0;

	*n = 0;
	a.issues = tracker_array(body, "issues", &bad);
	if (bad)
		return err_set(e, ERR_INVALID, "issues is an array");
	a.ni = a.issues != NULL ? json_object_array_length(a.issues) : 0;
	if ((rc = db_tx(db, refresh_tx, &a, e)) != 0)
		return rc;
	*n = (int)a.ni;
	return 0;
}
