/* db_agent_local: the local backend of the hub's commands: the hub's own tables are the tracker (db_agent.h). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <json-c/json.h>

#include "err.h"
#include "store/db.h"
#include "store/db-internal.h"
#include "store/db_agent.h"
#include "store/agent-internal.h"
#include "store/db_tracker.h"

static const char SQL_BATCH_LABEL[] =
    "SELECT p.label FROM tracker_batches b JOIN tracker_projects p ON p.id = b.project_id"
    " WHERE b.id = ?";
static const char SQL_NEXT_ID[] =
    "SELECT COALESCE(MAX(id), 0) + 1 FROM tracker_issues FOR UPDATE";
static const char SQL_NEXT_NUMBER[] =
    "SELECT COALESCE(MAX(CAST(SUBSTRING(issue_key, CHAR_LENGTH(?) + 2) AS UNSIGNED)), 0) + 1"
    " FROM tracker_issues WHERE issue_key LIKE CONCAT(?, '-%') FOR UPDATE";
static const char SQL_NEW_ISSUE[] =
    "INSERT INTO tracker_issues (id, issue_key, issue_type, summary, description, status,"
    " priority, assignee, due_date, created_at, updated_at)"
    " VALUES (?, ?, ?, ?, ?, 'Новая', ?, ?, ?, UTC_TIMESTAMP(3), UTC_TIMESTAMP(3))";
static const char SQL_NEW_LABEL[] =
    "INSERT IGNORE INTO tracker_issue_labels (issue_id, label) VALUES (?, ?)";
static const char SQL_FIELDS[] =
    "UPDATE tracker_issues SET summary = COALESCE(?, summary),"
    " description = COALESCE(?, description), status = COALESCE(?, status),"
    " assignee = COALESCE(?, assignee), priority = COALESCE(?, priority),"
    " due_date = COALESCE(?, due_date), story_points = COALESCE(?, story_points),"
    " updated_at = UTC_TIMESTAMP(3) WHERE issue_key = ?";
static const char SQL_LINK[] =
    "INSERT IGNORE INTO tracker_links (outward_id, inward_id, link_type, outward, inward)"
    " SELECT a.id, b.id, ?, ?, ? FROM tracker_issues a JOIN tracker_issues b"
    " ON a.issue_key = ? AND b.issue_key = ?";
static const char SQL_PROJECT_ISSUES[] =
    "SELECT COUNT(*) FROM tracker_issue_labels l JOIN tracker_projects p ON p.label = l.label"
    " JOIN tracker_batches b ON b.project_id = p.id WHERE b.id = ?";
static const char SQL_BATCH_AUTHOR[] =
    "SELECT author FROM tracker_batches WHERE id = ?";
static const char SQL_KEY_EXISTS[] =
    "SELECT COUNT(*) FROM tracker_issues WHERE issue_key = ?";

/* How the local tracker names the two ends of a link type (Jira's defaults). */
static const struct {
	const char	*type, *outward, *inward;
} local_links[] = {
	{ "Blocks", "blocks", "is blocked by" },
	{ "Relates", "relates to", "relates to" },
	{ "Duplicate", "duplicates", "is duplicated by" },
	{ "Cloners", "clones", "is cloned by" },
};

static const char *
local_str(struct json_object *p, const char *name)
{
	struct json_object	*v;

	return json_object_object_get_ex(p, name, &v) && v != NULL ? json_object_get_string(v)
	    : NULL;
}

static int
local_exists(struct db *db, const char *key, int *yes, struct err *e)
{
	struct db_rows	 r = { 0 };
	int		 rc;

	*yes = 0;
	if ((rc = db_run(db, DB_ONCE, SQL_KEY_EXISTS, &r, NULL, NULL, e, "s", key)) == 0)
		*yes = r.n > 0 && db_to_u64(db_rows_get(&r, 0, 0)) > 0;
	db_rows_release(&r);
	return rc;
}

