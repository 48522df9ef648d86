/* list_pull_requests: a repository's pull requests, newest number first, by state (spec: list_pull_requests). */
#include <json-c/json.h>

#include "auth.h"
#include "tool.h"
#include "tools/forge_out.h"

static const char schema[] =
    "{\"type\":\"object\",\"additionalProperties\":false,\"required\":[\"repo\"],"
    "\"properties\":{"
    "\"repo\":{\"type\":\"string\",\"minLength\":3,\"maxLength\":166,"
    "\"description\":\"owner/name.\"},"
    "\"state\":{\"type\":\"string\",\"enum\":[\"open\",\"closed\",\"merged\",\"all\"],"
    "\"default\":\"open\","
    "\"description\":\"Which pull requests: open (default), closed, merged or all.\"},"
    "\"query\":{\"type\":\"string\",\"maxLength\":256,"
    "\"description\":\"Only pull requests whose title or body contains this text "
    "(case-insensitive).\"},"
    "\"page\":{\"type\":\"integer\",\"minimum\":1,\"maximum\":2147483647,\"default\":1,"
    "\"description\":\"Page of 50 pull requests, from 1; ask for the next "
    "while has_more is true.\"}"
    "}}";

static int
list_pull_requests(struct tool_ctx *ctx, struct json_object *args, struct json_object **out)
{
	return fout_list(ctx, args, FORGE_KIND_PULL, out);
}

const struct tool tool_list_pull_requests = {
	.name = "list_pull_requests",
	.title = "List pull requests",
	.description =
	    "List the pull requests of a repository, highest number first, 50 a page, "
	    "optionally by state and by text in the title or body. Returns {pull_requests: "
	    "[{number, title, state, author, head, base, draft, issue, closing_issue_numbers, "
	    "url, created_at}], page, has_more}. Read one, with its diff, with "
	    "get_pull_request.",
	.input_schema = schema,
	.scope = AUTH_SCOPE_READ,
	.hints = TOOL_READ_ONLY,
	.toolset = "pull_requests",
	.target = TOOL_TARGET_REPO,
	.handler = list_pull_requests,
};
