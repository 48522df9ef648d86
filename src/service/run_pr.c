/* run_pr: the CI runs of pull request revisions and the checks they make (spec 1.6.4 events, 1.6.6). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <json-c/json.h>

#include "err.h"
#include "log.h"
#include "service/runs.h"
#include "service/runs-int.h"
#include "store/db.h"
#include "store/db_revisions.h"
#include "store/db_runs.h"
#include "store/repo.h"

#define RUN_PR_FILES_MAX	200	/* entries of the workflow directory looked at */

/* The workflow id of a directory entry name into id, or 0 when it is no workflow file. */
static int
run_pr_file_id(char *id, size_t idlen, const char *name, const char **ext)
{
	size_t	 len = strlen(name);

	if (len > 4 && strcmp(name + len - 4, ".yml") == 0)
		*ext = "yml";
	else if (len > 5 && strcmp(name + len - 5, ".yaml") == 0)
		*ext = "yaml";
	else
		return 0;
	len -= strlen(*ext) + 1;
	if (len >= idlen)
		return 0;
	memcpy(id, name, len);
	id[len] = '\0';
	return workflow_id_ok(id);
}

/* Whether w runs for pull requests into branch base. */
static int
run_pr_matches(const struct workflow *w, const char *base)
{
	size_t	 i;

	if (!w->on_pull_request)
		return 0;
	if (w->pr_branches.n == 0)
		return 1;
	for (i = 0; i < w->pr_branches.n; i++)
		if (strcmp(w->pr_branches.v[i], base) == 0)
			return 1;
	return 0;
}

/*
 * One workflow's run for the revision, when the workflow loads, matches
 * the target and its inputs all have defaults.  A file that does not
 * load is skipped (and logged): the revision is still recorded, and
 * create_run of that workflow shows the error.
 */
static int
run_pr_one(struct db *db, struct repo_cache *repos, const struct db_repo *repo,
    uint64_t pull_id, uint64_t actor_id, const char *head, const struct forge_revision *rev,
    const char *id, struct err *e)
{
	struct run_plan	 p;
	struct err	 local;
	uint64_t	 row;
	int64_t		 number;
	int		 rc;

	run_plan_init(&p);
	err_clear(&local);
	if ((rc = run_plan_load(repos, &p, repo, id, head, rev->head_commit, &local)) != 0) {
		log_warn("pull request run of workflow '%s' of %s/%s at %.12s not created: %s",
		    id, repo->owner, repo->name, rev->head_commit, local.msg);
		rc = rc == ERR_NOMEM ? err_set(e, rc, "out of memory") : 0;
		goto done;
	}
	if (!run_pr_matches(&p.w, rev->base_ref))
		goto done;
	if ((rc = run_plan_jobs(&p, NULL, NULL, 0, &local)) != 0) {
		/* A required input without a default: a pull request has nobody to give it. */
		log_warn("pull request run of workflow '%s' of %s/%s not created: %s", id,
		    repo->owner, repo->name, local.msg);
		rc = rc == ERR_NOMEM ? err_set(e, rc, "out of memory") : 0;
		goto done;
	}
	p.run.repo_id = repo->id;
	p.run.actor_id = actor_id;
	p.run.event = "pull_request";
	p.run.ref = head;
	p.run.state = "awaiting_approval";
	p.run.pull_request_id = pull_id;
	p.run.pull_version = rev->version;
	err_clear(&local);
	rc = run_plan_insert(db, &p, &row, &number, &local);
	if (rc == ERR_TOOBIG) {
		/* Nothing was written: the revision is recorded without this run. */
		log_warn("pull request run of workflow '%s' of %s/%s not created: %s", id,
		    repo->owner, repo->name, local.msg);
		rc = 0;
	} else if (rc != 0)
		err_set(e, rc, "%s", local.msg);
done:
	run_plan_release(&p);
	return rc;
}

