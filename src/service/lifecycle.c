/* lifecycle: the issue lifecycle: editing, closing and reopening an issue (spec: edit_issue, close_issue, reopen_issue). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "err.h"
#include "service/service.h"
#include "store/db.h"
#include "store/forge.h"

struct life_tx {
	const struct db_repo	*repo;
	uint64_t		 user_id;
	int64_t			 number;
	const char		*verb;		/* "edit", "close", "reopen" */
	int64_t			 expect;	/* edit: the caller's edit_version */
	const char		*title, *body;	/* edit: the new texts, NULL to keep */
	int			 close;		/* close or reopen */
	struct forge_item	 it;		/* the locked issue */
	int			 stale, changed;
};

void
service_issue_release(struct service_issue *it)
{
	if (it == NULL)
		return;
	free(it->title);
	it->title = NULL;
}

/*
 * Locks the issue's row for the rest of the transaction and checks that
 * the caller may change it: its author, or a writer or more.
 */
static int
life_lock(struct db *db, struct life_tx *t, struct err *e)
{
	char	 action[64];
	int	 rc;

	forge_item_release(&t->it);
	t->stale = t->changed = 0;
	rc = forge_issue_lock(db, &t->it, t->repo->id, t->number, e);
	if (rc == ERR_NOTFOUND) {
		snprintf(action, sizeof action, "%s_issue works on issues only", t->verb);
		return service_not_found(db, t->repo, FORGE_KIND_ISSUE, t->number, action, e);
	}
	if (rc != 0)
		return rc;
	if (t->it.author_id == t->user_id)
		return 0;
	snprintf(action, sizeof action, "%s issue #%lld", t->verb, (long long)t->number);
	return service_need_role(db, t->repo, t->user_id, FORGE_ROLE_WRITER, action, NULL, e);
}

/* Whether two bodies read the same (no body and an empty one do). */
static int
same_body(const char *a, const char *b)
{
	return strcmp(a != NULL ? a : "", b != NULL ? b : "") == 0;
}

static int
edit_tx(struct db *db, void *arg, struct err *e)
{
	struct life_tx	*t = arg;
	const char	*title, *body;
	int		 rc;

	if ((rc = life_lock(db, t, e)) != 0)
		return rc;
	if (t->it.edit_version != t->expect) {
		t->stale = 1;
		return 0;
	}
	title = t->title != NULL ? t->title : t->it.title;
	body = t->body != NULL ? t->body : t->it.body;
	if (strcmp(title, t->it.title) == 0 && same_body(body, t->it.body))
		return 0;
	if ((rc = forge_issue_update(db, &t->stale, t->it.id, t->expect, title, body, e)) != 0)
		return rc;
	if (t->stale)
		return 0;	/* not reached while the row is locked; nothing was written */
	if ((rc = forge_event_insert(db, FORGE_KIND_ISSUE, t->it.id, t->user_id,
	    FORGE_EVENT_EDITED, FORGE_CAUSE_USER, 0, 0, e)) != 0)
		return rc;
	t->it.edit_version++;
	t->changed = 1;
	return 0;
}

static int
state_tx(struct db *db, void *arg, struct err *e)
{
	struct life_tx	*t = arg;
	int		 rc;

	if ((rc = life_lock(db, t, e)) != 0)
		return rc;
	if (strcmp(t->it.state, t->close ? "closed" : "open") == 0)
		return 0;
	if ((rc = forge_issue_set_state(db, t->it.id, t->close, e)) != 0)
		return rc;
	if ((rc = forge_event_insert(db, FORGE_KIND_ISSUE, t->it.id, t->user_id,
	    t->close ? FORGE_EVENT_CLOSED : FORGE_EVENT_REOPENED, FORGE_CAUSE_USER, 0, 0, e)) != 0)
		return rc;
	snprintf(t->it.state, sizeof t->it.state, "%s", t->close ? "closed" : "open");
	t->changed = 1;
	return 0;
}

/* Fills *out from a finished transaction; title is the issue's title now. */
static int
life_result(struct service_issue *out, const struct life_tx *t, const char *title,
    struct err *e)
{
	out->number = t->it.number;
	out->edit_version = t->it.edit_version;
	out->changed = t->changed;
	snprintf(out->state, sizeof out->state, "%s", t->it.state);
	memcpy(out->owner, t->repo->owner, sizeof out->owner);
	memcpy(out->name, t->repo->name, sizeof out->name);
	if ((out->title = strdup(title)) == NULL)
		return err_set(e, ERR_NOMEM, "out of memory");
	return 0;
}

int
issue_edit(struct db *db, struct service_issue *out, uint64_t user_id, const struct db_repo *repo,
    int64_t number, int64_t edit_version, const char *title,
    const char *body, struct err *e)
{
	struct life_tx	 t;
	char		*clean = NULL;
	int		 rc;

	memset(out, 0, sizeof *out);
	memset(&t, 0, sizeof t);
	if (title == NULL && body == NULL) {
		rc = err_set(e, ERR_INVALID, "nothing to edit: give title, body or both");
		goto done;
	}
	if (title != NULL && (rc = service_title(title, FORGE_KIND_ISSUE, &clean, e)) != 0)
		goto done;
	t.repo = repo;
	t.user_id = user_id;
	t.number = number;
	t.verb = "edit";
	t.expect = edit_version;
	t.title = clean;
	t.body = body;
	if ((rc = service_transaction(db, edit_tx, &t, e)) != 0)
		goto done;
	if (t.stale) {
		rc = err_set(e, ERR_CONFLICT, "issue #%lld of %s/%s has changed since you read "
		    "it (edit_version is now %lld, you passed %lld): reload it with get_issue "
		    "and retry", (long long)number, repo->owner, repo->name,
		    (long long)t.it.edit_version, (long long)edit_version);
		goto done;
	}
	rc = life_result(out, &t, clean != NULL ? clean : t.it.title, e);
done:
	forge_item_release(&t.it);
	free(clean);
	return rc;
}

/* issue_close and issue_reopen. */
static int
issue_state(struct db *db, struct service_issue *out, uint64_t user_id, const struct db_repo *repo,
    int64_t number, int close, struct err *e)
{
	struct life_tx	 t;
	int		 rc;

	memset(out, 0, sizeof *out);
	memset(&t, 0, sizeof t);
	t.repo = repo;
	t.user_id = user_id;
	t.number = number;
	t.verb = close ? "close" : "reopen";
	t.close = close;
	if ((rc = service_transaction(db, state_tx, &t, e)) != 0)
		goto done;
	rc = life_result(out, &t, t.it.title, e);
done:
	forge_item_release(&t.it);
	return rc;
}

int
issue_close(struct db *db, struct service_issue *out, uint64_t user_id, const struct db_repo *repo,
    int64_t number, struct err *e)
{
	return issue_state(db, out, user_id, repo, number, 1, e);
}

int
issue_reopen(struct db *db, struct service_issue *out, uint64_t user_id,
    const struct db_repo *repo, int64_t number, struct err *e)
{
	return issue_state(db, out, user_id, repo, number, 0, e);
}
