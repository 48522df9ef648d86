/* db_changes: the tracker's change journal (db_tracker.h, schema/016-tracker-changes.sql). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <json-c/json.h>

#include "err.h"
#include "store/db-internal.h"
#include "store/db.h"
#include "store/db_tracker.h"

/* The value columns the feed sends, cut to this many characters. */
#define CHANGE_VALUE_MAX	"500"
/* A value kept in the journal (a description's may be megabytes), in characters. */
#define CHANGE_KEPT		"4000"

/*
 * The feed: journal rows and comments of a period, newest first.  The
 * scope is a project's own issues (label), one issue (key) or every issue;
 * the kinds a FIND_IN_SET list of journal kinds and a flag for comments.
 */
#define CHANGE_COLS \
    " i.issue_key AS k, i.summary AS s, i.status AS st,"
static const char SQL_FEED[] =
    "SELECT k, s, st, " DB_DATE("at_raw") ", author, kind, field, from_v, to_v FROM ("
    " (SELECT" CHANGE_COLS " c.changed_at AS at_raw, c.id AS n, c.author, c.kind,"
    "  c.field, LEFT(c.from_value, " CHANGE_VALUE_MAX ") AS from_v,"
    "  LEFT(c.to_value, " CHANGE_VALUE_MAX ") AS to_v"
    " FROM tracker_changes c JOIN tracker_issues i ON i.id = c.issue_id"
    " WHERE c.changed_at >= ? AND c.changed_at < COALESCE(?, '9999-12-31')"
    "  AND FIND_IN_SET(c.kind, ?) > 0"
    "  AND (? IS NULL OR EXISTS (SELECT 1 FROM tracker_issue_labels l"
    "   WHERE l.issue_id = i.id AND l.label = ?)) AND (? IS NULL OR i.issue_key = ?)"
    " ORDER BY c.changed_at DESC, c.id DESC LIMIT ?)"
    " UNION ALL (SELECT" CHANGE_COLS " m.created_at, m.id, m.author, 'comment', NULL, NULL,"
    "  LEFT(m.body, " CHANGE_VALUE_MAX ")"
    " FROM tracker_comments m JOIN tracker_issues i ON i.id = m.issue_id"
    " WHERE ? <> 0 AND m.created_at >= ? AND m.created_at < COALESCE(?, '9999-12-31')"
    "  AND (? IS NULL OR EXISTS (SELECT 1 FROM tracker_issue_labels l"
    "   WHERE l.issue_id = i.id AND l.label = ?)) AND (? IS NULL OR i.issue_key = ?)"
    " ORDER BY m.created_at DESC, m.id DESC LIMIT ?)"
    ") x ORDER BY at_raw DESC, kind = 'comment', n DESC LIMIT ?";
static const char SQL_PROJECT_KNOWN[] =
    "SELECT COUNT(*) FROM tracker_projects WHERE label = ?";
static const char SQL_KEY_KNOWN[] =
    "SELECT COUNT(*) FROM tracker_issues WHERE issue_key = ?";
/* The card: the issue's latest journal rows and how many there are. */
static const char SQL_CARD[] =
    "SELECT " DB_DATE("changed_at") ", author, kind, field,"
    " LEFT(from_value, " CHANGE_VALUE_MAX "), LEFT(to_value, " CHANGE_VALUE_MAX ")"
    " FROM tracker_changes WHERE issue_id = ? ORDER BY changed_at DESC, id DESC LIMIT ?";
static const char SQL_CARD_COUNT[] =
    "SELECT COUNT(*) FROM tracker_changes WHERE issue_id = ?";
static const char SQL_ADD[] =
    "INSERT INTO tracker_changes (issue_id, changed_at, author, kind, field, from_value,"
    " to_value) VALUES (?, COALESCE(STR_TO_DATE(?, '%Y-%m-%dT%H:%i:%sZ'), UTC_TIMESTAMP(3)),"
    " ?, ?, ?, LEFT(?, " CHANGE_KEPT "), LEFT(?, " CHANGE_KEPT "))";
