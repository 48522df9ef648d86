/* comments: the comment service: commenting on an issue or a pull request by number (spec: add_issue_comment). */
#include <stdio.h>
#include <string.h>

#include "err.h"
#include "service/service.h"
#include "store/db.h"
#include "store/forge.h"

struct comment_tx {
	uint64_t	 repo_id, user_id;
	int64_t		 number;
	const char	*body;
	const char	*full;		/* owner/name, for the message */
	enum forge_kind	 kind;
	uint64_t	 id;
};

static int
comment_tx(struct db *db, void *arg, struct err *e)
{
	struct comment_tx	*t = arg;
	uint64_t		 parent;
	int			 rc;

	if ((rc = forge_number_kind(db, &t->kind, &parent, t->repo_id, t->number, e)) != 0)
		return rc;
	if (t->kind == FORGE_KIND_NONE)
		return err_set(e, ERR_NOTFOUND, "no issue or pull request #%lld in %s: "
		    "list_issues and list_pull_requests give the numbers", (long long)t->number,
		    t->full);
	if ((rc = forge_comment_insert(db, &t->id, t->kind, parent, t->user_id, t->body, e)) != 0)
		return rc;
	if ((rc = forge_event_insert(db, t->kind, parent, t->user_id, FORGE_EVENT_COMMENTED,
	    FORGE_CAUSE_USER, 0, t->id, e)) != 0)
		return rc;
	return notify_commented(db, t->repo_id, t->kind, parent, t->user_id, t->id, t->body, e);
}

int
comment_add(struct db *db, struct service_created *out, uint64_t user_id,
    const struct db_repo *repo, int64_t number, const char *body, struct err *e)
{
	struct comment_tx	 t;
	char			 full[170];
	int			 rc;

	memset(out, 0, sizeof *out);
	memset(&t, 0, sizeof t);
	if (service_blank(body)) {
		rc = err_set(e, ERR_INVALID, "body must not be blank: write the comment text");
		goto done;
	}
	snprintf(full, sizeof full, "%s/%s", repo->owner, repo->name);
	t.repo_id = repo->id;
	t.user_id = user_id;
	t.number = number;
	t.body = body;
	t.full = full;
	if ((rc = service_transaction(db, comment_tx, &t, e)) != 0)
		goto done;
	out->id = t.id;
	out->number = number;
	out->kind = t.kind;
	memcpy(out->owner, repo->owner, sizeof out->owner);
	memcpy(out->name, repo->name, sizeof out->name);
done:
	return rc;
}
