/* revisions: numbered revisions of a pull request, and editing one (spec: get_pull_request_diff, edit_pull_request). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "err.h"
#include "service/closing.h"
#include "service/runs.h"
#include "service/service.h"
#include "store/db.h"
#include "store/forge.h"
#include "store/repo.h"

/* Whether branch exists in repo; a failed look-up counts as missing. */
static int
branch_there(struct repo_cache *repos, const struct db_repo *repo, const char *branch)
{
	struct err	 ignore;
	int		 exists = 0;

	err_clear(&ignore);
	if (repo_branch_exists(repos, &exists, repo->owner, repo->name, branch, &ignore) != 0)
		return 0;
	return exists;
}

int
pull_revision_resolve(struct repo_cache *repos, const struct db_repo *repo, const char *head,
    const char *base, struct forge_revision *out, int *gone, struct err *e)
{
	struct err	 local;
	int		 rc;

	memset(out, 0, sizeof *out);
	*gone = 0;
	if (!branch_there(repos, repo, head))
		*gone |= PULL_HEAD_GONE;
	if (!branch_there(repos, repo, base))
		*gone |= PULL_BASE_GONE;
	if (*gone != 0)
		return 0;
	snprintf(out->base_ref, sizeof out->base_ref, "%s", base);
	err_clear(&local);
	if ((rc = repo_resolve(repos, out->head_commit, repo->owner, repo->name, head,
	    &local)) != 0 ||
	    (rc = repo_resolve(repos, out->base_commit, repo->owner, repo->name, base,
	    &local)) != 0 ||
	    (rc = repo_merge_base(repos, out->merge_base, repo->owner, repo->name,
	    out->base_commit, out->head_commit, &local)) != 0)
		return err_set(e, rc, "cannot read the branches of %s/%s: %s", repo->owner,
		    repo->name, err_is_public(rc) ? local.msg : "internal error");
	return 0;
}

static void
revision_out(struct pull_revision *out, const struct forge_revision *r)
{
	out->version = r->version;
	memcpy(out->head_commit, r->head_commit, sizeof out->head_commit);
	memcpy(out->base_ref, r->base_ref, sizeof out->base_ref);
	memcpy(out->base_commit, r->base_commit, sizeof out->base_commit);
	memcpy(out->merge_base, r->merge_base, sizeof out->merge_base);
	memcpy(out->reason, r->reason, sizeof out->reason);
	snprintf(out->created_at, sizeof out->created_at, "%.20s", r->created_at);
}

struct current_tx {
	struct repo_cache	*repos;
	const struct db_repo	*repo;
	const struct forge_item	*pr;
	uint64_t		 pull_id;
	struct forge_revision	 now;		/* the branches as they are */
	struct forge_revision	 latest;	/* out: the current revision */
};

/* Adds t->now as the next revision unless the latest one has the same head. */
static int
current_tx(struct db *db, void *arg, struct err *e)
{
	struct current_tx	*t = arg;
	struct forge_pull_status st;
	int			 rc;

	if ((rc = forge_revision_lock(db, &st, t->pull_id, e)) != 0)
		return rc == ERR_NOTFOUND ? err_set(e, rc, "the pull request no longer exists") :
		    rc;
	rc = forge_revision_get(db, &t->latest, t->pull_id, 0, e);
	if (rc != 0 && rc != ERR_NOTFOUND)
		return rc;
	if (rc == 0 && strcmp(t->latest.head_commit, t->now.head_commit) == 0)
		return 0;	/* another reader recorded it first */
	t->now.version = rc == 0 ? t->latest.version + 1 : 1;
	snprintf(t->now.reason, sizeof t->now.reason, "%s", rc == 0 ? "push" : "opened");
	if ((rc = forge_revision_insert(db, t->pull_id, &t->now, e)) != 0)
		return rc;
	/* A push noticed makes runs of the new head, awaiting approval like the first. */
	if ((rc = run_pr_create(db, t->repos, t->repo, t->pull_id, t->pr->author_id,
	    t->pr->head, &t->now, e)) != 0)
		return rc;
	return forge_revision_get(db, &t->latest, t->pull_id, t->now.version, e);
}

