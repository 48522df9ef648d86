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
	    "from list_pull_request_discussions: if the discussion was resolved or reopened "
	    "since, the call is refused and changes nothing. One already open stays so "
	    "(changed false). Needs the writer role or more, or being the discussion's or the "
	    "pull request's author. Returns {id, number, state, state_version (the new one), "
	    "changed, url}.",
	.input_schema = schema,
	.scope = AUTH_SCOPE_WRITE,
	.hints = TOOL_IDEMPOTENT,
	.toolset = "pull_requests",
	.target = TOOL_TARGET_REPO,
	.handler = reopen_pull_request_discussion,
};
