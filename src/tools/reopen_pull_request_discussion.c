/* reopen_pull_request_discussion: reopens a resolved review discussion, guarded by its state_version (spec: reopen_pull_request_discussion). */
#include <json-c/json.h>

#include "auth.h"
#include "tool.h"
#include "tools/forge_out.h"

static const char schema[] = FOUT_DISCUSSION_STATE_SCHEMA;

static int
reopen_pull_request_discussion(struct tool_ctx *ctx, struct json_object *args,
    struct json_object **out)
{
	return fout_discussion_state(ctx, args, 0, out);
}

const struct tool tool_reopen_pull_request_discussion = {
	.name = "reopen_pull_request_discussion",
	.title = "Reopen pull request discussion",
	.description =
	    "Reopen a resolved review discussion of a pull request. Pass the state_version "
	    "you read with list_pull_request_discussions: if the discussion was resolved or "
	    "reopened since, the call is refused, changes nothing, and says to reload. A "
	    "discussion already open stays as it is (changed false). Needs the write scope "
	    "and the writer role or more on the repository, or being the discussion's author "
	    "or the pull request's author. Returns {id, number, state, state_version, "
	    "changed, url} with the new state_version.",
	.input_schema = schema,
	.scope = AUTH_SCOPE_WRITE,
	.hints = TOOL_IDEMPOTENT,
	.toolset = "pull_requests",
	.target = TOOL_TARGET_REPO,
	.handler = reopen_pull_request_discussion,
};
