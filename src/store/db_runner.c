/* db_runner: the MySQL queries of `forgemcp runner`: claims, heartbeats, logs, finishing and advancing runs. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <json-c/json.h>

#include "err.h"
#include "store/db.h"
#include "store/db-internal.h"
#include "store/db_runner.h"

static const char SQL_CLAIM_PICK[] =
    "SELECT j.id, j.run_id FROM ci_jobs j JOIN ci_runs r ON r.id = j.run_id"
    " WHERE j.state = 'queued' AND r.state IN ('queued', 'running')"
    " ORDER BY j.id LIMIT 1 FOR UPDATE SKIP LOCKED";
static const char SQL_CLAIM_JOB[] =
    "UPDATE ci_jobs SET state = 'running', claimed_by = ?, heartbeat_at = UTC_TIMESTAMP(3),"
    " started_at = UTC_TIMESTAMP(3) WHERE id = ? AND state = 'queued'";
static const char SQL_CLAIM_RUN[] =
    "UPDATE ci_runs SET state = 'running', started_at = COALESCE(started_at, UTC_TIMESTAMP(3))"
    " WHERE id = ? AND state = 'queued'";
static const char SQL_CLAIM_GET[] =
    "SELECT j.id, j.run_id, r.repo_id, r.number, o.login, p.name, j.job, j.job_id, j.matrix,"
    " r.inputs, r.workflow, r.workflow_path, r.workflow_blob, r.commit_id, r.ref,"
    " j.timeout_minutes FROM ci_jobs j JOIN ci_runs r ON r.id = j.run_id"
    " JOIN repositories p ON p.id = r.repo_id JOIN users o ON o.id = p.owner_id"
    " WHERE j.id = ?";
static const char SQL_BEAT[] =
    "UPDATE ci_jobs SET heartbeat_at = UTC_TIMESTAMP(3) WHERE id = ? AND state = 'running'";
static const char SQL_LOG_AT[] =
    "SELECT log_bytes, (SELECT COALESCE(MAX(seq) + 1, 0) FROM ci_log_chunks c"
    " WHERE c.job_id = j.id) FROM ci_jobs j WHERE j.id = ? FOR UPDATE";
static const char SQL_LOG_INSERT[] =
    "INSERT INTO ci_log_chunks (job_id, seq, byte_offset, bytes) VALUES (?, ?, ?, ?)";
static const char SQL_LOG_BYTES[] =
    "UPDATE ci_jobs SET log_bytes = log_bytes + ? WHERE id = ?";
static const char SQL_CANCEL[] =
    "SELECT j.cancel_requested_at IS NOT NULL, u.login FROM ci_jobs j"
    " LEFT JOIN users u ON u.id = j.cancel_requested_by WHERE j.id = ?";
static const char SQL_RUN_OF[] =
    "SELECT run_id FROM ci_jobs WHERE id = ?";
static const char SQL_MINE[] =
    "SELECT run_id FROM ci_jobs WHERE id = ? AND state = 'running' AND claimed_by = ?"
    " FOR UPDATE";
static const char SQL_END[] =
    "UPDATE ci_jobs SET state = ?, exit_code = ?, timed_out = ?,"
    " finished_at = UTC_TIMESTAMP(3) WHERE id = ?";
static const char SQL_LOST[] =
    "SELECT id, claimed_by FROM ci_jobs WHERE state = 'running' AND (heartbeat_at IS NULL OR"
    " heartbeat_at < UTC_TIMESTAMP(3) - INTERVAL ? SECOND) ORDER BY id LIMIT 100";
static const char SQL_LOST_LOCK[] =
    "SELECT run_id FROM ci_jobs WHERE id = ? AND state = 'running' AND (heartbeat_at IS NULL"
    " OR heartbeat_at < UTC_TIMESTAMP(3) - INTERVAL ? SECOND) FOR UPDATE";
/* written, not only locked: on Galera two nodes then collide (020-written-locks.sql) */
static const char SQL_RUN_TOUCH[] =
    "UPDATE ci_runs SET lock_count = lock_count + 1 WHERE id = ?";
