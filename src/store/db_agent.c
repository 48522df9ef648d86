/* db_agent: claims, reports and the local backend of the hub's commands (db_agent.h). */
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
#include "store/db_tracker.h"

#define CLAIM_CANDIDATES	20

/* Commands that may be handed out: nothing unfinished before them in their batch. */
static const char SQL_CANDIDATES[] =
    "SELECT c.id, c.batch_id FROM tracker_commands c"
    " WHERE (c.state = 'queued' OR (c.state = 'claimed'"
    "  AND c.claimed_at < UTC_TIMESTAMP(3) - INTERVAL ? SECOND))"
    " AND NOT EXISTS (SELECT 1 FROM tracker_commands q WHERE q.batch_id = c.batch_id"
    "  AND q.seq < c.seq AND q.state IN ('queued', 'claimed'))"
    " AND (LEFT(c.type, 5) = 'wiki_') = ?"
    " ORDER BY c.id LIMIT ?";
/* A batch is claimed from by one transaction at a time: the batch row is the lock. */
static const char SQL_LOCK_BATCH[] =
    "SELECT b.id, p.label FROM tracker_batches b LEFT JOIN tracker_projects p"
    " ON p.id = b.project_id WHERE b.id = ? FOR UPDATE SKIP LOCKED";
static const char SQL_RECHECK[] =
    "SELECT c.seq, c.type, c.params, c.state, c.handouts FROM tracker_commands c"
    " WHERE c.id = ? AND (c.state = 'queued' OR (c.state = 'claimed'"
    "  AND c.claimed_at < UTC_TIMESTAMP(3) - INTERVAL ? SECOND))"
    " AND NOT EXISTS (SELECT 1 FROM tracker_commands q WHERE q.batch_id = c.batch_id"
    "  AND q.seq < c.seq AND q.state IN ('queued', 'claimed'))";
static const char SQL_TEMPS[] =
    "SELECT JSON_VALUE(params, '$.temp_key'), JSON_VALUE(result, '$.key')"
    " FROM tracker_commands WHERE batch_id = ? AND type = 'ensure_issue' AND seq < ?";
static const char SQL_HAND_OUT[] =
    "UPDATE tracker_commands SET state = 'claimed', handouts = handouts + 1,"
    " claimed_at = UTC_TIMESTAMP(3), updated_at = UTC_TIMESTAMP(3) WHERE id = ?";
static const char SQL_END[] =
    "UPDATE tracker_commands SET state = ?, error = ?, result = ?,"
    " updated_at = UTC_TIMESTAMP(3) WHERE id = ?";
static const char SQL_STATE[] =
    "SELECT state, batch_id, type, params FROM tracker_commands WHERE id = ? FOR UPDATE";
static const char SQL_SYNC_RUN[] =
    "INSERT INTO tracker_sync_runs (project_id, command_id, state, issues, history_at,"
    " started_at, finished_at) SELECT b.project_id, ?, 'done', ?, UTC_TIMESTAMP(3),"
    " UTC_TIMESTAMP(3), UTC_TIMESTAMP(3) FROM tracker_batches b WHERE b.id = ?";
static const char SQL_SYNC_FAILED[] =
    "INSERT INTO tracker_sync_runs (project_id, command_id, state, issues, error,"
    " started_at, finished_at) SELECT b.project_id, c.id, 'failed', 0, ?,"
    " COALESCE(c.claimed_at, UTC_TIMESTAMP(3)), UTC_TIMESTAMP(3)"
    " FROM tracker_commands c JOIN tracker_batches b ON b.id = c.batch_id WHERE c.id = ?";
static const char SQL_FILE_DROP[] =
    "DELETE FROM tracker_files WHERE id = ?";
/* Notes kept under "<label>/<temp_key>" go to the key the command made. */
static const char SQL_NOTES_MOVE[] =
    "UPDATE IGNORE tracker_notes SET issue_key = ? WHERE issue_key ="
    " (SELECT CONCAT(p.label, '/', ?) FROM tracker_batches b"
    "  JOIN tracker_projects p ON p.id = b.project_id WHERE b.id = ?)";

/*
 * Replaces each temporary key in params (a string "new:N" as a value, or
 * in an array value) by the key temps maps it to.  Returns the first one
 * without a key, or NULL when all were found.
 */
