/* list_issues: a repository's issues, newest number first, by state or text (spec: list_issues). */
#include <json-c/json.h>

#include "auth.h"
#include "tool.h"
#include "tools/forge_out.h"

static const char schema[] =
    "{\"type\":\"object\",\"additionalProperties\":false,\"required\":[\"repo\"],"
    "\"properties\":{"
    "\"repo\":{\"type\":\"string\",\"minLength\":3,\"maxLength\":166,"
    "\"description\":\"The repository as owner/name (see list_repositories).\"},"
    "\"state\":{\"type\":\"string\",\"enum\":[\"open\",\"closed\",\"all\"],\"default\":\"open\","
    "\"description\":\"Which issues: open (default), closed or all.\"},"
    "\"query\":{\"type\":\"string\",\"maxLength\":256,"
    "\"description\":\"Only issues whose title or body contains this text (case-insensitive).\"},"
    "\"limit\":{\"type\":\"integer\",\"minimum\":1,\"maximum\":100,\"default\":50,"
    "\"description\":\"How many issues to return at most (1 to 100, default 50).\"},"
    "\"cursor\":{\"type\":\"integer\",\"minimum\":1,"
    "\"description\":\"The next_cursor of the previous answer, to get the next page.\"}"
    "}}";

static int
list_issues(struct tool_ctx *ctx, struct json_object *args, struct json_object **out)
{
	return fout_list(ctx, args, FORGE_KIND_ISSUE, out);
}

const struct tool tool_list_issues = {
	.name = "list_issues",
	.title = "List issues",
	.description =
	    "List the issues of a repository, highest number first, optionally by state "
	    "(open, closed or all; default open) and by a text the title or body contains. "
	    "Returns {issues: [{number, title, state, author, url, created_at}], truncated, "
	    "next_cursor}: at most limit issues (default 50); when truncated is true, pass "
	    "next_cursor as cursor to get the next page. Read one issue with get_issue.",
	.input_schema = schema,
	.scope = AUTH_SCOPE_READ,
	.hints = TOOL_READ_ONLY,
	.toolset = "issues",
	.handler = list_issues,
};
