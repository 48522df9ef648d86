/* issues: the issue service: opening an issue, with its rules and numbering (spec: create_issue). */
#include <stdlib.h>
#include <string.h>

#include "err.h"
#include "service/service.h"
#include "store/db.h"
#include "store/forge.h"

struct issue_tx {
	uint64_t	 repo_id, user_id;
	const char	*title, *body;
	int64_t		 number;
	uint64_t	 id;
};

static int
issue_tx(struct db *db, void *arg, struct err *e)
{
	struct issue_tx	*t = arg;
	int		 rc;

	if ((rc = forge_number_next(db, &t->number, t->repo_id, e)) != 0)
		return rc;
	if ((rc = forge_issue_insert(db, &t->id, t->repo_id, t->number, t->user_id, t->title,
	    t->body, e)) != 0)
		return rc;
	if ((rc = forge_event_insert(db, FORGE_KIND_ISSUE, t->id, t->user_id, FORGE_EVENT_OPENED,
	    FORGE_CAUSE_USER, 0, 0, e)) != 0)
		return rc;
	return notify_opened(db, t->repo_id, FORGE_KIND_ISSUE, t->id, t->user_id, t->body, e);
}

int
issue_create(struct db *db, struct service_created *out, uint64_t user_id,
    const struct db_repo *repo, const char *title, const char *body, struct err *e)
{
	struct issue_tx	 t;
	char		*clean = NULL;
	int		 rc;

	memset(out, 0, sizeof *out);
	memset(&t, 0, sizeof t);
	if ((rc = service_title(title, FORGE_KIND_ISSUE, &clean, e)) != 0)
		goto done;
	t.repo_id = repo->id;
	t.user_id = user_id;
	t.title = clean;
	t.body = body;
	if ((rc = service_transaction(db, issue_tx, &t, e)) != 0)
		goto done;
	out->id = t.id;
	out->number = t.number;
	out->kind = FORGE_KIND_ISSUE;
	memcpy(out->owner, repo->owner, sizeof out->owner);
	memcpy(out->name, repo->name, sizeof out->name);
done:
	free(clean);
	return rc;
}