static const char SQL_RUN_LOCK[] =
    "SELECT state FROM ci_runs WHERE id = ? FOR UPDATE";
static const char SQL_RUN_JOBS[] =
    "SELECT id, job, state, needs FROM ci_jobs WHERE run_id = ? ORDER BY seq FOR UPDATE";
static const char SQL_JOB_STATE[] =
    "UPDATE ci_jobs SET state = ?, finished_at = IF(? = 'skipped', UTC_TIMESTAMP(3), NULL)"
    " WHERE id = ? AND state = 'blocked'";
static const char SQL_RUN_END[] =
    "UPDATE ci_runs SET state = ?, finished_at = UTC_TIMESTAMP(3) WHERE id = ?"
    " AND state IN ('queued', 'running')";

static const struct db_col claim_cols[] = {
	DB_U64(struct runner_job, id),
	DB_U64(struct runner_job, run_id),
	DB_U64(struct runner_job, repo_id),
	DB_I64(struct runner_job, run_number),
	DB_CHARS(struct runner_job, owner),
	DB_CHARS(struct runner_job, name),
	DB_CHARS(struct runner_job, job),
	DB_TEXT(struct runner_job, job_id),
	DB_TEXT(struct runner_job, matrix),
	DB_TEXT(struct runner_job, inputs),
	DB_CHARS(struct runner_job, workflow),
	DB_CHARS(struct runner_job, workflow_path),
	DB_CHARS(struct runner_job, workflow_blob),
	DB_CHARS(struct runner_job, commit),
	DB_CHARS(struct runner_job, ref),
	DB_I64(struct runner_job, timeout_minutes),
};
static const struct db_shape claim_shape = DB_SHAPE(struct runner_job, claim_cols);

/*
 * Times a runner's transaction is tried when it lost a race (a deadlock or
 * a lock wait with another runner, cancel_run or a reader): a log chunk
 * or a job's end is not dropped for that.
 */
/* The claim's statements, inside the transaction db_begin opened. */
static int
claim_tx(struct db *db, const char *claimed_by, struct runner_job *out, int *got,
    struct err *e)
{
	struct db_rows	 r = { 0 };
	uint64_t	 id = 0, run_id = 0, n = 0;
	int		 rc, tries;

	/*
	 * The claim is a compare-and-swap on the job's state: on a Galera
	 * cluster the pick may see a job another node claimed a moment ago
	 * (certification does not catch a write made on a row read before the
	 * other node's write was applied), and then the next is tried.
	 */
	for (tries = 0; tries < 4 && n == 0; tries++) {
		if ((rc = db_run(db, DB_ONCE, SQL_CLAIM_PICK, &r, NULL, NULL, e, "")) != 0 ||
		    r.n == 0)
			goto done;
		id = db_to_u64(db_rows_get(&r, 0, 0));
		run_id = db_to_u64(db_rows_get(&r, 0, 1));
		db_rows_release(&r);
		if ((rc = db_run(db, DB_ONCE, SQL_CLAIM_JOB, NULL, &n, NULL, e, "su", claimed_by,
		    id)) != 0)
			goto done;
	}
	if (n == 0)
		goto done;
	if ((rc = db_run(db, DB_ONCE, SQL_CLAIM_RUN, NULL, NULL, NULL, e, "u", run_id)) != 0 ||
	    (rc = db_run(db, DB_ONCE, SQL_CLAIM_GET, &r, NULL, NULL, e, "u", id)) != 0)
		goto done;
	if (r.n == 0) {
		rc = err_set(e, ERR_INTERNAL, "claimed job %llu vanished", (unsigned long long)id);
		goto done;
	}
	if ((rc = db_row_fill(out, &claim_shape, &r, 0, e)) == 0)
		*got = 1;
done:
	db_rows_release(&r);
	return rc;
}

struct claim_arg {
	const char		*claimed_by;
	struct runner_job	*out;
	int			*got;
};

static int
claim_try(struct db *db, void *arg, struct err *e)
{
	struct claim_arg	*a = arg;

	runner_job_release(a->out);
	memset(a->out, 0, sizeof *a->out);
	*a->got = 0;
	return claim_tx(db, a->claimed_by, a->out, a->got, e);
}

