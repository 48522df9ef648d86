/* run_cancel: cancelling a CI run: its waiting jobs at once, its running ones by the runner (spec 1.5 cancel_run, 1.6.4). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "err.h"
#include "service/runs.h"
#include "service/service.h"
#include "store/db.h"
#include "store/db_runlogs.h"

struct cancel_tx {
	const struct db_repo	*repo;
	int64_t			 number;
	uint64_t		 user_id;
	struct run_cancel	*out;
};

static int
run_final(const char *state)
{
	return strcmp(state, "success") == 0 || strcmp(state, "failure") == 0 ||
	    strcmp(state, "cancelled") == 0;
}

static int
cancel_tx(struct db *db, void *arg, struct err *e)
{
	struct cancel_tx	*t = arg;
	struct forge_run_lock	 r;
	char			 action[64];
	int			 rc;

	/* A retried transaction starts over. */
	run_cancel_release(t->out);
	if ((rc = forge_run_lock(db, &r, t->repo->id, t->number, e)) == ERR_NOTFOUND)
		return err_set(e, ERR_NOTFOUND, "run %lld not found in %s/%s",
		    (long long)t->number, t->repo->owner, t->repo->name);
	if (rc != 0)
		return rc;
	if (r.actor_id != t->user_id) {
		snprintf(action, sizeof action, "cancel another user's run %lld",
		    (long long)t->number);
		if ((rc = service_need_role(db, t->repo, t->user_id, FORGE_ROLE_MANAGER, action,
		    NULL, e)) != 0)
			return rc;
	}
	if (run_final(r.state)) {
		snprintf(t->out->state, sizeof t->out->state, "%s", r.state);
		return 0;
	}
	if ((rc = forge_run_cancel(db, &t->out->jobs, &t->out->n_jobs, r.id, t->user_id,
	    strcmp(r.state, "awaiting_approval") == 0, e)) != 0)
		return rc;
	snprintf(t->out->state, sizeof t->out->state, "cancelled");
	t->out->changed = 1;
	return 0;
}

int
run_cancel(struct db *db, struct run_cancel *out, uint64_t user_id, const struct db_repo *repo,
    int64_t number, struct err *e)
{
	struct cancel_tx	 t;
	int			 rc;

	memset(out, 0, sizeof *out);
	t.repo = repo;
	t.number = number;
	t.user_id = user_id;
	t.out = out;
	if ((rc = service_transaction(db, cancel_tx, &t, e)) != 0)
		run_cancel_release(out);
	return rc;
}

void
run_cancel_release(struct run_cancel *c)
{
	size_t	 i;

	if (c == NULL)
		return;
	for (i = 0; i < c->n_jobs; i++)
		free(c->jobs[i]);
	free(c->jobs);
	memset(c, 0, sizeof *c);
}
