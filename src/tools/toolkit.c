/* toolkit: what tools share: argument getters, JSON helpers. */
#include <stdio.h>
#include <json-c/json.h>

#include "err.h"
#include "json.h"
#include "store/db.h"
#include "tool.h"
#include "tools/toolkit.h"

int64_t
tk_int(struct json_object *args, const char *key, int64_t def)
{
	struct json_object	*v = json_get(args, key);

	/* The schema admits integer tokens only; json-c saturates those past 64 bits. */
	if (v != NULL && json_is_type(v, json_type_int))
		return json_object_get_int64(v);
	return def;
}

int64_t
tk_clamp(struct json_object *args, const char *key, int64_t def, int64_t lo, int64_t hi)
{
	int64_t	 v = tk_int(args, key, def);

	return v < lo ? lo : v > hi ? hi : v;
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

int
tk_page(struct json_object *o, const char *key, struct json_object *v, int64_t page,
    int has_more)
{
	if (tk_add(o, key, v) != 0 ||
	    tk_add(o, "page", json_object_new_int64(page)) != 0 ||
	    tk_add(o, "has_more", json_object_new_boolean(has_more)) != 0)
		return ERR_NOMEM;
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
