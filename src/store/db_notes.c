/* db_notes: notes, settings and sync runs of the hub (db_notes.h). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <json-c/json.h>

#include "err.h"
#include "store/db.h"
#include "store/db-internal.h"
#include "store/db_notes.h"

const char *const tracker_note_fields[] = { "goal", "next_step", "risks", "text", NULL };

static const char SQL_NOTES_GET[] =
    "SELECT goal, next_step, risks, text, updated_by, " DB_DATE("updated_at")
    " FROM tracker_notes WHERE issue_key = ?";
/* each field: a NULL argument keeps it, "" clears it */
#define NOTE_SET(f)	f " = IF(? IS NULL, " f ", NULLIF(?, ''))"
static const char SQL_NOTES_SET[] =
    "INSERT INTO tracker_notes (issue_key, goal, next_step, risks, text, updated_by, updated_at)"
    " VALUES (?, NULLIF(?, ''), NULLIF(?, ''), NULLIF(?, ''), NULLIF(?, ''), ?, UTC_TIMESTAMP(3))"
    " ON DUPLICATE KEY UPDATE " NOTE_SET("goal") ", " NOTE_SET("next_step") ", "
    NOTE_SET("risks") ", " NOTE_SET("text") ", updated_by = VALUES(updated_by),"
    " updated_at = VALUES(updated_at)";
static const char SQL_SETTINGS[] =
    "SELECT name, value, version FROM tracker_settings ORDER BY name";
static const char SQL_SETTINGS_LOCK[] =
    "SELECT COALESCE(MAX(version), 0) + 1 FROM tracker_settings FOR UPDATE";
static const char SQL_SETTING_SET[] =
    "INSERT INTO tracker_settings (name, value, version, updated_by, updated_at)"
    " VALUES (?, ?, ?, ?, UTC_TIMESTAMP(3)) ON DUPLICATE KEY UPDATE value = VALUES(value),"
    " version = VALUES(version), updated_by = VALUES(updated_by),"
    " updated_at = VALUES(updated_at)";
static const char SQL_SYNC_RUNS[] =
    "SELECT s.id, p.label, s.state, s.issues, " DB_DATE("s.history_at") ", s.error, "
    DB_DATE("s.started_at") ", " DB_DATE("s.finished_at")
    " FROM tracker_sync_runs s LEFT JOIN tracker_projects p ON p.id = s.project_id"
    " ORDER BY s.id DESC LIMIT ?";

int
tracker_notes_get(struct db *db, struct json_object **out, const char *key, struct err *e)
{
	static const char *const extra[] = { "updated_by", "updated" };
	struct db_rows	 r = { 0 };
	const char	*v;
	size_t		 i;
	int		 rc;

	*out = NULL;
	if ((rc = db_run(db, DB_RETRY, SQL_NOTES_GET, &r, NULL, NULL, e, "s", key)) == 0 &&
	    r.n > 0) {
		*out = json_object_new_object();
		for (i = 0; i < 6; i++) {
			v = db_rows_get(&r, 0, i);
			json_object_object_add(*out, i < 4 ? tracker_note_fields[i] : extra[i - 4],
			    v != NULL ? json_object_new_string(v) : NULL);
		}
	}
	db_rows_release(&r);
	return rc;
}

int
tracker_notes_set(struct db *db, struct json_object **out, const char *key,
    struct json_object *fields, const char *by, struct err *e)
{
	const char	*f[4];
	size_t		 i;
	int		 rc;

	for (i = 0; i < 4; i++)
		f[i] = json_object_get_string(json_object_object_get(fields, tracker_note_fields[i]));
	if ((rc = db_run(db, DB_ONCE, SQL_NOTES_SET, NULL, NULL, NULL, e, "ssssss" "ssssssss", key,
	    f[0] != NULL ? f[0] : "", f[1] != NULL ? f[1] : "", f[2] != NULL ? f[2] : "",
	    f[3] != NULL ? f[3] : "", by, f[0], f[0], f[1], f[1], f[2], f[2], f[3], f[3])) != 0)
		return rc;
	return tracker_notes_get(db, out, key, e);
}

int
tracker_settings_get(struct db *db, struct json_object **out, struct err *e)
{
	struct db_rows		 r = { 0 };
	struct json_object	*s;
	uint64_t		 version = 0, v;
	size_t			 i;
	int			 rc;

	*out = NULL;
	if ((rc = db_run(db, DB_RETRY, SQL_SETTINGS, &r, NULL, NULL, e, "")) != 0)
		goto done;
	s = json_object_new_object();
	for (i = 0; i < r.n; i++) {
		json_object_object_add(s, db_rows_get(&r, i, 0),
		    json_object_new_string(db_rows_get(&r, i, 1)));
		if ((v = db_to_u64(db_rows_get(&r, i, 2))) > version)
			version = v;
	}
	*out = json_object_new_object();
	json_object_object_add(*out, "version", json_object_new_uint64(version));
	json_object_object_add(*out, "settings", s);
done:
	db_rows_release(&r);
	return rc;
}

struct setting_args {
	uint64_t	*version;
	const char	*name, *value, *by;
};

static int
setting_tx(struct db *db, void *arg, struct err *e)
{
	struct setting_args	*a = arg;
	struct db_rows		 r = { 0 };
	int			 rc;

	if ((rc = db_run(db, DB_ONCE, SQL_SETTINGS_LOCK, &r, NULL, NULL, e, "")) == 0) {
		*a->version = db_to_u64(db_rows_get(&r, 0, 0));
		rc = db_run(db, DB_ONCE, SQL_SETTING_SET, NULL, NULL, NULL, e, "ssus", a->name,
		    a->value, *a->version, a->by);
	}
	db_rows_release(&r);
	return rc;
}

int
tracker_setting_set(struct db *db, uint64_t *version, const char *name, const char *value,
    const char *by, struct err *e)
{
	struct setting_args	 a = { version, name, value, by };
	int			 rc;

	if ((rc = db_tx(db, setting_tx, &a, e)) != 0)
		*version = 0;
	return rc;
}

int
tracker_sync_runs(struct db *db, struct json_object **out, int limit, struct err *e)
{
	static const char *const names[] = { "id", "project", "state", "issues", "history_at",
	    "error", "started", "finished" };
	struct db_rows		 r = { 0 };
	struct json_object	*a, *o;
	const char		*v;
	size_t			 i, j;
	int			 rc;

	*out = NULL;
	if ((rc = db_run(db, DB_RETRY, SQL_SYNC_RUNS, &r, NULL, NULL, e, "i", (int64_t)limit)) != 0)
		goto done;
	a = json_object_new_array();
	for (i = 0; i < r.n; i++) {
		o = json_object_new_object();
		for (j = 0; j < 8; j++) {
			v = db_rows_get(&r, i, j);
			json_object_object_add(o, names[j], v == NULL ? NULL : (j == 0 || j == 3) ?
			    json_object_new_uint64(db_to_u64(v)) : json_object_new_string(v));
		}
		json_object_array_add(a, o);
	}
	*out = json_object_new_object();
	json_object_object_add(*out, "sync_runs", a);
done:
	db_rows_release(&r);
	return rc;
}