static const char *
agent_resolve(struct json_object *params, struct json_object *temps)
{
	struct json_object	*k, *x;
	const char		*s;
	size_t			 i;

	json_object_object_foreach(params, name, v) {
		if (json_object_is_type(v, json_type_array)) {
			for (i = 0; i < json_object_array_length(v); i++) {
				x = json_object_array_get_idx(v, i);
				s = json_object_get_string(x);
				if (strncmp(name, "temp_key", 8) == 0 || strncmp(s, "new:", 4) != 0)
					continue;
				if (!json_object_object_get_ex(temps, s, &k) || k == NULL)
					return s;
				json_object_array_put_idx(v, i, json_object_get(k));
			}
			continue;
		}
		if (strcmp(name, "temp_key") == 0 || !json_object_is_type(v, json_type_string))
			continue;
		s = json_object_get_string(v);
		if (strncmp(s, "new:", 4) != 0)
			continue;
		if (!json_object_object_get_ex(temps, s, &k) || k == NULL)
			return s;
		json_object_object_add(params, name, json_object_get(k));
	}
	return NULL;
}

/* The temporary keys the ensure_issue commands before seq made: {"new:1": "AURORA-12"}. */
static int
agent_temps(struct db *db, struct json_object **out, uint64_t batch, uint64_t seq,
    struct err *e)
{
	struct db_rows	 r = { 0 };
	const char	*key;
	size_t		 i;
	int		 rc;

	*out = json_object_new_object();
	if ((rc = db_run(db, DB_ONCE, SQL_TEMPS, &r, NULL, NULL, e, "uu", batch, seq)) == 0)
		for (i = 0; i < r.n; i++)
			if (db_rows_get(&r, i, 0) != NULL && (key = db_rows_get(&r, i, 1)) != NULL)
				json_object_object_add(*out, db_rows_get(&r, i, 0),
				    json_object_new_string(key));
	db_rows_release(&r);
	return rc;
}

/*
 * In the open transaction, with the batch locked: hands command id out
 * into *out, or ends it (skipped, failed) and leaves *out NULL.
 */
static int
agent_try(struct db *db, struct json_object **out, uint64_t id, uint64_t batch,
    const char *label, unsigned lease, struct err *e)
{
	struct db_rows		 r = { 0 };
	struct json_object	*params = NULL, *temps = NULL;
	const char		*missing;
	char			 why[200];
	uint64_t		 seq, handouts;
	int			 rc;

	*out = NULL;
	if ((rc = db_run(db, DB_ONCE, SQL_RECHECK, &r, NULL, NULL, e, "ui", id,
	    (int64_t)lease)) != 0 || r.n == 0)
		goto done;
	seq = db_to_u64(db_rows_get(&r, 0, 0));
	handouts = db_to_u64(db_rows_get(&r, 0, 4));
	if (strcmp(db_rows_get(&r, 0, 3), "claimed") == 0 && handouts >= TRACKER_HANDOUTS_MAX) {
		snprintf(why, sizeof why, "выдана агенту %llu раз без отчёта",
		    (unsigned long long)handouts);
		rc = db_run(db, DB_ONCE, SQL_END, NULL, NULL, NULL, e, "sssu", "failed", why, NULL, id);
		goto done;
	}
	if ((params = json_tokener_parse(db_rows_get(&r, 0, 2))) == NULL)
		params = json_object_new_object();
	if ((rc = agent_temps(db, &temps, batch, seq, e)) != 0)
		goto done;
	if ((missing = agent_resolve(params, temps)) != NULL) {
		snprintf(why, sizeof why, "%s не создана: её ensure_issue не выполнен", missing);
		rc = db_run(db, DB_ONCE, SQL_END, NULL, NULL, NULL, e, "sssu", "skipped", why, NULL, id);
		goto done;
	}
	if ((rc = db_run(db, DB_ONCE, SQL_HAND_OUT, NULL, NULL, NULL, e, "u", id)) != 0)
		goto done;
	*out = json_object_new_object();
	json_object_object_add(*out, "id", json_object_new_uint64(id));
	json_object_object_add(*out, "batch", json_object_new_uint64(batch));
	json_object_object_add(*out, "seq", json_object_new_uint64(seq));
	json_object_object_add(*out, "type", json_object_new_string(db_rows_get(&r, 0, 1)));
	json_object_object_add(*out, "params", params);
	params = NULL;
	json_object_object_add(*out, "handouts", json_object_new_uint64(handouts + 1));
	json_object_object_add(*out, "project", label != NULL ? json_object_new_string(label) : NULL);
done:
	json_object_put(params);
	json_object_put(temps);
	db_rows_release(&r);
	return rc;
}