int
runner_claim(struct db *db, const char *claimed_by, struct runner_job *out, int *got,
    struct err *e)
{
	struct claim_arg	 a = { claimed_by, out, got };
	int			 rc;

	*got = 0;
	memset(out, 0, sizeof *out);
	if ((rc = db_tx(db, claim_try, &a, e)) == 0)
		return 0;
	runner_job_release(out);
	*got = 0;
	return rc;
}

void
runner_job_release(struct runner_job *j)
{
	if (j != NULL)
		db_row_release(&claim_shape, j);
}

int
runner_heartbeat(struct db *db, uint64_t id, struct err *e)
{
	return db_run(db, DB_RETRY, SQL_BEAT, NULL, NULL, NULL, e, "u", id);
}

/* Appends one chunk to job id's log (inside a transaction). */
static int
log_add(struct db *db, uint64_t id, const char *p, size_t len, struct err *e)
{
	struct db_rows	 r = { 0 };
	uint64_t	 off, seq;
	int		 rc;

	if (len == 0)
		return 0;
	if (len > RUNNER_CHUNK_MAX)
		len = RUNNER_CHUNK_MAX;
	if ((rc = db_run(db, DB_ONCE, SQL_LOG_AT, &r, NULL, NULL, e, "u", id)) != 0)
		goto done;
	if (r.n == 0) {
		rc = err_set(e, ERR_NOTFOUND, "job %llu is gone", (unsigned long long)id);
		goto done;
	}
	off = db_to_u64(db_rows_get(&r, 0, 0));
	seq = db_to_u64(db_rows_get(&r, 0, 1));
	if ((rc = db_run(db, DB_ONCE, SQL_LOG_INSERT, NULL, NULL, NULL, e, "uuub", id, seq, off,
	    p, len)) != 0)
		goto done;
	rc = db_run(db, DB_ONCE, SQL_LOG_BYTES, NULL, NULL, NULL, e, "uu", (uint64_t)len, id);
done:
	db_rows_release(&r);
	return rc;
}

struct log_arg {
	uint64_t	 id;
	const char	*p;
	size_t		 len;
};

static int
log_try(struct db *db, void *arg, struct err *e)
{
	struct log_arg	*a = arg;

	return log_add(db, a->id, a->p, a->len, e);
}

int
runner_log_append(struct db *db, uint64_t id, const char *p, size_t len, struct err *e)
{
	struct log_arg	 a = { id, p, len };

	return db_tx(db, log_try, &a, e);
}

int
runner_cancel_asked(struct db *db, uint64_t id, int *asked, char login[65], struct err *e)
{
	struct db_rows	 r = { 0 };
	int		 rc;

	*asked = 0;
	login[0] = '\0';
	if ((rc = db_run(db, DB_RETRY, SQL_CANCEL, &r, NULL, NULL, e, "u", id)) == 0 && r.n > 0) {
		*asked = db_to_u64(db_rows_get(&r, 0, 0)) != 0;
		db_copy_str(login, 65, db_rows_get(&r, 0, 1));
	}
	db_rows_release(&r);
	return rc;
}

/*
 * Locks run id (its state in r) for a change that depends on its jobs'
 * states: two jobs of one run ending at once on two Galera nodes must not
 * both miss the other's end (neither would start what needs them both).
 */
static int
run_lock(struct db *db, uint64_t id, struct db_rows *r, struct err *e)
{
	int	rc;

	if ((rc = db_run(db, DB_ONCE, SQL_RUN_TOUCH, NULL, NULL, NULL, e, "u", id)) != 0)
		return rc;
	return db_run(db, DB_ONCE, SQL_RUN_LOCK, r, NULL, NULL, e, "u", id);
}

/*
 * Locks the run of job id before the job itself: every transaction that
 * writes a job's end and its run's jobs takes the run first, so two jobs
 * of one run ending at once wait for each other instead of deadlocking.
 */
