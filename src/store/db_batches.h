/*
 * db_batches: the hub's batches of commands in MySQL (tracker_batches,
 * tracker_commands; schema/012-tracker.sql), and what checking a batch
 * needs to know of the projects and their issues.
 */
#ifndef FM_DB_BATCHES_H
#define FM_DB_BATCHES_H
#include <stddef.h>
#include <stdint.h>
#include <json-c/json.h>

struct db;
struct err;

/* A project's id and board (0: none) by label; ERR_NOTFOUND. */
int	tracker_project_get(struct db *db, const char *label, uint64_t *id, uint64_t *board_id,
	    struct err *e);
/* Every project's label, as a JSON array. */
int	tracker_labels(struct db *db, struct json_object **out, struct err *e);
/* Whether key is an own issue of the project label (it carries the label): *own 1 or 0. */
int	tracker_is_own(struct db *db, const char *label, const char *key, int *own, struct err *e);
/*
 * Stores a batch (project_id 0: none) with commands (an array of objects
 * with a type), all queued, in one transaction; *id receives its id.
 */
int	tracker_batch_add(struct db *db, uint64_t *id, uint64_t project_id, const char *title,
	    const char *author, struct json_object *commands, struct err *e);
/*
 * A batch: {id, project, title, author, created, state, commands: [{id,
 * seq, type, params, state, handouts, error, updated}]}; the batch's
 * state is its commands' (batch_state).  ERR_NOTFOUND.
 */
int	tracker_batch_get(struct db *db, struct json_object **out, uint64_t id, struct err *e);
/* The latest batches, of one project when label is not NULL: {batches: [{id, project, title, author, created, state, commands}]}. */
int	tracker_batches(struct db *db, struct json_object **out, const char *label, int limit,
	    struct err *e);

/* Cancels the queued commands of a batch (*cancelled: how many); ERR_NOTFOUND. */
int	tracker_batch_cancel(struct db *db, uint64_t id, uint64_t *cancelled, struct err *e);
/*
 * Cancels one command: a queued one, or with force a claimed one (the
 * agent's report is then refused).  ERR_NOTFOUND; ERR_INVALID with its
 * state in state when it is claimed without force, or final.
 */
int	tracker_command_cancel(struct db *db, uint64_t id, int force, char *state, size_t len,
	    struct err *e);
/*
 * A command as a batch would hold it: {id, state, project (its batch's,
 * or null), command: {type, params...}}.  ERR_NOTFOUND.
 */
int	tracker_command_get(struct db *db, struct json_object **out, uint64_t id, struct err *e);

#endif
