/* list_repository_variables: a repository's variables by name, 50 a page (spec: repository variables). */
#include <stdint.h>
#include <string.h>
#include <json-c/json.h>

#include "auth.h"
#include "err.h"
#include "store/db.h"
#include "store/forge.h"
#include "tool.h"
#include "tools/forge_out.h"

#define PAGE_SIZE	50

static const char schema[] =
    "{\"type\":\"object\",\"additionalProperties\":false,\"required\":[\"repo\"],"
    "\"properties\":{"
    "\"repo\":{\"type\":\"string\",\"minLength\":3,\"maxLength\":166,"
    "\"description\":\"owner/name.\"},"
    "\"page\":{\"type\":\"integer\",\"minimum\":1,\"default\":1,"
    "\"description\":\"Which page of 50 variables (default 1); ask for the next one while "
    "has_more is true.\"}"
    "}}";

/* {name, value, updated_at, updated_by} of one variable into the array a. */
static int
add_variable(struct json_object *a, const struct forge_variable *v)
{
	struct json_object	*o;

	if ((o = json_object_new_object()) == NULL)
		return ERR_NOMEM;
	if (tk_add(o, "name", json_object_new_string(v->name)) != 0 ||
	    tk_add(o, "value", json_object_new_string(v->value)) != 0 ||
	    tk_add(o, "updated_at", json_object_new_string(v->updated_at)) != 0 ||
	    fout_add_str_or_null(o, "updated_by", v->updated_by) != 0 ||
	    json_object_array_add(a, o) != 0) {
		json_object_put(o);
		return ERR_NOMEM;
	}
	return 0;
}

static int
list_repository_variables(struct tool_ctx *ctx, struct json_object *args,
    struct json_object **out)
{
	struct forge_variable	*v = NULL;
	struct json_object	*o = NULL, *a = NULL;
	struct err		 local;
	int64_t			 page = tk_int(args, "page", 1), offset;
	size_t			 n = 0, i, shown;
	int			 rc;

	*out = NULL;
	err_clear(&local);
	/* No repository holds this many; past the end a page is just empty. */
	offset = page - 1 > INT32_MAX ? (int64_t)INT32_MAX * PAGE_SIZE : (page - 1) * PAGE_SIZE;
	if ((rc = forge_variable_list(ctx->db, &v, &n, ctx->repo->id, offset, PAGE_SIZE + 1,
	    &local)) != 0) {
		rc = tk_fail(ctx, rc, &local);
		goto done;
	}
	shown = n > PAGE_SIZE ? PAGE_SIZE : n;
	if ((o = json_object_new_object()) == NULL || (a = json_object_new_array()) == NULL)
		goto nomem;
	for (i = 0; i < shown; i++)
		if (add_variable(a, &v[i]) != 0)
			goto nomem;
	rc = tk_page(o, "variables", a, page, n > PAGE_SIZE);
	a = NULL;
	if (rc != 0)
		goto nomem;
	*out = o;
	o = NULL;
	rc = 0;
	goto done;
nomem:
	rc = err_set(ctx->err, ERR_NOMEM, "out of memory");
done:
	json_object_put(a);
	json_object_put(o);
	forge_variable_list_free(v, n);
	return rc;
}

const struct tool tool_list_repository_variables = {
	.name = "list_repository_variables",
	.title = "List repository variables",
	.description =
	    "List the variables of a repository (public configuration values such as "
	    "DEPLOY_REGION), by name. Anyone who can read the repository may list them, so "
	    "values are readable metadata and must never hold credentials (tokens, passwords, "
	    "keys). A repository has at most 100 variables. Returns {variables: [{name, value, "
	    "updated_at, updated_by}], page, has_more}: 50 variables a page; while has_more is "
	    "true, ask for page + 1. Change them with set_repository_variable and "
	    "delete_repository_variable (manager role or more).",
	.input_schema = schema,
	.scope = AUTH_SCOPE_READ,
	.hints = TOOL_READ_ONLY,
	.toolset = "repos",
	.target = TOOL_TARGET_REPO,
	.handler = list_repository_variables,
};
