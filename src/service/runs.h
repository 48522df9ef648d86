/* runs: starting CI runs (runs.c); the workflow files themselves are workflow.h's. */
#ifndef FM_RUNS_H
#define FM_RUNS_H
#include <stdint.h>

struct db;
struct db_repo;
struct err;
struct json_object;
struct repo_cache;

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

#endif
