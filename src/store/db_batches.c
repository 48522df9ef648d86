/* db_batches: the MySQL queries behind the hub's batches (db_batches.h). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <json-c/json.h>

#include "err.h"
#include "store/db.h"
#include "store/db-internal.h"
#include "store/db_batches.h"

static const char SQL_PROJECT_GET[] =
    "SELECT id, COALESCE(board_id, 0) FROM tracker_projects WHERE label = ?";
static const char SQL_LABELS[] =
    "SELECT label FROM tracker_projects ORDER BY label";
static const char SQL_IS_OWN[] =
    "SELECT COUNT(*) FROM tracker_issues i JOIN tracker_issue_labels l ON l.issue_id = i.id"
    " WHERE i.issue_key = ? AND l.label = ?";
static const char SQL_BATCH_ADD[] =
    "INSERT INTO tracker_batches (project_id, title, author, created_at)"
    " VALUES (NULLIF(?, 0), ?, ?, UTC_TIMESTAMP(3))";
static const char SQL_COMMAND_ADD[] =
    "INSERT INTO tracker_commands (batch_id, seq, type, params, state, updated_at)"
    " VALUES (?, ?, ?, ?, 'queued', UTC_TIMESTAMP(3))";
#define BATCH_COLS \
    "SELECT b.id, p.label, b.title, b.author, " DB_DATE("b.created_at") "," \
    " (SELECT GROUP_CONCAT(c.state ORDER BY c.seq) FROM tracker_commands c WHERE c.batch_id = b.id)" \
    " FROM tracker_batches b LEFT JOIN tracker_projects p ON p.id = b.project_id"
static const char SQL_BATCH_GET[] = BATCH_COLS " WHERE b.id = ?";
static const char SQL_BATCHES[] =
    BATCH_COLS " WHERE ? IS NULL OR p.label = ? ORDER BY b.id DESC LIMIT ?";
static const char SQL_BATCH_COMMANDS[] =
    "SELECT id, seq, type, params, state, handouts, error, " DB_DATE("updated_at")
    " FROM tracker_commands WHERE batch_id = ? ORDER BY seq";

int
tracker_project_get(struct db *db, const char *label, uint64_t *id, uint64_t *board_id,
    struct err *e)
{
	struct db_rows	 r = { 0 };
	int		 rc;

	*id = *board_id = 0;
	if ((rc = db_run(db, DB_RETRY, SQL_PROJECT_GET, &r, NULL, NULL, e, "s", label)) == 0) {
		if (r.n == 0)
			rc = ERR_NOTFOUND;
		else {
			*id = db_to_u64(db_rows_get(&r, 0, 0));
			*board_id = db_to_u64(db_rows_get(&r, 0, 1));
		}
	}
	db_rows_release(&r);
	return rc;
}

int
tracker_labels(struct db *db, struct json_object **out, struct err *e)
{
	struct db_rows	 r = { 0 };
	size_t		 i;
	int		 rc;

	*out = NULL;
	if ((rc = db_run(db, DB_RETRY, SQL_LABELS, &r, NULL, NULL, e, "")) == 0) {
		*out = json_object_new_array();
		for (i = 0; i < r.n; i++)
			json_object_array_add(*out, json_object_new_string(db_rows_get(&r, i, 0)));
	}
	db_rows_release(&r);
	return rc;
}

int
tracker_is_own(struct db *db, const char *label, const char *key, int *own, struct err *e)
{
	struct db_rows	 r = { 0 };
	int		 rc;

	*own = 0;
	if ((rc = db_run(db, DB_RETRY, SQL_IS_OWN, &r, NULL, NULL, e, "ss", key, label)) == 0)
		*own = r.n > 0 && db_to_u64(db_rows_get(&r, 0, 0)) > 0;
	db_rows_release(&r);
	return rc;
}

struct batch_add_args {
	uint64_t		*id, project_id;
	const char		*title, *author;
	struct json_object	*commands;
};

static int
batch_add_tx(struct db *db, void *arg, struct err *e)
{
	struct batch_add_args	*a = arg;
	struct json_object	*c, *params;
	size_t			 i;
	int			 rc;

	rc = db_run(db, DB_ONCE, SQL_BATCH_ADD, NULL, NULL, a->id, e, "uss", a->project_id,
	    a->title, a->author);
	for (i = 0; rc == 0 && i < json_object_array_length(a->commands); i++) {
		c = json_object_array_get_idx(a->commands, i);
		/* the parameters without the type, which has its column */
		params = NULL;
		if (json_object_deep_copy(c, &params, NULL) != 0)
			return err_set(e, ERR_NOMEM, "out of memory");
		json_object_object_del(params, "type");
		rc = db_run(db, DB_ONCE, SQL_COMMAND_ADD, NULL, NULL, NULL, e, "uiss", *a->id,
		    (int64_t)i + 1, json_object_get_string(json_object_object_get(c, "type")),
		    json_object_to_json_string_ext(params, JSON_C_TO_STRING_PLAIN |
		    JSON_C_TO_STRING_NOSLASHESCAPE));
		json_object_put(params);
	}
	return rc;
}

