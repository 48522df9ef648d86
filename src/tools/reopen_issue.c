/* reopen_issue: reopens a closed issue through the lifecycle service (spec: reopen_issue). */
#include <json-c/json.h>

#include "auth.h"
#include "tool.h"
#include "tools/forge_out.h"

static const char schema[] =
    "{\"type\":\"object\",\"additionalProperties\":false,\"required\":[\"repo\",\"number\"],"
    "\"properties\":{"
    "\"repo\":{\"type\":\"string\",\"minLength\":3,\"maxLength\":166,"
    "\"description\":\"owner/name.\"},"
    "\"number\":{\"type\":\"integer\",\"minimum\":1,\"maximum\":2147483647,"
    "\"description\":\"The issue number.\"}"
    "}}";

static int
reopen_issue(struct tool_ctx *ctx, struct json_object *args, struct json_object **out)
{
	return fout_issue_state(ctx, args, 0, out);
}

const struct tool tool_reopen_issue = {
	.name = "reopen_issue",
	.title = "Reopen issue",
	.description =
	    "Reopen a closed issue. Needs the writer role or more on the repository, or "
	    "being the issue's author. Reopening an open issue succeeds and changes nothing "
	    "(changed false: it was already open); a real change is recorded in the issue's "
	    "activity (get_issue) with who did it. Returns {number, state, changed, url}.",
	.input_schema = schema,
	.scope = AUTH_SCOPE_WRITE,
	.hints = TOOL_IDEMPOTENT,
	.toolset = "issues",
	.target = TOOL_TARGET_REPO,
	.handler = reopen_issue,
};
