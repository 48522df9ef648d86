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
    "\"page\":{\"type\":\"integer\",\"minimum\":1,\"maximum\":2147483647,\"default\":1,"
    "\"description\":\"Which page of issues (50 a page, from 1); when has_more is true, "
    "ask for the next page.\"}"
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
	    "Returns {issues: [{number, title, state, author, url, created_at}], page, "
	    "has_more}: 50 issues a page; when has_more is true, pass page + 1 as page to get "
	    "the next ones. Read one issue with get_issue.",
	.input_schema = schema,
	.scope = AUTH_SCOPE_READ,
	.hints = TOOL_READ_ONLY,
	.toolset = "issues",
	.target = TOOL_TARGET_REPO,
	.handler = list_issues,
};
