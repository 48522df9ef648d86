/* discussions: review discussions of pull requests: opening (general or anchored to a diff line), replying, resolving and reopening. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "err.h"
#include "service/service.h"
#include "store/db.h"
#include "store/forge.h"
#include "store/repo.h"

static int
disc_not_found(const struct db_repo *repo, int64_t number, uint64_t id, struct err *e)
{
	return err_set(e, ERR_NOTFOUND, "discussion %llu not found in pull request #%lld of "
	    "%s/%s: list_pull_request_discussions gives the ids", (unsigned long long)id,
	    (long long)number, repo->owner, repo->name);
}

static void
disc_result(struct service_discussion *out, const struct db_repo *repo,
    const struct forge_item *pr)
{
	out->pull_request_id = pr->id;
	out->number = pr->number;
	memcpy(out->owner, repo->owner, sizeof out->owner);
	memcpy(out->name, repo->name, sizeof out->name);
}

/* ---- opening a discussion ---- */

struct create_tx {
	const struct db_repo	*repo;
	const struct forge_item	*pr;
	uint64_t		 user_id;
	int64_t			 version;
	const char		*path, *side, *context, *body;
	int64_t			 line;
	uint64_t		 id;
};

static int
create_tx(struct db *db, void *arg, struct err *e)
{
	struct create_tx	*t = arg;
	struct notify_event	 ev;
	int			 rc;

	if ((rc = forge_discussion_insert(db, &t->id, t->pr->id, t->user_id, t->version, t->path,
	    t->line, t->side, t->context, t->body, e)) != 0)
		return rc;
	notify_event_init(&ev, t->repo->id, FORGE_KIND_PULL, t->pr->id, t->user_id, 0);
	if ((rc = notify_mentions(db, &ev, t->body, e)) == 0)
		rc = notify_one(db, &ev, t->pr->author_id, FORGE_REASON_COMMENT, e);
	notify_event_release(&ev);
	return rc;
}

/* Checks the anchor's arguments: all of path and line (side defaults to "new") or none. */
static int
anchor_args(const char *path, int64_t line, const char **side, struct err *e)
{
	if (path == NULL) {
		if (line != 0 || *side != NULL)
			return err_set(e, ERR_INVALID, "line and side anchor a discussion to a line "
			    "of a file: give path too, or leave all three out for a general "
			    "discussion");
		return 0;
	}
	if (line < 1)
		return err_set(e, ERR_INVALID, "path needs line: the line number (from 1) on the "
		    "side you comment on");
	if (*side == NULL)
		*side = "new";
	if (strcmp(*side, "new") != 0 && strcmp(*side, "old") != 0)
		return err_set(e, ERR_INVALID, "side must be \"new\" (the head's lines) or "
		    "\"old\" (the lines before the change)");
	return 0;
}

int
discussion_create(struct db *db, struct repo_cache *repos, struct service_discussion *out,
    uint64_t user_id, const struct db_repo *repo, int64_t number, const char *body,
    const char *path, int64_t line, const char *side, int64_t version, struct err *e)
{
	struct forge_item	 pr;
	struct pull_revision	 cur, rev;
	struct create_tx	 t;
	char			*context = NULL, what[80];
	int			 rc;

	memset(out, 0, sizeof *out);
	memset(&pr, 0, sizeof pr);
	memset(&t, 0, sizeof t);
	if (service_blank(body)) {
		rc = err_set(e, ERR_INVALID, "body must not be blank: write what the discussion "
		    "is about");
		goto done;
	}
	if ((rc = anchor_args(path, line, &side, e)) != 0)
		goto done;
	if ((rc = service_find_pull(db, &pr, repo, number,
	    "discussions belong to pull requests", e)) != 0)
		goto done;
	/* the current revision first, so a push since the last read is recorded */
	if ((rc = pull_revision_current(db, repos, repo, &pr, &cur, e)) != 0)
		goto done;
	rev = cur;
	if (version != 0 && version != cur.version &&
	    (rc = pull_revision_get(db, pr.id, version, &rev, e)) != 0)
		goto done;
	if (path != NULL) {
		snprintf(what, sizeof what, "revision %lld of pull request #%lld",
		    (long long)rev.version, (long long)number);
		if ((rc = repo_diff_anchor(repos, &context, repo->owner, repo->name, rev.merge_base,
		    rev.head_commit, path, strcmp(side, "new") == 0, (size_t)line,
		    DISCUSSION_CONTEXT_LINES, what, e)) != 0)
			goto done;
	}
	t.repo = repo;
	t.pr = &pr;
	t.user_id = user_id;
	t.version = rev.version;
	t.path = path;
	t.line = line;
	t.side = path != NULL ? side : NULL;
	t.context = context;
	t.body = body;
	if ((rc = service_transaction(db, create_tx, &t, e)) != 0)
		goto done;
	disc_result(out, repo, &pr);
	out->id = t.id;
	out->version = rev.version;
	out->state_version = 1;
	snprintf(out->state, sizeof out->state, "open");
done:
	free(context);
	forge_item_release(&pr);
	return rc;
}

/* ---- replies, resolving and reopening ---- */

struct thread_tx {
	const struct db_repo	*repo;
	const struct forge_item	*pr;
	uint64_t		 user_id, id;
	const char		*body;		/* reply */
	int			 resolve;	/* state: the state asked for */
	int64_t			 expect;	/* state: the caller's state_version */
	struct forge_discussion	 d;		/* the locked discussion */
	uint64_t		 reply_id;
	int			 stale, changed;
};

