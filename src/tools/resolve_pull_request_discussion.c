/* resolve_pull_request_discussion: marks a review discussion resolved, guarded by its state_version (spec: resolve_pull_request_discussion). */
#include <stdio.h>
#include <json-c/json.h>

#include "conf.h"
#include "auth.h"
#include "err.h"
#include "json.h"
#include "service/service.h"
#include "store/db.h"
#include "tool.h"
#include "tools/forge_out.h"

static const char schema[] = FOUT_DISCUSSION_STATE_SCHEMA;

int
fout_discussion_state(struct tool_ctx *ctx, struct json_object *args, int resolve,
    struct json_object **out)
{
	struct service_discussion	 d;
	struct json_object		*o = NULL;
	char				 base[2048], url[2200];
	int				 rc;

	*out = NULL;
	rc = (resolve ? discussion_resolve : discussion_reopen)(ctx->db, &d,
	    ctx->who->user_id, ctx->repo, tk_int(args, "number", 0),
	    (uint64_t)tk_int(args, "discussion", 0), tk_int(args, "state_version", 0), ctx->err);
	if (rc != 0)
		return rc;
	fout_item_url(base, sizeof base, ctx->cfg->base_url, d.owner, d.name,
	    FORGE_KIND_PULL, d.number);
	snprintf(url, sizeof url, "%s#discussion-%llu", base, (unsigned long long)d.id);
	if ((o = json_object_new_object()) == NULL ||
	    tk_add(o, "id", json_object_new_int64((int64_t)d.id)) != 0 ||
	    tk_add(o, "number", json_object_new_int64(d.number)) != 0 ||
	    tk_add(o, "state", json_object_new_string(d.state)) != 0 ||
	    tk_add(o, "state_version", json_object_new_int64(d.state_version)) != 0 ||
	    tk_add(o, "changed", json_object_new_boolean(d.changed)) != 0 ||
	    tk_add(o, "url", json_object_new_string(url)) != 0) {
		json_object_put(o);
		return err_set(ctx->err, ERR_NOMEM, "out of memory");
	}
	*out = o;
	return 0;
}

static int
resolve_pull_request_discussion(struct tool_ctx *ctx, struct json_object *args,
    struct json_object **out)
{
	return fout_discussion_state(ctx, args, 1, out);
}

const struct tool tool_resolve_pull_request_discussion = {
	.name = "resolve_pull_request_discussion",
	.title = "Resolve pull request discussion",
	.description =
	    "Mark a review discussion of a pull request resolved. Pass the state_version from "
	    "list_pull_request_discussions: if the discussion was resolved or reopened since, "
	    "the call is refused and changes nothing. One already resolved stays so (changed "
	    "false). Needs the writer role or more, or being the discussion's or the pull "
	    "request's author. Returns {id, number, state, state_version (the new one), "
	    "changed, url}.",
	.input_schema = schema,
	.scope = AUTH_SCOPE_WRITE,
	.hints = TOOL_IDEMPOTENT,
	.toolset = "pull_requests",
	.target = TOOL_TARGET_REPO,
	.handler = resolve_pull_request_discussion,
};
