/* list_pull_requests: a repository's pull requests, newest number first, by state (spec: list_pull_requests). */
#include <json-c/json.h>

#include "auth.h"
#include "tool.h"
#include "tools/forge_out.h"

static const char schema[] =
    "{\"type\":\"object\",\"additionalProperties\":false,\"required\":[\"repo\"],"
    "\"properties\":{"
    "\"repo\":{\"type\":\"string\",\"minLength\":3,\"maxLength\":166,"
    "\"description\":\"The repository as owner/name (see list_repositories).\"},"
    "\"state\":{\"type\":\"string\",\"enum\":[\"open\",\"closed\",\"merged\",\"all\"],"
    "\"default\":\"open\","
    "\"description\":\"Which pull requests: open (default), closed, merged or all.\"},"
    "\"query\":{\"type\":\"string\",\"maxLength\":256,"
    "\"description\":\"Only pull requests whose title or body contains this text "
    "(case-insensitive).\"},"
    "\"page\":{\"type\":\"integer\",\"minimum\":1,\"maximum\":2147483647,\"default\":1,"
    "\"description\":\"Which page of pull requests (50 a page, from 1); when has_more is "
    "true, ask for the next page.\"}"
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
	    "List the pull requests of a repository, highest number first, optionally by "
	    "state (open, closed, merged or all; default open). Returns {pull_requests: "
	    "[{number, title, state, author, head, base, draft, issue, closing_issue_numbers, "
	    "url, created_at}], page, has_more}: "
	    "50 pull requests a page; when has_more is true, pass page + 1 as page to get the "
	    "next ones. Read one, with its diff, with get_pull_request.",
	.input_schema = schema,
	.scope = AUTH_SCOPE_READ,
	.hints = TOOL_READ_ONLY,
	.toolset = "pull_requests",
	.target = TOOL_TARGET_REPO,
	.handler = list_pull_requests,
};
