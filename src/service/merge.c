/* merge: queueing a pull request's merge (spec: merge_merge_request); merge_worker.c does it. */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "buf.h"
#include "err.h"
#include "log.h"
#include "service/closing.h"
#include "service/service.h"
#include "store/db.h"
#include "store/forge.h"
#include "store/repo.h"


/* ---- merge_pull_request ---- */

struct queue_tx {
	const struct db_repo	*repo;
	uint64_t		 user_id;
	int64_t			 number, version, edit_version;
	const char		*strategy;
	struct forge_item	 it;
	struct forge_pull_status st;
	uint64_t		 merge_id;
	int			 refused;	/* 1: the state changed (message in why) */
	int			 stale;		/* 1: version moved, 2: edit_version moved */
	char			 why[300];
};

/* "#3, #4" from the stored form "3,4". */
static void
issues_text(char *buf, size_t len, const char *stored)
{
	struct closing_list	 l;
	size_t			 i, at = 0;
	int			 n;

	buf[0] = '\0';
	closing_read(&l, stored);
	for (i = 0; i < l.n && at < len; i++) {
		n = snprintf(buf + at, len - at, "%s#%lld", i > 0 ? ", " : "",
		    (long long)l.numbers[i]);
		if (n < 0)
			break;
		at += (size_t)n;
	}
}

/* Why a pull request in this state cannot be queued, or NULL when it can. */
static const char *
queue_refusal(char *buf, size_t len, const struct db_repo *repo, const struct forge_item *it,
    const struct forge_pull_status *st)
{
	if (strcmp(it->state, "closed") == 0)
		snprintf(buf, len, "pull request #%lld of %s/%s is closed: reopen it with "
		    "reopen_pull_request before merging", (long long)it->number, repo->owner,
		    repo->name);
	else if (strcmp(it->state, "open") != 0)
		snprintf(buf, len, "pull request #%lld of %s/%s is %s: only an open pull request "
		    "can be merged", (long long)it->number, repo->owner, repo->name, it->state);
	else if (it->draft)
		snprintf(buf, len, "pull request #%lld of %s/%s is a draft: mark it ready for "
		    "review before merging", (long long)it->number, repo->owner, repo->name);
	else if (strcmp(st->merge_state, "queued") == 0 || strcmp(st->merge_state, "running") == 0)
		snprintf(buf, len, "pull request #%lld of %s/%s already has a merge %s: read "
		    "get_pull_request for merge_state and wait for it to finish",
		    (long long)it->number, repo->owner, repo->name, st->merge_state);
	else
		return NULL;
	return buf;
}

static int
queue_tx(struct db *db, void *arg, struct err *e)
{
	struct queue_tx	*t = arg;
	int		 rc;

	forge_item_release(&t->it);
	t->refused = t->stale = 0;
	t->merge_id = 0;
	if ((rc = forge_pull_lock(db, &t->it, &t->st, t->repo->id, t->number, e)) != 0)
		return rc == ERR_NOTFOUND ? err_set(e, rc, "pull request #%lld no longer exists",
		    (long long)t->number) : rc;
	if (queue_refusal(t->why, sizeof t->why, t->repo, &t->it, &t->st) != NULL) {
		t->refused = 1;
		return 0;
	}
	if (t->st.version != t->version) {
		t->stale = 1;
		return 0;
	}
	if (t->it.closing != NULL && t->it.closing[0] != '\0' &&
	    t->it.edit_version != t->edit_version) {
		t->stale = 2;
		return 0;
	}
	return forge_merge_queue(db, &t->merge_id, t->repo->id, t->it.id, t->version,
	    t->strategy, t->user_id, e);
}

/* The stale-version refusal: the caller's version is not the current revision. */
static int
stale_version(const struct db_repo *repo, int64_t number, int64_t now, int64_t passed,
    struct err *e)
{
	return err_set(e, ERR_CONFLICT, "pull request #%lld of %s/%s is at version %lld, not the "
	    "version %lld you passed (its head or target moved): reload it with "
	    "get_pull_request, review the new revision and retry with version %lld",
	    (long long)number, repo->owner, repo->name, (long long)now, (long long)passed,
	    (long long)now);
}

/* The refusals about the declared closures; 0 when there are none to confirm. */
static int
closing_refusal(const struct db_repo *repo, const struct forge_item *it, int64_t edit_version,
    struct err *e)
{
	char	 issues[1200];

	if (it->closing == NULL || it->closing[0] == '\0' || it->edit_version == edit_version)
		return 0;
	issues_text(issues, sizeof issues, it->closing);
	if (edit_version == 0)
		return err_set(e, ERR_INVALID, "the description of pull request #%lld of %s/%s "
		    "declares that merging closes %s: pass the edit_version you read with "
		    "get_pull_request (it is %lld) to confirm", (long long)it->number,
		    repo->owner, repo->name, issues, (long long)it->edit_version);
	return err_set(e, ERR_CONFLICT, "pull request #%lld of %s/%s has changed since you read "
	    "it (edit_version is now %lld, you passed %lld; merging closes %s): reload it "
	    "with get_pull_request and retry", (long long)it->number, repo->owner, repo->name,
	    (long long)it->edit_version, (long long)edit_version, issues);
}

