/*
 * runs: starting CI runs (runs.c), reading job logs (run_logs.c) and
 * cancelling runs (run_cancel.c); the workflow files themselves are
 * workflow.h's.
 */
#ifndef FM_RUNS_H
#define FM_RUNS_H
#include <stddef.h>
#include <stdint.h>

struct db;
struct db_repo;
struct err;
struct json_object;
struct repo_cache;
struct forge_revision;

/*
 * Starts a run of workflow id of repo as user_id (spec 1.5 create_run,
 * 1.6.1-1.6.4); the tool gate has checked that the caller sees repo and
 * holds the writer role.  ref (NULL: the default branch) is a branch, a
 * tag or a commit id; the run is pinned to the commit it names now and
 * to the blob of .forgemcp/workflows/<id>.yml (or .yaml) there.  A
 * workflow whose on has manual: true may be started by a writer; a
 * pull-request-only one by a manager naming jobs (ERR_DENIED
 * otherwise); any other is refused.  inputs (an object or NULL) are
 * checked against the workflow's and its defaults filled in; jobs (an
 * array of strings or NULL: all) selects logical jobs, and their
 * upstream needs closure joins them.  The run (queued) and its job
 * instances (blocked when they have needs, else queued) are written in
 * one transaction, so a refusal or a failure leaves nothing.  *number
 * receives the run's number.  Returns 0, ERR_NOTFOUND (ref, workflow),
 * ERR_INVALID (workflow file, inputs, jobs), ERR_DENIED, ERR_TOOBIG, or
 * ERR_DB/ERR_UNAVAILABLE/ERR_NOMEM/ERR_GIT.
 */
int	run_create(struct db *db, struct repo_cache *repos, int64_t *number, uint64_t user_id,
	    const struct db_repo *repo, const char *id, const char *ref,
	    struct json_object *inputs, struct json_object *jobs, struct err *e);

/*
 * Rerun of run number of repo as user_id (spec 1.5 rerun_run, 1.6.4): a
 * new run (event rerun, rerun_of number) with the original's workflow,
 * commit, workflow blob (read by its id), inputs, pull request revision
 * and selection, or jobs (an array of logical job ids of the original
 * run, or NULL) with their closure.  The gate has checked the writer
 * role; a pull request's run needs the manager role (ERR_DENIED), and
 * one of a revision not approved is created awaiting approval.  A run
 * not in a final state is refused (ERR_INVALID).  *number receives the
 * new run's number.
 */
int	run_rerun(struct db *db, struct repo_cache *repos, int64_t *number, uint64_t user_id,
	    const struct db_repo *repo, int64_t run, struct json_object *jobs, struct err *e);

/*
 * Creates, inside the transaction that records revision rev of pull
 * request pull_id (head branch head), one run awaiting approval for each
 * workflow at rev's head commit whose on.pull_request matches rev's
 * target branch, with every job blocked and every input at its default
 * (spec 1.6.4, 1.6.6).  A workflow file that does not load, or with a
 * required input that has no default, gets no run.  actor_id is the
 * run's actor.
 */
int	run_pr_create(struct db *db, struct repo_cache *repos, const struct db_repo *repo,
	    uint64_t pull_id, uint64_t actor_id, const char *head,
	    const struct forge_revision *rev, struct err *e);

/* One CI check of a pull request revision: "<workflow>/<job>" and its status. */
struct run_check {
	char	 name[2 * 64 + 2];
	char	 status[12];	/* pending, running, success, failure, cancelled */
};

/*
 * The CI checks of revision version of pull request pull_id, computed
 * from its runs' job states (spec 1.6.6): each logical job's status in
 * the newest run of the revision holding it.  *out is freed with free().
 */
int	run_pr_checks(struct db *db, struct run_check **out, size_t *n, uint64_t pull_id,
	    int64_t version, struct err *e);

#define RUN_LOG_LIMIT_MAX	65536	/* bytes of log text one get_run_logs answer reads */
#define RUN_LOG_LIMIT_MIN	16
#define RUN_LOG_CURSOR_LEN	32	/* characters of a next_cursor */

/* One window of a job's log. */
struct run_log {
	char		*text;		/* owned: valid UTF-8 without NUL, text_len bytes */
	size_t		 text_len;
	char		 next_cursor[RUN_LOG_CURSOR_LEN + 1];
	int		 has_more;	/* more stored bytes can be read right now */
	int		 complete;	/* the job is final and next_cursor is its log's end */
};

/*
 * Reads up to limit bytes of the log of job job_id of run number of repo
 * (spec 1.5 get_run_logs, 1.6.5) from the offset of cursor after (NULL:
 * 0).  The bytes become text cut only between UTF-8 sequences: invalid
 * bytes and NUL each become U+FFFD; an incomplete sequence at the window's
 * end waits for the next call, unless it ends the log of a finished job,
 * where it becomes one U+FFFD.  The job's state and log_bytes are read
 * before its chunks, and nothing past them is reported.  Returns 0,
 * ERR_NOTFOUND (run, job: the message lists the run's jobs), ERR_INVALID
 * (a cursor of another run or job, damaged, or past the log's end), or
 * ERR_DB/ERR_UNAVAILABLE/ERR_NOMEM.  Release *out with run_log_release.
 */
int	run_log_read(struct db *db, struct run_log *out, const struct db_repo *repo,
	    int64_t number, const char *job_id, const char *after, int64_t limit,
	    struct err *e);
void	run_log_release(struct run_log *l);

/* What cancel_run did. */
struct run_cancel {
	char		 state[20];	/* the run's state after the call */
	int		 changed;
	char		**jobs;		/* owned: job_ids cancelled or asked to stop */
	size_t		 n_jobs;
};

/*
 * Cancels run number of repo as user_id (spec 1.5 cancel_run, 1.6.4): the
 * gate checked the writer role; a user other than the run's actor needs
 * manager (ERR_DENIED, nothing changed).  In one transaction holding the
 * run's row lock: a final run is left as it is (changed 0); otherwise its
 * blocked and queued jobs (every unfinished one of an awaiting_approval
 * run) become cancelled, its running jobs get cancel_requested_by/_at for
 * the runner to stop them, and the run becomes cancelled.  Returns 0,
 * ERR_NOTFOUND, ERR_DENIED, or ERR_DB/ERR_UNAVAILABLE/ERR_NOMEM.  Release
 * *out with run_cancel_release.
 */
int	run_cancel(struct db *db, struct run_cancel *out, uint64_t user_id,
	    const struct db_repo *repo, int64_t number, struct err *e);
void	run_cancel_release(struct run_cancel *c);

/*
 * Sets how many runs a repository may have waiting (queued or awaiting
 * approval) at once, ci_waiting_runs (default 100), for the process; the
 * front calls it once at start.
 */
void	run_set_waiting_max(unsigned n);

#endif