/* The values ensure_fields may change, as the card shows them, locked for the update. */
static const char SQL_CURRENT[] =
    "SELECT id, summary, description, status, assignee, priority,"
    " DATE_FORMAT(due_date, '%Y-%m-%d'), " DB_POINTS("story_points") ", sprint"
    " FROM tracker_issues WHERE issue_key = ? FOR UPDATE";

static int
changes_known(struct db *db, const char *sql, const char *value, int *yes, struct err *e)
{
	struct db_rows	r = { 0 };
	int		rc;

	*yes = 0;
	if ((rc = db_run(db, DB_RETRY, sql, &r, NULL, NULL, e, "s", value)) == 0)
		*yes = r.n > 0 && db_to_u64(db_rows_get(&r, 0, 0)) > 0;
	db_rows_release(&r);
	return rc;
}

int
tracker_changes(struct db *db, struct json_object **out, const struct tracker_period *p,
    struct err *e)
{
	static const char *const names[] = { "key", "summary", "status", "at", "author", "kind",
	    "field", "from", "to", NULL };
	struct db_rows		 r = { 0 };
	struct json_object	*o, *a;
	int			 rc, known = 1;

	*out = NULL;
	if (p->key != NULL)
		rc = changes_known(db, SQL_KEY_KNOWN, p->key, &known, e);
	else if (p->project != NULL)
		rc = changes_known(db, SQL_PROJECT_KNOWN, p->project, &known, e);
	else
		rc = 0;
	if (rc != 0)
		return rc;
	if (!known)
		return err_set(e, ERR_NOTFOUND, "%s", p->key != NULL ? "key" : "project");
	/* each side stops at limit + 1 rows: a long period costs no more than a short one */
	if ((rc = db_run(db, DB_RETRY, SQL_FEED, &r, NULL, NULL, e, "sssssss" "i" "issssss" "i"
	    "i", p->since, p->until, p->journal_kinds, p->project, p->project, p->key, p->key,
	    (int64_t)p->limit + 1, (int64_t)p->comments, p->since, p->until, p->project,
	    p->project, p->key, p->key, (int64_t)p->limit + 1, (int64_t)p->limit + 1)) != 0)
		return rc;
	o = json_object_new_object();
	a = tracker_rows(&r, r.n > (size_t)p->limit ? (size_t)p->limit : r.n, names,
	    "sssssssss");
	if (o == NULL || a == NULL) {
		json_object_put(o);
		json_object_put(a);
		db_rows_release(&r);
		return err_set(e, ERR_NOMEM, "out of memory");
	}
	json_object_object_add(o, "events", a);
	json_object_object_add(o, "truncated", json_object_new_boolean(r.n > (size_t)p->limit));
	json_object_object_add(o, "limit", json_object_new_int(p->limit));
	db_rows_release(&r);
	*out = o;
	return 0;
}

int
tracker_issue_changes(struct db *db, struct json_object *o, uint64_t issue, int max,
    struct err *e)
{
	static const char *const names[] = { "at", "author", "kind", "field", "from", "to",
	    NULL };
	struct db_rows		 r = { 0 };
	struct json_object	*a;
	int			 rc;

	if ((rc = db_run(db, DB_RETRY, SQL_CARD, &r, NULL, NULL, e, "ui", issue,
	    (int64_t)max)) != 0)
		return rc;
	if ((a = tracker_rows(&r, r.n, names, "ssssss")) == NULL) {
		db_rows_release(&r);
		return err_set(e, ERR_NOMEM, "out of memory");
	}
	json_object_object_add(o, "changes", a);
	db_rows_release(&r);
	if ((rc = db_run(db, DB_RETRY, SQL_CARD_COUNT, &r, NULL, NULL, e, "u", issue)) != 0)
		return rc;
	json_object_object_add(o, "change_count",
	    json_object_new_uint64(r.n > 0 ? db_to_u64(db_rows_get(&r, 0, 0)) : 0));
	db_rows_release(&r);
	return 0;
}

/* Whether kind is one the journal keeps. */
static int
changes_kind_ok(const char *kind)
{
	static const char *const kinds[] = { "status", "description", "due", "start", "end",
	    "field" };
	size_t	i;

	for (i = 0; kind != NULL && i < sizeof kinds / sizeof kinds[0]; i++)
		if (strcmp(kind, kinds[i]) == 0)
			return 1;
	return 0;
}

