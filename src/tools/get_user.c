/* get_user: who the caller is: login, name and the scopes of the token in use (spec: get_user). */
#include <stdlib.h>
#include <string.h>
#include <json-c/json.h>

#include "auth.h"
#include "err.h"
#include "json.h"
#include "store/forge.h"
#include "tool.h"
#include "tools/forge_out.h"

static const char schema[] =
    "{\"type\":\"object\",\"additionalProperties\":false,\"properties\":{}}";

static const unsigned scope_bits[] = {
	AUTH_SCOPE_READ, AUTH_SCOPE_WRITE, AUTH_SCOPE_EXECUTE, AUTH_SCOPE_MERGE,
};

static int
get_user(struct tool_ctx *ctx, struct json_object *args, struct json_object **out)
{
	struct json_object	*o = NULL, *scopes = NULL, *s;
	char			 login[65], *name = NULL;
	size_t			 i;
	int			 rc;

	(void)args;
	*out = NULL;
	if ((rc = forge_user_get(ctx->db, login, &name, ctx->who->user_id, ctx->err)) != 0)
		goto done;
	if ((o = json_object_new_object()) == NULL || (scopes = json_object_new_array()) == NULL)
		goto nomem;
	for (i = 0; i < sizeof scope_bits / sizeof scope_bits[0]; i++) {
		if ((ctx->who->scopes & scope_bits[i]) == 0)
			continue;
		s = json_object_new_string(auth_scope_name(scope_bits[i]));
		if (s == NULL || json_object_array_add(scopes, s) != 0) {
			json_object_put(s);
			goto nomem;
		}
	}
	if (tk_add(o, "login", json_object_new_string(login)) != 0 ||
	    fout_add_str_or_null(o, "name", name) != 0)
		goto nomem;
	rc = tk_add(o, "scopes", scopes);
	scopes = NULL;
	if (rc != 0)
		goto nomem;
	*out = o;
	o = NULL;
	goto done;
nomem:
	rc = err_set(ctx->err, ERR_NOMEM, "out of memory");
done:
	json_object_put(scopes);
	json_object_put(o);
	free(name);
	return rc;
}

const struct tool tool_get_user = {
	.name = "get_user",
	.title = "Get the current user",
	.description =
	    "Who you are: the login and name of the account behind the token in use, and the "
	    "scopes that token grants, in this order: read, write, execute, merge (a token "
	    "with execute or merge has write too). Returns {login, name (null when none), "
	    "scopes: [...]}.",
	.input_schema = schema,
	.scope = AUTH_SCOPE_READ,
	.hints = TOOL_READ_ONLY,
	.toolset = "users",
	.handler = get_user,
};
