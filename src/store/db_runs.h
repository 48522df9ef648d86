/*
 * db_runs: the MySQL store of CI runs and their job instances (ci_runs,
 * ci_jobs).  Implemented in db_runs.c.
 */
#ifndef FM_DB_RUNS_H
#define FM_DB_RUNS_H
#include <stddef.h>
#include <stdint.h>

struct db;
struct err;

/* A run as the tools show it.  Empty strings stand for NULL. */
struct forge_run {
	uint64_t	 id;
	int64_t		 number;
	char		 workflow[65];
	char		 workflow_name[256];
	char		 workflow_path[256];
	char		 workflow_blob[41];
	char		 event[16];
	char		 ref[256];
	char		 commit[41];
	int64_t		 pull_request;	/* its number; 0: none */
	int64_t		 version;	/* the pull request's revision; 0: none */
	char		 state[20];
	char		 actor[65];	/* login */
	char		*inputs;	/* owned: JSON object text */
	char		*selected_jobs;	/* owned: JSON array text, or NULL */
	char		*closure_added;	/* owned: JSON array text */
	int64_t		 rerun_of;	/* a run number; 0: none */
	char		 created_at[32], started_at[32], finished_at[32];
	int64_t		 jobs_total, jobs_finished;
	uint64_t	 pull_request_id;	/* its row id; 0: none */
};

struct forge_job {
	char		*job_id;	/* owned */
	char		 job[65];
	char		*name;		/* owned */
	char		*matrix;	/* owned: JSON object text */
	char		*needs;		/* owned: JSON array text */
	char		 state[16];
	char		 exit_code[16];	/* "" until a process ended */
	int64_t		 timeout_minutes;
	char		 started_at[32], finished_at[32];
	int64_t		 log_bytes;
};

/* What a new run holds (the job rows are added with forge_job_insert). */
struct forge_run_new {
	uint64_t	 repo_id, actor_id;
	const char	*workflow, *workflow_name, *workflow_path, *workflow_blob;
	const char	*event, *ref, *commit, *state;
	const char	*inputs, *selected_jobs, *closure_added;	/* selected_jobs may be NULL */
	uint64_t	 pull_request_id;	/* 0: not a pull request's run */
	int64_t		 pull_version;		/* the pull request's revision; 0: none */
	int64_t		 rerun_of;		/* the run it repeats; 0: none */
	int64_t		 waiting_max;	/* runs queued or awaiting approval a repository may have; 0: any */
};

/*
 * Inserts a run of repo_id numbered one past its last run, under the
 * repository row's lock (call inside a transaction), or inserts nothing
 * and returns ERR_TOOBIG (no message) when waiting_max is set and the
 * repository has that many runs queued or awaiting approval: *id and *number
 * receive its row id and number.  ERR_NOTFOUND when the repository is gone.
 */
int	forge_run_insert(struct db *db, uint64_t *id, int64_t *number,
	    const struct forge_run_new *r, struct err *e);
/* One job instance of run_id at position seq.  Call inside a transaction. */
int	forge_job_insert(struct db *db, uint64_t run_id, int64_t seq, const char *job_id,
	    const char *job, const char *name, const char *matrix, const char *needs,
	    const char *state, int64_t timeout_minutes, struct err *e);

/*
 * The runs of repo_id, newest number first, filtered by workflow, ref and
 * state (each NULL: any) and pull request number (0: any), skipping
 * offset and returning at most limit;
 * free with forge_run_list_free.
 */
int	forge_run_list(struct db *db, struct forge_run **out, size_t *n, uint64_t repo_id,
	    const char *workflow, const char *ref, const char *state, int64_t pull_request,
	    int64_t offset, int limit, struct err *e);
void	forge_run_list_free(struct forge_run *v, size_t n);
/* Run number of repo_id; ERR_NOTFOUND (no message) when it has none by that number. */
int	forge_run_get(struct db *db, struct forge_run *out, uint64_t repo_id, int64_t number,
	    struct err *e);
void	forge_run_release(struct forge_run *r);
/* The job instances of run row run_id, in order; free with forge_job_list_free. */
int	forge_job_list(struct db *db, struct forge_job **out, size_t *n, uint64_t run_id,
	    struct err *e);
void	forge_job_list_free(struct forge_job *v, size_t n);

/*
 * Starts the runs of revision version of pull request pull_id that await
 * approval (call inside the approval's transaction): they become queued
 * and their jobs without needs queued.  *numbers (freed with free(),
 * NULL when none) receives their numbers, ascending, and *n how many.
 */
int	forge_run_start_pull(struct db *db, int64_t **numbers, size_t *n, uint64_t pull_id,
	    int64_t version, struct err *e);

/* The state of one job instance of a pull request's revision, for its checks. */
struct forge_run_check {
	char		 workflow[65];
	char		 job[65];	/* the logical job */
	int64_t		 number;	/* the run */
	char		 run_state[20];
	char		 state[16];	/* the instance's */
};

/*
 * The job instances of every run of revision version of pull request
 * pull_id, ordered by workflow, logical job, then run number newest
 * first; *out is freed with free().
 */
int	forge_run_checks(struct db *db, struct forge_run_check **out, size_t *n,
	    uint64_t pull_id, int64_t version, struct err *e);

#endif