static int
local_issue(struct db *db, uint64_t batch, struct json_object *p, struct json_object **result,
    char **why, struct err *e)
{
	struct db_rows		 r = { 0 };
	struct json_object	*labels;
	char			 key[100], label[65];
	uint64_t		 id, n;
	size_t			 i;
	int			 rc;

	if ((rc = db_run(db, DB_ONCE, SQL_BATCH_LABEL, &r, NULL, NULL, e, "u", batch)) != 0)
		return rc;
	if (r.n == 0) {
		db_rows_release(&r);
		*why = strdup("у пакета нет проекта: ключ новой задачи берётся из метки проекта");
		return 0;
	}
	snprintf(label, sizeof label, "%s", db_rows_get(&r, 0, 0));
	db_rows_release(&r);
	if ((rc = db_run(db, DB_ONCE, SQL_NEXT_ID, &r, NULL, NULL, e, "")) != 0)
		return rc;
	id = db_to_u64(db_rows_get(&r, 0, 0));
	db_rows_release(&r);
	if ((rc = db_run(db, DB_ONCE, SQL_NEXT_NUMBER, &r, NULL, NULL, e, "ss", label, label)) != 0)
		return rc;
	n = db_to_u64(db_rows_get(&r, 0, 0));
	db_rows_release(&r);
	snprintf(key, sizeof key, "%s-%llu", label, (unsigned long long)n);
	if ((rc = db_run(db, DB_ONCE, SQL_NEW_ISSUE, NULL, NULL, NULL, e, "ussssss" "s", id, key,
	    local_str(p, "issue_type") != NULL ? local_str(p, "issue_type") : "task",
	    local_str(p, "summary"), local_str(p, "description"), local_str(p, "priority"),
	    local_str(p, "assignee"), local_str(p, "due"))) != 0)
		return rc;
	labels = json_object_object_get(p, "labels");
	for (i = 0; labels != NULL && i < json_object_array_length(labels); i++)
		if ((rc = db_run(db, DB_ONCE, SQL_NEW_LABEL, NULL, NULL, NULL, e, "us", id,
		    json_object_get_string(json_object_array_get_idx(labels, i)))) != 0)
			return rc;
	*result = json_object_new_object();
	json_object_object_add(*result, "temp_key",
	    json_object_new_string(local_str(p, "temp_key")));
	json_object_object_add(*result, "key", json_object_new_string(key));
	return 0;
}

static int
local_link(struct db *db, struct json_object *p, char **why, struct err *e)
{
	const char	*type = local_str(p, "link_type"), *from = local_str(p, "key"),
			*to = local_str(p, "to"), *out = NULL, *in = NULL, *x;
	char		 lower[70];
	size_t		 i;
	int		 rc, a, b;

	if ((rc = local_exists(db, from, &a, e)) != 0 || (rc = local_exists(db, to, &b, e)) != 0)
		return rc;
	if (!a || !b) {
		if (asprintf(why, "задачи %s нет в трекере", a ? to : from) < 0)
			*why = NULL;
		return 0;
	}
	for (i = 0; i < sizeof local_links / sizeof local_links[0]; i++)
		if (strcasecmp(local_links[i].type, type) == 0) {
			type = local_links[i].type;
			out = local_links[i].outward;
			in = local_links[i].inward;
		}
	if (out == NULL) {
		for (i = 0; type[i] != '\0' && i + 1 < sizeof lower; i++)
			lower[i] = (char)((type[i] >= 'A' && type[i] <= 'Z') ? type[i] + 32 : type[i]);
		lower[i] = '\0';
		out = in = lower;
	}
	if (local_str(p, "direction") != NULL && strcmp(local_str(p, "direction"), "inward") == 0) {
		x = from;
		from = to;
		to = x;
	}
	return db_run(db, DB_ONCE, SQL_LINK, NULL, NULL, NULL, e, "sssss", type, out, in, from, to);
}

/*
 * refresh: the local tracker is its own mirror, so there is nothing to
 * fetch; the run is logged, its journal taken in up to now.
 */
static int
local_refresh(struct db *db, uint64_t batch, uint64_t id, struct json_object *p,
    struct err *e)
{
	struct db_rows		 r = { 0 };
	struct json_object	*keys = json_object_object_get(p, "keys");
	int64_t			 n = 0;
	int			 rc;

	if (keys != NULL)
		n = (int64_t)json_object_array_length(keys);
	else if ((rc = db_run(db, DB_ONCE, SQL_PROJECT_ISSUES, &r, NULL, NULL, e, "u",
	    batch)) != 0)
		return rc;
	else
		n = (int64_t)db_to_u64(db_rows_get(&r, 0, 0));
	db_rows_release(&r);
	return agent_sync_done(db, id, n, batch, e);
}

