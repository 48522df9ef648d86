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
	if ((rc = forge_repo_lock(db, t->repo->id, e)) != 0)
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

int
variable_set(struct db *db, struct forge_variable *out, int *created, uint64_t user_id,
    const struct db_repo *repo, const char *var, const char *value, size_t value_len,
    struct err *e)
{
	struct variable_tx	 t;
	int			 rc;

	memset(out, 0, sizeof *out);
	memset(&t, 0, sizeof t);
	*created = 0;
	if ((rc = name_check(var != NULL ? var : "", e)) != 0)
		return rc;
	if (value == NULL)
		return err_set(e, ERR_INVALID, "value is missing: give the variable a value of at "
		    "most 4096 bytes of text");
	if (memchr(value, '\0', value_len) != NULL)
		return err_set(e, ERR_INVALID, "the value of %s must not contain NUL bytes", var);
	if (value_len > SERVICE_VARIABLE_VALUE_MAX)
		return err_set(e, ERR_INVALID, "the value of %s is %zu bytes: a variable value is "
		    "at most 4096 bytes (4 KiB) of text", var, value_len);
	t.repo = repo;
	t.user_id = user_id;
	t.var = var;
	t.value = value;
	t.out = out;
	if ((rc = service_transaction(db, set_tx, &t, e)) != 0) {
		forge_variable_release(out);
		return rc;
	}
	*created = t.done;
	return 0;
}

int
variable_delete(struct db *db, int *deleted, const struct db_repo *repo, const char *var,
    struct err *e)
{
	struct variable_tx	 t;
	int			 rc;

	memset(&t, 0, sizeof t);
	*deleted = 0;
	if ((rc = name_check(var != NULL ? var : "", e)) != 0)
		return rc;
	t.repo = repo;
	t.var = var;
	if ((rc = service_transaction(db, delete_tx, &t, e)) != 0)
		return rc;
	*deleted = t.done;
	return 0;
}