static int
lock_run_of(struct db *db, uint64_t id, struct err *e)
{
	struct db_rows	 r = { 0 }, lock = { 0 };
	int		 rc;

	if ((rc = db_run(db, DB_ONCE, SQL_RUN_OF, &r, NULL, NULL, e, "u", id)) == 0 && r.n > 0)
		rc = run_lock(db, db_to_u64(db_rows_get(&r, 0, 0)), &lock, e);
	db_rows_release(&lock);
	db_rows_release(&r);
	return rc;
}

/* Ends job id (locked, running) in state with its log's tail, then advances run_id. */
static int
end_job(struct db *db, uint64_t id, uint64_t run_id, const char *state, int exit_code,
    const char *tail, struct err *e)
{
	char	 code[16];
	int	 rc;

	if (tail != NULL && (rc = log_add(db, id, tail, strlen(tail), e)) != 0)
		return rc;
	snprintf(code, sizeof code, "%d", exit_code);
	if ((rc = db_run(db, DB_ONCE, SQL_END, NULL, NULL, NULL, e, "ssiu", state,
	    exit_code < 0 ? NULL : code, (int64_t)(strcmp(state, "timed_out") == 0), id)) != 0)
		return rc;
	return ci_run_advance(db, run_id, e);
}

struct finish_arg {
	uint64_t	 id;
	const char	*claimed_by, *state, *tail;
	int		 exit_code;
};

static int
finish_try(struct db *db, void *arg, struct err *e)
{
	struct finish_arg	*a = arg;
	struct db_rows		 r = { 0 };
	int			 rc;

	if ((rc = lock_run_of(db, a->id, e)) == 0 &&
	    (rc = db_run(db, DB_ONCE, SQL_MINE, &r, NULL, NULL, e, "us", a->id,
	    a->claimed_by)) == 0 && r.n > 0)
		rc = end_job(db, a->id, db_to_u64(db_rows_get(&r, 0, 0)), a->state, a->exit_code,
		    a->tail, e);
	db_rows_release(&r);
	return rc;
}

int
runner_finish(struct db *db, uint64_t id, const char *claimed_by, const char *state,
    int exit_code, const char *tail, struct err *e)
{
	struct finish_arg	 a = { id, claimed_by, state, tail, exit_code };

	return db_tx(db, finish_try, &a, e);
}

struct lost_arg {
	uint64_t	 id;
	int64_t		 lost_after;
	int		 ended;
};

static int
lost_try(struct db *db, void *arg, struct err *e)
{
	struct lost_arg	*a = arg;
	struct db_rows	 r = { 0 };
	int		 rc;

	a->ended = 0;
	if ((rc = lock_run_of(db, a->id, e)) == 0 &&
	    (rc = db_run(db, DB_ONCE, SQL_LOST_LOCK, &r, NULL, NULL, e, "ui", a->id,
	    a->lost_after)) == 0 && r.n > 0) {
		rc = end_job(db, a->id, db_to_u64(db_rows_get(&r, 0, 0)), "failure", -1,
		    "runner lost\n", e);
		a->ended = rc == 0;
	}
	db_rows_release(&r);
	return rc;
}

/* Ends lost job id failure, unless its heartbeat came back meanwhile. */
static int
recover_one(struct db *db, uint64_t id, int64_t lost_after, size_t *n, struct err *e)
{
	struct lost_arg	 a = { id, lost_after, 0 };
	int		 rc;

	if ((rc = db_tx(db, lost_try, &a, e)) == 0 && a.ended)
		(*n)++;
	return rc;
}

int
runner_recover(struct db *db, int64_t lost_after, size_t *n, struct err *e)
{
	struct db_rows	 r = { 0 };
	size_t		 i;
	int		 rc;

	*n = 0;
	if ((rc = db_run(db, DB_RETRY, SQL_LOST, &r, NULL, NULL, e, "i", lost_after)) != 0)
		goto done;
	for (i = 0; i < r.n && rc == 0; i++)
		rc = recover_one(db, db_to_u64(db_rows_get(&r, i, 0)), lost_after, n, e);
done:
	db_rows_release(&r);
	return rc;
}