static const struct tracker_width change_widths[] = {
	{ "author", 255 }, { "field", 255 }, { "from", 16000 }, { "to", 16000 }, { NULL, 0 }
};

int
tracker_import_changes(struct db *db, struct json_object *list, uint64_t issue,
    const char *key, struct err *e)
{
	struct json_object	*c;
	const char		*at, *author, *kind, *field;
	size_t			 j;
	int			 rc, bad;

	for (j = 0; list != NULL && j < json_object_array_length(list); j++) {
		c = json_object_array_get_idx(list, j);
		bad = !json_object_is_type(c, json_type_object);
		at = tracker_str(c, "at", &bad);
		author = tracker_str(c, "author", &bad);
		kind = tracker_str(c, "kind", &bad);
		field = tracker_str(c, "field", &bad);
		if (bad || !tracker_time_ok(at) || author == NULL || !changes_kind_ok(kind) ||
		    (strcmp(kind, "field") == 0) != (field != NULL))
			return err_set(e, ERR_INVALID, "%s: changes[%zu]: at (YYYY-MM-DDTHH:MM:SSZ), "
			    "author and kind (status, description, due, start, end or field, "
			    "which alone names its field) are required, from and to are strings",
			    key, j);
		if (tracker_too_long(c, change_widths) != NULL)
			return err_set(e, ERR_INVALID, "%s: changes[%zu]: author and field are at "
			    "most 255 characters, from and to 16,000", key, j);
		tracker_str(c, "from", &bad);
		tracker_str(c, "to", &bad);
		if (bad)
			return err_set(e, ERR_INVALID, "%s: changes[%zu]: from and to are strings "
			    "or null", key, j);
		if ((rc = db_run(db, DB_ONCE, SQL_ADD, NULL, NULL, NULL, e, "usssss" "s", issue, at,
		    author, kind, field, tracker_str(c, "from", &bad),
		    tracker_str(c, "to", &bad))) != 0)
			return rc;
	}
	return 0;
}

/*
 * ensure_fields' members, in the order of SQL_CURRENT's columns from 1,
 * and the journal kind each change is (field: under its own name).
 */
static const struct {
	const char	*member, *kind;
} change_fields[] = {
	{ "summary", "field" }, { "description", "description" }, { "status", "status" },
	{ "assignee", "field" }, { "priority", "field" }, { "due", "due" },
	{ "story_points", "field" }, { "sprint", "field" },
};

int
tracker_journal_fields(struct db *db, const char *key, const char *author,
    struct json_object *params, struct err *e)
{
	struct db_rows		 r = { 0 };
	struct json_object	*v;
	const char		*was, *now, *kind;
	char			 num[32];
	uint64_t		 issue;
	size_t			 i;
	int			 rc;

	if ((rc = db_run(db, DB_ONCE, SQL_CURRENT, &r, NULL, NULL, e, "s", key)) != 0 ||
	    r.n == 0) {
		db_rows_release(&r);
		return rc;
	}
	issue = db_to_u64(db_rows_get(&r, 0, 0));
	for (i = 0; rc == 0 && i < sizeof change_fields / sizeof change_fields[0]; i++) {
		if (!json_object_object_get_ex(params, change_fields[i].member, &v) || v == NULL)
			continue;
		if (json_object_is_type(v, json_type_double) ||
		    json_object_is_type(v, json_type_int)) {
			snprintf(num, sizeof num, "%g", json_object_get_double(v));
			now = num;
		} else
			now = json_object_get_string(v);
		was = db_rows_get(&r, 0, i + 1);
		if (was != NULL && strcmp(was, now) == 0)
			continue;
		kind = change_fields[i].kind;
		rc = db_run(db, DB_ONCE, SQL_ADD, NULL, NULL, NULL, e, "usssss" "s", issue,
		    (const char *)NULL, author, kind,
		    strcmp(kind, "field") == 0 ? change_fields[i].member : NULL, was, now);
	}
	db_rows_release(&r);
	return rc;
}
