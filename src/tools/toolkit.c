/* toolkit: what tools share: repository lookup, argument getters, JSON helpers. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <json-c/json.h>

#include "core.h"
#include "err.h"
#include "json.h"
#include "store/db.h"
#include "tool.h"
#include "tools/toolkit.h"

int
tk_repo(struct tool_ctx *ctx, struct json_object *args, struct db_repo *out)
{
	const char	*full = json_get_str(args, "repo"), *slash;
	char		 owner[65], name[101];

	memset(out, 0, sizeof *out);
	if (full == NULL || json_str_has_nul(json_get(args, "repo")) ||
	    (slash = strchr(full, '/')) == NULL || slash == full ||
	    (size_t)(slash - full) >= sizeof owner || slash[1] == '\0' ||
	    strlen(slash + 1) >= sizeof name || strchr(slash + 1, '/') != NULL)
		return err_set(ctx->err, ERR_NOTFOUND, "%s", TK_NOT_FOUND);
	memcpy(owner, full, (size_t)(slash - full));
	owner[slash - full] = '\0';
	snprintf(name, sizeof name, "%s", slash + 1);
	return db_repo_find_visible(ctx->core->db, out, ctx->who->user_id, owner, name, ctx->err);
}

int64_t
tk_int(struct json_object *args, const char *key, int64_t def)
{
	struct json_object	*v = json_get(args, key);

	if (v != NULL && json_is_type(v, json_type_int))
		return json_object_get_int64(v);
	if (v != NULL && json_is_type(v, json_type_double))
		return (int64_t)json_object_get_double(v);	/* the schema allowed it: integral */
	return def;
}

int
tk_bool(struct json_object *args, const char *key, int def)
{
	struct json_object	*v = json_get(args, key);

	if (v != NULL && json_is_type(v, json_type_boolean))
		return json_object_get_boolean(v);
	return def;
}

int
tk_str(struct tool_ctx *ctx, struct json_object *args, const char *key, const char **out)
{
	struct json_object	*v = json_get(args, key);

	*out = NULL;
	if (v == NULL || !json_is_type(v, json_type_string))
		return 0;
	if (json_str_has_nul(v))
		return err_set(ctx->err, ERR_INVALID, "%s must not contain NUL bytes", key);
	*out = json_object_get_string(v);
	if ((*out)[0] == '\0')
		*out = NULL;
	return 0;
}

int
tk_add(struct json_object *o, const char *key, struct json_object *v)
{
	if (v == NULL)
		return ERR_NOMEM;
	if (json_object_object_add(o, key, v) != 0) {
		json_object_put(v);
		return ERR_NOMEM;
	}
	return 0;
}


const char *
tk_full(const struct db_repo *r, char *buf, size_t len)
{
	snprintf(buf, len, "%s/%s", r->owner, r->name);
	return buf;
}

int
tk_fail(struct tool_ctx *ctx, int rc, const struct err *local)
{
	if (rc == ERR_NOMEM)
		return err_set(ctx->err, rc, "out of memory");
	return err_set(ctx->err, rc, "%s", local->msg);
}