/* Applies command id (type, params with keys resolved); *why set when it fails. */
static int
local_apply(struct db *db, uint64_t batch, uint64_t id, const char *type, struct json_object *p,
    uint64_t cap, struct json_object **result, char **why, struct err *e)
{
	struct db_rows	 r = { 0 };
	char		 author[80];
	uint64_t	 changed;
	int		 rc;

	if (strcmp(type, "ensure_issue") == 0)
		return local_issue(db, batch, p, result, why, e);
	if (strcmp(type, "ensure_link") == 0)
		return local_link(db, p, why, e);
	if (strcmp(type, "refresh") == 0)
		return local_refresh(db, batch, id, p, e);
	if (strcmp(type, "fetch_attachment") == 0)
		return tracker_local_fetch(db, id, p, cap, why, e);
	if (strcmp(type, "ensure_fields") == 0 || strcmp(type, "ensure_attachment") == 0 ||
	    strncmp(type, "ensure_sprint", 13) == 0) {
		if ((rc = db_run(db, DB_ONCE, SQL_BATCH_AUTHOR, &r, NULL, NULL, e, "u",
		    batch)) != 0)
			return rc;
		snprintf(author, sizeof author, "%s", r.n > 0 ? db_rows_get(&r, 0, 0) : "api");
		db_rows_release(&r);
	}
	if (strcmp(type, "ensure_attachment") == 0)
		return tracker_local_attach(db, author, p, result, why, e);
	if (strncmp(type, "ensure_sprint", 13) == 0 || strcmp(type, "ensure_rank") == 0)
		return tracker_local_agile(db, type, strncmp(type, "ensure_sprint", 13) == 0 ?
		    author : "api", p, why, e);
	if (strcmp(type, "ensure_fields") == 0) {
		/* the journal first: it reads the values the update replaces */
		if ((rc = tracker_journal_fields(db, local_str(p, "key"), author, p, e)) != 0)
			return rc;
		if ((rc = db_run(db, DB_ONCE, SQL_FIELDS, NULL, &changed, NULL, e, "ssssssss",
		    local_str(p, "summary"), local_str(p, "description"), local_str(p, "status"),
		    local_str(p, "assignee"), local_str(p, "priority"), local_str(p, "due"),
		    local_str(p, "story_points"), local_str(p, "key"))) != 0)
			return rc;
		if (changed == 0 && asprintf(why, "задачи %s нет в трекере", local_str(p, "key")) < 0)
			*why = NULL;
		return 0;
	}
	if (asprintf(why, "бэкенд local не выполняет %s", type) < 0)
		*why = NULL;
	return 0;
}

struct local_args {
	uint64_t		 id, copies_cap;
	struct tracker_handout	*h;
	int			*done;
	char			**why;
};

static int
local_tx(struct db *db, void *arg, struct err *e)
{
	struct local_args	*a = arg;
	struct db_rows		 r = { 0 };
	struct json_object	*params = NULL, *temps = NULL, *result = NULL;
	const char		*missing;
	uint64_t		 batch;
	int			 rc;

	*a->done = 0;
	free(*a->why);
	*a->why = NULL;
	if ((rc = tracker_handout_lock(db, a->id, NULL, a->h, &r, e)) != 0)
		goto done;
	batch = db_to_u64(db_rows_get(&r, 0, 1));
	if ((params = json_tokener_parse(db_rows_get(&r, 0, 3))) == NULL)
		params = json_object_new_object();
	if ((rc = agent_temps(db, &temps, batch, UINT32_MAX, e)) != 0)
		goto done;
	if ((missing = agent_resolve(params, temps)) != NULL) {
		if (asprintf(a->why, "%s не создана: её ensure_issue не выполнен", missing) < 0)
			*a->why = NULL;
	} else if ((rc = local_apply(db, batch, a->id, db_rows_get(&r, 0, 2), params,
	    a->copies_cap, &result, a->why, e)) != 0)
		goto done;
	*a->done = *a->why == NULL;
	rc = agent_end(db, a->id, &r, *a->done ? "done" : "failed", *a->why, result, e);
done:
	json_object_put(params);
	json_object_put(temps);
	json_object_put(result);
	db_rows_release(&r);
	return rc;
}

int
tracker_local_run(struct db *db, uint64_t id, struct tracker_handout *h, int *done,
    char **why, uint64_t copies_cap, struct err *e)
{
	struct local_args	 a = { id, copies_cap, h, done, why };

	*why = NULL;
	return db_tx(db, local_tx, &a, e);
}
