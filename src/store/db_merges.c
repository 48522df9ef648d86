/* db_merges: the MySQL queries behind the merge queue (merge_pull_request and `forgemcp worker`). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "err.h"
#include "store/db.h"
#include "store/db-internal.h"
#include "store/db_merges.h"
#include "store/db_forge.h"

#define MERGE_COLS \
    "SELECT m.id, m.repo_id, m.pull_request_id, m.requested_by, m.version, m.attempts," \
    " IFNULL(TIMESTAMPDIFF(SECOND, m.heartbeat_at, UTC_TIMESTAMP()), -1), p.number," \
    " m.strategy, m.state, m.base_commit, m.result_commit, m.claimed_by, u.login, r.name" \
    " FROM merges m JOIN pull_requests p ON p.id = m.pull_request_id" \
    " JOIN repositories r ON r.id = m.repo_id JOIN users u ON u.id = r.owner_id "

static const char SQL_QUEUE[] =
    "INSERT INTO merges (repo_id, pull_request_id, version, strategy, requested_by)"
    " VALUES (?, ?, ?, ?, ?)";
static const char SQL_PULL_STATE[] =
    "UPDATE pull_requests SET merge_state = ?, updated_at = UTC_TIMESTAMP() WHERE id = ?";
/*
 * The oldest queued merge of a repository with no older merge queued or
 * running: merges into one repository run in the order they were queued,
 * whichever worker claims them.
 */
static const char SQL_OLDEST[] =
    "SELECT m.id FROM merges m WHERE m.state = 'queued' AND NOT EXISTS (SELECT 1 FROM merges o"
    " WHERE o.repo_id = m.repo_id AND o.id < m.id AND o.state IN ('queued', 'running'))"
    " ORDER BY m.id LIMIT 1 FOR UPDATE SKIP LOCKED";
static const char SQL_CLAIM[] =
    "UPDATE merges SET state = 'running', claimed_by = ?, heartbeat_at = UTC_TIMESTAMP(),"
    " attempts = attempts + 1 WHERE id = ? AND state = 'queued'";
static const char SQL_GET[] = MERGE_COLS "WHERE m.id = ?";
static const char SQL_RUNNING[] =
    MERGE_COLS "WHERE m.state = 'running' ORDER BY m.id LIMIT 100";
static const char SQL_TAKE_OVER[] =
    "UPDATE merges SET claimed_by = ?, heartbeat_at = UTC_TIMESTAMP(), attempts = attempts + 1"
    " WHERE id = ? AND state = 'running' AND claimed_by <=> ?";
static const char SQL_RESULT[] =
    "UPDATE merges SET base_commit = ?, result_commit = ?, heartbeat_at = UTC_TIMESTAMP()"
    " WHERE id = ? AND state = 'running'";
static const char SQL_IS_RUNNING[] =
    "SELECT 1 FROM merges WHERE id = ? AND state = 'running'";
static const char SQL_MERGED[] =
    "UPDATE merges SET state = 'merged', finished_at = UTC_TIMESTAMP(), error = NULL"
    " WHERE id = ? AND state = 'running'";
static const char SQL_PULL_MERGED[] =
    "UPDATE pull_requests SET state = 'merged', merged_at = UTC_TIMESTAMP(),"
    " merge_state = 'merged', merge_commit = ?, updated_at = UTC_TIMESTAMP() WHERE id = ?";
static const char SQL_FAILED[] =
    "UPDATE merges SET state = 'failed', error = ?, finished_at = UTC_TIMESTAMP()"
    " WHERE id = ? AND state = 'running'";
static const char SQL_FAILED_EVENT[] =
    "INSERT INTO events (pull_request_id, actor_id, kind, cause, detail)"
    " VALUES (?, ?, 'merge_failed', 'user', ?)";
static const char SQL_LAST_ERROR[] =
    "SELECT state, error FROM merges WHERE pull_request_id = ? ORDER BY id DESC LIMIT 1";
static const char SQL_WORKER_BEAT[] =
    "INSERT INTO merge_workers (worker, interval_ms, running, seen_at)"
    " VALUES (?, ?, 1, UTC_TIMESTAMP(3)) ON DUPLICATE KEY UPDATE"
    " interval_ms = VALUES(interval_ms), running = 1, seen_at = UTC_TIMESTAMP(3)";
static const char SQL_WORKER_PRUNE[] =
    "DELETE FROM merge_workers WHERE seen_at < UTC_TIMESTAMP() - INTERVAL 7 DAY";
