/* toolkit: what tools share: repository lookup, argument getters, JSON helpers. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <json-c/json.h>

#include "config.h"
#include "core.h"
#include "err.h"
#include "json.h"
#include "store/db.h"
#include "tool.h"
#include "tools/toolkit.h"

/*
 * Repositories a caller was shown, remembered by this process for
 * token_cache_seconds (the token cache's lifetime, so a read tool costs no
 * database round trip): a repository made private or a collaborator
 * removed is refused at most that long after the change, as a revoked
 * token is.  Direct-mapped; a clash just replaces the slot.
 */
#define TK_SEEN_SLOTS	64

static struct tk_seen {
	uint64_t	 user_id;
	char		 owner[65], name[101];
	struct db_repo	 repo;
	int64_t		 at_ms;		/* 0: free */
} tk_seen[TK_SEEN_SLOTS];

static int64_t
tk_now_ms(void)
{
	struct timespec	 ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000 + 1;
}

static struct tk_seen *
tk_seen_slot(uint64_t user_id, const char *owner, const char *name)
{
	const char	*p;
	uint32_t	 h = (uint32_t)user_id * 2654435761u;

	for (p = owner; *p != '\0'; p++)
		h = h * 31 + (unsigned char)*p;
	for (p = name; *p != '\0'; p++)
		h = h * 31 + (unsigned char)*p;
	return &tk_seen[h % TK_SEEN_SLOTS];
}

int
tk_repo_find(struct tool_ctx *ctx, const char *owner, const char *name, struct db_repo *out)
{
	struct tk_seen	*s = tk_seen_slot(ctx->who->user_id, owner, name);
	int64_t		 ttl = (int64_t)ctx->core->cfg->token_cache_seconds * 1000, now;
	int		 rc;

	now = tk_now_ms();
	if (ttl > 0 && s->at_ms != 0 && now - s->at_ms < ttl && s->user_id == ctx->who->user_id &&
	    strcmp(s->owner, owner) == 0 && strcmp(s->name, name) == 0) {
		*out = s->repo;
		out->description = NULL;
		if (s->repo.description != NULL &&
		    (out->description = strdup(s->repo.description)) == NULL)
			return err_set(ctx->err, ERR_NOMEM, "out of memory");
		return 0;
	}
	if ((rc = db_repo_find_visible(ctx->core->db, out, ctx->who->user_id, owner, name,
	    ctx->err)) != 0 || ttl == 0)
		return rc;
	db_repo_release(&s->repo);
	s->at_ms = 0;
	s->repo = *out;
	s->repo.description = NULL;
	if (out->description != NULL && (s->repo.description = strdup(out->description)) == NULL)
		return 0;	/* not remembered; the answer stands */
	s->user_id = ctx->who->user_id;
	snprintf(s->owner, sizeof(s->owner), "%s", owner);
	snprintf(s->name, sizeof(s->name), "%s", name);
	s->at_ms = now;
	return 0;
}

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
	return tk_repo_find(ctx, owner, name, out);
}

int64_t
tk_int(struct json_object *args, const char *key, int64_t def)
{
	struct json_object	*v = json_get(args, key);

	/* The schema admits integer tokens only; json-c saturates those past 64 bits. */
	if (v != NULL && json_is_type(v, json_type_int))
		return json_object_get_int64(v);
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