int
tracker_batch_add(struct db *db, uint64_t *id, uint64_t project_id, const char *title,
    const char *author, struct json_object *commands, struct err *e)
{
	struct batch_add_args	 a = { id, project_id, title, author, commands };
	int			 rc;

	if ((rc = db_tx(db, batch_add_tx, &a, e)) != 0)
		*id = 0;
	return rc;
}

/*
 * A batch's state from its commands' states in order ("queued,done,..."):
 * queued while nothing has started, running while any is queued or
 * claimed, then failed when any failed, cancelled when all that did not
 * finish were cancelled, else done.
 */
static const char *
batch_state(const char *states)
{
	int	queued = 0, claimed = 0, done = 0, failed = 0, cancelled = 0;
	const char *p = states != NULL ? states : "";

	while (*p != '\0') {
		size_t n = strcspn(p, ",");

		if (strncmp(p, "queued", n) == 0)
			queued++;
		else if (strncmp(p, "claimed", n) == 0)
			claimed++;
		else if (strncmp(p, "done", n) == 0)
			done++;
		else if (strncmp(p, "failed", n) == 0)
			failed++;
		else
			cancelled++;	/* cancelled, skipped */
		p += n + (p[n] == ',');
	}
	if (claimed == 0 && done == 0 && failed == 0 && cancelled == 0)
		return "queued";
	if (queued > 0 || claimed > 0)
		return "running";
	if (failed > 0)
		return "failed";
	return done == 0 ? "cancelled" : "done";
}

/* One row of BATCH_COLS as an object. */
static struct json_object *
batch_row(const struct db_rows *r, size_t i)
{
	struct json_object	*o = json_object_new_object();
	const char		*label = db_rows_get(r, i, 1);

	json_object_object_add(o, "id", json_object_new_uint64(db_to_u64(db_rows_get(r, i, 0))));
	json_object_object_add(o, "project", label != NULL ? json_object_new_string(label) : NULL);
	json_object_object_add(o, "title", json_object_new_string(db_rows_get(r, i, 2)));
	json_object_object_add(o, "author", json_object_new_string(db_rows_get(r, i, 3)));
	json_object_object_add(o, "created", json_object_new_string(db_rows_get(r, i, 4)));
	json_object_object_add(o, "state", json_object_new_string(batch_state(db_rows_get(r, i, 5))));
	return o;
}

