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
    "\"limit\":{\"type\":\"integer\",\"minimum\":1,\"maximum\":100,\"default\":50,"
    "\"description\":\"How many pull requests to return at most (1 to 100, default 50).\"},"
    "\"cursor\":{\"type\":\"integer\",\"minimum\":1,"
    "\"description\":\"The next_cursor of the previous answer, to get the next page.\"}"
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
	    "[{number, title, state, author, head, base, url, created_at}], truncated, "
	    "next_cursor}: at most limit pull requests (default 50); when truncated is true, "
	    "pass next_cursor as cursor to get the next page. Read one, with its diff, with "
	    "get_pull_request.",
	.input_schema = schema,
	.scope = AUTH_SCOPE_READ,
	.hints = TOOL_READ_ONLY,
	.toolset = "pull_requests",
	.handler = list_pull_requests,
};