int
run_pr_create(struct db *db, struct repo_cache *repos, const struct db_repo *repo,
    uint64_t pull_id, uint64_t actor_id, const char *head, const struct forge_revision *rev,
    struct err *e)
{
	struct repo_tree	 t;
	struct err		 local;
	const char		*ext, *other;
	char			 id[WF_ID_MAX + 1], id2[WF_ID_MAX + 1];
	size_t			 i, k;
	int			 rc, twin;

	memset(&t, 0, sizeof t);
	err_clear(&local);
	rc = repo_tree_list(repos, &t, repo->owner, repo->name, rev->head_commit, WF_DIR, 0,
	    RUN_PR_FILES_MAX, &local);
	if (rc == ERR_NOTFOUND || rc == ERR_INVALID) {
		rc = 0;		/* no workflow directory: no runs */
		goto done;
	}
	if (rc != 0) {
		rc = err_set(e, rc, "%s", local.msg);
		goto done;
	}
	for (i = 0; i < t.n; i++) {
		if (t.entries[i].type != REPO_ENTRY_BLOB ||
		    !run_pr_file_id(id, sizeof id, t.entries[i].name, &ext))
			continue;
		/* <id>.yml wins over <id>.yaml, as create_run reads them. */
		for (k = 0, twin = 0; strcmp(ext, "yaml") == 0 && k < t.n; k++)
			if (run_pr_file_id(id2, sizeof id2, t.entries[k].name, &other) &&
			    strcmp(other, "yml") == 0 && strcmp(id, id2) == 0)
				twin = 1;
		if (twin)
			continue;
		if ((rc = run_pr_one(db, repos, repo, pull_id, actor_id, head, rev, id, e)) != 0)
			goto done;
	}
done:
	repo_tree_release(&t);
	return rc;
}

/* The check status of one job instance (spec 1.6.6), ranked: the worst of a job's wins. */
static int
run_pr_rank(const struct forge_run_check *c)
{
	if (strcmp(c->run_state, "awaiting_approval") == 0 || strcmp(c->state, "blocked") == 0 ||
	    strcmp(c->state, "queued") == 0)
		return 2;	/* pending */
	if (strcmp(c->state, "running") == 0)
		return 3;
	if (strcmp(c->state, "success") == 0)
		return 1;
	if (strcmp(c->state, "cancelled") == 0)
		return 4;
	return 5;		/* failure, timed_out, skipped */
}

static const char *const run_pr_status[] = {
	"", "success", "pending", "running", "cancelled", "failure",
};

int
run_pr_checks(struct db *db, struct run_check **out, size_t *n, uint64_t pull_id,
    int64_t version, struct err *e)
{
	struct forge_run_check	*v = NULL;
	struct run_check	*c = NULL;
	size_t			 nv = 0, i, k = 0;
	int64_t			 newest = 0;
	int			 rc, rank = 0;

	*out = NULL;
	*n = 0;
	if ((rc = forge_run_checks(db, &v, &nv, pull_id, version, e)) != 0)
		goto done;
	if (nv == 0)
		goto done;
	if ((c = calloc(nv, sizeof *c)) == NULL) {
		rc = err_set(e, ERR_NOMEM, "out of memory");
		goto done;
	}
	/* Rows come by workflow and job, newest run first: a job's check is its newest run's. */
	for (i = 0; i < nv; i++) {
		if (i == 0 || strcmp(v[i].workflow, v[i - 1].workflow) != 0 ||
		    strcmp(v[i].job, v[i - 1].job) != 0) {
			if (i > 0)
				snprintf(c[k++].status, sizeof c->status, "%s", run_pr_status[rank]);
			snprintf(c[k].name, sizeof c->name, "%s/%s", v[i].workflow, v[i].job);
			newest = v[i].number;
			rank = 0;
		}
		if (v[i].number == newest && run_pr_rank(&v[i]) > rank)
			rank = run_pr_rank(&v[i]);
	}
	snprintf(c[k++].status, sizeof c->status, "%s", run_pr_status[rank]);
	*out = c;
	*n = k;
	c = NULL;
done:
	free(c);
	free(v);
	return rc;
}