int
tracker_claim(struct db *db, struct json_object **out, unsigned lease_seconds, int wiki,
    struct err *e)
{
	struct db_rows	 c = { 0 }, b = { 0 };
	uint64_t	 id, batch;
	size_t		 i;
	int		 rc, pass;

	*out = NULL;
	/* a pass that only ended commands (skipped, failed) may leave another to hand out */
	for (pass = 0; pass < 3 && *out == NULL; pass++) {
		if ((rc = db_run(db, DB_RETRY, SQL_CANDIDATES, &c, NULL, NULL, e, "iii",
		    (int64_t)lease_seconds, (int64_t)(wiki != 0), (int64_t)CLAIM_CANDIDATES)) != 0)
			return rc;
		if (c.n == 0)
			break;
		for (i = 0; i < c.n && *out == NULL; i++) {
			id = db_to_u64(db_rows_get(&c, i, 0));
			batch = db_to_u64(db_rows_get(&c, i, 1));
			if ((rc = db_begin(db, e)) != 0)
				goto fail;
			if ((rc = db_run(db, DB_ONCE, SQL_LOCK_BATCH, &b, NULL, NULL, e, "u",
			    batch)) != 0)
				goto fail_tx;
			if (b.n > 0 && (rc = agent_try(db, out, id, batch, db_rows_get(&b, 0, 1),
			    lease_seconds, e)) != 0)
				goto fail_tx;
			db_rows_release(&b);
			if ((rc = db_commit(db, e)) != 0)
				goto fail_tx;
		}
		db_rows_release(&c);
	}
	return 0;
fail_tx:
	db_rollback(db);
fail:
	json_object_put(*out);
	*out = NULL;
	db_rows_release(&b);
	db_rows_release(&c);
	return rc;
}

/* Locks command id; ERR_INVALID with its state in state unless it is claimed. */
static int
agent_lock_claimed(struct db *db, uint64_t id, struct db_rows *r, char *state, size_t len,
    struct err *e)
{
	int	rc;

	state[0] = '\0';
	if ((rc = db_run(db, DB_ONCE, SQL_STATE, r, NULL, NULL, e, "u", id)) != 0)
		return rc;
	if (r->n == 0)
		return ERR_INVALID;
	snprintf(state, len, "%s", db_rows_get(r, 0, 0));
	return strcmp(state, "claimed") == 0 ? 0 : ERR_INVALID;
}

/*
 * What a done command an agent ran elsewhere leaves in the hub: a refresh
 * that counted its issues logs its run; an ensure_attachment's file, now
 * the tracker's, goes.
 */
static int
agent_end_reported(struct db *db, uint64_t id, const struct db_rows *r,
    struct json_object *result, struct err *e)
{
	struct json_object	*v, *params;
	int			 rc = 0;

	if (strcmp(db_rows_get(r, 0, 2), "refresh") == 0 &&
	    json_object_object_get_ex(result, "issues", &v) && json_object_is_type(v, json_type_int))
		return db_run(db, DB_ONCE, SQL_SYNC_RUN, NULL, NULL, NULL, e, "uiu", id,
		    json_object_get_int64(v), db_to_u64(db_rows_get(r, 0, 1)));
	if (strcmp(db_rows_get(r, 0, 2), "ensure_attachment") != 0 ||
	    (params = json_tokener_parse(db_rows_get(r, 0, 3))) == NULL)
		return 0;
	if (json_object_object_get_ex(params, "file", &v) && json_object_is_type(v, json_type_int))
		rc = db_run(db, DB_ONCE, SQL_FILE_DROP, NULL, NULL, NULL, e, "u",
		    (uint64_t)json_object_get_int64(v));
	json_object_put(params);
	return rc;
}

/*
 * Ends command id (locked, its row r from agent_lock_claimed) in state,
 * with why and result.  A done ensure_issue takes the notes of its
 * temporary key to the key it reports, whichever backend made it.
 */