static int
batch_commands(struct db *db, struct json_object *batch, uint64_t id, struct err *e)
{
	struct db_rows		 r = { 0 };
	struct json_object	*a, *c, *params;
	const char		*error;
	size_t			 i;
	int			 rc;

	if ((rc = db_run(db, DB_RETRY, SQL_BATCH_COMMANDS, &r, NULL, NULL, e, "u", id)) != 0)
		return rc;
	a = json_object_new_array_ext((int)r.n);
	for (i = 0; i < r.n; i++) {
		c = json_object_new_object();
		params = json_tokener_parse(db_rows_get(&r, i, 3));
		error = db_rows_get(&r, i, 6);
		json_object_object_add(c, "id", json_object_new_uint64(db_to_u64(db_rows_get(&r, i, 0))));
		json_object_object_add(c, "seq", json_object_new_uint64(db_to_u64(db_rows_get(&r, i, 1))));
		json_object_object_add(c, "type", json_object_new_string(db_rows_get(&r, i, 2)));
		json_object_object_add(c, "params", params != NULL ? params : json_object_new_object());
		json_object_object_add(c, "state", json_object_new_string(db_rows_get(&r, i, 4)));
		json_object_object_add(c, "handouts",
		    json_object_new_uint64(db_to_u64(db_rows_get(&r, i, 5))));
		json_object_object_add(c, "error", error != NULL ? json_object_new_string(error) : NULL);
		json_object_object_add(c, "updated", json_object_new_string(db_rows_get(&r, i, 7)));
		json_object_array_add(a, c);
	}
	json_object_object_add(batch, "commands", a);
	db_rows_release(&r);
	return 0;
}

int
tracker_batch_get(struct db *db, struct json_object **out, uint64_t id, struct err *e)
{
	struct db_rows	 r = { 0 };
	int		 rc;

	*out = NULL;
	if ((rc = db_run(db, DB_RETRY, SQL_BATCH_GET, &r, NULL, NULL, e, "u", id)) != 0)
		goto done;
	if (r.n == 0) {
		rc = ERR_NOTFOUND;
		goto done;
	}
	*out = batch_row(&r, 0);
	if ((rc = batch_commands(db, *out, id, e)) != 0) {
		json_object_put(*out);
		*out = NULL;
	}
done:
	db_rows_release(&r);
	return rc;
}

int
tracker_batches(struct db *db, struct json_object **out, const char *label, int limit,
    struct err *e)
{
	struct db_rows		 r = { 0 };
	struct json_object	*a, *b;
	const char		*states;
	size_t			 i;
	uint64_t		 n;
	int			 rc;

	*out = NULL;
	if ((rc = db_run(db, DB_RETRY, SQL_BATCHES, &r, NULL, NULL, e, "ssi", label, label,
	    (int64_t)limit)) != 0)
		goto done;
	a = json_object_new_array_ext((int)r.n);
	for (i = 0; i < r.n; i++) {
		b = batch_row(&r, i);
		states = db_rows_get(&r, i, 5);
		for (n = states != NULL && *states != '\0'; states != NULL && *states != '\0'; states++)
			n += *states == ',';
		json_object_object_add(b, "commands", json_object_new_uint64(n));
		json_object_array_add(a, b);
	}
	*out = json_object_new_object();
	json_object_object_add(*out, "batches", a);
done:
	db_rows_release(&r);
	return rc;
}

static const char SQL_BATCH_EXISTS[] =
    "SELECT id FROM tracker_batches WHERE id = ? FOR UPDATE";
static const char SQL_BATCH_CANCEL[] =
    "UPDATE tracker_commands SET state = 'cancelled', error = ?, updated_at = UTC_TIMESTAMP(3)"
    " WHERE batch_id = ? AND state = 'queued'";
static const char SQL_COMMAND_LOCK[] =
    "SELECT c.state, c.batch_id, c.type, c.params, p.label FROM tracker_commands c"
    " JOIN tracker_batches b ON b.id = c.batch_id"
    " LEFT JOIN tracker_projects p ON p.id = b.project_id WHERE c.id = ? FOR UPDATE";
