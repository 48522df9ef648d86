/* checks: the checks of a pull request's current revision and their approval (spec: get_merge_request_checks, approve_merge_checks). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "err.h"
#include "service/runs.h"
#include "service/service.h"
#include "store/db_runs.h"
#include "store/db.h"
#include "store/forge.h"

void
service_checks_release(struct service_checks *c)
{
	size_t	 i;

	if (c == NULL)
		return;
	for (i = 0; i < c->n; i++)
		free(c->v[i].details);
	free(c->v);
	c->v = NULL;
	c->n = 0;
}

/*
 * The checks of rev of pull request pull_request_id: the required ones of
 * its target branch by name (status "expected" when unreported for this
 * revision: a result reported before the target last changed does not
 * count; a CI check of the revision's runs, run_pr_checks, counts over a
 * reported result of its name), then the other CI checks, then the other
 * reported ones.  *v is freed like service_checks_release frees it.
 */
static int
checks_build(struct db *db, uint64_t repo_id, uint64_t pull_request_id,
    const struct pull_revision *rev, struct service_check **out, size_t *n, int *passing, struct err *e)
{
	struct forge_branch_rule	*rules = NULL;
	struct forge_check		*rep = NULL;
	struct run_check		*ci = NULL;
	struct service_check		*v = NULL, *c;
	unsigned char			*used = NULL, *ci_used = NULL;
	size_t				 n_rules = 0, n_rep = 0, n_ci = 0, k = 0, i, j;
	int				 rc;

	*out = NULL;
	*n = 0;
	*passing = 1;
	if ((rc = forge_branch_rule_list(db, &rules, &n_rules, repo_id, rev->base_ref, e)) != 0)
		goto done;
	if ((rc = forge_check_list(db, &rep, &n_rep, repo_id, rev->head_commit,
	    pull_request_id, rev->version, e)) != 0)
		goto done;
	if ((rc = run_pr_checks(db, &ci, &n_ci, pull_request_id, rev->version, e)) != 0)
		goto done;
	if (n_rules + n_rep + n_ci == 0)
		goto done;
	if ((v = calloc(n_rules + n_rep + n_ci, sizeof *v)) == NULL ||
	    (used = calloc(n_rep + 1, 1)) == NULL || (ci_used = calloc(n_ci + 1, 1)) == NULL) {
		rc = err_set(e, ERR_NOMEM, "out of memory");
		goto done;
	}
	for (i = 0; i < n_rules; i++) {
		c = &v[k++];
		snprintf(c->name, sizeof c->name, "%s", rules[i].check_name);
		c->required = 1;
		snprintf(c->status, sizeof c->status, "expected");
		/* A CI check of the revision's runs counts over a reported one of its name. */
		for (j = 0; j < n_ci && strcmp(ci[j].name, c->name) != 0; j++)
			;
		if (j < n_ci) {
			ci_used[j] = 1;
			snprintf(c->status, sizeof c->status, "%s", ci[j].status);
			if (strcmp(c->status, "success") != 0)
				*passing = 0;
			continue;
		}
		for (j = 0; j < n_rep; j++)
			if (!used[j] && strcmp(rep[j].name, c->name) == 0)
				break;
		if (j < n_rep) {
			used[j] = 1;
			snprintf(c->status, sizeof c->status, "%s", rep[j].status);
			snprintf(c->updated_at, sizeof c->updated_at, "%s", rep[j].updated_at);
			c->details = rep[j].details;
			rep[j].details = NULL;
		}
		if (strcmp(c->status, "success") != 0)
			*passing = 0;
	}
	for (j = 0; j < n_ci; j++) {
		if (ci_used[j])
			continue;
		c = &v[k++];
		snprintf(c->name, sizeof c->name, "%s", ci[j].name);
		snprintf(c->status, sizeof c->status, "%s", ci[j].status);
	}
	for (j = 0; j < n_rep; j++) {
		for (i = 0; i < n_ci && strcmp(ci[i].name, rep[j].name) != 0; i++)
			;
		if (used[j] || i < n_ci)
			continue;
		c = &v[k++];
		snprintf(c->name, sizeof c->name, "%s", rep[j].name);
		snprintf(c->status, sizeof c->status, "%s", rep[j].status);
		snprintf(c->updated_at, sizeof c->updated_at, "%s", rep[j].updated_at);
		c->details = rep[j].details;
		rep[j].details = NULL;
	}
	*out = v;
	*n = k;
	v = NULL;
done:
	if (v != NULL) {
		for (i = 0; i < n_rules + n_rep + n_ci; i++)
			free(v[i].details);
		free(v);
	}
	free(used);
	free(ci_used);
	free(ci);
	free(rules);
	forge_check_list_free(rep, n_rep);
	return rc;
}