static const char SQL_WORKER_STOP[] =
    "UPDATE merge_workers SET running = 0, seen_at = UTC_TIMESTAMP(3) WHERE worker = ?";
/* Seconds since a worker was last seen; whether one runs that missed at most ? polls (or ? ms). */
static const char SQL_WORKER_SEEN[] =
    "SELECT IFNULL(MIN(TIMESTAMPDIFF(SECOND, seen_at, UTC_TIMESTAMP(3))), -1),"
    " IFNULL(MAX(running <> 0 AND TIMESTAMPDIFF(MICROSECOND, seen_at, UTC_TIMESTAMP(3))"
    " <= GREATEST(interval_ms * ?, ?) * 1000), 0) FROM merge_workers";
/*
 * The merge lock (schema/019): taken when free, renewed by its holder.
 * MariaDB applies the assignments of ON DUPLICATE KEY UPDATE in order, so
 * beat_at sees the holder just set.  Two workers taking it at once wait
 * on the row (one server) or collide at commit (a Galera cluster).
 */
static const char SQL_LOCK[] =
    "INSERT INTO merge_locks (repo_id, holder, beat_at) VALUES (?, ?, UTC_TIMESTAMP(3))"
    " ON DUPLICATE KEY UPDATE holder = IF(holder = VALUES(holder) OR holder <=> ?"
    " OR beat_at < UTC_TIMESTAMP(3) - INTERVAL ? SECOND, VALUES(holder), holder),"
    " beat_at = IF(holder = VALUES(holder), UTC_TIMESTAMP(3), beat_at)";
static const char SQL_LOCK_HOLDER[] = "SELECT holder FROM merge_locks WHERE repo_id = ?";
static const char SQL_UNLOCK[] = "DELETE FROM merge_locks WHERE repo_id = ? AND holder = ?";

int
forge_merge_queue(struct db *db, uint64_t *id, uint64_t repo_id, uint64_t pull_request_id,
    int64_t version, const char *strategy, uint64_t user_id, struct err *e)
{
	int	 rc;

	*id = 0;
	if ((rc = db_run(db, DB_ONCE, SQL_QUEUE, NULL, NULL, id, e, "uuisu", repo_id,
	    pull_request_id, version, strategy, user_id)) != 0)
		return rc;
	return db_run(db, DB_ONCE, SQL_PULL_STATE, NULL, NULL, NULL, e, "su", "queued",
	    pull_request_id);
}

/* The columns of MERGE_COLS (heartbeat_age is never NULL there: -1 stands for none). */
static const struct db_col merge_cols[] = {
	DB_U64(struct forge_merge, id),
	DB_U64(struct forge_merge, repo_id),
	DB_U64(struct forge_merge, pull_request_id),
	DB_U64(struct forge_merge, requested_by),
	DB_I64(struct forge_merge, version),
	DB_I64(struct forge_merge, attempts),
	DB_I64(struct forge_merge, heartbeat_age),
	DB_I64(struct forge_merge, number),
	DB_CHARS(struct forge_merge, strategy),
	DB_CHARS(struct forge_merge, state),
	DB_CHARS(struct forge_merge, base_commit),
	DB_CHARS(struct forge_merge, result_commit),
	DB_CHARS(struct forge_merge, claimed_by),
	DB_CHARS(struct forge_merge, owner),
	DB_CHARS(struct forge_merge, name),
};
static const struct db_shape merge_shape = DB_SHAPE(struct forge_merge, merge_cols);

int
forge_merge_get(struct db *db, struct forge_merge *out, uint64_t id, struct err *e)
{
	struct db_rows	 r = { 0 };
	int		 rc;

	memset(out, 0, sizeof *out);
	if ((rc = db_run(db, db->in_tx ? DB_ONCE : DB_RETRY, SQL_GET, &r, NULL, NULL, e, "u",
	    id)) != 0)
		goto done;
	if (r.n == 0) {
		rc = ERR_NOTFOUND;
		goto done;
	}
	rc = db_row_fill(out, &merge_shape, &r, 0, e);
done:
	db_rows_release(&r);
	return rc;
}

struct claim_args {
	struct forge_merge	*out;
	int			*found;
	const char		*claimed_by;
};

