/* db_runlogs: the MySQL queries behind CI job logs (ci_log_chunks) and cancelling runs. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "err.h"
#include "store/db.h"
#include "store/db-internal.h"
#include "store/db_runlogs.h"

static const char SQL_LOG_JOB[] =
    "SELECT r.id, COALESCE(j.id, 0), COALESCE(j.state, ''), COALESCE(j.log_bytes, 0)"
    " FROM ci_runs r LEFT JOIN ci_jobs j ON j.run_id = r.id AND j.job_id = ?"
    " WHERE r.repo_id = ? AND r.number = ?";
/*
 * A chunk holds at most FORGE_LOG_CHUNK_MAX bytes, so the first one that
 * reaches `from` starts no earlier than from - (FORGE_LOG_CHUNK_MAX - 1):
 * both bounds walk the (job_id, byte_offset) key.
 */
static const char SQL_LOG_READ[] =
    "SELECT byte_offset, LENGTH(bytes), bytes FROM ci_log_chunks"
    " WHERE job_id = ? AND byte_offset >= ? AND byte_offset < ? ORDER BY byte_offset";
static const char SQL_RUN_LOCK[] =
    "SELECT id, actor_id, state FROM ci_runs WHERE repo_id = ? AND number = ? FOR UPDATE";
static const char SQL_CANCEL_LIST[] =
    "SELECT job_id FROM ci_jobs WHERE run_id = ? AND state IN ('blocked', 'queued', 'running')"
    " ORDER BY seq FOR UPDATE";
static const char SQL_CANCEL_NOW[] =
    "UPDATE ci_jobs SET state = 'cancelled', finished_at = UTC_TIMESTAMP(3)"
    " WHERE run_id = ? AND (state IN ('blocked', 'queued') OR (? AND state = 'running'))";
static const char SQL_CANCEL_ASK[] =
    "UPDATE ci_jobs SET cancel_requested_by = COALESCE(cancel_requested_by, ?),"
    " cancel_requested_at = COALESCE(cancel_requested_at, UTC_TIMESTAMP(3))"
    " WHERE run_id = ? AND state = 'running'";
static const char SQL_CANCEL_RUN[] =
    "UPDATE ci_runs SET state = 'cancelled', finished_at = UTC_TIMESTAMP(3) WHERE id = ?";

static const struct db_col log_job_cols[] = {
	DB_U64(struct forge_log_job, run_id),
	DB_U64(struct forge_log_job, id),
	DB_CHARS(struct forge_log_job, state),
	DB_I64(struct forge_log_job, log_bytes),
};
static const struct db_shape log_job_shape = DB_SHAPE(struct forge_log_job, log_job_cols);

static const struct db_col run_lock_cols[] = {
	DB_U64(struct forge_run_lock, id),
	DB_U64(struct forge_run_lock, actor_id),
	DB_CHARS(struct forge_run_lock, state),
};
static const struct db_shape run_lock_shape = DB_SHAPE(struct forge_run_lock, run_lock_cols);

int
forge_log_job(struct db *db, struct forge_log_job *out, uint64_t repo_id, int64_t number,
    const char *job_id, struct err *e)
{
	struct db_rows	 r = { 0 };
	int		 rc;

	memset(out, 0, sizeof *out);
	if ((rc = db_run(db, DB_RETRY, SQL_LOG_JOB, &r, NULL, NULL, e, "sui", job_id, repo_id,
	    number)) != 0)
		goto done;
	rc = r.n == 0 ? ERR_NOTFOUND : db_row_fill(out, &log_job_shape, &r, 0, e);
done:
	db_rows_release(&r);
	return rc;
}

int
forge_log_read(struct db *db, unsigned char *buf, size_t *got, uint64_t job, int64_t from,
    size_t len, struct err *e)
{
	struct db_rows	 r = { 0 };
	int64_t		 lo = from > FORGE_LOG_CHUNK_MAX - 1 ? from - (FORGE_LOG_CHUNK_MAX - 1) : 0;
	int64_t		 at, clen, skip, take;
	size_t		 i;
	int		 rc;

	*got = 0;
	if (len == 0)
		return 0;
	if ((rc = db_run(db, DB_RETRY, SQL_LOG_READ, &r, NULL, NULL, e, "uii", job, lo,
	    from + (int64_t)len)) != 0)
		goto done;
	/* Copy while the chunks join up; a gap ends what was read. */
	for (i = 0; i < r.n; i++) {
		at = (int64_t)db_to_u64(db_rows_get(&r, i, 0));
		clen = (int64_t)db_to_u64(db_rows_get(&r, i, 1));
		if (db_rows_get(&r, i, 2) == NULL || at + clen <= from + (int64_t)*got)
			continue;
		if (at > from + (int64_t)*got)
			break;
		skip = from + (int64_t)*got - at;
		take = clen - skip;
		if (take > (int64_t)(len - *got))
			take = (int64_t)(len - *got);
		memcpy(buf + *got, db_rows_get(&r, i, 2) + skip, (size_t)take);
		*got += (size_t)take;
	}
done:
	db_rows_release(&r);
	return rc;
}

int
forge_run_lock(struct db *db, struct forge_run_lock *out, uint64_t repo_id, int64_t number,
    struct err *e)
{
	struct db_rows	 r = { 0 };
	int		 rc;

	memset(out, 0, sizeof *out);
	if ((rc = db_run(db, DB_ONCE, SQL_RUN_LOCK, &r, NULL, NULL, e, "ui", repo_id,
	    number)) != 0)
		goto done;
	rc = r.n == 0 ? ERR_NOTFOUND : db_row_fill(out, &run_lock_shape, &r, 0, e);
done:
	db_rows_release(&r);
	return rc;
}

int
forge_run_cancel(struct db *db, char ***ids, size_t *n, uint64_t run_id, uint64_t user_id,
    int all, struct err *e)
{
	struct db_rows	 r = { 0 };
	char		**v = NULL;
	size_t		 i;
	int		 rc;

	*ids = NULL;
	*n = 0;
	if ((rc = db_run(db, DB_ONCE, SQL_CANCEL_LIST, &r, NULL, NULL, e, "u", run_id)) != 0)
		goto done;
	if ((v = calloc(r.n + 1, sizeof *v)) == NULL) {
		rc = err_set(e, ERR_NOMEM, "out of memory");
		goto done;
	}
	for (i = 0; i < r.n; i++)
		if ((v[i] = strdup(db_rows_get(&r, i, 0))) == NULL) {
			rc = err_set(e, ERR_NOMEM, "out of memory");
			goto done;
		}
	if ((rc = db_run(db, DB_ONCE, SQL_CANCEL_NOW, NULL, NULL, NULL, e, "ui", run_id,
	    (int64_t)(all != 0))) != 0 ||
	    (rc = db_run(db, DB_ONCE, SQL_CANCEL_ASK, NULL, NULL, NULL, e, "uu", user_id,
	    run_id)) != 0 ||
	    (rc = db_run(db, DB_ONCE, SQL_CANCEL_RUN, NULL, NULL, NULL, e, "u", run_id)) != 0)
		goto done;
	*ids = v;
	*n = r.n;
	v = NULL;
done:
	if (v != NULL) {
		for (i = 0; i < r.n; i++)
			free(v[i]);
		free(v);
	}
	db_rows_release(&r);
	return rc;
}