int
checks_get(struct db *db, struct repo_cache *repos, struct service_checks *out,
    uint64_t user_id, const struct db_repo *repo, int64_t number, struct err *e)
{
	struct forge_item	 pr;
	int			 rc;

	memset(out, 0, sizeof *out);
	memset(&pr, 0, sizeof pr);
	if ((rc = service_find_pull(db, &pr, repo, number, "issues have no checks", e)) != 0)
		goto done;
	if ((rc = pull_revision_current(db, repos, repo, &pr, &out->rev, e)) != 0)
		goto done;
	if ((rc = checks_build(db, repo->id, pr.id, &out->rev, &out->v, &out->n, &out->passing,
	    e)) != 0)
		goto done;
	rc = forge_check_approval_get(db, &out->approval, pr.id, out->rev.version, e);
done:
	forge_item_release(&pr);
	return rc;
}

struct approve_tx {
	const struct db_repo	*repo;
	uint64_t		 pull_request_id, user_id;
	int64_t			 number, version;
	struct service_approval	*out;
};

/* Refuses the approval of a pull request that is not open; 0 when it is. */
static int
approve_open(const struct db_repo *repo, int64_t number, const char *state, struct err *e)
{
	if (strcmp(state, "open") == 0)
		return 0;
	return err_set(e, ERR_INVALID, "pull request #%lld of %s/%s is %s: only the checks of an "
	    "open pull request can be approved", (long long)number, repo->owner, repo->name,
	    state);
}

/* Why the checks cannot be approved, on the state and revision of the locked row; 0 when they can. */
static int
approve_refusal(const struct approve_tx *t, const char *state, int64_t version, struct err *e)
{
	int	rc;

	if ((rc = approve_open(t->repo, t->number, state, e)) != 0)
		return rc;
	if (version != t->version)
		return err_set(e, ERR_CONFLICT, "pull request #%lld of %s/%s got revision %lld "
		    "while its checks were being approved at revision %lld: reload its checks "
		    "with get_pull_request_checks and retry with version %lld",
		    (long long)t->number, t->repo->owner, t->repo->name, (long long)version,
		    (long long)t->version, (long long)version);
	return 0;
}

static int
approve_tx(struct db *db, void *arg, struct err *e)
{
	struct approve_tx	*t = arg;
	struct forge_item	 pr;
	struct forge_pull_status st;
	int			 rc;

	/* serialised with a rerun's reading of the approval (run_rerun.c) and with a close
	 * or a reopen (pull_state.c), which write the same row */
	if ((rc = forge_repo_lock(db, t->repo->id, e)) != 0)
		return rc;
	/* the state and the revision read before may have changed since: decide on the locked row */
	if ((rc = forge_pull_lock(db, &pr, &st, t->repo->id, t->number, e)) != 0)
		return rc == ERR_NOTFOUND ? err_set(e, rc, "pull request #%lld no longer exists",
		    (long long)t->number) : rc;
	rc = approve_refusal(t, pr.state, st.version, e);
	forge_item_release(&pr);
	if (rc != 0)
		return rc;
	if ((rc = forge_check_approve(db, &t->out->changed, t->pull_request_id, t->version,
	    t->user_id, e)) != 0)
		return rc;
	if ((rc = forge_check_approval_get(db, &t->out->approval, t->pull_request_id,
	    t->version, e)) != 0)
		return rc;
	if (!t->out->approval.approved)
		return err_set(e, ERR_INTERNAL, "the approval vanished after it was recorded");
	/* The revision's runs start with the approval, or not at all. */
	free(t->out->runs_started);
	t->out->runs_started = NULL;
	t->out->n_started = 0;
	return forge_run_start_pull(db, &t->out->runs_started, &t->out->n_started,
	    t->pull_request_id, t->version, e);
}