/* Locks the discussion for the rest of the transaction. */
static int
thread_lock(struct db *db, struct thread_tx *t, struct err *e)
{
	int	 rc;

	forge_discussion_release(&t->d);
	t->stale = t->changed = 0;
	rc = forge_discussion_lock(db, &t->d, t->pr->id, t->id, e);
	if (rc == ERR_NOTFOUND)
		return disc_not_found(t->repo, t->pr->number, t->id, e);
	return rc;
}

static int
reply_tx(struct db *db, void *arg, struct err *e)
{
	struct thread_tx	*t = arg;
	struct notify_event	 ev;
	int			 rc;

	if ((rc = thread_lock(db, t, e)) != 0)
		return rc;
	if ((rc = forge_reply_insert(db, &t->reply_id, t->id, t->user_id, t->body, e)) != 0)
		return rc;
	notify_event_init(&ev, t->repo->id, FORGE_KIND_PULL, t->pr->id, t->user_id, 0);
	if ((rc = notify_mentions(db, &ev, t->body, e)) == 0)
		rc = notify_one(db, &ev, t->d.author_id, FORGE_REASON_REPLY, e);
	notify_event_release(&ev);
	return rc;
}

static int
state_tx(struct db *db, void *arg, struct err *e)
{
	struct thread_tx	*t = arg;
	const char		*want = t->resolve ? "resolved" : "open";
	char			 action[96];
	int			 rc;

	if ((rc = thread_lock(db, t, e)) != 0)
		return rc;
	if (t->d.author_id != t->user_id && t->pr->author_id != t->user_id) {
		snprintf(action, sizeof action, "%s discussion %llu of pull request #%lld",
		    t->resolve ? "resolve" : "reopen", (unsigned long long)t->id,
		    (long long)t->pr->number);
		if ((rc = service_need_role(db, t->repo, t->user_id, FORGE_ROLE_WRITER, action, NULL,
		    e)) != 0)
			return rc;
	}
	if (strcmp(t->d.state, want) == 0)
		return 0;
	if (t->d.state_version != t->expect) {
		t->stale = 1;
		return 0;
	}
	if ((rc = forge_discussion_set_state(db, &t->stale, t->id, t->expect, t->resolve,
	    t->user_id, e)) != 0 || t->stale)
		return rc;	/* stale is not reached while the row is locked */
	snprintf(t->d.state, sizeof t->d.state, "%s", want);
	t->d.state_version++;
	t->changed = 1;
	return 0;
}

/* The steps shared by reply and resolve/reopen: find, run fn, fill *out. */
static int
thread_run(struct db *db, struct service_discussion *out, service_tx_fn fn,
    struct thread_tx *t, uint64_t user_id, const struct db_repo *repo,
    int64_t number, struct err *e)
{
	struct forge_item	 pr;
	int			 rc;

	memset(out, 0, sizeof *out);
	memset(&pr, 0, sizeof pr);
	if (t->body != NULL && service_blank(t->body)) {
		rc = err_set(e, ERR_INVALID, "body must not be blank: write the reply text");
		goto done;
	}
	if ((rc = service_find_pull(db, &pr, repo, number,
	    "discussions belong to pull requests", e)) != 0)
		goto done;
	t->repo = repo;
	t->pr = &pr;
	t->user_id = user_id;
	if ((rc = service_transaction(db, fn, t, e)) != 0)
		goto done;
	if (t->stale) {
		rc = err_set(e, ERR_CONFLICT, "discussion %llu of pull request #%lld of %s/%s has "
		    "changed since you read it (state_version is now %lld, you passed %lld): "
		    "reload it with list_pull_request_discussions and retry",
		    (unsigned long long)t->id, (long long)number, repo->owner, repo->name,
		    (long long)t->d.state_version, (long long)t->expect);
		goto done;
	}
	disc_result(out, repo, &pr);
	out->id = t->id;
	out->reply_id = t->reply_id;
	out->version = t->d.version;
	out->state_version = t->d.state_version;
	out->changed = t->changed;
	snprintf(out->state, sizeof out->state, "%s", t->d.state);
done:
	forge_discussion_release(&t->d);
	forge_item_release(&pr);
	return rc;
}

int
discussion_reply(struct db *db, struct service_discussion *out, uint64_t user_id,
    const struct db_repo *repo, int64_t number, uint64_t id, const char *body,
    struct err *e)
{
	struct thread_tx	 t;

	memset(&t, 0, sizeof t);
	t.id = id;
	t.body = body != NULL ? body : "";
	return thread_run(db, out, reply_tx, &t, user_id, repo, number, e);
}

static int
discussion_state(struct db *db, struct service_discussion *out, uint64_t user_id,
    const struct db_repo *repo, int64_t number, uint64_t id, int64_t state_version,
    int resolve, struct err *e)
{
	struct thread_tx	 t;

	memset(&t, 0, sizeof t);
	t.id = id;
	t.resolve = resolve;
	t.expect = state_version;
	return thread_run(db, out, state_tx, &t, user_id, repo, number, e);
}

int
discussion_resolve(struct db *db, struct service_discussion *out, uint64_t user_id,
    const struct db_repo *repo, int64_t number, uint64_t id, int64_t state_version,
    struct err *e)
{
	return discussion_state(db, out, user_id, repo, number, id, state_version, 1, e);
}

int
discussion_reopen(struct db *db, struct service_discussion *out, uint64_t user_id,
    const struct db_repo *repo, int64_t number, uint64_t id, int64_t state_version,
    struct err *e)
{
	return discussion_state(db, out, user_id, repo, number, id, state_version, 0, e);
}
