/*
 * db_runner: the MySQL side of `forgemcp runner`: claiming queued CI jobs,
 * heartbeats, logs (ci_log_chunks), cancel requests, finishing a job and
 * advancing its run.  Implemented in db_runner.c.
 */
#ifndef FM_DB_RUNNER_H
#define FM_DB_RUNNER_H
#include <stddef.h>
#include <stdint.h>

struct db;
struct err;

#define RUNNER_CHUNK_MAX	16384	/* bytes of one ci_log_chunks row */

/* A claimed job instance, with what running it needs of its run. */
struct runner_job {
	uint64_t	 id;		/* ci_jobs.id */
	uint64_t	 run_id, repo_id;
	int64_t		 run_number;
	char		 owner[65], name[101];
	char		 job[65];	/* the logical job id */
	char		*job_id;	/* owned: the instance's id */
	char		*matrix;	/* owned: JSON object text */
	char		*inputs;	/* owned: JSON object text */
	char		 workflow[65], workflow_path[256], workflow_blob[41];
	char		 commit[41], ref[256];
	int64_t		 timeout_minutes;
};

/*
 * Claims the oldest queued job of a queued or running run (FOR UPDATE SKIP
 * LOCKED, one transaction): the job becomes running, claimed by
 * claimed_by, and a queued run running.  *got is 0 when there was none.
 */
int	runner_claim(struct db *db, const char *claimed_by, struct runner_job *out, int *got,
	    struct err *e);
void	runner_job_release(struct runner_job *j);
/* Renews the heartbeat of running job id. */
int	runner_heartbeat(struct db *db, uint64_t id, struct err *e);
/*
 * Appends len bytes (1 to RUNNER_CHUNK_MAX) to job id's log as its next
 * chunk, adding to ci_jobs.log_bytes, in one transaction.
 */
int	runner_log_append(struct db *db, uint64_t id, const char *p, size_t len, struct err *e);
/*
 * Whether a cancel of job id was asked (*asked), by whom (login, "" when
 * that user is gone).
 */
int	runner_cancel_asked(struct db *db, uint64_t id, int *asked, char login[65],
	    struct err *e);
/*
 * Ends running job id claimed by claimed_by in state (success, failure,
 * cancelled, timed_out), exit_code (< 0: none), appending tail (NULL:
 * nothing; at most RUNNER_CHUNK_MAX bytes) to its log, and advances its
 * run, in one transaction.  A job no longer ours is left alone.
 */
int	runner_finish(struct db *db, uint64_t id, const char *claimed_by, const char *state,
	    int exit_code, const char *tail, struct err *e);
/*
 * Ends every running job whose heartbeat is older than lost_after
 * seconds failure, "runner lost" in its log, and advances its run; *n
 * receives how many.
 */
int	runner_recover(struct db *db, int64_t lost_after, size_t *n, struct err *e);
/*
 * Advances run_id (call inside a transaction; only a queued or running
 * run moves): blocked jobs whose needs all succeeded become queued, those
 * with a need that failed, timed out, was cancelled or skipped become
 * skipped, and once every job is final the run ends success (all
 * succeeded) or failure.
 */
int	ci_run_advance(struct db *db, uint64_t run_id, struct err *e);

#endif