static const char SQL_COMMAND_CANCEL[] =
    "UPDATE tracker_commands SET state = 'cancelled', error = ?, updated_at = UTC_TIMESTAMP(3)"
    " WHERE id = ?";

struct cancel_args {
	uint64_t	 id, *cancelled;
	int		 force;
	char		*state;
	size_t		 len;
};

static int
batch_cancel_tx(struct db *db, void *arg, struct err *e)
{
	struct cancel_args	*a = arg;
	struct db_rows		 r = { 0 };
	int			 rc;

	if ((rc = db_run(db, DB_ONCE, SQL_BATCH_EXISTS, &r, NULL, NULL, e, "u", a->id)) == 0 &&
	    r.n == 0)
		rc = ERR_NOTFOUND;
	if (rc == 0)
		rc = db_run(db, DB_ONCE, SQL_BATCH_CANCEL, NULL, a->cancelled, NULL, e, "su",
		    "отменена: batch_cancel", a->id);
	db_rows_release(&r);
	return rc;
}

int
tracker_batch_cancel(struct db *db, uint64_t id, uint64_t *cancelled, struct err *e)
{
	struct cancel_args	 a = { id, cancelled, 0, NULL, 0 };

	*cancelled = 0;
	return db_tx(db, batch_cancel_tx, &a, e);
}

static int
command_cancel_tx(struct db *db, void *arg, struct err *e)
{
	struct cancel_args	*a = arg;
	struct db_rows		 r = { 0 };
	int			 rc;

	a->state[0] = '\0';
	if ((rc = db_run(db, DB_ONCE, SQL_COMMAND_LOCK, &r, NULL, NULL, e, "u", a->id)) != 0)
		goto done;
	if (r.n == 0) {
		rc = ERR_NOTFOUND;
		goto done;
	}
	snprintf(a->state, a->len, "%s", db_rows_get(&r, 0, 0));
	if (strcmp(a->state, "queued") != 0 && !(a->force && strcmp(a->state, "claimed") == 0)) {
		rc = ERR_INVALID;
		goto done;
	}
	rc = db_run(db, DB_ONCE, SQL_COMMAND_CANCEL, NULL, NULL, NULL, e, "su",
	    strcmp(a->state, "claimed") == 0 ? "остановлена: force, когда была у агента" :
	    "отменена", a->id);
done:
	db_rows_release(&r);
	return rc;
}

int
tracker_command_cancel(struct db *db, uint64_t id, int force, char *state, size_t len,
    struct err *e)
{
	struct cancel_args	 a = { id, NULL, force, state, len };

	return db_tx(db, command_cancel_tx, &a, e);
}

int
tracker_command_get(struct db *db, struct json_object **out, uint64_t id, struct err *e)
{
	struct db_rows		 r = { 0 };
	struct json_object	*params;
	const char		*label;
	int			 rc;

	*out = NULL;
	if ((rc = db_run(db, DB_RETRY, SQL_COMMAND_LOCK, &r, NULL, NULL, e, "u", id)) != 0)
		goto done;
	if (r.n == 0) {
		rc = ERR_NOTFOUND;
		goto done;
	}
	if ((params = json_tokener_parse(db_rows_get(&r, 0, 3))) == NULL ||
	    !json_object_is_type(params, json_type_object)) {
		json_object_put(params);
		params = json_object_new_object();
	}
	json_object_object_add(params, "type", json_object_new_string(db_rows_get(&r, 0, 2)));
	label = db_rows_get(&r, 0, 4);
	*out = json_object_new_object();
	json_object_object_add(*out, "id", json_object_new_uint64(id));
	json_object_object_add(*out, "state", json_object_new_string(db_rows_get(&r, 0, 0)));
	json_object_object_add(*out, "project", label != NULL ? json_object_new_string(label) : NULL);
	json_object_object_add(*out, "command", params);
done:
	db_rows_release(&r);
	return rc;
}
