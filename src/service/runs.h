/* runs: starting CI runs (runs.c); the workflow files themselves are workflow.h's. */
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

#endif
