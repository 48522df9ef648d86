/* run_rerun: running a finished run again at its pinned commit and workflow blob (spec 1.5 rerun_run, 1.6.4). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <json-c/json.h>

#include "err.h"
#include "service/runs.h"
#include "service/runs-int.h"
#include "service/service.h"
#include "store/db.h"
#include "store/db_checks.h"
#include "store/db_forge.h"
#include "store/db_runs.h"
#include "store/repo.h"

static int
rerun_final(const char *state)
{
	return strcmp(state, "success") == 0 || strcmp(state, "failure") == 0 ||
	    strcmp(state, "cancelled") == 0;
}

/* Refuses a job of jobs that is no logical job of the original run. */
static int
rerun_jobs_check(const struct forge_job *v, size_t n, const char *const *names,
    size_t n_names, int64_t run, struct err *e)
{
	size_t	 i, k;

	for (i = 0; i < n_names; i++) {
		for (k = 0; k < n && strcmp(v[k].job, names[i]) != 0; k++)
			;
		if (k == n)
			return err_set(e, ERR_INVALID, "job '%.64s' is not a job of run %lld: "
			    "name logical jobs of that run (see get_run)", names[i],
			    (long long)run);
	}
	return 0;
}

struct rerun_tx {
	struct run_plan	*p;
	uint64_t	 id;
	int64_t		 number;
};

/*
 * The approval is read under the repository's written row, which an
 * approval writes first too: the rerun waits exactly when its revision does,
 * or the approval that comes after it starts it.
 */
static int
rerun_tx(struct db *db, void *arg, struct err *e)
{
	struct rerun_tx			*t = arg;
	struct forge_check_approval	 a;
	int				 rc;

	t->p->run.state = "queued";
	if (t->p->run.pull_request_id != 0) {
		if ((rc = forge_repo_lock(db, t->p->run.repo_id, e)) != 0)
			return rc;
		if ((rc = forge_check_approval_get(db, &a, t->p->run.pull_request_id,
		    t->p->run.pull_version, e)) != 0)
			return rc;
		if (!a.approved)
			t->p->run.state = "awaiting_approval";
	}
	return run_plan_insert(db, t->p, &t->id, &t->number, e);
}

int
run_rerun(struct db *db, struct repo_cache *repos, int64_t *number, uint64_t user_id,
    const struct db_repo *repo, int64_t run, struct json_object *jobs, struct err *e)
{
	struct forge_run	 r;
	struct forge_job	*v = NULL;
	struct run_plan		 p;
	struct rerun_tx		 t;
	struct json_object	*inputs = NULL, *sel = NULL;
	struct err		 local;
	const char		**names = NULL;
	size_t			 n = 0, n_names = 0, i;
	int			 rc;

	*number = 0;
	run_plan_init(&p);
	memset(&t, 0, sizeof t);
	err_clear(&local);
	if ((rc = forge_run_get(db, &r, repo->id, run, &local)) == ERR_NOTFOUND) {
		rc = err_set(e, ERR_NOTFOUND, "run %lld not found in %s/%s", (long long)run,
		    repo->owner, repo->name);
		goto done;
	}
	if (rc != 0 || (rc = forge_job_list(db, &v, &n, r.id, &local)) != 0) {
		rc = err_set(e, rc, "%s", local.msg);
		goto done;
	}
	if (!rerun_final(r.state)) {
		rc = err_set(e, ERR_INVALID, "run %lld is still running: cancel it or wait",
		    (long long)run);
		goto done;
	}
	if (r.pull_request_id != 0 && (rc = service_need_role(db, repo, user_id,
	    FORGE_ROLE_MANAGER, "rerun a pull request's run", NULL, e)) != 0)
		goto done;
	if ((rc = repo_blob_by_id(repos, &p.blob, repo->owner, repo->name, r.workflow_blob,
	    WF_FILE_MAX, e)) != 0)
		goto done;
	snprintf(p.commit, sizeof p.commit, "%s", r.commit);
	if ((rc = run_plan_parse(&p, r.workflow, r.workflow_path, e)) != 0)
		goto done;
	if (r.pull_request_id == 0 && workflow_pr_only(&p.w) && (rc = service_need_role(db,
	    repo, user_id, FORGE_ROLE_MANAGER, "start runs", NULL, e)) != 0)
		goto done;
	if (jobs == NULL && r.selected_jobs != NULL)
		jobs = sel = json_tokener_parse(r.selected_jobs);
	if (jobs != NULL) {
		n_names = json_object_array_length(jobs);
		if ((names = calloc(n_names + 1, sizeof *names)) == NULL)
			goto nomem;
		for (i = 0; i < n_names; i++)
			names[i] = json_object_get_string(json_object_array_get_idx(jobs, i));
		if ((rc = rerun_jobs_check(v, n, names, n_names, run, e)) != 0)
			goto done;
	}
	if ((inputs = json_tokener_parse(r.inputs)) == NULL)
		goto nomem;
	if ((rc = run_plan_jobs(&p, inputs, names, n_names, e)) != 0)
		goto done;
	p.run.repo_id = repo->id;
	p.run.actor_id = user_id;
	p.run.event = "rerun";
	p.run.ref = r.ref;
	p.run.pull_request_id = r.pull_request_id;
	p.run.pull_version = r.version;
	p.run.rerun_of = r.number;
	t.p = &p;
	if ((rc = service_transaction(db, rerun_tx, &t, e)) != 0)
		goto done;
	*number = t.number;
	goto done;
nomem:
	rc = err_set(e, ERR_NOMEM, "out of memory");
done:
	free(names);
	json_object_put(sel);
	json_object_put(inputs);
	run_plan_release(&p);
	forge_job_list_free(v, n);
	forge_run_release(&r);
	return rc;
}
