/* agent-internal: what db_agent.c (claims, reports) lends db_agent_local.c (the local backend). */
#ifndef FM_AGENT_INTERNAL_H
#define FM_AGENT_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

struct db;
struct db_rows;
struct err;
struct json_object;

/*
 * Replaces each temporary key in params (a string "new:N" as a value, or
 * in an array value) by the key temps maps it to.  Returns the first one
 * without a key, or NULL when all were found.
 */
const char	*agent_resolve(struct json_object *params, struct json_object *temps);
/* The temporary keys the ensure_issue commands before seq made: {"new:1": "AURORA-12"}. */
int		 agent_temps(struct db *db, struct json_object **out, uint64_t batch,
		    uint64_t seq, struct err *e);
/*
 * Ends command id (locked, its row r from tracker_handout_lock) in state,
 * with why and result.  A done ensure_issue takes the notes of its
 * temporary key to the key it reports, whichever backend made it.
 */
int		 agent_end(struct db *db, uint64_t id, const struct db_rows *r, const char *state,
		    const char *why, struct json_object *result, struct err *e);
/* Records refresh command id of batch as a sync run that read issues issues. */
int		 agent_sync_done(struct db *db, uint64_t id, int64_t issues, uint64_t batch,
		    struct err *e);

#endif
