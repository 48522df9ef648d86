/*
 * db_merges: the MySQL store of the merge queue: queued merges, claims,
 * results, the per-repository lock and the workers' heartbeats.
 * Implemented in db_merges.c.
 */
#ifndef FM_DB_MERGES_H
#define FM_DB_MERGES_H
#include <stddef.h>
#include <stdint.h>

#include "store/db_forge.h"

struct db;
struct err;

/* One row of the merge queue, with the pull request and repository it merges. */
struct forge_merge {
	uint64_t	 id;
	uint64_t	 repo_id;
	uint64_t	 pull_request_id;
	uint64_t	 requested_by;
	int64_t		 version;		/* the revision the caller observed */
	int64_t		 attempts;		/* claims so far, this one included */
	int64_t		 heartbeat_age;		/* seconds since heartbeat_at (-1: none) */
	int64_t		 number;		/* the pull request's number */
	char		 strategy[16];		/* merge, squash, fast_forward */
	char		 state[8];		/* queued, running, merged, failed */
	char		 base_commit[41];	/* "" until built: the target it was built on */
	char		 result_commit[41];	/* "" until built: what the target moves to */
	char		 claimed_by[129];	/* "host:pid", "" when unclaimed */
	char		 owner[65];		/* the repository */
	char		 name[101];
};

/*
 * Queues a merge of revision version of pull request pull_request_id of
 * repo_id with strategy by user_id and sets the pull request's
 * merge_state to queued; *id receives the row's id.  Call inside a
 * transaction that holds the pull request's row lock (forge_pull_lock).
 */
int	forge_merge_queue(struct db *db, uint64_t *id, uint64_t repo_id, uint64_t pull_request_id,
	    int64_t version, const char *strategy, uint64_t user_id, struct err *e);
/*
 * Claims the oldest queued merge in a transaction of its own (SELECT ...
 * FOR UPDATE SKIP LOCKED, so two workers never claim one row): state
 * running, claimed_by, heartbeat now, attempts + 1, and the pull
 * request's merge_state running.  *found is 0 when nothing is queued.
 */
int	forge_merge_claim(struct db *db, struct forge_merge *out, int *found,
	    const char *claimed_by, struct err *e);
/* Merge id as stored now; ERR_NOTFOUND (no message) when it is gone. */
int	forge_merge_get(struct db *db, struct forge_merge *out, uint64_t id, struct err *e);
/* The running merges, oldest first (at most 100); *out is freed with free(). */
int	forge_merge_running(struct db *db, struct forge_merge **out, size_t *n, struct err *e);
/*
 * Takes over running merge id from claimed_by old (the heartbeat and the
 * owner are renewed, attempts + 1); *taken is 0 when someone else changed
 * the row first.
 */
int	forge_merge_take_over(struct db *db, int *taken, uint64_t id, const char *old,
	    const char *claimed_by, struct err *e);
/*
 * Records, committed at once, the target commit running merge id was
 * built on and the commit the target is about to move to, and renews its
 * heartbeat.  The ref moves only after this returned 0.
 */
int	forge_merge_set_result(struct db *db, uint64_t id, const char *base_commit,
	    const char *result_commit, struct err *e);
/*
 * Marks running merge id merged (*done 0 when it was not running any
 * more: nothing changes) and its pull request merged with merge_commit.
 * Call inside a transaction.
 */
int	forge_merge_mark_merged(struct db *db, int *done, uint64_t id, uint64_t pull_request_id,
	    const char *merge_commit, struct err *e);
/*
 * Marks running merge id failed with error (a public sentence) and its
 * pull request's merge_state failed (the pull request stays open), and
 * records a "merge_failed" event with error as its detail and actor_id
 * (the requester) as its actor, in a transaction of its own.
 */
int	forge_merge_mark_failed(struct db *db, uint64_t id, uint64_t pull_request_id,
	    uint64_t actor_id,
	    const char *error, struct err *e);
/*
 * The error of the latest merge of pull request pull_request_id when it
 * failed; *out (caller frees) is NULL otherwise.
 */
int	forge_merge_last_error(struct db *db, char **out, uint64_t pull_request_id,
	    struct err *e);
/*
 * Records that merge worker worker ("host:pid") polls now, every
 * interval_ms milliseconds (merge_workers).
 */
int	forge_merge_worker_beat(struct db *db, const char *worker, int64_t interval_ms,
	    struct err *e);
/*
 * Records that merge worker worker stopped (cleanly) now, and deletes the
 * rows of workers not seen for a week (a poll need not).
 */
int	forge_merge_worker_stop(struct db *db, const char *worker, struct err *e);
/*
 * *age: the seconds since a merge worker was last seen (-1: never);
 * *alive: whether a worker runs that was seen within polls times its
 * interval, or min_ms when that is longer.
 */
int	forge_merge_workers_seen(struct db *db, int64_t *age, int *alive, int64_t polls,
	    int64_t min_ms, struct err *e);
/*
 * Takes for holder (a worker's "host:pid"), waiting at most wait seconds,
 * or releases the lock that serialises merges into repository repo_id: a
 * row of merge_locks, shared by every host and every node of a cluster.
 * It is free when nobody holds it, when its holder's beat is older than
 * stale seconds, or when its holder is dead (NULL: none known).  Taking it
 * again renews the beat.  *got is 0 when another worker holds it.
 */
int	forge_merge_lock(struct db *db, int *got, uint64_t repo_id, const char *holder,
	    const char *dead, int stale, int wait, struct err *e);
int	forge_merge_unlock(struct db *db, uint64_t repo_id, const char *holder, struct err *e);

#endif