int
pull_revision_current(struct db *db, struct repo_cache *repos, const struct db_repo *repo,
    const struct forge_item *pr, struct pull_revision *out, struct err *e)
{
	struct current_tx	 t;
	int			 gone = 0, rc, have;

	memset(out, 0, sizeof *out);
	memset(&t, 0, sizeof t);
	t.pull_id = pr->id;
	t.repos = repos;
	t.repo = repo;
	t.pr = pr;
	rc = forge_revision_get(db, &t.latest, pr->id, 0, e);
	if (rc != 0 && rc != ERR_NOTFOUND)
		return rc;
	have = rc == 0;
	/* A closed or merged pull request keeps its last revision, whatever its head does. */
	if (have && strcmp(pr->state, "open") != 0)
		goto found;
	if ((rc = pull_revision_resolve(repos, repo, pr->head, pr->base, &t.now, &gone, e)) != 0)
		return rc;
	out->head_gone = (gone & PULL_HEAD_GONE) != 0;
	out->base_gone = (gone & PULL_BASE_GONE) != 0;
	if (gone != 0 || (have && strcmp(t.latest.head_commit, t.now.head_commit) == 0)) {
		if (!have)
			return 0;	/* version 0: nothing to record from */
		goto found;
	}
	if ((rc = service_transaction(db, current_tx, &t, e)) != 0)
		return rc;
found:
	revision_out(out, &t.latest);
	return 0;
}

int
pull_revision_get(struct db *db, uint64_t pull_request_id, int64_t version,
    struct pull_revision *out, struct err *e)
{
	struct forge_revision	 r;
	struct forge_pull_status st;
	int			 rc;

	memset(out, 0, sizeof *out);
	rc = forge_revision_get(db, &r, pull_request_id, version, e);
	if (rc == 0) {
		revision_out(out, &r);
		return 0;
	}
	if (rc != ERR_NOTFOUND)
		return rc;
	if ((rc = forge_pull_status_get(db, &st, pull_request_id, e)) != 0)
		return rc == ERR_NOTFOUND ? err_set(e, rc, "the pull request no longer exists") :
		    rc;
	if (st.version == 0)
		return err_set(e, ERR_NOTFOUND, "the pull request has no revision yet: its "
		    "branches could not be read when it was opened");
	if (st.version == 1)
		return err_set(e, ERR_NOTFOUND, "version %lld not found: the pull request has "
		    "only version 1", (long long)version);
	return err_set(e, ERR_NOTFOUND, "version %lld not found: the pull request has versions "
	    "1 to %lld", (long long)version, (long long)st.version);
}

/* ---- edit_pull_request ---- */

struct edit_tx {
	struct repo_cache	*repos;
	const struct db_repo	*repo;
	uint64_t		 user_id;
	int64_t			 number;
	int64_t			 expect;
	const char		*title, *body, *target;	/* NULL: keep */
	const char		*closing;	/* the new body's declarations */
	const struct forge_revision *now;	/* the branches for a new target, or NULL */
	struct forge_item	 it;		/* the locked pull request */
	struct forge_pull_status st;
	int			 stale, changed, target_changed;
};

static int
same_text(const char *a, const char *b)
{
	return strcmp(a != NULL ? a : "", b != NULL ? b : "") == 0;
}

/* Refuses a target change the pull request's state does not allow. */
static int
target_allowed(struct db *db, const struct edit_tx *t, struct err *e)
{
	int64_t	other = 0;
	int	rc;

	if (strcmp(t->it.state, "open") != 0)
		return err_set(e, ERR_INVALID, "pull request #%lld of %s/%s is %s: only an open "
		    "pull request can change its target", (long long)t->number, t->repo->owner,
		    t->repo->name, t->it.state);
	if (strcmp(t->st.merge_state, "queued") == 0 || strcmp(t->st.merge_state, "running") == 0)
		return err_set(e, ERR_INVALID, "pull request #%lld of %s/%s has a merge %s: its "
		    "target cannot change until the merge finishes", (long long)t->number,
		    t->repo->owner, t->repo->name, t->st.merge_state);
	if (strcmp(t->target, t->it.head) == 0)
		return err_set(e, ERR_INVALID, "target '%s' is the pull request's head branch: "
		    "the target must be another branch", t->target);
	if (t->now == NULL)
		return err_set(e, ERR_INVALID, "the head branch '%s' no longer exists: the target "
		    "cannot change", t->it.head);
	/* one open pull request per head and target, as create and reopen keep */
	if ((rc = forge_pull_find_open(db, &other, t->repo->id, t->it.head, t->target, e)) != 0)
		return rc;
	if (other != 0)
		return err_set(e, ERR_EXISTS, "pull request #%lld of %s/%s is already open from "
		    "'%s' into '%s': retargeting #%lld would make two", (long long)other,
		    t->repo->owner, t->repo->name, t->it.head, t->target, (long long)t->number);
	return 0;
}