/* One job of a run being advanced. */
struct adv_job {
	uint64_t		 id;
	const char		*job;
	char			 state[16];
	struct json_object	*needs;		/* array of logical job ids */
};

static int
adv_bad(const char *state)
{
	return strcmp(state, "failure") == 0 || strcmp(state, "timed_out") == 0 ||
	    strcmp(state, "cancelled") == 0 || strcmp(state, "skipped") == 0;
}

static int
adv_final(const char *state)
{
	return adv_bad(state) || strcmp(state, "success") == 0;
}

/*
 * What blocked job j becomes: "queued" when every instance of every job it
 * needs succeeded, "skipped" when one ended otherwise, NULL while it waits.
 */
static const char *
adv_verdict(const struct adv_job *v, size_t n, const struct adv_job *j)
{
	const char	*need, *out = "queued";
	size_t		 a, k, len;

	len = json_object_is_type(j->needs, json_type_array) ?
	    json_object_array_length(j->needs) : 0;
	for (a = 0; a < len; a++) {
		need = json_object_get_string(json_object_array_get_idx(j->needs, a));
		for (k = 0; need != NULL && k < n; k++) {
			if (strcmp(v[k].job, need) != 0)
				continue;
			if (adv_bad(v[k].state))
				return "skipped";
			if (strcmp(v[k].state, "success") != 0)
				out = NULL;
		}
	}
	return out;
}

/* Moves the blocked jobs of v until nothing changes (a skip skips its dependents too). */
static int
adv_jobs(struct db *db, struct adv_job *v, size_t n, struct err *e)
{
	const char	*to;
	size_t		 i;
	int		 changed = 1, rc;

	while (changed) {
		changed = 0;
		for (i = 0; i < n; i++) {
			if (strcmp(v[i].state, "blocked") != 0 ||
			    (to = adv_verdict(v, n, &v[i])) == NULL)
				continue;
			if ((rc = db_run(db, DB_ONCE, SQL_JOB_STATE, NULL, NULL, NULL, e, "ssu", to,
			    to, v[i].id)) != 0)
				return rc;
			snprintf(v[i].state, sizeof v[i].state, "%s", to);
			changed = 1;
		}
	}
	return 0;
}

int
ci_run_advance(struct db *db, uint64_t run_id, struct err *e)
{
	struct db_rows	 r = { 0 };
	struct adv_job	*v = NULL;
	const char	*st;
	size_t		 i, n = 0, final = 0, ok = 0;
	int		 rc;

	if ((rc = run_lock(db, run_id, &r, e)) != 0)
		goto done;
	st = r.n > 0 ? db_rows_get(&r, 0, 0) : NULL;
	if (st == NULL || (strcmp(st, "queued") != 0 && strcmp(st, "running") != 0))
		goto done;
	db_rows_release(&r);
	if ((rc = db_run(db, DB_ONCE, SQL_RUN_JOBS, &r, NULL, NULL, e, "u", run_id)) != 0)
		goto done;
	n = r.n;
	if (n == 0 || (v = calloc(n, sizeof *v)) == NULL) {
		rc = n == 0 ? 0 : err_set(e, ERR_NOMEM, "out of memory");
		goto done;
	}
	for (i = 0; i < n; i++) {
		v[i].id = db_to_u64(db_rows_get(&r, i, 0));
		v[i].job = db_rows_get(&r, i, 1);
		db_copy_str(v[i].state, sizeof v[i].state, db_rows_get(&r, i, 2));
		v[i].needs = json_tokener_parse(db_rows_get(&r, i, 3));
	}
	if ((rc = adv_jobs(db, v, n, e)) != 0)
		goto done;
	for (i = 0; i < n; i++) {
		final += adv_final(v[i].state);
		ok += strcmp(v[i].state, "success") == 0;
	}
	if (final == n)
		rc = db_run(db, DB_ONCE, SQL_RUN_END, NULL, NULL, NULL, e, "su",
		    ok == n ? "success" : "failure", run_id);
done:
	for (i = 0; v != NULL && i < n; i++)
		json_object_put(v[i].needs);
	free(v);
	db_rows_release(&r);
	return rc;
}