static int
claim_tx(struct db *db, void *arg, struct err *e)
{
	struct claim_args	*a = arg;
	struct db_rows		 r = { 0 };
	uint64_t		 id, n = 0;
	int			 rc;

	*a->found = 0;
	memset(a->out, 0, sizeof *a->out);
	if ((rc = db_run(db, DB_ONCE, SQL_OLDEST, &r, NULL, NULL, e, "")) != 0 || r.n == 0)
		goto done;
	id = db_to_u64(db_rows_get(&r, 0, 0));
	if ((rc = db_run(db, DB_ONCE, SQL_CLAIM, NULL, &n, NULL, e, "su", a->claimed_by,
	    id)) != 0)
		goto done;
	if (n != 1) {
		rc = err_set(e, ERR_DB, "merge %llu: claim lost", (unsigned long long)id);
		goto done;
	}
	if ((rc = forge_merge_get(db, a->out, id, e)) != 0)
		goto done;
	if ((rc = db_run(db, DB_ONCE, SQL_PULL_STATE, NULL, NULL, NULL, e, "su", "running",
	    a->out->pull_request_id)) != 0)
		goto done;
	*a->found = 1;
done:
	db_rows_release(&r);
	return rc;
}

int
forge_merge_claim(struct db *db, struct forge_merge *out, int *found, const char *claimed_by,
    struct err *e)
{
	struct claim_args	 a = { out, found, claimed_by };
	int			 rc;

	if ((rc = db_tx(db, claim_tx, &a, e)) != 0)
		*found = 0;
	return rc;
}

int
forge_merge_running(struct db *db, struct forge_merge **out, size_t *n, struct err *e)
{
	void	*v;
	int	 rc;

	rc = db_map(db, DB_RETRY, SQL_RUNNING, &merge_shape, &v, n, e, "");
	*out = v;
	return rc;
}

int
forge_merge_take_over(struct db *db, int *taken, uint64_t id, const char *old,
    const char *claimed_by, struct err *e)
{
	uint64_t	 n = 0;
	int		 rc;

	*taken = 0;
	if ((rc = db_run(db, DB_ONCE, SQL_TAKE_OVER, NULL, &n, NULL, e, "sus", claimed_by, id,
	    old != NULL && old[0] != '\0' ? old : NULL)) != 0)
		return rc;
	*taken = n == 1;
	return 0;
}

int
forge_merge_set_result(struct db *db, uint64_t id, const char *base_commit,
    const char *result_commit, struct err *e)
{
	struct db_rows	 r = { 0 };
	uint64_t	 n = 0;
	int		 rc;

	if ((rc = db_run(db, DB_ONCE, SQL_RESULT, NULL, &n, NULL, e, "ssu", base_commit,
	    result_commit, id)) != 0)
		return rc;
	if (n == 1)
		return 0;
	/*
	 * MariaDB counts changed rows: a merge built again after a crash
	 * records the same commits, and within the same second as the take-over
	 * the same heartbeat, so no row changes.  Whether it still runs decides.
	 */
	if ((rc = db_run(db, DB_ONCE, SQL_IS_RUNNING, &r, NULL, NULL, e, "u", id)) != 0)
		return rc;
	n = r.n;
	db_rows_release(&r);
	if (n != 1)
		return err_set(e, ERR_DB, "merge %llu is no longer running",
		    (unsigned long long)id);
	return 0;
}

int
forge_merge_mark_merged(struct db *db, int *done, uint64_t id, uint64_t pull_request_id,
    const char *merge_commit, struct err *e)
{
	uint64_t	 n = 0;
	int		 rc;

	*done = 0;
	if ((rc = db_run(db, DB_ONCE, SQL_MERGED, NULL, &n, NULL, e, "u", id)) != 0)
		return rc;
	if (n != 1)
		return 0;
	if ((rc = db_run(db, DB_ONCE, SQL_PULL_MERGED, NULL, NULL, NULL, e, "su", merge_commit,
	    pull_request_id)) != 0)
		return rc;
	*done = 1;
	return 0;
}

struct failed_args {
	uint64_t	 id, pull_request_id, actor_id;
	const char	*error;
};

static int
failed_tx(struct db *db, void *arg, struct err *e)
{
	struct failed_args	*a = arg;
	uint64_t		 n = 0;
	int			 rc;

	if ((rc = db_run(db, DB_ONCE, SQL_FAILED, NULL, &n, NULL, e, "su", a->error,
	    a->id)) != 0 || n != 1)
		return rc;
	if ((rc = db_run(db, DB_ONCE, SQL_PULL_STATE, NULL, NULL, NULL, e, "su", "failed",
	    a->pull_request_id)) != 0)
		return rc;
	return db_run(db, DB_ONCE, SQL_FAILED_EVENT, NULL, NULL, NULL, e, "uus",
	    a->pull_request_id, a->actor_id, a->error);
}

