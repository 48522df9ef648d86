/* list_issues: a repository's issues, newest number first, by state or text (spec: list_issues). */
#include <json-c/json.h>

#include "auth.h"
#include "tool.h"
#include "tools/forge_out.h"

static const char schema[] =
    "{\"type\":\"object\",\"additionalProperties\":false,\"required\":[\"repo\"],"
    "\"properties\":{"
    "\"repo\":{\"type\":\"string\",\"minLength\":3,\"maxLength\":166,"
    "\"description\":\"owner/name.\"},"
    "\"state\":{\"type\":\"string\",\"enum\":[\"open\",\"closed\",\"all\"],\"default\":\"open\","
    "\"description\":\"Which issues: open (default), closed or all.\"},"
    "\"query\":{\"type\":\"string\",\"maxLength\":256,"
    "\"description\":\"Only issues whose title or body contains this text (case-insensitive).\"},"
    "\"page\":{\"type\":\"integer\",\"minimum\":1,\"maximum\":2147483647,\"default\":1,"
    "\"description\":\"Page of 50 issues, from 1; ask for the next while "
    "has_more is true.\"}"
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
	    "List the issues of a repository, highest number first, 50 a page, optionally by "
	    "state and by text in the title or body. Returns {issues: [{number, title, state, "
	    "author, url, created_at}], page, has_more}. Read one with get_issue.",
	.input_schema = schema,
	.scope = AUTH_SCOPE_READ,
	.hints = TOOL_READ_ONLY,
	.toolset = "issues",
	.target = TOOL_TARGET_REPO,
	.handler = list_issues,
};
