/* db_agent: claims and reports of the hub's commands (db_agent.h; the local backend is db_agent_local.c). */
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
    " claimed_at = UTC_TIMESTAMP(3), updated_at = UTC_TIMESTAMP(3)"
    " WHERE id = ? AND state = ? AND handouts = ?";
static const char SQL_END[] =
    "UPDATE tracker_commands SET state = ?, error = ?, result = ?,"
    " updated_at = UTC_TIMESTAMP(3) WHERE id = ?";
static const char SQL_STATE[] =
    "SELECT state, batch_id, type, params, handouts FROM tracker_commands WHERE id = ?"
    " FOR UPDATE";
/* written, not only locked: on Galera a request and a hand-out collide (migration 021) */
static const char SQL_STATE_WRITE[] =
    "UPDATE tracker_commands SET lock_count = lock_count + 1 WHERE id = ?";
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
const char *
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
int
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
	uint64_t		 seq, handouts, n = 0;
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
	/*
	 * A compare-and-swap on what was read: on a Galera cluster the read may
	 * be of a command another node handed out a moment ago (certification
	 * does not catch a write on a row read before the other's was applied).
	 */
	if ((rc = db_run(db, DB_ONCE, SQL_HAND_OUT, NULL, &n, NULL, e, "usu", id,
	    db_rows_get(&r, 0, 3), handouts)) != 0 || n == 0)
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

struct claim_args {
	struct json_object	**out;
	uint64_t		  id, batch;
	unsigned		  lease_seconds;
};

/* Hands out command id of batch when it is still to be handed out (one transaction). */
static int
claim_tx(struct db *db, void *arg, struct err *e)
{
	struct claim_args	*a = arg;
	struct db_rows		 b = { 0 };
	int			 rc;

	json_object_put(*a->out);
	*a->out = NULL;
	if ((rc = db_run(db, DB_ONCE, SQL_LOCK_BATCH, &b, NULL, NULL, e, "u", a->batch)) == 0 &&
	    b.n > 0)
		rc = agent_try(db, a->out, a->id, a->batch, db_rows_get(&b, 0, 1),
		    a->lease_seconds, e);
	db_rows_release(&b);
	return rc;
}

int
tracker_claim(struct db *db, struct json_object **out, unsigned lease_seconds, int wiki,
    struct err *e)
{
	struct claim_args	 a = { out, 0, 0, lease_seconds };
	struct db_rows		 c = { 0 };
	size_t			 i;
	int			 rc = 0, pass;

	*out = NULL;
	/* a pass that only ended commands (skipped, failed) may leave another to hand out */
	for (pass = 0; pass < 3 && *out == NULL && rc == 0; pass++) {
		if ((rc = db_run(db, DB_RETRY, SQL_CANDIDATES, &c, NULL, NULL, e, "iii",
		    (int64_t)lease_seconds, (int64_t)(wiki != 0), (int64_t)CLAIM_CANDIDATES)) != 0)
			return rc;
		if (c.n == 0)
			break;
		for (i = 0; i < c.n && *out == NULL && rc == 0; i++) {
			a.id = db_to_u64(db_rows_get(&c, i, 0));
			a.batch = db_to_u64(db_rows_get(&c, i, 1));
			rc = db_tx(db, claim_tx, &a, e);
		}
		db_rows_release(&c);
	}
	if (rc != 0) {
		json_object_put(*out);
		*out = NULL;
	}
	return rc;
}

int
agent_sync_done(struct db *db, uint64_t id, int64_t issues, uint64_t batch, struct err *e)
{
	return db_run(db, DB_ONCE, SQL_SYNC_RUN, NULL, NULL, NULL, e, "uiu", id, issues, batch);
}

int
tracker_handout_lock(struct db *db, uint64_t id, const char *const *types,
    struct tracker_handout *h, struct db_rows *r, struct err *e)
{
	struct db_rows	 own = { 0 };
	size_t		 i;
	int		 rc;

	h->state[0] = '\0';
	h->current = 0;
	if (r == NULL)
		r = &own;
	if ((rc = db_run(db, DB_ONCE, SQL_STATE, r, NULL, NULL, e, "u", id)) != 0)
		goto done;
	for (i = 0; r->n > 0 && types != NULL && types[i] != NULL; i++)
		if (strcmp(db_rows_get(r, 0, 2), types[i]) == 0)
			break;
	if (r->n > 0 && (types == NULL || types[i] != NULL)) {
		db_copy_str(h->state, sizeof h->state, db_rows_get(r, 0, 0));
		h->current = db_to_u64(db_rows_get(r, 0, 4));
	}
	/* not claimed, or of an agent whose lease ran out, after the command was handed out again */
	if (strcmp(h->state, "claimed") != 0 || h->current != h->handout)
		rc = ERR_INVALID;
	else
		rc = db_run(db, DB_ONCE, SQL_STATE_WRITE, NULL, NULL, NULL, e, "u", id);
done:
	db_rows_release(&own);
	return rc;
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
		return agent_sync_done(db, id, json_object_get_int64(v),
		    db_to_u64(db_rows_get(r, 0, 1)), e);
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
 * Ends command id (locked, its row r from tracker_handout_lock) in state,
 * with why and result.  A done ensure_issue takes the notes of its
 * temporary key to the key it reports, whichever backend made it.
 */
int
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

struct report_args {
	uint64_t		 id;
	struct tracker_handout	*h;
	int			 done;
	const char		*error;
	struct json_object	*result;
};

static int
report_tx(struct db *db, void *arg, struct err *e)
{
	struct report_args	*a = arg;
	struct db_rows		 r = { 0 };
	int			 rc;

	if ((rc = tracker_handout_lock(db, a->id, NULL, a->h, &r, e)) == 0)
		rc = agent_end(db, a->id, &r, a->done ? "done" : "failed",
		    a->done ? NULL : a->error, a->result, e);
	db_rows_release(&r);
	return rc;
}

int
tracker_report(struct db *db, uint64_t id, struct tracker_handout *h, int done,
    const char *error, struct json_object *result, struct err *e)
{
	struct report_args	 a = { id, h, done, error, result };

	return db_tx(db, report_tx, &a, e);
}
