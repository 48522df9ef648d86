/*
 * db_notes: what the hub keeps of its own beside the mirror: notes of an
 * issue, settings with their version, and the log of refreshes (sync runs).
 */
#ifndef FM_DB_NOTES_H
#define FM_DB_NOTES_H
#include <stdint.h>
#include <json-c/json.h>

struct db;
struct err;

/* The notes fields, in the order the card shows them. */
extern const char *const tracker_note_fields[];	/* NULL-terminated */

/* The notes of key: {goal, next_step, risks, text, updated_by, updated}, or NULL. */
int	tracker_notes_get(struct db *db, struct json_object **out, const char *key, struct err *e);
/*
 * Sets the fields of fields (an object of tracker_note_fields, strings; ""
 * clears one) on key's notes, by login; *out is the notes after.
 */
int	tracker_notes_set(struct db *db, struct json_object **out, const char *key,
	    struct json_object *fields, const char *by, struct err *e);
/* Every setting: {version, settings: {name: value}}. */
int	tracker_settings_get(struct db *db, struct json_object **out, struct err *e);
/* Sets one; *version receives the new settings_version. */
int	tracker_setting_set(struct db *db, uint64_t *version, const char *name, const char *value,
	    const char *by, struct err *e);
/* The latest sync runs: {sync_runs: [{id, project, state, issues, history_at, error, started, finished}]}. */
int	tracker_sync_runs(struct db *db, struct json_object **out, int limit, struct err *e);

#endif
