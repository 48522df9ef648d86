/* variables: the repository variable service: setting and deleting, with their rules. */
#include <stdio.h>
#include <string.h>

#include "err.h"
#include "service/service.h"
#include "store/db.h"
#include "store/forge.h"

#define NAME_RULE \
    "a name is 1 to 64 characters matching [A-Z_][A-Z0-9_]* (upper-case letters, digits " \
    "and underscores, not starting with a digit), such as DEPLOY_REGION"

/* How many bytes of a refused name a message quotes: whole UTF-8 characters only. */
#define NAME_QUOTE_MAX	80

static size_t
quote_len(const char *s)
{
	size_t	 n = strlen(s);

	if (n <= NAME_QUOTE_MAX)
		return n;
	n = NAME_QUOTE_MAX;
	while (n > 0 && ((unsigned char)s[n] & 0xc0) == 0x80)
		n--;
	return n;
}

/* Refuses (ERR_INVALID) a name outside [A-Z_][A-Z0-9_]{0,63}, quoting it. */
static int
name_check(const char *var, struct err *e)
{
	const char	*why = NULL, *p;
	size_t		 len = strlen(var);

	if (len == 0)
		why = "is empty";
	else if (len > SERVICE_VARIABLE_NAME_MAX)
		why = "is longer than 64 characters";
	else if (var[0] >= '0' && var[0] <= '9')
		why = "starts with a digit";
	else
		for (p = var; *p != '\0'; p++)
			if (!((*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') || *p == '_')) {
				why = "has characters other than A-Z, 0-9 and _";
				break;
			}
	if (why == NULL)
		return 0;
	return err_set(e, ERR_INVALID, "variable name '%.*s%s' %s: " NAME_RULE,
	    (int)quote_len(var), var, quote_len(var) < len ? "..." : "", why);
}

struct variable_tx {
	const struct db_repo	*repo;
	uint64_t		 user_id;
	const char		*var, *value;
	int			 done;		/* created / deleted */
	struct forge_variable	*out;
};

static int
set_tx(struct db *db, void *arg, struct err *e)
{
	struct variable_tx	*t = arg;
	struct forge_variable	 old;
	int64_t			 n = 0;
	int			 rc;

	memset(&old, 0, sizeof old);
	forge_variable_release(t->out);
	if ((rc = forge_variable_lock(db, t->repo->id, e)) != 0)
		return rc;
	if ((rc = forge_variable_count(db, &n, t->repo->id, e)) != 0)
		return rc;
	if (n >= SERVICE_VARIABLES_MAX) {
		rc = forge_variable_get(db, &old, t->repo->id, t->var, e);
		forge_variable_release(&old);
		if (rc == ERR_NOTFOUND)
			return err_set(e, ERR_INVALID, "%s/%s already has %lld variables, the most a "
			    "repository may have (100): delete one with delete_repository_variable "
			    "or change an existing one instead of adding '%s'", t->repo->owner,
			    t->repo->name, (long long)n, t->var);
		if (rc != 0)
			return rc;
	}
	if ((rc = forge_variable_set(db, &t->done, t->repo->id, t->var, t->value, t->user_id,
	    e)) != 0)
		return rc;
	rc = forge_variable_get(db, t->out, t->repo->id, t->var, e);
	if (rc == ERR_NOTFOUND)
		rc = err_set(e, ERR_INTERNAL, "variable '%s' vanished after it was set", t->var);
	return rc;
}

static int
delete_tx(struct db *db, void *arg, struct err *e)
{
	struct variable_tx	*t = arg;

	return forge_variable_delete(db, &t->done, t->repo->id, t->var, e);
}

/* The checks both writes share: the repository, the role, the name. */
static int
variable_prepare(struct db *db, struct db_repo *repo, uint64_t user_id, const char *owner,
    const char *name, const char *var, const char *action, struct err *e)
{
	int	 rc;

	if ((rc = db_repo_find_visible(db, repo, user_id, owner, name, e)) != 0)
		return rc;
	if ((rc = service_need_role(db, repo, user_id, FORGE_ROLE_MANAGER, action, NULL,
	    e)) != 0)
		return rc;
	return name_check(var != NULL ? var : "", e);
}

int
variable_set(struct db *db, struct forge_variable *out, int *created, uint64_t user_id,
    const char *owner, const char *name, const char *var, const char *value, size_t value_len,
    struct err *e)
{
	struct db_repo		 repo;
	struct variable_tx	 t;
	int			 rc;

	memset(out, 0, sizeof *out);
	memset(&repo, 0, sizeof repo);
	memset(&t, 0, sizeof t);
	*created = 0;
	if ((rc = variable_prepare(db, &repo, user_id, owner, name, var,
	    "set repository variables", e)) != 0)
		goto done;
	if (value == NULL) {
		rc = err_set(e, ERR_INVALID, "value is missing: give the variable a value of at "
		    "most 4096 bytes of text");
		goto done;
	}
	if (memchr(value, '\0', value_len) != NULL) {
		rc = err_set(e, ERR_INVALID, "the value of %s must not contain NUL bytes", var);
		goto done;
	}
	if (value_len > SERVICE_VARIABLE_VALUE_MAX) {
		rc = err_set(e, ERR_INVALID, "the value of %s is %zu bytes: a variable value is "
		    "at most 4096 bytes (4 KiB) of text", var, value_len);
		goto done;
	}
	t.repo = &repo;
	t.user_id = user_id;
	t.var = var;
	t.value = value;
	t.out = out;
	if ((rc = service_transaction(db, set_tx, &t, e)) != 0) {
		forge_variable_release(out);
		goto done;
	}
	*created = t.done;
done:
	db_repo_release(&repo);
	return rc;
}

int
variable_delete(struct db *db, int *deleted, uint64_t user_id, const char *owner,
    const char *name, const char *var, struct err *e)
{
	struct db_repo		 repo;
	struct variable_tx	 t;
	int			 rc;

	memset(&repo, 0, sizeof repo);
	memset(&t, 0, sizeof t);
	*deleted = 0;
	if ((rc = variable_prepare(db, &repo, user_id, owner, name, var,
	    "delete repository variables", e)) != 0)
		goto done;
	t.repo = &repo;
	t.var = var;
	if ((rc = service_transaction(db, delete_tx, &t, e)) != 0)
		goto done;
	*deleted = t.done;
done:
	db_repo_release(&repo);
	return rc;
}
