/* pulls: the pull request service: opening a pull request, with its rules and numbering (spec: create_pull_request). */
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

struct pull_tx {
	const struct db_repo *repo;
	struct repo_cache *repos;
	uint64_t	 repo_id, user_id;
	const char	*title, *body, *head, *base;
	int		 draft;
	int64_t		 issue;		/* the linked issue, 0 for none */
	const char	*closing;	/* the declared closures ("3,4"), NULL for none */
	struct forge_revision rev;	/* revision 1, when both branches could be read */
	int64_t		 number;
	uint64_t	 id;
};

static int
pull_tx(struct db *db, void *arg, struct err *e)
{
	struct pull_tx	*t = arg;
	int64_t		 open = 0;
	int		 rc;

	/* The counter's row lock also serialises the "already open" check. */
	if ((rc = forge_number_next(db, &t->number, t->repo_id, e)) != 0)
		return rc;
	if ((rc = forge_pull_find_open(db, &open, t->repo_id, t->head, t->base, e)) != 0)
		return rc;
	if (open != 0)
		return err_set(e, ERR_EXISTS, "a pull request from '%s' into '%s' is already "
		    "open: #%lld (comment on it with add_issue_comment)", t->head, t->base,
		    (long long)open);
	if ((rc = forge_pull_insert(db, &t->id, t->repo_id, t->number, t->user_id, t->title,
	    t->body, t->head, t->base, t->draft, t->issue, t->closing, e)) != 0)
		return rc;
	if (t->rev.version == 1 && ((rc = forge_revision_insert(db, t->id, &t->rev, e)) != 0 ||
	    (rc = run_pr_create(db, t->repos, t->repo, t->id, t->user_id, t->head, &t->rev,
	    e)) != 0))
		return rc;
	if ((rc = forge_event_insert(db, FORGE_KIND_PULL, t->id, t->user_id, FORGE_EVENT_OPENED,
	    FORGE_CAUSE_USER, 0, 0, e)) != 0)
		return rc;
	return notify_opened(db, t->repo_id, FORGE_KIND_PULL, t->id, t->user_id, t->body, e);
}

/* Checks that branch (the "head" or "base" argument) exists in the repository. */
static int
branch_check(struct repo_cache *repos, const struct db_repo *repo, const char *which,
    const char *branch, struct err *e)
{
	struct err	 local;
	int		 exists = 0, rc;

	err_clear(&local);
	rc = repo_branch_exists(repos, &exists, repo->owner, repo->name, branch, &local);
	if (rc == ERR_INVALID)
		return err_set(e, rc, "%s branch name '%s' is not valid", which, branch);
	if (rc == ERR_NOTFOUND || (rc == 0 && !exists))
		return err_set(e, ERR_NOTFOUND, "%s branch '%s' not found in %s/%s", which, branch,
		    repo->owner, repo->name);
	if (rc != 0)
		return err_set(e, rc, "%s", local.msg);
	return 0;
}

/* Checks that number (the "issue" argument) is an issue of repo, not a pull request. */
static int
linked_issue_check(struct db *db, const struct db_repo *repo, int64_t number, struct err *e)
{
	enum forge_kind	 kind;
	uint64_t	 id;
	int		 rc;

	if ((rc = forge_number_kind(db, &kind, &id, repo->id, number, e)) != 0)
		return rc;
	if (kind == FORGE_KIND_PULL)
		return err_set(e, ERR_INVALID, "#%lld in %s/%s is a pull request, not an issue: "
		    "the issue argument must name an existing issue of this repository",
		    (long long)number, repo->owner, repo->name);
	if (kind != FORGE_KIND_ISSUE)
		return err_set(e, ERR_INVALID, "issue #%lld not found in %s/%s: the issue "
		    "argument must name an existing issue of this repository", (long long)number,
		    repo->owner, repo->name);
	return 0;
}

int
pull_create(struct db *db, struct repo_cache *repos, struct service_created *out,
    uint64_t user_id, const struct db_repo *repo, const char *title, const char *body,
    const char *head, const char *base, int draft, int64_t issue, struct err *e)
{
	struct pull_tx		 t;
	struct closing_list	 decl;
	char			*clean = NULL, closing[CLOSING_TEXT_MAX];
	int			 rc, gone = 0;

	memset(out, 0, sizeof *out);
	memset(&t, 0, sizeof t);
	if ((rc = service_title(title, FORGE_KIND_PULL, &clean, e)) != 0)
		goto done;
	if (service_blank(head) || service_blank(base)) {
		rc = err_set(e, ERR_INVALID, "head and base must name branches");
		goto done;
	}
	if (strcmp(head, base) == 0) {
		rc = err_set(e, ERR_INVALID, "head and base are the same branch '%s': head must be "
		    "the branch with the changes, base the branch to merge them into", head);
		goto done;
	}
	if ((rc = branch_check(repos, repo, "head", head, e)) != 0 ||
	    (rc = branch_check(repos, repo, "base", base, e)) != 0)
		goto done;
	if (issue != 0 && (rc = linked_issue_check(db, repo, issue, e)) != 0)
		goto done;
	if (closing_parse(&decl, body, body != NULL ? strlen(body) : 0) != 0) {
		rc = err_set(e, ERR_NOMEM, "out of memory");
		goto done;
	}
	t.repo = repo;
	t.repos = repos;
	t.repo_id = repo->id;
	t.user_id = user_id;
	t.title = clean;
	t.body = body;
	t.head = head;
	t.base = base;
	t.draft = draft != 0;
	t.issue = issue;
	t.closing = closing_format(closing, sizeof closing, &decl);
	if ((rc = pull_revision_resolve(repos, repo, head, base, &t.rev, &gone, e)) != 0)
		goto done;
	if (gone == 0) {
		t.rev.version = 1;
		snprintf(t.rev.reason, sizeof t.rev.reason, "opened");
	}
	if ((rc = service_transaction(db, pull_tx, &t, e)) != 0)
		goto done;
	out->id = t.id;
	out->number = t.number;
	out->kind = FORGE_KIND_PULL;
	memcpy(out->owner, repo->owner, sizeof out->owner);
	memcpy(out->name, repo->name, sizeof out->name);
done:
	free(clean);
	return rc;
}
