/* service: what the issue, pull request and comment services share (blanks, transactions). */
#include <stdlib.h>
#include <string.h>

#include "err.h"
#include "service/service.h"
#include "store/db.h"
#include "store/forge.h"

static int
is_blank_char(char c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\f' || c == '\v';
}

int
service_blank(const char *s)
{
	if (s == NULL)
		return 1;
	for (; *s != '\0'; s++)
		if (!is_blank_char(*s))
			return 0;
	return 1;
}

char *
service_trim(const char *s)
{
	size_t	 len;
	char	*t;

	while (is_blank_char(*s))
		s++;
	len = strlen(s);
	while (len > 0 && is_blank_char(s[len - 1]))
		len--;
	if ((t = malloc(len + 1)) == NULL)
		return NULL;
	memcpy(t, s, len);
	t[len] = '\0';
	return t;
}

int
service_transaction(struct db *db, service_tx_fn fn, void *arg, struct err *e)
{
	int	rc;

	if ((rc = db_tx(db, fn, arg, e)) != 0)
		return err_set(e, rc, "database error");
	return 0;
}

int
service_need_role(struct db *db, const struct db_repo *repo, uint64_t user_id,
    enum forge_role need, const char *action, enum forge_role *role, struct err *e)
{
	enum forge_role	 have = FORGE_ROLE_NONE;
	int		 rc;

	if (role != NULL)
		*role = FORGE_ROLE_NONE;
	if ((rc = forge_role(db, &have, repo->id, user_id, e)) != 0)
		return rc;
	if (role != NULL)
		*role = have;
	if (have >= need)
		return 0;
	return err_set(e, ERR_DENIED, "you cannot %s on %s/%s: that needs the %s role or more, "
	    "and your role is %s", action, repo->owner, repo->name, forge_role_name(need),
	    forge_role_name(have));
}

int
service_not_found(struct db *db, const struct db_repo *repo, enum forge_kind want,
    int64_t number, const char *purpose, struct err *e)
{
	enum forge_kind	 kind;
	uint64_t	 id;
	int		 rc, pull = want == FORGE_KIND_PULL;

	if ((rc = forge_number_kind(db, &kind, &id, repo->id, number, e)) != 0)
		return rc;
	if (kind != FORGE_KIND_NONE && kind != want)
		return err_set(e, ERR_NOTFOUND, "#%lld in %s/%s is %s, not %s: %s",
		    (long long)number, repo->owner, repo->name,
		    pull ? "an issue" : "a pull request", pull ? "a pull request" : "an issue",
		    purpose);
	return err_set(e, ERR_NOTFOUND, "%s #%lld not found in %s/%s: %s gives the numbers",
	    pull ? "pull request" : "issue", (long long)number, repo->owner, repo->name,
	    pull ? "list_pull_requests" : "list_issues");
}

int
service_find_pull(struct db *db, struct forge_item *out, const struct db_repo *repo,
    int64_t number, const char *purpose, struct err *e)
{
	int	 rc;

	rc = forge_item_get(db, out, FORGE_KIND_PULL, repo->id, number, e);
	if (rc != ERR_NOTFOUND)
		return rc;
	return service_not_found(db, repo, FORGE_KIND_PULL, number, purpose, e);
}

int
service_title(const char *title, enum forge_kind kind, char **clean, struct err *e)
{
	*clean = NULL;
	if (service_blank(title))
		return err_set(e, ERR_INVALID, "title must not be blank: give the %s a short "
		    "summary", kind == FORGE_KIND_PULL ? "pull request" : "issue");
	if ((*clean = service_trim(title)) == NULL)
		return err_set(e, ERR_NOMEM, "out of memory");
	return 0;
}
