/*
 * db_agent: the agent's side of the hub's queue of commands in MySQL:
 * claims (FOR UPDATE SKIP LOCKED, in seq order within a batch, with a
 * lease and hand-outs), reports, and the local backend, which applies a
 * command to the tracker tables and reports it in one transaction.
 */
#ifndef FM_DB_AGENT_H
#define FM_DB_AGENT_H
#include <stdint.h>
#include <json-c/json.h>

struct db;
struct err;

#define TRACKER_HANDOUTS_MAX	5	/* hand-outs without a report before a command fails */

/*
 * The hand-out an agent's request for a claimed command is of (handout:
 * the handouts its claim returned), and what the command's row, locked in
 * the transaction that acts on the request, said: its state ("" when there
 * is no such command of the types the request is for) and its hand-out
 * (current).  The request is taken only when the state is "claimed" and
 * current is handout: a late request of an agent whose lease ran out is
 * refused once the command is handed out again.  The store functions given
 * one fill it and return ERR_INVALID for a request they refuse.
 */
struct tracker_handout {
	uint64_t	handout;
	uint64_t	current;
	char		state[16];
};

/*
 * Claims the next command an agent may run: the oldest queued one, or one
 * claimed longer than lease_seconds ago (handed out again), whose batch
 * has nothing unfinished before it.  *out is {id, batch, seq, type,
 * params, handouts, project} with the temporary keys in params already
 * replaced by the keys earlier commands made; NULL when there is none.  A
 * command naming a temporary key whose ensure_issue failed is skipped, and
 * one handed out TRACKER_HANDOUTS_MAX times is failed, on the way.  wiki:
 * the wiki agent's commands (types wiki_*), else the others.
 */
int	tracker_claim(struct db *db, struct json_object **out, unsigned lease_seconds, int wiki,
	    struct err *e);
/*
 * Reports command id, claimed in hand-out h->handout, done or failed
 * (error: why), with result (may be NULL; for ensure_issue {"key": ...}).
 * ERR_INVALID when it is not claimed or in another hand-out (h says which).
 */
int	tracker_report(struct db *db, uint64_t id, struct tracker_handout *h, int done,
	    const char *error, struct json_object *result, struct err *e);
/*
 * The local backend: applies the claimed command id to the tracker tables
 * and reports it, in one transaction: done with its result, or failed with
 * the reason in *why (caller frees).  A fetch_attachment keeps the hub's
 * copies within copies_cap bytes.  ERR_INVALID as tracker_report.
 */
int	tracker_local_run(struct db *db, uint64_t id, struct tracker_handout *h, int *done,
	    char **why, uint64_t copies_cap, struct err *e);

#endif