static int
agent_end(struct db *db, uint64_t id, const struct db_rows *r, const char *state,
    const char *why, struct json_object *result, struct err *e)
{
	struct json_object	*params, *key, *temp;
	int			 rc;

	if ((rc = db_run(db, DB_ONCE, SQL_END, NULL, NULL, NULL, e, "sssu", state, why,
	    result != NULL ? json_object_to_json_string_ext(result, JSON_C_TO_STRING_PLAIN |
	    JSON_C_TO_STRING_NOSLASHESCAPE) : NULL, id)) != 0)
		return rc;
	if (strcmp(state, "done") == 0 && (rc = agent_end_reported(db, id, r, result, e)) != 0)
		return rc;
	/* a refresh that failed is in the sync log with its reason */
	if (strcmp(state, "failed") == 0 && strcmp(db_rows_get(r, 0, 2), "refresh") == 0 &&
	    (rc = db_run(db, DB_ONCE, SQL_SYNC_FAILED, NULL, NULL, NULL, e, "su", why, id)) != 0)
		return rc;
	if (strcmp(state, "done") != 0 || strcmp(db_rows_get(r, 0, 2), "ensure_issue") != 0 ||
	    !json_object_object_get_ex(result, "key", &key) ||
	    !json_object_is_type(key, json_type_string))
		return 0;
	if ((params = json_tokener_parse(db_rows_get(r, 0, 3))) == NULL)
		return 0;
	if (json_object_object_get_ex(params, "temp_key", &temp))
		rc = db_run(db, DB_ONCE, SQL_NOTES_MOVE, NULL, NULL, NULL, e, "ssu",
		    json_object_get_string(key), json_object_get_string(temp),
		    db_to_u64(db_rows_get(r, 0, 1)));
	json_object_put(params);
	return rc;
}

int
tracker_report(struct db *db, uint64_t id, int done, const char *error,
    struct json_object *result, char *state, size_t len, struct err *e)
{
	struct db_rows	 r = { 0 };
	int		 rc;

	if ((rc = db_begin(db, e)) != 0)
		return rc;
	if ((rc = agent_lock_claimed(db, id, &r, state, len, e)) != 0 ||
	    (rc = agent_end(db, id, &r, done ? "done" : "failed", done ? NULL : error, result,
	    e)) != 0 || (rc = db_commit(db, e)) != 0)
		db_rollback(db);
	db_rows_release(&r);
	return rc;
}

/* ---- the local backend: the hub's own tables are the tracker ---- */

static const char SQL_BATCH_LABEL[] =
    "SELECT p.label FROM tracker_batches b JOIN tracker_projects p ON p.id = b.project_id"
    " WHERE b.id = ?";
static const char SQL_NEXT_ID[] =
    "SELECT COALESCE(MAX(id), 0) + 1 FROM tracker_issues FOR UPDATE";
static const char SQL_NEXT_NUMBER[] =
    "SELECT COALESCE(MAX(CAST(SUBSTRING(issue_key, CHAR_LENGTH(?) + 2) AS UNSIGNED)), 0) + 1"
    " FROM tracker_issues WHERE issue_key LIKE CONCAT(?, '-%')";
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
	return db_run(db, DB_ONCE, SQL_SYNC_RUN, NULL, NULL, NULL, e, "uiu", id, n, batch);
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

int
tracker_local_run(struct db *db, uint64_t id, int *done, char **why, char *state,
    size_t len, uint64_t copies_cap, struct err *e)
{
	struct db_rows		 r = { 0 };
	struct json_object	*params = NULL, *temps = NULL, *result = NULL;
	const char		*missing;
	uint64_t		 batch;
	int			 rc;

	*done = 0;
	*why = NULL;
	if ((rc = db_begin(db, e)) != 0)
		return rc;
	if ((rc = agent_lock_claimed(db, id, &r, state, len, e)) != 0)
		goto fail;
	batch = db_to_u64(db_rows_get(&r, 0, 1));
	if ((params = json_tokener_parse(db_rows_get(&r, 0, 3))) == NULL)
		params = json_object_new_object();
	if ((rc = agent_temps(db, &temps, batch, UINT32_MAX, e)) != 0)
		goto fail;
	if ((missing = agent_resolve(params, temps)) != NULL) {
		if (asprintf(why, "%s не создана: её ensure_issue не выполнен", missing) < 0)
			*why = NULL;
	} else if ((rc = local_apply(db, batch, id, db_rows_get(&r, 0, 2), params, copies_cap, &result, why,
	    e)) != 0)
		goto fail;
	*done = *why == NULL;
	if ((rc = agent_end(db, id, &r, *done ? "done" : "failed", *why, result, e)) != 0 ||
	    (rc = db_commit(db, e)) != 0)
		goto fail;
	goto done;
fail:
	db_rollback(db);
done:
	json_object_put(params);
	json_object_put(temps);
	json_object_put(result);
	db_rows_release(&r);
	return rc;
}