int
merge_queue(struct db *db, struct repo_cache *repos, struct service_merge_queued *out,
    uint64_t user_id, const struct db_repo *repo, int64_t number,
    int64_t version, int64_t edit_version, const char *strategy, struct err *e)
{
	struct forge_item	 pr;
	struct forge_pull_status st;
	struct pull_revision	 rev;
	struct queue_tx		 t;
	char			 why[300], *failing = NULL;
	int			 rc, ok = 0;

	memset(out, 0, sizeof *out);
	memset(&pr, 0, sizeof pr);
	memset(&t, 0, sizeof t);
	if (strategy == NULL)
		strategy = "merge";
	if (strcmp(strategy, "merge") != 0 && strcmp(strategy, "squash") != 0 &&
	    strcmp(strategy, "fast_forward") != 0)
		return err_set(e, ERR_INVALID, "strategy '%s' is not one of merge, squash, "
		    "fast_forward", strategy);
	rc = forge_item_get(db, &pr, FORGE_KIND_PULL, repo->id, number, e);
	if (rc == ERR_NOTFOUND)
		rc = service_not_found(db, repo, FORGE_KIND_PULL, number,
		    "only pull requests are merged", e);
	if (rc != 0)
		goto done;
	if ((rc = forge_pull_status_get(db, &st, pr.id, e)) != 0)
		goto done;
	if (queue_refusal(why, sizeof why, repo, &pr, &st) != NULL) {
		rc = err_set(e, ERR_INVALID, "%s", why);
		goto done;
	}
	if ((rc = pull_revision_current(db, repos, repo, &pr, &rev, e)) != 0)
		goto done;
	if (rev.head_gone || rev.base_gone) {
		rc = err_set(e, ERR_INVALID, "the %s branch '%s' of pull request #%lld no longer "
		    "exists: it cannot be merged", rev.head_gone ? "head" : "target",
		    rev.head_gone ? pr.head : pr.base, (long long)number);
		goto done;
	}
	if (rev.version != version) {
		rc = stale_version(repo, number, rev.version, version, e);
		goto done;
	}
	if ((rc = closing_refusal(repo, &pr, edit_version, e)) != 0)
		goto done;
	if ((rc = pull_checks_passing(db, repo, &pr, &rev, &ok, &failing, e)) != 0)
		goto done;
	if (!ok) {
		rc = err_set(e, ERR_INVALID, "cannot merge: %s", failing != NULL ? failing :
		    "the required checks have not passed");
		goto done;
	}
	t.repo = repo;
	t.user_id = user_id;
	t.number = number;
	t.version = version;
	t.edit_version = edit_version;
	t.strategy = strategy;
	if ((rc = service_transaction(db, queue_tx, &t, e)) != 0)
		goto done;
	if (t.refused) {
		rc = err_set(e, ERR_INVALID, "%s", t.why);
		goto done;
	}
	if (t.stale == 1) {
		rc = stale_version(repo, number, t.st.version, version, e);
		goto done;
	}
	if (t.stale == 2) {
		rc = closing_refusal(repo, &t.it, edit_version, e);
		goto done;
	}
	out->merge_id = t.merge_id;
	out->number = number;
	out->version = version;
	snprintf(out->strategy, sizeof out->strategy, "%s", strategy);
	snprintf(out->closing, sizeof out->closing, "%s", t.it.closing != NULL ?
	    t.it.closing : "");
	memcpy(out->owner, repo->owner, sizeof out->owner);
	memcpy(out->name, repo->name, sizeof out->name);
done:
	free(failing);
	forge_item_release(&t.it);
	forge_item_release(&pr);
	return rc;
}

/* ---- a queued merge that waits for a worker ---- */

int
merge_wait_note(struct db *db, char *note, size_t len, struct err *e)
{
	int64_t	 age = -1;
	int	 alive = 0, rc;

	note[0] = '\0';
	if ((rc = forge_merge_workers_seen(db, &age, &alive, MERGE_WORKER_POLLS,
	    MERGE_WORKER_QUIET_MS, e)) != 0 || alive)
		return rc;
	if (age < 0)
		snprintf(note, len, "the merge is queued, but no merge worker has ever run: it "
		    "waits until an operator starts `forgemcp worker`");
	else
		snprintf(note, len, "the merge is queued, but no merge worker is running (one was "
		    "last seen %lld s ago): it waits until an operator starts `forgemcp worker`",
		    (long long)age);
	return 0;
}
