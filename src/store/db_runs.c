/* db_runs: the MySQL queries behind CI runs and their job instances (ci_runs, ci_jobs). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "err.h"
#include "store/db.h"
#include "store/db-internal.h"
#include "store/db_forge.h"
#include "store/db_runs.h"

#define RUN_COLS \
    "SELECT r.id, r.number, r.workflow, r.workflow_name, r.workflow_path, r.workflow_blob," \
    " r.event, r.ref, r.commit_id, p.number, r.pull_version, r.state, u.login, r.inputs," \
    " r.selected_jobs, r.closure_added, r.rerun_of, " DB_DATE("r.created_at") ", " \
    DB_DATE("r.started_at") ", " DB_DATE("r.finished_at") "," \
    " (SELECT COUNT(*) FROM ci_jobs j WHERE j.run_id = r.id)," \
    " (SELECT COUNT(*) FROM ci_jobs j WHERE j.run_id = r.id AND j.state NOT IN" \
    " ('blocked', 'queued', 'running')), r.pull_request_id" \
    " FROM ci_runs r JOIN users u ON u.id = r.actor_id" \
    " LEFT JOIN pull_requests p ON p.id = r.pull_request_id "

static const char SQL_RUN_WAITING[] =
    "SELECT COUNT(*) FROM ci_runs WHERE repo_id = ? AND state IN ('queued', 'awaiting_approval')";
static const char SQL_RUN_NEXT[] =
    "SELECT COALESCE(MAX(number), 0) + 1 FROM ci_runs WHERE repo_id = ?";
static const char SQL_RUN_INSERT[] =
    "INSERT INTO ci_runs (repo_id, number, workflow, workflow_name, workflow_path,"
    " workflow_blob, event, ref, commit_id, state, actor_id, inputs, selected_jobs,"
    " closure_added, pull_request_id, pull_version, rerun_of)"
    " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, NULLIF(?, 0), NULLIF(?, 0),"
    " NULLIF(?, 0))";
static const char SQL_JOB_INSERT[] =
    "INSERT INTO ci_jobs (run_id, seq, job_id, job, name, matrix, needs, state,"
    " timeout_minutes) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)";
static const char SQL_RUN_LIST[] =
    RUN_COLS "WHERE r.repo_id = ? AND (? IS NULL OR r.workflow = ?) AND"
    " (? IS NULL OR r.ref = ?) AND (? IS NULL OR r.state = ?) AND (? = 0 OR p.number = ?)"
    " ORDER BY r.number DESC LIMIT ? OFFSET ?";
static const char SQL_RUN_GET[] =
    RUN_COLS "WHERE r.repo_id = ? AND r.number = ?";
static const char SQL_JOB_LIST[] =
    "SELECT job_id, job, name, matrix, needs, state, exit_code, timeout_minutes, "
    DB_DATE("started_at") ", " DB_DATE("finished_at") ", log_bytes"
    " FROM ci_jobs WHERE run_id = ? ORDER BY seq";

static const struct db_col run_cols[] = {
	DB_U64(struct forge_run, id),
	DB_I64(struct forge_run, number),
	DB_CHARS(struct forge_run, workflow),
	DB_CHARS(struct forge_run, workflow_name),
	DB_CHARS(struct forge_run, workflow_path),
	DB_CHARS(struct forge_run, workflow_blob),
	DB_CHARS(struct forge_run, event),
	DB_CHARS(struct forge_run, ref),
	DB_CHARS(struct forge_run, commit),
	DB_I64(struct forge_run, pull_request),
	DB_I64(struct forge_run, version),
	DB_CHARS(struct forge_run, state),
	DB_CHARS(struct forge_run, actor),
	DB_TEXT(struct forge_run, inputs),
	DB_STR(struct forge_run, selected_jobs),
	DB_TEXT(struct forge_run, closure_added),
	DB_I64(struct forge_run, rerun_of),
	DB_CHARS(struct forge_run, created_at),
	DB_CHARS(struct forge_run, started_at),
	DB_CHARS(struct forge_run, finished_at),
	DB_I64(struct forge_run, jobs_total),
	DB_I64(struct forge_run, jobs_finished),
	DB_U64(struct forge_run, pull_request_id),
};
static const struct db_shape run_shape = DB_SHAPE(struct forge_run, run_cols);

static const struct db_col job_cols[] = {
	DB_TEXT(struct forge_job, job_id),
	DB_CHARS(struct forge_job, job),
	DB_TEXT(struct forge_job, name),
	DB_TEXT(struct forge_job, matrix),
	DB_TEXT(struct forge_job, needs),
	DB_CHARS(struct forge_job, state),
	DB_CHARS(struct forge_job, exit_code),
	DB_I64(struct forge_job, timeout_minutes),
	DB_CHARS(struct forge_job, started_at),
	DB_CHARS(struct forge_job, finished_at),
	DB_I64(struct forge_job, log_bytes),
};
static const struct db_shape job_shape = DB_SHAPE(struct forge_job, job_cols);

int
forge_run_insert(struct db *db, uint64_t *id, int64_t *number, const struct forge_run_new *r,
    struct err *e)
{
	struct db_rows	 rows = { 0 };
	int		 rc;

	*id = 0;
	*number = 0;
	if ((rc = forge_repo_lock(db, r->repo_id, e)) != 0)
		goto done;
	if (r->waiting_max > 0) {
		if ((rc = db_run(db, DB_ONCE, SQL_RUN_WAITING, &rows, NULL, NULL, e, "u",
		    r->repo_id)) != 0)
			goto done;
		if (rows.n > 0 && (int64_t)db_to_u64(db_rows_get(&rows, 0, 0)) >= r->waiting_max) {
			rc = ERR_TOOBIG;
			goto done;
		}
		db_rows_release(&rows);
	}
	if ((rc = db_run(db, DB_ONCE, SQL_RUN_NEXT, &rows, NULL, NULL, e, "u", r->repo_id)) != 0)
		goto done;
	*number = rows.n > 0 ? (int64_t)db_to_u64(db_rows_get(&rows, 0, 0)) : 1;
	rc = db_run(db, DB_ONCE, SQL_RUN_INSERT, NULL, NULL, id, e, "uissssssssusssuii",
	    r->repo_id, *number, r->workflow, r->workflow_name, r->workflow_path,
	    r->workflow_blob, r->event, r->ref, r->commit, r->state, r->actor_id, r->inputs,
	    r->selected_jobs, r->closure_added, r->pull_request_id, r->pull_version,
	    r->rerun_of);
	if (rc == ERR_EXISTS)
		rc = err_set(e, ERR_INTERNAL, "duplicate run number");
done:
	db_rows_release(&rows);
	return rc;
}

int
forge_job_insert(struct db *db, uint64_t run_id, int64_t seq, const char *job_id,
    const char *job, const char *name, const char *matrix, const char *needs, const char *state,
    int64_t timeout_minutes, struct err *e)
{
	int	 rc;

	rc = db_run(db, DB_ONCE, SQL_JOB_INSERT, NULL, NULL, NULL, e, "uissssssi", run_id, seq,
	    job_id, job, name, matrix, needs, state, timeout_minutes);
	return rc == ERR_EXISTS ? err_set(e, ERR_INTERNAL, "duplicate job") : rc;
}

int
forge_run_list(struct db *db, struct forge_run **out, size_t *n, uint64_t repo_id,
    const char *workflow, const char *ref, const char *state, int64_t pull_request,
    int64_t offset, int limit, struct err *e)
{
	void	*v = NULL;
	int	 rc;

	if (offset < 0)
		offset = 0;
	rc = db_map(db, DB_RETRY, SQL_RUN_LIST, &run_shape, &v, n, e, "ussssssiiii", repo_id,
	    workflow, workflow, ref, ref, state, state, pull_request, pull_request,
	    (int64_t)limit, offset);
	*out = v;
	return rc;
}

void
forge_run_list_free(struct forge_run *v, size_t n)
{
	db_map_free(&run_shape, v, n);
}

int
forge_run_get(struct db *db, struct forge_run *out, uint64_t repo_id, int64_t number,
    struct err *e)
{
	struct db_rows	 r = { 0 };
	int		 rc;

	memset(out, 0, sizeof *out);
	if ((rc = db_run(db, DB_RETRY, SQL_RUN_GET, &r, NULL, NULL, e, "ui", repo_id,
	    number)) != 0)
		goto done;
	if (r.n == 0) {
		rc = ERR_NOTFOUND;
		goto done;
	}
	rc = db_row_fill(out, &run_shape, &r, 0, e);
done:
	db_rows_release(&r);
	return rc;
}

void
forge_run_release(struct forge_run *r)
{
	if (r != NULL)
		db_row_release(&run_shape, r);
}

int
forge_job_list(struct db *db, struct forge_job **out, size_t *n, uint64_t run_id,
    struct err *e)
{
	void	*v = NULL;
	int	 rc;

	rc = db_map(db, DB_RETRY, SQL_JOB_LIST, &job_shape, &v, n, e, "u", run_id);
	*out = v;
	return rc;
}

void
forge_job_list_free(struct forge_job *v, size_t n)
{
	db_map_free(&job_shape, v, n);
}

static const char SQL_RUN_AWAITING[] =
    "SELECT id, number FROM ci_runs WHERE pull_request_id = ? AND pull_version = ? AND"
    " state = 'awaiting_approval' ORDER BY number FOR UPDATE";
static const char SQL_RUN_QUEUE[] =
    "UPDATE ci_runs SET state = 'queued' WHERE id = ? AND state = 'awaiting_approval'";
static const char SQL_JOB_QUEUE[] =
    "UPDATE ci_jobs SET state = 'queued' WHERE run_id = ? AND state = 'blocked' AND"
    " needs = '[]'";
static const char SQL_RUN_CHECKS[] =
    "SELECT r.workflow, j.job, r.number, r.state, j.state FROM ci_runs r"
    " JOIN ci_jobs j ON j.run_id = r.id WHERE r.pull_request_id = ? AND r.pull_version = ?"
    " ORDER BY r.workflow, j.job, r.number DESC, j.seq";

static const struct db_col check_cols[] = {
	DB_CHARS(struct forge_run_check, workflow),
	DB_CHARS(struct forge_run_check, job),
	DB_I64(struct forge_run_check, number),
	DB_CHARS(struct forge_run_check, run_state),
	DB_CHARS(struct forge_run_check, state),
};
static const struct db_shape check_shape = DB_SHAPE(struct forge_run_check, check_cols);

int
forge_run_start_pull(struct db *db, int64_t **numbers, size_t *n, uint64_t pull_id,
    int64_t version, struct err *e)
{
	struct db_rows	 rows = { 0 };
	int64_t		*v = NULL;
	size_t		 i;
	int		 rc;

	*numbers = NULL;
	*n = 0;
	if ((rc = db_run(db, DB_ONCE, SQL_RUN_AWAITING, &rows, NULL, NULL, e, "ui", pull_id,
	    version)) != 0)
		goto done;
	if (rows.n == 0)
		goto done;
	if ((v = calloc(rows.n, sizeof *v)) == NULL) {
		rc = err_set(e, ERR_NOMEM, "out of memory");
		goto done;
	}
	for (i = 0; i < rows.n; i++) {
		if ((rc = db_run(db, DB_ONCE, SQL_RUN_QUEUE, NULL, NULL, NULL, e, "u",
		    db_to_u64(db_rows_get(&rows, i, 0)))) != 0 ||
		    (rc = db_run(db, DB_ONCE, SQL_JOB_QUEUE, NULL, NULL, NULL, e, "u",
		    db_to_u64(db_rows_get(&rows, i, 0)))) != 0)
			goto done;
		v[i] = (int64_t)db_to_u64(db_rows_get(&rows, i, 1));
	}
	*numbers = v;
	*n = rows.n;
	v = NULL;
done:
	free(v);
	db_rows_release(&rows);
	return rc;
}

int
forge_run_checks(struct db *db, struct forge_run_check **out, size_t *n, uint64_t pull_id,
    int64_t version, struct err *e)
{
	void	*v = NULL;
	int	 rc;

	rc = db_map(db, DB_RETRY, SQL_RUN_CHECKS, &check_shape, &v, n, e, "ui", pull_id,
	    version);
	*out = v;
	return rc;
}
