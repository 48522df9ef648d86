/* set_repository_variable: creates or replaces a repository variable (spec: repository variables). */
#include <json-c/json.h>

#include "auth.h"
#include "err.h"
#include "json.h"
#include "service/service.h"
#include "store/db.h"
#include "tool.h"
#include "tools/forge_out.h"

static const char schema[] =
    "{\"type\":\"object\",\"additionalProperties\":false,"
    "\"required\":[\"repo\",\"name\",\"value\"],"
    "\"properties\":{"
    "\"repo\":{\"type\":\"string\",\"minLength\":3,\"maxLength\":166,"
    "\"description\":\"owner/name.\"},"
    "\"name\":{\"type\":\"string\","
    "\"description\":\"1 to 64 characters matching [A-Z_][A-Z0-9_]*.\"},"
    "\"value\":{\"type\":\"string\","
    "\"description\":\"Text of at most 4096 bytes.\"}"
    "}}";

static int
set_repository_variable(struct tool_ctx *ctx, struct json_object *args,
    struct json_object **out)
{
	struct forge_variable	 v = { 0 };
	struct json_object	*o = NULL, *value = json_get(args, "value");
	int			 created = 0, rc;

	*out = NULL;
	if ((rc = variable_set(ctx->db, &v, &created, ctx->who->user_id, ctx->repo,
	    json_get_str(args, "name"), json_get_str(args, "value"),
	    value != NULL ? (size_t)json_object_get_string_len(value) : 0, ctx->err)) != 0)
		goto done;
	if ((o = json_object_new_object()) == NULL ||
	    tk_add(o, "name", json_object_new_string(v.name)) != 0 ||
	    tk_add(o, "value", json_object_new_string(v.value)) != 0 ||
	    tk_add(o, "created", json_object_new_boolean(created)) != 0 ||
	    tk_add(o, "updated_at", json_object_new_string(v.updated_at)) != 0) {
		rc = err_set(ctx->err, ERR_NOMEM, "out of memory");
		goto done;
	}
	*out = o;
	o = NULL;
done:
	json_object_put(o);
	forge_variable_release(&v);
	return rc;
}

const struct tool tool_set_repository_variable = {
	.name = "set_repository_variable",
	.title = "Set repository variable",
	.description =
	    "Create a repository variable, or replace its value. Needs the manager role or "
	    "more. Variables are public configuration: anyone who can read the repository can "
	    "read every value, so values must never hold credentials (tokens, passwords, "
	    "keys). A repository has at most 100 variables. Returns {name, value, created "
	    "(false when replaced), updated_at}.",
	.input_schema = schema,
	.scope = AUTH_SCOPE_WRITE,
	.hints = TOOL_DESTRUCTIVE | TOOL_IDEMPOTENT,
	.toolset = "repos",
	.target = TOOL_TARGET_REPO,
	.role = FORGE_ROLE_MANAGER,
	.action = "set repository variables",
	.handler = set_repository_variable,
};
