/* reopen_pull_request_discussion: reopens a resolved review discussion, guarded by its state_version (spec: reopen_pull_request_discussion). */
#include <json-c/json.h>

#include "auth.h"
#include "tool.h"
#include "tools/forge_out.h"

static const char schema[] =
    "{\"type\":\"object\",\"additionalProperties\":false,"
    "\"required\":[\"repo\",\"number\",\"discussion\",\"state_version\"],"
    "\"properties\":{"
    "\"repo\":{\"type\":\"string\",\"minLength\":3,\"maxLength\":166,"
    "\"description\":\"The repository as owner/name (see list_repositories).\"},"
    "\"number\":{\"type\":\"integer\",\"minimum\":1,\"maximum\":2147483647,"
    "\"description\":\"The pull request number.\"},"
    "\"discussion\":{\"type\":\"integer\",\"minimum\":1,\"maximum\":9007199254740991,"
    "\"description\":\"The discussion id (see list_pull_request_discussions).\"},"
    "\"state_version\":{\"type\":\"integer\",\"minimum\":1,\"maximum\":4294967295,"
    "\"description\":\"The state_version list_pull_request_discussions showed you. If "
    "the discussion was resolved or reopened since, the call is refused and changes "
    "nothing: read it again and retry.\"}"
    "}}";

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
	.handler = reopen_pull_request_discussion,
};
