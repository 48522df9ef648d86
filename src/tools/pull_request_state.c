/* pull_request_state: close_pull_request and reopen_pull_request, a tight pair sharing one answer. */
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

static const char schema[] =
    "{\"type\":\"object\",\"additionalProperties\":false,\"required\":[\"repo\",\"number\"],"
    "\"properties\":{"
    "\"repo\":{\"type\":\"string\",\"minLength\":3,\"maxLength\":166,"
    "\"description\":\"owner/name.\"},"
    "\"number\":{\"type\":\"integer\",\"minimum\":1,\"maximum\":2147483647,"
    "\"description\":\"The pull request number.\"}"
    "}}";

/* {number, state, changed, note, url}: note says when nothing changed. */
static int
pull_state(struct tool_ctx *ctx, struct json_object *args, int close, struct json_object **out)
{
	struct service_pull_state	 ps;
	struct json_object		*o = NULL;
	char				 url[2048], note[160];
	int				 rc;

	*out = NULL;
	rc = (close ? pull_close : pull_reopen)(ctx->db, ctx->repos, &ps, ctx->who->user_id,
	    ctx->repo, tk_int(args, "number", 0), ctx->err);
	if (rc != 0)
		return rc;
	fout_item_url(url, sizeof url, ctx->cfg->base_url, ps.owner, ps.name, FORGE_KIND_PULL,
	    ps.number);
	snprintf(note, sizeof note, "pull request #%lld was already %s: nothing changed",
	    (long long)ps.number, ps.state);
	if ((o = json_object_new_object()) == NULL ||
	    tk_add(o, "number", json_object_new_int64(ps.number)) != 0 ||
	    tk_add(o, "state", json_object_new_string(ps.state)) != 0 ||
	    tk_add(o, "changed", json_object_new_boolean(ps.changed)) != 0 ||
	    fout_add_str_or_null(o, "note", ps.changed ? "" : note) != 0 ||
	    tk_add(o, "url", json_object_new_string(url)) != 0) {
		json_object_put(o);
		return err_set(ctx->err, ERR_NOMEM, "out of memory");
	}
	*out = o;
	return 0;
}

static int
close_pull_request(struct tool_ctx *ctx, struct json_object *args, struct json_object **out)
{
	return pull_state(ctx, args, 1, out);
}

static int
reopen_pull_request(struct tool_ctx *ctx, struct json_object *args, struct json_object **out)
{
	return pull_state(ctx, args, 0, out);
}

const struct tool tool_close_pull_request = {
	.name = "close_pull_request",
	.title = "Close pull request",
	.description =
	    "Close a pull request without merging it. Needs write scope and the writer role or "
	    "more, or being its author. The issues its description declares closed "
	    "(closing_issue_numbers) stay open, and a closed pull request cannot be merged "
	    "until reopened (reopen_pull_request). Refused for a merged pull request and while "
	    "a merge is queued or running. Closing a closed one succeeds and changes nothing "
	    "(changed false; note says it was already closed); a real change is recorded in "
	    "its activity with who did it. Returns {number, state, changed, note, url}.",
	.input_schema = schema,
	.scope = AUTH_SCOPE_WRITE,
	.hints = TOOL_IDEMPOTENT,
	.toolset = "pull_requests",
	.target = TOOL_TARGET_REPO,
	.handler = close_pull_request,
};

const struct tool tool_reopen_pull_request = {
	.name = "reopen_pull_request",
	.title = "Reopen pull request",
	.description =
	    "Reopen a closed pull request. Needs write scope and the writer role or more, or "
	    "being its author. Refused for a merged pull request, when its source (head) "
	    "branch no longer exists, and when another open pull request has the same head "
	    "and target. Reopening an open one succeeds and changes nothing (changed false; "
	    "note says it was already open); a real change is recorded in its activity with "
	    "who did it. Returns {number, state, changed, note, url}.",
	.input_schema = schema,
	.scope = AUTH_SCOPE_WRITE,
	.hints = TOOL_IDEMPOTENT,
	.toolset = "pull_requests",
	.target = TOOL_TARGET_REPO,
	.handler = reopen_pull_request,
};