static int
edit_tx(struct db *db, void *arg, struct err *e)
{
	struct edit_tx		*t = arg;
	struct forge_revision	 rev;
	struct notify_event	 ev;
	const char		*title, *body, *base, *closing;
	char			 action[64];
	int			 rc, body_changed, retarget;

	forge_item_release(&t->it);
	t->stale = t->changed = t->target_changed = 0;
	/* a new target is checked for "one open from head into it" under the repository's
	 * written row, as create and reopen check it */
	if (t->target != NULL && (rc = forge_repo_lock(db, t->repo->id, e)) != 0)
		return rc;
	rc = forge_pull_lock(db, &t->it, &t->st, t->repo->id, t->number, e);
	if (rc == ERR_NOTFOUND)
		return service_not_found(db, t->repo, FORGE_KIND_PULL, t->number,
		    "edit it with edit_issue", e);
	if (rc != 0)
		return rc;
	if (t->it.author_id != t->user_id) {
		snprintf(action, sizeof action, "edit pull request #%lld", (long long)t->number);
		if ((rc = service_need_role(db, t->repo, t->user_id, FORGE_ROLE_WRITER, action,
		    NULL, e)) != 0)
			return rc;
	}
	if (t->it.edit_version != t->expect) {
		t->stale = 1;
		return 0;
	}
	title = t->title != NULL ? t->title : t->it.title;
	body = t->body != NULL ? t->body : t->it.body;
	base = t->target != NULL ? t->target : t->it.base;
	closing = t->body != NULL ? t->closing : t->it.closing;
	body_changed = !same_text(body, t->it.body);
	retarget = strcmp(base, t->it.base) != 0;
	if (retarget && (rc = target_allowed(db, t, e)) != 0)
		return rc;
	/*
	 * A queued merge closes what the description declared when the merge
	 * was confirmed: the declarations cannot change under it.
	 */
	if (body_changed && strcmp(closing != NULL ? closing : "",
	    t->it.closing != NULL ? t->it.closing : "") != 0 &&
	    (strcmp(t->st.merge_state, "queued") == 0 ||
	    strcmp(t->st.merge_state, "running") == 0))
		return err_set(e, ERR_INVALID, "pull request #%lld of %s/%s has a merge %s: the "
		    "issues its description declares closed cannot change until the merge "
		    "finishes", (long long)t->number, t->repo->owner, t->repo->name,
		    t->st.merge_state);
	if (strcmp(title, t->it.title) == 0 && !body_changed && !retarget)
		return 0;
	if ((rc = forge_pull_update(db, &t->stale, t->it.id, t->expect, title, body, base,
	    closing, e)) != 0)
		return rc;
	if (t->stale)
		return 0;	/* not reached while the row is locked; nothing was written */
	if (retarget) {
		rev = *t->now;
		rev.version = t->st.version + 1;
		snprintf(rev.reason, sizeof rev.reason, "target");
		if ((rc = forge_revision_insert(db, t->it.id, &rev, e)) != 0)
			return rc;
		/* The new target's runs; editing approves nothing. */
		if ((rc = run_pr_create(db, t->repos, t->repo, t->it.id, t->user_id, t->it.head,
		    &rev, e)) != 0)
			return rc;
		t->st.version = rev.version;
		t->target_changed = 1;
	}
	if ((rc = forge_event_insert(db, FORGE_KIND_PULL, t->it.id, t->user_id,
	    FORGE_EVENT_EDITED, FORGE_CAUSE_USER, 0, 0, e)) != 0)
		return rc;
	if (body_changed) {
		/* Only those the old description did not mention already hear of it. */
		notify_event_init(&ev, t->repo->id, FORGE_KIND_PULL, t->it.id, t->user_id, 0);
		if ((rc = notify_mentions_known(db, &ev, t->it.body, e)) == 0)
			rc = notify_mentions(db, &ev, body, e);
		notify_event_release(&ev);
		if (rc != 0)
			return rc;
	}
	t->it.edit_version++;
	t->changed = 1;
	return 0;
}