int
checks_approve(struct db *db, struct repo_cache *repos, struct service_approval *out,
    uint64_t user_id, const struct db_repo *repo, int64_t number, int64_t version,
    struct err *e)
{
	struct forge_item	 pr;
	struct pull_revision	 rev;
	struct approve_tx	 t;
	int			 rc;

	memset(out, 0, sizeof *out);
	memset(&pr, 0, sizeof pr);
	memset(&rev, 0, sizeof rev);
	if ((rc = service_find_pull(db, &pr, repo, number, "issues have no checks", e)) != 0)
		goto done;
	if ((rc = approve_open(repo, number, pr.state, e)) != 0)
		goto done;
	if ((rc = pull_revision_current(db, repos, repo, &pr, &rev, e)) != 0)
		goto done;
	if (version != 0 && version != rev.version) {
		rc = err_set(e, ERR_CONFLICT, "pull request #%lld of %s/%s is at revision %lld, "
		    "not the revision %lld you passed: reload its checks with "
		    "get_pull_request_checks and retry with version %lld", (long long)number,
		    repo->owner, repo->name, (long long)rev.version, (long long)version,
		    (long long)rev.version);
		goto done;
	}
	memset(&t, 0, sizeof t);
	t.repo = repo;
	t.pull_request_id = pr.id;
	t.user_id = user_id;
	t.number = number;
	t.version = rev.version;
	t.out = out;
	if ((rc = service_transaction(db, approve_tx, &t, e)) != 0)
		goto done;
	out->version = rev.version;
done:
	forge_item_release(&pr);
	return rc;
}

int
pull_checks_passing(struct db *db, const struct db_repo *repo, const struct forge_item *pr,
    const struct pull_revision *rev, int *ok, char **failing, struct err *e)
{
	struct service_check	*v = NULL;
	struct buf		 b;
	size_t			 n = 0, i;
	int			 passing = 0, first = 1, rc;

	*ok = 0;
	*failing = NULL;
	buf_init(&b);
	if ((rc = checks_build(db, repo->id, pr->id, rev, &v, &n, &passing, e)) != 0)
		goto done;
	if (passing) {
		*ok = 1;
		goto done;
	}
	if (buf_printf(&b, "the required checks of branch '%s' have not all passed on revision "
	    "%lld of pull request #%lld of %s/%s (commit %.12s):", rev->base_ref,
	    (long long)rev->version, (long long)pr->number, repo->owner, repo->name,
	    rev->head_commit) != 0)
		goto nomem;
	for (i = 0; i < n; i++) {
		if (!v[i].required || strcmp(v[i].status, "success") == 0)
			continue;
		if (buf_printf(&b, "%s %s is %s", first ? "" : ",", v[i].name, v[i].status) != 0)
			goto nomem;
		first = 0;
	}
	if (buf_printf(&b, "; see get_pull_request_checks") != 0 ||
	    (*failing = buf_steal(&b, NULL)) == NULL)
		goto nomem;
	goto done;
nomem:
	rc = err_set(e, ERR_NOMEM, "out of memory");
done:
	for (i = 0; i < n; i++)
		free(v[i].details);
	free(v);
	buf_release(&b);
	return rc;
}
