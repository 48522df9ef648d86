/*
 * db_runlogs: the MySQL store of CI job logs (ci_log_chunks) and of
 * cancelling runs (ci_runs, ci_jobs).  Implemented in db_runlogs.c.
 */
#ifndef FM_DB_RUNLOGS_H
#define FM_DB_RUNLOGS_H
#include <stddef.h>
#include <stdint.h>

struct db;
struct err;

#define FORGE_LOG_CHUNK_MAX	16384	/* bytes of one ci_log_chunks row (its CHECK) */

/* What a log reader needs of one job instance. */
struct forge_log_job {
	uint64_t	 run_id;	/* the ci_runs row */
	uint64_t	 id;		/* the ci_jobs row; 0: the run has no such job */
	char		 state[16];
	int64_t		 log_bytes;
};

/*
 * The job instance job_id of run number of repo_id into *out, in one
 * query; ERR_NOTFOUND (no message) when there is no such run, 0 with
 * out->id 0 when the run has no such job.
 */
int	forge_log_job(struct db *db, struct forge_log_job *out, uint64_t repo_id,
	    int64_t number, const char *job_id, struct err *e);
/*
 * Reads bytes [from, from + len) of the log of job row job into buf
 * (len bytes), fetching only the chunks that hold them.  *got receives how
 * many bytes from `from` on were stored without a gap (less than len only
 * when the chunks end early).
 */
int	forge_log_read(struct db *db, unsigned char *buf, size_t *got, uint64_t job,
	    int64_t from, size_t len, struct err *e);

/* A run row locked for cancelling. */
struct forge_run_lock {
	uint64_t	 id, actor_id;
	char		 state[20];
};

/*
 * Locks run number of repo_id (call inside a transaction); ERR_NOTFOUND
 * (no message) when there is none.
 */
int	forge_run_lock(struct db *db, struct forge_run_lock *out, uint64_t repo_id,
	    int64_t number, struct err *e);
/*
 * Cancels the unfinished jobs of run row run_id as user_id (inside the
 * transaction holding the run's lock): blocked and queued ones (and, with
 * all, running ones too) become cancelled now; running ones otherwise get
 * cancel_requested_by/_at for the runner.  *ids receives the job_ids it
 * touched, in order (free each and the array), *n their number.  Then the
 * run becomes cancelled with finished_at.
 */
int	forge_run_cancel(struct db *db, char ***ids, size_t *n, uint64_t run_id,
	    uint64_t user_id, int all, struct err *e);

#endif