int
pull_edit(struct db *db, struct repo_cache *repos, struct service_pull *out,
    uint64_t user_id, const struct db_repo *repo, int64_t number,
    int64_t edit_version, const char *title, const char *body, const char *target,
    struct err *e)
{
	struct edit_tx		 t;
	struct forge_item	 pre;
	struct forge_revision	 now;
	struct closing_list	 decl;
	char			*clean = NULL, closing[CLOSING_TEXT_MAX];
	int			 rc, gone = 0, exists = 0;
	struct err		 local;

	memset(out, 0, sizeof *out);
	memset(&t, 0, sizeof t);
	memset(&pre, 0, sizeof pre);
	if (title == NULL && body == NULL && target == NULL) {
		rc = err_set(e, ERR_INVALID, "nothing to edit: give title, description, target "
		    "or several of them");
		goto done;
	}
	if (title != NULL && (rc = service_title(title, FORGE_KIND_PULL, &clean, e)) != 0)
		goto done;
	t.repos = repos;
	t.repo = repo;
	t.user_id = user_id;
	t.number = number;
	t.expect = edit_version;
	t.title = clean;
	t.body = body;
	t.target = target;
	if (body != NULL) {
		if (closing_parse(&decl, body, strlen(body)) != 0) {
			rc = err_set(e, ERR_NOMEM, "out of memory");
			goto done;
		}
		t.closing = closing_format(closing, sizeof closing, &decl);
	}
	if (target != NULL) {
		err_clear(&local);
		rc = repo_branch_exists(repos, &exists, repo->owner, repo->name, target, &local);
		if (rc == ERR_INVALID || (rc == 0 && !exists) || rc == ERR_NOTFOUND) {
			rc = err_set(e, rc == ERR_INVALID ? ERR_INVALID : ERR_NOTFOUND,
			    rc == ERR_INVALID ? "target branch name '%s' is not valid" :
			    "target branch '%s' not found in %s/%s", target, repo->owner,
			    repo->name);
			goto done;
		}
		if (rc != 0) {
			rc = err_set(e, rc, "%s", local.msg);
			goto done;
		}
		/* The branches of the revision a new target makes, read before the row lock. */
		rc = forge_item_get(db, &pre, FORGE_KIND_PULL, repo->id, number, e);
		if (rc == ERR_NOTFOUND)
			rc = service_not_found(db, t.repo, FORGE_KIND_PULL, t.number,
			    "edit it with edit_issue", e);
		if (rc != 0)
			goto done;
		if (strcmp(pre.head, target) != 0 && strcmp(pre.base, target) != 0) {
			if ((rc = pull_revision_resolve(repos, repo, pre.head, target, &now, &gone,
			    e)) != 0)
				goto done;
			if (gone == 0)
				t.now = &now;
		}
	}
	if ((rc = service_transaction(db, edit_tx, &t, e)) != 0)
		goto done;
	if (t.stale) {
		rc = err_set(e, ERR_CONFLICT, "pull request #%lld of %s/%s has changed since you "
		    "read it (edit_version is now %lld, you passed %lld): reload it with "
		    "get_pull_request and retry", (long long)number, repo->owner, repo->name,
		    (long long)t.it.edit_version, (long long)edit_version);
		goto done;
	}
	out->number = t.it.number;
	out->edit_version = t.it.edit_version;
	out->version = t.st.version;
	out->changed = t.changed;
	out->target_changed = t.target_changed;
	memcpy(out->owner, repo->owner, sizeof out->owner);
	memcpy(out->name, repo->name, sizeof out->name);
done:
	forge_item_release(&pre);
	forge_item_release(&t.it);
	free(clean);
	return rc;
}