int
forge_merge_mark_failed(struct db *db, uint64_t id, uint64_t pull_request_id,
    uint64_t actor_id, const char *error, struct err *e)
{
	struct failed_args	 a = { id, pull_request_id, actor_id, error };

	return db_tx(db, failed_tx, &a, e);
}

int
forge_merge_last_error(struct db *db, char **out, uint64_t pull_request_id, struct err *e)
{
	struct db_rows	 r = { 0 };
	const char	*s;
	int		 rc;

	*out = NULL;
	if ((rc = db_run(db, DB_RETRY, SQL_LAST_ERROR, &r, NULL, NULL, e, "u",
	    pull_request_id)) != 0)
		goto done;
	if (r.n == 0 || strcmp(db_rows_get(&r, 0, 0), "failed") != 0 ||
	    (s = db_rows_get(&r, 0, 1)) == NULL)
		goto done;
	if ((*out = strdup(s)) == NULL)
		rc = err_set(e, ERR_NOMEM, "out of memory");
done:
	db_rows_release(&r);
	return rc;
}

int
forge_merge_worker_beat(struct db *db, const char *worker, int64_t interval_ms, struct err *e)
{
	return db_run(db, DB_RETRY, SQL_WORKER_BEAT, NULL, NULL, NULL, e, "si", worker,
	    interval_ms);
}

int
forge_merge_worker_stop(struct db *db, const char *worker, struct err *e)
{
	int	 rc;

	if ((rc = db_run(db, DB_RETRY, SQL_WORKER_STOP, NULL, NULL, NULL, e, "s", worker)) != 0)
		return rc;
	return db_run(db, DB_RETRY, SQL_WORKER_PRUNE, NULL, NULL, NULL, e, "");
}

int
forge_merge_workers_seen(struct db *db, int64_t *age, int *alive, int64_t polls,
    int64_t min_ms, struct err *e)
{
	struct db_rows	 r = { 0 };
	const char	*s;
	int		 rc;

	*age = -1;
	*alive = 0;
	if ((rc = db_run(db, DB_RETRY, SQL_WORKER_SEEN, &r, NULL, NULL, e, "ii", polls,
	    min_ms)) != 0)
		goto done;
	if (r.n > 0 && (s = db_rows_get(&r, 0, 0)) != NULL)
		*age = strtoll(s, NULL, 10);
	if (r.n > 0 && (s = db_rows_get(&r, 0, 1)) != NULL)
		*alive = strcmp(s, "0") != 0;
done:
	db_rows_release(&r);
	return rc;
}

/* One attempt at the lock: *got when holder holds it now. */
static int
lock_try(struct db *db, int *got, uint64_t repo_id, const char *holder, const char *dead,
    int stale, struct err *e)
{
	struct db_rows	 r = { 0 };
	const char	*s;
	int		 rc;

	*got = 0;
	rc = db_run(db, DB_ONCE, SQL_LOCK, NULL, NULL, NULL, e, "ussi", repo_id, holder, dead,
	    (int64_t)stale);
	if (rc == ERR_CONFLICT) {	/* another node took it at the same moment */
		err_clear(e);
		return 0;
	}
	if (rc != 0 || (rc = db_run(db, DB_ONCE, SQL_LOCK_HOLDER, &r, NULL, NULL, e, "u",
	    repo_id)) != 0)
		goto done;
	s = r.n > 0 ? db_rows_get(&r, 0, 0) : NULL;
	*got = s != NULL && strcmp(s, holder) == 0;
done:
	db_rows_release(&r);
	return rc;
}

int
forge_merge_lock(struct db *db, int *got, uint64_t repo_id, const char *holder,
    const char *dead, int stale, int wait, struct err *e)
{
	struct timespec	 t0, now, nap = { 0, 100 * 1000 * 1000 };
	int		 rc;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (;;) {
		if ((rc = lock_try(db, got, repo_id, holder, dead, stale, e)) != 0 || *got)
			return rc;
		clock_gettime(CLOCK_MONOTONIC, &now);
		if (now.tv_sec - t0.tv_sec >= wait)
			return 0;
		nanosleep(&nap, NULL);
	}
}

int
forge_merge_unlock(struct db *db, uint64_t repo_id, const char *holder, struct err *e)
{
	return db_run(db, DB_ONCE, SQL_UNLOCK, NULL, NULL, NULL, e, "us", repo_id, holder);
}
