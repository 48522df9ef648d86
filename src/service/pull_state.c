/* pull_state: closing and reopening a pull request; a closed one keeps its declared issues open. */
#include <stdio.h>
#include <string.h>

#include "err.h"
#include "service/service.h"
#include "store/db.h"
#include "store/forge.h"
#include "store/repo.h"

struct pstate_tx {
	const struct db_repo	*repo;
	uint64_t		 user_id;
	int64_t			 number;
	int			 close;
	int			 head_exists;	/* reopen: the head branch exists now */
	struct forge_item	 it;		/* the locked pull request */
	struct forge_pull_status st;
	int			 changed;
};

/* Why the pull request cannot change state, as an err_set; 0 when it can. */
static int
pstate_refusal(struct db *db, struct pstate_tx *t, struct err *e)
{
	const char	*verb = t->close ? "closed" : "reopened";
	int64_t		 other = 0;
	int		 rc;

	if (strcmp(t->it.state, "merged") == 0)
		return err_set(e, ERR_INVALID, "pull request #%lld of %s/%s is merged: a merged "
		    "pull request cannot be %s", (long long)t->number, t->repo->owner,
		    t->repo->name, verb);
	if (strcmp(t->st.merge_state, "queued") == 0 || strcmp(t->st.merge_state, "running") == 0)
		return err_set(e, ERR_INVALID, "pull request #%lld of %s/%s has a merge %s: it "
		    "cannot be %s until the merge finishes (see merge_state in get_pull_request)",
		    (long long)t->number, t->repo->owner, t->repo->name, t->st.merge_state, verb);
	if (t->close || strcmp(t->it.state, "open") == 0)
		return 0;
	if (!t->head_exists)
		return err_set(e, ERR_INVALID, "the source branch '%s' of pull request #%lld of "
		    "%s/%s no longer exists: push it again before reopening", t->it.head,
		    (long long)t->number, t->repo->owner, t->repo->name);
	if ((rc = forge_pull_find_open(db, &other, t->repo->id, t->it.head, t->it.base, e)) != 0)
		return rc;
	if (other != 0)
		return err_set(e, ERR_EXISTS, "pull request #%lld of %s/%s is already open from "
		    "'%s' into '%s': reopening #%lld would make two", (long long)other,
		    t->repo->owner, t->repo->name, t->it.head, t->it.base, (long long)t->number);
	return 0;
}

static int
pstate_tx(struct db *db, void *arg, struct err *e)
{
	struct pstate_tx	*t = arg;
	char			 action[64];
	int			 rc;

	forge_item_release(&t->it);
	t->changed = 0;
	/*
	 * Under the repository's written row: a reopen checks "only one open
	 * from head into base" as a create does (which writes that row too,
	 * the counter), and an approval of the checks (checks.c) decides on
	 * the state a close changes.
	 */
	if ((rc = forge_repo_lock(db, t->repo->id, e)) != 0)
		return rc;
	if ((rc = forge_pull_lock(db, &t->it, &t->st, t->repo->id, t->number, e)) != 0)
		return rc == ERR_NOTFOUND ? err_set(e, rc, "pull request #%lld no longer exists",
		    (long long)t->number) : rc;
	if (t->it.author_id != t->user_id) {
		snprintf(action, sizeof action, "%s pull request #%lld", t->close ? "close" :
		    "reopen", (long long)t->number);
		if ((rc = service_need_role(db, t->repo, t->user_id, FORGE_ROLE_WRITER, action,
		    NULL, e)) != 0)
			return rc;
	}
	if ((rc = pstate_refusal(db, t, e)) != 0)
		return rc;
	if (strcmp(t->it.state, t->close ? "closed" : "open") == 0)
		return 0;
	if ((rc = forge_pull_set_state(db, t->it.id, t->close, e)) != 0)
		return rc;
	if ((rc = forge_event_insert(db, FORGE_KIND_PULL, t->it.id, t->user_id,
	    t->close ? FORGE_EVENT_CLOSED : FORGE_EVENT_REOPENED, FORGE_CAUSE_USER, 0, 0, e)) != 0)
		return rc;
	snprintf(t->it.state, sizeof t->it.state, "%s", t->close ? "closed" : "open");
	t->changed = 1;
	return 0;
}

/* pull_close and pull_reopen. */
static int
pull_state(struct db *db, struct repo_cache *repos, struct service_pull_state *out,
    uint64_t user_id, const struct db_repo *repo, int64_t number, int close,
    struct err *e)
{
	struct forge_item	 pr;
	struct pstate_tx	 t;
	int			 rc;

	memset(out, 0, sizeof *out);
	memset(&pr, 0, sizeof pr);
	memset(&t, 0, sizeof t);
	if ((rc = service_find_pull(db, &pr, repo, number, close ? "close_issue closes "
	    "issues" : "reopen_issue reopens issues", e)) != 0)
		goto done;
	/* The head branch of a pull request never changes: read it outside the lock. */
	if (!close && (rc = repo_branch_exists(repos, &t.head_exists, repo->owner, repo->name,
	    pr.head, e)) != 0)
		goto done;
	t.repo = repo;
	t.user_id = user_id;
	t.number = number;
	t.close = close;
	if ((rc = service_transaction(db, pstate_tx, &t, e)) != 0)
		goto done;
	out->number = number;
	snprintf(out->state, sizeof out->state, "%s", t.it.state);
	out->changed = t.changed;
	memcpy(out->owner, repo->owner, sizeof out->owner);
	memcpy(out->name, repo->name, sizeof out->name);
done:
	forge_item_release(&t.it);
	forge_item_release(&pr);
	return rc;
}

int
pull_close(struct db *db, struct repo_cache *repos, struct service_pull_state *out,
    uint64_t user_id, const struct db_repo *repo, int64_t number, struct err *e)
{
	return pull_state(db, repos, out, user_id, repo, number, 1, e);
}

int
pull_reopen(struct db *db, struct repo_cache *repos, struct service_pull_state *out,
    uint64_t user_id, const struct db_repo *repo, int64_t number, struct err *e)
{
	return pull_state(db, repos, out, user_id, repo, number, 0, e);
}
