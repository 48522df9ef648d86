/* delete_repository_variable: deletes a repository variable, idempotently (spec: repository variables). */
#include <json-c/json.h>

#include "auth.h"
#include "err.h"
#include "json.h"
#include "service/service.h"
#include "store/db.h"
#include "tool.h"
#include "tools/forge_out.h"

static const char schema[] =
    "{\"type\":\"object\",\"additionalProperties\":false,\"required\":[\"repo\",\"name\"],"
    "\"properties\":{"
    "\"repo\":{\"type\":\"string\",\"minLength\":3,\"maxLength\":166,"
    "\"description\":\"owner/name.\"},"
    "\"name\":{\"type\":\"string\","
    "\"description\":\"The variable name, matching [A-Z_][A-Z0-9_]* (at most 64 "
    "characters).\"}"
    "}}";

static int
delete_repository_variable(struct tool_ctx *ctx, struct json_object *args,
    struct json_object **out)
{
	struct json_object	*o = NULL;
	const char		*var = json_get_str(args, "name");
	int			 deleted = 0, rc;

	*out = NULL;
	if ((rc = variable_delete(ctx->db, &deleted, ctx->repo, var, ctx->err)) != 0)
		return rc;
	if ((o = json_object_new_object()) == NULL ||
	    tk_add(o, "name", json_object_new_string(var)) != 0 ||
	    tk_add(o, "deleted", json_object_new_boolean(deleted)) != 0) {
		json_object_put(o);
		return err_set(ctx->err, ERR_NOMEM, "out of memory");
	}
	*out = o;
	return 0;
}

const struct tool tool_delete_repository_variable = {
	.name = "delete_repository_variable",
	.title = "Delete repository variable",
	.description =
	    "Delete a repository variable. Needs a write token and the manager role or more on "
	    "the repository (the owner, or a manager collaborator). Deleting a variable that "
	    "does not exist succeeds and changes nothing. Variables are public configuration, "
	    "readable by anyone who can read the repository, and never hold credentials "
	    "(tokens, passwords, keys). Returns {name, deleted}: deleted is false when there "
	    "was no such variable.",
	.input_schema = schema,
	.scope = AUTH_SCOPE_WRITE,
	.hints = TOOL_DESTRUCTIVE | TOOL_IDEMPOTENT,
	.toolset = "repos",
	.target = TOOL_TARGET_REPO,
	.role = FORGE_ROLE_MANAGER,
	.action = "delete repository variables",
	.handler = delete_repository_variable,
};
